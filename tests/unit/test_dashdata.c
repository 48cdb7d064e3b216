/* test_dashdata.c - the dashboard's snapshot of a session: settings text, CPU timings and
 * their ratio, a GPU result's phases and speedups taken in once per new result (the history
 * grows by one per run), the error panel's figures computed from the values against the
 * real reference, the device lines of a fabricated GPU, and the sweep panel's copy of a real
 * CPU sweep seen through the session's observer as it grows, a real longman CPU run (its long
 * configuration matched against the current settings, its extras), the chart of a real kde
 * run taken in and dropped with the next run that has none, and the F3/F4 commands clamped to
 * the block's range, with no terminal and no GPU. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/dashdata.h"
#include "../../src/run.h"
#include "../../src/sweep.h"
#include "dash_fixture.h"

static struct session s;
static struct dash_data d;

/* A session on expint with n=2 m=3 (6 points), settings changed from their defaults. */
static int setup(void **state)
{
	(void)state;
	fixture_session(&s);
	dash_init(&d);
	return 0;
}

/* Frees the session. */
static int teardown(void **state)
{
	(void)state;
	session_free(&s);
	return 0;
}

/* Problem and settings text, the keys' settings, and no result yet. */
static void test_settings(void **state)
{
	(void)state;
	dash_update(&d, &s);
	assert_string_equal(d.problem, "expint");
	assert_non_null(strstr(d.params, "n=2 m=3"));
	assert_non_null(strstr(d.settings, "precision double  block 128  threads 1"));
	assert_int_equal(d.precision, QX_DOUBLE);
	assert_int_equal(d.block, 128);
	assert_false(d.timing[SLOT_CPU_SERIAL].valid || d.timing[SLOT_GPU].valid);
	assert_int_equal(d.error_of[0], '\0');
	assert_true(isnan(d.cpu_scaling));
}

/* CPU timings of one configuration give the threads-over-serial ratio. */
static void test_cpu_scaling(void **state)
{
	(void)state;
	snprintf(s.cpu_serial.key, sizeof s.cpu_serial.key, "expint k double fast");
	snprintf(s.cpu_threads.key, sizeof s.cpu_threads.key, "expint k double fast");
	s.cpu_serial.total_ms = 30;
	s.cpu_serial.threads = 1;
	s.cpu_threads.total_ms = 12;
	s.cpu_threads.threads = 4;
	dash_update(&d, &s);
	assert_true(d.timing[SLOT_CPU_SERIAL].valid && d.timing[SLOT_CPU_THREADS].valid);
	assert_true(d.timing[SLOT_CPU_THREADS].med.total == 12);
	assert_int_equal(d.timing[SLOT_CPU_THREADS].threads_or_block, 4);
	assert_true(fabs(d.cpu_scaling - 2.5) < 1e-12);
	assert_int_equal(d.cpu_scaling_threads, 4);
	snprintf(s.cpu_threads.key, sizeof s.cpu_threads.key, "expint other double fast");
	dash_update(&d, &s);
	assert_true(isnan(d.cpu_scaling)); /* not the same configuration */
}

/* A GPU result whose values are off by known amounts: its phases, speedups and error figures
 * are taken in once; a new result adds one point to the history. */
static void test_gpu_result(void **state)
{
	double vals[6];
	struct run_result *r = calloc(1, sizeof *r);
	(void)state;
	assert_non_null(r);
	fixture_gpu_result(&s, r, vals, fixture_timing(0.01, 0, 0.5, 2, 0.01, 2.6, 1), 3e-3);
	dash_update(&d, &s);
	assert_true(d.timing[SLOT_GPU].valid);
	assert_true(qx_timing_ms(&d.timing[SLOT_GPU].med, "kernel") == 0.5 &&
	            qx_timing_ms(&d.timing[SLOT_GPU].med, "d2h") == 2);
	assert_int_equal(d.timing[SLOT_GPU].threads_or_block, 128);
	assert_true(d.speedup_threads == 10 && d.speedup_serial == 40);
	assert_int_equal(d.nhistory, 1);
	assert_true(d.history[0] == 10);
	assert_non_null(strstr(d.error_of, "expint n=2 m=3"));
	assert_int_equal(d.err.over, 1);
	assert_true(fabs(d.err.max_rel - 3e-3) < 1e-9);
	assert_int_equal(d.hist.count[-9 + 16], 5);       /* 2e-9 */
	assert_int_equal(d.hist.count[-3 + 16], 1);       /* 3e-3 */
	assert_string_equal(d.worst_at, "n=2 x=6.66667"); /* point 4: row 2, x = 10 * 2/3 */
	assert_non_null(strstr(d.worst_value, " vs "));
	dash_update(&d, &s); /* the same result: nothing new */
	assert_int_equal(d.nhistory, 1);
	r->summary.med.total = 2.5;
	r->speedup_threads = NAN; /* no CPU threads timing: the history takes vs serial */
	dash_update(&d, &s);
	assert_int_equal(d.nhistory, 2);
	assert_true(d.history[1] == 40);
	s.last = NULL;
	s.last_values = NULL;
	free(r);
}

