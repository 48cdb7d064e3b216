/* test_convergence.c - a run's convergence history and what draws it: cub_history_record keeps
 * every iteration while there is room, then every 2nd, 4th, ... and always the last; the CPU
 * queue, vegas and qmc record theirs with the evaluations rising to the run's; cub_chart draws
 * digits and log10 evaluations (Monte Carlo) or live regions (rules); cub_output hands the
 * history on as the run's convergence; plot convergence's lines, reference slopes, data and
 * script. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mc_fixture.h"

#include "../../src/plot_conv.h"
#include "../../src/problems/cubature/cubature_cpu.h"
#include "../../src/problems/cubature/cubature_integrands.h"
#include "../../src/problems/cubature/cubature_mc.h"
#include "../../src/problems/cubature/cubature_output.h"
#include "../../src/problems/cubature/cubature_rules.h"

/* 10 iterations: all kept in order, none off the stride. */
static void test_history_short(void **state)
{
	(void)state;
	static struct cub_result res;
	memset(&res, 0, sizeof res);
	for (int it = 1; it <= 10; it++)
		cub_history_record(&res, it, 1.0, 1.0 / it, 2 * it, 100.0 * it);
	assert_int_equal(res.nhist, 10);
	for (int i = 0; i < 10; i++) {
		assert_int_equal(res.hist_iter[i], i + 1);
		assert_true(res.hist_evals[i] == 100.0 * (i + 1));
		assert_true(res.hist_err[i] == 1.0 / (i + 1));
		assert_true(res.hist_regions[i] == 2.0 * (i + 1));
	}
}

/* Many iterations: never more than CUB_HISTORY points, the first CUB_HISTORY_HEAD iterations
 * all kept, the others evenly spread (consecutive multiples of the stride) and the last
 * iteration always the last point, whatever the count. */
static void test_history_thinned(void **state)
{
	(void)state;
	static struct cub_result res;
	const long long counts[] = {128, 129, 130, 256, 257, 1000, 5443, 100000};
	for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
		memset(&res, 0, sizeof res);
		for (long long it = 1; it <= counts[c]; it++) {
			cub_history_record(&res, it, (double)it, 1.0 / (double)it, 1, 10.0 * it);
			assert_true(res.nhist <= CUB_HISTORY);
			assert_int_equal(res.hist_iter[res.nhist - 1], it);
		}
		const int stride = res.hist_stride, n = res.nhist;
		for (int i = 0; i < n; i++) {
			assert_true(res.hist_evals[i] == 10.0 * res.hist_iter[i]);
			assert_true(res.hist_est[i] == (double)res.hist_iter[i]);
			if (i < CUB_HISTORY_HEAD)
				assert_int_equal(res.hist_iter[i], i + 1);
			else if (i + 1 < n)
				assert_int_equal(res.hist_iter[i] % stride, 0);
			if (i > CUB_HISTORY_HEAD && i + 1 < n)
				assert_int_equal(res.hist_iter[i] - res.hist_iter[i - 1], stride);
		}
		assert_int_equal(res.hist_iter[n - 1], counts[c]);
		assert_true(res.hist_evals[n - 1] == 10.0 * counts[c]);
		/* the spread: past the head, at least half the room holds points */
		assert_true(n >= CUB_HISTORY_HEAD + (CUB_HISTORY - CUB_HISTORY_HEAD) / 2 - 1);
		assert_true(stride == 1 || counts[c] > CUB_HISTORY);
	}
}

/* A Monte Carlo job on Genz's gaussian. */
static struct cub_job mc_job(int dim, double rel, long long maxeval)
{
	return mc_fixture_job(CUB_GAUSSIAN, dim, 1, 3, rel, maxeval, 2000, 2);
}

/* The history ends at the result: its last point the run's evaluations (and, the Monte Carlo
 * runs, its value and error); evaluations rise along it. */
static void assert_history_ends_at(const struct cub_result *r)
{
	assert_true(r->nhist >= 1);
	for (int i = 1; i < r->nhist; i++) {
		assert_true(r->hist_evals[i] > r->hist_evals[i - 1]);
		assert_true(r->hist_iter[i] > r->hist_iter[i - 1]);
	}
	assert_true(r->hist_evals[r->nhist - 1] == (double)r->evals);
	assert_int_equal(r->hist_iter[r->nhist - 1], r->iterations);
}

/* vegas: a point an iteration, the warm-up's its own estimate, then the combined one; the
 * last the run's value and standard error. */
