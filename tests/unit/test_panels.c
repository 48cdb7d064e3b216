/* test_panels.c - the panels drawn into ncurses windows that are never shown (a terminal
 * opened on /dev/null), from a snapshot holding a fabricated GPU result and GPU device, and
 * read back cell by cell: every GPU-only element (the GPU total and its five phase bars on the
 * shared scale, the overlap marks, the GPU speedups in big digits, the history chart, the
 * copy bandwidth), the sweep panel's highlighted best row, the Error panel's extras and
 * ASCII borders, and the Chart panel's legend, plot and axis (or its line without a chart).
 * No GPU is needed. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/panels.h"
#include "dash_fixture.h"

static struct session s;
static struct dash_data d;
static struct dash_log log_lines;
static struct dash_live live;
static struct panel_ctx ctx = {.data = &d, .log = &log_lines, .live = &live}; /* ASCII, no colour */
static SCREEN *screen;
static FILE *term_out, *term_in;

/* A session on expint (n=2 m=3, double, block 128) and a screen that writes to /dev/null. */
static int setup(void **state)
{
	(void)state;
	fixture_session(&s);
	dash_init(&d);
	term_out = fopen("/dev/null", "w");
	term_in = fopen("/dev/null", "r");
	assert_true(term_out && term_in);
	setenv("LINES", "40", 1);
	setenv("COLUMNS", "100", 1);
	screen = newterm("xterm", term_out, term_in);
	assert_non_null(screen);
	set_term(screen);
	return 0;
}

/* Ends the screen and frees the session. */
static int teardown(void **state)
{
	(void)state;
	endwin();
	delscreen(screen);
	fclose(term_out);
	fclose(term_in);
	session_free(&s);
	return 0;
}

/* Draws the table's panel called name into a fresh rows x cols window; returns the window. */
static WINDOW *draw(const char *name, int rows, int cols)
{
	WINDOW *w = newwin(rows, cols, 0, 0);
	assert_non_null(w);
	for (int i = 0; i < panel_count; i++)
		if (!strcmp(panel_table[i].name, name)) {
			panel_table[i].draw(w, &panel_table[i], &ctx);
			return w;
		}
	fail_msg("no panel %s", name);
	return w;
}

/* Returns row y of w inside the side borders as text (a static buffer), trailing blanks
 * dropped. */
static const char *row(WINDOW *w, int y)
{
	static char buf[512];
	int n = mvwinnstr(w, y, 1, buf, getmaxx(w) - 2);
	n = n < 0 ? 0 : n;
	while (n > 0 && buf[n - 1] == ' ')
		n--;
	buf[n] = '\0';
	return buf;
}

/* Returns the first row of w that contains text, or -1. */
static int find_row(WINDOW *w, const char *text)
{
	for (int y = 0; y < getmaxy(w); y++)
		if (strstr(row(w, y), text))
			return y;
	return -1;
}

/* Counts the cells of row y that are c. */
static int cells_of(WINDOW *w, int y, char c)
{
	int n = 0;
	for (const char *p = row(w, y); *p; p++)
		n += *p == c;
	return n;
}

/* Counts the ASCII bar cells ('#') of row y. */
static int bar_cells(WINDOW *w, int y)
{
	return cells_of(w, y, '#');
}

/* Makes the session's last result a GPU run with phases 0.4, 0.2, 0.5, 2 and 0.3 ms
 * (kernel and d2h overlapped), the total and the speedups given, and takes it in. */
static void gpu_result(struct run_result *r, double *vals, double total, double serial,
                       double threads)
{
	fixture_gpu_result(&s, r, vals, fixture_timing(0.4, 0.2, 0.5, 2, 0.3, total, 1), 2e-9);
	r->speedup_serial = serial;
	r->speedup_threads = threads;
	dash_update(&d, &s);
}

/* Timing: the GPU total and its five phases, each with its figure and a bar in proportion on
 * the shared 0..5 ms scale (32 cells in a 60-column window), kernel and d2h marked '~' as
 * overlapped; without the overlap, no marks. */