/* The device lines of a fabricated GPU: name, SMs, memory, clocks and the copy bandwidth from
 * the measurement (64 MiB in 2.5 ms: 26.8 GB/s), or the copy's error; and no GPU. */
static void test_device_lines(void **state)
{
	const struct gpu_info g = {.name = "NVIDIA H200",
	                           .cc_major = 9,
	                           .sms = 132,
	                           .mem_total = (size_t)140 << 30,
	                           .mem_free = (size_t)139 << 30,
	                           .sm_clock_mhz = 1980,
	                           .mem_clock_mhz = 3201,
	                           .mem_bus_bits = 6144,
	                           .driver_version = 13000,
	                           .runtime_version = 13000,
	                           .context_ms = 120.5};
	struct dash_data *dd = calloc(1, sizeof *dd);
	(void)state;
	assert_non_null(dd);
	dash_device_lines(dd, &g, NULL, (size_t)64 << 20, 2.5, NULL);
	assert_int_equal(dd->ndevice, 5);
	assert_string_equal(dd->device[0], "NVIDIA H200 (cc 9.0)");
	assert_string_equal(dd->device[1], "132 SMs  140.0 GiB (139.0 GiB free)");
	assert_string_equal(dd->device[2], "SM 1980 MHz  memory 3201 MHz, 6144-bit bus");
	assert_string_equal(dd->device[3], "copy d2h 26.8 GB/s (64 MiB pinned, median of 5)");
	assert_string_equal(dd->device[4], "driver 13000  runtime 13000  context 120.5 ms");
	dash_device_lines(dd, &g, NULL, (size_t)64 << 20, 0, "cudaMallocHost: out of memory");
	assert_string_equal(dd->device[3], "copy d2h: cudaMallocHost: out of memory");
	dash_device_lines(dd, NULL, "no usable GPU: no CUDA-capable device", 0, 0, NULL);
	assert_int_equal(dd->ndevice, 2);
	assert_string_equal(dd->device[0], "no GPU");
	assert_string_equal(dd->device[1], "no usable GPU: no CUDA-capable device");
	free(dd);
}

/* What the observer saw of a sweep: the panel's copy after every call. */
#define SEEN_MAX 16
struct seen {
	int calls;
	struct dash_sweep snap[SEEN_MAX];
};

/* The sweep observer of the test: keeps the panel's copy of every call. */
static void observe(void *arg, const struct sweep *sw)
{
	struct seen *seen = arg;
	assert_true(seen->calls < SEEN_MAX);
	dash_take_sweep(&seen->snap[seen->calls++], sw);
}

/* A real CPU sweep of three configurations seen through the observer: it starts empty and
 * running, grows by one row per configuration with configs_done following, and ends not
 * running with the best marked; the header, the bars and the status text follow. */