static void test_vegas_history(void **state)
{
	(void)state;
	static struct cub_result r;
	struct qx_err e;
	const struct cub_job job = mc_job(6, 1e-9, 20000);
	assert_int_equal(cub_cpu_vegas(&job, &r, &e), 0);
	assert_true(r.iterations > job.adapt + 1);
	assert_int_equal(r.nhist, r.iterations);
	assert_history_ends_at(&r);
	for (int i = 0; i < r.nhist; i++) { /* the same samples every iteration */
		assert_true(r.hist_evals[i] == r.hist_evals[0] * (i + 1));
		assert_true(r.hist_err[i] > 0 && isfinite(r.hist_err[i]));
	}
	assert_true(r.hist_est[r.nhist - 1] == r.value && r.hist_err[r.nhist - 1] == r.err);
	/* the combined estimate's error falls as iterations join it */
	assert_true(r.hist_err[r.nhist - 1] < r.hist_err[job.adapt]);
}

/* qmc: a point a doubling, evaluations shifts x points, the last the run's mean and error. */
static void test_qmc_history(void **state)
{
	(void)state;
	static struct cub_result r;
	struct qx_err e;
	const struct cub_job job = mc_job(5, 1e-12, 8 * 8192);
	assert_int_equal(cub_cpu_qmc(&job, &r, &e), 0);
	assert_true(r.nhist >= 2);
	assert_history_ends_at(&r);
	for (int i = 0; i < r.nhist; i++)
		assert_true(r.hist_evals[i] == 8.0 * 1024 * pow(2, i));
	assert_true(r.hist_est[r.nhist - 1] == r.value && r.hist_err[r.nhist - 1] == r.err);
}

/* The CPU queue (1 and 3 threads): a point an iteration, its live regions, its error. */
static void test_queue_history(void **state)
{
	(void)state;
	static struct cub_result r;
	struct cub_rule rule;
	struct qx_err e;
	assert_int_equal(cub_rule_build(9, 3, &rule, &e), 0);
	for (int threads = 1; threads <= 3; threads += 2) {
		struct cub_job job = mc_job(3, 1e-6, 10000000);
		job.rule = &rule;
		job.threads = threads;
		job.fn = cub_fn_make(CUB_GAUSSIAN, 3, 1);
		job.budget = (size_t)1 << 26;
		assert_int_equal(cub_cpu_adaptive(&job, &r, &e), 0);
		assert_int_equal(r.reason, CUB_CONVERGED);
		assert_history_ends_at(&r);
		assert_true(r.hist_regions[r.nhist - 1] == (double)r.live);
		assert_true(fabs(r.hist_est[r.nhist - 1] - r.value) <= 1e-12 * fabs(r.value));
		assert_true(r.hist_err[r.nhist - 1] <= 1e-6 * fabs(r.value));
		assert_true(r.hist_err[0] > r.hist_err[r.nhist - 1]);
	}
	cub_rule_free(&rule);
}

/* cub_chart and cub_output: a Monte Carlo run's bars are log10 evaluations, a rule's log10
 * live regions (a GPU history without evaluations too); the convergence has the points with
 * evaluations. */
static void test_chart_and_convergence(void **state)
{
	(void)state;
	static struct cub_result r;
	static struct run_output o;
	double value;
	const struct cub_job job = mc_job(2, 1e-12, 100000);
	memset(&r, 0, sizeof r);
	r.mc = CUB_MC_VEGAS;
	r.value = 2;
	r.err = 0.01;
	r.evals = 3000;
	r.live = 1;
	for (int it = 1; it <= 3; it++)
		cub_history_record(&r, it, 2, 0.2 / it, 1, 1000.0 * it);
	memset(&o, 0, sizeof o);
	o.values = &value;
	cub_output(&job, &r, &o);
	assert_int_equal(o.chart.nseries, 2);
	assert_string_equal(o.chart.series[1].name, "log10 evaluations so far");
	assert_non_null(strstr(o.chart.series[0].name, "std error"));
	assert_non_null(strstr(o.chart.title, "vegas"));
	assert_int_equal(o.chart.series[1].npoints, 3);
	assert_true(fabs(o.chart.series[1].y[2] - log10(3000)) < 1e-12);
	assert_true(fabs(o.chart.series[0].y[0] - 1) < 1e-12); /* 0.2 / 2: one digit */
	assert_true(o.chart.series[0].x[2] == 3);
	assert_int_equal(o.conv.n, 3);
	assert_true(o.conv.evals[1] == 2000 && o.conv.err[1] == 0.1 && o.conv.est[1] == 2);

	/* qmc: per doubling */
	r.mc = CUB_MC_QMC;
	memset(&o, 0, sizeof o);
	cub_chart(&r, &o.chart);
	assert_string_equal(o.chart.xlabel, "doubling");

	/* a GPU rule run's history: no evaluations, regions as bars, no convergence */
	memset(&r, 0, sizeof r);
	r.value = 1;
	r.evals = 500;
	r.live = 8;
	r.nhist = 2;
	r.hist_est[0] = r.hist_est[1] = 1;
	r.hist_err[0] = 1e-2;
	r.hist_err[1] = 1e-4;
	r.hist_regions[0] = 2;
	r.hist_regions[1] = 8;
	memset(&o, 0, sizeof o);
	o.values = &value;
	cub_output(&job, &r, &o);
	assert_string_equal(o.chart.series[1].name, "log10 live regions");
	assert_true(o.chart.series[0].x[1] == 2 && fabs(o.chart.series[1].y[1] - log10(8)) < 1e-12);
	assert_int_equal(o.conv.n, 0);
}