static void test_timing_gpu(void **state)
{
	struct run_result *r = calloc(1, sizeof *r);
	double vals[6];
	static const struct {
		const char *label, *figure;
		double ms;
	} want[] = {{"gpu b128 ", "2.6 ms", 2.6}, {"  alloc ", "0.4 ms", 0.4},
	            {"  h2d ", "0.2 ms", 0.2},    {"  kernel~ ", "0.5 ms", 0.5},
	            {"  d2h~ ", "2 ms", 2},       {"  free ", "0.3 ms", 0.3}};
	(void)state;
	assert_non_null(r);
	gpu_result(r, vals, 2.6, 40, 10);
	WINDOW *w = draw("Timing", 11, 60);
	assert_true(find_row(w, "~: overlap") == 0);
	int y = find_row(w, "gpu b128");
	assert_true(y > 0);
	for (size_t k = 0; k < sizeof want / sizeof want[0]; k++, y++) {
		const char *text = row(w, y);
		if (!strstr(text, want[k].label) || !strstr(text, want[k].figure))
			fail_msg("row %d is '%s', expected '%s' ... '%s'", y, text, want[k].label,
			         want[k].figure);
		assert_int_equal(bar_cells(w, y), (int)(want[k].ms / 5 * 32));
	}
	assert_non_null(strstr(row(w, 9), "0") && strstr(row(w, 9), "5 ms")); /* the scale */
	delwin(w);
	for (int k = 0; k < r->summary.med.nphases; k++)
		r->summary.med.phase[k].overlapped = 0;
	r->summary.med.total = 2.7; /* a new result */
	dash_update(&d, &s);
	w = draw("Timing", 11, 60);
	assert_int_equal(find_row(w, "~"), -1);
	assert_true(find_row(w, "  kernel ") > 0);
	delwin(w);
	s.last = NULL;
	free(r);
}

/* Speedup: the GPU over CPU threads in big digits with what it compares, both GPU speedups in
 * figures, and the history chart of the GPU runs (one cell per run). */
static void test_speedup_gpu(void **state)
{
	struct run_result *r = calloc(1, sizeof *r);
	double vals[6];
	char big[32], digits[160], spark[64];
	const double history[2] = {10, 2.5};
	(void)state;
	assert_non_null(r);
	dash_init(&d);
	gpu_result(r, vals, 2.6, 40, 10);
	gpu_result(r, vals, 2.7, 40, 2.5);
	WINDOW *w = draw("Speedup", 9, 60);
	assert_string_equal(row(w, 1), " gpu vs cpu 4 threads");
	fmt_speedup(big, sizeof big, 2.5);
	assert_string_equal(big, "2.5x");
	for (int r3 = 0; r3 < 3; r3++) {
		size_t n = (size_t)fmt_big_row(digits, sizeof digits, big, r3);
		while (n > 0 && digits[n - 1] == ' ') /* row() drops trailing blanks */
			digits[--n] = '\0';
		assert_true(n > 0);
		assert_non_null(strstr(row(w, 2 + r3), digits));
	}
	assert_non_null(strstr(row(w, 5), "gpu vs serial 40x  vs threads 2.5x"));
	fmt_spark(spark, sizeof spark, history, 2, 0);
	assert_int_equal(strlen(spark), 2);
	assert_true(spark[0] != spark[1]);
	char want[96];
	snprintf(want, sizeof want, "history %s", spark);
	assert_non_null(strstr(row(w, 7), want));
	delwin(w);
	s.last = NULL;
	free(r);
}

/* Speedup before any speedup is known: what to run, and no big digits (not a bare '_'). */
static void test_speedup_none(void **state)
{
	(void)state;
	dash_init(&d);
	WINDOW *w = draw("Speedup", 9, 60);
	assert_string_equal(row(w, 1), " run cpu and gpu on one configuration (F5)");
	for (int y = 2; y < 5; y++)
		assert_string_equal(row(w, y), "");
	delwin(w);
}

/* Device: the GPU's lines with the measured copy bandwidth. */
static void test_device_gpu(void **state)
{
	const struct gpu_info g = {.name = "NVIDIA H200", .cc_major = 9, .sms = 132};
	(void)state;
	dash_device_lines(&d, &g, NULL, (size_t)64 << 20, 2.5, NULL);
	WINDOW *w = draw("Device", 7, 60);
	assert_true(find_row(w, "NVIDIA H200 (cc 9.0)") == 1);
	assert_true(find_row(w, "132 SMs") == 2);
	assert_true(find_row(w, "copy d2h 26.8 GB/s") > 2);
	delwin(w);
}

