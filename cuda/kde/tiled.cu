/* tiled.cu - kde's tiled variant (src/problems/kde/kde_gpu.h): samples staged through shared memory
 * a block-wide tile at a time, KDE_GPU_PER_THREAD outputs per thread, pre-scaled coordinates, one
 * ex2 per pair; dimension 1..3 in double, float's 1-D loop of its own (kde_tiled1_kernel). The two
 * kernels share their setup and scatter (kde_tiled_setup, kde_tiled_scatter). */
#include <algorithm>

#include "kernels.cuh"
#include "run.cuh"

/* Squared scaled distance of point pt to tile entry j (DIM axes, tile axis-major). */
template <typename T, int DIM>
__device__ __forceinline__ T kde_dist2(const T *pt, const T *tile, int j, int b)
{
	T d = pt[0] - tile[j];
	T q = d * d;
	for (int k = 1; k < DIM; k++) {
		d = pt[k] - tile[k * b + j];
		q = fma(d, d, q);
	}
	return q;
}

/* Coordinate k of a thread's point r: pt[r][k] of DIM axes, or pt[r] of float's 1-D kernel. */
template <typename T, int DIM>
__device__ __forceinline__ T &kde_tiled_coord(T (&pt)[KDE_GPU_PER_THREAD][DIM], int r, int k)
{
	return pt[r][k];
}
template <typename T>
__device__ __forceinline__ T &kde_tiled_coord(T (&pt)[KDE_GPU_PER_THREAD], int r, int)
{
	return pt[r];
}

/* A tiled kernel's thread setup: its outputs base + r B (r < KDE_GPU_PER_THREAD, B =
 * blockDim.x; past m the last output stands in, its sum never written) read into pt from p
 * (DIM arrays of m, kde_tiled_coord), their sums zeroed, and the samples [*ys, *ye) of its
 * blockIdx.y slice of [j0, j1). Returns base. */
template <int DIM, typename T, typename Pt>
__device__ __forceinline__ long long
kde_tiled_setup(const T *p, long long m, long long i0, long long j0, long long j1, Pt &pt,
                double (&sum)[KDE_GPU_PER_THREAD], long long *ys, long long *ye)
{
	const int b = blockDim.x;
	const long long base = i0 + (long long)blockIdx.x * b * KDE_GPU_PER_THREAD + threadIdx.x;
#pragma unroll
	for (int r = 0; r < KDE_GPU_PER_THREAD; r++) {
		const long long i = min(base + (long long)r * b, m - 1);
		for (int k = 0; k < DIM; k++)
			kde_tiled_coord(pt, r, k) = p[k * m + i];
		sum[r] = 0;
	}
	const long long slice = (j1 - j0 + gridDim.y - 1) / gridDim.y;
	*ys = j0 + blockIdx.y * slice;
	*ye = min(j1, *ys + slice);
	return base;
}

/* A tiled kernel's scatter: adds a thread's sums to acc[base + r B] (those < m), atomically
 * when the samples are split over blockIdx.y. */
__device__ __forceinline__ void kde_tiled_scatter(const double (&sum)[KDE_GPU_PER_THREAD],
                                                  long long base, long long m, double *acc)
{
	const int b = blockDim.x;
#pragma unroll
	for (int r = 0; r < KDE_GPU_PER_THREAD; r++) {
		const long long i = base + (long long)r * b;
		if (i < m && gridDim.y > 1)
			atomicAdd(&acc[i], sum[r]);
		else if (i < m)
			acc[i] += sum[r];
	}
}

/* Outputs [i0 + blockIdx.x B R, +B R) (output r B + threadIdx.x of the block for r < R), each
 * the sum of exp2(-|p_i - u_j|^2) over samples [j0, j1) (split in gridDim.y equal slices, one
 * per blockIdx.y, added atomically when more than one), added to acc[i] in double. Samples
 * come in tiles of B (blockDim.x) through shared memory (DIM B values of T), every pair through
 * kde_ex2. Each tile's terms are summed in T, the tile sums in double. u: DIM arrays of n
 * (axis-major), p: DIM arrays of m. Used for double and for dimensions 2 and 3. */
