/* expint.cu - E_n(x) on the GPU. Kernels are pure: one thread computes one grid point with
 * the algorithms of src/problems/expint/expint_math.h, shared with the CPU reference. The host
 * wrappers own allocation, streams, events and error checks. E_n(x) is the same arithmetic on
 * the CPU and the GPU: no a*b+c contracted into an fma behind the source's back (gcc -std=c11
 * does not contract either); the fmas it wants are explicit.
 * One file, over 600 lines: the kernel templates and their launch are shared by every host
 * sequence (serial, streamed, streamed with the kernels ahead), by the run over several GPUs that
 * drives them a GPU each, and by the point and batch evaluations. The Makefile reads this line: */
// nvccflags: -fmad=false
#include <atomic>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../../src/problems/expint/expint_cost.h"
#include "../../src/problems/expint/expint_gpu.h"
#include "../gpu_util.cuh"
#include "../multigpu.cuh"

#include "../../src/problems/expint/expint_math.h"

/* Points per chunk of the streamed sequence; the streams (and device buffers) it rotates
 * through are the job's: copies of one chunk overlap the kernels of the next ones. */
static const long long CHUNK_POINTS = 1LL << 22;

/* Points per chunk when the kernels run ahead of the copies (expint_run_ahead): larger chunks
 * leave fewer partial last waves between back-to-back kernels, and the first copy still starts
 * within about 0.1 ms. On an H200 at 20000 x 20000 float the kernels took 2.41 ms in 4 Mi-point
 * chunks, 2.18 ms in 16 Mi, 2.13 ms in 32 Mi. */
static const long long AHEAD_CHUNK_POINTS = 1LL << 24;

/* Points per launch of the serial sequence (keeps the in-launch index 32-bit). */
static const long long LAUNCH_POINTS = 1LL << 30;

/* The grid's constants for the constant-memory kernel, copied by cudaMemcpyToSymbol. */
struct expint_grid_consts {
	double a, step, inv_m;
	unsigned m;
	long iters;
};
__constant__ expint_grid_consts grid_consts;

/* E_n(x) by algorithm ALGO in precision T into *v; returns the EXPINT_* status. Each
 * specialization below calls the shared algorithm of expint_math.h for its pair. */
template <typename T, int ALGO>
__device__ __forceinline__ int expint_point(int n, T x, long iters, T *v);
/* fast, float */
template <>
__device__ __forceinline__ int expint_point<float, EXPINT_ALGO_FAST>(int n, float x, long iters,
                                                                     float *v)
{
	return expint_fast_f(n, x, iters, v);
}
/* fast, double */
template <>
__device__ __forceinline__ int expint_point<double, EXPINT_ALGO_FAST>(int n, double x, long iters,
                                                                      double *v)
{
	return expint_fast_d(n, x, iters, v);
}
/* coursework, float */
template <>
__device__ __forceinline__ int expint_point<float, EXPINT_ALGO_COURSEWORK>(int n, float x,
                                                                           long iters, float *v)
{
	return expint_coursework_f(n, x, iters, v);
}
/* coursework, double */
template <>
__device__ __forceinline__ int expint_point<double, EXPINT_ALGO_COURSEWORK>(int n, double x,
                                                                            long iters, double *v)
{
	return expint_coursework_d(n, x, iters, v);
}

/* Rows (orders) per thread of the fast kernels: a thread's points share x and e^{-x}. The
 * coursework kernels keep the seed's one point per thread. */
static const int FAST_ROWS = 4;

/* c / m by a double reciprocal inv_m, off by at most one and then corrected: cheaper than the
 * integer division. */
__device__ __forceinline__ unsigned expint_div_m(unsigned c, unsigned m, double inv_m)
{
	unsigned r = (unsigned)((double)c * inv_m);
	if ((unsigned long long)r * m > c)
		r--;
	else if ((unsigned long long)(r + 1) * m <= c)
		r++;
	return r;
}

/* e^{-x}'s parts for the fast algorithm in precision T (expint_expm_parts_f/_d). */
__device__ __forceinline__ expint_expm_f expint_expm_of(float x)
{
	return expint_expm_parts_f(x);
}
/* (double) */
__device__ __forceinline__ expint_expm_d expint_expm_of(double x)
{
	return expint_expm_parts_d(x);
}

/* E_n(x) by algorithm ALGO into *v, the fast one with e^{-x}'s parts em; returns the status. */
template <int ALGO>
__device__ __forceinline__ int expint_row_point(int n, float x, long iters, const expint_expm_f *em,
                                                float *v)
{
	return ALGO == EXPINT_ALGO_FAST ? expint_fast_em_f(n, x, iters, em, v)
	                                : expint_point<float, ALGO>(n, x, iters, v);
}
/* (double) */
template <int ALGO>
__device__ __forceinline__ int expint_row_point(int n, double x, long iters,
                                                const expint_expm_d *em, double *v)
{
	return ALGO == EXPINT_ALGO_FAST ? expint_fast_em_d(n, x, iters, em, v)
	                                : expint_point<double, ALGO>(n, x, iters, v);
}