/* A run over 3 GPUs, GPU 2 the slowest (its phases the run's), on a host of 3 named GPUs. */
static void multi_gpu_result(struct run_result *r, double *vals, struct qx_timing *per)
{
	per[0] = fixture_timing(0.1, 0.2, 3.0, 0.5, 0.1, 4.0, 0);
	per[1] = fixture_timing(0.1, 0.2, 2.0, 0.4, 0.1, 2.9, 0);
	per[2] = fixture_timing(0.1, 0.2, 4.5, 0.5, 0.1, 5.5, 0);
	fixture_gpu_result(&s, r, vals, per[2], 2e-9);
	r->summary.gpus = 3;
	r->gpu_med = per;
	dash_update(&d, &s);
	d.ngpus = 3;
	for (int g = 0; g < 3; g++) {
		snprintf(d.gpus[g].name, DASH_GPU_NAME, "NVIDIA H100 80GB HBM3");
		d.gpus[g].sms = 132;
	}
}

/* Timing and Device of a run over 3 GPUs: at the panels' preferred size every GPU with its
 * total (Timing: and longest phases), the slowest marked '>' and the title saying so; at their
 * smallest size and a narrow width the lines stay inside the border and the slowest GPU is
 * the one listed. */
static void test_multi_gpu_panels(void **state)
{
	struct run_result *r = calloc(1, sizeof *r);
	struct qx_timing per[3];
	double vals[6];
	(void)state;
	assert_non_null(r);
	multi_gpu_result(r, vals, per);
	WINDOW *w = draw("Timing", 11, 60);
	assert_int_equal(find_row(w, ">: slowest GPU"), 0);
	const int y = find_row(w, "gpu b128");
	assert_true(y > 0);
	assert_string_equal(row(w, y + 1), "    gpu0 4 ms  kernel 3  d2h 0.5  h2d 0.2  alloc 0.1");
	assert_string_equal(row(w, y + 2),
	                    "    gpu1 2.9 ms  kernel 2  d2h 0.4  h2d 0.2  alloc 0.1");
	assert_string_equal(row(w, y + 3),
	                    "   >gpu2 5.5 ms  kernel 4.5  d2h 0.5  h2d 0.2  alloc 0.1");
	assert_true(strstr(row(w, y + 4), "  alloc ") != NULL); /* the slowest's phase bars */
	delwin(w);
	w = draw("Timing", 7, 38); /* one row left for the GPUs: the slowest */
	assert_int_equal(find_row(w, "gpu0"), -1);
	assert_true(find_row(w, ">gpu2 5.5 ms  kernel 4.5") > 0);
	assert_true(strstr(row(w, 5), " ms") && !strstr(row(w, 5), "gpu")); /* the scale */
	delwin(w);

	w = draw("Device", 7, 60);
	assert_int_equal(find_row(w, "last run per GPU; >: slowest"), 0);
	assert_string_equal(row(w, 1), "  0 NVIDIA H100 80GB HBM3 4 ms");
	assert_string_equal(row(w, 2), "  1 NVIDIA H100 80GB HBM3 2.9 ms");
	assert_string_equal(row(w, 3), " >2 NVIDIA H100 80GB HBM3 5.5 ms");
	delwin(w);
	w = draw("Device", 4, 24); /* two rows: GPU 0, then the slowest in place of GPU 1 */
	assert_string_equal(row(w, 1), "  0 NVIDIA H100 4 ms");
	assert_string_equal(row(w, 2), " >2 NVIDIA H10 5.5 ms");
	delwin(w);
	r->gpu_med = NULL;
	d.ngpus = 0;
	s.last = NULL;
	free(r);
}

/* Sweep: a GPU sweep's bars with the best row drawn in reverse video and marked '*', the
 * others not. */
static void test_sweep_best(void **state)
{
	struct dash_sweep *sw = &d.sweep;
	(void)state;
	*sw = (struct dash_sweep){
	    .present = 1, .axes = "block on gpu", .nconfigs = 2, .configs_done = 2, .nrows = 2};
	sw->best = 1;
	sw->rows[0] = (struct dash_sweep_row){"128 gpu", 1, 0, 5e9, 1, "", 0, NAN, NAN, 0, 0};
	sw->rows[1] = (struct dash_sweep_row){"256 gpu", 1, 1, 1e10, 0.5, "", 0, NAN, NAN, 0, 0};
	WINDOW *w = draw("Sweep", 6, 80);
	assert_true(find_row(w, "block on gpu: 2 of 2 configurations; best 256 gpu") == 1);
	const int y0 = find_row(w, "  128 gpu"), y1 = find_row(w, "* 256 gpu");
	assert_true(y0 == 2 && y1 == 3);
	assert_false(mvwinch(w, y0, 2) & A_REVERSE);
	assert_true(mvwinch(w, y1, 2) & A_REVERSE);
	assert_int_equal(bar_cells(w, y1) / 2, bar_cells(w, y0)); /* half the throughput */
	delwin(w);
}