static void test_sweep_observed(void **state)
{
	char *words[] = {"sweep", "threads", "1,2,3", "on", "cpu"};
	struct sweep plan;
	struct qx_err e;
	char line[4 * DASH_LINE];
	struct seen *seen = calloc(1, sizeof *seen);
	(void)state;
	assert_non_null(seen);
	dash_sweep_header(line, sizeof line, &seen->snap[0]);
	assert_string_equal(line, "no sweep yet (try: sweep block 32..1024)");
	s.sweep_observer = observe;
	s.sweep_observer_arg = seen;
	if (sweep_plan(&s, 5, words, &plan, &e))
		fail_msg("plan: %s", e.msg);
	if (sweep_run(&s, &plan, NULL, &e))
		fail_msg("sweep: %s", e.msg);
	s.sweep_observer = NULL;
	/* start, then a row and a finished configuration for each of 3, then the end */
	assert_int_equal(seen->calls, 1 + 2 * 3 + 1);
	assert_true(seen->snap[0].present && seen->snap[0].running);
	assert_int_equal(seen->snap[0].nrows, 0);
	dash_sweep_progress(line, sizeof line, &seen->snap[0]);
	assert_string_equal(line, "configuration 1 of 3");
	for (int k = 0; k < 3; k++) {
		const struct dash_sweep *row = &seen->snap[1 + 2 * k],
		                        *done = &seen->snap[2 + 2 * k];
		assert_int_equal(row->nrows, k + 1);
		assert_int_equal(row->configs_done, (size_t)k);
		assert_int_equal(done->configs_done, (size_t)k + 1);
		assert_true(row->running && done->running);
		assert_true(row->best >= 0 && row->best <= k);
	}
	dash_sweep_progress(line, sizeof line, &seen->snap[4]);
	assert_string_equal(line, "configuration 3 of 3");
	const struct dash_sweep *end = &seen->snap[7];
	assert_false(end->running);
	dash_sweep_progress(line, sizeof line, end);
	assert_string_equal(line, "");
	assert_int_equal(end->nrows, 3);
	assert_int_equal(end->best, s.sweep->best);
	assert_string_equal(end->axes, "threads on cpu");
	for (int i = 0; i < 3; i++) {
		char label[16];
		snprintf(label, sizeof label, "%d cpu", i + 1);
		assert_string_equal(end->rows[i].label, label);
		assert_int_equal(end->rows[i].best, i == end->best);
		assert_true(end->rows[i].per_s == s.sweep->rows[i].summary.work_per_s);
	}
	dash_sweep_header(line, sizeof line, end);
	snprintf(line + 200, 100, "threads on cpu: 3 of 3 configurations; best %d cpu",
	         end->best + 1);
	assert_string_equal(line, line + 200);
	free(seen);
}

/* The bar chart's rows from a fabricated sweep: the best row marked, bars in proportion to
 * the throughput (the fastest fills the bar), SI figures, failed rows with their error; and
 * the header of a cancelled sweep. */
static void test_sweep_lines(void **state)
{
	struct dash_sweep *sw = calloc(1, sizeof *sw);
	char line[4 * DASH_LINE];
	(void)state;
	assert_non_null(sw);
	*sw = (struct dash_sweep){.present = 1,
	                          .cancelled = 1,
	                          .axes = "block on gpu",
	                          .nconfigs = 9,
	                          .configs_done = 3,
	                          .nrows = 3,
	                          .best = 1};
	sw->rows[0] = (struct dash_sweep_row){"32 gpu", 1, 0, 5e9, 1, "", 0, NAN, NAN, 0, 0};
	sw->rows[1] = (struct dash_sweep_row){"64 gpu", 1, 1, 1.25e10, 1, "", 0, NAN, NAN, 0, 0};
	sw->rows[2] = (struct dash_sweep_row){
	    "2048 gpu", 0, 0, NAN, NAN, "invalid configuration", 0, NAN, NAN, 0, 0};
	/* width 50: label 8 cells, bar 50 - 2 - 8 - 2 - 10 = 28 cells */
	dash_sweep_line(line, sizeof line, sw, 1, 50, 0);
	assert_string_equal(line, "* 64 gpu   ############################ 12.5 G/s");
	dash_sweep_line(line, sizeof line, sw, 0, 50, 0);
	assert_string_equal(line, "  32 gpu   ###########                  5 G/s");
	dash_sweep_line(line, sizeof line, sw, 2, 50, 0);
	assert_string_equal(line, "  2048 gpu failed: invalid configuration");
	dash_sweep_line(line, sizeof line, sw, 3, 50, 0);
	assert_string_equal(line, "");
	dash_sweep_line(line, sizeof line, sw, 0, 50, 1); /* UTF-8: 11.2 cells of 28 */
	assert_string_equal(line, "  32 gpu   ███████████▎                 5 G/s");
	dash_sweep_header(line, sizeof line, sw);
	assert_string_equal(line,
	                    "block on gpu: cancelled after 3 of 9 configurations; best 64 gpu");
	/* runs of one value show their answer, aligned, before the bars when 8 cells of bar
	 * still fit: at width 51, 51 - 2 - 8 - 1 - (21 + 1) - 1 - 10 = 7 do not; at 52 8 do (9 in
	 * UTF-8, where ± is one cell) */
	sw->rows[0].has_answer = sw->rows[1].has_answer = 1;
	sw->rows[0].value = 0.6321205588;
	sw->rows[0].estimate = 9e-16;
	sw->rows[1].value = 0.5;
	sw->rows[1].estimate = NAN;
	dash_sweep_line(line, sizeof line, sw, 1, 51, 0);
	assert_string_equal(line, "* 64 gpu   ############################# 12.5 G/s");
	dash_sweep_line(line, sizeof line, sw, 1, 52, 0);
	assert_string_equal(line, "* 64 gpu                     0.5 ######## 12.5 G/s");
	dash_sweep_line(line, sizeof line, sw, 0, 52, 0);
	assert_string_equal(line, "  32 gpu   0.6321205588 +- 9e-16 ###      5 G/s");
	dash_sweep_line(line, sizeof line, sw, 0, 52, 1);
	assert_string_equal(line, "  32 gpu   0.6321205588 ± 9e-16 ███▋      5 G/s");
	dash_sweep_line(line, sizeof line, sw, 2, 52, 0);
	assert_string_equal(line, "  2048 gpu failed: invalid configuration");
	/* a batch's row: how many of its integrals converged, in the answer's place */
	sw->rows[0].has_answer = sw->rows[1].has_answer = 0;
	sw->rows[0].integrals = sw->rows[1].integrals = 1000;
	sw->rows[0].integrals_converged = 997;
	sw->rows[1].integrals_converged = 1000;
	dash_sweep_line(line, sizeof line, sw, 0, 60, 0);
	assert_string_equal(line, "  32 gpu    997/1000 converged #######            5 G/s");
	dash_sweep_line(line, sizeof line, sw, 1, 60, 0);
	assert_string_equal(line, "* 64 gpu   1000/1000 converged ################## 12.5 G/s");
	free(sw);
}

