/* test_expint.c - E_n(x) against mpmath values (tests/data/expint_ref.csv, made by
 * tests/gen_expint_ref.py) at every point, on the CPU and the GPU, in both precisions; the GPU
 * cost model of the rows that divides the orders over several GPUs. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/device.h"
#include "../../src/problems/expint/expint_gpu.h"
#include "../../src/problems/expint/expint_accuracy.h"
#include "../../src/problems/expint/expint_cost.h"

#include "../../src/problem.h"

static struct expint_ref *refs;
static long nrefs;

/* Loads the reference set once; fails the group if it is missing, malformed or small. */
static int load_refs(void **state)
{
	struct qx_err e;
	(void)state;
	nrefs = expint_ref_load("tests/data/expint_ref.csv", &refs, &e);
	if (nrefs < 0)
		fprintf(stderr, "%s\n", e.msg);
	return nrefs >= 5000 ? 0 : -1;
}

/* Frees the reference set. */
static int free_refs(void **state)
{
	(void)state;
	free(refs);
	return 0;
}

/* Checks values[i] (status[i]) of the fast algorithm in precision prec against every point:
 * each evaluation succeeds; where the value is a normal number of the precision the error is
 * at most 2 ulp (double: 2 * 2^-52 relative; float: 2 ulps of E_n(float(x))); where it is
 * subnormal or 0 the error is at most the smallest subnormal. Returns the points checked. */
static long check_fast(enum qx_precision prec, const double *values, const int *status,
                       const char *backend)
{
	long checked = 0;
	for (long i = 0; i < nrefs; i++) {
		const struct expint_ref *r = &refs[i];
		const double tiny = prec == QX_DOUBLE ? DBL_TRUE_MIN : FLT_TRUE_MIN;
		const double top = prec == QX_DOUBLE ? DBL_MAX : FLT_MAX;
		if (prec == QX_FLOAT && (double)(float)r->x != r->x)
			continue;
		if (status[i] != EXPINT_OK)
			fail_msg("%s %s E_%d(%.17g): status %d", backend, qx_precision_name(prec),
			         r->n, r->x, status[i]);
		if (r->value > top)
			continue;
		if (expint_ref_counts(r, prec)) {
			const double err = expint_err_ulp(r->value, values[i], prec);
			if (!(err <= 2.0))
				fail_msg("%s %s E_%d(%.17g) = %.17g, mpmath %.20Lg: %.2f ulp",
				         backend, qx_precision_name(prec), r->n, r->x, values[i],
				         r->value, err);
		} else if (!(fabsl((long double)values[i] - r->value) <= tiny)) {
			fail_msg("%s %s E_%d(%.17g) = %.17g, mpmath %.20Lg: more than the smallest "
			         "subnormal off",
			         backend, qx_precision_name(prec), r->n, r->x, values[i], r->value);
		}
		checked++;
	}
	return checked;
}

/* The fast algorithm on the CPU at every reference point, in double and in float. */
static void test_fast_cpu(void **state)
{
	double *values = malloc((size_t)nrefs * sizeof *values);
	int *status = calloc((size_t)nrefs, sizeof *status);
	(void)state;
	assert_non_null(values);
	assert_non_null(status);
	expint_values_cpu(refs, nrefs, QX_DOUBLE, EXPINT_ALGO_FAST, values);
	for (long i = 0; i < nrefs; i++)
		status[i] = isnan(values[i]) ? EXPINT_NOCONV : EXPINT_OK;
	assert_true(check_fast(QX_DOUBLE, values, status, "cpu") >= 5000);
	expint_values_cpu(refs, nrefs, QX_FLOAT, EXPINT_ALGO_FAST, values);
	for (long i = 0; i < nrefs; i++)
		status[i] = isnan(values[i]) ? EXPINT_NOCONV : EXPINT_OK;
	assert_true(check_fast(QX_FLOAT, values, status, "cpu") >= 4000);
	free(values);
	free(status);
}

/* The same check on the GPU through the batch entry point; skipped without a usable GPU
 * unless QUADX_REQUIRE_GPU=1 (make test-gpu). Also counts the points where the GPU's bits
 * differ from the CPU's. */