/* Error: a run with extras (a remainder bound and how many exceed it) shows them below the
 * worst point, the histogram below them; without UTF-8 the border is plain ASCII (no
 * alternate character set). */
static void test_error_extras(void **state)
{
	struct run_result *r = calloc(1, sizeof *r);
	double vals[6];
	(void)state;
	assert_non_null(r);
	fixture_gpu_result(&s, r, vals, fixture_timing(0.4, 0.2, 0.5, 2, 0.3, 3.1, 0), 2e-9);
	r->nfigures = 2;
	r->figure[0] = (struct qx_figure){.name = "bound_max", .value = 3.48e-15};
	r->figure[1] = (struct qx_figure){.name = "over_bound", .value = 7};
	dash_update(&d, &s);
	WINDOW *w = draw("Error", 14, 60);
	const int worst = find_row(w, "worst at n="),
	          extras = find_row(w, "bound_max 3.48e-15  over_bound 7");
	assert_true(worst > 0);
	assert_int_equal(extras, worst + 2);
	assert_true(find_row(w, "log10") > extras);
	assert_int_equal(mvwinch(w, 0, 0), '+');
	assert_int_equal(mvwinch(w, 1, 0), '|');
	assert_int_equal(mvwinch(w, 0, 1), '-');
	assert_int_equal(mvwinch(w, 13, 59), '+');
	delwin(w);
	s.last = NULL;
	free(r);
}

/* Problem at its minimum height (three rows inside): the problem, the settings cut to one row,
 * and a row of parameters. */
static void test_problem_keeps_params(void **state)
{
	const int min_h = panel_table[0].hint.min_h;
	(void)state;
	assert_string_equal(panel_table[0].name, "Problem");
	dash_update(&d, &s);
	snprintf(d.settings, sizeof d.settings,
	         "precision float  block 256  threads 1  variant fast");
	snprintf(d.params, sizeof d.params, "n=2 m=3");
	WINDOW *w = draw("Problem", min_h, 40);
	assert_int_equal(find_row(w, "precision float  block 256"), 2);
	assert_int_equal(find_row(w, "threads 1"), -1);
	assert_int_equal(find_row(w, "n=2 m=3"), 3);
	delwin(w);
	w = draw("Problem", min_h + 1, 40); /* one row more: the settings whole */
	assert_int_equal(find_row(w, "threads 1  variant fast"), 3);
	assert_int_equal(find_row(w, "n=2 m=3"), 4);
	delwin(w);
}

/* Log: a line longer than the panel is wrapped, whole; PgUp scrolls back by wrapped rows to the
 * line's first row and no further, PgDn back to the newest. */
static void test_log_wraps(void **state)
{
	static struct dash_log lines;
	const struct panel *log = &panel_table[panel_count - 1];
	struct panel_ctx c = ctx;
	(void)state;
	assert_string_equal(log->name, "Log");
	c.log = &lines;
	dash_log_add(&lines,
	             "> use longman; set lambda 0\n"
	             "error: lambda must be > 0 with integrand cos: e^{-lambda x} cos(omega x) "
	             "does not converge at lambda = 0 (only j0 allows it)");
	WINDOW *w = newwin(4, 40, 0, 0); /* two rows inside, 36 cells wide */
	assert_non_null(w);
	log->draw(w, log, &c);
	assert_string_equal(row(w, 1), " cos(omega x) does not converge at");
	assert_string_equal(row(w, 2), " lambda = 0 (only j0 allows it)");
	assert_true(log->on_key(&c, KEY_PPAGE, 4, 40));
	log->draw(w, log, &c);
	assert_true(find_row(w, "1 row back; PgDn") == 0);
	assert_string_equal(row(w, 2), " cos(omega x) does not converge at");
	assert_true(log->on_key(&c, KEY_PPAGE, 4, 40) && log->on_key(&c, KEY_PPAGE, 4, 40));
	assert_true(log->on_key(&c, KEY_PPAGE, 4, 40)); /* at the oldest row: stays */
	assert_int_equal(c.log_scroll, 3);
	log->draw(w, log, &c);
	assert_string_equal(row(w, 1), " > use longman; set lambda 0");
	assert_string_equal(row(w, 2), " error: lambda must be > 0 with");
	assert_true(log->on_key(&c, KEY_NPAGE, 4, 40));
	assert_int_equal(c.log_scroll, 2);
	assert_false(log->on_key(&c, 'a', 4, 40));
	delwin(w);
}

