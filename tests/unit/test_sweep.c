/* test_sweep.c - sweeps without running anything: range and list parsing, planning against a
 * session (axes, defaults, errors), best selection, the text table, the CSV/JSON rows, the
 * gnuplot data and the atomic file write. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "../../src/export.h"
#include "../../src/output.h"
#include "../../src/plot.h"
#include "../../src/sweep.h"

/* Parses spec into words and checks them against the expected NULL-terminated list. */
static void expect_values(const char *spec, const char *const *want)
{
	char words[SWEEP_MAX_VALUES][SWEEP_WORD];
	struct qx_err e = {""};
	int n = sweep_parse_values(spec, words, SWEEP_MAX_VALUES, &e);
	int k = 0;
	assert_true(n >= 0);
	for (; want[k]; k++) {
		assert_true(k < n);
		assert_string_equal(words[k], want[k]);
	}
	assert_int_equal(n, k);
}

/* Parses spec, expecting an error that contains part. */
static void expect_error(const char *spec, const char *part)
{
	char words[SWEEP_MAX_VALUES][SWEEP_WORD];
	struct qx_err e = {""};
	assert_int_equal(sweep_parse_values(spec, words, SWEEP_MAX_VALUES, &e), -1);
	if (!strstr(e.msg, part))
		fail_msg("error for '%s' is '%s', expected to contain '%s'", spec, e.msg, part);
}

/* Powers of two between A and B, steps, factors and lists. */
static void test_parse_values(void **state)
{
	(void)state;
	expect_values("32..1024", (const char *[]){"32", "64", "128", "256", "512", "1024", NULL});
	expect_values("2..10", (const char *[]){"2", "4", "8", NULL});
	expect_values("3..7", (const char *[]){"4", NULL});
	expect_values("1000..5000:1000",
	              (const char *[]){"1000", "2000", "3000", "4000", "5000", NULL});
	expect_values("1000..4500:1000", (const char *[]){"1000", "2000", "3000", "4000", NULL});
	expect_values("1000..16000:x2",
	              (const char *[]){"1000", "2000", "4000", "8000", "16000", NULL});
	expect_values("0.1..0.3:0.1", (const char *[]){"0.1", "0.2", "0.3", NULL});
	expect_values("5..5:1", (const char *[]){"5", NULL});
	expect_values("fast,shared", (const char *[]){"fast", "shared", NULL});
	expect_values("7", (const char *[]){"7", NULL});
}

