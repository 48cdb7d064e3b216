/* longman.cu - problem longman on the GPU: M integrals by Longman's method. The integrals'
 * (lambda, omega) are generated on the device from the grid or seed (no input copy); the
 * Gauss-Legendre nodes, Euler weights and J0 zeros come from the host and live in device
 * globals, uploaded only when g or N changed (that copy is the h2d phase). Two layouts:
 * packed (a team of lanes per integral, the Euler sum as fixed weights of the areas, reduced
 * by shuffles) and block (the seed's: a block per integral, the difference table in shared
 * memory, a barrier per row).
 * One file, over 600 lines: both layouts share the device tables, the argument struct and the
 * chunked streams that the one-GPU and the several-GPU runs drive; the kernel for a user's
 * amplitude is user_kernel.cuh, the multi-GPU host threads cuda/multigpu.cuh. */
#include <atomic>
#include <cstddef>

#include "../gpu_util.cuh"
#include "../multigpu.cuh"
#include "../../src/problems/longman/longman_gpu.h"

#include "../../src/problems/longman/longman_math.h"
#include "../../src/userdefs.h"
#include "user_kernel.cuh"

static_assert(LM_USER_PARAMS == USER_MAX_PARAMS, "the job carries every user parameter");
static_assert(LM_BATCH_PARAMS == USER_BATCH_PARAMS, "the job carries every batch parameter");

/* Integrals below this count run as one chunk; above, NSTREAMS chunks whose copies overlap
 * the kernels of the following chunks. */
static const long long CHUNK_MIN = 1LL << 17;
static const int NSTREAMS = 4;

/* The tables of precision T (Gauss-Legendre nodes and weights, Euler weights, zeros),
 * uploaded by longman_upload(); a kernel takes its precision's with lm_tab<T>(). */
template <typename T> struct lm_tables {
	T t[LM_GMAX], w[LM_GMAX], c[LM_NMAX], z[LM_NMAX + 1];
};
__device__ lm_tables<double> lm_tab_d;
__device__ lm_tables<float> lm_tab_f;
template <typename T> __device__ const lm_tables<T> &lm_tab();
template <> __device__ const lm_tables<double> &lm_tab()
{
	return lm_tab_d;
}
template <> __device__ const lm_tables<float> &lm_tab()
{
	return lm_tab_f;
}

/* What every kernel needs to know about the batch: m (lambda, omega) points, team lanes per
 * integral (a power of two <= 32, team = 1 << team_log2), each lane taking per of the (N+1) g
 * evaluations. */
struct lm_args {
	long long m;
	int n, g, team, team_log2, per;
	double lam_lo, lam_hi, om_lo, om_hi, a;
	int spread, integrand, method;
	unsigned long long seed;
};

/* J0 in float. */
__device__ __forceinline__ float lm_j0(float x)
{
	return j0f(x);
}
/* J0 in double. */
__device__ __forceinline__ double lm_j0(double x)
{
	return j0(x);
}

/* e^{-lam x} times cos, sin or J0 of om x in precision T (F: the integrand); FAST uses the
 * hardware approximations __expf, __cosf, __sinf (float only). The precise cos and sin take
 * om x as cospi/sinpi of (om/pi) x: range reduction by rounding instead of Cody-Waite with
 * a Payne-Hanek slow path, which would cost registers and a stack frame. */
template <typename T, bool FAST, int F> __device__ __forceinline__ T lm_f(T lam, T om, T om_pi, T x)
{
	if constexpr (F == LM_J0)
		return exp(-lam * x) * lm_j0(om * x);
	else if constexpr (FAST)
		return __expf(-lam * x) * (F == LM_SIN ? __sinf(om * x) : __cosf(om * x));
	else
		return exp(-lam * x) * (F == LM_SIN ? sinpi(om_pi * x) : cospi(om_pi * x));
}

/* One integral's constants in precision T. */
template <typename T> struct lm_one {
	T lam, om, om_pi, inv_om, a, th1;
	int euler;
};

/* The constants of integral k. */
template <typename T> __device__ __forceinline__ lm_one<T> lm_setup(const lm_args &p, long long k)
{
	double lam, om;
	longman_params(k, p.m, p.lam_lo, p.lam_hi, p.om_lo, p.om_hi, p.spread, p.seed, &lam, &om);
	lm_one<T> o;
	o.lam = (T)lam;
	o.om = (T)om;
	o.om_pi = (T)(om / LM_PI);
	o.inv_om = (T)(1 / om);
	o.a = (T)p.a;
	o.th1 = p.integrand == LM_J0 ? (T)0 : (T)longman_first_phase(p.integrand, om, p.a);
	o.euler = longman_use_euler(p.method, lam, om);
	return o;
}

