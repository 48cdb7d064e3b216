/* longman_amp.h - problem longman's expression amplitude g(x) in x and lambda (`set integrand
 * "EXPR"`): its parse check, its compiled code for the CPU and the GPU, the check that it
 * decays, and the parts of its remainder estimate that e^{-lambda x}'s does not need. */
#ifndef QX_LONGMAN_AMP_H
#define QX_LONGMAN_AMP_H

#include "../../problem.h"
#include "../user_integrand.h"
#include "longman_math.h"
#include "longman_tables.h"

#ifdef QX_HAVE_CUDA
#include "longman_gpu.h"
#endif

/* The user's amplitude compiled for the CPU: its functions and their parameters' data. */
struct lm_user_fn {
	struct longman_amp amp;
	double data[USER_DATA_COUNT];
};

/* Parses p's expression amplitude against u to check it, and that it uses every batch
 * parameter of u; returns 0 or -1 with e. */
int longman_amp_check(const struct param_value *p, const struct user_defs *u, struct qx_err *e);

/* A run's batch of the user's parameters: the lookup (longman_math.h) and its lists' nvals
 * values (malloc'd; NULL for no batch). */
struct lm_batch_lists {
	struct longman_batch b;
	double *vals;
	long long nvals;
};

/* Makes the batch of u (NULL or no batch parameter: none, nb 0) over p's M points into *l.
 * Returns 0 or -1 with e; free it with longman_amp_batch_free. */
int longman_amp_batch(const struct param_value *p, const struct user_defs *u,
                      struct lm_batch_lists *l, struct qx_err *e);
void longman_amp_batch_free(struct lm_batch_lists *l);

/* Compiles (or finds in *jit) p's amplitude for the CPU into *uf, its compile times into o
 * when not NULL. Returns 0 or -1 with e. */
int longman_amp_bind_cpu(const struct param_value *p, const struct user_defs *u, void **jit,
                         struct lm_user_fn *uf, struct run_output *o, struct qx_err *e);

/* Refuses an amplitude amp of p that does not decay, before anything runs: over p's lambdas
 * and u's batch parameters (u NULL: amp's parameters as they are). Returns 0, or -1 with e
 * saying where |g| stays. */
int longman_amp_decay_check(const struct param_value *p, const struct user_defs *u,
                            const struct longman_amp *amp, struct qx_err *e);

/* The error of Gauss-Legendre's value `whole` of the first part [a, a + h] against GSL's QAGS,
 * plus QAGS's own estimate; NaN when QAGS cannot integrate the first part. */
double longman_amp_first_err(int f, double lam, double om, double a, double h, double whole,
                             const struct longman_amp *amp);

/* The remainder estimate from the signed areas A_0..A_n: twice the largest of the last three
 * terms' sizes of the Euler transform (euler) or of the direct sum. */
double longman_amp_bound(const double *areas, int n, int euler);

/* The quadrature error estimate of one segment [x0, x0 + h] of order g, times its weight c in
 * the sum: twice the difference of the whole segment and its two halves. */
double longman_amp_quad(int f, double lam, double om, double x0, double h, int g,
                        const struct longman_tables *tab, const struct longman_amp *amp, double c);

#ifdef QX_HAVE_CUDA
/* Links rq's amplitude into the packed kernel for the run's precision (or finds it in the
 * session's cache): job->user_p and job->user_kernel, the compile times into o when not NULL.
 * Returns 0 or -1 with e. */
int longman_amp_bind_gpu(const struct run_request *rq, struct longman_gpu_job *job,
                         struct run_output *o, struct qx_err *e);
#endif

#endif
