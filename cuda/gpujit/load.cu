/* load.cu - cubins of user integrands on the GPU through the runtime's library API
 * (cudaLibraryLoadData, cudaLibraryGetKernel), whose kernel handles the runtime launches like
 * the functions nvcc compiled in, and the device's architecture for the build. */
#include <stdio.h>

#include "../gpu_util.cuh"
#include "../../src/gpujit/load.h"

/* Opens the GPU (gpu_init: a clear error without one) and reads the current device's compute
 * capability as major * 10 + minor. */
extern "C" int gpujit_device_arch(int *arch, struct qx_err *e)
{
	struct gpu_info info;
	int dev, major, minor;
	if (gpu_init(&info, e))
		return -1;
	GPU_TRY(cudaGetDevice(&dev));
	GPU_TRY(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
	GPU_TRY(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
	*arch = major * 10 + minor;
	return 0;
}

/* Loads the cubin with no JIT or library options; the size is implied by the ELF image. */
extern "C" int gpujit_lib_load(const void *cubin, size_t size, void **lib, struct qx_err *e)
{
	cudaLibrary_t l;
	if (!cubin || size == 0)
		return qx_fail(e, "gpujit: no cubin to load");
	GPU_TRY(cudaLibraryLoadData(&l, cubin, NULL, NULL, 0, NULL, NULL, 0));
	*lib = (void *)l;
	return 0;
}

/* Finds the kernel by its (unmangled) name; the error names the kernel. */
extern "C" int gpujit_lib_kernel(void *lib, const char *name, void **kernel, struct qx_err *e)
{
	cudaKernel_t k;
	char what[160];
	snprintf(what, sizeof what, "cudaLibraryGetKernel (kernel %s of the integrand's cubin)",
	         name);
	if (qx_fault("cudaLibraryGetKernel"))
		return qx_fail(e, "%s: injected fault (QUADX_FAULT)", what);
	cudaError_t err = cudaLibraryGetKernel(&k, (cudaLibrary_t)lib, name);
	if (err != cudaSuccess)
		return gpu_fail(e, what, err);
	*kernel = (void *)k;
	return 0;
}

/* Unloads lib; an error here (the context already gone) leaves nothing to do. */
extern "C" void gpujit_lib_unload(void *lib)
{
	if (lib)
		cudaLibraryUnload((cudaLibrary_t)lib);
}
