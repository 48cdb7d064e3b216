/* kde.h - problem kde's GPU code (cuda/kde/) as plain C: Gaussian kernel density sums of n
 * samples at m points. Every function returns 0, or -1 with the reason in e; none exits. The
 * caller opens the device first (gpu_init). */
#ifndef QX_CUDA_KDE_H
#define QX_CUDA_KDE_H

#include "../../qx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The GPU variants.
 * seed:   the Gaussian KDE study's own kernel and host code as written, float, 1-D, at the
 *         samples: one thread per sample, K(x) = 1/sqrt(2 pi) expf(-x^2/2). Its bugs, all kept:
 *         (1) `int xj = x[j]` truncates every sample toward zero; (2) y is never zeroed: the
 *         sums are added to whatever the fresh cudaMalloc holds (on a reused allocation, an
 *         earlier run's results); (3) the kernel's h parameter is an int; (4) the caller passes
 *         the block width in gaussian_kde's h argument, which sets the block and then h = 0.01,
 *         so the kernel gets h = 0 and every term is K(+-inf) = 0, or NaN where x_i equals a
 *         truncated sample (the job's h is ignored); (5) k = 1/(n h) is passed but never
 *         applied; (6) block * 4 bytes of dynamic shared memory are requested and unused. The
 *         only change: an output offset so that long runs go in cancellable chunks.
 * naive:  the same layout with the bugs fixed: float or double, expf/exp, one accumulator per
 *         thread (in float its rounding grows with n: the error the tiled kernel removes).
 * tiled:  samples staged through shared memory a block-wide tile at a time, KDE_GPU_PER_THREAD
 *         outputs per thread, coordinates pre-scaled so that a pair costs a subtraction, a
 *         square (an FMA per extra axis) and one ex2.approx.ftz (float) or kde_exp2_poly_d
 *         (double: 19 FP64 operations); each tile's terms summed in T, the tile sums in
 *         double; dimension 1..3. Float 1-D: the tile padded with +inf, read 8 samples at a
 *         time (two float4 broadcasts); the inner loop is FADD, FMUL, MUFU.EX2, FADD per pair.
 * fast:   1-D, float, past the special-function unit's ceiling: the outputs sorted (CUB
 *         radix sort, their indices carried along; timed with the run, phase sort), 8
 *         consecutive ones per thread; in each block whose outputs lie within 1.5 (scaled
 *         units) of their midpoint c, the pairs factorized, exp2(-(p - s)^2) = 2^(-p'^2)
 *         2^(-s'^2) 2^(2 p' s') with p' = p - c, s' = s - c, the tile holding s' and
 *         2^(-s'^2); in its warps whose threads' outputs each lie within 1.4e-3 of the
 *         thread's middle one (the dense part of the data), one ex2 per sample and thread and
 *         for the other 7 outputs e^y = 2^((q_r - q_b) s') by its quadratic Taylor polynomial:
 *         3 FMAs a pair; in its other warps a pair costs FMUL, MUFU.EX2 and an FMA, or for
 *         job->fast_share of the pairs (1/8, 2/8 or 3/8, each a kernel of its own)
 *         kde_fact_poly_f's 9 instructions on the FMA pipes, interleaved; 2^(-p'^2) applied in
 *         double as the sums are scattered back to the outputs' order. Blocks whose outputs
 *         spread wider (the data's tails) take tiled's loop with the same share of
 *         kde_gauss2_poly_f. Work items of (block of outputs, slice of samples) in launches of
 *         whole waves. Error per term <= 3e-6 relative at 4 bandwidth-scaled units from its
 *         output besides the exponential's own (2^-22, 4e-6 or 2e-7), under 1e-5 in all
 *         (cuda/kde/fast.cu). m < 2^32.
 * binned: 1-D, at the grid of job->m points over [job->lo, job->hi]: linear binning of the
 *         samples in fixed point (weights to 2^-16, mass kept exactly) through per-block
 *         shared-memory histograms (grids up to 12288 points; global atomics beyond), then
 *         the convolution with the Gaussian cut at 8 h by cuFFT in double, zero-padded to a
 *         power of 2 >= G + the cut, so the error is the binning's, as kde_binned's on the
 *         CPU. */
enum kde_gpu_variant { KDE_GPU_SEED, KDE_GPU_NAIVE, KDE_GPU_TILED, KDE_GPU_FAST, KDE_GPU_BINNED };

/* Outputs per thread of tiled. */
#define KDE_GPU_PER_THREAD 4
/* Most named phases a run reports. */
#define KDE_GPU_MAX_PHASES 8

/* One run. Coordinates are structure-of-arrays host arrays of prec (float or double; seed
 * and fast: float) for dim axes. at == NULL (at[0] NULL): the outputs are the samples
 * themselves (m = n). */
struct kde_gpu_job {
	int variant; /* enum kde_gpu_variant */
	enum qx_precision prec;
	int dim;
	long long n;
	const void *x[3];
	long long m;
	const void *at[3];
	double h[3];            /* bandwidth per axis (seed ignores it: bug 4) */
	double center[3];       /* subtracted before scaling to float (kde_center()); 0 works */
	int block;              /* threads per block (seed: its "h" argument) */
	double fast_share;      /* fast: 0.125, 0.25 or 0.375 of the per-pair terms by polynomial */
	double lo, hi;          /* binned: the grid's ends, m points */
	int (*cancelled)(void); /* polled between chunks; NULL: never */
};

/* Milliseconds of each phase of a run, in order (alloc, h2d, kernel or bin/convolve, d2h,
 * free), adding up to total; chunks: the kernel launches of the sums. */
struct kde_gpu_times {
	int nphases;
	const char *name[KDE_GPU_MAX_PHASES];
	double ms[KDE_GPU_MAX_PHASES];
	double total;
	int chunks;
};

/* 0 when the variant can launch job->block threads per block with job->dim and job->prec,
 * else -1 with e naming what is allowed (no device needed). */
int kde_gpu_check(const struct kde_gpu_job *job, struct qx_err *e);

/* Device bytes the job allocates at once. */
size_t kde_gpu_device_bytes(const struct kde_gpu_job *job);

/* Runs the job into host_out (m values of prec; pinned or not) with the phase times in *t;
 * refuses before allocating what kde_gpu_check refuses or what the free device memory cannot
 * hold (naming both sizes); on any failure or cancel frees what it allocated. */
int kde_gpu_run(const struct kde_gpu_job *job, void *host_out, struct kde_gpu_times *t,
                struct qx_err *e);

/* Runs the job over devices 0..ngpus-1 (1..QX_MAX_GPUS) into host_out as kde_gpu_run does:
 * the samples copied to every device, the outputs split in contiguous shares of whole thread
 * blocks by the devices' SM counts (src/multigpu.h), each share run from a host thread of its
 * own on that device with the launches the one-GPU run makes for it, so that each output is
 * summed as on one GPU. fast: every device sorts all the outputs (the one-GPU sort), sums its
 * share of the sorted outputs and scatters their values into host_out on the host. binned is
 * refused for ngpus > 1. per[0..ngpus) gets each device's phases, *t the slowest's. A failure
 * on any device is named with its index; the others stop between chunks, and every device's
 * buffers and events are freed before it returns -1. */
int kde_gpu_run_multi(const struct kde_gpu_job *job, int ngpus, void *host_out,
                      struct kde_gpu_times *t, struct kde_gpu_times *per, struct qx_err *e);

/* Page-locks the host buffer p of bytes (cudaHostRegister) so that copies of it run at the
 * bus's speed; returns 0, or -1 with e. kde_gpu_unpin undoes it (nothing for NULL). */
int kde_gpu_pin(void *p, size_t bytes, struct qx_err *e);
void kde_gpu_unpin(void *p);

/* The special-function unit's ceiling for the exact sums: sms, SM clock (MHz) and the
 * theoretical 16 ex2 per clock per SM (ex2_per_s_peak), and the median over reps timed
 * launches (after a warm-up) of a kernel that does only ex2.approx (ex2_per_s). */
struct kde_gpu_ceiling {
	int sms, clock_mhz;
	double ex2_per_s_peak, ex2_per_s;
};
int kde_gpu_ceiling(int reps, struct kde_gpu_ceiling *c, struct qx_err *e);

#ifdef __cplusplus
}
#endif

#endif
