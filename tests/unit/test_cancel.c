/* test_cancel.c - a cancel request is never lost between the runs of one command: a run does
 * not clear a pending request, and a cancel that lands after a sweep's last check (during the
 * tail of its last configuration) still marks the sweep cancelled. Tiny CPU runs only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/run.h"
#include "../../src/sweep.h"

/* A session on expint with a grid small enough to run in microseconds. */
static void tiny_session(struct session *s)
{
	char *words[] = {"n", "2", "m", "10", "repeat", "1", "warmup", "0"};
	struct qx_err e;
	session_init(s);
	assert_int_equal(session_set(s, 8, words, &e), 0);
}

/* A cancel requested before a run (between two runs of a sweep) fails that run and stays
 * pending for the loop that runs it; without a request the same run succeeds. */
static void test_run_keeps_a_pending_cancel(void **state)
{
	static struct session s;
	struct qx_err e = {""};
	(void)state;
	tiny_session(&s);
	qx_cancel_clear();
	assert_int_equal(session_run(&s, QX_CPU, &e), 0);
	qx_cancel_request();
	assert_int_equal(session_run(&s, QX_CPU, &e), -1);
	assert_non_null(strstr(e.msg, "cancelled"));
	assert_true(qx_cancelled());
	qx_cancel_clear();
	session_free(&s);
}

/* Sweep observer: requests a cancel as the last configuration finishes, after the sweep's last
 * check of the flag (what Esc during the tail of the last run does). */
static void cancel_at_the_end(void *arg, const struct sweep *sw)
{
	(void)arg;
	if (sw->running && sw->configs_done == sw->nconfigs)
		qx_cancel_request();
}

/* Such a sweep keeps all its rows but reports the cancel, so that a caller that dropped the
 * lines queued behind it does not see it succeed; without the cancel it succeeds. */
static void test_cancel_in_the_tail_of_a_sweep(void **state)
{
	static struct session s;
	struct sweep plan;
	char *argv[] = {"sweep", "n", "1,2", "on", "cpu"};
	struct qx_err e = {""};
	(void)state;
	tiny_session(&s);
	qx_cancel_clear();
	assert_int_equal(sweep_plan(&s, 5, argv, &plan, &e), 0);
	assert_int_equal(sweep_run(&s, &plan, NULL, &e), 0);
	assert_false(s.sweep->cancelled);
	s.sweep_observer = cancel_at_the_end;
	assert_int_equal(sweep_plan(&s, 5, argv, &plan, &e), 0);
	assert_int_equal(sweep_run(&s, &plan, NULL, &e), -1);
	assert_non_null(strstr(e.msg, "sweep cancelled after 2 runs"));
	assert_true(s.sweep->cancelled);
	assert_int_equal(s.sweep->nrows, 2);
	assert_int_equal(s.sweep->configs_done, 2);
	qx_cancel_clear();
	session_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_run_keeps_a_pending_cancel),
	    cmocka_unit_test(test_cancel_in_the_tail_of_a_sweep),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