/* Grid points [first, first+count) of the n x m grid (row-major, orders from 1), where first
 * = row0*m + col0, local point l into out[l]: thread t = q*m + w computes the points
 * l = (q*ROWS + i)*m + w, i < ROWS, below count: one column (one x, so e^{-x} once) in ROWS
 * consecutive rows; neighbouring threads write neighbouring values. A point that fails records
 * (index << 2 | status) in *bad, so the smallest failing index wins. MEM says where the grid's
 * constants and x live: the arguments (EXPINT_MEM_GLOBAL), x staged through dynamic shared
 * memory (EXPINT_MEM_SHARED, blockDim.x values of T), or grid_consts in constant memory
 * (EXPINT_MEM_CONSTANT, which ignores the arguments m .. iters). Bounded for blocks of 1024
 * threads (at most 64 registers), so every block size of the setting's range launches. */
template <typename T, int ALGO, int MEM, int ROWS>
__global__ void __launch_bounds__(1024)
    expint_grid_kernel(int row0, unsigned col0, unsigned m, double inv_m, unsigned count, double a,
                       double step, long iters, long long first, T *out, unsigned long long *bad)
{
	extern __shared__ unsigned char shared_bytes[];
	const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
	if (MEM == EXPINT_MEM_CONSTANT) {
		m = grid_consts.m;
		inv_m = grid_consts.inv_m;
		a = grid_consts.a;
		step = grid_consts.step;
		iters = grid_consts.iters;
	}
	const unsigned q = ROWS == 1 ? 0 : expint_div_m(t, m, inv_m), w = t - q * m;
	const unsigned long long l0 = (unsigned long long)q * ROWS * m + w;
	const unsigned c = col0 + w;
	const unsigned r = expint_div_m(c, m, inv_m);
	const unsigned j = c - r * m;
	T x = (T)expint_grid_x(a, step, (long long)j + 1);
	if (MEM == EXPINT_MEM_SHARED) {
		/* The seed's experiment: x goes through shared memory although no other thread
		 * reads it, so it only adds a store, a barrier and a load. */
		T *xs = (T *)shared_bytes;
		xs[threadIdx.x] = x;
		__syncthreads();
		x = xs[threadIdx.x];
	}
	const auto em = expint_expm_of(x);
	const int n0 = row0 + (int)(q * ROWS + r) + 1;
#pragma unroll 1
	for (int i = 0; i < ROWS; i++) {
		const unsigned long long l = l0 + (unsigned long long)i * m;
		if (l >= count)
			return;
		T v;
		const int status = expint_row_point<ALGO>(n0 + i, x, iters, &em, &v);
		out[l] = v;
		if (status != EXPINT_OK)
			atomicMin(bad, (unsigned long long)(first + (long long)l) << 2 |
			                   (unsigned)status);
	}
}

typedef void (*expint_kernel_fn)(int, unsigned, unsigned, double, unsigned, double, double, long,
                                 long long, void *, unsigned long long *);

/* The kernel the job launches, as an untyped pointer (its out argument is a T *). */
template <typename T> static const void *expint_kernel_for(const struct expint_gpu_job *job)
{
	if (job->algo != EXPINT_ALGO_COURSEWORK)
		return (const void *)
		    expint_grid_kernel<T, EXPINT_ALGO_FAST, EXPINT_MEM_GLOBAL, FAST_ROWS>;
	if (job->memory == EXPINT_MEM_SHARED)
		return (const void *)
		    expint_grid_kernel<T, EXPINT_ALGO_COURSEWORK, EXPINT_MEM_SHARED, 1>;
	if (job->memory == EXPINT_MEM_CONSTANT)
		return (const void *)
		    expint_grid_kernel<T, EXPINT_ALGO_COURSEWORK, EXPINT_MEM_CONSTANT, 1>;
	return (const void *)expint_grid_kernel<T, EXPINT_ALGO_COURSEWORK, EXPINT_MEM_GLOBAL, 1>;
}

/* Dynamic shared memory per thread of the job's kernel. */
static size_t expint_shared_per_thread(const struct expint_gpu_job *job)
{
	return job->memory == EXPINT_MEM_SHARED ? qx_precision_size(job->prec) : 0;
}

/* Launches the job's kernel for points [first, first+count) into dev on stream s. */
template <typename T>
static cudaError_t expint_launch(const struct expint_gpu_job *job, long long first, long long count,
                                 T *dev, unsigned long long *bad, cudaStream_t s)
{
	const int row0 = (int)(first / job->m);
	const unsigned col0 = (unsigned)(first % job->m);
	/* one thread per point, or per FAST_ROWS rows of a column (expint_grid_kernel) */
	const long long span = FAST_ROWS * job->m;
	const long long threads =
	    job->algo == EXPINT_ALGO_COURSEWORK ? count : (count + span - 1) / span * job->m;
	const unsigned grid = (unsigned)((threads + job->block - 1) / job->block);
	const double step = (job->b - job->a) / (double)job->m;
	const expint_kernel_fn kernel = (expint_kernel_fn)expint_kernel_for<T>(job);
	kernel<<<grid, job->block, expint_shared_per_thread(job) * job->block, s>>>(
	    row0, col0, (unsigned)job->m, 1.0 / (double)job->m, (unsigned)count, job->a, step,
	    job->iters, first, dev, bad);
	return cudaGetLastError();
}