/* Zero s >= 1 after a; segment 0 starts at a. */
template <typename T> __device__ __forceinline__ T lm_zero(const lm_one<T> &o, int integrand, int s)
{
	if (integrand == LM_J0)
		return lm_tab<T>().z[s - 1] * o.inv_om;
	return (o.th1 + (T)(s - 1) * (T)LM_PI) * o.inv_om;
}

/* The sum over Gauss nodes i0 <= i < i1 of w_i f(x0 + hh (1 + t_i)) for integrand F. */
template <typename T, bool FAST, int F>
__device__ __forceinline__ T lm_nodes(const lm_one<T> &o, T x0, T hh, int i0, int i1)
{
	const T *t = lm_tab<T>().t, *w = lm_tab<T>().w;
	T part = 0;
	for (int i = i0; i < i1; i++)
		part += w[i] * lm_f<T, FAST, F>(o.lam, o.om, o.om_pi, x0 + hh * (1 + t[i]));
	return part;
}

/* Lane `lane`'s share of integral o: the evaluations [lane per, (lane+1) per) of the (N+1) g
 * (first part, then the N areas, g nodes each), walked segment by segment so that each
 * segment's ends and weight are computed once; returns the sum of c_seg (h/2) w_i f(x), c_seg
 * being 1 for the first part and the Euler weight of the area (or 1, direct sum). */
template <typename T, bool FAST, int F>
__device__ __forceinline__ T lm_share(const lm_args &p, const lm_one<T> &o, int lane)
{
	const T *c = lm_tab<T>().c;
	const int total = (p.n + 1) * p.g, end = min(lane * p.per + p.per, total);
	int e = lane * p.per, seg = e / p.g, i = e - seg * p.g;
	T sum = 0;
	while (e < end) {
		const int stop = min(p.g, i + end - e);
		const T x0 = seg == 0 ? o.a : lm_zero(o, F, seg);
		const T hh = (lm_zero(o, F, seg + 1) - x0) / 2;
		const T coef = seg == 0 || !o.euler ? (T)1 : c[seg - 1];
		sum += coef * hh * lm_nodes<T, FAST, F>(o, x0, hh, i, stop);
		e += stop - i;
		i = 0;
		seg++;
	}
	return sum;
}

/* Packed layout: a team of p.team lanes per integral; each lane computes its share
 * (lm_share), and the team's sum is finished by xor shuffles. */
template <typename T, bool FAST>
__global__ void __launch_bounds__(LM_PACKED_MAX_BLOCK)
    lm_packed_kernel(lm_args p, long long first, long long count, T *out)
{
	const long long tid = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	const long long local = tid >> p.team_log2;
	const int lane = (int)(tid & (p.team - 1));
	T sum = 0;
	if (local < count) {
		const lm_one<T> o = lm_setup<T>(p, first + local);
		sum = p.integrand == LM_COS   ? lm_share<T, FAST, LM_COS>(p, o, lane)
		      : p.integrand == LM_SIN ? lm_share<T, FAST, LM_SIN>(p, o, lane)
		                              : lm_share<T, FAST, LM_J0>(p, o, lane);
	}
	for (int off = p.team / 2; off > 0; off >>= 1)
		sum += __shfl_xor_sync(0xffffffffu, sum, off);
	if (local < count && lane == 0)
		out[local] = sum;
}

/* Block layout (the seed's): block b computes integral first+b; thread j < N integrates area
 * j into row 0 of the N x N table G as V_j = (-1)^j A_j, thread N the first part; with Euler,
 * row r holds Delta^r V (a barrier per row) and thread 0 sums F + sum (-1)^r Delta^r V_0 /
 * 2^{r+1}; the direct sum is F + sum (-1)^j V_j. */