template <typename T, int DIM>
__global__ void kde_tiled_kernel(const T *u, long long n, const T *p, long long m, long long i0,
                                 long long j0, long long j1, double *acc)
{
	extern __shared__ unsigned char kde_smem[];
	T *tile = reinterpret_cast<T *>(kde_smem);
	const int b = blockDim.x;
	T pt[KDE_GPU_PER_THREAD][DIM];
	double sum[KDE_GPU_PER_THREAD];
	long long ys, ye;
	const long long base = kde_tiled_setup<DIM>(p, m, i0, j0, j1, pt, sum, &ys, &ye);
	for (long long t0 = ys; t0 < ye; t0 += b) {
		const int len = (int)min((long long)b, ye - t0);
		__syncthreads();
		if (threadIdx.x < len)
			for (int k = 0; k < DIM; k++)
				tile[k * b + threadIdx.x] = u[k * n + t0 + threadIdx.x];
		__syncthreads();
		T part[KDE_GPU_PER_THREAD] = {};
#pragma unroll 4
		for (int j = 0; j < len; j++)
			for (int r = 0; r < KDE_GPU_PER_THREAD; r++)
				part[r] += kde_ex2(-kde_dist2<T, DIM>(pt[r], tile, j, b));
		for (int r = 0; r < KDE_GPU_PER_THREAD; r++)
			sum[r] += (double)part[r];
	}
	kde_tiled_scatter(sum, base, m, acc);
}

/* The 1-D float kernel of tiled: the layout of kde_tiled_kernel, with the tile padded to B
 * samples by +inf (a term of 0) so that the inner loop has no bounds: per group of KDE_GROUP
 * samples two float4 loads from shared memory, then kde_group_plain without polynomial slots:
 * FADD, FMUL, MUFU.EX2, FADD per pair. B is a multiple of 32. */
__global__ void __launch_bounds__(1024)
    kde_tiled1_kernel(const float *u, const float *p, long long m, long long i0, long long j0,
                      long long j1, double *acc)
{
	extern __shared__ float4 kde_smem4[];
	float *tile = reinterpret_cast<float *>(kde_smem4);
	const int b = blockDim.x;
	float pt[KDE_GPU_PER_THREAD];
	double sum[KDE_GPU_PER_THREAD];
	long long ys, ye;
	const long long base = kde_tiled_setup<1>(p, m, i0, j0, j1, pt, sum, &ys, &ye);
	for (long long t0 = ys; t0 < ye; t0 += b) {
		const long long j = t0 + threadIdx.x;
		__syncthreads();
		tile[threadIdx.x] = j < ye ? u[j] : __int_as_float(0x7f800000);
		__syncthreads();
		float part[KDE_GPU_PER_THREAD] = {};
#pragma unroll 2
		for (int g = 0; g < b / 4; g += KDE_GROUP / 4)
			kde_group_plain<0>(kde_smem4[g], kde_smem4[g + 1], pt, part);
#pragma unroll
		for (int r = 0; r < KDE_GPU_PER_THREAD; r++)
			sum[r] += (double)part[r];
	}
	kde_tiled_scatter(sum, base, m, acc);
}

/* y[i] = acc[i] norm rounded to T. */
template <typename T>
__global__ void kde_finish_kernel(const double *acc, long long m, double norm, T *y)
{
	const long long i = (long long)blockDim.x * blockIdx.x + threadIdx.x;
	if (i < m)
		y[i] = (T)(acc[i] * norm);
}

/* Launches the tiled kernel for outputs [i0, i0 + count) and samples [j0, j1): float 1-D
 * through kde_tiled1_kernel, else kde_tiled_kernel of (T, dim). */
template <typename T>
static void kde_launch_tiled(int dim, dim3 blocks, int b, const T *u, long long n, const T *p,
                             long long m, long long i0, long long j0, long long j1, double *acc)
{
	const size_t shared = (size_t)dim * b * sizeof(T);
	if constexpr (sizeof(T) == sizeof(float)) {
		if (dim == 1) {
			kde_tiled1_kernel<<<blocks, b, shared>>>(u, p, m, i0, j0, j1, acc);
			return;
		}
	} else if (dim == 1) {
		kde_tiled_kernel<T, 1><<<blocks, b, shared>>>(u, n, p, m, i0, j0, j1, acc);
		return;
	}
	if (dim == 2)
		kde_tiled_kernel<T, 2><<<blocks, b, shared>>>(u, n, p, m, i0, j0, j1, acc);
	else
		kde_tiled_kernel<T, 3><<<blocks, b, shared>>>(u, n, p, m, i0, j0, j1, acc);
}

/* tiled: the inputs, scaled on the device; chunks of samples for all outputs (a chunk of
 * outputs at a time when m alone fills a chunk), accumulated in double; finish. Computes
 * outputs [c.first, +c.count) of the m with the chunks and splits the whole run takes (sized
 * by m and device 0's SMs), so that each of them is summed as one GPU sums it; the outputs
 * are the device's own copy of its share (of the samples themselves when at is NULL) unless
 * it has them all. */
