/* seed.cu - kde's seed variant (src/problems/kde/kde_gpu.h): the Gaussian KDE study's own kernel
 * and host code as written, its bugs kept (listed in kde_gpu.h); the only change, an output
 * offset, so that long runs go in cancellable chunks. */
#include <algorithm>

#include "kernels.cuh"
#include "run.cuh"

/* The seed's kernel function K. */
__device__ float kde_seed_K(float x)
{
	return (1 / (sqrtf(2 * M_PI))) * expf(-(x * x) / 2);
}

/* The seed's kernel; the only change is `first`, the offset of this launch's outputs. */
__global__ void kde_seed_kernel(const float *x, float *y, int n, int h, float k, int first)
{
	int bx = blockIdx.x;
	int idx = first + blockDim.x * bx + threadIdx.x;

	if (idx < n) {
		float xi = x[idx];

		for (int j = 0; j < n; j++) {
			int xj = x[j];
			y[idx] += kde_seed_K((xi - xj) / h);
		}
	}
}

/* The seed's host code (gaussian_kde) with the seed's arguments: hArg is the block width; the
 * launches cover outputs [c.first, +c.count) of the n (the last block may run past them into
 * outputs of this device's buffer that are not copied back). */
int kde_run_seed(const struct kde_gpu_job *job, float *host, kde_clock &c, struct qx_err *e)
{
	const int n = (int)job->n;
	float hArg = (float)job->block; /* the seed passed the block width as h */
	int threadsPerBlock = int(hArg);
	float h = 0.01;
	long long chunk;
	gpu_owned<float> d_x, d_y;
	if (kde_outputs_per_chunk(threadsPerBlock, job->n, CHUNK_PAIRS_FLOAT, e, &chunk))
		return -1;
	GPU_TRY(cudaMalloc(&d_x.ptr, sizeof(float) * n));
	GPU_TRY(cudaMalloc(&d_y.ptr, sizeof(float) * n)); /* never zeroed: bug 2 */
	if (kde_mark(c, "alloc", e) || kde_upload(d_x, job->x[0], (size_t)n, e) ||
	    kde_mark(c, "h2d", e))
		return -1;
	float k = 1 / (n * h);
	const long long end = c.first + c.count;
	for (long long first = c.first; first < end; first += chunk) {
		const int xblocks =
		    (int)((std::min(chunk, end - first) + threadsPerBlock - 1) / threadsPerBlock);
		kde_seed_kernel<<<xblocks, threadsPerBlock, threadsPerBlock * sizeof(float)>>>(
		    d_x.ptr, d_y.ptr, n, h, k, (int)first);
		if (kde_chunk_done(c, job, e))
			return -1;
	}
	if (kde_mark(c, "kernel", e))
		return -1;
	GPU_TRY(cudaMemcpy(host + c.first, d_y.ptr + c.first, c.count * sizeof(float),
	                   cudaMemcpyDeviceToHost));
	if (kde_mark(c, "d2h", e))
		return -1;
	GPU_TRY(cudaFree(d_x.release()));
	GPU_TRY(cudaFree(d_y.release()));
	return kde_mark(c, "free", e);
}