/* Log: an error from `source` longer than the old 200-byte entries (a long path and the list
 * of names) wraps to its very end. */
static void test_log_keeps_long_errors(void **state)
{
	static struct dash_log lines;
	const struct panel *log = &panel_table[panel_count - 1];
	struct panel_ctx c = ctx;
	char text[400];
	(void)state;
	c.log = &lines;
	snprintf(text, sizeof text,
	         "quadx: /home/teacher/%0120d/bad.qx: line 2: unknown parameter 'foo' for expint: "
	         "names are n, m, a, b, iters, precision, block, threads, variant, threshold, "
	         "repeat, warmup, streams",
	         0);
	dash_log_add(&lines, text);
	WINDOW *w = newwin(10, 60, 0, 0);
	assert_non_null(w);
	log->draw(w, log, &c);
	assert_string_equal(row(w, 1), " quadx:");
	assert_true(find_row(w, "precision, block, threads, variant, threshold, repeat,") > 1);
	assert_string_equal(row(w, 7), " warmup, streams");
	delwin(w);
}

/* The status line: at 80 columns the keys end with "F10 leave" (none of them cut off before
 * it), a run's line too; F1's list names every key with what it does, q included. */
static void test_status_and_keys(void **state)
{
	static const struct key_hint keys[] = {
	    {"F1", "keys", "show or hide this list of keys", 0},
	    {"F3/F4", "block /2 x2", "halve / double the block size", 7},
	    {"q", NULL, "leave, when the command line is empty", 0},
	    {"F10", "leave", "leave the dashboard", 0},
	};
	struct panel_ctx c = ctx;
	struct dash_live run = {.busy = 1, .line = "run cpu", .elapsed_ms = 1500};
	(void)state;
	c.keys = keys;
	c.nkeys = 4;
	WINDOW *w = newwin(1, 80, 0, 0);
	assert_non_null(w);
	panels_draw_status(w, &c);
	char buf[128];
	assert_true(mvwinnstr(w, 0, 0, buf, 80) > 0);
	assert_non_null(strstr(buf, " quadx dashboard   F1 keys  F3/F4 block /2 x2  F10 leave"));
	assert_true(mvwinch(w, 0, 10) & A_REVERSE);
	run.prog.phase = "cpu";
	c.live = &run;
	panels_draw_status(w, &c);
	assert_true(mvwinnstr(w, 0, 0, buf, 80) > 0);
	assert_non_null(strstr(buf, " running `run cpu`  cpu [....................]  Esc cancels  "
	                            "F10 leave")); /* "1.5 s elapsed" would not fit */
	delwin(w);
	w = newwin(20, 80, 0, 0);
	assert_non_null(w);
	panels_draw_keys(w, &c);
	assert_int_equal(find_row(w, " Keys (F1 closes) "), 0);
	assert_string_equal(row(w, 2), " F3/F4      halve / double the block size");
	assert_string_equal(row(w, 3), " q          leave, when the command line is empty");
	delwin(w);
}

/* Too small: the message wraps at blanks (not cut at the window's width) and F10 shows. */
static void test_too_small_wraps(void **state)
{
	char buf[64];
	(void)state;
	WINDOW *w = newwin(12, 45, 0, 0);
	assert_non_null(w);
	panels_draw_too_small(w, 12, 45, 31, 40);
	int found = 0;
	for (int y = 0; y < 11; y++) {
		assert_true(mvwinnstr(w, y, 0, buf, 45) >= 0);
		found += strstr(buf, "terminal too small: 45x12; the dashboard") != NULL;
		found += strstr(buf, "needs 40x31. Enlarge the window, or F10 to") != NULL;
		found += strstr(buf, "leave.") == buf;
	}
	assert_int_equal(found, 3);
	delwin(w);
}

