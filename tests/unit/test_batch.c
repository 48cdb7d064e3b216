/* test_batch.c - the bookkeeping of cubature's batch of integrals: the value specs the user's
 * batch parameters take (param_spec_parse, as sweep's), the grid of two batch parameters
 * (user_batch_count, user_batch_point: the first varies fastest), the device-side lookup
 * cub_batch_params over the same grid, the refusals of user_param_define, and the per-integral
 * counts of cub_output_batch over simulated results. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/problem.h"
#include "../../src/problems/cubature/cubature_batch.h"
#include "../../src/problems/cubature/cubature_output.h"

/* Defines name = value in u (a store for the lists), or fails the test. */
static void define(struct user_defs *u, struct param_store *store, const char *name,
                   const char *value)
{
	struct qx_err e;
	if (user_param_define(u, store, name, value, NULL, NULL, &e))
		fail_msg("%s", e.msg);
}

/* Ranges and lists count and give their values as sweep's words read. */
static void test_specs(void **state)
{
	(void)state;
	struct param_spec s;
	struct qx_err e;
	assert_int_equal(param_spec_parse("1..1000:1", 100000000LL, &s, &e), 1000);
	assert_true(param_spec_value(&s, 999) == 1000);
	assert_int_equal(param_spec_parse("1..1e6:x2", 100000000LL, &s, &e), 20);
	assert_true(param_spec_value(&s, 19) == 524288);
	assert_int_equal(param_spec_parse("0.1..0.5:0.1", 100, &s, &e), 5);
	assert_true(param_spec_value(&s, 2) == 0.3); /* its word, not 0.30000000000000004 */
	assert_int_equal(param_spec_parse("0.5,1,2", 100, &s, &e), 3);
	assert_true(param_spec_value(&s, 2) == 2);
	assert_int_equal(param_spec_parse("5..1", 100, &s, &e), -1);
	assert_non_null(strstr(e.msg, "above"));
	assert_int_equal(param_spec_parse("1..1000:1", 999, &s, &e), -1);
}

/* A 2-parameter grid: counts, each integral's values, the first parameter fastest, and the
 * same values through cub_batch_params into a job's data. */
static void test_grid(void **state)
{
	(void)state;
	struct param_store *store = param_store_new();
	struct user_defs u;
	user_defs_init(&u);
	define(&u, store, "c", "7");
	define(&u, store, "k", "1..3:1");
	define(&u, store, "q", "0.5,2");
	assert_int_equal(u.nbatch, 2);
	assert_int_equal(user_batch_count(&u), 6);
	const double want[6][2] = {{1, 0.5}, {2, 0.5}, {3, 0.5}, {1, 2}, {2, 2}, {3, 2}};
	double lists[2][3];
	param_spec_values(&u.batch[0].spec, lists[0]);
	param_spec_values(&u.batch[1].spec, lists[1]);
	const double *l[2] = {lists[0], lists[1]};
	struct cub_batch b = {.n = 6, .nb = 2, .slot = {1, 2}, .len = {3, 2}, .list = {l[0], l[1]}};
	for (long long i = 0; i < 6; i++) {
		double at[USER_BATCH_PARAMS], data[3] = {7, NAN, NAN};
		user_batch_point(&u, i, at);
		assert_true(at[0] == want[i][0] && at[1] == want[i][1]);
		cub_batch_params(&b, l, i, data);
		assert_true(data[0] == 7 && data[1] == want[i][0] && data[2] == want[i][1]);
	}
	define(&u, store, "k", "3.5"); /* one value again: q alone */
	assert_int_equal(u.nbatch, 1);
	assert_int_equal(user_batch_count(&u), 2);
	assert_true(u.param_value[1] == 3.5);
	param_store_free(store);
}

/* Refusals leave u as it was: too many integrals, too many batch parameters, a bad list. */
static void test_refusals(void **state)
{
	(void)state;
	struct param_store *store = param_store_new();
	struct user_defs u, before;
	struct qx_err e;
	user_defs_init(&u);
	define(&u, store, "k", "1..1e5:1");
	before = u;
	assert_int_equal(user_param_define(&u, store, "q", "1..1e4:1", NULL, NULL, &e), -1);
	assert_non_null(strstr(e.msg, "at most 100000000"));
	assert_int_equal(user_param_define(&u, store, "q", "1,x", NULL, NULL, &e), -1);
	assert_memory_equal(&u, &before, sizeof u);
	define(&u, store, "a", "1,2");
	define(&u, store, "b", "1,2");
	define(&u, store, "c", "1,2");
	assert_int_equal(user_param_define(&u, store, "d", "1,2", NULL, NULL, &e), -1);
	assert_non_null(strstr(e.msg, "at most 4 batch parameters"));
	param_store_free(store);
}

/* cub_output_batch over simulated results: the converged count, each estimate with the
 * rounding added, the precision recheck of one that met the tolerance only before it, the
 * worst estimate and the note. */
static void test_output_counts(void **state)
{
	(void)state;
	struct cub_job job = {.rel = 1e-10, .prec = QX_DOUBLE};
	double value[4] = {1, 2, 3, 4}, err[4] = {1e-12, 1e-3, 2.99999999e-10, 1e-12}, vals[4],
	       est[4];
	int reason[4] = {CUB_CONVERGED, CUB_MAXEVAL, CUB_CONVERGED, CUB_CONVERGED};
	long long evals[4] = {100, 200, 300, 400}, live[4] = {1, 1, 1 << 20, 1};
	struct cub_batch_result r = {.value = value,
	                             .err = err,
	                             .reason = reason,
	                             .evals = evals,
	                             .live = live,
	                             .total_evals = 1000};
	struct run_output o = {.values = vals, .estimates = est};
	cub_output_batch(&job, 4, &r, 2.0, &o);
	for (int i = 0; i < 4; i++) {
		assert_true(vals[i] == value[i]);
		assert_true(est[i] > err[i]); /* the sum's rounding is in every estimate */
	}
	double converged = -1, worst = -1, n = -1;
	for (size_t f = 0; f < o.nfigures; f++) {
		if (!strcmp(o.figure[f].name, "converged"))
			converged = o.figure[f].value;
		if (!strcmp(o.figure[f].name, "worst_error_estimate"))
			worst = o.figure[f].value;
		if (!strcmp(o.figure[f].name, "integrals"))
			n = o.figure[f].value;
	}
	assert_true(n == 4);
	assert_true(converged == 2); /* the third is over 3e-10 once its rounding is added */
	assert_true(worst == est[1]);
	assert_non_null(o.note);
	assert_string_equal(o.note, "not converged: 2 of 4 integrals (maxeval reached, and other "
	                            "reasons)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_specs),
	    cmocka_unit_test(test_grid),
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_output_counts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
