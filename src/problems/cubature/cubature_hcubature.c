/* cubature_hcubature.c - problem cubature's variant hcubature (cubature_cpu.h): Debian's
 * libcubature, S. G. Johnson's hcubature, on the job's integrand, its evaluations counted. */
#include "cubature_cpu.h"

#include <cubature.h>
#include <math.h>

#include "cubature_math_all.h"

/* libcubature's integrand: one value of the job's function. */
static int cub_hcubature_f(unsigned ndim, const double *x, void *fdata, unsigned fdim, double *fval)
{
	(void)ndim;
	(void)fdim;
	if (qx_cancelled())
		return 1; /* hcubature stops and returns failure */
	fval[0] = cub_f_d((const struct cub_fn *)fdata, x);
	return 0;
}

/* The integrand with the count of its evaluations. */
struct cub_counted {
	struct cub_fn fn;
	long long evals;
};

/* Counts and evaluates. */
static int cub_hcubature_counted(unsigned ndim, const double *x, void *fdata, unsigned fdim,
                                 double *fval)
{
	struct cub_counted *c = fdata;
	c->evals++;
	return cub_hcubature_f(ndim, x, &c->fn, fdim, fval);
}

/* Runs hcubature over the job's box to its tolerances and maxeval; the reason is maxeval
 * where the error it returns is over the tolerance. */
int cub_cpu_hcubature(const struct cub_job *job, struct cub_result *res, struct qx_err *e)
{
	struct cub_counted c = {job->fn, 0};
	*res = (struct cub_result){0};
	const int rc = hcubature(1, cub_hcubature_counted, &c, (unsigned)c.fn.dim, job->lo, job->hi,
	                         (size_t)job->maxeval, job->abs, job->rel, ERROR_INDIVIDUAL,
	                         &res->value, &res->err);
	if (qx_cancelled())
		return qx_fail(e, "run cancelled");
	if (rc)
		return qx_fail(e, "hcubature failed (out of memory?)");
	res->evals = c.evals;
	res->unverified = 1;
	res->reason =
	    res->err <= fmax(job->abs, job->rel * fabs(res->value)) ? CUB_CONVERGED : CUB_MAXEVAL;
	return 0;
}