/* Copies the grid's constants to constant memory for the constant-memory kernel (timed by
 * the caller as part of h2d); does nothing for the other kernels. */
static int expint_upload_consts(const struct expint_gpu_job *job, struct qx_err *e)
{
	if (job->memory != EXPINT_MEM_CONSTANT)
		return 0;
	const expint_grid_consts c = {job->a, (job->b - job->a) / (double)job->m,
	                              1.0 / (double)job->m, (unsigned)job->m, job->iters};
	GPU_TRY(cudaMemcpyToSymbol(grid_consts, &c, sizeof c));
	return 0;
}

/* Fills *o for the kernel the job launches at its block size; returns 0 or -1 with e. */
extern "C" int expint_gpu_occupancy(const struct expint_gpu_job *job, struct gpu_occupancy *o,
                                    struct qx_err *e)
{
	const void *func =
	    job->prec == QX_DOUBLE ? expint_kernel_for<double>(job) : expint_kernel_for<float>(job);
	return gpu_occupancy_of(func, job->block, 0, expint_shared_per_thread(job), o, e);
}

/* Reports the first failing point recorded in bad, or returns 0 when there is none. */
static int expint_check_bad(const struct expint_gpu_job *job, unsigned long long bad,
                            struct qx_err *e)
{
	if (bad == ULLONG_MAX)
		return 0;
	const long long idx = (long long)(bad >> 2);
	const int n = (int)(idx / job->m) + 1;
	const double x =
	    expint_grid_x(job->a, (job->b - job->a) / (double)job->m, idx % job->m + 1);
	if ((bad & 3) == EXPINT_NOCONV)
		return qx_fail(e, "GPU: E_%d(%.17g) did not converge within iters = %ld iterations",
		               n, x, job->iters);
	return qx_fail(e, "GPU: domain error at n = %d, x = %.17g", n, x);
}

/* Returns the points of one chunk of the streamed sequence over total points (all of them
 * when fewer). */
static long long expint_chunk(long long total)
{
	return total < CHUNK_POINTS ? total : CHUNK_POINTS;
}

/* Returns the points of the chunk that starts at point first of total: chunk, or what is left. */
static long long expint_chunk_len(long long total, long long first, long long chunk)
{
	return total - first < chunk ? total - first : chunk;
}

/* Returns -1 with e when the run was cancelled or another GPU failed (stop set), else 0: the
 * check the streamed sequences make between chunks. */
static int expint_interrupted(const std::atomic<int> *stop, struct qx_err *e)
{
	if (qx_cancelled())
		return qx_fail(e, "run cancelled");
	if (stop && stop->load())
		return qx_fail(e, "stopped: another GPU failed");
	return 0;
}

/* Returns the device bytes the job needs at once: the whole grid (serial sequence) or one
 * chunk per stream (streamed), plus the failure word. The streamed sequence takes the whole
 * range instead only where it fits in half the free memory (expint_fits_ahead). */
extern "C" size_t expint_gpu_device_bytes(const struct expint_gpu_job *job)
{
	const size_t size = qx_precision_size(job->prec);
	if (job->sequence == EXPINT_SEQ_SERIAL)
		return (size_t)job->n * job->m * size + sizeof(unsigned long long);
	return (size_t)job->streams * expint_chunk((long long)job->n * job->m) * size +
	       sizeof(unsigned long long);
}

/* The coursework's sequence over points [base, base + total) of the grid into host[base...],
 * each phase timed with events ev[0..6) on the current device's default stream: cudaMalloc,
 * the constants to constant memory (h2d; constant-memory kernel only), one kernel over every
 * point (in launches of at most 2^30 points), one device-to-host copy, cudaFree. The smallest
 * failing point's record goes to *bad (ULLONG_MAX: none). */
