/* longman.h - the C interface of problem longman's GPU code (cuda/longman/longman.cu). Every
 * function returns 0, or -1 with the CUDA call and its message in e; none of them exits. */
#ifndef QUADX_LONGMAN_H
#define QUADX_LONGMAN_H

#include "../../device.h"
#include "longman_math.h"

/* The user's parameters an expression amplitude may read (USER_MAX_PARAMS). */
#define LM_USER_PARAMS 16

#ifdef __cplusplus
extern "C" {
#endif

/* Problem longman: M integrals int_a^inf e^{-lambda x} f(omega x) dx by Longman's method. The
 * job carries the parameters (lambda, omega of integral k come from longman_params() of
 * src/problems/longman/longman_math.h, on the device) and the host's tables, which the GPU layer
 * uploads only when g or N changed since the last run. layout: LONGMAN_GPU_PACKED (a team of
 * lanes per integral) or LONGMAN_GPU_BLOCK (the seed's: a block per integral and the N x N
 * difference table in shared memory). */
enum longman_gpu_layout { LONGMAN_GPU_PACKED = 0, LONGMAN_GPU_BLOCK = 1 };
struct longman_gpu_job {
	long long m; /* integrals: the M (lambda, omega) points times the batch's grid */
	int n, g;
	double lam_lo, lam_hi, om_lo, om_hi, a;
	int spread;
	unsigned long long seed;
	int integrand, method, math; /* enum longman_integrand, longman_method, longman_mathlib */
	enum qx_precision prec;
	int layout;
	int block;
	int lanes; /* packed: lanes per integral (a power of two <= 32), 0 = chosen for the batch */
	const double *gl_t, *gl_w; /* g Gauss-Legendre nodes and weights on [-1, 1] */
	const double *euler_c;     /* n Euler weights of the areas */
	const double *zeros;       /* n + 1 zeros of J0 */
	const float *gl_tf, *gl_wf, *euler_cf, *zeros_f; /* the same tables rounded to float */
	/* An expression amplitude g(x) in place of e^{-lambda x}: the packed kernel linked with it
	 * at run time (a cudaKernel_t from src/gpujit, of the job's precision), NULL for the
	 * built-in kernels, and the user's parameters it reads (integrand is then the oscillator,
	 * method never auto, math unused). */
	const void *user_kernel;
	double user_p[LM_USER_PARAMS];
	/* The user's batch parameters of that amplitude (batch.nb 0: none; batch.m is M, the
	 * (lambda, omega) points, for the built-in kernels too): their lists on the host,
	 * batch_nvals values, which the run copies to the device (in its h2d phase). */
	struct longman_batch batch;
	const double *batch_vals;
	long long batch_nvals;
};
/* Device bytes the job allocates at once (checked against the free memory before a run): the
 * results and the batch's lists. */
size_t longman_gpu_device_bytes(const struct longman_gpu_job *job);
/* Runs the job into host_out (pinned, M values of prec) with its phases and total in *t. The
 * caller has checked the packed block (longman_packed_block_ok); refuses, before allocating,
 * an N the block layout cannot fit on this device; on any failure frees what it allocated. */
int longman_gpu_run(const struct longman_gpu_job *job, void *host_out, struct qx_timing *t,
                    struct qx_err *e);

/* Runs the job over devices 0..ngpus-1 (1..QX_MAX_GPUS): the batch split in contiguous
 * shares by the devices' SM counts (src/multigpu.h), each share driven from a host thread of
 * its own that makes its device current and runs it as longman_gpu_run runs a batch, on its
 * own buffer, streams, events and copies into host_out (pinned, M values of prec: each device
 * copies its share into place). Every integral is computed with the arguments the one-GPU run
 * uses (the lanes per integral chosen from device 0), so the values equal longman_gpu_run's
 * bit for bit. per[0..ngpus) gets each device's phases and total, *t the slowest device's.
 * On a failure on any device (named with its index) the others stop between chunks, and
 * every device's buffer, streams and events are freed before it returns -1. */
int longman_gpu_run_multi(const struct longman_gpu_job *job, int ngpus, void *host_out,
                          struct qx_timing *t, struct qx_timing *per, struct qx_err *e);

/* Fills *o for the kernel the job launches, at the block size it launches with (packed:
 * job->block; block: N+1 rounded up to a warp); returns 0 or -1. */
int longman_gpu_occupancy(const struct longman_gpu_job *job, struct gpu_occupancy *o,
                          struct qx_err *e);

#ifdef __cplusplus
}
#endif

#endif