/* A sweep of three variants (one axis of words): a line a row, its history, the true error
 * against the row's exact value; a failed row and a row without history (its end a point). */
static struct sweep *variant_sweep(void)
{
	static const char *names[] = {"breadth", "vegas", "qmc", "hcubature"};
	static struct problem prob = {.name = "cubature"};
	static struct variant_def variants[4];
	struct sweep *sw = calloc(1, sizeof *sw + 4 * sizeof *sw->rows);
	for (int v = 0; v < 4; v++)
		variants[v].name = names[v];
	prob.variants = variants;
	prob.nvariants = 4;
	sw->prob = &prob;
	sw->naxes = 1;
	snprintf(sw->axes[0].name, SWEEP_WORD, "variant");
	sw->axes[0].nvalues = 4;
	sw->rows = (struct sweep_row *)(sw + 1);
	sw->nrows = 4;
	for (int v = 0; v < 4; v++) {
		struct sweep_row *r = &sw->rows[v];
		snprintf(sw->axes[0].values[v], SWEEP_WORD, "%s", names[v]);
		snprintf(r->values[0], SWEEP_WORD, "%s", names[v]);
		r->ok = 1;
		r->has_answer = 1;
		r->summary.variant = v;
		r->summary.backend = QX_CPU;
		r->value = 1.001;
		r->exact = 1;
		r->estimate = 0.002;
		r->work = 4000;
		if (v < 3) {
			r->conv.n = 4;
			for (int i = 0; i < 4; i++) {
				r->conv.evals[i] = 1000.0 * (i + 1);
				r->conv.est[i] = 1 + 0.01 / (i + 1);
				r->conv.err[i] = (v + 1) * 0.1 / (i + 1);
			}
		}
	}
	sw->rows[0].conv.est[3] = 1; /* the true error 0 there: no point */
	sw->rows[3].ok = 0;          /* failed: no line */
	return sw;
}