template <typename T>
static int expint_run_serial(const struct expint_gpu_job *job, long long base, long long total,
                             T *host, cudaEvent_t *ev, struct qx_timing *t,
                             unsigned long long *bad_out, struct qx_err *e)
{
	const size_t bytes = (size_t)total * sizeof(T);
	gpu_owned<T> dev;
	gpu_owned<unsigned long long> bad;
	unsigned long long bad_host = ULLONG_MAX;
	/* cudaMalloc cannot use the blocks the pool keeps from earlier runs: give them back */
	GPU_TRY(gpu_pool_trim());
	qx_progress_phase("alloc");
	GPU_TRY(cudaEventRecord(ev[0]));
	GPU_TRY(cudaMalloc(&dev.ptr, bytes ? bytes : sizeof(T)));
	GPU_TRY(cudaMalloc(&bad.ptr, sizeof *bad.ptr));
	GPU_TRY(cudaEventRecord(ev[1]));
	if (expint_upload_consts(job, e))
		return -1;
	GPU_TRY(cudaEventRecord(ev[5]));
	GPU_TRY(cudaMemcpy(bad.ptr, &bad_host, sizeof bad_host, cudaMemcpyHostToDevice));
	for (long long first = 0; first < total; first += LAUNCH_POINTS) {
		const long long count =
		    total - first < LAUNCH_POINTS ? total - first : LAUNCH_POINTS;
		GPU_LAUNCH(expint_launch<T>(job, base + first, count, dev.ptr + first, bad.ptr, 0));
	}
	GPU_TRY(cudaEventRecord(ev[2]));
	qx_progress_phase("kernel");
	GPU_TRY(cudaEventSynchronize(ev[2]));
	qx_progress_phase("d2h");
	GPU_TRY(cudaMemcpy(host + base, dev.ptr, bytes, cudaMemcpyDeviceToHost));
	GPU_TRY(cudaMemcpy(&bad_host, bad.ptr, sizeof bad_host, cudaMemcpyDeviceToHost));
	GPU_TRY(cudaEventRecord(ev[3]));
	qx_progress_phase("free");
	GPU_TRY(cudaFree(dev.release()));
	GPU_TRY(cudaFree(bad.release()));
	GPU_TRY(cudaEventRecord(ev[4]));
	GPU_TRY(cudaEventSynchronize(ev[4]));
	qx_progress_add(total);
	qx_timing_add(t, "alloc", gpu_elapsed(ev[0], ev[1]), 0);
	qx_timing_add(t, "h2d", gpu_elapsed(ev[1], ev[5]), 0);
	qx_timing_add(t, "kernel", gpu_elapsed(ev[5], ev[2]), 0);
	qx_timing_add(t, "d2h", gpu_elapsed(ev[2], ev[3]), 0);
	qx_timing_add(t, "free", gpu_elapsed(ev[3], ev[4]), 0);
	t->total = gpu_elapsed(ev[0], ev[4]);
	*bad_out = bad_host;
	return 0;
}

/* The streamed sequence over points [base, base + total) of the grid into host[base...]: the
 * points in chunks over K = job->streams streams (streams[0..K), created by the caller on the
 * current device), each with its own device buffer from the stream-ordered pool; chunk c's copy
 * to the pinned host array overlaps the kernels of chunks c+1.. . The host keeps at most 2*K
 * chunks queued and checks for cancellation (and stop, set when another GPU failed) between
 * chunks. Phases, on events ev[0 .. 4 + 6K): alloc and free of the buffers, kernel = the sum of
 * the chunks' kernel times, d2h = from the end of the first kernel to the end of the last
 * copy. The smallest failing point's record goes to *bad_out (ULLONG_MAX: none). */
template <typename T>
static int expint_run_streamed(const struct expint_gpu_job *job, long long base, long long total,
                               T *host, cudaEvent_t *ev, const cudaStream_t *streams,
                               const std::atomic<int> *stop, struct qx_timing *t,
                               unsigned long long *bad_out, struct qx_err *e)
{
	const int nstreams = job->streams;
	const long long chunk = total > 0 ? expint_chunk(total) : 1;
	const long long nchunks = (total + chunk - 1) / chunk;
	const int lookahead = 2 * nstreams;
	/* events: start, allocated, done, end, then per chunk slot: kernel start/end, copy end */
	gpu_owned<T> buf[EXPINT_MAX_STREAMS];
	gpu_owned<unsigned long long> bad;
	unsigned long long bad_host = ULLONG_MAX;
	double kernel_ms = 0;
	float first_kernel_end = 0;
	cudaEvent_t *slot = ev + 4;
	qx_progress_phase("alloc");
	GPU_TRY(cudaEventRecord(ev[0], streams[0]));
	for (int i = 0; i < nstreams; i++)
		GPU_TRY(cudaMallocAsync(&buf[i].ptr, (size_t)chunk * sizeof(T), streams[0]));
	GPU_TRY(cudaMallocAsync(&bad.ptr, sizeof *bad.ptr, streams[0]));
	GPU_TRY(cudaMemcpyAsync(bad.ptr, &bad_host, sizeof bad_host, cudaMemcpyHostToDevice,
	                        streams[0]));
	GPU_TRY(cudaEventRecord(ev[1], streams[0]));
	for (int i = 1; i < nstreams; i++)
		GPU_TRY(cudaStreamWaitEvent(streams[i], ev[1], 0));
	for (long long c = 0; c < nchunks + lookahead; c++) {
		/* Retire chunk c - lookahead: add its kernel time, reuse its events. */
		if (c >= lookahead) {
			cudaEvent_t *done = slot + 3 * ((c - lookahead) % lookahead);
			GPU_TRY(cudaEventSynchronize(done[2]));
			qx_progress_phase("kernel+d2h");
			qx_progress_add(expint_chunk_len(total, (c - lookahead) * chunk, chunk));
			kernel_ms += gpu_elapsed(done[0], done[1]);
			if (c == lookahead)
				first_kernel_end = gpu_elapsed(ev[0], done[1]);
		}
		if (c >= nchunks)
			continue;
		if (expint_interrupted(stop, e))
			return -1;
		const long long first = c * chunk;
		const long long count = expint_chunk_len(total, first, chunk);
		const cudaStream_t s = streams[c % nstreams];
		cudaEvent_t *mine = slot + 3 * (c % lookahead);
		T *dev = buf[c % nstreams].ptr;
		GPU_TRY(cudaEventRecord(mine[0], s));
		GPU_LAUNCH(expint_launch<T>(job, base + first, count, dev, bad.ptr, s));
		GPU_TRY(cudaEventRecord(mine[1], s));
		GPU_TRY(cudaMemcpyAsync(host + base + first, dev, (size_t)count * sizeof(T),
		                        cudaMemcpyDeviceToHost, s));
		GPU_TRY(cudaEventRecord(mine[2], s));
	}
	/* Join the streams on stream 0 (whose last copy is already ordered), then free. */
	for (int i = 1; i < nstreams; i++) {
		GPU_TRY(cudaEventRecord(ev[2], streams[i]));
		GPU_TRY(cudaStreamWaitEvent(streams[0], ev[2], 0));
	}
	GPU_TRY(cudaMemcpyAsync(&bad_host, bad.ptr, sizeof bad_host, cudaMemcpyDeviceToHost,
	                        streams[0]));
	GPU_TRY(cudaEventRecord(ev[2], streams[0]));
	qx_progress_phase("free");
	for (int i = 0; i < nstreams; i++)
		GPU_TRY(cudaFreeAsync(buf[i].release(), streams[0]));
	GPU_TRY(cudaFreeAsync(bad.release(), streams[0]));
	GPU_TRY(cudaEventRecord(ev[3], streams[0]));
	GPU_TRY(cudaEventSynchronize(ev[3]));
	qx_timing_add(t, "alloc", gpu_elapsed(ev[0], ev[1]), 0);
	qx_timing_add(t, "h2d", 0, 0);
	qx_timing_add(t, "kernel", kernel_ms, nchunks > 1);
	qx_timing_add(t, "d2h", nchunks ? gpu_elapsed(ev[0], ev[2]) - first_kernel_end : 0,
	              nchunks > 1);
	qx_timing_add(t, "free", gpu_elapsed(ev[2], ev[3]), 0);
	t->total = gpu_elapsed(ev[0], ev[3]);
	*bad_out = bad_host;
	return 0;
}

