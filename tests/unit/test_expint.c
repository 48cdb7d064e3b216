/* test_expint.c - E_n(x) on the CPU against mpmath values (tests/data/expint_ref.csv, made
 * by tests/gen_expint_ref.py), across every branch, for both algorithms and precisions. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/problems/expint_math.h"

#include "../../src/problem.h"

struct ref_point {
	int n;
	double x;
	long double value;
};

static struct ref_point refs[1024];
static size_t nrefs;

/* Loads the reference file once; fails the test if it is missing or malformed. */
static int load_refs(void **state)
{
	FILE *f = fopen("tests/data/expint_ref.csv", "r");
	char line[256];
	(void)state;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '#' || line[0] == 'n')
			continue;
		if (nrefs == sizeof refs / sizeof refs[0] ||
		    sscanf(line, "%d,%lf,%Lf", &refs[nrefs].n, &refs[nrefs].x,
		           &refs[nrefs].value) != 3)
			return -1;
		nrefs++;
	}
	fclose(f);
	return nrefs > 300 ? 0 : -1;
}

/* Relative error of v against the reference value r. */
static double rel(long double r, double v)
{
	return (double)(fabsl(r - (long double)v) / fabsl(r));
}

/* Double, fast algorithm: within 1e-14 relative wherever the value is a normal double, and
 * an underflowing value is returned as a tiny number, not an error. */
static void test_fast_double(void **state)
{
	size_t checked = 0;
	(void)state;
	for (size_t i = 0; i < nrefs; i++) {
		double v = -1;
		assert_int_equal(expint_fast_d(refs[i].n, refs[i].x, 2000000000L, &v), EXPINT_OK);
		if (refs[i].value >= DBL_MIN) {
			if (rel(refs[i].value, v) > 1e-14)
				fail_msg("E_%d(%.17g) = %.17g, mpmath %.20Lg, rel %.3g", refs[i].n,
				         refs[i].x, v, refs[i].value, rel(refs[i].value, v));
			checked++;
		} else {
			assert_true(v >= 0 && v < 1e-300);
		}
	}
	assert_true(checked > 300);
}

/* Float, fast algorithm: within 1e-6 relative where x is a float and the value a normal
 * float. */
static void test_fast_float(void **state)
{
	size_t checked = 0;
	(void)state;
	for (size_t i = 0; i < nrefs; i++) {
		const float x = (float)refs[i].x;
		float v = -1;
		if ((double)x != refs[i].x)
			continue;
		assert_int_equal(expint_fast_f(refs[i].n, x, 2000000000L, &v), EXPINT_OK);
		if (refs[i].value >= FLT_MIN && refs[i].value <= FLT_MAX) {
			if (rel(refs[i].value, v) > 1e-6)
				fail_msg("float E_%d(%.9g) = %.9g, mpmath %.20Lg, rel %.3g",
				         refs[i].n, x, v, refs[i].value, rel(refs[i].value, v));
			checked++;
		}
	}
	assert_true(checked > 150);
}

/* The coursework's loops in double agree with mpmath to 1e-13 where they apply (small n). */
static void test_coursework_double(void **state)
{
	size_t checked = 0;
	(void)state;
	for (size_t i = 0; i < nrefs; i++) {
		double v = -1;
		if (refs[i].n > 1000 || refs[i].value < DBL_MIN)
			continue;
		assert_int_equal(expint_coursework_d(refs[i].n, refs[i].x, 2000000000L, &v),
		                 EXPINT_OK);
		if (rel(refs[i].value, v) > 1e-13)
			fail_msg("coursework E_%d(%.17g) = %.17g, rel %.3g", refs[i].n, refs[i].x,
			         v, rel(refs[i].value, v));
		checked++;
	}
	assert_true(checked > 250);
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
	struct param_value settings[QX_MAX_PROBLEM_SETTINGS] = {{2, 0}};
	struct run_request rq = {params, settings, QX_DOUBLE, 0, 256, 2};
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
	assert_int_equal(p->count(params), 12);
	assert_int_equal(p->run_cpu(&rq, &o, &e), 0);
	for (size_t i = 0; i < 12; i++) {
		assert_int_equal(p->point(params, i, names, c, 2), 2);
		assert_int_equal(expint_fast_d((int)c[0], c[1], 100, &v), EXPINT_OK);
		assert_true(out[i] == v);
	}
	assert_true(c[0] == 3 && c[1] == 10.0);
	params[4].num = 2; /* iters */
	assert_int_equal(p->run_cpu(&rq, &o, &e), -1);
	assert_non_null(strstr(e.msg, "did not converge"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fast_double),       cmocka_unit_test(test_fast_float),
	    cmocka_unit_test(test_coursework_double), cmocka_unit_test(test_special_cases),
	    cmocka_unit_test(test_underflow),         cmocka_unit_test(test_no_convergence),
	    cmocka_unit_test(test_grid_run),
	};
	return cmocka_run_group_tests(tests, load_refs, NULL);
}