/* A real longman CPU run: its configuration (longer than 96 characters) is the current
 * settings' one, so its timing row is not marked as of other parameters; after a `set` of M it
 * is, and setting M back clears the mark. The Error panel's extras are the run's own
 * (bound_max, over_bound...) formatted as `run` prints them. */
static void test_longman_run(void **state)
{
	char *use[] = {"M", "200", "repeat", "1", "warmup", "0"}, *other[] = {"M", "300"},
	     *back[] = {"M", "200"};
	char want[64];
	struct qx_err e;
	struct session *ls = calloc(1, sizeof *ls);
	struct dash_data *dd = calloc(1, sizeof *dd);
	(void)state;
	assert_true(ls && dd);
	session_init(ls);
	dash_init(dd);
	if (session_use(ls, "longman", &e) || session_set(ls, 6, use, &e) ||
	    session_run(ls, QX_CPU, &e))
		fail_msg("longman: %s", e.msg);
	dash_update(dd, ls);
	assert_true(strlen(dd->current) > 96);
	assert_string_equal(dd->timing[SLOT_CPU_SERIAL].config, dd->current);
	assert_string_equal(dd->error_of, dd->current);
	assert_false(dash_timing_other(dd, SLOT_CPU_SERIAL));
	assert_true(ls->last->nfigures >= 2);
	for (size_t i = 0; i < ls->last->nfigures; i++) {
		snprintf(want, sizeof want, "%s %.4g", ls->last->figure[i].name,
		         ls->last->figure[i].value);
		assert_non_null(strstr(dd->extras, want));
	}
	assert_non_null(strstr(dd->extras, "bound_max "));
	assert_non_null(strstr(dd->extras, "  over_bound "));
	assert_int_equal(session_set(ls, 2, other, &e), 0);
	dash_update(dd, ls);
	assert_true(dash_timing_other(dd, SLOT_CPU_SERIAL));
	assert_int_equal(session_set(ls, 2, back, &e), 0);
	dash_update(dd, ls);
	assert_false(dash_timing_other(dd, SLOT_CPU_SERIAL));
	session_free(ls);
	free(ls);
	free(dd);
}

/* The snapshot takes in the chart of a new result (a kde CPU run in 1-D: the result's copy,
 * whole) and drops it when the next new result has none (an expint run). */
