/* layout.c - the dashboard's geometry, free of ncurses. */
#include "layout.h"

#include <string.h>

/* Gives the panels of column c (col_of[i] == c, not fill; -1 for hidden ones) heights between their
 * minimum and preferred heights summing to height, one row at a time in table order; the last panel
 * of the column takes what is left beyond every preference. Stores heights in h[]. */
static void column_heights(const struct panel_hint *hints, int n, const int *col_of, int c,
                           int height, int *h)
{
	int used = 0, last = -1, grew = 1;
	for (int i = 0; i < n; i++)
		if (!hints[i].fill && col_of[i] == c) {
			h[i] = hints[i].min_h;
			used += h[i];
			last = i;
		}
	while (used < height && grew) {
		grew = 0;
		for (int i = 0; i < n && used < height; i++)
			if (!hints[i].fill && col_of[i] == c && h[i] < hints[i].pref_h) {
				h[i]++;
				used++;
				grew = 1;
			}
	}
	if (last >= 0)
		h[last] += height - used;
}

/* Lays out the n panels that are not hidden (n <= LAYOUT_MAX_PANELS, optional or not) as
 * layout_compute says; returns 0, or -1 when the terminal is too small for them. */
static int place(int rows, int cols, const struct panel_hint *hints, int n, struct layout *out)
{
	int col_of[LAYOUT_MAX_PANELS], h[LAYOUT_MAX_PANELS];
	int pref_sum[2] = {0, 0}, min_sum[2] = {0, 0};
	int width_side = 1, width_fill = 1, fill_min = 0, nfill = 0;
	memset(out, 0, sizeof *out);
	for (int i = 0; i < n; i++) {
		if (hints[i].hidden)
			continue;
		int *w = hints[i].fill ? &width_fill : &width_side;
		*w = hints[i].min_w > *w ? hints[i].min_w : *w;
	}
	out->columns = cols >= 2 * width_side ? 2 : 1;
	for (int i = 0; i < n; i++) {
		col_of[i] = -1;
		if (hints[i].hidden)
			continue;
		if (hints[i].fill) {
			fill_min += hints[i].min_h;
			nfill++;
			continue;
		}
		const int c = out->columns == 2 && pref_sum[1] < pref_sum[0] ? 1 : 0;
		col_of[i] = c;
		pref_sum[c] += hints[i].pref_h;
		min_sum[c] += hints[i].min_h;
	}
	const int top_min = min_sum[0] > min_sum[1] ? min_sum[0] : min_sum[1];
	const int top_pref = pref_sum[0] > pref_sum[1] ? pref_sum[0] : pref_sum[1];
	const int side_cols = out->columns == 2 ? 2 * width_side : width_side;
	out->min_rows = 2 + top_min + fill_min;
	out->min_cols = side_cols > width_fill ? side_cols : width_fill;
	out->status = (struct rect){0, 0, rows > 0 ? 1 : 0, cols};
	out->cmdline = (struct rect){rows > 1 ? rows - 1 : 0, 0, rows > 1 ? 1 : 0, cols};
	if (rows < out->min_rows || cols < out->min_cols)
		return -1;

	const int body = rows - 2;
	int top_h = nfill ? body - fill_min : body;
	if (nfill && top_pref < top_h)
		top_h = top_pref;
	for (int c = 0; c < out->columns; c++) {
		int y = 1;
		column_heights(hints, n, col_of, c, top_h, h);
		for (int i = 0; i < n; i++)
			if (!hints[i].fill && col_of[i] == c) {
				const int x = c == 0 ? 0 : cols / 2;
				const int w = out->columns == 1
				                  ? cols
				                  : (c == 0 ? cols / 2 : cols - cols / 2);
				out->panel[i] = (struct rect){y, x, h[i], w};
				y += h[i];
			}
	}
	int y = 1 + top_h, left = body - top_h, k = 0;
	const int share = nfill ? (body - top_h - fill_min) / nfill : 0;
	for (int i = 0; i < n; i++)
		if (hints[i].fill && !hints[i].hidden) {
			const int hf = ++k == nfill ? left : hints[i].min_h + share;
			out->panel[i] = (struct rect){y, 0, hf, cols};
			y += hf;
			left -= hf;
		}
	return 0;
}

/* The smallest terminal on which place() lays out the hints in two columns (*rows2 x
 * *cols2) and in one (*rows1 x *cols1): the same whatever the terminal's size. */
static void minimums(const struct panel_hint *hints, int n, int *rows2, int *cols2, int *rows1,
                     int *cols1)
{
	struct layout probe;
	int width_side = 1;
	for (int i = 0; i < n; i++)
		if (!hints[i].hidden && !hints[i].fill && hints[i].min_w > width_side)
			width_side = hints[i].min_w;
	place(0, 2 * width_side, hints, n, &probe); /* two columns: as wide as they need */
	*rows2 = probe.min_rows;
	*cols2 = probe.min_cols;
	place(0, 2 * width_side - 1, hints, n, &probe); /* one column */
	*rows1 = probe.min_rows;
	*cols1 = probe.min_cols;
}

/* Computes the layout, leaving out optional panels, the last first, until the rest fit; the
 * minimum is that of the panels without the optional ones, in two columns (its fewest rows),
 * and the narrow one that of one column, so that the too-small message names one size at
 * every size. */
int layout_compute(int rows, int cols, const struct panel_hint *hints, int n, struct layout *out)
{
	struct panel_hint h[LAYOUT_MAX_PANELS];
	unsigned dropped = 0;
	int min_rows, min_cols, narrow_rows, narrow_cols;
	n = n > LAYOUT_MAX_PANELS ? LAYOUT_MAX_PANELS : n;
	memcpy(h, hints, (size_t)(n > 0 ? n : 0) * sizeof *h);
	int rc = place(rows, cols, h, n, out);
	for (int i = n - 1; i >= 0 && rc; i--)
		if (h[i].optional && !h[i].hidden) {
			h[i].hidden = 1;
			dropped |= 1u << i;
			rc = place(rows, cols, h, n, out);
		}
	for (int i = 0; i < n; i++)
		h[i].hidden |= h[i].optional;
	minimums(h, n, &min_rows, &min_cols, &narrow_rows, &narrow_cols);
	out->min_rows = min_rows;
	out->min_cols = min_cols;
	/* one column is an alternative only where it is narrower */
	out->narrow_rows = narrow_cols < min_cols ? narrow_rows : 0;
	out->narrow_cols = narrow_cols < min_cols ? narrow_cols : 0;
	out->dropped = dropped;
	return rc;
}

/* Hides every panel but keep and makes keep fill the body, optional or not. */
void layout_zoom(struct panel_hint *hints, int n, int keep)
{
	for (int i = 0; i < n; i++)
		hints[i].hidden = i != keep;
	if (keep >= 0 && keep < n) {
		hints[keep].fill = 1;
		hints[keep].optional = 0;
	}
}
