/* gpujit_kernel.lto.cu - the kernels of test_gpujit, compiled to LTO-IR and embedded as
 * qx_lto_gpujit_kernel: they evaluate qx_test_f, which only the run-time compiled source
 * defines, at n points of dim coordinates each. */

extern "C" __device__ double qx_test_f(const double *x, const double *p);

/* y[i] = qx_test_f(point i, p) for i < n. */
extern "C" __global__ void qx_test_kernel(const double *x, const double *p, double *y, int n,
                                          int dim)
{
	const int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = qx_test_f(x + (size_t)i * dim, p);
}

/* y[i] = -qx_test_f(point i, p) for i < n: a second kernel, for the builds that keep one. */
extern "C" __global__ void qx_test_negated(const double *x, const double *p, double *y, int n,
                                           int dim)
{
	const int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = -qx_test_f(x + (size_t)i * dim, p);
}
