/* test_longman_user.c - problem longman's amplitude typed by the user, as the shared code of
 * user integrands builds it: parsed in x and lambda with the user's parameters, written out
 * bare (the body itself, no map from the unit cube: the amplitude at {x, lambda}), compiled for
 * the CPU and checked against the formula; and, in a build with CUDA, its CUDA source compiled
 * by NVRTC and linked by nvJitLink with longman's kernel for user amplitudes (the embedded
 * LTO-IR fatbins lm_user_d and lm_user_f) into a cubin for sm_90, which needs no GPU. */
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

/* Parses text as longman does (dim 1, the extra name lambda, parameter k = 2, bounds that
 * must not matter), bare; fails the test on an error. */
static void parse(const char *text, struct user_defs *u, struct user_integrand *ui)
{
	static const char *const extra[] = {"lambda"};
	struct qx_err e;
	user_defs_init(u);
	if (user_param_define(u, NULL, "k", "2", NULL, NULL, &e))
		fail_msg("%s", e.msg);
	if (user_integrand_parse(text, 1, extra, 1, u, 0, 1, ui, &e))
		fail_msg("%s", e.msg);
	ui->bare = 1;
}

/* The CPU's code of a bare amplitude is the body at {x, lambda}: no Jacobian, the user's
 * parameter read from the data; the session's cache finds it the second time. */
static void test_cpu_bare(void **state)
{
	struct user_defs u;
	struct user_integrand ui;
	struct user_compile_times t;
	struct qx_err e;
	double (*fd)(const double *, const double *);
	float (*ff)(const float *, const double *);
	double data[USER_DATA_COUNT];
	void *jit = NULL;
	(void)state;
	parse("k/(k^2+x^2) * exp(-lambda*x)", &u, &ui);
	char *src = user_integrand_source(&ui, EXPR_C, QX_DOUBLE);
	assert_non_null(src);
	assert_null(strstr(src, "jac")); /* no map */
	assert_non_null(strstr(src, "qx_user_d"));
	free(src);
	user_integrand_data(&ui, &u, 0, 1, data);
	if (user_integrand_cpu(&jit, &ui, &fd, &ff, &t, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(t.cached, 0);
	for (double x = 0; x < 40; x += 3.7) {
		const double at[2] = {x, 0.3}, want = 2 / (4 + x * x) * exp(-0.3 * x);
		assert_true(fabs(fd(at, data) - want) <= 1e-15 * want);
		const float atf[2] = {(float)x, 0.3f};
		assert_true(fabs(ff(atf, data) - want) <= 1e-6 * want);
	}
	if (user_integrand_cpu(&jit, &ui, &fd, &ff, &t, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(t.cached, 1);
	user_integrand_free(&ui);
	problem_jit_free(jit);
}

#ifdef QX_HAVE_CUDA
GPUJIT_FATBIN_DECLARE(lm_user_d);
GPUJIT_FATBIN_DECLARE(lm_user_f);

/* 1/(1+x^2) and an amplitude with lambda and a parameter, linked with the kernel in double
 * and float. */
static void test_gpu_link(void **state)
{
	struct user_defs u;
	struct user_integrand ui;
	struct qx_err e;
	(void)state;
	if (gpujit_available(&e))
		fail_msg("%s", e.msg);
	parse("1/(1+x^2)", &u, &ui);
	user_fixture_build(&ui, QX_DOUBLE, GPUJIT_FATBIN(lm_user_d), GPUJIT_FATBIN_SIZE(lm_user_d));
	user_fixture_build(&ui, QX_FLOAT, GPUJIT_FATBIN(lm_user_f), GPUJIT_FATBIN_SIZE(lm_user_f));
	user_integrand_free(&ui);
	parse("k*exp(-lambda*x)/(1+x)", &u, &ui);
	user_fixture_build(&ui, QX_DOUBLE, GPUJIT_FATBIN(lm_user_d), GPUJIT_FATBIN_SIZE(lm_user_d));
	user_fixture_build(&ui, QX_FLOAT, GPUJIT_FATBIN(lm_user_f), GPUJIT_FATBIN_SIZE(lm_user_f));
	user_integrand_free(&ui);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cpu_bare),
#ifdef QX_HAVE_CUDA
	    cmocka_unit_test(test_gpu_link),
#endif
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
