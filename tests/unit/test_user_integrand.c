/* test_user_integrand.c - the user's integrand of problem cubature: its source (the body and the
 * map from the unit cube onto finite and infinite axes), compiled for the CPU and checked
 * against the map written out here; and, in a build with CUDA, its CUDA source compiled by
 * NVRTC and linked by nvJitLink with every one of cubature's user-integrand kernels (the
 * embedded LTO-IR fatbins) into a cubin for sm_90, which needs no GPU. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/gpujit/gpujit.h"
#include "../../src/problem.h"
#include "../../src/problems/user_integrand.h"
#include "user_fixture.h"

/* Parses text in dim with parameter k = 2 and the bounds words, or fails the test. */
static void parse(const char *text, int dim, const char *bounds, struct user_defs *u,
                  struct user_integrand *ui)
{
	struct qx_err e;
	char words[256], *argv[USER_MAX_AXES], *save = NULL;
	int argc = 0;
	user_defs_init(u);
	if (user_param_define(u, NULL, "k", "2", NULL, NULL, &e))
		fail_msg("%s", e.msg);
	snprintf(words, sizeof words, "%s", bounds);
	for (char *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	if (user_bounds_parse(u, argc, argv, &e) ||
	    user_integrand_parse(text, dim, NULL, 0, u, 0, 1, ui, &e))
		fail_msg("%s", e.msg);
}

/* The CPU's code: the mapped integrand at t equals the body at the mapped point times the
 * map's Jacobian, computed here from the formulas of user_integrand.h, on every kind of axis
 * (a finite axis keeps its coordinate: the CPU's box is the user's there);
 * the session's cache gives the same code the second time without compiling. */
static void test_cpu_map(void **state)
{
	struct user_defs u;
	struct user_integrand ui;
	struct user_compile_times t;
	struct qx_err e;
	double (*fd)(const double *, const double *);
	float (*ff)(const float *, const double *);
	void *jit = NULL;
	double data[USER_DATA_COUNT];
	(void)state;
	parse("exp(-k*x1^2) * (1 + x2^2 + x3 + x4)", 4, "-1:3 0:inf -inf:2 -inf:inf", &u, &ui);
	user_integrand_data(&ui, &u, 0, 1, data);
	if (user_integrand_cpu(&jit, &ui, &fd, &ff, &t, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(t.cached, 0);
	print_message("CPU compile: %.1f ms\n", t.compile_ms);
	/* the finite axis (the first, [-1, 3]) is integrated as it is: its coordinate is x1 */
	double lo[4], hi[4];
	user_integrand_cpu_box(&ui, lo, hi);
	assert_true(lo[0] == -1 && hi[0] == 3);
	for (int i = 1; i < 4; i++)
		assert_true(lo[i] == 0 && hi[i] == 1);
	const double pts[3][4] = {
	    {-0.6, 0.2, 0.3, 0.4}, {1, 0.5, 0.5, 0.5}, {2.6, 0.7, 0.05, 0.99}};
	for (int q = 0; q < 3; q++) {
		const double *s = pts[q];
		const double u4 = 2 * s[3] - 1;
		const double x[4] = {s[0], s[1] / (1 - s[1]), 2 - (1 - s[2]) / s[2],
		                     u4 / (1 - u4 * u4)};
		const double jac = 1 / ((1 - s[1]) * (1 - s[1])) / (s[2] * s[2]) * 2 *
		                   (1 + u4 * u4) / ((1 - u4 * u4) * (1 - u4 * u4));
		const double want = exp(-2 * x[0] * x[0]) * (1 + x[1] * x[1] + x[2] + x[3]) * jac;
		const double got = fd(s, data);
		assert_true(fabs(got - want) <= 1e-13 * fabs(want));
		const float sf[4] = {(float)s[0], (float)s[1], (float)s[2], (float)s[3]};
		assert_true(fabs(ff(sf, data) - want) <= 1e-4 * fabs(want));
	}
	if (user_integrand_cpu(&jit, &ui, &fd, &ff, &t, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(t.cached, 1);
	assert_true(t.compile_ms > 0); /* the time it took when it was built */
	/* eval: the body alone, at a point of the user's box */
	double v;
	const double at[4] = {0.5, 1e300, 0, 0};
	if (user_integrand_eval(&ui, &u, at, QX_DOUBLE, &v, &e))
		fail_msg("%s", e.msg);
	assert_true(isinf(v)); /* the body alone: 1 + x2^2 overflows */
	user_integrand_free(&ui);
	problem_jit_free(jit);
}

#ifdef QX_HAVE_CUDA
GPUJIT_FATBIN_DECLARE(cub_d_0);
GPUJIT_FATBIN_DECLARE(cub_d_8);
GPUJIT_FATBIN_DECLARE(cub_d_p2);
GPUJIT_FATBIN_DECLARE(cub_f_0);
GPUJIT_FATBIN_DECLARE(cub_f_5);
GPUJIT_FATBIN_DECLARE(cub_f_p2);

/* f4 written as an expression in dim 8, and a Gaussian over the plane in dim 5: each linked
 * with the rule kernel of its dimension and with phase 2, in double and float. */
static void test_gpu_link(void **state)
{
	struct user_defs u;
	struct user_integrand ui;
	struct qx_err e;
	(void)state;
	if (gpujit_available(&e))
		fail_msg("%s", e.msg);
	parse("sin(prod(i, asin(x[i])))", 8, "0:1", &u, &ui);
	user_fixture_build(&ui, QX_DOUBLE, GPUJIT_FATBIN(cub_d_8), GPUJIT_FATBIN_SIZE(cub_d_8));
	user_fixture_build(&ui, QX_DOUBLE, GPUJIT_FATBIN(cub_d_p2), GPUJIT_FATBIN_SIZE(cub_d_p2));
	user_fixture_build(&ui, QX_FLOAT, GPUJIT_FATBIN(cub_f_p2), GPUJIT_FATBIN_SIZE(cub_f_p2));
	user_integrand_free(&ui);
	parse("k * exp(-sum(i, x[i]^2))", 5, "-inf:inf", &u, &ui);
	user_fixture_build(&ui, QX_FLOAT, GPUJIT_FATBIN(cub_f_5), GPUJIT_FATBIN_SIZE(cub_f_5));
	user_fixture_build(&ui, QX_FLOAT, GPUJIT_FATBIN(cub_f_0), GPUJIT_FATBIN_SIZE(cub_f_0));
	user_fixture_build(&ui, QX_DOUBLE, GPUJIT_FATBIN(cub_d_0), GPUJIT_FATBIN_SIZE(cub_d_0));
	user_integrand_free(&ui);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cpu_map),
#ifdef QX_HAVE_CUDA
	    cmocka_unit_test(test_gpu_link),
#endif
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