/* Per-chunk events without timing that a run creates and destroys (every return path). */
struct expint_chunk_events {
	std::vector<cudaEvent_t> ev;
	expint_chunk_events() = default;
	expint_chunk_events(const expint_chunk_events &) = delete;
	expint_chunk_events &operator=(const expint_chunk_events &) = delete;
	~expint_chunk_events()
	{
		for (cudaEvent_t x : ev)
			if (x) /* destroying a null event would leave an error behind */
				cudaEventDestroy(x);
	}
};

/* The streamed sequence with the kernels ahead, when the device holds the whole range and there
 * are 2 or more streams: one buffer for points [base, base + total); every chunk's kernel queued
 * first, back to back on streams[0] with an event after each (a kernel never waits for a copy,
 * nor for the host, so the kernels' span is their time alone); then each chunk's copy to the
 * pinned host array on streams[1 + c % (K-1)] once its kernel is done, at most 2K copies queued,
 * the host checking for cancellation and stop between copies (a cancel then waits for the
 * queued kernels, at most the range's kernel time). Phases on events ev[0..7 + 2K):
 * alloc, kernel = the kernels' span (first start to last end), d2h = from the end of the first
 * kernel to the end of the last copy, free. The smallest failing point's record goes to *bad_out
 * (ULLONG_MAX: none). */