template <typename T, bool FAST> __global__ void lm_block_kernel(lm_args p, long long first, T *out)
{
	extern __shared__ __align__(16) unsigned char lm_shared[];
	T *G = (T *)lm_shared, *F = G + p.n * p.n;
	const int j = threadIdx.x, n = p.n;
	const lm_one<T> o = lm_setup<T>(p, first + blockIdx.x);
	if (j <= n) {
		const int seg = j == n ? 0 : j + 1;
		const T x0 = seg == 0 ? o.a : lm_zero(o, p.integrand, seg);
		const T hh = (lm_zero(o, p.integrand, seg + 1) - x0) / 2;
		const T v =
		    hh * (p.integrand == LM_COS   ? lm_nodes<T, FAST, LM_COS>(o, x0, hh, 0, p.g)
		          : p.integrand == LM_SIN ? lm_nodes<T, FAST, LM_SIN>(o, x0, hh, 0, p.g)
		                                  : lm_nodes<T, FAST, LM_J0>(o, x0, hh, 0, p.g));
		if (j == n)
			*F = v;
		else
			G[j] = j & 1 ? -v : v;
	}
	__syncthreads();
	if (o.euler)
		for (int r = 1; r < n; r++) {
			if (j < n - r)
				G[r * n + j] = G[(r - 1) * n + j + 1] - G[(r - 1) * n + j];
			__syncthreads();
		}
	if (j == 0) {
		T sum = 0, scale = (T)0.5;
		for (int r = 0; r < n; r++) {
			if (o.euler) {
				sum += (r & 1 ? -scale : scale) * G[r * n];
				scale /= 2;
			} else {
				sum += r & 1 ? -G[r] : G[r];
			}
		}
		out[blockIdx.x] = *F + sum;
	}
}

/* Lanes per integral for the packed layout: job->lanes when set; else the smallest power of
 * two (<= 32) that gives the batch half a wave of the kernel's resident threads (`resident`,
 * from the occupancy API), as long as each lane keeps >= 16 of the (N+1) g evaluations.
 * Large batches thus run one integral per thread, paying its setup (lambda, omega, first
 * zero) once; measured on an H200 at N = 16, g = 10: M = 10^6 is fastest with 1 lane and
 * M = 50000 with 4 (make bench). */
static int lm_team(const struct longman_gpu_job *job, long long resident)
{
	int team = 1;
	if (job->lanes)
		return job->lanes;
	while (team < 32 && 2 * job->m * team < resident && 2 * team * 16 <= (job->n + 1) * job->g)
		team *= 2;
	return team;
}

/* The kernels' arguments for job: the batch, and the packed layout's work split for a
 * device that holds `resident` threads of the packed kernel at once. */
static lm_args lm_make_args(const struct longman_gpu_job *job, long long resident)
{
	const int team = lm_team(job, resident), total = (job->n + 1) * job->g;
	int log2 = 0;
	while ((1 << log2) < team)
		log2++;
	const long long points = job->batch.m > 0 ? job->batch.m : job->m;
	return {
	    points,         job->n,      job->g,     team,       log2,   (total + team - 1) / team,
	    job->lam_lo,    job->lam_hi, job->om_lo, job->om_hi, job->a, job->spread,
	    job->integrand, job->method, job->seed};
}

/* Returns the device bytes a run allocates: the results in the job's precision and the
 * batch's lists. */
extern "C" size_t longman_gpu_device_bytes(const struct longman_gpu_job *job)
{
	return (size_t)job->m * qx_precision_size(job->prec) +
	       (size_t)job->batch_nvals * sizeof(double);
}

/* Copies the job's batch lists (none: nothing) into a buffer of device memory allocated on
 * stream s into *dev (the caller frees it); returns 0 or -1 with e. */
static int lm_batch_upload(const struct longman_gpu_job *job, cudaStream_t s, double **dev,
                           struct qx_err *e)
{
	const size_t bytes = (size_t)job->batch_nvals * sizeof(double);
	*dev = nullptr;
	if (!job->batch.nb)
		return 0;
	GPU_TRY(cudaMallocAsync(dev, bytes, s));
	GPU_TRY(cudaMemcpyAsync(*dev, job->batch_vals, bytes, cudaMemcpyHostToDevice, s));
	return 0;
}

/* Checks the block layout against the device's limits before anything is allocated: N+1
 * threads and the N x N table in shared memory (packed's block is checked by the problem, in
 * `set` and before every run). Returns 0, or -1 with e naming the limit. */
