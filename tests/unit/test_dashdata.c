/* test_dashdata.c - the dashboard's snapshot of a session: settings text, CPU timings and
 * their ratio, a GPU result's phases and speedups taken in once per new result (the history
 * grows by one per run), and the error panel's figures computed from the values against the
 * real reference, with no terminal and no GPU. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/dashdata.h"

static struct session s;
static struct dash_data d;

/* A session on expint with n=2 m=3 (6 points), settings changed from their defaults. */
static int setup(void **state)
{
	char *argv[] = {"n", "2", "m", "3", "block", "128", "precision", "double"};
	struct qx_err e;
	(void)state;
	session_init(&s, stdout);
	assert_int_equal(session_set(&s, 8, argv, &e), 0);
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
	struct qx_err e;
	const double *ref;
	double vals[6];
	struct run_result *r = calloc(1, sizeof *r);
	(void)state;
	assert_non_null(r);
	r->prob = s.prob;
	memcpy(r->params, s.params[s.prob_index], sizeof r->params);
	r->backend = QX_GPU;
	r->prec = QX_DOUBLE;
	r->block = 128;
	r->evals = 6;
	r->med = (struct qx_phases){0.01, 0, 0.5, 2, 0.01, 2.6, 1};
	r->speedup_serial = 40;
	r->speedup_threads = 10;
	r->threads_ref = 4;
	ref = session_reference(&s, r->prob, r->params, &e);
	assert_non_null(ref);
	for (int i = 0; i < 6; i++)
		vals[i] = ref[i] * (1 + (i == 4 ? 3e-3 : 2e-9));
	err_stats_compute(ref, vals, QX_DOUBLE, 6, 1e-5, &r->err);
	r->has_error = 1;
	s.last = r;
	s.last_values = vals;
	dash_update(&d, &s);
	assert_true(d.timing[SLOT_GPU].valid);
	assert_true(d.timing[SLOT_GPU].med.kernel == 0.5 && d.timing[SLOT_GPU].med.d2h == 2);
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
	r->med.total = 2.5;
	r->speedup_threads = NAN; /* no CPU threads timing: the history takes vs serial */
	dash_update(&d, &s);
	assert_int_equal(d.nhistory, 2);
	assert_true(d.history[1] == 40);
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
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
