/* ceiling.cu - the special-function unit's ceiling for kde's exact sums (kde_gpu_ceiling in
 * src/problems/kde/kde_gpu.h): a kernel of only ex2s, timed. */
#include <algorithm>
#include <vector>

#include "kernels.cuh"
#include "run.cuh"

/* Only ex2s: 8 independent chains x = 2^-x per thread, iters rounds; one value per thread
 * is written so that nothing is optimised away. */
__global__ void kde_ex2_only_kernel(int iters, float *out)
{
	float v[8];
	for (int k = 0; k < 8; k++)
		v[k] = 0.001f * (float)(threadIdx.x + k);
	for (int it = 0; it < iters; it++)
#pragma unroll
		for (int k = 0; k < 8; k++)
			v[k] = kde_ex2(-v[k]);
	float s = 0;
	for (int k = 0; k < 8; k++)
		s += v[k];
	out[(long long)blockDim.x * blockIdx.x + threadIdx.x] = s;
}

extern "C" int kde_gpu_ceiling(int reps, struct kde_gpu_ceiling *out, struct qx_err *e)
{
	int clock_khz = 0, per_sm = 0;
	const int block = 256, iters = 4096;
	GPU_TRY(cudaDeviceGetAttribute(&out->sms, cudaDevAttrMultiProcessorCount, 0));
	GPU_TRY(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
	GPU_TRY(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
	out->clock_mhz = clock_khz / 1000;
	out->ex2_per_s_peak = 16.0 * out->sms * clock_khz * 1e3;
	const unsigned blocks = (unsigned)(out->sms * (per_sm / block));
	cudaEvent_t *ev = gpu_events(2, e);
	gpu_owned<float> d_out;
	std::vector<double> ms;
	if (!ev)
		return -1;
	GPU_TRY(cudaMalloc(&d_out.ptr, (size_t)blocks * block * sizeof(float)));
	kde_ex2_only_kernel<<<blocks, block>>>(iters, d_out.ptr); /* warm-up */
	GPU_TRY(cudaGetLastError());
	for (int r = 0; r < std::max(reps, 1); r++) {
		GPU_TRY(cudaEventRecord(ev[0], 0));
		kde_ex2_only_kernel<<<blocks, block>>>(iters, d_out.ptr);
		GPU_TRY(cudaGetLastError());
		GPU_TRY(cudaEventRecord(ev[1], 0));
		GPU_TRY(cudaEventSynchronize(ev[1]));
		ms.push_back(gpu_elapsed(ev[0], ev[1]));
	}
	std::sort(ms.begin(), ms.end());
	const double med = ms[ms.size() / 2];
	out->ex2_per_s = (double)blocks * block * iters * 8 / (med * 1e-3);
	GPU_TRY(cudaFree(d_out.release()));
	return 0;
}