static void test_chart_taken_in(void **state)
{
	struct qx_err e;
	struct session *cs = calloc(1, sizeof *cs);
	struct dash_data *dd = calloc(1, sizeof *dd);
	(void)state;
	assert_true(cs && dd);
	session_init(cs);
	dash_init(dd);
	if (session_use(cs, "kde", &e) ||
	    session_set_words(cs, "n 500 at grid G 64 repeat 1 warmup 0", &e) ||
	    session_run(cs, QX_CPU, &e))
		fail_msg("kde: %s", e.msg);
	dash_update(dd, cs);
	assert_non_null(cs->last->chart);
	assert_int_equal(dd->chart.nseries, 2);
	assert_memory_equal(&dd->chart, cs->last->chart, sizeof dd->chart);
	if (session_use(cs, "expint", &e) || session_set_words(cs, "n 2 m 3", &e) ||
	    session_run(cs, QX_CPU, &e))
		fail_msg("expint: %s", e.msg);
	dash_update(dd, cs);
	assert_null(cs->last->chart);
	assert_int_equal(dd->chart.nseries, 0);
	session_free(cs);
	free(cs);
	free(dd);
}

/* `use` another problem: the snapshot drops the first one's timings, sweep, chart and error
 * (none of them is the new problem's); back on the first, its last run comes back. */
static void test_use_clears_the_other_problem(void **state)
{
	struct qx_err e;
	struct session *cs = calloc(1, sizeof *cs);
	struct dash_data *dd = calloc(1, sizeof *dd);
	struct sweep plan;
	char *sweep_words[] = {"sweep", "G", "32,64", "on", "cpu"};
	(void)state;
	assert_true(cs && dd);
	session_init(cs);
	dash_init(dd);
	if (session_use(cs, "kde", &e) ||
	    session_set_words(cs, "n 500 at grid G 64 repeat 1 warmup 0 threads 1", &e) ||
	    session_run(cs, QX_CPU, &e) || sweep_plan(cs, 5, sweep_words, &plan, &e) ||
	    sweep_run(cs, &plan, NULL, &e))
		fail_msg("kde: %s", e.msg);
	dash_update(dd, cs);
	assert_true(dd->timing[SLOT_CPU_SERIAL].valid && dd->sweep.present);
	assert_int_equal(dd->chart.nseries, 2);
	assert_true(dd->error_of[0] != '\0');
	if (session_use(cs, "expint", &e))
		fail_msg("use: %s", e.msg);
	dash_update(dd, cs);
	assert_false(dd->timing[SLOT_CPU_SERIAL].valid);
	assert_false(dd->sweep.present);
	assert_int_equal(dd->chart.nseries, 0);
	assert_string_equal(dd->error_of, "");
	assert_string_equal(dd->extras, "");
	if (session_use(cs, "kde", &e))
		fail_msg("use: %s", e.msg);
	dash_update(dd, cs);
	assert_true(dd->timing[SLOT_CPU_SERIAL].valid && dd->sweep.present);
	assert_int_equal(dd->chart.nseries, 2);
	session_free(cs);
	free(cs);
	free(dd);
}

/* The extras line: name and value pairs two blanks apart, "" for none; a batch's integrals and
 * converged as "integrals 997/1000 converged". */
static void test_extras_line(void **state)
{
	const struct qx_figure x[3] = {{"bound_max", 3.4812e-15, QX_FIG_NUMBER},
	                               {"over_bound", 0, QX_FIG_NUMBER},
	                               {"euler", 5e4, QX_FIG_NUMBER}};
	/* a code is said in words elsewhere; a count is whole, a size in its unit */
	const struct qx_figure y[4] = {{"reason", 1, QX_FIG_CODE},
	                               {"regions", 26301, QX_FIG_COUNT},
	                               {"peak_MiB", 13312, QX_FIG_MIB},
	                               {"small_MiB", 0.5, QX_FIG_MIB}};
	char line[DASH_LINE];
	(void)state;
	dash_extras_line(line, sizeof line, x, 3);
	assert_string_equal(line, "bound_max 3.481e-15  over_bound 0  euler 5e+04");
	dash_extras_line(line, sizeof line, x, 0);
	assert_string_equal(line, "");
	dash_extras_line(line, sizeof line, y, 4);
	assert_string_equal(line, "regions 26301  peak 13.0 GiB  small 512.0 KiB");
	/* a batch: its integrals and how many converged, one piece first */
	const struct qx_figure b[4] = {{"integrals", 1000, QX_FIG_COUNT},
	                               {"converged", 997, QX_FIG_COUNT},
	                               {"worst_error_estimate", 2e-8, QX_FIG_NUMBER},
	                               {"regions", 4000, QX_FIG_COUNT}};
	dash_extras_line(line, sizeof line, b, 4);
	assert_string_equal(
	    line, "integrals 997/1000 converged  worst_error_estimate 2e-08  regions 4000");
	dash_extras_line(line, sizeof line, b + 1, 3); /* converged alone: a figure as any */
	assert_string_equal(line, "converged 997  worst_error_estimate 2e-08  regions 4000");
}