/* Every malformed spec is refused with a message naming what is wrong. */
static void test_parse_errors(void **state)
{
	(void)state;
	expect_error("1024..32", "A = 1024 is above B = 32");
	expect_error("5..7", "no power of two");
	expect_error("1..10:0", "step must be above 0");
	expect_error("1..10:-2", "step must be above 0");
	expect_error("1..10:x1", "factor above 1");
	expect_error("0..10:x2", "A above 0");
	expect_error("a..10", "must be numbers");
	expect_error("1..b", "must be numbers");
	expect_error("1..10:s", "must be numbers");
	expect_error("1..1000:1", "more than 64 values");
	expect_error("1,,2", "empty value");
	expect_error(",", "empty value");
	expect_error("1,2,", "empty value");
	expect_error("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "longer than");
}

/* Plans: axes, implied choices, backends, and the errors of bad commands. */
static void test_plan(void **state)
{
	static struct session s;
	struct sweep plan;
	struct qx_err e = {""};
	(void)state;
	session_init(&s);
	char *a1[] = {"sweep", "block", "32..128"};
	assert_int_equal(sweep_plan(&s, 3, a1, &plan, &e), 0);
	assert_int_equal(plan.naxes, 1);
	assert_string_equal(plan.axes[0].name, "block");
	assert_int_equal(plan.axes[0].nvalues, 3);
	assert_int_equal(plan.backends, QX_ON_GPU);

	char *a2[] = {"sweep", "variant", "block", "64,256"};
	assert_int_equal(sweep_plan(&s, 4, a2, &plan, &e), 0);
	assert_int_equal(plan.naxes, 2);
	assert_int_equal(plan.axes[0].nvalues, 5); /* every GPU variant of expint; not gsl */
	for (int i = 0; i < plan.axes[0].nvalues; i++)
		assert_string_not_equal(plan.axes[0].values[i], "gsl");
	assert_int_equal(plan.axes[1].nvalues, 2);

	char *a3[] = {"sweep", "variant", "on", "cpu"};
	assert_int_equal(sweep_plan(&s, 4, a3, &plan, &e), 0);
	assert_int_equal(plan.backends, QX_ON_CPU);
	assert_int_equal(plan.axes[0].nvalues, 3); /* fast, coursework, gsl */

	char *a4[] = {"sweep", "size", "n", "1000..4000:1000", "precision", "on", "both"};
	assert_int_equal(sweep_plan(&s, 7, a4, &plan, &e), 0);
	assert_string_equal(plan.axes[0].name, "n");
	assert_int_equal(plan.axes[1].nvalues, 2);
	assert_int_equal(plan.backends, QX_ON_CPU | QX_ON_GPU);

	struct {
		int argc;
		char *argv[8];
		const char *part;
	} bad[] = {
	    {2, {"sweep", "frob"}, "unknown axis 'frob'"},
	    {2, {"sweep", "n"}, "axis 'n' needs values"},
	    {3, {"sweep", "n", "0,5"}, "bad value '0' for n"},
	    {4, {"sweep", "block", "64", "on"}, "'on' takes one word"},
	    {5, {"sweep", "block", "64", "on", "tpu"}, "bad backend 'tpu'"},
	    {5, {"sweep", "block", "64", "on", "cpu"}, "only changes GPU runs"},
	    {5, {"sweep", "block", "64", "on", "both"}, NULL},
	    {5, {"sweep", "n", "1", "n", "2"}, "axis 'n' given twice"},
	    {7, {"sweep", "n", "1", "m", "2", "a", "0"}, "at most 2 axes"},
	    {3, {"sweep", "variant", "shared"}, NULL},
	    {5, {"sweep", "variant", "shared", "on", "cpu"}, "variant shared has no cpu"},
	    {3, {"sweep", "a", "5,20"}, "a must be less than b (a = 20, b = 10)"},
	    {5, {"sweep", "n", "1..64:1", "m", "1..64:1"}, "4096 configurations"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		e.msg[0] = '\0';
		const int rc = sweep_plan(&s, bad[i].argc, bad[i].argv, &plan, &e);
		if (!bad[i].part) {
			assert_int_equal(rc, 0);
			continue;
		}
		assert_int_equal(rc, -1);
		if (!strstr(e.msg, bad[i].part))
			fail_msg("case %zu: '%s' lacks '%s'", i, e.msg, bad[i].part);
	}
	assert_int_equal(session_setting(&s, S_BLOCK), 256); /* planning changes nothing */
	session_free(&s);
}

/* A row that ran with total t ms, max_rel err and over points over the threshold. */
static struct sweep_row row(const char *value, enum qx_backend b, int ok, double t, size_t over)
{
	struct sweep_row r;
	memset(&r, 0, sizeof r);
	snprintf(r.values[0], SWEEP_WORD, "%s", value);
	r.summary.backend = b;
	r.ok = ok;
	r.summary.med.total = t;
	r.summary.evals_per_s = ok ? 1e6 / t : 0;
	r.summary.work_per_s = ok ? 3e6 / t : 0;
	r.summary.min.total = t * 0.9;
	r.summary.max.total = t * 1.2;
	r.has_error = 1;
	r.over = over;
	r.max_rel = over ? 1e-3 : 1e-7;
	r.summary.block = atoi(value);
	r.speedup = NAN;
	r.summary.nsamples = 3;
	if (!ok)
		snprintf(r.error, sizeof r.error, "too many resources requested, for launch");
	return r;
}

/* Best: the correct row of highest throughput; a faster row with points over the threshold or
 * a failed one never wins; with no correct row, the fastest that ran; none when nothing ran. */
static void test_pick_best(void **state)
{
	struct sweep_row rows[4] = {row("32", QX_GPU, 1, 5.0, 0), row("64", QX_GPU, 1, 2.0, 3),
	                            row("128", QX_GPU, 0, 0.5, 0), row("256", QX_GPU, 1, 3.0, 0)};
	(void)state;
	assert_int_equal(sweep_pick_best(rows, 4), 3);
	assert_true(rows[3].best && !rows[0].best && !rows[1].best && !rows[2].best);
	rows[3].over = rows[0].over = 1;
	assert_int_equal(sweep_pick_best(rows, 4), 1);
	rows[0].ok = rows[1].ok = rows[3].ok = 0;
	assert_int_equal(sweep_pick_best(rows, 4), -1);
	assert_false(rows[0].best || rows[1].best || rows[2].best || rows[3].best);
}

/* A finished two-row sweep over block (one failed row) for the table, export and plot tests. */
static void fake_sweep(struct sweep *sw, struct sweep_row *rows)
{
	memset(sw, 0, sizeof *sw);
	sw->prob = problem_find("expint");
	sw->naxes = 1;
	snprintf(sw->axes[0].name, SWEEP_WORD, "block");
	sw->axes[0].nvalues = 3;
	snprintf(sw->axes[0].values[0], SWEEP_WORD, "64");
	snprintf(sw->axes[0].values[1], SWEEP_WORD, "128");
	snprintf(sw->axes[0].values[2], SWEEP_WORD, "1024");
	snprintf(sw->device, sizeof sw->device, "Test GPU");
	rows[0] = row("64", QX_GPU, 1, 4.0, 0);
	rows[1] = row("128", QX_GPU, 1, 2.0, 0);
	rows[1].has_occupancy = 1;
	rows[1].occ = (struct gpu_occupancy){128, 40, 12, 0.75, 768, 0};
	for (int i = 0; i < 2; i++) /* the GPU's phases, all 0 ms */
		for (int k = 0; sw->prob->phases[k]; k++) {
			qx_timing_add(&rows[i].summary.med, sw->prob->phases[k], 0, 0);
			qx_timing_add(&rows[i].summary.min, sw->prob->phases[k], 0, 0);
			qx_timing_add(&rows[i].summary.max, sw->prob->phases[k], 0, 0);
		}
	rows[1].summary.med.phase[qx_timing_find(&rows[1].summary.med, "kernel")].ms = 1.5;
	rows[1].summary.min.phase[qx_timing_find(&rows[1].summary.min, "kernel")].ms = 1.25;
	rows[1].summary.max.phase[qx_timing_find(&rows[1].summary.max, "kernel")].ms = 2;
	rows[1].summary.max.phase[qx_timing_find(&rows[1].summary.max, "d2h")].ms = 0.5;
	rows[1].summary.warmup = 2;
	for (size_t k = 0; k < sw->prob->nparams; k++)
		sw->params[k] = param_default(&sw->prob->params[k]);
	rows[2] = row("1024", QX_GPU, 0, 0, 0);
	sw->rows = rows;
	sw->nrows = 3;
	sw->best = sweep_pick_best(rows, 3);
}

/* What sw prints as a table (what 0), gnuplot data (1), a script drawing $d into x.png (2) or
 * one drawing 'x.dat' into x.svg with error bars (3); a malloc'd string. */
static char *text_of(const struct sweep *sw, int what)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_non_null(f);
	if (what == 0)
		output_sweep_table(sw, f, 200);
	else if (what == 1)
		assert_true(plot_write_data(sw, f) >= 1);
	else if (what == 2)
		plot_write_script(sw, "$d", "x.png", 0, f);
	else
		plot_write_script(sw, "'x.dat'", "x.svg", 1, f);
	fclose(f);
	return text;
}

/* The table marks the best row, shows the occupancy and the failure, names the best and prints
 * a run's note under it. */
static void test_table(void **state)
{
	struct sweep sw;
	struct sweep_row rows[3];
	char *text;
	(void)state;
	fake_sweep(&sw, rows);
	rows[0].note = "not converged: maxeval reached";
	text = text_of(&sw, 0);
	/* a run's note is printed under the table, naming its row */
	assert_non_null(strstr(text, "\nnote: block=64 gpu: not converged: maxeval reached\n"));
	assert_null(strstr(text, "note: block=128"));
	assert_non_null(strstr(text, "gpu Test GPU"));
	assert_non_null(strstr(text, "\n* 128   gpu"));
	assert_non_null(strstr(text, "\n  64    gpu"));
	assert_non_null(strstr(text, "   40     12   75%   768 "));
	assert_non_null(strstr(text, "1024  gpu  failed: too many resources requested"));
	assert_non_null(
	    strstr(text, "best: block=128 on gpu, 2 ms (set block best takes block 128)"));
	/* every GPU phase with its spread, the failed row left out */
	assert_non_null(strstr(text, "gpu phases in ms, median [min, max]:\n  block  alloc"));
	assert_non_null(strstr(text, "\n* 128    0 [0, 0]"));
	assert_non_null(strstr(text, " 1.5 [1.25, 2] "));
	assert_non_null(strstr(text, " 0 [0, 0.5] "));
	assert_null(strstr(strstr(text, "gpu phases"), "\n  1024"));
	free(text);
}

/* At 80 columns the GPU table is printed in blocks of whole columns, each line at most 80
 * wide, each block starting with the axis and backend columns; the failure is printed once,
 * in the first block; the phase table is split the same way. */
static void test_table_fits_80_columns(void **state)
{
	struct sweep sw;
	struct sweep_row rows[3];
	char *text = NULL, *line;
	size_t len = 0;
	int blocks = 0;
	FILE *f = open_memstream(&text, &len);
	(void)state;
	fake_sweep(&sw, rows);
	assert_non_null(f);
	output_sweep_table(&sw, f, 80);
	fclose(f);
	for (line = text; *line; line = strchr(line, '\n') + 1) {
		const int n = (int)strcspn(line, "\n");
		if (n > 80)
			fail_msg("a line of %d characters: %.*s", n, n, line);
		blocks += strncmp(line, "  block on ", 11) == 0;
	}
	assert_int_equal(blocks, 2);
	assert_non_null(strstr(text, "  block on     total ms"));  /* the first block */
	assert_non_null(strstr(text, "   40     12   75%   768")); /* occupancy in a later one */
	assert_non_null(strstr(text, "1024  gpu  failed: too many resources requested"));
	assert_null(strstr(strstr(text, "failed:") + 1, "failed:"));
	assert_non_null(strstr(text, "\n* 128    1.5 [1.25, 2] ")); /* kernel in a later block */
	free(text);
}

/* CSV rows quote a failure's commas; JSON rows carry config, occupancy and the best flag. */
static void test_rows_csv_json(void **state)
{
	struct sweep sw;
	struct sweep_row rows[3];
	char header[4096], line[4096];
	(void)state;
	fake_sweep(&sw, rows);
	output_sweep_row_csv(&sw, &rows[1], header, line, sizeof line);
	assert_int_equal(strncmp(header, "type,config_block,backend,ok,best,precision,", 44), 0);
	assert_int_equal(strncmp(line, "sweep,128,gpu,1,1,float,fast,128,", 33), 0);
	assert_non_null(strstr(line, ",40,12,0.75,768,"));
	/* warm-up, every phase's min and max, problem, device and base parameters */
	assert_non_null(strstr(header, ",error,warmup,alloc_min_ms,alloc_max_ms,h2d_min_ms,"));
	assert_non_null(strstr(header, ",kernel_min_ms,kernel_max_ms,d2h_min_ms,d2h_max_ms,"));
	assert_non_null(strstr(header, ",problem,device,base_n,base_m,base_a,base_b,base_iters"));
	assert_non_null(strstr(line, ",,2,0,0,0,0,1.25,2,0,0.5,0,0,expint,Test GPU,10,10,0,10,"));
	output_sweep_row_csv(&sw, &rows[2], header, line, sizeof line);
	assert_non_null(strstr(line, ",\"too many resources requested, for launch\""));
	cJSON *obj = output_sweep_row_json(&sw, &rows[1]);
	const cJSON *block = cJSON_GetObjectItem(cJSON_GetObjectItem(obj, "config"), "block");
	assert_true(cJSON_IsNumber(block) && block->valuedouble == 128); /* a number, not "128" */
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(obj, "best")));
	assert_int_equal(
	    cJSON_GetObjectItem(cJSON_GetObjectItem(obj, "occupancy"), "blocks_per_sm")->valueint,
	    12);
	assert_true(
	    cJSON_GetObjectItem(cJSON_GetObjectItem(obj, "time_ms"), "total")->valuedouble == 2.0);
	assert_null(cJSON_GetObjectItem(obj, "note"));
	cJSON_Delete(obj);
	rows[1].note = "not converged: maxeval reached";
	obj = output_sweep_row_json(&sw, &rows[1]);
	assert_string_equal(cJSON_GetObjectItem(obj, "note")->valuestring, rows[1].note);
	cJSON_Delete(obj);
}

