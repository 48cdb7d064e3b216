/* longman_qawf.c - Longman's integrals by GSL's QAWF (longman_qawf.h), on OpenMP threads. */
#include "longman_qawf.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <math.h>
#include <string.h>

#include "../user_integrand.h"

/* The amplitude of one integral for GSL's QAWF: e^{-lambda x}, or the user's g at {x, lambda}. */
struct lm_qawf_arg {
	const struct longman_amp *amp;
	double lam;
};

/* gsl_function of lm_qawf_arg: the amplitude at x (QAWF multiplies by the oscillator). */
static double longman_qawf_amp(double x, void *arg)
{
	const struct lm_qawf_arg *q = arg;
	if (!q->amp)
		return exp(-q->lam * x);
	const double at[2] = {x, q->lam};
	return q->amp->d(at, q->amp->p);
}

int longman_qawf(const struct lm_qawf_batch *b, int threads, const size_t *idx, long long count,
                 struct lm_qawf_stats *st, double *out, struct qx_err *e)
{
	enum { BLOCK = 1024, LIMIT = 1000 };
	const long long nblocks = (count + BLOCK - 1) / BLOCK;
	const int f = b->trig;
	const enum gsl_integration_qawo_enum kind = f == LM_SIN ? GSL_INTEG_SINE : GSL_INTEG_COSINE;
	long long bad = -1, failed = 0;
	int bad_status = 0;
	double err_max = 0;
	if (f == LM_J0)
		return qx_fail(e, "variant qawf does not apply to integrand j0: QAWF integrates "
		                  "f(x) cos(omega x) or f(x) sin(omega x) only");
	gsl_set_error_handler_off();
#pragma omp parallel num_threads(threads) reduction(max : err_max) reduction(+ : failed)
	{
		gsl_integration_workspace *ws = gsl_integration_workspace_alloc(LIMIT);
		gsl_integration_workspace *cyc = gsl_integration_workspace_alloc(LIMIT);
		gsl_integration_qawo_table *tab = gsl_integration_qawo_table_alloc(1, 1, kind, 50);
		double data[USER_DATA_COUNT]; /* this thread's parameters of the amplitude */
		struct longman_amp mine;
		if (b->amp && b->params) {
			mine = *b->amp;
			memcpy(data, b->amp->p, sizeof data);
			mine.p = data;
		}
#pragma omp for schedule(dynamic, 1)
		for (long long blk = 0; blk < nblocks; blk++) {
			if (qx_cancelled() || !ws || !cyc || !tab)
				continue;
			const long long end =
			    blk * BLOCK + BLOCK < count ? blk * BLOCK + BLOCK : count;
			for (long long i = blk * BLOCK; i < end; i++) {
				const long long k = idx ? (long long)idx[i] : i;
				double om, abserr;
				struct lm_qawf_arg arg = {b->amp && b->params ? &mine : b->amp, 0};
				gsl_function fn = {longman_qawf_amp, &arg};
				b->at(b->arg, (size_t)k, &arg.lam, &om);
				if (b->amp && b->params)
					b->params(b->arg, (size_t)k, data);
				gsl_integration_qawo_table_set(tab, om, 1, kind);
				const int status = gsl_integration_qawf(&fn, b->a, 1e-13, LIMIT, ws,
				                                        cyc, tab, out + k, &abserr);
				if (status && status != GSL_EROUND) {
					if (st) {
						out[k] = NAN;
						failed++;
						continue;
					}
#pragma omp critical(longman_bad)
					if (bad < 0 || k < bad) {
						bad = k;
						bad_status = status;
					}
				}
				err_max = abserr > err_max ? abserr : err_max;
			}
			qx_progress_add(end - blk * BLOCK);
		}
		if (!ws || !cyc || !tab) {
#pragma omp critical(longman_bad)
			bad_status = GSL_ENOMEM;
		}
		gsl_integration_qawo_table_free(tab);
		gsl_integration_workspace_free(cyc);
		gsl_integration_workspace_free(ws);
	}
	if (qx_cancelled())
		return qx_fail(e, "run cancelled");
	if (bad_status == GSL_ENOMEM)
		return qx_fail(e, "variant qawf: cannot allocate GSL workspaces");
	if (bad >= 0) {
		double lam, om;
		b->at(b->arg, (size_t)bad, &lam, &om);
		return qx_fail(e,
		               "gsl_integration_qawf failed at lambda = %.17g, omega = %.17g: %s",
		               lam, om, gsl_strerror(bad_status));
	}
	if (st)
		*st = (struct lm_qawf_stats){err_max, failed};
	return 0;
}
