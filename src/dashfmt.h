/* dashfmt.h - the dashboard's text: bars, scales, big digits, sparklines, histograms, times and
 * progress. Pure functions on strings (UTF-8 block characters or an ASCII fallback), free of
 * ncurses and unit-tested. Every function writes a NUL-terminated string of at most len bytes. */
#ifndef QX_DASHFMT_H
#define QX_DASHFMT_H

#include <stddef.h>

#include "problem.h"
#include "qx.h"

/* Bins of the log10 relative-error histogram: bin 0 holds errors below 1e-15 (exact values
 * included), bin k holds [1e(k-16), 1e(k-15)), the last bin 1 and above; `bad` counts values
 * that are not numbers. */
#define HIST_BINS 17
#define HIST_LO_EXP (-16)
struct log_hist {
	size_t count[HIST_BINS];
	size_t bad, total;
};

/* Returns the smallest 1, 2 or 5 times a power of ten that is >= v; 1 for v <= 0 or NaN. */
double fmt_nice_max(double v);

/* A horizontal bar of value on a scale of 0..scale across width cells (UTF-8: eighths of a
 * cell; ASCII: '#' per full cell). Returns the number of cells drawn. */
int fmt_bar(char *buf, size_t len, double value, double scale, int width, int utf8);

/* A scale line of width cells for 0..scale ms: "0" at the left, the middle and the end value. */
void fmt_scale(char *buf, size_t len, double scale, int width);

/* A duration in ms as text with 4 significant digits: "0.2057 ms", "23.34 ms", "1.25 s"; "-"
 * when it is NaN or negative. */
void fmt_ms(char *buf, size_t len, double ms);

/* A speedup as "12.3x" (3 significant digits), or "-" when it is NaN. */
void fmt_speedup(char *buf, size_t len, double x);

/* Row (0..2) of text drawn with three-row seven-segment digits (0-9, '.', 'x', '-', ' ');
 * other characters are drawn as blanks. Returns the width in cells. */
int fmt_big_row(char *buf, size_t len, const char *text, int row);

/* A sparkline of n values scaled to their maximum, one cell each (UTF-8: eight levels;
 * ASCII: "_.-=#"). NaN values are drawn as a blank. */
void fmt_spark(char *buf, size_t len, const double *v, int n, int utf8);

/* Progress text: "45% of 25000000  1.2 s elapsed  ~1.5 s left", the time left estimated from
 * the phase's own elapsed time; without a total: "1.2 s elapsed". */
void fmt_progress(char *buf, size_t len, long long done, long long total, double elapsed_ms,
                  double phase_ms);

/* One row of wrapped text: its first byte, its length in bytes and the blanks it is drawn
 * after (fmt_wrap_indent's continuation rows; 0 otherwise). */
struct wrap_piece {
	int start, len, indent;
};

/* Wraps text to rows of at most width cells (a UTF-8 character is one cell): each row ends at the
 * last double blank that fits (items such as "threads 2  variant fast" stay whole), else the last
 * blank, else inside the word; the blanks at a break are dropped, leading blanks kept. Stores up
 * to max rows in piece (NULL when max is 0); returns how many rows the whole text takes (0 for ""
 * or width < 1). */
int fmt_wrap(const char *text, int width, struct wrap_piece *piece, int max);

/* fmt_wrap, the rows after the first indented as the text is (its leading blanks, at most half
 * the width): "  total  ..." stays under itself when it wraps (the dashboard's Log). */
int fmt_wrap_indent(const char *text, int width, struct wrap_piece *piece, int max);

/* A piece of a one-line text and when it gives way on a line too narrow for all: pieces of
 * higher drop go first (the later of equal ones first); drop 0 never goes. */
struct fit_piece {
	const char *text;
	int drop;
};

/* Joins the n pieces after one blank, two blanks apart, leaving out pieces (see fit_piece) until
 * the line fits in width cells; when the pieces that never go are too wide themselves, the line
 * is cut at width cells. Returns the cells of the line. */
int fmt_fit(char *buf, size_t len, int width, const struct fit_piece *p, int n);

/* One key of the dashboard: its name ("F5"), its short label for the status line ("run both";
 * NULL: listed only by F1), what it does (F1's list), and its drop on the status line (see
 * fit_piece). */
struct key_hint {
	const char *key, *label, *about;
	int drop;
};

/* The idle status line, width cells wide: the title (given up after the keys of drop 1..4)
 * and "KEY label" of the keys that have a label, the keys of drop 0 (the exit key) always. */
void fmt_status_keys(char *buf, size_t len, int width, const char *title,
                     const struct key_hint *keys, int n);