/* A sweep of runs of one value carries each row's answer: the table's value, estimate, true
 * error ("no exact" where no exact value is known, never 0) and converged columns, and the
 * same figures in the JSON (null where unknown) and CSV rows (empty); a sweep of runs of many
 * values has none of them. */
static void test_rows_answer(void **state)
{
	struct sweep sw;
	struct sweep_row rows[3];
	char header[4096], line[4096];
	(void)state;
	fake_sweep(&sw, rows);
	char *text = text_of(&sw, 0);
	assert_null(strstr(text, "value"));
	assert_null(strstr(text, "converged"));
	free(text);
	output_sweep_row_csv(&sw, &rows[0], header, line, sizeof line);
	assert_null(strstr(header, "value"));
	cJSON *obj = output_sweep_row_json(&sw, &rows[0]);
	assert_null(cJSON_GetObjectItem(obj, "value"));
	assert_null(cJSON_GetObjectItem(obj, "converged"));
	cJSON_Delete(obj);
	for (int i = 0; i < 2; i++) {
		rows[i].has_answer = 1;
		rows[i].value = 0.25 + i;
		rows[i].estimate = 1e-9;
		rows[i].converged = i;
		rows[i].work = 1500 + 1000 * i;
		rows[i].note = i ? "converged (tolerance met)" : "not converged: maxeval reached";
	}
	rows[0].exact = 0.25 + 3e-10; /* compared: a true error of 3e-10 */
	rows[1].exact = NAN;          /* none known */
	rows[1].has_error = 0;
	rows[1].no_exact = 1;
	text = text_of(&sw, 0);
	char head[96];
	snprintf(head, sizeof head, " value estimate true err converged %s ", sw.prob->work_unit);
	assert_non_null(strstr(text, head));
	assert_non_null(strstr(text, "no         1500 "));
	assert_non_null(strstr(text, "\n  64    gpu   0.25    1e-09    3e-10 no  "));
	assert_non_null(strstr(text, "\n* 128   gpu   1.25    1e-09 no exact yes "));
	assert_non_null(strstr(text, "\nnote: block=128 gpu: converged (tolerance met)\n"));
	free(text);
	obj = output_sweep_row_json(&sw, &rows[1]);
	assert_true(cJSON_GetObjectItem(obj, "value")->valuedouble == 1.25);
	assert_true(cJSON_GetObjectItem(obj, "error_estimate")->valuedouble == 1e-9);
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(obj, "exact")));
	assert_true(cJSON_IsNull(cJSON_GetObjectItem(obj, "true_error")));
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(obj, "converged")));
	assert_string_equal(cJSON_GetObjectItem(obj, "note")->valuestring,
	                    "converged (tolerance met)");
	cJSON_Delete(obj);
	obj = output_sweep_row_json(&sw, &rows[0]);
	assert_true(fabs(cJSON_GetObjectItem(obj, "true_error")->valuedouble - 3e-10) < 1e-16);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(obj, "converged")));
	cJSON_Delete(obj);
	output_sweep_row_csv(&sw, &rows[1], header, line, sizeof line);
	assert_non_null(strstr(header, ",over_threshold,value,error_estimate,exact,true_error,"
	                               "converged,work,note,error,"));
	assert_non_null(strstr(line, ",1.25,1e-09,,,1,2500,converged (tolerance met),,"));
	output_sweep_row_csv(&sw, &rows[2], header, line, sizeof line); /* failed: all empty */
	assert_non_null(strstr(header, ",value,error_estimate,"));
	assert_non_null(strstr(line, ",,,,,,,,\"too many resources requested, for launch\""));
}

