/* load.h - loading a cubin built by src/gpujit with the CUDA runtime's library API and finding
 * its kernels, as opaque handles that plain C passes on. Every function returns 0, or -1 with
 * the CUDA call and its message in e; none exits. gpujit_device_arch is declared in
 * src/gpujit/gpujit.h. */
#ifndef QX_GPUJIT_LOAD_H
#define QX_GPUJIT_LOAD_H

#include <stddef.h>

#include "gpujit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Loads the cubin (size bytes; it must stay valid while loaded) on the current device (opened
 * with gpu_init) into *lib, a cudaLibrary_t. */
int gpujit_lib_load(const void *cubin, size_t size, void **lib, struct qx_err *e);

/* Puts the kernel named name (an extern "C" __global__ function) of lib into *kernel, a
 * cudaKernel_t that cudaLaunchKernel((const void *)*kernel, ...) accepts. */
int gpujit_lib_kernel(void *lib, const char *name, void **kernel, struct qx_err *e);

/* Unloads lib (its kernels become invalid); NULL does nothing. */
void gpujit_lib_unload(void *lib);

#ifdef __cplusplus
}
#endif

#endif
