/* test_dashfmt.c - the dashboard's text (bars, scales, big digits, sparklines, histograms,
 * times, progress, a run's chart fitted to cells) and its log ring, without a terminal. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/dashdata.h"

/* Counts the cells of a UTF-8 string (one per character). */
static int cells(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* Nice scale ends: 1, 2 or 5 times a power of ten at or above the value. */
static void test_nice_max(void **state)
{
	(void)state;
	assert_true(fmt_nice_max(0.7) == 1);
	assert_true(fmt_nice_max(1) == 1);
	assert_true(fmt_nice_max(1.01) == 2);
	assert_true(fmt_nice_max(29.64) == 50);
	assert_true(fabs(fmt_nice_max(0.0031) - 0.005) < 1e-15);
	assert_true(fmt_nice_max(600) == 1000);
	assert_true(fmt_nice_max(0) == 1 && fmt_nice_max(NAN) == 1);
}

/* Bars: eighths in UTF-8, whole cells in ASCII, clipped at the scale, never empty for a
 * positive value. */
static void test_bar(void **state)
{
	char buf[512];
	(void)state;
	assert_int_equal(fmt_bar(buf, sizeof buf, 5, 10, 20, 0), 10);
	assert_string_equal(buf, "##########");
	assert_int_equal(fmt_bar(buf, sizeof buf, 5.5 / 8, 1, 1, 1), 1); /* 5.5 eighths -> 6 */
	assert_string_equal(buf, "▊");
	assert_int_equal(fmt_bar(buf, sizeof buf, 1.5, 2, 4, 1), 3);
	assert_string_equal(buf, "███");
	assert_int_equal(fmt_bar(buf, sizeof buf, 99, 10, 7, 1), 7);
	assert_int_equal(cells(buf), 7);
	assert_int_equal(fmt_bar(buf, sizeof buf, 1e-9, 10, 30, 0), 1);
	assert_string_equal(buf, "|");
	assert_int_equal(fmt_bar(buf, sizeof buf, 0, 10, 30, 1), 0);
	assert_string_equal(buf, "");
	assert_int_equal(fmt_bar(buf, 7, 10, 10, 30, 1), 2); /* room for two 3-byte cells */
}

/* The scale line puts 0, the middle and the end value within its width. */
static void test_scale(void **state)
{
	char buf[128];
	(void)state;
	fmt_scale(buf, sizeof buf, 50, 40);
	assert_int_equal(strlen(buf), 40);
	assert_true(buf[0] == '0');
	assert_non_null(strstr(buf, "25 ms"));
	assert_string_equal(buf + 40 - 5, "50 ms");
	fmt_scale(buf, sizeof buf, 50, 8);
	assert_int_equal(strlen(buf), 8);
	assert_null(strstr(buf, "25 ms")); /* no room for the middle */
}

/* Durations and speedups as text. */
static void test_numbers(void **state)
{
	char buf[64];
	(void)state;
	fmt_ms(buf, sizeof buf, 23.344);
	assert_string_equal(buf, "23.34 ms");
	fmt_ms(buf, sizeof buf, 0.20571);
	assert_string_equal(buf, "0.2057 ms");
	fmt_ms(buf, sizeof buf, 1250);
	assert_string_equal(buf, "1.25 s");
	fmt_ms(buf, sizeof buf, NAN);
	assert_string_equal(buf, "-");
	fmt_speedup(buf, sizeof buf, 12.2871);
	assert_string_equal(buf, "12.3x");
	fmt_speedup(buf, sizeof buf, NAN);
	assert_string_equal(buf, "-");
}

/* Big digits: three cells a character, the rows of "12.5x" spelled segment by segment. */
static void test_big(void **state)
{
	char buf[128];
	(void)state;
	assert_int_equal(fmt_big_row(buf, sizeof buf, "12.5x", 0), 15);
	assert_string_equal(buf, "    _     _    ");
	fmt_big_row(buf, sizeof buf, "12.5x", 1);
	assert_string_equal(buf, "  | _|   |_ \\/ ");
	fmt_big_row(buf, sizeof buf, "12.5x", 2);
	assert_string_equal(buf, "  ||_  o  _|/\\ ");
	assert_int_equal(fmt_big_row(buf, sizeof buf, "7?", 1), 6); /* unknown: blank */
	assert_string_equal(buf, "  |   ");
	assert_int_equal(fmt_big_row(buf, sizeof buf, "1", 3), 0);
}

/* Sparklines scale to the largest value; NaN is a blank. */
static void test_spark(void **state)
{
	const double v[4] = {1, 2, NAN, 4};
	char buf[64];
	(void)state;
	fmt_spark(buf, sizeof buf, v, 4, 0);
	assert_string_equal(buf, ".- #");
	fmt_spark(buf, sizeof buf, v, 4, 1);
	assert_string_equal(buf, "▃▅ █");
}

/* Progress: share done, elapsed, time left from the phase's rate. */
static void test_progress(void **state)
{
	char buf[160];
	(void)state;
	fmt_progress(buf, sizeof buf, 25, 100, 3000, 1000);
	assert_string_equal(buf, "25% of 100  3 s elapsed  ~3 s left");
	fmt_progress(buf, sizeof buf, 0, 100, 10, 10);
	assert_string_equal(buf, "0% of 100  10 ms elapsed  ~? left");
	fmt_progress(buf, sizeof buf, 0, 0, 1500, 0);
	assert_string_equal(buf, "1.5 s elapsed");
}

/* The histogram counts each value in its decade; not-a-number values apart. */
static void test_histogram(void **state)
{
	const double ref[6] = {1, 1, 1, 1, 1, 1};
	const double vals[6] = {1, 1 + 3e-7, 1 + 5e-7, 1 + 2e-3, 3, NAN};
	struct log_hist h;
	char buf[256];
	(void)state;
	hist_log10_rel(ref, vals, QX_DOUBLE, 6, &h);
	assert_int_equal(h.total, 6);
	assert_int_equal(h.bad, 1);
	assert_int_equal(h.count[0], 1);       /* exact */
	assert_int_equal(h.count[-7 + 16], 2); /* [1e-7, 1e-6) */
	assert_int_equal(h.count[-3 + 16], 1);
	assert_int_equal(h.count[HIST_BINS - 1], 1); /* 2 (relative) and above */
	fmt_hist_row(buf, sizeof buf, &h, 1, 2, 0);  /* bottom row: every non-empty bin */
	assert_int_equal(strlen(buf), 2 * HIST_BINS);
	assert_memory_equal(buf, "##", 2);
	assert_memory_equal(buf + 2 * 9, "##", 2);
	assert_memory_equal(buf + 2 * 1, "  ", 2);
	fmt_hist_row(buf, sizeof buf, &h, 0, 2, 0); /* top row: only the tallest bin */
	assert_memory_equal(buf + 2 * 9, "##", 2);
	assert_memory_equal(buf, "  ", 2);
	fmt_hist_axis(buf, sizeof buf);
	assert_memory_equal(buf, "-16     -12", 11);
}

/* The log keeps the newest DASH_LOG_LINES lines, one entry per line of text. */
static void test_log(void **state)
{
	static struct dash_log log;
	char line[32];
	(void)state;
	dash_log_add(&log, "a\tb\nsecond\n");
	assert_int_equal(log.count, 2);
	assert_string_equal(dash_log_line(&log, 0), "a b");
	assert_string_equal(dash_log_line(&log, 1), "second");
	assert_null(dash_log_line(&log, 2));
	for (int i = 0; i < DASH_LOG_LINES + 5; i++) {
		snprintf(line, sizeof line, "line %d", i);
		dash_log_add(&log, line);
	}
	assert_int_equal(log.count, DASH_LOG_LINES);
	assert_string_equal(dash_log_line(&log, 0), "line 5");
	snprintf(line, sizeof line, "line %d", DASH_LOG_LINES + 4);
	assert_string_equal(dash_log_line(&log, DASH_LOG_LINES - 1), line);
}

/* A line longer than a log entry is kept whole: it goes on in the next entries, broken at a
 * blank; one a little over the old 200-byte entries is one entry. */
static void test_log_long_lines(void **state)
{
	static struct dash_log log;
	static char text[3 * DASH_LOG_WIDTH], joined[3 * DASH_LOG_WIDTH];
	(void)state;
	snprintf(text, sizeof text,
	         "quadx: %0220d/bad.qx: line 2: unknown parameter 'foo' for "
	         "expint: names are n, m, a, b, iters, precision, block, "
	         "threads, variant, threshold, repeat, warmup, streams",
	         0);
	dash_log_add(&log, text);
	assert_int_equal(log.count, 1);
	assert_string_equal(dash_log_line(&log, 0), text);
	memset(&log, 0, sizeof log);
	text[0] = '\0';
	while (strlen(text) < 2500)
		strcat(text, "word ");
	strcat(text, "end");
	dash_log_add(&log, text);
	assert_int_equal(log.count, 3);
	snprintf(joined, sizeof joined, "%s %s %s", dash_log_line(&log, 0), dash_log_line(&log, 1),
	         dash_log_line(&log, 2));
	assert_string_equal(joined, text);
	for (int i = 0; i < 3; i++)
		assert_true(strlen(dash_log_line(&log, i)) < DASH_LOG_WIDTH);
}

/* Returns 1 when text ends with end. */
static int ends_with(const char *text, const char *end)
{
	const size_t n = strlen(text), m = strlen(end);
	return n >= m && !strcmp(text + n - m, end);
}

/* The idle status line of the dashboard's keys: everything on a wide line; at 80 columns (too
 * narrow for every key) the title and the exit key stay, the keys F1 lists give way; at every
 * width it fits and ends with "F10 leave". */
static void test_status_keys(void **state)
{
	char buf[512];
	(void)state;
	fmt_status_keys(buf, sizeof buf, 200, "quadx dashboard ", dash_keys, dash_key_count);
	assert_string_equal(buf, " quadx dashboard   F1 keys  F5 run both  F6 cpu  F7 gpu  F8 zoom"
	                         "  F9 chart  F2 precision  F3/F4 block /2 x2  F10 leave");
	fmt_status_keys(buf, sizeof buf, 80, "quadx dashboard ", dash_keys, dash_key_count);
	assert_string_equal(buf, " quadx dashboard   F1 keys  F5 run both  F6 cpu  F7 gpu  F8 zoom"
	                         "  F10 leave");
	fmt_status_keys(buf, sizeof buf, 41, "quadx dashboard ", dash_keys, dash_key_count);
	assert_string_equal(buf, " F1 keys  F5 run both  F8 zoom  F10 leave");
	fmt_status_keys(buf, sizeof buf, 40, "quadx dashboard ", dash_keys, dash_key_count);
	assert_string_equal(buf, " F1 keys  F5 run both  F10 leave");
	for (int width = 20; width <= 200; width++) {
		fmt_status_keys(buf, sizeof buf, width, "quadx dashboard ", dash_keys,
		                dash_key_count);
		assert_true(cells(buf) <= width);
		assert_true(ends_with(buf, "  F10 leave"));
		assert_non_null(strstr(buf, " F1 keys"));
	}
	fmt_status_keys(buf, sizeof buf, 5, "quadx dashboard ", dash_keys, dash_key_count);
	assert_string_equal(buf, " F1 k"); /* the kept keys alone too wide: cut */
}

/* An adaptive run (cubature): its error against where it stops and its evaluations, no
 * percent, no bar filled and no time left (neither is known). */
static void test_status_adaptive(void **state)
{
	char buf[1024];
	const struct status_run run = {"run cpu", "",     "cpu",  3107340, 100000000, 12000,
	                               12000,     3.2e-5, 5.8e-8, NULL,    0};
	(void)state;
	fmt_status_run(buf, sizeof buf, 200, &run, 0);
	assert_string_equal(buf, " running `run cpu`  cpu [....................]  error 3.2e-05, "
	                         "stops at 5.8e-08  3107340 evaluations  12 s elapsed  Esc "
	                         "cancels  F10 leave");
	assert_null(strstr(buf, "%"));
	assert_null(strstr(buf, "left"));
}

/* The status line of a run: all of it when there is room; a long sweep at 120 columns keeps
 * its command and progress, the times and "Esc cancels" giving way; "F10 leave" at the end at
 * every width, the line never wider. */
static void test_status_run(void **state)
{
	char buf[1024];
	const struct status_run run = {"run cpu", "",  "cpu", 45,   100, 1200,
	                               1000,      NAN, NAN,   NULL, 0};
	const struct status_run sweep = {"sweep m 10000..200000:10000 on cpu",
	                                 "configuration 2 of 20",
	                                 "reference",
	                                 45,
	                                 100,
	                                 1200,
	                                 1000,
	                                 NAN,
	                                 NAN,
	                                 NULL,
	                                 0};
	(void)state;
	fmt_status_run(buf, sizeof buf, 200, &run, 0);
	assert_string_equal(buf, " running `run cpu`  cpu [#########...........] 45% of 100  1.2 s "
	                         "elapsed  ~1.222 s left  Esc cancels  F10 leave");
	fmt_status_run(buf, sizeof buf, 120, &sweep, 1);
	assert_non_null(strstr(buf, " running `sweep m 10000..200000:10000 on cpu`  configuration "
	                            "2 of 20, reference ["));
	assert_true(ends_with(buf, "] 45% of 100  F10 leave"));
	assert_true(cells(buf) <= 120);
	fmt_status_run(buf, sizeof buf, 66, &run, 0); /* no times, the bar down to 5 */
	assert_string_equal(buf,
	                    " running `run cpu`  cpu [##...] 45% of 100  Esc cancels  F10 leave");
	fmt_status_run(buf, sizeof buf, 60, &run, 0); /* no Esc: the bar grows back */
	assert_string_equal(buf, " running `run cpu`  cpu [#####.......] 45% of 100  F10 leave");
	fmt_status_run(buf, sizeof buf, 40, &run, 0); /* no command */
	assert_string_equal(buf, " cpu [###.....] 45% of 100  F10 leave");
	for (int width = 12; width <= 200; width++) {
		fmt_status_run(buf, sizeof buf, width, &sweep, 1);
		assert_true(cells(buf) <= width);
		assert_true(ends_with(buf, " F10 leave"));
	}
}

/* A batch's count of integrals: how many converged of the total ("integrals 412/1000
 * converged") beside the percent done, in place of "of N"; the line never wider. */
static void test_status_items(void **state)
{
	char buf[1024];
	const struct status_run run = {"run cpu", "",  "cpu", 450,         1000, 1200,
	                               1000,      NAN, NAN,   "integrals", 412};
	(void)state;
	fmt_items(buf, sizeof buf, "integrals", 997, 1000);
	assert_string_equal(buf, "integrals 997/1000 converged");
	fmt_status_run(buf, sizeof buf, 200, &run, 0);
	assert_string_equal(buf, " running `run cpu`  cpu [#########...........] 45%, integrals "
	                         "412/1000 converged  1.2 s elapsed  ~1.222 s left  Esc cancels  "
	                         "F10 leave");
	fmt_status_run(buf, sizeof buf, 60, &run, 0); /* the count stays longest */
	assert_non_null(strstr(buf, "45%, integrals 412/1000 converged"));
	for (int width = 12; width <= 200; width++) {
		fmt_status_run(buf, sizeof buf, width, &run, 1);
		assert_true(cells(buf) <= width);
	}
}

/* The too-small message fits the rows above the command line, wrapped at blanks, with F10 in
 * it, at every size from 10x2 up; the full form where there is room (not cut at the terminal's
 * width). */
static void test_too_small(void **state)
{
	char buf[160];
	struct wrap_piece piece[40];
	(void)state;
	fmt_too_small(buf, sizeof buf, 12, 45, 31, 40);
	assert_string_equal(buf, "terminal too small: 45x12; the dashboard needs 40x31. Enlarge "
	                         "the window, or F10 to leave.");
	fmt_too_small(buf, sizeof buf, 3, 30, 31, 40);
	assert_string_equal(buf, "too small: 30x3; needs 40x31. F10 leaves");
	for (int rows = 2; rows <= 40; rows++)
		for (int cols = 10; cols <= 120; cols++) {
			fmt_too_small(buf, sizeof buf, rows, cols, 31, 76);
			const int n = fmt_wrap(buf, cols, piece, 40);
			assert_true(n <= rows - 1);
			int f10 = 0;
			for (int r = 0; r < n; r++)
				f10 |= piece[r].len >= 3 &&
				       memmem(buf + piece[r].start, (size_t)piece[r].len, "F10", 3);
			assert_true(f10);
			if (n > 1)
				assert_true(buf[piece[0].start + piece[0].len] == ' ');
		}
}

/* Returns row r of text wrapped to width (a static buffer). */
static const char *wrapped(const char *text, int width, int r)
{
	static char buf[DASH_LINE];
	struct wrap_piece piece[16];
	const int n = fmt_wrap(text, width, piece, 16);
	assert_true(r < n);
	snprintf(buf, sizeof buf, "%.*s", piece[r].len, text + piece[r].start);
	return buf;
}

/* The Log's wrapping: a line's continuation rows start under its own indent, each row within
 * the width with its indent; a line without blanks in front wraps as fmt_wrap does. */
static void test_wrap_indent(void **state)
{
	const char *line =
	    "  total      12.3 ms  (median of 5; min 11.1, max 15.6)  1.1e+06 evals/s";
	struct wrap_piece piece[16], plain[16];
	(void)state;
	const int n = fmt_wrap_indent(line, 30, piece, 16);
	assert_true(n >= 3);
	assert_int_equal(piece[0].indent, 0);
	assert_int_equal(piece[0].start, 0); /* the first row keeps its blanks */
	for (int r = 1; r < n; r++) {
		assert_int_equal(piece[r].indent, 2);
		assert_true(line[piece[r].start] != ' ');
		assert_true(piece[r].indent + piece[r].len <= 30);
	}
	const char *flat = "error: lambda must be > 0 with integrand cos (only j0 allows it)";
	assert_int_equal(fmt_wrap_indent(flat, 30, piece, 16), fmt_wrap(flat, 30, plain, 16));
	assert_int_equal(piece[1].indent, 0);
	assert_memory_equal(&piece[1], &plain[1], sizeof piece[1]);
}

/* Wrapping: at the last double blank that fits, else the last blank, else inside the word;
 * the blanks at a break dropped, leading ones kept; UTF-8 characters one cell each; the count
 * of rows without storing them. */
static void test_wrap(void **state)
{
	const char *items = "precision float  block 256  threads 1  variant packed";
	const char *error = "error: lambda must be > 0 with integrand cos (only j0 allows it)";
	(void)state;
	assert_int_equal(fmt_wrap(items, 30, NULL, 0), 2);
	assert_string_equal(wrapped(items, 30, 0), "precision float  block 256");
	assert_string_equal(wrapped(items, 30, 1), "threads 1  variant packed");
	assert_int_equal(fmt_wrap(error, 36, NULL, 0), 2);
	assert_string_equal(wrapped(error, 36, 0), "error: lambda must be > 0 with");
	assert_string_equal(wrapped(error, 36, 1), "integrand cos (only j0 allows it)");
	assert_int_equal(fmt_wrap("abcdefghij", 4, NULL, 0), 3);
	assert_string_equal(wrapped("abcdefghij", 4, 1), "efgh");
	assert_string_equal(wrapped("abcdefghij", 4, 2), "ij");
	assert_string_equal(wrapped("  kernel 0.5 ms", 40, 0), "  kernel 0.5 ms");
	assert_int_equal(fmt_wrap("█████ ab", 5, NULL, 0), 2); /* 15 bytes, 8 cells */
	assert_string_equal(wrapped("█████ ab", 5, 0), "█████");
	assert_string_equal(wrapped("█████ ab", 5, 1), "ab");
	assert_int_equal(fmt_wrap("", 10, NULL, 0), 0);
	assert_int_equal(fmt_wrap("abc", 0, NULL, 0), 0);
}

/* A chart of up to two series from (x, y) pairs: kinds[s] and n[s] points each. */
static void make_chart(struct qx_chart *c, int nseries, const enum qx_series_kind *kinds,
                       const int *n, const double (*xy)[QX_CHART_POINTS][2])
{
	memset(c, 0, sizeof *c);
	c->nseries = nseries;
	for (int s = 0; s < nseries; s++) {
		c->series[s].kind = kinds[s];
		c->series[s].npoints = n[s];
		for (int i = 0; i < n[s]; i++) {
			c->series[s].x[i] = xy[s][i][0];
			c->series[s].y[i] = xy[s][i][1];
		}
	}
}

/* Row r of p as text, and the series of each cell into which (a string of '-', '0', '1'). */
static const char *plot_row(const struct chart_plot *p, int r, int utf8, char *which)
{
	static char buf[4 * CHART_MAX_WIDTH + 1];
	signed char w[CHART_MAX_WIDTH];
	fmt_chart_row(buf, sizeof buf, p, r, utf8, w);
	for (int c = 0; c < p->width; c++)
		which[c] = w[c] < 0 ? '-' : (char)('0' + w[c]);
	which[p->width] = '\0';
	return buf;
}

/* Bars (four bins of heights 1..4 centred on 0.5..3.5) fitted to 8 columns: x spans the bins'
 * edges 0..4, each bin two columns; to 2 columns: each column the mean of its two bins (the
 * same density averaged); on two rows: eighths in UTF-8, '#' and '.' in ASCII. */
static void test_chart_bars(void **state)
{
	static const double xy[1][QX_CHART_POINTS][2] = {{{0.5, 1}, {1.5, 2}, {2.5, 3}, {3.5, 4}}};
	const enum qx_series_kind bars = QX_SERIES_BARS;
	const int n = 4;
	static struct qx_chart c;
	static struct chart_plot p;
	char which[CHART_MAX_WIDTH + 1];
	(void)state;
	make_chart(&c, 1, &bars, &n, xy);
	assert_true(chart_ymax(&c) == 4);
	assert_int_equal(chart_fit(&c, 8, 2, &p), 1);
	assert_true(p.xlo == 0 && p.xhi == 4 && p.ymax == 4);
	static const double want8[8] = {1, 1, 2, 2, 3, 3, 4, 4};
	for (int k = 0; k < 8; k++)
		assert_true(p.col[0][k] == want8[k]);
	assert_int_equal(chart_fit(&c, 2, 2, &p), 1);
	assert_true(p.col[0][0] == 1.5 && p.col[0][1] == 3.5);
	assert_int_equal(chart_fit(&c, 4, 2, &p), 1); /* 4, 8, 12, 16 eighths of 16 */
	assert_string_equal(plot_row(&p, 0, 1, which), "  ▄█");
	assert_string_equal(which, "--00");
	assert_string_equal(plot_row(&p, 1, 1, which), "▄███");
	assert_string_equal(which, "0000");
	assert_string_equal(plot_row(&p, 0, 0, which), "  .#");
	assert_string_equal(plot_row(&p, 1, 0, which), ".###");
}

/* A line fitted to columns: the points' columns their means, the columns between two points
 * the line at their middle; a steep rise from row 0 to row 5 in two columns stays joined,
 * each column drawn half way to the other; a line over bars is drawn over them. */
static void test_chart_line(void **state)
{
	static const double xy[2][QX_CHART_POINTS][2] = {{{0, 0}, {4, 4}}, {{0, 0}, {1, 10}}};
	const enum qx_series_kind line = QX_SERIES_LINE;
	const int n = 2;
	static struct qx_chart c;
	static struct chart_plot p;
	char which[CHART_MAX_WIDTH + 1];
	(void)state;
	make_chart(&c, 1, &line, &n, xy);
	assert_int_equal(chart_fit(&c, 4, 4, &p), 1);
	assert_true(p.col[0][0] == 0 && p.col[0][1] == 1.5 && p.col[0][2] == 2.5 &&
	            p.col[0][3] == 4);
	make_chart(&c, 1, &line, &n, xy + 1);
	assert_int_equal(chart_fit(&c, 2, 6, &p), 1);
	static const char *const utf8_rows[6] = {" •", " •", " •", "• ", "• ", "• "};
	for (int r = 0; r < 6; r++) {
		assert_string_equal(plot_row(&p, r, 1, which), utf8_rows[r]);
		assert_string_equal(which, r < 3 ? "-0" : "0-");
	}
	assert_string_equal(plot_row(&p, 0, 0, which), " *");
	static const double over[2][QX_CHART_POINTS][2] = {{{0.5, 4}, {1.5, 4}}, {{0, 4}, {2, 4}}};
	const enum qx_series_kind kinds[2] = {QX_SERIES_LINE, QX_SERIES_BARS};
	const int two[2] = {2, 2};
	make_chart(&c, 2, kinds, two, over);     /* the line first in the table, drawn last */
	c.series[0].y[0] = c.series[0].y[1] = 1; /* a quarter of ymax: the bottom row */
	c.series[1].x[0] = 0.5;
	c.series[1].x[1] = 1.5;
	assert_int_equal(chart_fit(&c, 2, 2, &p), 2);
	assert_string_equal(plot_row(&p, 0, 1, which), "██");
	assert_string_equal(which, "11");
	assert_string_equal(plot_row(&p, 1, 1, which), "••");
	assert_string_equal(which, "00");
	c.series[0].y[0] = c.series[0].y[1] = 2; /* half of ymax: the upper row's */
	assert_int_equal(chart_fit(&c, 2, 2, &p), 2);
	assert_string_equal(plot_row(&p, 0, 1, which), "••");
	assert_string_equal(plot_row(&p, 1, 1, which), "██");
}

/* Edge cases: no series, no drawable point (NaN), one point, every y equal, every y 0, a NaN
 * between two points (left out: the line joins its neighbours), a width beyond the cap. */
static void test_chart_edges(void **state)
{
	static const double one[1][QX_CHART_POINTS][2] = {{{2, 5}}};
	static const double three[1][QX_CHART_POINTS][2] = {{{0, 0}, {1, NAN}, {2, 2}}};
	static const double flat[1][QX_CHART_POINTS][2] = {{{0, 3}, {1, 3}, {2, 3}}};
	static const double zero[1][QX_CHART_POINTS][2] = {{{0, 0}, {1, 0}, {2, 0}}};
	const enum qx_series_kind line = QX_SERIES_LINE, bars = QX_SERIES_BARS;
	const int n1 = 1, n3 = 3;
	static struct qx_chart c;
	static struct chart_plot p;
	char which[CHART_MAX_WIDTH + 1];
	(void)state;
	make_chart(&c, 0, NULL, NULL, NULL);
	assert_true(chart_ymax(&c) == 1);
	assert_int_equal(chart_fit(&c, 10, 3, &p), 0);
	make_chart(&c, 1, &line, &n1, one);
	c.series[0].x[0] = NAN;
	assert_int_equal(chart_fit(&c, 10, 3, &p), 0);
	assert_string_equal(plot_row(&p, 2, 1, which), "          ");
	assert_string_equal(which, "----------");
	make_chart(&c, 1, &line, &n1, one); /* x 2: the range 1..3 */
	assert_int_equal(chart_fit(&c, 5, 2, &p), 1);
	assert_true(p.xlo == 1 && p.xhi == 3);
	assert_string_equal(plot_row(&p, 0, 0, which), "  *  ");
	assert_string_equal(plot_row(&p, 1, 0, which), "     ");
	make_chart(&c, 1, &bars, &n1, one); /* one bar: its column only */
	assert_int_equal(chart_fit(&c, 5, 1, &p), 1);
	assert_string_equal(plot_row(&p, 0, 1, which), "  █  ");
	make_chart(&c, 1, &bars, &n3, flat);
	assert_int_equal(chart_fit(&c, 6, 3, &p), 1);
	for (int r = 0; r < 3; r++)
		assert_string_equal(plot_row(&p, r, 0, which), "######");
	make_chart(&c, 1, &bars, &n3, zero);
	assert_true(chart_ymax(&c) == 1);
	assert_int_equal(chart_fit(&c, 3, 2, &p), 1);
	assert_string_equal(plot_row(&p, 1, 1, which), "   ");
	c.series[0].kind = QX_SERIES_LINE; /* a line at 0 lies on the bottom row */
	assert_int_equal(chart_fit(&c, 3, 2, &p), 1);
	assert_string_equal(plot_row(&p, 0, 1, which), "   ");
	assert_string_equal(plot_row(&p, 1, 1, which), "•••");
	make_chart(&c, 1, &line, &n3, three);
	assert_int_equal(chart_fit(&c, 4, 2, &p), 1); /* x 0..2: columns at 0, 0.5|0.75, 1.25, 2 */
	assert_true(p.col[0][0] == 0 && p.col[0][1] == 0.75 && p.col[0][2] == 1.25 &&
	            p.col[0][3] == 2);
	assert_int_equal(chart_fit(&c, 1000, 2, &p), 1);
	assert_int_equal(p.width, CHART_MAX_WIDTH);
	assert_int_equal(cells(plot_row(&p, 1, 1, which)), CHART_MAX_WIDTH);
}

/* The x axis: both ends and the middle (%.3g), the middle left out first, then the right end,
 * when they do not fit; the legend's marks. */
static void test_chart_axis(void **state)
{
	static const double xy[1][QX_CHART_POINTS][2] = {{{-4.41, 0}, {4.14, 1}}};
	const enum qx_series_kind line = QX_SERIES_LINE;
	const int n = 2;
	static struct qx_chart c;
	static struct chart_plot p;
	char buf[300];
	(void)state;
	make_chart(&c, 1, &line, &n, xy);
	assert_int_equal(chart_fit(&c, 30, 2, &p), 1);
	fmt_chart_axis(buf, sizeof buf, &p);
	assert_string_equal(buf, "-4.41       -0.135        4.14");
	assert_int_equal(chart_fit(&c, 12, 2, &p), 1);
	fmt_chart_axis(buf, sizeof buf, &p);
	assert_string_equal(buf, "-4.41   4.14");
	assert_int_equal(chart_fit(&c, 8, 2, &p), 1);
	fmt_chart_axis(buf, sizeof buf, &p);
	assert_string_equal(buf, "-4.41   ");
	fmt_chart_axis(buf, 4, &p); /* the buffer's size: 3 cells */
	assert_string_equal(buf, "   ");
	assert_string_equal(chart_mark(QX_SERIES_BARS, 1), "█");
	assert_string_equal(chart_mark(QX_SERIES_LINE, 0), "*");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nice_max),
	    cmocka_unit_test(test_bar),
	    cmocka_unit_test(test_scale),
	    cmocka_unit_test(test_numbers),
	    cmocka_unit_test(test_big),
	    cmocka_unit_test(test_spark),
	    cmocka_unit_test(test_progress),
	    cmocka_unit_test(test_histogram),
	    cmocka_unit_test(test_log),
	    cmocka_unit_test(test_wrap),
	    cmocka_unit_test(test_log_long_lines),
	    cmocka_unit_test(test_status_keys),
	    cmocka_unit_test(test_status_run),
	    cmocka_unit_test(test_status_items),
	    cmocka_unit_test(test_status_adaptive),
	    cmocka_unit_test(test_wrap_indent),
	    cmocka_unit_test(test_too_small),
	    cmocka_unit_test(test_chart_bars),
	    cmocka_unit_test(test_chart_line),
	    cmocka_unit_test(test_chart_edges),
	    cmocka_unit_test(test_chart_axis),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
