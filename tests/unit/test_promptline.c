/* test_promptline.c - the text of the prompt's progress line and of the up-front estimate of a
 * long run (src/promptline.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/promptline.h"
#include "../../src/qx.h"

/* A count of total units in phase cpu, started at 0 ms, done of them. */
static struct qx_progress count(long long done, long long total)
{
	return (struct qx_progress){.done = done, .total = total, .phase = "cpu", .gen = 1};
}

/* Under a second old, finished, or without a total: no line. */
static void test_no_line(void **state)
{
	char buf[128];
	struct qx_progress p = count(10, 100);
	(void)state;
	assert_int_equal(promptline_text(&p, 999, 80, buf, sizeof buf), -1);
	p = count(100, 100);
	assert_int_equal(promptline_text(&p, 5000, 80, buf, sizeof buf), -1);
	p = count(0, 0);
	assert_int_equal(promptline_text(&p, 5000, 80, buf, sizeof buf), -1);
}

/* Percent, rate and time left from the rate so far: 25 of 100 in 2 s leave 6 s. */
static void test_line(void **state)
{
	char buf[128];
	struct qx_progress p = count(25, 100);
	(void)state;
	assert_int_equal(promptline_text(&p, 2000, 80, buf, sizeof buf), 0);
	assert_string_equal(buf, "cpu 25%  12.5 values/s  ~6 s left");
	p = count(1, 1000);
	assert_int_equal(promptline_text(&p, 1000, 80, buf, sizeof buf), 0);
	assert_string_equal(buf, "cpu 0%  1 values/s  ~17 min left");
	p = count(0, 1000);
	assert_int_equal(promptline_text(&p, 1500, 80, buf, sizeof buf), 0);
	assert_string_equal(buf, "cpu 0%  0 values/s  ~? left");
}

/* The line is cut to the terminal's width less one column (no wrap). */
static void test_line_fits(void **state)
{
	char buf[128];
	struct qx_progress p = count(25, 100);
	(void)state;
	assert_int_equal(promptline_text(&p, 2000, 10, buf, sizeof buf), 0);
	assert_string_equal(buf, "cpu 25%  ");
}

/* A run whose reference is still to compute says so after its own time, in its line and in
 * its estimate (the reference's time is not in them; it gets its own estimate). */
static void test_then_the_reference(void **state)
{
	char buf[128];
	struct qx_progress p = count(1, 1000);
	(void)state;
	p.then = "the reference";
	assert_int_equal(promptline_estimate(&p, 541, buf, sizeof buf), 0);
	assert_string_equal(buf, "cpu: estimated 9 min, then the reference; Ctrl-C cancels");
	assert_int_equal(promptline_text(&p, 1000, 80, buf, sizeof buf), 0);
	assert_string_equal(buf, "cpu 0%  1 values/s  ~17 min left, then the reference");
}

/* An adaptive run: its error against where it stops, its evaluations and the cancel key;
 * no percent, no time left and no estimate (its length is not known). */
static void test_adaptive(void **state)
{
	char buf[128];
	struct qx_progress p = count(3107340, 100000000);
	(void)state;
	p.err = 3.2e-5;
	p.target = 5.8e-8;
	assert_int_equal(promptline_text(&p, 999, 80, buf, sizeof buf), -1);
	assert_int_equal(promptline_text(&p, 2000, 80, buf, sizeof buf), 0);
	assert_string_equal(buf, "cpu error 3.2e-05, stops at 5.8e-08  3107340 evaluations  Ctrl-C "
	                         "cancels");
	assert_int_equal(promptline_estimate(&p, 2000, buf, sizeof buf), -1);
}

/* The estimate: only when the work left is over PROMPTLINE_LONG_MS, and not before half a
 * second has given a rate; minutes and hours in words. */
static void test_estimate(void **state)
{
	char buf[128];
	struct qx_progress p = count(1, 1000);
	(void)state;
	assert_int_equal(promptline_estimate(&p, 400, buf, sizeof buf), -1);
	assert_int_equal(promptline_estimate(&p, 541, buf, sizeof buf), 0); /* 540.5 s */
	assert_string_equal(buf, "cpu: estimated 9 min; Ctrl-C cancels");
	p = count(100, 1000); /* 9 x 0.5 s = 4.5 s left: short */
	assert_int_equal(promptline_estimate(&p, 500, buf, sizeof buf), -1);
	p = count(1, 100000);
	assert_int_equal(promptline_estimate(&p, 1000, buf, sizeof buf), 0);
	assert_string_equal(buf, "cpu: estimated 27.8 h; Ctrl-C cancels");
	p = count(10, 1000);
	assert_int_equal(promptline_estimate(&p, 1000, buf, sizeof buf), 0);
	assert_string_equal(buf, "cpu: estimated 1 min 39 s; Ctrl-C cancels");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_no_line),   cmocka_unit_test(test_line),
	    cmocka_unit_test(test_line_fits), cmocka_unit_test(test_estimate),
	    cmocka_unit_test(test_adaptive),  cmocka_unit_test(test_then_the_reference),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