template <typename T>
static int expint_run_ahead(const struct expint_gpu_job *job, long long base, long long total,
                            T *host, cudaEvent_t *ev, const cudaStream_t *streams,
                            const std::atomic<int> *stop, struct qx_timing *t,
                            unsigned long long *bad_out, struct qx_err *e)
{
	const int nstreams = job->streams, lookahead = 2 * nstreams;
	const long long chunk = total < AHEAD_CHUNK_POINTS ? total : AHEAD_CHUNK_POINTS;
	const long long nchunks = (total + chunk - 1) / chunk;
	gpu_owned<T> buf;
	gpu_owned<unsigned long long> bad;
	unsigned long long bad_host = ULLONG_MAX;
	expint_chunk_events kdone;
	cudaEvent_t *copied = ev + 7;
	const cudaStream_t s0 = streams[0];
	try {
		kdone.ev.assign((size_t)nchunks, nullptr);
	} catch (...) {
		return qx_fail(e, "expint: no memory for the events of %lld chunks", nchunks);
	}
	for (cudaEvent_t &x : kdone.ev)
		GPU_TRY(cudaEventCreateWithFlags(&x, cudaEventDisableTiming));
	qx_progress_phase("alloc");
	GPU_TRY(cudaEventRecord(ev[0], s0));
	GPU_TRY(cudaMallocAsync(&buf.ptr, (size_t)total * sizeof(T), s0));
	GPU_TRY(cudaMallocAsync(&bad.ptr, sizeof *bad.ptr, s0));
	GPU_TRY(cudaMemcpyAsync(bad.ptr, &bad_host, sizeof bad_host, cudaMemcpyHostToDevice, s0));
	GPU_TRY(cudaEventRecord(ev[1], s0));
	for (int i = 1; i < nstreams; i++)
		GPU_TRY(cudaStreamWaitEvent(streams[i], ev[1], 0));
	GPU_TRY(cudaEventRecord(ev[4], s0));
	qx_progress_phase("kernel+d2h");
	for (long long c = 0; c < nchunks; c++) {
		const long long first = c * chunk;
		const long long count = expint_chunk_len(total, first, chunk);
		GPU_LAUNCH(
		    expint_launch<T>(job, base + first, count, buf.ptr + first, bad.ptr, s0));
		GPU_TRY(cudaEventRecord(kdone.ev[c], s0));
		if (c == 0)
			GPU_TRY(cudaEventRecord(ev[6], s0));
	}
	GPU_TRY(cudaEventRecord(ev[5], s0));
	for (long long c = 0; c < nchunks + lookahead; c++) {
		if (c >= lookahead) {
			const long long r = c - lookahead;
			GPU_TRY(cudaEventSynchronize(copied[r % lookahead]));
			qx_progress_add(expint_chunk_len(total, r * chunk, chunk));
		}
		if (c >= nchunks)
			continue;
		if (expint_interrupted(stop, e))
			return -1;
		const long long first = c * chunk;
		const long long count = expint_chunk_len(total, first, chunk);
		const cudaStream_t s = streams[1 + c % (nstreams - 1)];
		GPU_TRY(cudaStreamWaitEvent(s, kdone.ev[c], 0));
		GPU_TRY(cudaMemcpyAsync(host + base + first, buf.ptr + first,
		                        (size_t)count * sizeof(T), cudaMemcpyDeviceToHost, s));
		GPU_TRY(cudaEventRecord(copied[c % lookahead], s));
	}
	for (int i = 1; i < nstreams; i++) {
		GPU_TRY(cudaEventRecord(ev[2], streams[i]));
		GPU_TRY(cudaStreamWaitEvent(s0, ev[2], 0));
	}
	GPU_TRY(cudaMemcpyAsync(&bad_host, bad.ptr, sizeof bad_host, cudaMemcpyDeviceToHost, s0));
	GPU_TRY(cudaEventRecord(ev[2], s0));
	qx_progress_phase("free");
	GPU_TRY(cudaFreeAsync(buf.release(), s0));
	GPU_TRY(cudaFreeAsync(bad.release(), s0));
	GPU_TRY(cudaEventRecord(ev[3], s0));
	GPU_TRY(cudaEventSynchronize(ev[3]));
	qx_timing_add(t, "alloc", gpu_elapsed(ev[0], ev[1]), 0);
	qx_timing_add(t, "h2d", 0, 0);
	qx_timing_add(t, "kernel", gpu_elapsed(ev[4], ev[5]), nchunks > 1);
	qx_timing_add(t, "d2h", gpu_elapsed(ev[6], ev[2]), nchunks > 1);
	qx_timing_add(t, "free", gpu_elapsed(ev[2], ev[3]), 0);
	t->total = gpu_elapsed(ev[0], ev[3]);
	*bad_out = bad_host;
	return 0;
}

/* 1 when the streamed sequence over total points of the job runs with its kernels ahead: 2 or
 * more streams and the whole range in at most half the device's free memory, the blocks its
 * pool keeps counted. Where the driver's free memory alone cannot back the range, those blocks
 * go back to the driver first (gpu_pool_trim): kept blocks of other sizes cannot make one
 * block that large. */
static int expint_fits_ahead(const struct expint_gpu_job *job, long long total)
{
	size_t free_b = 0, driver_b = 0, all_b = 0;
	const double bytes = (double)total * (double)qx_precision_size(job->prec);
	if (job->streams < 2 || total <= 0 || gpu_mem_info_pooled(&free_b, &all_b) != cudaSuccess ||
	    bytes > 0.5 * (double)free_b || cudaMemGetInfo(&driver_b, &all_b) != cudaSuccess)
		return 0;
	return bytes <= (double)driver_b || gpu_pool_trim() == cudaSuccess;
}

/* Events a share's sequence records: the streamed one's 4 + 3 (2 K), the ahead one's 7 + 2 K. */
static const int EXPINT_EVENTS = 4 + 6 * EXPINT_MAX_STREAMS;

/* Runs points [base, base + total) of the job by its sequence and precision on the current
 * device with streams and events of the caller's; the failing point's record in *bad. */
static int expint_run_range(const struct expint_gpu_job *job, long long base, long long total,
                            void *host, cudaEvent_t *ev, const cudaStream_t *streams,
                            const std::atomic<int> *stop, struct qx_timing *t,
                            unsigned long long *bad, struct qx_err *e)
{
	if (job->sequence == EXPINT_SEQ_SERIAL)
		return job->prec == QX_DOUBLE
		           ? expint_run_serial<double>(job, base, total, (double *)host, ev, t, bad,
		                                       e)
		           : expint_run_serial<float>(job, base, total, (float *)host, ev, t, bad,
		                                      e);
	if (expint_fits_ahead(job, total))
		return job->prec == QX_DOUBLE
		           ? expint_run_ahead<double>(job, base, total, (double *)host, ev, streams,
		                                      stop, t, bad, e)
		           : expint_run_ahead<float>(job, base, total, (float *)host, ev, streams,
		                                     stop, t, bad, e);
	return job->prec == QX_DOUBLE
	           ? expint_run_streamed<double>(job, base, total, (double *)host, ev, streams,
	                                         stop, t, bad, e)
	           : expint_run_streamed<float>(job, base, total, (float *)host, ev, streams, stop,
	                                        t, bad, e);
}