template <typename T>
int kde_run_tiled(const struct kde_gpu_job *job, T *host, kde_clock &c, struct qx_err *e)
{
	const long long n = job->n, m = job->m, p0 = c.first, mc = c.count;
	const int dim = job->dim, b = job->block;
	const bool own_at = job->at[0] != nullptr, own_p = own_at || mc != m;
	gpu_owned<T> d_u, d_p, d_y;
	gpu_owned<double> d_acc;
	int sms = 0;
	GPU_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	GPU_TRY(cudaMalloc(&d_u.ptr, (size_t)dim * n * sizeof(T)));
	if (own_p)
		GPU_TRY(cudaMalloc(&d_p.ptr, (size_t)dim * std::max(mc, 1LL) * sizeof(T)));
	GPU_TRY(cudaMalloc(&d_acc.ptr, std::max(mc, 1LL) * sizeof(double)));
	GPU_TRY(cudaMalloc(&d_y.ptr, std::max(mc, 1LL) * sizeof(T)));
	if (kde_mark(c, "alloc", e))
		return -1;
	for (int k = 0; k < dim; k++) {
		GPU_TRY(cudaMemcpy(d_u.ptr + (size_t)k * n, job->x[k], n * sizeof(T),
		                   cudaMemcpyHostToDevice));
		if (own_p)
			GPU_TRY(cudaMemcpy(d_p.ptr + (size_t)k * mc,
			                   (const T *)(own_at ? job->at[k] : job->x[k]) + p0,
			                   mc * sizeof(T), cudaMemcpyHostToDevice));
	}
	if (kde_mark(c, "h2d", e))
		return -1;
	GPU_TRY(cudaMemset(d_acc.ptr, 0, mc * sizeof(double)));
	for (int k = 0; k < dim; k++) {
		const double s = KDE_U_SCALE / job->h[k];
		kde_scale_kernel<T>
		    <<<(unsigned)((n + HELPER_BLOCK - 1) / HELPER_BLOCK), HELPER_BLOCK>>>(
		        d_u.ptr + (size_t)k * n, n, job->center[k], s);
		if (own_p && mc > 0)
			kde_scale_kernel<T>
			    <<<(unsigned)((mc + HELPER_BLOCK - 1) / HELPER_BLOCK), HELPER_BLOCK>>>(
			        d_p.ptr + (size_t)k * mc, mc, job->center[k], s);
	}
	GPU_TRY(cudaGetLastError());
	if (kde_mark(c, "scale", e))
		return -1;
	const T *p = own_p ? d_p.ptr : d_u.ptr;
	const double pairs = sizeof(T) == sizeof(float) ? CHUNK_PAIRS_FLOAT : CHUNK_PAIRS_DOUBLE;
	const long long per_block = (long long)b * KDE_GPU_PER_THREAD;
	const long long ichunk =
	    std::max(per_block, (long long)(pairs / b) / per_block * per_block);
	const long long jchunk =
	    std::max((long long)b, (long long)(pairs / (double)std::min(m, ichunk)) / b * b);
	for (long long i0 = 0; i0 < m; i0 += ichunk) {
		const long long count = std::min(ichunk, m - i0);
		const unsigned blocks = (unsigned)((count + per_block - 1) / per_block);
		/* few outputs (a grid, eval): the samples split over blockIdx.y too, to fill the
		 * GPU */
		const unsigned split = (unsigned)std::max(
		    1LL, std::min((long long)(4 * sms) / blocks, jchunk / (16LL * b)));
		/* this chunk's outputs in the device's share (both ends whole blocks but m's) */
		const long long lo = std::max(i0, p0), hi = std::min(i0 + count, p0 + mc);
		if (lo >= hi)
			continue;
		const unsigned mine = (unsigned)((hi - lo + per_block - 1) / per_block);
		for (long long j0 = 0; j0 < n; j0 += jchunk) {
			kde_launch_tiled<T>(dim, dim3(mine, split), b, d_u.ptr, n, p, mc, lo - p0,
			                    j0, std::min(n, j0 + jchunk), d_acc.ptr);
			if (kde_chunk_done(c, job, e))
				return -1;
		}
	}
	if (mc > 0)
		kde_finish_kernel<T>
		    <<<(unsigned)((mc + HELPER_BLOCK - 1) / HELPER_BLOCK), HELPER_BLOCK>>>(
		        d_acc.ptr, mc, kde_norm((double)n, dim, job->h), d_y.ptr);
	GPU_TRY(cudaGetLastError());
	if (kde_mark(c, "kernel", e))
		return -1;
	GPU_TRY(cudaMemcpy(host + p0, d_y.ptr, mc * sizeof(T), cudaMemcpyDeviceToHost));
	if (kde_mark(c, "d2h", e))
		return -1;
	GPU_TRY(cudaFree(d_u.release()));
	if (own_p)
		GPU_TRY(cudaFree(d_p.release()));
	GPU_TRY(cudaFree(d_acc.release()));
	GPU_TRY(cudaFree(d_y.release()));
	return kde_mark(c, "free", e);
}

template int kde_run_tiled<float>(const struct kde_gpu_job *, float *, kde_clock &,
                                  struct qx_err *);
template int kde_run_tiled<double>(const struct kde_gpu_job *, double *, kde_clock &,
                                   struct qx_err *);