static int lm_check_limits(const struct longman_gpu_job *job, struct qx_err *e, int dev = 0)
{
	int max_threads = 0, max_shared = 0;
	if (job->layout != LONGMAN_GPU_BLOCK)
		return 0;
	GPU_TRY(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerBlock, dev));
	GPU_TRY(cudaDeviceGetAttribute(&max_shared, cudaDevAttrMaxSharedMemoryPerBlock, dev));
	const size_t shared = ((size_t)job->n * job->n + 1) * qx_precision_size(job->prec);
	if (longman_block_threads(job->n) > max_threads)
		return qx_fail(
		    e,
		    "variant block needs N+1 = %d threads per block (rounded to %d); this "
		    "GPU allows %d",
		    job->n + 1, longman_block_threads(job->n), max_threads);
	if (shared > (size_t)max_shared)
		return qx_fail(
		    e,
		    "variant block needs %zu bytes of shared memory for the %d x %d %s "
		    "table; this GPU allows %d per block (lower N, or use variant packed)",
		    shared, job->n, job->n, qx_precision_name(job->prec), max_shared);
	return 0;
}

/* Uploads the tables on stream s of device dev (the current one) when g or N changed since
 * the last upload there; *uploaded says whether it did. Each device has its own tables and
 * its own record of them, touched only by the thread that drives it. */
static int lm_upload(const struct longman_gpu_job *job, cudaStream_t s, int *uploaded,
                     struct qx_err *e, int dev = 0)
{
	static int up_gs[QX_MAX_GPUS], up_ns[QX_MAX_GPUS];
	int &up_g = up_gs[dev], &up_n = up_ns[dev];
	*uploaded = 0;
	if (up_g == job->g && up_n == job->n)
		return 0;
	up_g = up_n = 0;
	const size_t gd = job->g * sizeof(double), gf = job->g * sizeof(float);
	const cudaMemcpyKind h2d = cudaMemcpyHostToDevice;
	using td = lm_tables<double>;
	using tf = lm_tables<float>;
	GPU_TRY(cudaMemcpyToSymbolAsync(lm_tab_d, job->gl_t, gd, offsetof(td, t), h2d, s));
	GPU_TRY(cudaMemcpyToSymbolAsync(lm_tab_d, job->gl_w, gd, offsetof(td, w), h2d, s));
	GPU_TRY(cudaMemcpyToSymbolAsync(lm_tab_d, job->euler_c, job->n * sizeof(double),
	                                offsetof(td, c), h2d, s));
	GPU_TRY(cudaMemcpyToSymbolAsync(lm_tab_d, job->zeros, (job->n + 1) * sizeof(double),
	                                offsetof(td, z), h2d, s));
	GPU_TRY(cudaMemcpyToSymbolAsync(lm_tab_f, job->gl_tf, gf, offsetof(tf, t), h2d, s));
	GPU_TRY(cudaMemcpyToSymbolAsync(lm_tab_f, job->gl_wf, gf, offsetof(tf, w), h2d, s));
	GPU_TRY(cudaMemcpyToSymbolAsync(lm_tab_f, job->euler_cf, job->n * sizeof(float),
	                                offsetof(tf, c), h2d, s));
	GPU_TRY(cudaMemcpyToSymbolAsync(lm_tab_f, job->zeros_f, (job->n + 1) * sizeof(float),
	                                offsetof(tf, z), h2d, s));
	up_g = job->g;
	up_n = job->n;
	*uploaded = 1;
	return 0;
}

/* Launches the kernel linked with the user's amplitude (job->user_kernel, packed layout) for
 * integrals [first, first+count) into dev on stream s: the batch of p, the tables of precision
 * T by their device addresses, the user's parameters by value, and the job's batch of them
 * with its lists at vals (device memory; unused without a batch). */
template <typename T>
static cudaError_t lm_launch_user(const struct longman_gpu_job *job, const lm_args &p,
                                  long long first, long long count, T *dev, const double *vals,
                                  cudaStream_t s)
{
	lm_user_args a = {p.m,     p.n,     p.g,     p.team,   p.team_log2, p.lam_lo,   p.lam_hi,
	                  p.om_lo, p.om_hi, p.a,     p.spread, p.integrand, p.method,   p.seed,
	                  nullptr, nullptr, nullptr, nullptr,  {0},         job->batch, vals};
	lm_tables<T> *tab;
	const cudaError_t err = cudaGetSymbolAddress(
	    (void **)&tab, sizeof(T) == sizeof(double) ? (const void *)&lm_tab_d : &lm_tab_f);
	if (err)
		return err;
	a.t = tab->t;
	a.w = tab->w;
	a.c = tab->c;
	a.z = tab->z;
	for (int j = 0; j < LM_USER_PARAMS; j++)
		a.p[j] = job->user_p[j];
	const int per_block = job->block / p.team;
	const unsigned grid = (unsigned)((count + per_block - 1) / per_block);
	void *args[] = {&a, &first, &count, &dev};
	return cudaLaunchKernel(job->user_kernel, grid, job->block, args, 0, s);
}

