/* run.cu - problem kde on the GPU (src/problems/kde/kde_gpu.h): the C interface (the job's check,
 * its device bytes, the run, pinning) and the host side every variant shares (run.cuh): the clock
 * of named phases, the per-chunk cancel poll, the chunk sizes. The variants: seed.cu, naive.cu,
 * tiled.cu, fast.cu (sorted, factorized), binned.cu (cuFFT, its plan cache in fft_plans.cu);
 * the special-function unit's ceiling: ceiling.cu; their shared device code: kernels.cuh.
 * Kernels are pure; the host wrappers own allocation, events, chunking (a cancel is polled
 * between launches) and error checks. */
#include <algorithm>
#include <climits>
#include <cmath>

#include "kernels.cuh"
#include "run.cuh"

/* The fast kernel's polynomial slots per group of KDE_GROUP for share (1/8, 2/8 or 3/8). */
int kde_fast_slots(double share)
{
	return (int)std::lround(share * KDE_GROUP);
}

/* 1 when variant v takes dimensions above 1 (tiled only). */
static bool kde_multi_dim(int v)
{
	return v == KDE_GPU_TILED;
}

extern "C" int kde_gpu_check(const struct kde_gpu_job *job, struct qx_err *e)
{
	const int v = job->variant, b = job->block;
	if (v < KDE_GPU_SEED || v > KDE_GPU_BINNED)
		return qx_fail(e, "kde: unknown GPU variant %d", v);
	if (job->dim < 1 || job->dim > KDE_DMAX || (job->dim > 1 && !kde_multi_dim(v)))
		return qx_fail(e,
		               "kde: dimension %d: the tiled variant takes 1 to %d, every other "
		               "GPU variant 1",
		               job->dim, KDE_DMAX);
	if ((v == KDE_GPU_SEED || v == KDE_GPU_FAST) && job->prec != QX_FLOAT)
		return qx_fail(e, "kde: the %s variant computes in float only",
		               v == KDE_GPU_SEED ? "seed" : "fast");
	if (job->n < 1 || job->m < 1)
		return qx_fail(e, "kde: needs n >= 1 samples and m >= 1 outputs");
	if (v != KDE_GPU_BINNED && !job->at[0] && job->m != job->n)
		return qx_fail(e, "kde: at the samples m must equal n (%lld, %lld)", job->m,
		               job->n);
	if (v == KDE_GPU_SEED && (job->n > 2147483647LL || job->at[0]))
		return qx_fail(e, "kde: the seed variant evaluates at its samples, n < 2^31");
	if (b < 1 || b > 1024)
		return qx_fail(e, "kde: block %d: allowed 1 to 1024 threads", b);
	if ((v == KDE_GPU_TILED || v == KDE_GPU_FAST) && b % 32)
		return qx_fail(e,
		               "kde: block %d: the %s variant takes whole warps, 32 to 1024 in "
		               "steps of 32",
		               b, v == KDE_GPU_TILED ? "tiled" : "fast");
	if (v == KDE_GPU_FAST &&
	    (kde_fast_slots(job->fast_share) < 1 || kde_fast_slots(job->fast_share) > 3 ||
	     kde_fast_slots(job->fast_share) != job->fast_share * KDE_GROUP))
		return qx_fail(e, "kde: fast share %g: allowed 0.125, 0.25, 0.375",
		               job->fast_share);
	if (v == KDE_GPU_FAST && job->m > (long long)UINT_MAX)
		return qx_fail(e,
		               "kde: the fast variant sorts its outputs with 32-bit indices: m = "
		               "%lld is over 2^32 - 1",
		               job->m);
	if (v == KDE_GPU_BINNED && (job->m < 2 || !(job->hi > job->lo)))
		return qx_fail(e, "kde: binned needs a grid of G >= 2 points over lo < hi");
	for (int k = 0; k < job->dim; k++)
		if (!(job->h[k] > 0) || !std::isfinite(job->h[k]))
			return qx_fail(e, "kde: h = %g: the bandwidth must be a number > 0",
			               job->h[k]);
	return 0;
}

/* Grid points of the binned convolution's half width: 8 h in spacings, at most g - 1. */
long long kde_span(const struct kde_gpu_job *job)
{
	const double dx = (job->hi - job->lo) / (double)(job->m - 1);
	const double cut = std::ceil(KDE_BIN_CUT * job->h[0] / dx);
	return cut < (double)(job->m - 1) ? (long long)cut : job->m - 1;
}

/* The FFT length of a binned run: the smallest power of 2 >= g + span. */
long long kde_fft_len(long long g, long long span)
{
	long long len = 2;
	while (len < g + span)
		len *= 2;
	return len;
}

extern "C" size_t kde_gpu_device_bytes(const struct kde_gpu_job *job)
{
	const size_t sz = qx_precision_size(job->prec), d = (size_t)job->dim;
	const size_t n = (size_t)job->n, m = (size_t)job->m;
	switch (job->variant) {
	case KDE_GPU_SEED:
		return 2 * n * sz;
	case KDE_GPU_NAIVE:
		return n * sz + (job->at[0] ? m * sz : 0) + m * sz;
	case KDE_GPU_BINNED: { /* samples, bins, FFT buffers and cuFFT's work area, outputs */
		const long long len = kde_fft_len(job->m, kde_span(job));
		return n * sz + m * 8 + (size_t)len * (16 + 32 + 16) + m * sz;
	}
	case KDE_GPU_FAST: /* samples, outputs; sorted outputs, sums, results; the indices
	                    * and sorted indices; CUB's alternate keys and values and its
	                    * histograms (under 1 MiB); the centres (>= 256 outputs a block) */
		return n * sz + (job->at[0] ? m * sz : 0) + m * (sz + 8 + sz) + m * 8 + m * 8 +
		       ((size_t)1 << 20) + (m / 256 + 1) * sz;
	default:
		return d * n * sz + (job->at[0] ? d * m * sz : 0) + m * sizeof(double) + m * sz;
	}
}

