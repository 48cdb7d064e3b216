/* longman.cu - problem longman on the GPU: M integrals by Longman's method. The integrals'
 * (lambda, omega) are generated on the device from the grid or seed (no input copy); the
 * Gauss-Legendre nodes, Euler weights and J0 zeros come from the host and live in device
 * globals, uploaded only when g or N changed (that copy is the h2d phase). Two layouts:
 * packed (a team of lanes per integral, the Euler sum as fixed weights of the areas, reduced
 * by shuffles) and block (the seed's: a block per integral, the difference table in shared
 * memory, a barrier per row). */
#include "gpu_util.cuh"

#include "../src/problems/longman_math.h"

/* Integrals below this count run as one chunk; above, NSTREAMS chunks whose copies overlap
 * the kernels of the following chunks. */
static const long long CHUNK_MIN = 1LL << 17;
static const int NSTREAMS = 4;

/* The tables in both precisions, uploaded by longman_upload(). */
__device__ double lm_t_d[LM_GMAX], lm_w_d[LM_GMAX], lm_c_d[LM_NMAX], lm_z_d[LM_NMAX + 1];
__device__ float lm_t_f[LM_GMAX], lm_w_f[LM_GMAX], lm_c_f[LM_NMAX], lm_z_f[LM_NMAX + 1];

/* The tables of precision T. */
template <typename T> struct lm_tab;
template <> struct lm_tab<double> {
	__device__ static const double *t() { return lm_t_d; }
	__device__ static const double *w() { return lm_w_d; }
	__device__ static const double *c() { return lm_c_d; }
	__device__ static const double *z() { return lm_z_d; }
};
template <> struct lm_tab<float> {
	__device__ static const float *t() { return lm_t_f; }
	__device__ static const float *w() { return lm_w_f; }
	__device__ static const float *c() { return lm_c_f; }
	__device__ static const float *z() { return lm_z_f; }
};

/* What every kernel needs to know about the batch. */
struct lm_args {
	long long m;
	int n, g, team;
	double lam_lo, lam_hi, om_lo, om_hi, a;
	int spread, integrand, method;
	unsigned long long seed;
};

/* e^{-lam x} f(om x) in precision T; FAST uses the hardware approximations (float only). */
template <typename T, bool FAST> __device__ __forceinline__ T lm_f(int integrand, T lam, T om, T x);
template <> __device__ __forceinline__ double lm_f<double, false>(int integrand, double lam, double om, double x)
{
	const double osc = integrand == LM_J0 ? j0(om * x) : integrand == LM_SIN ? sin(om * x) : cos(om * x);
	return exp(-lam * x) * osc;
}
template <> __device__ __forceinline__ float lm_f<float, false>(int integrand, float lam, float om, float x)
{
	const float osc = integrand == LM_J0 ? j0f(om * x) : integrand == LM_SIN ? sinf(om * x) : cosf(om * x);
	return expf(-lam * x) * osc;
}
template <> __device__ __forceinline__ float lm_f<float, true>(int integrand, float lam, float om, float x)
{
	const float osc = integrand == LM_J0 ? j0f(om * x) : integrand == LM_SIN ? __sinf(om * x) : __cosf(om * x);
	return __expf(-lam * x) * osc;
}

/* One integral's constants in precision T. */
template <typename T> struct lm_one {
	T lam, om, inv_om, a, th1;
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
		return lm_tab<T>::z()[s - 1] * o.inv_om;
	return (o.th1 + (T)(s - 1) * (T)LM_PI) * o.inv_om;
}

/* Packed layout: a team of p.team lanes (a power of two <= 32) per integral. The (N+1) g
 * evaluations (first part, then N areas, g nodes each) are dealt round-robin to the lanes;
 * each lane accumulates c_seg (h/2) w_i f(x), where c_seg is 1 for the first part and the
 * Euler weight (or 1, direct) of the area; the team's sum is finished by xor shuffles. */