/* The gnuplot data holds the successful rows only, with x, label, median, min and max; the
 * script draws into the image with a log2 x axis for powers of two. */
static void test_plot_text(void **state)
{
	struct sweep sw;
	struct sweep_row rows[3];
	char *text;
	(void)state;
	fake_sweep(&sw, rows);
	text = text_of(&sw, 1);
	assert_non_null(
	    strstr(text, "\n64 \"64\" 4 3.6 4.8 NaN NaN\n128 \"128\" 2 1.8 2.4 NaN NaN\n"));
	assert_null(strstr(text, "1024"));
	free(text);
	text = text_of(&sw, 3);
	assert_non_null(strstr(text, "set terminal svg"));
	assert_non_null(strstr(text, "set output 'x.svg'"));
	assert_non_null(strstr(text, "set logscale x 2"));
	/* room beside the first and last x, so that their min..max bars clear the frame */
	assert_non_null(strstr(text, "set offsets graph 0.04, graph 0.04, 0, 0\n"));
	assert_non_null(
	    strstr(text, "'x.dat' index 0 using 1:3:4:5 with yerrorlines title \"gpu\""));
	free(text);
}

/* Tolerances spanning two decades or more (1e-3, 1e-5, 1e-7) go on a log10 x axis in
 * e-notation, as the seed's Figure 2 drew them, not on log2; values within a decade stay
 * linear. */