/* Launches the job's kernel for integrals [first, first+count) into dev on stream s (vals: the
 * batch's lists on the device, for the user's amplitude). */
template <typename T, bool FAST>
static cudaError_t lm_launch(const struct longman_gpu_job *job, const lm_args &p, long long first,
                             long long count, T *dev, const double *vals, cudaStream_t s)
{
	if (job->user_kernel)
		return lm_launch_user<T>(job, p, first, count, dev, vals, s);
	if (job->layout == LONGMAN_GPU_BLOCK) {
		const size_t shared = ((size_t)job->n * job->n + 1) * sizeof(T);
		lm_block_kernel<T, FAST>
		    <<<(unsigned)count, longman_block_threads(job->n), shared, s>>>(p, first, dev);
	} else {
		const int per_block = job->block / p.team;
		const unsigned grid = (unsigned)((count + per_block - 1) / per_block);
		lm_packed_kernel<T, FAST><<<grid, job->block, 0, s>>>(p, first, count, dev);
	}
	return cudaGetLastError();
}

/* The run: the result buffer from the pool, the tables when changed and a batch's lists, then
 * the integrals in one chunk (or NSTREAMS chunks on NSTREAMS streams, chunk c's copy
 * overlapping the kernels of the later chunks), copied to the pinned host array, and the
 * buffers freed. The phases partition the wall time: alloc; h2d (the table upload, 0 when
 * cached, and the batch's lists); kernel = the span
 * from the first kernel's start to the last kernel's end (the earlier chunks' copies run
 * inside it); d2h = the copying left after the last kernel; free. */
template <typename T, bool FAST>
static int lm_run(const struct longman_gpu_job *job, T *host, struct qx_timing *t, struct qx_err *e)
{
	static cudaStream_t streams[NSTREAMS];
	static int sms;
	int blocks_per_sm = 0;
	const int nchunks = job->m >= CHUNK_MIN ? NSTREAMS : 1;
	const long long chunk = (job->m + nchunks - 1) / nchunks;
	/* events: start, allocated, uploaded, joined, end; per chunk: kernel start, end, copy end
	 */
	cudaEvent_t *ev = gpu_events(5 + 3 * NSTREAMS, e);
	gpu_owned<T> dev;
	gpu_owned<double> vals;
	int uploaded = 0, used = 0;
	if (!ev || lm_check_limits(job, e))
		return -1;
	if (!sms)
		GPU_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	if (job->user_kernel)
		GPU_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
		    &blocks_per_sm, job->user_kernel, job->block, 0));
	else if (job->layout == LONGMAN_GPU_PACKED)
		GPU_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
		    &blocks_per_sm, lm_packed_kernel<T, FAST>, job->block, 0));
	const lm_args p = lm_make_args(job, (long long)sms * blocks_per_sm * job->block);
	if (!streams[0])
		for (int i = 0; i < NSTREAMS; i++)
			GPU_TRY(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));
	qx_progress_phase("alloc");
	GPU_TRY(cudaEventRecord(ev[0], streams[0]));
	GPU_TRY(cudaMallocAsync(&dev.ptr, (size_t)job->m * sizeof(T), streams[0]));
	GPU_TRY(cudaEventRecord(ev[1], streams[0]));
	if (lm_upload(job, streams[0], &uploaded, e) ||
	    lm_batch_upload(job, streams[0], &vals.ptr, e))
		return -1;
	uploaded |= job->batch.nb > 0;
	GPU_TRY(cudaEventRecord(ev[2], streams[0]));
	for (int c = 0; c < nchunks; c++) {
		const long long first = c * chunk;
		const long long count = job->m - first < chunk ? job->m - first : chunk;
		const cudaStream_t s = streams[c];
		cudaEvent_t *mine = ev + 5 + 3 * c;
		if (count <= 0)
			break;
		if (qx_cancelled())
			return qx_fail(e, "run cancelled");
		if (c)
			GPU_TRY(cudaStreamWaitEvent(s, ev[2], 0));
		GPU_TRY(cudaEventRecord(mine[0], s));
		GPU_LAUNCH(
		    (lm_launch<T, FAST>(job, p, first, count, dev.ptr + first, vals.ptr, s)));
		GPU_TRY(cudaEventRecord(mine[1], s));
		GPU_TRY(cudaMemcpyAsync(host + first, dev.ptr + first, (size_t)count * sizeof(T),
		                        cudaMemcpyDeviceToHost, s));
		GPU_TRY(cudaEventRecord(mine[2], s));
		if (c)
			GPU_TRY(cudaStreamWaitEvent(streams[0], mine[2], 0));
		used++;
	}
	GPU_TRY(cudaEventRecord(ev[3], streams[0]));
	GPU_TRY(cudaFreeAsync(dev.release(), streams[0]));
	if (vals.ptr)
		GPU_TRY(cudaFreeAsync(vals.release(), streams[0]));
	GPU_TRY(cudaEventRecord(ev[4], streams[0]));
	qx_progress_phase("kernel+d2h");
	GPU_TRY(cudaEventSynchronize(ev[4]));
	qx_progress_add(job->m);
	double k_start = gpu_elapsed(ev[2], ev[5]), k_end = gpu_elapsed(ev[2], ev[6]);
	for (int c = 1; c < used; c++) {
		k_start = fmin(k_start, gpu_elapsed(ev[2], ev[5 + 3 * c]));
		k_end = fmax(k_end, gpu_elapsed(ev[2], ev[6 + 3 * c]));
	}
	qx_timing_add(t, "alloc", gpu_elapsed(ev[0], ev[1]), 0);
	qx_timing_add(t, "h2d", uploaded ? gpu_elapsed(ev[1], ev[2]) : 0, 0);
	qx_timing_add(t, "kernel", k_end - k_start, used > 1);
	qx_timing_add(t, "d2h", gpu_elapsed(ev[2], ev[3]) - k_end, used > 1);
	qx_timing_add(t, "free", gpu_elapsed(ev[3], ev[4]), 0);
	t->total = gpu_elapsed(ev[0], ev[4]);
	return 0;
}