/* Runs the job by its sequence and precision into host_out (pinned, n*m values), adding its
 * phases and total to *t; returns 0, or -1 with e (a CUDA failure, a point that failed, a cancel)
 * after freeing whatever the run allocated. */
extern "C" int expint_gpu_run(const struct expint_gpu_job *job, void *host_out, struct qx_timing *t,
                              struct qx_err *e)
{
	static cudaStream_t streams[EXPINT_MAX_STREAMS];
	cudaEvent_t *ev = gpu_events(EXPINT_EVENTS, e);
	unsigned long long bad = ULLONG_MAX;
	if (!ev)
		return -1;
	if (job->sequence == EXPINT_SEQ_STREAMED)
		for (int i = 0; i < job->streams; i++)
			if (!streams[i])
				GPU_TRY(
				    cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));
	if (expint_run_range(job, 0, (long long)job->n * job->m, host_out, ev, streams, nullptr, t,
	                     &bad, e))
		return -1;
	return expint_check_bad(job, bad, e);
}

/* What one device's share of a run over several GPUs holds beside its buffers. */
using expint_share_res = gpu_share_res<EXPINT_MAX_STREAMS, EXPINT_EVENTS>;

/* Device dev's share: orders [row0, row0 + rows) of the grid, on a host thread of its own that
 * makes dev current and runs the one-GPU sequence on streams and events of its own. Returns 0
 * or -1 with e; the failing point's record in *bad. */
static int expint_run_share(const struct expint_gpu_job *job, int dev, long long row0,
                            long long rows, void *host, const std::atomic<int> *stop,
                            struct qx_timing *t, unsigned long long *bad, struct qx_err *e)
{
	expint_share_res r;
	GPU_TRY(cudaSetDevice(dev));
	r.dev = dev;
	if (gpu_keep_pool(dev, e))
		return -1;
	if (job->sequence == EXPINT_SEQ_STREAMED)
		for (int i = 0; i < job->streams; i++)
			GPU_TRY(cudaStreamCreateWithFlags(&r.s[i], cudaStreamNonBlocking));
	for (cudaEvent_t &x : r.ev)
		GPU_TRY(cudaEventCreate(&x));
	if (stop->load())
		return qx_fail(e, "stopped: another GPU failed");
	return expint_run_range(job, row0 * job->m, rows * job->m, host, r.ev, r.s, stop, t, bad,
	                        e);
}

/* Divides the job's orders over ngpus devices of SM weights into share[0..ngpus): the fast
 * algorithm's by each row's modeled cost (expint_cost.h: its low orders take the series or the
 * continued fraction, several times the expansion's time, and would all land on device 0), the
 * coursework's by count. Returns 0 or -1 with e. */
static int expint_split(const struct expint_gpu_job *job, int ngpus, const double *weights,
                        struct mg_share *share, struct qx_err *e)
{
	if (job->algo == EXPINT_ALGO_COURSEWORK || ngpus == 1)
		return mg_split(job->n, ngpus, weights, share, e);
	double *cost = (double *)malloc((size_t)job->n * sizeof *cost);
	if (!cost)
		return qx_fail(e, "expint: no memory for the costs of %d orders", job->n);
	expint_row_costs(job->n, job->m, job->a, job->b, job->prec, cost);
	const int rc = mg_split_cost(job->n, ngpus, weights, cost, share, e);
	free(cost);
	return rc;
}

/* Runs the job over devices 0..ngpus-1 (expint.h). */
extern "C" int expint_gpu_run_multi(const struct expint_gpu_job *job, int ngpus, void *host_out,
                                    struct qx_timing *t, struct qx_timing *per, struct qx_err *e)
{
	double weights[QX_MAX_GPUS];
	struct mg_share share[QX_MAX_GPUS];
	unsigned long long bad[QX_MAX_GPUS];
	if (ngpus < 1 || ngpus > QX_MAX_GPUS)
		return qx_fail(e, "expint: %d GPUs: expected 1..%d", ngpus, QX_MAX_GPUS);
	if (gpu_sm_weights(ngpus, weights, e) || expint_split(job, ngpus, weights, share, e))
		return -1;
	qx_progress_phase("kernel+d2h");
	for (int d = 0; d < ngpus; d++) {
		per[d] = qx_timing{};
		bad[d] = ULLONG_MAX;
	}
	if (gpu_run_shares(
	        ngpus,
	        [&](int d, const std::atomic<int> *stop, struct qx_err *err) {
		        return expint_run_share(job, d, share[d].first, share[d].count, host_out,
		                                stop, &per[d], &bad[d], err);
	        },
	        e))
		return -1;
	unsigned long long worst = ULLONG_MAX;
	for (int d = 0; d < ngpus; d++)
		worst = bad[d] < worst ? bad[d] : worst;
	*t = per[gpu_slowest(per, ngpus)];
	return expint_check_bad(job, worst, e);
}

/* One point: E_n(x) by algorithm ALGO into *out, its status into *status. */
template <typename T, int ALGO>
__global__ void expint_eval_kernel(int n, T x, long iters, T *out, int *status)
{
	*status = expint_point<T, ALGO>(n, x, iters, out);
}

