/* run.cuh - the host side problem kde's GPU variants share (cuda/kde/): the chunk sizes, the
 * run's clock of named phases, the upload and the per-chunk cancel poll (run.cu), and each
 * variant's run, called by kde_gpu_run (run.cu) after kde_gpu_check. Every function returns 0,
 * or -1 with e. */
#ifndef QX_CUDA_KDE_RUN_CUH
#define QX_CUDA_KDE_RUN_CUH

#include <atomic>

#include "../gpu_util.cuh"
#include "../../src/problems/kde/kde_gpu.h"

/* Pairs one launch of the sums should take at most (float: ~20 ms at the ex2 ceiling;
 * double about as long), so that a cancel is seen within a chunk or two. */
static const double CHUNK_PAIRS_FLOAT = 68719476736.0; /* 2^36 */
static const double CHUNK_PAIRS_DOUBLE = 8589934592.0; /* 2^33 */
/* Threads per block of the small helper kernels (scaling, binning, convolution, finish). */
static const int HELPER_BLOCK = 256;

/* The run's clock: events recorded at phase ends on the current device's default stream, the
 * phase names; and the share of the outputs this device computes. A run over several GPUs
 * gives each device a clock of its own: outputs [first, first + count) of the m (every
 * variant's own order: the sorted outputs for fast), beginning at a multiple of
 * KDE_SHARE_ALIGN block outputs; stop, set when another device failed (polled between
 * chunks). The variants size their launches by device 0's facts on every device, so that each
 * output is summed as one GPU sums it. One GPU: first 0, count m, stop NULL. */
struct kde_clock {
	cudaEvent_t *ev;
	int used;
	struct kde_gpu_times *t;
	long long first, count;
	const std::atomic<int> *stop;
};

/* A share of a run over several GPUs begins at a multiple of KDE_SHARE_ALIGN * block outputs:
 * whole thread blocks of tiled (KDE_GPU_PER_THREAD outputs a thread) and of fast (8). */
#define KDE_SHARE_ALIGN 8

/* Waits for the last mark and fills the phase times (run.cu). */
int kde_read_clock(kde_clock &c, struct qx_err *e);

/* Runs the job's variant on the current device into host, timed on c (run.cu). */
int kde_run_variant(const struct kde_gpu_job *job, void *host, kde_clock &c, struct qx_err *e);

/* Marks the end of phase name. */
int kde_mark(kde_clock &c, const char *name, struct qx_err *e);

/* Copies count values of T from host to a new device buffer of the run. */
template <typename T>
static int kde_upload(gpu_owned<T> &dev, const void *host, size_t count, struct qx_err *e)
{
	GPU_TRY(cudaMemcpy(dev.ptr, host, count * sizeof(T), cudaMemcpyHostToDevice));
	return 0;
}

/* After a chunk's launch: records its end, waits for the chunk before it (one stays queued
 * so that the GPU never idles) and polls the cancel; returns 0, or -1 with e. */
int kde_chunk_done(kde_clock &c, const struct kde_gpu_job *job, struct qx_err *e);

/* Outputs per launch of the one-thread-per-output kernels: a full wave of resident threads at
 * least, more when the chunk's pairs stay under pairs; a multiple of block. */
long long kde_outputs_per_chunk(int block, long long n, double pairs, struct qx_err *e,
                                long long *out);

/* The fast kernel's polynomial slots per group of KDE_GROUP for share (1/8, 2/8 or 3/8). */
int kde_fast_slots(double share);

/* Grid points of the binned convolution's half width: 8 h in spacings, at most g - 1. */
long long kde_span(const struct kde_gpu_job *job);

/* The FFT length of a binned run: the smallest power of 2 >= g + span. */
long long kde_fft_len(long long g, long long span);

/* The variants' runs into host (m values), timed on c: seed.cu, naive.cu, tiled.cu, fast.cu,
 * binned.cu (naive, tiled and binned in float and double). */
int kde_run_seed(const struct kde_gpu_job *job, float *host, kde_clock &c, struct qx_err *e);
template <typename T>
int kde_run_naive(const struct kde_gpu_job *job, T *host, kde_clock &c, struct qx_err *e);
template <typename T>
int kde_run_tiled(const struct kde_gpu_job *job, T *host, kde_clock &c, struct qx_err *e);
int kde_run_fast(const struct kde_gpu_job *job, float *host, kde_clock &c, struct qx_err *e);
template <typename T>
int kde_run_binned(const struct kde_gpu_job *job, T *host, kde_clock &c, struct qx_err *e);

#endif