/* Runs the job in its precision and math (double is always precise, and so is the user's
 * amplitude) into host_out (pinned, M values), adding its phases and total to *t; returns 0, or
 * -1 with e (a limit the job exceeds, a CUDA failure, a cancel) after freeing whatever the run
 * allocated. */
extern "C" int longman_gpu_run(const struct longman_gpu_job *job, void *host_out,
                               struct qx_timing *t, struct qx_err *e)
{
	if (job->prec == QX_DOUBLE)
		return lm_run<double, false>(job, (double *)host_out, t, e);
	if (job->math == LM_FAST && !job->user_kernel)
		return lm_run<float, true>(job, (float *)host_out, t, e);
	return lm_run<float, false>(job, (float *)host_out, t, e);
}

/* What one device's share of a run over several GPUs holds: its streams, events and result
 * buffer, all on device dev. The destructor (every return path, a failure's too) waits for
 * the device's queued work and frees them, so a failed run leaves nothing on any device. */
struct lm_share_res {
	int dev = -1;
	cudaStream_t s[NSTREAMS] = {};
	cudaEvent_t ev[5 + 3 * NSTREAMS] = {};
	void *buf = nullptr;
	double *vals = nullptr; /* the batch's lists */
	lm_share_res() = default;
	lm_share_res(const lm_share_res &) = delete;
	lm_share_res &operator=(const lm_share_res &) = delete;
	~lm_share_res()
	{
		if (dev < 0)
			return;
		cudaSetDevice(dev);
		for (cudaStream_t st : s)
			if (st)
				cudaStreamSynchronize(st);
		if (buf)
			cudaFree(buf);
		if (vals)
			cudaFree(vals);
		for (cudaEvent_t e : ev)
			if (e)
				cudaEventDestroy(e);
		for (cudaStream_t st : s)
			if (st)
				cudaStreamDestroy(st);
	}
};