/* Evaluates one point in precision T; returns 0 or -1. */
template <typename T>
static int expint_eval_typed(int n, double x, long iters, int algo, double *value, struct qx_err *e)
{
	struct point {
		T v;
		int status;
	} host;
	gpu_owned<point> dev;
	GPU_TRY(cudaMalloc(&dev.ptr, sizeof host));
	if (algo == EXPINT_ALGO_COURSEWORK)
		expint_eval_kernel<T, EXPINT_ALGO_COURSEWORK>
		    <<<1, 1>>>(n, (T)x, iters, &dev.ptr->v, &dev.ptr->status);
	else
		expint_eval_kernel<T, EXPINT_ALGO_FAST>
		    <<<1, 1>>>(n, (T)x, iters, &dev.ptr->v, &dev.ptr->status);
	GPU_TRY(cudaGetLastError());
	GPU_TRY(cudaMemcpy(&host, dev.ptr, sizeof host, cudaMemcpyDeviceToHost));
	GPU_TRY(cudaFree(dev.release()));
	if (host.status == EXPINT_NOCONV)
		return qx_fail(e, "GPU: E_%d(%.17g) did not converge within iters = %ld iterations",
		               n, x, iters);
	if (host.status != EXPINT_OK)
		return qx_fail(e, "GPU: domain error at n = %d, x = %.17g", n, x);
	*value = host.v;
	return 0;
}

/* E_n(x) on the GPU in precision prec by algorithm algo into *value; returns 0 or -1 with e. */
extern "C" int expint_gpu_eval(int n, double x, long iters, enum qx_precision prec, int algo,
                               double *value, struct qx_err *e)
{
	return prec == QX_DOUBLE ? expint_eval_typed<double>(n, x, iters, algo, value, e)
	                         : expint_eval_typed<float>(n, x, iters, algo, value, e);
}

/* Point i of a batch: E_{n[i]}(x[i]) by algorithm ALGO in precision T into out[i] (widened to
 * double) with its status. */
template <typename T, int ALGO>
__global__ void expint_batch_kernel(const int *n, const double *x, unsigned count, long iters,
                                    double *out, int *status)
{
	const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= count)
		return;
	T v = 0;
	status[i] = expint_point<T, ALGO>(n[i], (T)x[i], iters, &v);
	out[i] = v;
}

/* Evaluates a batch in precision T: copies n and x in, one thread per point, values and
 * statuses out; returns 0 or -1 with e after freeing what it allocated. */
template <typename T>
static int expint_batch_typed(const int *n, const double *x, long count, long iters, int algo,
                              double *values, int *status, struct qx_err *e)
{
	const unsigned block = 128, grid = (unsigned)((count + block - 1) / block);
	gpu_owned<int> dn, ds;
	gpu_owned<double> dx, dv;
	if (count <= 0)
		return 0;
	if (count > INT_MAX)
		return qx_fail(e, "GPU batch of %ld points: at most %d", count, INT_MAX);
	GPU_TRY(gpu_pool_trim()); /* cudaMalloc cannot use the pool's kept blocks */
	GPU_TRY(cudaMalloc(&dn.ptr, (size_t)count * sizeof(int)));
	GPU_TRY(cudaMalloc(&ds.ptr, (size_t)count * sizeof(int)));
	GPU_TRY(cudaMalloc(&dx.ptr, (size_t)count * sizeof(double)));
	GPU_TRY(cudaMalloc(&dv.ptr, (size_t)count * sizeof(double)));
	GPU_TRY(cudaMemcpy(dn.ptr, n, (size_t)count * sizeof(int), cudaMemcpyHostToDevice));
	GPU_TRY(cudaMemcpy(dx.ptr, x, (size_t)count * sizeof(double), cudaMemcpyHostToDevice));
	if (algo == EXPINT_ALGO_COURSEWORK)
		expint_batch_kernel<T, EXPINT_ALGO_COURSEWORK>
		    <<<grid, block>>>(dn.ptr, dx.ptr, (unsigned)count, iters, dv.ptr, ds.ptr);
	else
		expint_batch_kernel<T, EXPINT_ALGO_FAST>
		    <<<grid, block>>>(dn.ptr, dx.ptr, (unsigned)count, iters, dv.ptr, ds.ptr);
	GPU_TRY(cudaGetLastError());
	GPU_TRY(cudaMemcpy(values, dv.ptr, (size_t)count * sizeof(double), cudaMemcpyDeviceToHost));
	GPU_TRY(cudaMemcpy(status, ds.ptr, (size_t)count * sizeof(int), cudaMemcpyDeviceToHost));
	return 0;
}

/* The batch entry point of device.h: every point in precision prec by algorithm algo. */
extern "C" int expint_gpu_eval_batch(const int *n, const double *x, long count, long iters,
                                     enum qx_precision prec, int algo, double *values, int *status,
                                     struct qx_err *e)
{
	return prec == QX_DOUBLE
	           ? expint_batch_typed<double>(n, x, count, iters, algo, values, status, e)
	           : expint_batch_typed<float>(n, x, count, iters, algo, values, status, e);
}