static void test_plot_decades(void **state)
{
	struct sweep sw;
	struct sweep_row rows[3];
	char *text;
	static const char *const rel[3] = {"1e-3", "1e-5", "1e-7"};
	(void)state;
	fake_sweep(&sw, rows);
	snprintf(sw.axes[0].name, SWEEP_WORD, "rel");
	for (int i = 0; i < 3; i++) {
		snprintf(sw.axes[0].values[i], SWEEP_WORD, "%s", rel[i]);
		snprintf(rows[i].values[0], SWEEP_WORD, "%s", rel[i]);
	}
	text = text_of(&sw, 3);
	assert_non_null(strstr(text, "set logscale x 10\nset format x '%.0e'\n"));
	assert_null(strstr(text, "set logscale x 2"));
	free(text);
	snprintf(sw.axes[0].values[1], SWEEP_WORD, "2e-3"); /* under two decades: linear */
	snprintf(sw.axes[0].values[2], SWEEP_WORD, "5e-3");
	text = text_of(&sw, 3);
	assert_null(strstr(text, "set logscale x"));
	free(text);
}

/* The speedup panel draws only the series that have a speedup (the GPU's, not the CPU's). */
static void test_plot_speedup_panel(void **state)
{
	struct sweep sw;
	struct sweep_row rows[3];
	char *text;
	(void)state;
	fake_sweep(&sw, rows);
	rows[0].summary.backend = QX_CPU;
	rows[1].speedup = 3;
	text = text_of(&sw, 2);
	assert_non_null(strstr(text, "set terminal pngcairo"));
	assert_non_null(strstr(text, "set multiplot layout 4,1"));
	assert_non_null(strstr(text, "plot $d index 1 using 1:6 with linespoints title \"gpu\"\n"));
	assert_null(strstr(text, "index 0 using 1:6"));
	free(text);
}

