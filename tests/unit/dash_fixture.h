/* dash_fixture.h - what the dashboard's unit tests share: a small expint session and a
 * fabricated GPU result on it. Included by test_dashdata.c and test_panels.c after cmocka.h. */
#ifndef QX_DASH_FIXTURE_H
#define QX_DASH_FIXTURE_H

#include <string.h>

#include "../../src/run.h"
#include "../../src/session.h"
#include "timing_fixture.h"

/* Sets s up on expint with n=2 m=3 (6 points), double precision and block 128. */
static void fixture_session(struct session *s)
{
	char *argv[] = {"n", "2", "m", "3", "block", "128", "precision", "double"};
	struct qx_err e;
	session_init(s);
	assert_int_equal(session_set(s, 8, argv, &e), 0);
}

/* Makes r the last result of s: a GPU run of block 128 over its 6 points with phases med
 * (ms), 40x faster than CPU serial and 10x than CPU 4 threads, whose values (written to
 * vals) are off the reference by worst_rel at point 4 and by 2e-9 elsewhere. */
static void fixture_gpu_result(struct session *s, struct run_result *r, double *vals,
                               struct qx_timing med, double worst_rel)
{
	struct qx_err e;
	const double *ref;
	memset(r, 0, sizeof *r);
	r->prob = s->prob;
	memcpy(r->params, s->params[s->prob_index], sizeof r->params);
	r->summary.backend = QX_GPU;
	r->summary.prec = QX_DOUBLE;
	session_timing_key(r->prob, r->params, &s->user, r->summary.prec, r->summary.variant,
	                   r->timing_key, sizeof r->timing_key);
	r->summary.block = 128;
	r->evals = 6;
	r->summary.med = med;
	r->speedup_serial = 40;
	r->speedup_threads = 10;
	r->threads_ref = 4;
	ref = session_reference(s, r->prob, r->params, &e);
	assert_non_null(ref);
	for (int i = 0; i < 6; i++)
		vals[i] = ref[i] * (1 + (i == 4 ? worst_rel : 2e-9));
	err_stats_compute(ref, vals, QX_DOUBLE, 6, 1e-5, &r->err);
	r->has_error = 1;
	s->last = r;
	s->last_values = vals;
}

#endif