static void test_plot_conv_per_run(void **state)
{
	(void)state;
	static struct plot_conv pc;
	struct qx_err e;
	struct sweep *sw = variant_sweep();
	assert_int_equal(plot_conv_from_sweep(sw, &pc, &e), 0);
	assert_int_equal(pc.per_run, 1);
	assert_int_equal(pc.nlines, 3);
	assert_string_equal(pc.line[1].name, "vegas cpu");
	assert_int_equal(pc.line[1].n, 4);
	assert_true(pc.line[1].evals[3] == 4000 && pc.line[1].err[3] == 0.2 / 4);
	assert_true(fabs(pc.line[1].true_err[1] - 0.005) < 1e-15);
	assert_true(isnan(pc.line[0].true_err[3]));
	double n0, n1, e0;
	assert_int_equal(plot_conv_reference(&pc, &n0, &n1, &e0), 0);
	assert_true(n0 == 1000 && n1 == 4000 && fabs(e0 - 0.3) < 1e-15);

	/* the row without history (hcubature) is one point, its end */
	sw->rows[3].ok = 1;
	assert_int_equal(plot_conv_from_sweep(sw, &pc, &e), 0);
	assert_int_equal(pc.nlines, 4);
	assert_int_equal(pc.line[3].n, 1);
	assert_true(pc.line[3].evals[0] == 4000 && pc.line[3].err[0] == 0.002);

	/* the data: a block a line, then the slopes through (n0, e0) */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	plot_conv_write_data(&pc, f);
	fclose(f);
	assert_non_null(strstr(text, "# breadth cpu\n# evaluations error_estimate "
	                             "true_error\n1000 0.1 0.01\n"));
	assert_non_null(strstr(text, "4000 0.025 NaN\n\n\n# vegas cpu\n"));
	assert_non_null(
	    strstr(text, "# reference N^-1/2\n# evaluations error\n1000 0.3\n4000 0.15\n"));
	assert_non_null(
	    strstr(text, "# reference N^-1\n# evaluations error\n1000 0.3\n4000 0.075\n"));
	free(text);
	f = open_memstream(&text, &len);
	plot_conv_write_script(&pc, "$d", "c.png", PLOT_PNG, 0, 0, f);
	fclose(f);
	assert_non_null(strstr(text, "set logscale xy\n"));
	assert_non_null(strstr(text, "set xlabel 'evaluations'\n"));
	assert_non_null(strstr(text, "$d index 1 using 1:2 with linespoints lc 2 pt 7 ps 0.5 title "
	                             "\"vegas cpu est\""));
	assert_non_null(strstr(text, "$d index 1 using 1:3 with lines dt 2 lc 2 title "
	                             "\"vegas cpu true\""));
	assert_non_null(strstr(text, "$d index 4 using 1:2 with lines dt 3"));
	assert_non_null(strstr(text, "$d index 5 using 1:2 with lines dt 4"));
	assert_non_null(strstr(text, "dashed: true error"));
	free(text);
	free(sw);
}

/* A sweep over a number (rel) and variant: a line a variant through each row's end, ordered
 * by evaluations; no row with an answer is an error. */
static void test_plot_conv_ends(void **state)
{
	(void)state;
	static struct plot_conv pc;
	struct qx_err e;
	struct sweep *sw = variant_sweep();
	sw->naxes = 2;
	sw->axes[1] = sw->axes[0];
	snprintf(sw->axes[0].name, SWEEP_WORD, "rel");
	sw->axes[0].nvalues = 2;
	snprintf(sw->axes[0].values[0], SWEEP_WORD, "1e-3");
	snprintf(sw->axes[0].values[1], SWEEP_WORD, "1e-4");
	/* rows: rel 1e-4 of vegas and qmc, then rel 1e-3 of them */
	const char *rel[4] = {"1e-4", "1e-4", "1e-3", "1e-3"};
	const char *var[4] = {"vegas", "qmc", "vegas", "qmc"};
	for (int i = 0; i < 4; i++) {
		struct sweep_row *r = &sw->rows[i];
		r->ok = 1;
		snprintf(r->values[0], SWEEP_WORD, "%s", rel[i]);
		snprintf(r->values[1], SWEEP_WORD, "%s", var[i]);
		r->work = i < 2 ? 1e6 : 1e4;
		r->estimate = i < 2 ? 1e-4 : 1e-3;
		r->value = 1 + r->estimate / 2;
	}
	assert_int_equal(plot_conv_from_sweep(sw, &pc, &e), 0);
	assert_int_equal(pc.per_run, 0);
	assert_int_equal(pc.nlines, 2);
	assert_string_equal(pc.line[0].name, "vegas cpu");
	assert_string_equal(pc.line[1].name, "qmc cpu");
	assert_int_equal(pc.line[0].n, 2);
	assert_true(pc.line[0].evals[0] == 1e4 && pc.line[0].evals[1] == 1e6);
	assert_true(pc.line[0].err[0] == 1e-3 && pc.line[0].err[1] == 1e-4);
	for (int i = 0; i < 4; i++)
		sw->rows[i].has_answer = 0;
	assert_int_equal(plot_conv_from_sweep(sw, &pc, &e), -1);
	assert_non_null(strstr(e.msg, "plot convergence: the last sweep has no run with an error "
	                              "estimate"));
	free(sw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_history_short),     cmocka_unit_test(test_history_thinned),
	    cmocka_unit_test(test_vegas_history),     cmocka_unit_test(test_qmc_history),
	    cmocka_unit_test(test_queue_history),     cmocka_unit_test(test_chart_and_convergence),
	    cmocka_unit_test(test_plot_conv_per_run), cmocka_unit_test(test_plot_conv_ends)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