/* A sweep over block: each row's speedup against the smallest block of its series and its
 * efficiency (speedup / block), the seed's three tables, and the plot's two panels of them. */
static void test_block_scaling(void **state)
{
	struct sweep sw;
	struct sweep_row rows[3];
	double eff;
	char *text;
	(void)state;
	fake_sweep(&sw, rows);
	assert_int_equal(sweep_block_axis(&sw), 0);
	assert_true(sweep_block_speedup(&sw, 0, &eff) == 1 && eff == 1.0 / 64);
	assert_true(sweep_block_speedup(&sw, 1, &eff) == 2 && eff == 2.0 / 128);
	assert_true(isnan(sweep_block_speedup(&sw, 2, &eff)) && isnan(eff)); /* failed */
	text = text_of(&sw, 0);
	assert_non_null(strstr(text, "speedup vs the smallest block (rows: -, columns: block)"));
	assert_non_null(strstr(text, "\n       gpu        1       2       -\n"));
	assert_non_null(strstr(text, "efficiency = speedup / block"));
	assert_non_null(strstr(text, "\n       gpu   0.0156  0.0156       -\n"));
	free(text);
	text = text_of(&sw, 1);
	assert_non_null(strstr(text, "# block label speedup efficiency\n64 \"64\" 1 0.015625\n"
	                             "128 \"128\" 2 0.015625\n"));
	free(text);
	text = text_of(&sw, 2);
	assert_non_null(strstr(text, "set multiplot layout 3,1"));
	assert_non_null(strstr(text, "plot $d index 1 using 1:3 with linespoints title \"= gpu\""));
	assert_non_null(strstr(text, "plot $d index 1 using 1:4 with linespoints"));
	free(text);
	sw.axes[0].name[0] = 'x'; /* not a block axis: none of it */
	assert_int_equal(sweep_block_axis(&sw), -1);
	assert_true(isnan(sweep_block_speedup(&sw, 1, &eff)));
	text = text_of(&sw, 0);
	assert_null(strstr(text, "smallest block"));
	free(text);
}

/* A finished sweep of longman over gpus (values words, totals ms; a NULL-ended list), with one
 * CPU row of the same configuration first: the scaling tests' rows. */
static void fake_gpus_sweep(struct sweep *sw, struct sweep_row *rows, const char *const *values,
                            const double *ms)
{
	memset(sw, 0, sizeof *sw);
	sw->prob = problem_find("longman");
	sw->naxes = 1;
	snprintf(sw->axes[0].name, SWEEP_WORD, "gpus");
	snprintf(sw->device, sizeof sw->device, "Test GPU");
	rows[0] = row(values[0], QX_CPU, 1, 1000.0, 0);
	rows[0].summary.gpus = 1;
	sw->nrows = 1;
	for (int i = 0; values[i]; i++, sw->nrows++) {
		snprintf(sw->axes[0].values[i], SWEEP_WORD, "%s", values[i]);
		sw->axes[0].nvalues++;
		rows[sw->nrows] = row(values[i], QX_GPU, ms[i] > 0, ms[i], 0);
		rows[sw->nrows].summary.gpus = ms[i] > 0 ? atoi(values[i]) : 0;
		rows[sw->nrows].summary.block = 256;
	}
	for (size_t k = 0; k < sw->prob->nparams; k++)
		sw->params[k] = param_default(&sw->prob->params[k]);
	sw->rows = rows;
	sw->best = sweep_pick_best(rows, sw->nrows);
}

/* A sweep over gpus: each GPU row's speedup against its 1-GPU row, efficiency = speedup / GPUs
 * (the CPU row and a failed row have none), the scaling table, the JSON and CSV fields and the
 * plot's panels; without a 1-GPU row the speedup is against the fewest GPUs and says so. */
