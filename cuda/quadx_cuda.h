/* quadx_cuda.h - the whole C interface of the GPU backend. Every function returns 0, or -1
 * with the CUDA call and its message in e; none of them exits. */
#ifndef QUADX_CUDA_H
#define QUADX_CUDA_H

#include "../src/qx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What `show device` prints about the GPU. */
struct gpu_info {
	char name[256];
	int cc_major, cc_minor;
	int sms;
	int max_threads_per_block;
	size_t shared_per_block;
	size_t mem_total, mem_free;
	int sm_clock_mhz, mem_clock_mhz, mem_bus_bits;
	int driver_version, runtime_version;
	double context_ms; /* time to create the CUDA context, paid once per session */
};

/* 1 when this binary contains the GPU backend (built with nvcc). */
int gpu_compiled(void);

/* Creates the CUDA context on device 0 on first use and fills *info (the memory free is read
 * at each call). A success is kept for the session; a failure is not kept: the next call
 * tries again, so a transient failure costs one command and a permanent one (no device, an
 * old driver) is reported by each. Fails with the reason when there is no usable GPU. */
int gpu_init(struct gpu_info *info, struct qx_err *e);

/* Returns a pinned host buffer of at least bytes, owned by the GPU layer and reused by later
 * runs (it grows when needed), or NULL with e filled. */
void *gpu_host_buffer(size_t bytes, struct qx_err *e);

/* Frees the pinned buffer and the device's resources at exit; nothing when no GPU was used. */
void gpu_release(void);

/* Floors for the benchmark: the median time of a pinned device-to-host copy of bytes (into a
 * pinned buffer of the measurement's own; the result buffer is not touched), and of a kernel
 * that only writes count values of precision prec, each over reps timed runs. */
int gpu_floor_copy(size_t bytes, int reps, double *ms, struct qx_err *e);
int gpu_floor_write(size_t count, enum qx_precision prec, int block, int reps, double *ms,
                    struct qx_err *e);

/* What the CUDA occupancy API says about one kernel at one block size: registers per thread
 * (cudaFuncGetAttributes), resident blocks per SM and the theoretical occupancy (resident
 * threads / the SM's maximum, cudaOccupancyMaxActiveBlocksPerMultiprocessor), and the block
 * size cudaOccupancyMaxPotentialBlockSize suggests for the kernel. */
struct gpu_occupancy {
	int block; /* threads per block the kernel is launched with */
	int regs_per_thread;
	int blocks_per_sm;
	double occupancy; /* 0..1 */
	int suggested_block;
	size_t shared_bytes; /* shared memory per block (static + dynamic) */
};

/* Most streams a streamed expint run may use (`set streams K`). */
#define EXPINT_MAX_STREAMS 16

/* How an expint GPU run moves its results: one kernel then one copy (the coursework's), or the
 * grid in chunks over `streams` streams whose copies overlap the next chunks' kernels. */
enum expint_gpu_sequence { EXPINT_SEQ_SERIAL = 0, EXPINT_SEQ_STREAMED = 1 };

/* Where the kernel keeps its inputs: arguments (global), x staged through shared memory, or
 * a, step, m and iters in __constant__ memory (the seed report's experiments). */
enum expint_gpu_memory { EXPINT_MEM_GLOBAL = 0, EXPINT_MEM_SHARED = 1, EXPINT_MEM_CONSTANT = 2 };

/* One expint run on the GPU: E_i(x_j) for i = 1..n, x_j = a + (b-a) j/m, j = 1..m, row-major
 * into host_out (n*m values of prec). algo is an enum expint_algo. */
struct expint_gpu_job {
	int n;
	long long m;
	double a, b;
	long iters;
	enum qx_precision prec;
	int algo;
	int block;
	int sequence; /* enum expint_gpu_sequence */
	int memory;   /* enum expint_gpu_memory */
	int streams;  /* streams of the streamed sequence, 1..EXPINT_MAX_STREAMS */
};
/* Device bytes the job allocates at once (checked against the free memory before a run). */
size_t expint_gpu_device_bytes(const struct expint_gpu_job *job);
/* Runs the job into host_out (pinned, n*m values of prec) with the phase times in *t; on any
 * failure frees what it allocated and leaves the device usable. */
int expint_gpu_run(const struct expint_gpu_job *job, void *host_out, struct qx_phases *t,
                   struct qx_err *e);

/* Fills *o for the kernel the job launches at its block size; returns 0 or -1. */
int expint_gpu_occupancy(const struct expint_gpu_job *job, struct gpu_occupancy *o,
                         struct qx_err *e);

/* E_n(x) for one (n, x) on the GPU, computed in precision prec with algorithm algo. */
int expint_gpu_eval(int n, double x, long iters, enum qx_precision prec, int algo, double *value,
                    struct qx_err *e);
/* E_{n[i]}(x[i]) for count points on the GPU, one thread each, in precision prec (x[i] rounded
 * to it) by algorithm algo: the value widened to double in values[i], the enum expint_status
 * in status[i] (the accuracy table and the unit test check every reference point with it). */
int expint_gpu_eval_batch(const int *n, const double *x, long count, long iters,
                          enum qx_precision prec, int algo, double *values, int *status,
                          struct qx_err *e);

/* Problem longman: M integrals int_a^inf e^{-lambda x} f(omega x) dx by Longman's method. The
 * job carries the parameters (lambda, omega of integral k come from longman_params() of
 * src/problems/longman_math.h, on the device) and the host's tables, which the GPU layer
 * uploads only when g or N changed since the last run. layout: LONGMAN_GPU_PACKED (a team of
 * lanes per integral) or LONGMAN_GPU_BLOCK (the seed's: a block per integral and the N x N
 * difference table in shared memory). */
enum longman_gpu_layout { LONGMAN_GPU_PACKED = 0, LONGMAN_GPU_BLOCK = 1 };
struct longman_gpu_job {
	long long m;
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
};
/* Device bytes the job allocates at once (checked against the free memory before a run). */
size_t longman_gpu_device_bytes(const struct longman_gpu_job *job);
/* Runs the job into host_out (pinned, M values of prec) with the phase times in *t. The
 * caller has checked the packed block (longman_packed_block_ok); refuses, before allocating,
 * an N the block layout cannot fit on this device; on any failure frees what it allocated. */
int longman_gpu_run(const struct longman_gpu_job *job, void *host_out, struct qx_phases *t,
                    struct qx_err *e);

/* Fills *o for the kernel the job launches, at the block size it launches with (packed:
 * job->block; block: N+1 rounded up to a warp); returns 0 or -1. */
int longman_gpu_occupancy(const struct longman_gpu_job *job, struct gpu_occupancy *o,
                          struct qx_err *e);

#ifdef __cplusplus
}
#endif

#endif