/* The answer of a run of one value: the value and its estimate, then the true error or that
 * no exact value is known; nothing for a run of many values. */
static void test_answer_line(void **state)
{
	struct run_result r = {
	    .has_answer = 1, .value = 0.0578210493, .estimate = 4.2e-8, .exact = 0.0578210490};
	char line[DASH_LINE];
	(void)state;
	dash_answer_line(line, sizeof line, &r);
	assert_string_equal(line, "value 0.0578210493 ± 4.2e-08 (estimate)  true error 3e-10");
	r.exact = NAN;
	dash_answer_line(line, sizeof line, &r);
	assert_string_equal(line, "value 0.0578210493 ± 4.2e-08 (estimate)  no exact value");
	r.has_answer = 0;
	dash_answer_line(line, sizeof line, &r);
	assert_string_equal(line, "");
}

/* F3 and F4 halve and double the block within what `set block` takes (its range comes from
 * the setting): a step past an end stops at it, and at the end itself they send nothing. */
static void test_block_key(void **state)
{
	static const struct {
		int block, up, sent;
		const char *line;
	} steps[] = {
	    {128, 0, 1, "set block 64"},
	    {128, 1, 1, "set block 256"},
	    {700, 1, 1, "set block 1024"},
	    {1024, 1, 0, "block is already 1024, the largest `set block` takes"},
	    {1024, 0, 1, "set block 512"},
	    {1, 0, 0, "block is already 1, the smallest `set block` takes"},
	    {1, 1, 1, "set block 2"},
	    {3, 0, 1, "set block 1"},
	};
	char line[DASH_LINE];
	(void)state;
	dash_update(&d, &s);
	assert_int_equal(d.block, 128);
	assert_int_equal(d.block_min, 1);
	assert_int_equal(d.block_max, 1024);
	for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
		d.block = steps[k].block;
		assert_int_equal(dash_block_key(&d, steps[k].up, line, sizeof line), steps[k].sent);
		assert_string_equal(line, steps[k].line);
	}
}

/* The rows a sweep panel shows: all when they fit; else the newest, the best row kept in place of
 * the oldest of them when it is older. */
static void test_sweep_visible(void **state)
{
	struct dash_sweep *sw = calloc(1, sizeof *sw);
	int idx[DASH_SWEEP_ROWS];
	(void)state;
	assert_non_null(sw);
	sw->nrows = 5;
	sw->best = 0;
	assert_int_equal(dash_sweep_visible(sw, 8, idx), 5);
	assert_int_equal(idx[0], 0);
	assert_int_equal(idx[4], 4);
	assert_int_equal(dash_sweep_visible(sw, 3, idx), 3);
	assert_int_equal(idx[0], 0); /* the best */
	assert_int_equal(idx[1], 3);
	assert_int_equal(idx[2], 4);
	assert_int_equal(dash_sweep_visible(sw, 1, idx), 1);
	assert_int_equal(idx[0], 0);
	sw->best = 3; /* already among the newest */
	assert_int_equal(dash_sweep_visible(sw, 2, idx), 2);
	assert_int_equal(idx[0], 3);
	assert_int_equal(idx[1], 4);
	sw->best = -1; /* no best: the newest */
	assert_int_equal(dash_sweep_visible(sw, 2, idx), 2);
	assert_int_equal(idx[0], 3);
	assert_int_equal(dash_sweep_visible(sw, 0, idx), 0);
	free(sw);
}

/* Returns the text of a Log panel row (a static buffer). */
static const char *row_text(const struct dash_log_row *v)
{
	static char text[DASH_LINE];
	snprintf(text, sizeof text, "%.*s", v->piece.len, v->line + v->piece.start);
	return text;
}

/* The Log panel's rows: long lines wrapped to the width, the newest rows at the bottom,
 * scrolling by wrapped rows and stopping with the oldest row at the top. */