/* Marks the end of phase name. */
int kde_mark(kde_clock &c, const char *name, struct qx_err *e)
{
	GPU_TRY(cudaEventRecord(c.ev[c.used + 1], 0));
	c.t->name[c.used++] = name;
	return 0;
}

/* Waits for the last mark and fills the phase times. */
int kde_read_clock(kde_clock &c, struct qx_err *e)
{
	GPU_TRY(cudaEventSynchronize(c.ev[c.used]));
	c.t->nphases = c.used;
	for (int i = 0; i < c.used; i++)
		c.t->ms[i] = gpu_elapsed(c.ev[i], c.ev[i + 1]);
	c.t->total = gpu_elapsed(c.ev[0], c.ev[c.used]);
	return 0;
}

/* After a chunk's launch: records its end, waits for the chunk before it (one stays queued
 * so that the GPU never idles) and polls the cancel; returns 0, or -1 with e. */
int kde_chunk_done(kde_clock &c, const struct kde_gpu_job *job, struct qx_err *e)
{
	GPU_TRY(cudaGetLastError());
	const int k = c.t->chunks++;
	GPU_TRY(cudaEventRecord(c.ev[KDE_GPU_MAX_PHASES + 1 + (k & 1)], 0));
	if (k)
		GPU_TRY(cudaEventSynchronize(c.ev[KDE_GPU_MAX_PHASES + 1 + ((k + 1) & 1)]));
	if (job->cancelled && job->cancelled())
		return qx_fail(e, "run cancelled");
	if (c.stop && c.stop->load())
		return qx_fail(e, "stopped: another GPU failed");
	return 0;
}

/* Outputs per launch of the one-thread-per-output kernels: a full wave of resident threads at
 * least, more when the chunk's pairs stay under pairs; a multiple of block. */
long long kde_outputs_per_chunk(int block, long long n, double pairs, struct qx_err *e,
                                long long *out)
{
	int sms = 0, per_sm = 0;
	GPU_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	GPU_TRY(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
	long long c = std::max((long long)sms * per_sm, (long long)(pairs / (double)n));
	c = (c + block - 1) / block * block;
	*out = c;
	return 0;
}

/* Runs the variant in precision T. */
template <typename T>
static int kde_dispatch(const struct kde_gpu_job *job, T *host, kde_clock &c, struct qx_err *e)
{
	switch (job->variant) {
	case KDE_GPU_NAIVE:
		return kde_run_naive<T>(job, host, c, e);
	case KDE_GPU_TILED:
		return kde_run_tiled<T>(job, host, c, e);
	case KDE_GPU_BINNED:
		return kde_run_binned<T>(job, host, c, e);
	default:
		return qx_fail(e, "kde: variant %d has no %s version", job->variant,
		               sizeof(T) == sizeof(float) ? "float" : "double");
	}
}

extern "C" int kde_gpu_run(const struct kde_gpu_job *job, void *host_out, struct kde_gpu_times *t,
                           struct qx_err *e)
{
	size_t free_b = 0, total_b = 0;
	if (kde_gpu_check(job, e))
		return -1;
	GPU_TRY(gpu_mem_info_unpooled(&free_b, &total_b));
	const size_t need = kde_gpu_device_bytes(job);
	if (need > free_b)
		return qx_fail(e, "kde: the run needs %zu MiB of device memory, %zu MiB are free",
		               need >> 20, free_b >> 20);
	*t = kde_gpu_times{};
	kde_clock c = {gpu_events(KDE_GPU_MAX_PHASES + 3, e), 0, t, 0, job->m, nullptr};
	if (!c.ev)
		return -1;
	GPU_TRY(cudaEventRecord(c.ev[0], 0));
	return kde_run_variant(job, host_out, c, e) ? -1 : kde_read_clock(c, e);
}

/* Runs the job's variant on the current device into host, timed on c. */
int kde_run_variant(const struct kde_gpu_job *job, void *host, kde_clock &c, struct qx_err *e)
{
	if (job->variant == KDE_GPU_SEED)
		return kde_run_seed(job, (float *)host, c, e);
	if (job->variant == KDE_GPU_FAST)
		return kde_run_fast(job, (float *)host, c, e);
	if (job->prec == QX_FLOAT)
		return kde_dispatch<float>(job, (float *)host, c, e);
	return kde_dispatch<double>(job, (double *)host, c, e);
}

extern "C" int kde_gpu_pin(void *p, size_t bytes, struct qx_err *e)
{
	GPU_TRY(cudaHostRegister(p, bytes, cudaHostRegisterDefault));
	return 0;
}

extern "C" void kde_gpu_unpin(void *p)
{
	if (p)
		cudaHostUnregister(p);
}
