/* naive.cu - kde's naive variant (src/problems/kde/kde_gpu.h): the seed's layout with its bugs
 * fixed, one thread per output and one accumulator of the precision, float or double. */
#include <algorithm>

#include "kernels.cuh"
#include "run.cuh"

/* K(t) = exp(-t^2/2) / sqrt(2 pi) in precision T (expf in float, as the seed). */
template <typename T> __device__ __forceinline__ T kde_naive_K(T t)
{
	if constexpr (sizeof(T) == sizeof(float))
		return (T)KDE_INV_SQRT_2PI * expf(-(t * t) / 2);
	else
		return (T)KDE_INV_SQRT_2PI * exp(-(t * t) / 2);
}

/* One thread per output i in [first, m): y[i] = norm sum_j K((p_i - x_j) / h), one
 * accumulator of precision T. */
template <typename T>
__global__ void kde_naive_kernel(const T *x, long long n, const T *p, long long m, T h, T norm,
                                 long long first, T *y)
{
	const long long i = first + (long long)blockDim.x * blockIdx.x + threadIdx.x;
	if (i >= m)
		return;
	const T pi = p[i];
	T sum = 0;
	for (long long j = 0; j < n; j++)
		sum += kde_naive_K((pi - x[j]) / h);
	y[i] = sum * norm;
}

/* naive: the inputs, one launch per chunk of outputs, the copy back; outputs [c.first, +c.count)
 * of the m (one thread each, so any share sums an output as the whole run does). */
template <typename T>
int kde_run_naive(const struct kde_gpu_job *job, T *host, kde_clock &c, struct qx_err *e)
{
	const long long n = job->n, p0 = c.first, m = c.count;
	const bool own_at = job->at[0] != nullptr;
	long long chunk;
	gpu_owned<T> d_x, d_p, d_y;
	const double pairs = sizeof(T) == sizeof(float) ? CHUNK_PAIRS_FLOAT : CHUNK_PAIRS_DOUBLE;
	if (kde_outputs_per_chunk(job->block, n, pairs, e, &chunk))
		return -1;
	GPU_TRY(cudaMalloc(&d_x.ptr, n * sizeof(T)));
	if (own_at)
		GPU_TRY(cudaMalloc(&d_p.ptr, std::max(m, 1LL) * sizeof(T)));
	GPU_TRY(cudaMalloc(&d_y.ptr, std::max(m, 1LL) * sizeof(T)));
	if (kde_mark(c, "alloc", e) || kde_upload(d_x, job->x[0], (size_t)n, e) ||
	    (own_at && kde_upload(d_p, (const T *)job->at[0] + p0, (size_t)m, e)) ||
	    kde_mark(c, "h2d", e))
		return -1;
	const T h = (T)job->h[0], norm = (T)(1 / ((double)n * job->h[0]));
	const T *p = own_at ? d_p.ptr : d_x.ptr + p0;
	for (long long first = 0; first < m; first += chunk) {
		const long long count = std::min(chunk, m - first);
		const unsigned blocks = (unsigned)((count + job->block - 1) / job->block);
		kde_naive_kernel<T>
		    <<<blocks, job->block>>>(d_x.ptr, n, p, m, h, norm, first, d_y.ptr);
		if (kde_chunk_done(c, job, e))
			return -1;
	}
	if (kde_mark(c, "kernel", e))
		return -1;
	GPU_TRY(cudaMemcpy(host + p0, d_y.ptr, m * sizeof(T), cudaMemcpyDeviceToHost));
	if (kde_mark(c, "d2h", e))
		return -1;
	GPU_TRY(cudaFree(d_x.release()));
	if (own_at)
		GPU_TRY(cudaFree(d_p.release()));
	GPU_TRY(cudaFree(d_y.release()));
	return kde_mark(c, "free", e);
}

template int kde_run_naive<float>(const struct kde_gpu_job *, float *, kde_clock &,
                                  struct qx_err *);
template int kde_run_naive<double>(const struct kde_gpu_job *, double *, kde_clock &,
                                   struct qx_err *);