static void test_log_view(void **state)
{
	static struct dash_log log;
	struct dash_log_row view[8];
	(void)state;
	dash_log_add(&log, "> set lambda 0\nerror: lambda must be > 0 (only j0 allows it)\nok");
	assert_int_equal(dash_log_rows(&log, 20), 5); /* 1 + 3 + 1 */
	assert_int_equal(dash_log_view(&log, 20, 0, 3, view), 3);
	assert_string_equal(row_text(&view[0]), "be > 0 (only j0");
	assert_string_equal(row_text(&view[1]), "allows it)");
	assert_string_equal(view[2].line, "ok");
	assert_int_equal(dash_log_view(&log, 20, 2, 3, view), 3); /* two rows back */
	assert_string_equal(view[0].line, "> set lambda 0");
	assert_string_equal(row_text(&view[2]), "be > 0 (only j0");
	assert_int_equal(dash_log_view(&log, 20, 9, 3, view), 3); /* past the oldest: stops */
	assert_string_equal(view[0].line, "> set lambda 0");
	assert_int_equal(dash_log_view(&log, 80, 0, 8, view), 3); /* shorter than the panel */
	assert_string_equal(view[1].line, "error: lambda must be > 0 (only j0 allows it)");
	assert_int_equal(view[1].piece.len, (int)strlen(view[1].line));
}

/* The compile phase: the compiler's and the linker's ms from the run's figures, whether the run
 * reused the session's code, nothing for a run that compiled nothing. */
static void test_compile_line(void **state)
{
	char buf[DASH_LINE];
	const struct qx_figure built[] = {{.name = "compile_ms", .value = 162.5},
	                                  {.name = "compile_cached", .value = 0},
	                                  {.name = "iterations", .value = 3}};
	const struct qx_figure linked[] = {{.name = "compile_ms", .value = 120},
	                                   {.name = "link_ms", .value = 310},
	                                   {.name = "compile_cached", .value = 1}};
	const struct qx_figure none[] = {{.name = "iterations", .value = 3}};
	(void)state;
	dash_compile_line(buf, sizeof buf, QX_CPU, built, 3);
	assert_string_equal(buf, "cpu compile 162 ms, before the run's time");
	dash_compile_line(buf, sizeof buf, QX_GPU, linked, 3);
	assert_string_equal(buf, "gpu compile 120 ms + link 310 ms (cached)");
	dash_compile_line(buf, sizeof buf, QX_CPU, none, 1);
	assert_string_equal(buf, "");
}

/* The live convergence chart: an adaptive run's reports become points (evaluations,
 * log10(err / target), 0 once under it), repeated reports add nothing, a new count starts
 * again, a full chart keeps every other point and the newest, and a report that is not an
 * adaptive run's ends it. */
static void test_converge_live(void **state)
{
	struct dash_converge c = {0};
	struct qx_progress p = {.total = 100000000, .gen = 7, .target = 1e-6};
	const struct qx_series *s = &c.chart.series[0];
	(void)state;
	p.err = 1e-2;
	assert_int_equal(dash_converge_add(&c, &p), 0); /* nothing done yet */
	assert_false(c.active);
	p.done = 1000;
	assert_int_equal(dash_converge_add(&c, &p), 1);
	assert_true(c.active && c.chart.nseries == 1 && s->npoints == 1);
	assert_true(s->x[0] == 1000 && fabs(s->y[0] - 4) < 1e-12);
	assert_int_equal(dash_converge_add(&c, &p), 0); /* the same report again */
	p.done = 3000;
	p.err = 1e-7; /* under where it stops: 0 */
	assert_int_equal(dash_converge_add(&c, &p), 1);
	assert_true(s->npoints == 2 && s->y[1] == 0);
	assert_string_equal(c.chart.xlabel, "evaluations");
	for (int i = 0; i < QX_CHART_POINTS; i++) {
		p.done += 10;
		p.err = 1e-3;
		dash_converge_add(&c, &p);
	}
	assert_true(s->npoints <= QX_CHART_POINTS && s->npoints > QX_CHART_POINTS / 2);
	assert_true(s->x[s->npoints - 1] == (double)p.done);
	for (int i = 1; i < s->npoints; i++)
		assert_true(s->x[i] > s->x[i - 1]);
	p.gen = 8; /* the next run */
	p.done = 500;
	assert_int_equal(dash_converge_add(&c, &p), 1);
	assert_true(s->npoints == 1 && s->x[0] == 500 && fabs(s->y[0] - 3) < 1e-12);
	p.target = NAN; /* a count of known total */
	assert_int_equal(dash_converge_add(&c, &p), 1);
	assert_false(c.active);
}

/* A GPU run over 3 GPUs is taken in with each GPU's phases (a copy: the result's own is freed
 * with it); the slowest (GPU 1) is marked '>' in the Timing and Device lines, which list the
 * total and the longest phases that fit the width, and the GPU's name cut to fit; a panel too
 * short for every GPU lists the slowest in place of the last; a run on one GPU has no list. */
