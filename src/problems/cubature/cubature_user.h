/* cubature_user.h - the user's own integrand bound into a job of problem cubature
 * (cubature_user.c): its text parsed against the user's parameters and bounds, its data in
 * the job's fn.user and its code compiled for the CPU, or linked into the GPU kernels the
 * variant launches. A built-in integrand passes unchanged. The time and cache of the compile
 * go to o as figures. */
#ifndef QX_CUBATURE_USER_H
#define QX_CUBATURE_USER_H

#include "../../problem.h"
#include "cubature_job.h"

/* For a CPU run: fn.user_d and fn.user_f compiled (or found in the session's cache jit), the
 * job's box lo..hi the one its bounds give; the compile's time counted as o's untimed_ms.
 * Returns 0 or -1 with e. */
int cub_user_bind_cpu(const char *text, const struct user_defs *u, void **jit, struct cub_job *job,
                      struct run_output *o, struct qx_err *e);

#ifdef QX_HAVE_CUDA
/* For a GPU run: uk's first nkernels kernels (the rule's, then phase 2's; nkernels -CUB_MC_VEGAS
 * or -CUB_MC_QMC: that Monte Carlo variant's one kernel) linked at run time
 * for the job's precision and dimension, job->user set to uk; the job then integrates over
 * the unit cube, which the integrand's code maps onto its box axis by axis. Returns 0 or -1
 * with e. */
int cub_user_bind_gpu(const char *text, const struct user_defs *u, void **jit, int nkernels,
                      struct cub_job *job, struct cub_user_kernels *uk, struct run_output *o,
                      struct qx_err *e);
#endif

#endif
