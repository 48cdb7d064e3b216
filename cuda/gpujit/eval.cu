/* eval.cu - one evaluation of a kernel built at run time: the point and the data copied to the
 * device, the kernel launched on one thread, the value copied back (`eval` on the GPU). */
#include "../gpu_util.cuh"
#include "../../src/gpujit/load.h"

/* Launches kernel(pt, p, out) on one thread with pt[0..n) and p[0..np) in device memory and
 * copies *out back; every allocation is freed on every path (gpu_owned). */
extern "C" int gpujit_eval_point(void *kernel, const double *pt, int n, const double *p, int np,
                                 double *value, struct qx_err *e)
{
	gpu_owned<double> buf;
	const size_t count = (size_t)n + (size_t)np + 1;
	GPU_TRY(cudaMalloc(&buf.ptr, count * sizeof(double)));
	double *dpt = buf.ptr, *dp = buf.ptr + n, *dout = buf.ptr + n + np;
	GPU_TRY(cudaMemcpy(dpt, pt, (size_t)n * sizeof(double), cudaMemcpyHostToDevice));
	GPU_TRY(cudaMemcpy(dp, p, (size_t)np * sizeof(double), cudaMemcpyHostToDevice));
	void *args[] = {&dpt, &dp, &dout};
	GPU_TRY(cudaLaunchKernel((const void *)kernel, dim3(1), dim3(1), args, 0, 0));
	GPU_TRY(cudaGetLastError());
	GPU_TRY(cudaMemcpy(value, dout, sizeof(double), cudaMemcpyDeviceToHost));
	GPU_TRY(cudaFree(buf.release()));
	return 0;
}