/* Device dev's share of the run: integrals [first, first + count) of the batch, with the
 * kernels' arguments p fixed for every device (so each integral is computed as one GPU
 * computes it), into host[first...]. On a host thread of its own: sets dev current, then the
 * one-GPU run's steps on resources of its own (lm_share_res): the buffer, the tables (when
 * changed on this device) and a batch's lists, the kernels in one or NSTREAMS chunks with
 * their copies, the free.
 * Its phases and total go to *t, with lm_run's meaning. stop: set by a device that failed,
 * so the others stop between chunks. Returns 0 or -1 with e. */
template <typename T, bool FAST>
static int lm_run_share(const struct longman_gpu_job *job, const lm_args &p, int dev,
                        long long first, long long count, T *host, struct qx_timing *t,
                        const std::atomic<int> *stop, struct qx_err *e)
{
	lm_share_res r;
	const int nchunks = count >= CHUNK_MIN ? NSTREAMS : 1;
	const long long chunk = count > 0 ? (count + nchunks - 1) / nchunks : 0;
	int uploaded = 0, used = 0;
	GPU_TRY(cudaSetDevice(dev));
	r.dev = dev;
	if (lm_check_limits(job, e, dev))
		return -1;
	if (gpu_keep_pool(dev, e))
		return -1;
	for (int i = 0; i < NSTREAMS; i++)
		GPU_TRY(cudaStreamCreateWithFlags(&r.s[i], cudaStreamNonBlocking));
	for (cudaEvent_t &ev : r.ev)
		GPU_TRY(cudaEventCreate(&ev));
	cudaEvent_t *ev = r.ev;
	GPU_TRY(cudaEventRecord(ev[0], r.s[0]));
	GPU_TRY(cudaMallocAsync(&r.buf, (size_t)(count > 0 ? count : 1) * sizeof(T), r.s[0]));
	GPU_TRY(cudaEventRecord(ev[1], r.s[0]));
	if (lm_upload(job, r.s[0], &uploaded, e, dev) || lm_batch_upload(job, r.s[0], &r.vals, e))
		return -1;
	uploaded |= job->batch.nb > 0;
	GPU_TRY(cudaEventRecord(ev[2], r.s[0]));
	T *dev_out = (T *)r.buf;
	for (int c = 0; c < nchunks; c++) {
		const long long off = c * chunk;
		const long long n = count - off < chunk ? count - off : chunk;
		const cudaStream_t s = r.s[c];
		cudaEvent_t *mine = ev + 5 + 3 * c;
		if (n <= 0)
			break;
		if (qx_cancelled())
			return qx_fail(e, "run cancelled");
		if (stop->load())
			return qx_fail(e, "stopped: another GPU failed");
		if (c)
			GPU_TRY(cudaStreamWaitEvent(s, ev[2], 0));
		GPU_TRY(cudaEventRecord(mine[0], s));
		GPU_LAUNCH((lm_launch<T, FAST>(job, p, first + off, n, dev_out + off, r.vals, s)));
		GPU_TRY(cudaEventRecord(mine[1], s));
		GPU_TRY(cudaMemcpyAsync(host + first + off, dev_out + off, (size_t)n * sizeof(T),
		                        cudaMemcpyDeviceToHost, s));
		GPU_TRY(cudaEventRecord(mine[2], s));
		if (c)
			GPU_TRY(cudaStreamWaitEvent(r.s[0], mine[2], 0));
		used++;
	}
	GPU_TRY(cudaEventRecord(ev[3], r.s[0]));
	GPU_TRY(cudaFreeAsync(r.buf, r.s[0]));
	r.buf = nullptr;
	double *vals = r.vals;
	r.vals = nullptr;
	if (vals)
		GPU_TRY(cudaFreeAsync(vals, r.s[0]));
	GPU_TRY(cudaEventRecord(ev[4], r.s[0]));
	GPU_TRY(cudaEventSynchronize(ev[4]));
	qx_progress_add(count);
	double k_start = 0, k_end = 0;
	for (int c = 0; c < used; c++) {
		const double a = gpu_elapsed(ev[2], ev[5 + 3 * c]),
		             b = gpu_elapsed(ev[2], ev[6 + 3 * c]);
		k_start = c ? fmin(k_start, a) : a;
		k_end = c ? fmax(k_end, b) : b;
	}
	qx_timing_add(t, "alloc", gpu_elapsed(ev[0], ev[1]), 0);
	qx_timing_add(t, "h2d", uploaded ? gpu_elapsed(ev[1], ev[2]) : 0, 0);
	qx_timing_add(t, "kernel", k_end - k_start, used > 1);
	qx_timing_add(t, "d2h", used ? gpu_elapsed(ev[2], ev[3]) - k_end : 0, used > 1);
	qx_timing_add(t, "free", gpu_elapsed(ev[3], ev[4]), 0);
	t->total = gpu_elapsed(ev[0], ev[4]);
	return 0;
}