/* Sweep: when the rows do not fit, the newest show and the best row stays, first. */
static void test_sweep_keeps_best(void **state)
{
	struct dash_sweep *sw = &d.sweep;
	char label[48];
	(void)state;
	*sw = (struct dash_sweep){
	    .present = 1, .axes = "M on cpu", .nconfigs = 5, .configs_done = 5, .nrows = 5};
	for (int i = 0; i < 5; i++) {
		snprintf(label, sizeof label, "%d000 cpu", i + 1);
		sw->rows[i] = (struct dash_sweep_row){
		    "", 1, i == 1, 1e5 * (i == 1 ? 9 : 5 - i), 1, "", 0, NAN, NAN, 0, 0};
		snprintf(sw->rows[i].label, sizeof sw->rows[i].label, "%s", label);
	}
	sw->best = 1;
	WINDOW *w = draw("Sweep", 5, 80); /* two rows of bars */
	assert_int_equal(find_row(w, "* 2000 cpu"), 2);
	assert_int_equal(find_row(w, "  5000 cpu"), 3);
	assert_int_equal(find_row(w, "4000 cpu"), -1);
	assert_true(mvwinch(w, 2, 2) & A_REVERSE);
	delwin(w);
}

/* Chart, 8 x 60 in ASCII: the title, the legend (each series' mark and name), the top of the y
 * range and 0 beside a plot of 4 rows and 52 columns (60 less the borders' margins, the
 * labels' 2 and the x label's 2): four bars of heights 1..4 of 13 columns each under a flat
 * line at 2 drawn over them, the x axis from 0 to 4 and its label. Without a chart (zoomed:
 * F9 unzooms), a line saying so. */
static void test_chart(void **state)
{
	struct qx_chart *ch = &d.chart;
	struct panel_ctx c = ctx;
	(void)state;
	memset(ch, 0, sizeof *ch);
	ch->nseries = 2;
	snprintf(ch->title, sizeof ch->title, "test chart");
	snprintf(ch->xlabel, sizeof ch->xlabel, "x");
	ch->series[0] = (struct qx_series){.name = "bins", .kind = QX_SERIES_BARS, .npoints = 4};
	ch->series[1] = (struct qx_series){.name = "curve", .kind = QX_SERIES_LINE, .npoints = 2};
	for (int i = 0; i < 4; i++) {
		ch->series[0].x[i] = i + 0.5;
		ch->series[0].y[i] = i + 1;
	}
	ch->series[1].x[1] = 4;
	ch->series[1].y[0] = ch->series[1].y[1] = 2;
	WINDOW *w = draw("Chart", 8, 60);
	assert_int_equal(find_row(w, " Chart (test chart) "), 0);
	assert_string_equal(row(w, 1), " # bins  * curve");
	assert_int_equal(strncmp(row(w, 2), " 4 ", 3), 0);
	assert_int_equal(bar_cells(w, 2), 13); /* the bar of 4 */
	assert_int_equal(cells_of(w, 3, '*'), 52);
	assert_int_equal(bar_cells(w, 4), 39); /* 2, 3 and 4 */
	assert_int_equal(bar_cells(w, 5), 52);
	assert_int_equal(strncmp(row(w, 5), " 0 #", 4), 0);
	assert_int_equal(strncmp(row(w, 6), "   0 ", 5), 0);
	assert_non_null(strstr(row(w, 6), " 2 "));
	const char *axis = row(w, 6);
	assert_string_equal(axis + strlen(axis) - 4, " 4 x");
	delwin(w);
	ch->nseries = 0;
	for (int i = 0; i < panel_count; i++)
		if (!strcmp(panel_table[i].name, "Chart"))
			c.zoomed = &panel_table[i];
	assert_non_null(c.zoomed);
	w = newwin(6, 60, 0, 0);
	assert_non_null(w);
	c.zoomed->draw(w, c.zoomed, &c);
	assert_int_equal(find_row(w, " Chart (none; F9 unzooms) "), 0);
	assert_string_equal(row(w, 1), " (no chart for the last run)");
	delwin(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_timing_gpu),
	    cmocka_unit_test(test_speedup_gpu),
	    cmocka_unit_test(test_speedup_none),
	    cmocka_unit_test(test_device_gpu),
	    cmocka_unit_test(test_sweep_best),
	    cmocka_unit_test(test_error_extras),
	    cmocka_unit_test(test_problem_keeps_params),
	    cmocka_unit_test(test_log_wraps),
	    cmocka_unit_test(test_sweep_keeps_best),
	    cmocka_unit_test(test_log_keeps_long_errors),
	    cmocka_unit_test(test_status_and_keys),
	    cmocka_unit_test(test_too_small_wraps),
	    cmocka_unit_test(test_chart),
	    cmocka_unit_test(test_multi_gpu_panels),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