template <typename T, bool FAST>
__global__ void __launch_bounds__(256) lm_packed_kernel(lm_args p, long long first, long long count, T *out)
{
	const long long tid = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	const long long local = tid / p.team;
	const int lane = (int)(tid & (p.team - 1));
	T sum = 0;
	if (local < count) {
		const lm_one<T> o = lm_setup<T>(p, first + local);
		const T *t = lm_tab<T>::t(), *w = lm_tab<T>::w(), *c = lm_tab<T>::c();
		const int total = (p.n + 1) * p.g;
		int seg = lane / p.g, i = lane - seg * p.g;
		for (int e = lane; e < total; e += p.team) {
			const T x0 = seg == 0 ? o.a : lm_zero(o, p.integrand, seg);
			const T hh = (lm_zero(o, p.integrand, seg + 1) - x0) / 2;
			const T coef = seg == 0 || !o.euler ? (T)1 : c[seg - 1];
			sum += coef * hh * w[i] * lm_f<T, FAST>(p.integrand, o.lam, o.om, x0 + hh * (1 + t[i]));
			i += p.team;
			while (i >= p.g) {
				i -= p.g;
				seg++;
			}
		}
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
template <typename T, bool FAST>
__global__ void lm_block_kernel(lm_args p, long long first, T *out)
{
	extern __shared__ __align__(16) unsigned char lm_shared[];
	T *G = (T *)lm_shared, *F = G + p.n * p.n;
	const int j = threadIdx.x, n = p.n;
	const lm_one<T> o = lm_setup<T>(p, first + blockIdx.x);
	if (j <= n) {
		const T *t = lm_tab<T>::t(), *w = lm_tab<T>::w();
		const int seg = j == n ? 0 : j + 1;
		const T x0 = seg == 0 ? o.a : lm_zero(o, p.integrand, seg);
		const T hh = (lm_zero(o, p.integrand, seg + 1) - x0) / 2;
		T v = 0;
		for (int i = 0; i < p.g; i++)
			v += w[i] * lm_f<T, FAST>(p.integrand, o.lam, o.om, x0 + hh * (1 + t[i]));
		v *= hh;
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

/* Threads per block of the block layout: N+1 rounded up to a warp. */
static int lm_block_threads(int n)
{
	return (n + 1 + 31) / 32 * 32;
}

/* Threads per block of the packed layout: the session's block rounded down to whole warps
 * (at least one, at most 256 = the kernel's launch bound). */
static int lm_packed_threads(int block)
{
	const int b = block / 32 * 32;
	return b < 32 ? 32 : b > 256 ? 256 : b;
}

/* Lanes per integral: the smallest power of two (<= 32) that leaves each lane >= 4 of the
 * (N+1) g evaluations, or 32. */
static int lm_team(int n, int g)
{
	int team = 1;
	while (team < 32 && team * 4 < (n + 1) * g)
		team *= 2;
	return team;
}

extern "C" size_t longman_gpu_device_bytes(const struct longman_gpu_job *job)
{
	return (size_t)job->m * qx_precision_size(job->prec);
}

/* Checks the layout against the device's limits before anything is allocated. */
static int lm_check_limits(const struct longman_gpu_job *job, struct qx_err *e)
{
	int max_threads = 0, max_shared = 0;
	GPU_TRY(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerBlock, 0));
	GPU_TRY(cudaDeviceGetAttribute(&max_shared, cudaDevAttrMaxSharedMemoryPerBlock, 0));
	if (job->layout != LONGMAN_GPU_BLOCK)
		return 0;
	const size_t shared = ((size_t)job->n * job->n + 1) * qx_precision_size(job->prec);
	if (lm_block_threads(job->n) > max_threads)
		return qx_fail(e,
			       "variant block needs N+1 = %d threads per block (rounded to %d); this "
			       "GPU allows %d",
			       job->n + 1, lm_block_threads(job->n), max_threads);
	if (shared > (size_t)max_shared)
		return qx_fail(e,
			       "variant block needs %zu bytes of shared memory for the %d x %d %s "
			       "table; this GPU allows %d per block (lower N, or use variant packed)",
			       shared, job->n, job->n, qx_precision_name(job->prec), max_shared);
	return 0;
}

/* Uploads the tables on stream s when g or N changed since the last upload; *uploaded says
 * whether it did. */
static int lm_upload(const struct longman_gpu_job *job, cudaStream_t s, int *uploaded,
		     struct qx_err *e)
{
	static int up_g, up_n;
	static float tf[LM_GMAX], wf[LM_GMAX], cf[LM_NMAX], zf[LM_NMAX + 1];
	*uploaded = 0;
	if (up_g == job->g && up_n == job->n)
		return 0;
	up_g = up_n = 0;
	for (int i = 0; i < job->g; i++) {
		tf[i] = (float)job->gl_t[i];
		wf[i] = (float)job->gl_w[i];
	}
	for (int i = 0; i < job->n; i++)
		cf[i] = (float)job->euler_c[i];
	for (int i = 0; i <= job->n; i++)
		zf[i] = (float)job->zeros[i];
	const size_t gd = job->g * sizeof(double), gf = job->g * sizeof(float);
	const cudaMemcpyKind h2d = cudaMemcpyHostToDevice;
	GPU_TRY(cudaMemcpyToSymbolAsync(lm_t_d, job->gl_t, gd, 0, h2d, s));
	GPU_TRY(cudaMemcpyToSymbolAsync(lm_w_d, job->gl_w, gd, 0, h2d, s));
	GPU_TRY(cudaMemcpyToSymbolAsync(lm_c_d, job->euler_c, job->n * sizeof(double), 0, h2d, s));
	GPU_TRY(cudaMemcpyToSymbolAsync(lm_z_d, job->zeros, (job->n + 1) * sizeof(double), 0, h2d, s));
	GPU_TRY(cudaMemcpyToSymbolAsync(lm_t_f, tf, gf, 0, h2d, s));
	GPU_TRY(cudaMemcpyToSymbolAsync(lm_w_f, wf, gf, 0, h2d, s));
	GPU_TRY(cudaMemcpyToSymbolAsync(lm_c_f, cf, job->n * sizeof(float), 0, h2d, s));
	GPU_TRY(cudaMemcpyToSymbolAsync(lm_z_f, zf, (job->n + 1) * sizeof(float), 0, h2d, s));
	GPU_TRY(cudaStreamSynchronize(s)); /* the float arrays are reused by the next upload */
	up_g = job->g;
	up_n = job->n;
	*uploaded = 1;
	return 0;
}

/* Launches the job's kernel for integrals [first, first+count) into dev on stream s. */
template <typename T, bool FAST>
static cudaError_t lm_launch(const struct longman_gpu_job *job, const lm_args &p, long long first,
			     long long count, T *dev, cudaStream_t s)
{
	if (job->layout == LONGMAN_GPU_BLOCK) {
		const size_t shared = ((size_t)job->n * job->n + 1) * sizeof(T);
		lm_block_kernel<T, FAST><<<(unsigned)count, lm_block_threads(job->n), shared, s>>>(p, first, dev);
	} else {
		const int threads = lm_packed_threads(job->block), per_block = threads / p.team;
		const unsigned grid = (unsigned)((count + per_block - 1) / per_block);
		lm_packed_kernel<T, FAST><<<grid, threads, 0, s>>>(p, first, count, dev);
	}
	return cudaGetLastError();
}

/* The run: the result buffer from the pool, the tables when changed, then the integrals in
 * one chunk (or NSTREAMS chunks on NSTREAMS streams, chunk c's copy overlapping the kernel of
 * chunk c+1), copied to the pinned host array, and the buffer freed. Phases: alloc, h2d (the
 * table upload, 0 when cached), kernel = the sum of the chunks' kernel times, d2h = from the
 * end of the first kernel to the end of the last copy, free. */
template <typename T, bool FAST>
static int lm_run(const struct longman_gpu_job *job, T *host, struct qx_phases *t, struct qx_err *e)
{
	static cudaStream_t streams[NSTREAMS];
	const lm_args p = {job->m, job->n, job->g, lm_team(job->n, job->g), job->lam_lo,
			   job->lam_hi, job->om_lo, job->om_hi, job->a, job->spread,
			   job->integrand, job->method, job->seed};
	const int nchunks = job->m >= CHUNK_MIN ? NSTREAMS : 1;
	const long long chunk = (job->m + nchunks - 1) / nchunks;
	/* events: start, allocated, uploaded, joined, end; per chunk: kernel start, end, copy end */
	cudaEvent_t *ev = gpu_events(5 + 3 * NSTREAMS, e);
	T *dev = NULL;
	int uploaded = 0;
	if (!ev || lm_check_limits(job, e))
		return -1;
	if (!streams[0])
		for (int i = 0; i < NSTREAMS; i++)
			GPU_TRY(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));
	qx_progress_phase("alloc");
	GPU_TRY(cudaEventRecord(ev[0], streams[0]));
	GPU_TRY(cudaMallocAsync(&dev, (size_t)job->m * sizeof(T), streams[0]));
	GPU_TRY(cudaEventRecord(ev[1], streams[0]));
	if (lm_upload(job, streams[0], &uploaded, e))
		return -1;
	GPU_TRY(cudaEventRecord(ev[2], streams[0]));
	for (int c = 0; c < nchunks; c++) {
		const long long first = c * chunk;
		const long long count = job->m - first < chunk ? job->m - first : chunk;
		const cudaStream_t s = streams[c];
		cudaEvent_t *mine = ev + 5 + 3 * c;
		if (count <= 0)
			break;
		if (qx_cancelled()) {
			cudaDeviceSynchronize();
			cudaFree(dev);
			return qx_fail(e, "run cancelled");
		}
		if (c)
			GPU_TRY(cudaStreamWaitEvent(s, ev[2], 0));
		GPU_TRY(cudaEventRecord(mine[0], s));
		GPU_TRY((lm_launch<T, FAST>(job, p, first, count, dev + first, s)));
		GPU_TRY(cudaEventRecord(mine[1], s));
		GPU_TRY(cudaMemcpyAsync(host + first, dev + first, (size_t)count * sizeof(T),
					cudaMemcpyDeviceToHost, s));
		GPU_TRY(cudaEventRecord(mine[2], s));
		if (c)
			GPU_TRY(cudaStreamWaitEvent(streams[0], mine[2], 0));
	}
	GPU_TRY(cudaEventRecord(ev[3], streams[0]));
	GPU_TRY(cudaFreeAsync(dev, streams[0]));
	GPU_TRY(cudaEventRecord(ev[4], streams[0]));
	qx_progress_phase("kernel+d2h");
	GPU_TRY(cudaEventSynchronize(ev[4]));
	qx_progress_add(job->m);
	double kernel_ms = 0;
	for (int c = 0; c < nchunks && c * chunk < job->m; c++)
		kernel_ms += gpu_elapsed(ev[5 + 3 * c], ev[6 + 3 * c]);
	t->alloc = gpu_elapsed(ev[0], ev[1]);
	t->h2d = uploaded ? gpu_elapsed(ev[1], ev[2]) : 0;
	t->kernel = kernel_ms;
	t->d2h = gpu_elapsed(ev[6], ev[3]);
	t->free = gpu_elapsed(ev[3], ev[4]);
	t->total = gpu_elapsed(ev[0], ev[4]);
	t->overlapped = nchunks > 1;
	return 0;
}

extern "C" int longman_gpu_run(const struct longman_gpu_job *job, void *host_out,
			       struct qx_phases *t, struct qx_err *e)
{
	if (job->prec == QX_DOUBLE)
		return lm_run<double, false>(job, (double *)host_out, t, e);
	if (job->math == LM_FAST)
		return lm_run<float, true>(job, (float *)host_out, t, e);
	return lm_run<float, false>(job, (float *)host_out, t, e);
}

extern "C" int longman_gpu_occupancy(const struct longman_gpu_job *job, struct gpu_occupancy *o,
				     struct qx_err *e)
{
	const size_t size = qx_precision_size(job->prec);
	const bool fast = job->prec == QX_FLOAT && job->math == LM_FAST;
	const void *func;
	if (job->layout == LONGMAN_GPU_BLOCK) {
		func = job->prec == QX_DOUBLE ? (const void *)lm_block_kernel<double, false>
		       : fast                 ? (const void *)lm_block_kernel<float, true>
		                              : (const void *)lm_block_kernel<float, false>;
		return gpu_occupancy_of(func, lm_block_threads(job->n),
		                        ((size_t)job->n * job->n + 1) * size, 0, o, e);
	}
	func = job->prec == QX_DOUBLE ? (const void *)lm_packed_kernel<double, false>
	       : fast                 ? (const void *)lm_packed_kernel<float, true>
	                              : (const void *)lm_packed_kernel<float, false>;
	return gpu_occupancy_of(func, lm_packed_threads(job->block), 0, 0, o, e);
}