static void test_fast_gpu(void **state)
{
	struct gpu_info g;
	struct qx_err e;
	const char *require = getenv("QUADX_REQUIRE_GPU");
	(void)state;
	if (gpu_init(&g, &e)) {
		if (require && strcmp(require, "1") == 0)
			fail_msg("QUADX_REQUIRE_GPU=1 but no GPU: %s", e.msg);
		skip();
	}
#ifdef QX_HAVE_CUDA /* gpu_init fails in builds without it */
	int *ns, *status;
	double *xs, *values, *cpu;
	ns = malloc((size_t)nrefs * sizeof *ns);
	status = malloc((size_t)nrefs * sizeof *status);
	xs = malloc((size_t)nrefs * sizeof *xs);
	values = malloc((size_t)nrefs * sizeof *values);
	cpu = malloc((size_t)nrefs * sizeof *cpu);
	assert_true(ns && status && xs && values && cpu);
	for (long i = 0; i < nrefs; i++) {
		ns[i] = refs[i].n;
		xs[i] = refs[i].x;
	}
	for (int prec = QX_DOUBLE; prec >= QX_FLOAT; prec--) {
		long differ = 0;
		if (expint_gpu_eval_batch(ns, xs, nrefs, 2000000000L, (enum qx_precision)prec,
		                          EXPINT_ALGO_FAST, values, status, &e))
			fail_msg("GPU batch: %s", e.msg);
		assert_true(check_fast((enum qx_precision)prec, values, status, "gpu") >= 4000);
		expint_values_cpu(refs, nrefs, (enum qx_precision)prec, EXPINT_ALGO_FAST, cpu);
		for (long i = 0; i < nrefs; i++)
			differ += !(values[i] == cpu[i]) && !(isnan(values[i]) && isnan(cpu[i]));
		printf("gpu %s: %ld of %ld points differ from the CPU's bits\n",
		       qx_precision_name((enum qx_precision)prec), differ, nrefs);
	}
	free(ns);
	free(status);
	free(xs);
	free(values);
	free(cpu);
#endif
}

/* The reference set covers every branch of the fast algorithm in both precisions. */
static void test_branches_covered(void **state)
{
	double *values = calloc((size_t)nrefs, sizeof *values);
	(void)state;
	assert_non_null(values);
	for (int prec = QX_DOUBLE; prec >= QX_FLOAT; prec--) {
		struct expint_acc acc[EXPINT_NBRANCH];
		expint_accuracy(refs, nrefs, (enum qx_precision)prec, values, acc);
		for (int b = 0; b < EXPINT_NBRANCH; b++)
			if (acc[b].count < (b == EXPINT_BRANCH_CLOSED ? 5 : 300))
				fail_msg("%s %s: only %ld points",
				         qx_precision_name((enum qx_precision)prec),
				         expint_branch_name(b), acc[b].count);
	}
	free(values);
}

/* The coursework's loops in double agree with mpmath to 1e-13 where they apply (n <= 1000). */
static void test_coursework_double(void **state)
{
	size_t checked = 0;
	(void)state;
	for (long i = 0; i < nrefs; i++) {
		double v = -1;
		if (refs[i].n > 1000 || !expint_ref_counts(&refs[i], QX_DOUBLE))
			continue;
		assert_int_equal(expint_coursework_d(refs[i].n, refs[i].x, 2000000000L, &v),
		                 EXPINT_OK);
		if (expint_err_ulp(refs[i].value, v, QX_DOUBLE) * DBL_EPSILON > 1e-13)
			fail_msg("coursework E_%d(%.17g) = %.17g, mpmath %.20Lg", refs[i].n,
			         refs[i].x, v, refs[i].value);
		checked++;
	}
	assert_true(checked > 3000);
}

/* Closed forms and the domain: n = 0, x = 0, and the errors. */
static void test_special_cases(void **state)
{
	double v = 0;
	(void)state;
	assert_int_equal(expint_fast_d(0, 2.0, 100, &v), EXPINT_OK);
	assert_true(fabs(v - exp(-2.0) / 2.0) < 1e-17);
	assert_int_equal(expint_fast_d(5, 0.0, 100, &v), EXPINT_OK);
	assert_true(v == 0.25);
	assert_int_equal(expint_fast_d(1, 0.0, 100, &v), EXPINT_DOMAIN);
	assert_int_equal(expint_fast_d(0, 0.0, 100, &v), EXPINT_DOMAIN);
	assert_int_equal(expint_fast_d(-1, 1.0, 100, &v), EXPINT_DOMAIN);
	assert_int_equal(expint_fast_d(2, -1.0, 100, &v), EXPINT_DOMAIN);
	assert_int_equal(expint_fast_d(2, NAN, 100, &v), EXPINT_DOMAIN);
}

/* Past the underflow threshold the value is 0 at once, for both algorithms and precisions,
 * also near the top of the range where 1/x is subnormal and the continued fraction would
 * never meet its tolerance (a fuzzer's hang); just below it the computed value is not 0. */
static void test_underflow(void **state)
{
	double v = 1;
	float f = 1;
	(void)state;
	assert_int_equal(expint_fast_f(1, 2.11e38f, 1000, &f), EXPINT_OK);
	assert_true(f == 0);
	assert_int_equal(expint_coursework_f(3, 3e38f, 1000, &f), EXPINT_OK);
	assert_true(f == 0);
	assert_int_equal(expint_fast_d(1, 1.7e308, 1000, &v), EXPINT_OK);
	assert_true(v == 0);
	assert_int_equal(expint_fast_d(2, 745.0, 1000, &v), EXPINT_OK);
	assert_true(v == 0);
	assert_int_equal(expint_fast_f(1, 80.0f, 1000, &f), EXPINT_OK);
	assert_true(f > 0);
	assert_int_equal(expint_fast_d(1, 700.0, 1000, &v), EXPINT_OK);
	assert_true(v > 0);
}

