/* gpu_util.cuh - helpers shared by the .cu files (not part of the exported interface):
 * CUDA error checks that fill a qx_err, and a reusable pool of timing events. */
#ifndef QX_GPU_UTIL_CUH
#define QX_GPU_UTIL_CUH

#include <cuda_runtime.h>

#include "../src/fault.h"
#include "quadx_cuda.h"

/* Fills e with "WHAT: CUDA message (code name)" and returns -1. */
int gpu_fail(struct qx_err *e, const char *what, cudaError_t err);

/* Evaluates a CUDA call; on failure reports it with its text and returns -1 from the caller.
 * The central fault hook: in test builds QUADX_FAULT can make the call fail without running. */
#define GPU_TRY(call)                                                                              \
	do {                                                                                       \
		if (qx_fault(#call))                                                               \
			return qx_fail(e, "%s: injected fault (QUADX_FAULT)", #call);              \
		cudaError_t gpu_try_err_ = (call);                                                 \
		if (gpu_try_err_ != cudaSuccess)                                                   \
			return gpu_fail(e, #call, gpu_try_err_);                                   \
	} while (0)

/* Returns n timing events that live as long as the process (created on first use, grown as
 * needed), or NULL with e filled. */
cudaEvent_t *gpu_events(int n, struct qx_err *e);

/* Fills *o for kernel func launched with block threads and shared_fixed + shared_per_thread *
 * block bytes of dynamic shared memory; returns 0 or -1 with e filled. */
int gpu_occupancy_of(const void *func, int block, size_t shared_fixed, size_t shared_per_thread,
                     struct gpu_occupancy *o, struct qx_err *e);

/* Milliseconds between two recorded events. */
float gpu_elapsed(cudaEvent_t a, cudaEvent_t b);

#endif
