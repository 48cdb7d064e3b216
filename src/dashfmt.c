/* dashfmt.c - the dashboard's text, free of ncurses.
 * One file, over 600 lines: every piece of dashboard text (bars, scales, big digits, the
 * histogram, the per-GPU lines) is a pure function here, unit-tested as one set
 * (test_dashfmt.c). */
#include "dashfmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stats.h"

/* UTF-8 eighths of a cell, from one eighth wide (left blocks) or tall (lower blocks) to full. */
static const char *const left_eighths[9] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉", "█"};
static const char *const lower_eighths[9] = {" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};

/* Appends s to buf (of len bytes) when it fits whole; returns 1 when it did. */
static int append(char *buf, size_t len, const char *s)
{
	const size_t used = strlen(buf), n = strlen(s);
	if (used + n + 1 > len)
		return 0;
	memcpy(buf + used, s, n + 1);
	return 1;
}

/* Returns the smallest 1/2/5 x 10^k at or above v. */
double fmt_nice_max(double v)
{
	if (!(v > 0) || isinf(v))
		return 1;
	const double p = pow(10, floor(log10(v)));
	for (int k = 0; k < 4; k++) {
		const double step = (k == 0 ? 1 : k == 1 ? 2 : k == 2 ? 5 : 10) * p;
		if (step >= v * (1 - 1e-12))
			return step;
	}
	return 10 * p;
}

/* Draws a bar of value/scale of width cells. */
int fmt_bar(char *buf, size_t len, double value, double scale, int width, int utf8)
{
	int cells = 0;
	if (len)
		buf[0] = '\0';
	if (!(value > 0) || !(scale > 0) || width <= 0)
		return 0;
	double frac = value / scale;
	frac = frac > 1 ? 1 : frac;
	const long eighths = lround(frac * width * 8);
	for (long k = 0; k < eighths / 8; k++, cells++)
		if (!append(buf, len, utf8 ? left_eighths[8] : "#"))
			return cells;
	if (eighths % 8 && utf8 && append(buf, len, left_eighths[eighths % 8]))
		cells++;
	if (cells == 0 && append(buf, len, utf8 ? left_eighths[1] : "|"))
		cells = 1; /* a phase that took any time stays visible */
	return cells;
}

/* Writes the scale line "0     mid     max". */
void fmt_scale(char *buf, size_t len, double scale, int width)
{
	char mid[32], end[32];
	if (!len)
		return;
	fmt_ms(mid, sizeof mid, scale / 2);
	fmt_ms(end, sizeof end, scale);
	const int w = width < (int)len - 1 ? width : (int)len - 1;
	memset(buf, ' ', w > 0 ? (size_t)w : 0);
	buf[w > 0 ? w : 0] = '\0';
	if (w < 1)
		return;
	buf[0] = '0';
	const int le = (int)strlen(end), lm = (int)strlen(mid);
	if (le + 2 <= w)
		memcpy(buf + w - le, end, (size_t)le);
	if (w / 2 - lm / 2 > 1 && w / 2 + lm - lm / 2 < w - le - 1)
		memcpy(buf + w / 2 - lm / 2, mid, (size_t)lm);
}

/* Formats a duration in ms. */
void fmt_ms(char *buf, size_t len, double ms)
{
	if (isnan(ms) || ms < 0)
		snprintf(buf, len, "-");
	else if (ms >= 1000)
		snprintf(buf, len, "%.4g s", ms / 1000);
	else
		snprintf(buf, len, "%.4g ms", ms);
}

/* Formats a speedup. */
void fmt_speedup(char *buf, size_t len, double x)
{
	if (isnan(x))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.3gx", x);
}

/* Three rows of the seven-segment glyphs, three cells per character. */
static const char *const big_glyphs = "0123456789.x- ";
static const char *const big_rows[3] = {
    " _     _  _     _  _  _  _  _             ",
    "| |  | _| _||_||_ |_   ||_||_|   \\/  _    ",
    "|_|  ||_  _|  | _||_|  ||_| _| o /\\       ",
};

/* Writes one row of text in big digits. */
int fmt_big_row(char *buf, size_t len, const char *text, int row)
{
	int cells = 0;
	if (len)
		buf[0] = '\0';
	if (row < 0 || row > 2)
		return 0;
	for (const char *c = text; *c; c++) {
		const char *g = strchr(big_glyphs, *c);
		const size_t k = g && *c ? (size_t)(g - big_glyphs) : strlen(big_glyphs) - 1;
		char cell[4];
		memcpy(cell, big_rows[row] + 3 * k, 3);
		cell[3] = '\0';
		if (!append(buf, len, cell))
			break;
		cells += 3;
	}
	return cells;
}

/* Writes a sparkline of v[0..n). */
void fmt_spark(char *buf, size_t len, const double *v, int n, int utf8)
{
	static const char ascii_levels[] = "_.-=#";
	double max = 0;
	if (len)
		buf[0] = '\0';
	for (int i = 0; i < n; i++)
		if (v[i] > max)
			max = v[i];
	for (int i = 0; i < n; i++) {
		char cell[2] = " ";
		const char *s = cell;
		if (!isnan(v[i]) && max > 0) {
			const double f = v[i] > 0 ? v[i] / max : 0;
			if (utf8)
				s = lower_eighths[1 + (int)lround(f * 7)];
			else
				cell[0] = ascii_levels[(int)lround(f * 4)];
		}
		if (!append(buf, len, s))
			return;
	}
}

/* Writes the progress line. */
void fmt_progress(char *buf, size_t len, long long done, long long total, double elapsed_ms,
                  double phase_ms)
{
	char el[32], left[32];
	fmt_ms(el, sizeof el, elapsed_ms);
	if (total <= 0) {
		snprintf(buf, len, "%s elapsed", el);
		return;
	}
	if (done > total)
		done = total;
	if (done > 0 && phase_ms > 0)
		fmt_ms(left, sizeof left, phase_ms * (double)(total - done) / (double)done);
	else
		snprintf(left, sizeof left, "?");
	snprintf(buf, len, "%lld%% of %lld  %s elapsed  ~%s left", done * 100 / total, total, el,
	         left);
}

/* Writes an adaptive run's error against where it stops, its work and time so far. */
void fmt_progress_adaptive(char *buf, size_t len, double err, double target, long long done,
                           double elapsed_ms)
{
	char el[32];
	fmt_ms(el, sizeof el, elapsed_ms);
	snprintf(buf, len, "error %.2g, stops at %.2g  %lld evaluations  %s elapsed", err, target,
	         done, el);
}

/* Writes how many items converged of the total. */
void fmt_items(char *buf, size_t len, const char *unit, long long converged, long long total)
{
	snprintf(buf, len, "%s %lld/%lld converged", unit, converged, total);
}

/* Counts log10 relative errors into bins. */
void hist_log10_rel(const double *ref, const void *vals, enum qx_precision prec, size_t count,
                    struct log_hist *h)
{
	memset(h, 0, sizeof *h);
	for (size_t i = 0; i < count; i++) {
		if (isnan(ref[i]))
			continue; /* a sampled reference has no value here */
		h->total++;
		const double rel = rel_error(ref[i], value_at(vals, prec, i));
		if (isnan(rel) || isinf(rel)) {
			h->bad++;
			continue;
		}
		int bin = rel > 0 ? (int)floor(log10(rel)) - HIST_LO_EXP : 0;
		bin = bin < 0 ? 0 : bin >= HIST_BINS ? HIST_BINS - 1 : bin;
		h->count[bin]++;
	}
}

/* Writes one row of the histogram. */
void fmt_hist_row(char *buf, size_t len, const struct log_hist *h, int row, int height, int utf8)
{
	size_t max = 0;
	if (len)
		buf[0] = '\0';
	for (int k = 0; k < HIST_BINS; k++)
		max = h->count[k] > max ? h->count[k] : max;
	for (int k = 0; k < HIST_BINS; k++) {
		long level = max ? lround((double)h->count[k] / (double)max * height * 8) : 0;
		if (h->count[k] && level == 0)
			level = 1;
		long cell = level - (long)(height - 1 - row) * 8;
		cell = cell < 0 ? 0 : cell > 8 ? 8 : cell;
		const char *s = utf8 ? lower_eighths[cell]
		                     : (cell >= 8  ? "#"
		                        : cell > 0 ? "."
		                                   : " ");
		if (!append(buf, len, s) || !append(buf, len, s))
			return;
	}
}

/* Writes the exponents under every fourth bin. */
void fmt_hist_axis(char *buf, size_t len)
{
	char line[2 * HIST_BINS + 8];
	memset(line, ' ', sizeof line - 1);
	line[sizeof line - 1] = '\0';
	for (int k = 0; k < HIST_BINS; k += 4) {
		char num[8];
		const int n = snprintf(num, sizeof num, "%d", k + HIST_LO_EXP);
		memcpy(line + 2 * k, num, (size_t)n);
	}
	snprintf(buf, len, "%s", line);
}

/* Returns the byte after the UTF-8 character that starts at text[i] (text has n bytes). */
static int next_char(const char *text, int i, int n)
{
	for (i++; i < n && ((unsigned char)text[i] & 0xC0) == 0x80; i++)
		;
	return i;
}

/* Returns where the row text[pos..) of at most end (the widest prefix that fits) breaks: after a
 * double blank, else at a blank, else at end. */
static int wrap_cut(const char *text, int pos, int end)
{
	for (int i = end; i > pos + 1; i--)
		if (text[i] == ' ' && text[i - 1] == ' ')
			return i - 1;
	for (int i = end; i > pos; i--)
		if (text[i] == ' ')
			return i;
	return end;
}

/* Wraps text into rows of width cells, the rows after the first indent cells in. */
static int wrap_rows(const char *text, int width, int indent, struct wrap_piece *piece, int max)
{
	const int n = (int)strlen(text);
	int rows = 0, pos = 0;
	if (width < 1)
		return 0;
	while (pos < n) {
		int end = pos, cut;
		const int room = rows ? width - indent : width;
		for (int cells = 0; end < n && cells < room; cells++)
			end = next_char(text, end, n);
		cut = end == n ? n : wrap_cut(text, pos, end);
		int len = cut - pos;
		while (len > 0 && text[pos + len - 1] == ' ')
			len--;
		if (rows < max)
			piece[rows] = (struct wrap_piece){pos, len, rows ? indent : 0};
		rows++;
		for (pos = cut; pos < n && text[pos] == ' '; pos++)
			;
	}
	return rows;
}

/* Wraps text into rows of width cells. */
int fmt_wrap(const char *text, int width, struct wrap_piece *piece, int max)
{
	return wrap_rows(text, width, 0, piece, max);
}

/* Wraps text, its continuation rows under its first's indent. */
int fmt_wrap_indent(const char *text, int width, struct wrap_piece *piece, int max)
{
	int indent = (int)strspn(text, " ");
	if (indent > width / 2)
		indent = width / 2;
	return wrap_rows(text, width, indent, piece, max);
}

/* Counts the cells of text (a UTF-8 character is one cell). */
static int fmt_cells(const char *text)
{
	int cells = 0;
	for (; *text; text++)
		cells += ((unsigned char)*text & 0xC0) != 0x80;
	return cells;
}

/* The cells of the pieces kept (keep[i]) when joined as fmt_fit joins them. */
static int joined_cells(const struct fit_piece *p, const int *keep, int n)
{
	int cells = 0;
	for (int i = 0; i < n; i++)
		if (keep[i] && *p[i].text)
			cells += (cells ? 2 : 1) + fmt_cells(p[i].text);
	return cells;
}

/* Joins the pieces that fit; see dashfmt.h. */
int fmt_fit(char *buf, size_t len, int width, const struct fit_piece *p, int n)
{
	int keep[64], cells = 0;
	n = n < 64 ? n : 64;
	for (int i = 0; i < n; i++)
		keep[i] = 1;
	while (joined_cells(p, keep, n) > width) {
		int worst = -1;
		for (int i = 0; i < n; i++)
			if (keep[i] && p[i].drop > 0 && (worst < 0 || p[i].drop >= p[worst].drop))
				worst = i;
		if (worst < 0)
			break;
		keep[worst] = 0;
	}
	if (!len)
		return 0;
	buf[0] = '\0';
	for (int i = 0; i < n; i++)
		if (keep[i] && *p[i].text &&
		    (!append(buf, len, buf[0] ? "  " : " ") || !append(buf, len, p[i].text)))
			break;
	size_t end = 0; /* cut at width cells */
	for (; buf[end]; end++)
		if (((unsigned char)buf[end] & 0xC0) != 0x80 && cells++ == width)
			break;
	buf[end] = '\0';
	return fmt_cells(buf);
}

/* Writes the idle status line. */
void fmt_status_keys(char *buf, size_t len, int width, const char *title,
                     const struct key_hint *keys, int n)
{
	enum { MAX = 32 };
	struct fit_piece p[MAX + 1] = {{title, 4}};
	char text[MAX][64];
	int np = 1;
	for (int i = 0; i < n && np <= MAX; i++)
		if (keys[i].label) {
			snprintf(text[np - 1], sizeof text[0], "%s %s", keys[i].key, keys[i].label);
			p[np] = (struct fit_piece){text[np - 1], keys[i].drop};
			np++;
		}
	fmt_fit(buf, len, width, p, np);
}

/* Writes "sweep, phase [bar] pct" with a bar of cells cells into buf. */
static void run_where(char *buf, size_t len, const struct status_run *r, const char *pct, int cells,
                      int utf8)
{
	char bar[4 * 20 + 1];
	const int drawn =
	    fmt_bar(bar, sizeof bar - 20, (double)r->done, (double)r->total, cells, utf8);
	const size_t used = strlen(bar);
	memset(bar + used, utf8 ? ' ' : '.', (size_t)(cells - drawn));
	bar[used + (size_t)(cells - drawn)] = '\0';
	snprintf(buf, len, "%s%s%s [%s]%s%s", r->sweep, *r->sweep ? ", " : "",
	         r->phase ? r->phase : "starting", bar, *pct ? " " : "", pct);
}

/* Writes the status line of a command in progress. */
void fmt_status_run(char *buf, size_t len, int width, const struct status_run *r, int utf8)
{
	static const int bars[] = {20, 16, 12, 8, 5};
	const int nbars = sizeof bars / sizeof bars[0];
	char cmd[96], prog[160], where[4 * 20 + 256];
	const char *times = prog, *pct = "";
	snprintf(cmd, sizeof cmd, "running `%.60s`", r->line);
	const int adaptive = r->target > 0;
	struct status_run bare = *r;
	if (adaptive) { /* no percent nor bar: how far it has to go is not known */
		fmt_progress_adaptive(prog, sizeof prog, r->err, r->target, r->done, r->elapsed_ms);
		bare.done = bare.total = 0;
		r = &bare;
	} else {
		fmt_progress(prog, sizeof prog, r->done, r->total, r->elapsed_ms, r->phase_ms);
	}
	char *gap = r->total > 0 ? strstr(prog, "  ") : NULL, items[96];
	if (gap) { /* "45% of N" goes with the bar, the times on their own */
		*gap = '\0';
		pct = prog;
		times = gap + 2;
	}
	if (gap && r->unit) { /* items that converge: "45%, integrals 412/1000 converged" */
		const int n =
		    snprintf(items, sizeof items, "%lld%%, ",
		             r->done * 100 / r->total > 100 ? 100 : r->done * 100 / r->total);
		fmt_items(items + n, sizeof items - (size_t)n, r->unit, r->converged, r->total);
		pct = items;
	}
	struct fit_piece p[5] = {
	    {cmd, 2}, {where, 1}, {times, 3}, {"Esc cancels", 0}, {"F10 leave", 0}};
	/* What is left out, in turn: the times; then "Esc cancels" too; then the command too.
	 * With each, the widest bar that fits; the progress goes only when nothing else fits. */
	static const int kept[3][5] = {{1, 1, 0, 1, 1}, {1, 1, 0, 0, 1}, {0, 1, 0, 0, 1}};
	int tier = 0, fits = 0;
	for (; tier < 3 && !fits; tier++)
		for (int k = 0; k < nbars && !fits; k++) {
			run_where(where, sizeof where, r, pct, bars[k], utf8);
			fits = joined_cells(p, kept[tier], 5) <= width;
		}
	if (tier >= 2) /* "Esc cancels" left out */
		p[3].text = "";
	if (tier >= 3 && fits)
		p[0].text = "";
	fmt_fit(buf, len, width, p, 5);
}

/* Writes the too-small message. */
void fmt_too_small(char *buf, size_t len, int rows, int cols, int min_rows, int min_cols)
{
	const int room = rows > 1 ? rows - 1 : 1; /* the last row is the command line's */
	for (int form = 0; form < 4; form++) {
		if (form == 0)
			snprintf(
			    buf, len,
			    "terminal too small: %dx%d; the dashboard needs %dx%d. Enlarge the "
			    "window, or F10 to leave.",
			    cols, rows, min_cols, min_rows);
		else if (form == 1)
			snprintf(buf, len, "too small: %dx%d; needs %dx%d. F10 leaves", cols, rows,
			         min_cols, min_rows);
		else if (form == 2)
			snprintf(buf, len, "needs %dx%d; F10 leaves", min_cols, min_rows);
		else
			snprintf(buf, len, "F10 leaves");
		if (fmt_wrap(buf, cols, NULL, 0) <= room)
			return;
	}
}

/* Returns 1 when the point (x, y) can be drawn: both coordinates finite. */
static int chart_point_ok(double x, double y)
{
	return isfinite(x) && isfinite(y);
}

/* Returns the top of the chart's y range. */
double chart_ymax(const struct qx_chart *c)
{
	double top = 0;
	for (int s = 0; s < c->nseries && s < QX_CHART_SERIES; s++) {
		const struct qx_series *sr = &c->series[s];
		for (int i = 0; i < sr->npoints && i < QX_CHART_POINTS; i++)
			if (chart_point_ok(sr->x[i], sr->y[i]) && sr->y[i] > top)
				top = sr->y[i];
	}
	return top > 0 ? top : 1;
}

/* The drawable points of series sr into x and y (in its order); returns how many. */
static int chart_points(const struct qx_series *sr, double *x, double *y)
{
	int n = 0;
	for (int i = 0; i < sr->npoints && i < QX_CHART_POINTS; i++)
		if (chart_point_ok(sr->x[i], sr->y[i])) {
			x[n] = sr->x[i];
			y[n++] = sr->y[i];
		}
	return n;
}

/* Half the spacing of the n bars at x (their bins' half width); 0 for fewer than 2. */
static double chart_half_bin(const double *x, int n)
{
	return n > 1 ? (x[n - 1] - x[0]) / (2.0 * (n - 1)) : 0;
}

/* The column of p that x falls in, the ends included in the end columns. */
static int chart_column(const struct chart_plot *p, double x)
{
	const double c = floor((x - p->xlo) / (p->xhi - p->xlo) * p->width);
	return c < 0 ? 0 : c >= p->width ? p->width - 1 : (int)c;
}

/* Fills column values v of the n points (x, y) of kind in p: the mean of the points in each
 * column, then the empty columns between two points of a line (interpolated) or within a bar's
 * bin (its height). Returns 1 when some column got a value. */
static int chart_columns(const struct chart_plot *p, enum qx_series_kind kind, const double *x,
                         const double *y, int n, double *v)
{
	int count[CHART_MAX_WIDTH] = {0}, any = 0;
	const double half = kind == QX_SERIES_BARS ? chart_half_bin(x, n) : 0;
	const double dx = (p->xhi - p->xlo) / p->width;
	for (int c = 0; c < p->width; c++)
		v[c] = 0;
	for (int i = 0; i < n; i++) {
		const int c = chart_column(p, x[i]);
		v[c] += y[i];
		count[c]++;
	}
	for (int c = 0, i = 0; c < p->width; c++) {
		const double mid = p->xlo + (c + 0.5) * dx;
		if (count[c]) {
			v[c] /= count[c];
			any = 1;
			continue;
		}
		v[c] = NAN;
		while (i + 1 < n && x[i + 1] <= mid) /* x[i] the last point at or left of mid */
			i++;
		if (kind == QX_SERIES_LINE && i + 1 < n && x[i] <= mid && x[i + 1] > x[i]) {
			v[c] = y[i] + (y[i + 1] - y[i]) * (mid - x[i]) / (x[i + 1] - x[i]);
			any = 1;
		} else if (kind == QX_SERIES_BARS && n > 0) {
			const int near = i + 1 < n && x[i + 1] - mid < mid - x[i] ? i + 1 : i;
			if (fabs(x[near] - mid) <= half) {
				v[c] = y[near];
				any = 1;
			}
		}
	}
	return any;
}

/* Fits the chart to width x height cells. */
int chart_fit(const struct qx_chart *c, int width, int height, struct chart_plot *p)
{
	double x[QX_CHART_SERIES][QX_CHART_POINTS], y[QX_CHART_SERIES][QX_CHART_POINTS];
	int n[QX_CHART_SERIES], drawn = 0;
	p->width = width < 1 ? 1 : width > CHART_MAX_WIDTH ? CHART_MAX_WIDTH : width;
	p->height = height < 1 ? 1 : height;
	p->nseries = c->nseries < 0                 ? 0
	             : c->nseries > QX_CHART_SERIES ? QX_CHART_SERIES
	                                            : c->nseries;
	p->ymax = chart_ymax(c);
	p->xlo = INFINITY;
	p->xhi = -INFINITY;
	for (int s = 0; s < p->nseries; s++) {
		p->kind[s] = c->series[s].kind;
		n[s] = chart_points(&c->series[s], x[s], y[s]);
		const double half = p->kind[s] == QX_SERIES_BARS ? chart_half_bin(x[s], n[s]) : 0;
		for (int i = 0; i < n[s]; i++) {
			p->xlo = fmin(p->xlo, x[s][i] - half);
			p->xhi = fmax(p->xhi, x[s][i] + half);
		}
	}
	if (!(p->xhi > p->xlo) && isfinite(p->xlo)) { /* one x: a range around it */
		const double pad = 0.5 * fmax(fabs(p->xlo), 1);
		p->xlo -= pad;
		p->xhi += pad;
	}
	for (int s = 0; s < p->nseries; s++) {
		if (isfinite(p->xlo))
			drawn += chart_columns(p, p->kind[s], x[s], y[s], n[s], p->col[s]);
		else
			for (int k = 0; k < p->width; k++)
				p->col[s][k] = NAN;
	}
	return drawn;
}

/* The level of value v on p's scale: eighths of a cell (bars) from the bottom, or the cell
 * row from the bottom (cells != 0: a line), clamped to the plot. */
static long chart_level(const struct chart_plot *p, double v, int cells)
{
	const double f = v > 0 ? v / p->ymax : 0;
	if (cells) {
		const long r = (long)floor(f * p->height);
		return r < 0 ? 0 : r >= p->height ? p->height - 1 : r;
	}
	const long e = lround(f * p->height * 8);
	return e > p->height * 8L ? p->height * 8L : e == 0 && v > 0 ? 1 : e;
}

/* Returns 1 when the line of series s in p passes through cell (level r from the bottom) of
 * column c: from its own row to half way to each neighbour's. */
static int chart_line_at(const struct chart_plot *p, int s, int c, long r)
{
	if (isnan(p->col[s][c]))
		return 0;
	const long own = chart_level(p, p->col[s][c], 1);
	long lo = own, hi = own;
	for (int d = -1; d <= 1; d += 2) {
		if (c + d < 0 || c + d >= p->width || isnan(p->col[s][c + d]))
			continue;
		const long half = own + (chart_level(p, p->col[s][c + d], 1) - own) / 2;
		lo = half < lo ? half : lo;
		hi = half > hi ? half : hi;
	}
	return r >= lo && r <= hi;
}

/* Writes one row of the plot. */
void fmt_chart_row(char *buf, size_t len, const struct chart_plot *p, int row, int utf8,
                   signed char *which)
{
	const long r = p->height - 1 - row; /* cell rows from the bottom */
	if (len)
		buf[0] = '\0';
	for (int c = 0; c < p->width; c++) {
		const char *cell = " ";
		int drawn = -1;
		for (int pass = 0; pass < 2; pass++) /* bars, then lines over them */
			for (int s = 0; s < p->nseries; s++) {
				if ((p->kind[s] == QX_SERIES_BARS) != (pass == 0) ||
				    isnan(p->col[s][c]))
					continue;
				if (pass == 1) {
					if (chart_line_at(p, s, c, r)) {
						cell = utf8 ? "•" : "*";
						drawn = s;
					}
					continue;
				}
				long e = chart_level(p, p->col[s][c], 0) - r * 8;
				e = e < 0 ? 0 : e > 8 ? 8 : e;
				if (e > 0) {
					cell = utf8 ? lower_eighths[e] : e == 8 ? "#" : ".";
					drawn = s;
				}
			}
		if (which)
			which[c] = (signed char)drawn;
		if (!append(buf, len, cell))
			return;
	}
}

/* Writes the x axis: xlo, the middle and xhi. */
void fmt_chart_axis(char *buf, size_t len, const struct chart_plot *p)
{
	char lo[32], mid[32], hi[32], line[CHART_MAX_WIDTH + 1];
	const int w = p->width < (int)len - 1 ? p->width : (int)len - 1;
	if (w < 1) {
		if (len)
			buf[0] = '\0';
		return;
	}
	const int nlo = snprintf(lo, sizeof lo, "%.3g", p->xlo),
	          nhi = snprintf(hi, sizeof hi, "%.3g", p->xhi),
	          nmid = snprintf(mid, sizeof mid, "%.3g", (p->xlo + p->xhi) / 2);
	memset(line, ' ', (size_t)w);
	line[w] = '\0';
	if (nlo <= w)
		memcpy(line, lo, (size_t)nlo);
	if (nlo + 1 + nhi <= w)
		memcpy(line + w - nhi, hi, (size_t)nhi);
	const int at = (w - nmid) / 2;
	if (at >= nlo + 1 && at + nmid + 1 <= w - nhi)
		memcpy(line + at, mid, (size_t)nmid);
	snprintf(buf, len, "%s", line);
}

/* Returns the legend's mark of a series kind. */
const char *chart_mark(enum qx_series_kind kind, int utf8)
{
	if (kind == QX_SERIES_BARS)
		return utf8 ? "█" : "#";
	return utf8 ? "•" : "*";
}