/* Too few iterations are reported as non-convergence, never returned as a value. */
static void test_no_convergence(void **state)
{
	double v = 0;
	float f = 0;
	(void)state;
	assert_int_equal(expint_fast_d(3, 1.5, 3, &v), EXPINT_NOCONV);
	assert_int_equal(expint_fast_d(3, 0.5, 3, &v), EXPINT_NOCONV);
	assert_int_equal(expint_fast_f(3, 1.5f, 3, &f), EXPINT_NOCONV);
	assert_int_equal(expint_coursework_d(3, 1.5, 10, &v), EXPINT_NOCONV);
}

/* The problem's grid run: values land at the right (n, x) and errors are reported. */
static void test_grid_run(void **state)
{
	extern const struct problem expint_problem;
	const struct problem *p = &expint_problem;
	struct param_value params[QX_MAX_PARAMS];
	struct param_value settings[QX_MAX_PROBLEM_SETTINGS] = {{.num = 2}};
	struct run_request rq = {params, settings, QX_DOUBLE, 0, 256, 2, NULL, NULL, 1, NULL};
	struct qx_err e;
	double out[12], v;
	struct run_output o = {.values = out};
	const char *names[2];
	double c[2];
	(void)state;
	for (size_t k = 0; k < p->nparams; k++)
		params[k] = param_default(&p->params[k]);
	params[0].num = 3; /* n */
	params[1].num = 4; /* m */
	assert_int_equal(p->count(params, NULL, NULL), 12);
	assert_int_equal(p->run_cpu(&rq, &o, &e), 0);
	for (size_t i = 0; i < 12; i++) {
		assert_int_equal(p->point(params, NULL, NULL, i, names, c, 2), 2);
		assert_int_equal(expint_fast_d((int)c[0], c[1], 100, &v), EXPINT_OK);
		assert_true(out[i] == v);
	}
	assert_true(c[0] == 3 && c[1] == 10.0);
	params[4].num = 2; /* iters */
	assert_int_equal(p->run_cpu(&rq, &o, &e), -1);
	assert_non_null(strstr(e.msg, "did not converge"));
}

/* The GPU cost model that divides the orders over several GPUs: at the bench's x in (0, 10],
 * float orders 1..29 (series, continued fraction) cost 3.5 to 6 times the rest, which all cost the
 * same; double's slow orders run to 249; a row entirely past the underflow point costs the
 * same at every order; the continued fraction's cost grows with its depth. */
static void test_row_costs(void **state)
{
	static double c[400];
	(void)state;
	expint_row_costs(400, 20000, 0, 10, QX_FLOAT, c);
	for (int i = 0; i < 29; i++)
		if (c[i] < 3.5 * c[29] || c[i] > 6 * c[29])
			fail_msg("float order %d costs %g against %g for order 30", i + 1, c[i],
			         c[29]);
	for (int i = 30; i < 400; i++)
		assert_true(c[i] == c[29]);
	assert_true(fabs(c[29] - 20000 * expint_point_cost(30, 5.0, QX_FLOAT)) < 1e-9 * c[29]);
	expint_row_costs(400, 20000, 0, 10, QX_DOUBLE, c);
	for (int i = 0; i < 249; i++)
		assert_true(c[i] > 2.5 * c[249]);
	for (int i = 250; i < 400; i++)
		assert_true(c[i] == c[249]);
	expint_row_costs(40, 1000, 200, 300, QX_FLOAT, c); /* E_n(x) underflows: closed form */
	for (int i = 1; i < 40; i++)
		assert_true(c[i] == c[0]);
	assert_true(c[0] < 1000 * expint_point_cost(100, 5.0, QX_FLOAT));
	assert_true(expint_point_cost(3, 0.6, QX_DOUBLE) > expint_point_cost(3, 6.0, QX_DOUBLE));
	expint_row_costs(3, 1, 0, 1, QX_DOUBLE, c); /* one sample a row */
	assert_true(c[0] > 0 && c[1] > 0 && c[2] > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fast_cpu),         cmocka_unit_test(test_fast_gpu),
	    cmocka_unit_test(test_branches_covered), cmocka_unit_test(test_coursework_double),
	    cmocka_unit_test(test_special_cases),    cmocka_unit_test(test_underflow),
	    cmocka_unit_test(test_no_convergence),   cmocka_unit_test(test_grid_run),
	    cmocka_unit_test(test_row_costs),
	};
	return cmocka_run_group_tests(tests, load_refs, free_refs);
}