static void test_gpus_of_a_run(void **state)
{
	double vals[6];
	struct run_result *r = calloc(1, sizeof *r);
	struct qx_timing per[3] = {fixture_timing(0.1, 0.2, 3.0, 0.5, 0.1, 4.0, 0),
	                           fixture_timing(0.1, 0.2, 4.5, 0.5, 0.1, 5.5, 0),
	                           fixture_timing(0.1, 0.2, 2.0, 0.4, 0.1, 2.9, 0)};
	char line[DASH_LINE];
	int idx[QX_MAX_GPUS];
	(void)state;
	assert_non_null(r);
	fixture_gpu_result(&s, r, vals, per[1], 2e-9);
	r->summary.gpus = 3;
	r->gpu_med = per;
	dash_update(&d, &s);
	r->gpu_med = NULL; /* as when the result is freed: the snapshot keeps its own copy */
	const struct dash_timing *t = &d.timing[SLOT_GPU];
	assert_int_equal(t->ngpus, 3);
	assert_true(t->gpu[2].total == 2.9 && qx_timing_ms(&t->gpu[1], "kernel") == 4.5);
	assert_int_equal(dash_gpu_slowest(t), 1);
	dash_gpu_timing_line(line, sizeof line, t, 1, 63);
	assert_string_equal(line,
	                    ">gpu1 5.5 ms  kernel 4.5  d2h 0.5  h2d 0.2  alloc 0.1  free 0.1");
	dash_gpu_timing_line(line, sizeof line, t, 0, 30);
	assert_string_equal(line, " gpu0 4 ms  kernel 3  d2h 0.5"); /* whole phases that fit */
	dash_gpu_timing_line(line, sizeof line, t, 2, 5);
	assert_string_equal(line, " gpu2");
	assert_int_equal(dash_gpu_visible(t, 5, idx), 3);
	assert_true(idx[0] == 0 && idx[1] == 1 && idx[2] == 2);
	assert_int_equal(dash_gpu_visible(t, 1, idx), 1);
	assert_int_equal(idx[0], 1); /* one row: the slowest */
	assert_int_equal(dash_gpu_visible(t, 0, idx), 0);

	d.ngpus = 3;
	for (int g = 0; g < 3; g++) {
		snprintf(d.gpus[g].name, DASH_GPU_NAME, "NVIDIA H100 80GB HBM3");
		d.gpus[g].sms = 132;
	}
	dash_gpu_device_line(line, sizeof line, &d, 1, 40);
	assert_string_equal(line, ">1 NVIDIA H100 80GB HBM3 5.5 ms");
	dash_gpu_device_line(line, sizeof line, &d, 0, 20);
	assert_string_equal(line, " 0 NVIDIA H100 4 ms");
	dash_gpu_device_line(line, sizeof line, &d, 2, 8);
	assert_string_equal(line, " 2 2.9 m");

	r->summary.gpus = 1; /* a run on one GPU: no list, the Device lines give each GPU's SMs */
	r->summary.med.total = 5.4;
	dash_update(&d, &s);
	assert_int_equal(d.timing[SLOT_GPU].ngpus, 0);
	assert_int_equal(dash_gpu_slowest(&d.timing[SLOT_GPU]), -1);
	dash_gpu_timing_line(line, sizeof line, &d.timing[SLOT_GPU], 0, 60);
	assert_string_equal(line, "");
	dash_gpu_device_line(line, sizeof line, &d, 1, 40);
	assert_string_equal(line, " 1 NVIDIA H100 80GB HBM3 132 SMs");
	d.ngpus = 0;
	s.last = NULL;
	s.last_values = NULL;
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_settings),
	    cmocka_unit_test(test_cpu_scaling),
	    cmocka_unit_test(test_gpu_result),
	    cmocka_unit_test(test_device_lines),
	    cmocka_unit_test(test_sweep_observed),
	    cmocka_unit_test(test_sweep_lines),
	    cmocka_unit_test(test_longman_run),
	    cmocka_unit_test(test_extras_line),
	    cmocka_unit_test(test_answer_line),
	    cmocka_unit_test(test_use_clears_the_other_problem),
	    cmocka_unit_test(test_block_key),
	    cmocka_unit_test(test_sweep_visible),
	    cmocka_unit_test(test_log_view),
	    cmocka_unit_test(test_chart_taken_in),
	    cmocka_unit_test(test_compile_line),
	    cmocka_unit_test(test_converge_live),
	    cmocka_unit_test(test_gpus_of_a_run),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
