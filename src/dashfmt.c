/* dashfmt.c - the dashboard's text, free of ncurses. */
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

/* Wraps text into rows of width cells. */
int fmt_wrap(const char *text, int width, struct wrap_piece *piece, int max)
{
	const int n = (int)strlen(text);
	int rows = 0, pos = 0;
	if (width < 1)
		return 0;
	while (pos < n) {
		int end = pos, cut;
		for (int cells = 0; end < n && cells < width; cells++)
			end = next_char(text, end, n);
		cut = end == n ? n : wrap_cut(text, pos, end);
		int len = cut - pos;
		while (len > 0 && text[pos + len - 1] == ' ')
			len--;
		if (rows < max)
			piece[rows] = (struct wrap_piece){pos, len};
		rows++;
		for (pos = cut; pos < n && text[pos] == ' '; pos++)
			;
	}
	return rows;
}