/* The run over devices 0..ngpus-1: the kernels' arguments fixed on the calling thread from
 * device 0 as the one-GPU run fixes them (the lanes per integral), the batch split over the
 * devices by their SM counts (mg_split), each share run by lm_run_share on a host thread of
 * its own; the first failure in device order is the run's error, named by its GPU. */
template <typename T, bool FAST>
static int lm_run_multi(const struct longman_gpu_job *job, int ngpus, T *host, struct qx_timing *t,
                        struct qx_timing *per, struct qx_err *e)
{
	int sms = 0, blocks_per_sm = 0;
	double weights[QX_MAX_GPUS];
	struct mg_share share[QX_MAX_GPUS];
	if (lm_check_limits(job, e))
		return -1;
	GPU_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	if (job->user_kernel)
		GPU_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
		    &blocks_per_sm, job->user_kernel, job->block, 0));
	else if (job->layout == LONGMAN_GPU_PACKED)
		GPU_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
		    &blocks_per_sm, lm_packed_kernel<T, FAST>, job->block, 0));
	const lm_args p = lm_make_args(job, (long long)sms * blocks_per_sm * job->block);
	if (gpu_sm_weights(ngpus, weights, e) || mg_split(job->m, ngpus, weights, share, e))
		return -1;
	qx_progress_phase("kernel+d2h");
	for (int d = 0; d < ngpus; d++)
		per[d] = qx_timing{};
	if (gpu_run_shares(
	        ngpus,
	        [&](int d, const std::atomic<int> *stop, struct qx_err *err) {
		        return lm_run_share<T, FAST>(job, p, d, share[d].first, share[d].count,
		                                     host, &per[d], stop, err);
	        },
	        e))
		return -1;
	*t = per[gpu_slowest(per, ngpus)];
	return 0;
}

/* Runs the job over ngpus devices (longman.h). */
extern "C" int longman_gpu_run_multi(const struct longman_gpu_job *job, int ngpus, void *host_out,
                                     struct qx_timing *t, struct qx_timing *per, struct qx_err *e)
{
	if (ngpus < 1 || ngpus > QX_MAX_GPUS)
		return qx_fail(e, "longman: %d GPUs: expected 1..%d", ngpus, QX_MAX_GPUS);
	if (job->prec == QX_DOUBLE)
		return lm_run_multi<double, false>(job, ngpus, (double *)host_out, t, per, e);
	if (job->math == LM_FAST && !job->user_kernel)
		return lm_run_multi<float, true>(job, ngpus, (float *)host_out, t, per, e);
	return lm_run_multi<float, false>(job, ngpus, (float *)host_out, t, per, e);
}

/* Fills *o for the kernel the job launches at the block it launches with (packed: job->block,
 * refused like a run when the layout cannot launch it; block: N+1 rounded up to a warp);
 * returns 0 or -1 with e. */
extern "C" int longman_gpu_occupancy(const struct longman_gpu_job *job, struct gpu_occupancy *o,
                                     struct qx_err *e)
{
	const size_t size = qx_precision_size(job->prec);
	const bool fast = job->prec == QX_FLOAT && job->math == LM_FAST;
	const void *func;
	if (job->user_kernel)
		return gpu_occupancy_of(job->user_kernel, job->block, 0, 0, o, e);
	if (job->layout == LONGMAN_GPU_BLOCK) {
		func = job->prec == QX_DOUBLE ? (const void *)lm_block_kernel<double, false>
		       : fast                 ? (const void *)lm_block_kernel<float, true>
		                              : (const void *)lm_block_kernel<float, false>;
		return gpu_occupancy_of(func, longman_block_threads(job->n),
		                        ((size_t)job->n * job->n + 1) * size, 0, o, e);
	}
	func = job->prec == QX_DOUBLE ? (const void *)lm_packed_kernel<double, false>
	       : fast                 ? (const void *)lm_packed_kernel<float, true>
	                              : (const void *)lm_packed_kernel<float, false>;
	if (lm_check_limits(job, e))
		return -1;
	return gpu_occupancy_of(func, job->block, 0, 0, o, e);
}
