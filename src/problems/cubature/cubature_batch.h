/* cubature_batch.h - many integrals of one typed integrand in one run of problem cubature: the
 * batch (the user's batch parameters, each a list of values, their grid the integrals), what
 * each integral gives, and the runs that take a batch, CPU (cubature_batch_cpu.c) and GPU
 * (cuda/cubature/batch.cu). Plain C, no CUDA; the parameter lookup is inline and compiled for
 * the device too, so that a GPU kernel finds an integral's parameters from its index alone. */
#ifndef QX_CUBATURE_BATCH_H
#define QX_CUBATURE_BATCH_H

#include "cubature_job.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CUB_BATCH_PARAMS 4        /* batch parameters a run takes at most */
#define CUB_BATCH_MAX 100000000LL /* integrals a run takes at most */

/* The integrals of a batch: the grid of nb lists, list b (len[b] values) for the user's
 * parameter in slot[b] of the job's fn.user; integral i takes value (i / stride_b) % len[b]
 * of list b, stride_0 = 1 and stride_b the product of the lengths before it (the first
 * parameter varies fastest). n, the product of the lengths, is at most CUB_BATCH_MAX. */
struct cub_batch {
	long long n;
	int nb;
	int slot[CUB_BATCH_PARAMS];
	long long len[CUB_BATCH_PARAMS];
	const double *list[CUB_BATCH_PARAMS];
};

/* Writes integral i's batch parameter values into user (a copy of the job's fn.user), each
 * from its list; lists[b] may be a device copy of b->list[b]. */
CUB_HD void cub_batch_params(const struct cub_batch *b, const double *const *lists, long long i,
                             double *user)
{
	for (int k = 0; k < b->nb; k++) {
		user[b->slot[k]] = lists[k][i % b->len[k]];
		i /= b->len[k];
	}
}

/* What a batch run gives, per integral (arrays of n the caller allocates): value, error
 * estimate (as cub_result's err: the rule's, before the rounding cub_output adds), reason
 * (enum cub_reason) and evaluations; and the run's totals. */
struct cub_batch_result {
	double *value, *err;
	int *reason;
	long long *evals;
	long long *live; /* optional (NULL: not kept): the live regions an integral ended with, for
	                  * the rounding of their sum (without it cub_output_batch takes the
	                  * regions its evaluations could have made, a bound) */
	long long total_evals, iterations, regions, peak_regions;
	double peak_bytes;
	int mc; /* the Monte Carlo variants' batch (cub_result's mc): each err a standard error */
};

/* The CPU's batch: every integral of b by the job's CPU algorithm (breadth: the queue, one
 * integral a thread at a time over job->threads threads; hcubature: libcubature once an
 * integral), each to the job's tolerances and maxeval. Returns 0 or -1 with e. */
int cub_cpu_batch(const struct cub_job *job, const struct cub_batch *b,
                  int (*run)(const struct cub_job *job, struct cub_result *res, struct qx_err *e),
                  struct cub_batch_result *out, struct qx_err *e);

/* The GPU's batch on breadth (cuda/cubature/batch.cu): one region list for all the integrals,
 * each region tagged with its integral; per iteration the rule over every live region, the
 * sums per integral, and the regions of the integrals not yet converged split where their
 * error is over their integral's threshold; an integral that converges retires its regions
 * and costs nothing more. Returns 0 or -1 with e. */
int cub_gpu_batch_run(const struct cub_job *job, const struct cub_batch *b,
                      struct cub_batch_result *out, struct qx_timing *t, struct qx_err *e);

/* The GPU's batch on twophase (cuda/cubature/batch.cu): phase 1 is breadth's batch above until
 * the next list would pass job->lmax regions (or the list's room); phase 2 takes every live
 * region of the integrals not yet finished, one thread each with its heap, each region to its
 * volume's share of its integral's tolerance. Returns 0 or -1 with e. */
int cub_gpu_batch_twophase_run(const struct cub_job *job, const struct cub_batch *b,
                               struct cub_batch_result *out, struct qx_timing *t, struct qx_err *e);

/* A GPU batch run (cub_gpu_batch_run, cub_gpu_batch_twophase_run). */
typedef int (*cub_gpu_batch_fn)(const struct cub_job *job, const struct cub_batch *b,
                                struct cub_batch_result *out, struct qx_timing *t,
                                struct qx_err *e);

struct user_defs;  /* userdefs.h */
struct expr;       /* expr/expr.h */
struct run_output; /* problem.h */

/* Stores the results of a batch of n integrals that took ms into o, each by cub_output_value
 * (o->estimates, n of them, when o has room), with the figures integrals, converged (how many),
 * worst_error_estimate, ms_per_integral, integrals_per_s and the evaluations, and the note of
 * how many converged and why the others did not. */
void cub_output_batch(const struct cub_job *job, long long n, const struct cub_batch_result *res,
                      double ms, struct run_output *o);

/* Parses u's exact expression (set exact "EXPR") in its parameters (names, u->nparams of them)
 * into *x; refuses one that uses an axis. Returns 0 or -1 with e. */
int cub_exact_parse(const struct user_defs *u, const char *const *names, struct expr **x,
                    struct qx_err *e);

/* The exact expression of u at every integral of u's batch (count of them; one without a
 * batch) into ref. Returns 0 or -1 with e. */
int cub_exact_expression(const struct user_defs *u, size_t count, double *ref, struct qx_err *e);

/* The names and values of integral i's batch parameters (at most cap of them) into names and
 * vals; returns how many. */
int cub_batch_point(const struct user_defs *u, size_t i, const char **names, double *vals, int cap);

/* Runs u's batch of job on backend b (QX_CPU: cub_cpu_batch with cpu_run; QX_GPU: gpu_run),
 * its answers into o (cub_output_batch). On the CPU a batch whose result
 * arrays and region lists (a budget set: all of it; else a quarter of what the arrays leave)
 * do not fit the host's memory is refused before anything is allocated. Returns 0 or -1 with
 * e. */
int cub_batch_run(const struct cub_job *job, const struct user_defs *u, enum qx_backend b,
                  int (*cpu_run)(const struct cub_job *job, struct cub_result *res,
                                 struct qx_err *e),
                  cub_gpu_batch_fn gpu_run, struct run_output *o, struct qx_err *e);

#ifdef __cplusplus
}
#endif

#endif