/* What the status line shows of a command in progress. */
struct status_run {
	const char *line;      /* the command */
	const char *sweep;     /* "configuration 3 of 9", or "" */
	const char *phase;     /* "cpu", "kernel"..., NULL before the first */
	long long done, total; /* the progress counter */
	double elapsed_ms, phase_ms;
	double err, target;  /* an adaptive run's error estimate and where it stops (target > 0) */
	const char *unit;    /* a count of items that converge ("integrals"), or NULL */
	long long converged; /* with unit: how many of those done converged */
};

/* Writes a count of items that converge: "integrals 412/1000 converged" (converged of total,
 * unit the items' name). */
void fmt_items(char *buf, size_t len, const char *unit, long long converged, long long total);

/* Writes an adaptive run's progress: "error 3.2e-05, stops at 5.8e-08  3107340 evaluations
 * 12 s elapsed" (its time left is not known). */
void fmt_progress_adaptive(char *buf, size_t len, double err, double target, long long done,
                           double elapsed_ms);

/* The status line of a command in progress, width cells wide: "running `line`", the sweep's
 * place, the phase, a progress bar of 20 cells, the progress (fmt_progress; a count of items
 * that converge: "45%, integrals 412/1000 converged"), "Esc cancels" and
 * always "F10 leave" at the end. What gives way on a narrow line: the times first, then cells
 * of the bar (down to 5), then "Esc cancels" (the bar growing back), then the command, then the
 * progress. */
void fmt_status_run(char *buf, size_t len, int width, const struct status_run *r, int utf8);

/* The message shown instead of the panels on a terminal of rows x cols below the minimum
 * min_rows x min_cols: the longest of its forms (the sizes, what to do, and that F10 leaves)
 * that, wrapped to cols (fmt_wrap), fits in the rows above the command line (the last row),
 * else its shortest ("F10 leaves"). */
void fmt_too_small(char *buf, size_t len, int rows, int cols, int min_rows, int min_cols);

/* Counts the log10 relative errors of count values of precision prec against ref into h. */
void hist_log10_rel(const double *ref, const void *vals, enum qx_precision prec, size_t count,
                    struct log_hist *h);

/* Row (0 = top) of a histogram height rows tall, two cells per bin, bars scaled to the largest
 * bin; a bin that is not empty shows at least its lowest level. */
void fmt_hist_row(char *buf, size_t len, const struct log_hist *h, int row, int height, int utf8);

/* The axis under fmt_hist_row: the exponent of every fourth bin's lower edge ("-16 -12 ..."). */
void fmt_hist_axis(char *buf, size_t len);

/* A run's chart (struct qx_chart) fitted to a plot of width x height cells: the x range the
 * columns span, the top of the y range (from 0), and each series' value in each column. */
#define CHART_MAX_WIDTH 256
struct chart_plot {
	int width, height, nseries;
	double xlo, xhi, ymax;
	enum qx_series_kind kind[QX_CHART_SERIES];
	double col[QX_CHART_SERIES][CHART_MAX_WIDTH]; /* NaN: nothing of the series there */
};

/* The top of chart c's y range: its largest finite y; 1 when no y is above 0 (zeros drawn
 * on the bottom row). */
double chart_ymax(const struct qx_chart *c);

/* Fits chart c into p for width x height cells (width cut to 1..CHART_MAX_WIDTH, height to at
 * least 1). x spans the points of every series, bars widened by half their spacing (a single
 * x: half of it, at least 0.5, either side); y spans 0..chart_ymax. A column's value is the
 * mean y of the points that fall in it; a column with none takes, between two points of a
 * line, the line's value at its middle, and within the bin of a bar, the bar's. Points with a
 * coordinate that is not finite are left out. Returns the number of series with a value in
 * some column (0: nothing to draw). */
int chart_fit(const struct qx_chart *c, int width, int height, struct chart_plot *p);

/* Row (0 = top) of the plot p, p->width cells: bars in eighths of a cell (UTF-8) or '#' for a
 * full cell and '.' for a part (ASCII), a positive value at least an eighth (a '.'); a line
 * as a '•' ('*' in ASCII) in each column from its value's row (values below ymax / height on
 * the bottom row) to half way to its neighbours' rows, so that a steep line stays joined. Lines
 * are drawn over bars, a later series over an earlier one of its kind. which (NULL: not
 * wanted) gets for each cell the series drawn there, -1 for a blank. */
void fmt_chart_row(char *buf, size_t len, const struct chart_plot *p, int row, int utf8,
                   signed char *which);

/* The x axis under the plot, p->width cells: xlo at the left, xhi at the right and the middle
 * value centred between them (%.3g), each left out, the middle first, when it does not fit. */
void fmt_chart_axis(char *buf, size_t len, const struct chart_plot *p);

/* The mark of a series of kind in a legend: a full block for bars, the line's dot. */
const char *chart_mark(enum qx_series_kind kind, int utf8);

#endif
