/* longman_qawf.h - Longman's integrals by GSL's QAWF (gsl_integration_qawf): variant qawf, and
 * the reference of an expression amplitude, which has no closed form. */
#ifndef QX_LONGMAN_QAWF_H
#define QX_LONGMAN_QAWF_H

#include <stddef.h>

#include "../../qx.h"
#include "longman_math.h"

/* A batch of integrals of amp(x) cos(omega x) or sin (trig: LM_COS or LM_SIN) over [a, inf):
 * integral k's lambda and omega come from at(arg, k, ...); amp NULL is e^{-lambda x}. params
 * (NULL: amp's parameters for every integral) writes integral k's parameters into a copy of
 * amp's data (USER_DATA_COUNT values) that each thread owns. */
struct lm_qawf_batch {
	void (*at)(const void *arg, size_t k, double *lam, double *om);
	const void *arg;
	double a;
	int trig;
	const struct longman_amp *amp;
	void (*params)(const void *arg, size_t k, double *data);
};

/* What a QAWF computation found: the largest error GSL estimated, and how many integrals GSL
 * could not obtain (their value is NaN: not compared). */
struct lm_qawf_stats {
	double err_max;
	long long failed;
};

/* Computes integrals through gsl_integration_qawf of batch b, in double, on `threads` threads (each
 * with its own workspaces), polling the cancel flag between blocks: integral idx[i] for i < count
 * into out[idx[i]] (idx NULL: every integral k < count into out[k]). With st NULL (the variant) any
 * failure fails the run; else (a reference) a failed integral gets NaN, counted in *st with the
 * largest error estimate. */
int longman_qawf(const struct lm_qawf_batch *b, int threads, const size_t *idx, long long count,
                 struct lm_qawf_stats *st, double *out, struct qx_err *e);

#endif