static void test_gpus_scaling(void **state)
{
	struct sweep sw;
	struct sweep_row rows[5];
	double eff;
	int base;
	char *text, header[4096], line[4096];
	(void)state;
	fake_gpus_sweep(&sw, rows, (const char *[]){"1", "2", "4", "8", NULL},
	                (const double[]){12.0, 6.4, 4.0, 0});
	assert_int_equal(sweep_gpus_axis(&sw), 0);
	assert_true(isnan(sweep_gpus_speedup(&sw, 0, &eff, &base)) && isnan(eff) && base == 0);
	assert_true(sweep_gpus_speedup(&sw, 1, &eff, &base) == 1 && eff == 1 && base == 1);
	assert_true(sweep_gpus_speedup(&sw, 2, &eff, &base) == 12.0 / 6.4 && base == 1);
	assert_true(eff == 12.0 / 6.4 / 2);
	assert_true(sweep_gpus_speedup(&sw, 3, &eff, &base) == 3 && eff == 0.75 && base == 1);
	assert_true(isnan(sweep_gpus_speedup(&sw, 4, &eff, &base)) && isnan(eff)); /* failed */
	text = text_of(&sw, 0);
	assert_non_null(strstr(text, "GPU scaling: speedup = time on 1 GPU / time on N GPUs, "
	                             "efficiency = speedup / N\n"));
	assert_non_null(strstr(text, "\n               1         12   1.000x      1.000\n"));
	assert_non_null(strstr(text, "\n               2        6.4   1.875x      0.938\n"));
	assert_non_null(strstr(text, "\n               4          4   3.000x      0.750\n"));
	assert_non_null(strstr(text, "\n               8 failed: too many resources"));
	assert_null(strstr(text, "no 1-GPU row"));
	free(text);
	cJSON *obj = output_sweep_row_json(&sw, &rows[3]);
	const cJSON *sc = cJSON_GetObjectItem(obj, "gpu_scaling");
	assert_non_null(sc);
	assert_true(cJSON_GetObjectItem(sc, "gpus")->valuedouble == 4);
	assert_true(cJSON_GetObjectItem(sc, "base_gpus")->valuedouble == 1);
	assert_true(cJSON_GetObjectItem(sc, "speedup")->valuedouble == 3);
	assert_true(cJSON_GetObjectItem(sc, "efficiency")->valuedouble == 0.75);
	cJSON_Delete(obj);
	obj = output_sweep_row_json(&sw, &rows[0]); /* the CPU row has no GPU scaling */
	assert_null(cJSON_GetObjectItem(obj, "gpu_scaling"));
	cJSON_Delete(obj);
	output_sweep_row_csv(&sw, &rows[3], header, line, sizeof line);
	assert_non_null(strstr(header, ",gpus,gpus_base,gpus_speedup,gpus_efficiency"));
	assert_non_null(strstr(line, ",4,1,3,0.75"));
	output_sweep_row_csv(&sw, &rows[0], header, line, sizeof line);
	assert_non_null(strstr(line, ",,,,"));
	text = text_of(&sw, 2);
	assert_non_null(strstr(text, "longman: speedup against 1 GPU'"));
	assert_non_null(strstr(text, "longman: efficiency = speedup / GPUs'"));
	assert_non_null(strstr(text, "set xlabel 'GPUs'"));
	free(text);
	text = text_of(&sw, 1);
	assert_non_null(strstr(text, "# gpus label speedup efficiency\n1 \"1\" 1 1\n"));
	assert_non_null(strstr(text, "4 \"4\" 3 0.75\n"));
	free(text);

	/* no 1-GPU row: against the fewest (2), efficiency = speedup x 2 / GPUs, labelled */
	fake_gpus_sweep(&sw, rows, (const char *[]){"2", "4", NULL}, (const double[]){6.0, 4.0});
	assert_true(sweep_gpus_speedup(&sw, 2, &eff, &base) == 1.5 && base == 2 && eff == 0.75);
	text = text_of(&sw, 0);
	assert_non_null(strstr(text, "no 1-GPU row, so speedup = time on the fewest GPUs (2)"));
	assert_non_null(strstr(text, "efficiency = speedup x 2 / N"));
	assert_non_null(strstr(text, "speedup*"));
	assert_non_null(strstr(text, "* against 2 GPUs"));
	free(text);
	text = text_of(&sw, 2);
	assert_non_null(strstr(text, "speedup against 2 GPUs (no 1-GPU run)"));
	free(text);

	/* the word "all" stands for the count the row ran on */
	snprintf(rows[2].values[0], SWEEP_WORD, "all");
	assert_true(sweep_gpus_speedup(&sw, 2, &eff, &base) == 1.5 && eff == 0.75);
	sw.axes[0].name[0] = 'x'; /* not a gpus axis: no scaling */
	assert_true(isnan(sweep_gpus_speedup(&sw, 2, &eff, &base)));
	text = text_of(&sw, 0);
	assert_null(strstr(text, "GPU scaling"));
	free(text);
}

