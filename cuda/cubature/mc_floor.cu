/* mc_floor.cu - the Monte Carlo floor for the bench: a kernel that only draws vegas's Philox
 * points (uniform, no grid) and evaluates a built-in integrand at them, summing per block as
 * vegas's kernel does; the evaluations/s that vegas's samples cannot beat. */
#include <algorithm>

#include "../../src/problems/cubature/cubature_gpu.h"
#include "../gpu_util.cuh"
#include "mc_kernels.cuh"

/* calls samples of stream it on [a, b]^dim of volume vol, block k's sums into blk[3k..). */
template <typename T>
__global__ void __launch_bounds__(MC_BLOCK)
    cub_mc_floor_kernel(const __grid_constant__ cub_fn fn, double a, double b, long long calls,
                        unsigned it, unsigned long long seed, double vol, double *blk)
{
	double u[CUB_FN_MAX_DIM], sw = 0, sw2 = 0, bad = 0;
	T x[CUB_FN_MAX_DIM];
	const int dim = fn.dim;
	const long long stride = (long long)gridDim.x * blockDim.x;
	for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < calls;
	     i += stride) {
		cub_mc_uniforms(seed, it, (unsigned long long)i, dim, u);
		for (int k = 0; k < dim; k++)
			x[k] = (T)(a + u[k] * (b - a));
		const double w = (double)cub_mc_f<T, 0>(fn, x) * vol;
		if (!isfinite(w)) {
			bad += 1;
			continue;
		}
		sw += w;
		sw2 += w * w;
	}
	cub_mc_block_sums(sw, sw2, bad, blk + 3 * blockIdx.x);
}

/* The floor in precision T: vegas's launch shape (a block per 256 samples, at most 8 a
 * multiprocessor), the median of reps timed launches after a warm-up. */
template <typename T>
static int cub_mc_floor(const struct cub_job *job, long long calls, int reps, double *ms,
                        struct qx_err *e)
{
	int sms = 0;
	GPU_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	const long long want = (calls + MC_BLOCK - 1) / MC_BLOCK;
	const unsigned blocks = (unsigned)std::max(1LL, std::min<long long>(want, 8LL * sms));
	double vol = 1;
	for (int i = 0; i < job->fn.dim; i++)
		vol *= job->b - job->a;
	cudaEvent_t *ev = gpu_events(2, e);
	if (!ev)
		return -1;
	gpu_owned<double> blk_d;
	GPU_TRY(cudaMalloc(&blk_d.ptr, (size_t)3 * blocks * sizeof(double)));
	double times[64];
	reps = std::min(reps, 64);
	for (int i = -1; i < reps; i++) {
		GPU_TRY(cudaEventRecord(ev[0]));
		cub_mc_floor_kernel<T><<<blocks, MC_BLOCK>>>(
		    job->fn, job->a, job->b, calls, (unsigned)(i + 1), job->seed, vol, blk_d.ptr);
		GPU_TRY(cudaGetLastError());
		GPU_TRY(cudaEventRecord(ev[1]));
		GPU_TRY(cudaEventSynchronize(ev[1]));
		if (i >= 0)
			times[i] = gpu_elapsed(ev[0], ev[1]);
	}
	GPU_TRY(cudaFree(blk_d.release()));
	std::sort(times, times + reps);
	*ms = times[reps / 2];
	return 0;
}

/* The Monte Carlo floor in the job's precision (cubature_gpu.h). */
extern "C" int cub_gpu_mc_floor(const struct cub_job *job, long long calls, int reps, double *ms,
                                struct qx_err *e)
{
	if (calls < 1 || reps < 1 || job->user)
		return qx_fail(e,
		               "mc floor: expected calls >= 1, reps >= 1 and a built-in integrand");
	if (job->prec == QX_DOUBLE)
		return cub_mc_floor<double>(job, calls, reps, ms, e);
	return cub_mc_floor<float>(job, calls, reps, ms, e);
}