/* `sweep gpus` over more GPUs than the host has, or on a host without one, is refused before
 * anything runs, naming the count; `sweep gpus 1` plans; gpus 2 of a problem that runs on one
 * GPU is refused naming it. */
static void test_plan_gpus(void **state)
{
	static struct session s;
	struct sweep plan;
	struct qx_err e = {""}, why;
	int have = 0;
	(void)state;
	session_init(&s);
	if (gpu_count(&have, &why))
		have = 0;
	char *one[] = {"sweep", "gpus", "1"};
	assert_int_equal(sweep_plan(&s, 3, one, &plan, &e), 0);
	assert_int_equal(plan.backends, QX_ON_GPU);
	char *over[] = {"sweep", "gpus", "1,17"};
	assert_int_equal(sweep_plan(&s, 3, over, &plan, &e), -1);
	assert_non_null(strstr(e.msg, "bad value '17' for gpus"));
	char *two[] = {"sweep", "gpus", "1,2"}, *all[] = {"sweep", "gpus", "all"};
	if (have < 2) {
		assert_int_equal(sweep_plan(&s, 3, two, &plan, &e), -1);
		if (!strstr(e.msg, "sweep: gpus 2 refused: "))
			fail_msg("'%s'", e.msg);
	}
	if (have == 0) {
		assert_int_equal(sweep_plan(&s, 3, all, &plan, &e), -1);
		assert_non_null(strstr(e.msg, "sweep: gpus all refused: there is no GPU"));
		assert_int_equal(sweep_plan(&s, 2, all, &plan, &e), -1); /* no values: all */
		assert_non_null(strstr(e.msg, "sweep: gpus all refused: there is no GPU"));
	} else {
		assert_int_equal(sweep_plan(&s, 3, all, &plan, &e), 0);
		assert_int_equal(plan.axes[0].nvalues, have);
		char last[SWEEP_WORD];
		snprintf(last, sizeof last, "%d", have);
		assert_string_equal(plan.axes[0].values[have - 1], last);
	}
	if (have >= 2) { /* expint: one GPU, refused by name */
		assert_int_equal(sweep_plan(&s, 3, two, &plan, &e),
		                 problem_find("expint")->multi_gpu ? 0 : -1);
	}
	assert_int_equal(session_setting(&s, S_GPUS), 1); /* planning changes nothing */
	session_free(&s);
}

/* The atomic write replaces a file whole, leaves no temporary file, and on failure keeps the
 * old file and names the path and the reason. */
static void test_atomic_write(void **state)
{
	char dir[] = "/tmp/quadx-test-XXXXXX", path[64], buf[64] = "";
	struct qx_err e = {""};
	FILE *f;
	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/out.csv", dir);
	assert_int_equal(export_write_file(path, "old\n", 4, &e), 0);
	assert_int_equal(export_write_file(path, "new,data\n", 9, &e), 0);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_int_equal(fread(buf, 1, sizeof buf, f), 9);
	fclose(f);
	assert_string_equal(buf, "new,data\n");
	assert_int_equal(export_write_file("/dev/full", "x\n", 2, &e), -1);
	assert_non_null(strstr(e.msg, "/dev/full"));
	assert_non_null(strstr(e.msg, strerror(ENOSPC)));
	snprintf(buf, sizeof buf, "%s/missing/out.csv", dir);
	assert_int_equal(export_write_file(buf, "x\n", 2, &e), -1);
	assert_non_null(strstr(e.msg, strerror(ENOENT)));
	unlink(path);
	assert_int_equal(rmdir(dir), 0); /* empty: no temporary file was left behind */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_values),
	    cmocka_unit_test(test_parse_errors),
	    cmocka_unit_test(test_plan),
	    cmocka_unit_test(test_pick_best),
	    cmocka_unit_test(test_table),
	    cmocka_unit_test(test_table_fits_80_columns),
	    cmocka_unit_test(test_rows_csv_json),
	    cmocka_unit_test(test_rows_answer),
	    cmocka_unit_test(test_plot_text),
	    cmocka_unit_test(test_plot_decades),
	    cmocka_unit_test(test_plot_speedup_panel),
	    cmocka_unit_test(test_block_scaling),
	    cmocka_unit_test(test_gpus_scaling),
	    cmocka_unit_test(test_plan_gpus),
	    cmocka_unit_test(test_atomic_write),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
