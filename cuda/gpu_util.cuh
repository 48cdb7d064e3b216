/* gpu_util.cuh - helpers shared by the .cu files (not part of the exported interface):
 * CUDA error checks that fill a qx_err, and a reusable pool of timing events. */
#ifndef QX_GPU_UTIL_CUH
#define QX_GPU_UTIL_CUH

#include <cuda_runtime.h>

#include "../src/fault.h"
#include "../src/device.h"

/* Fills e with "WHAT: CUDA message (code name)" and returns -1. */
int gpu_fail(struct qx_err *e, const char *what, cudaError_t err);

/* Grows the pinned host buffer *buf of *cap bytes to at least bytes (the old one is freed
 * first, so its contents are lost) and returns it; NULL with e filled ("WHAT: ...") when
 * cudaMallocHost fails, *buf then NULL. */
void *gpu_pinned_grow(void **buf, size_t *cap, size_t bytes, const char *what, struct qx_err *e);

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

/* GPU_TRY for a kernel launch (call returns the launch's cudaError_t): the fault point "launch"
 * fails any kernel launch in test builds, whichever problem launches it. */
#define GPU_LAUNCH(call)                                                                           \
	do {                                                                                       \
		if (qx_fault("launch"))                                                            \
			return qx_fail(e, "launch of %s: injected fault (QUADX_FAULT)", #call);    \
		GPU_TRY(call);                                                                     \
	} while (0)

/* One device allocation of a host wrapper (cudaMalloc or cudaMallocAsync into ptr). Every
 * return path frees it: the wrapper's own (timed) free takes it with release(), and whatever
 * is still held when the wrapper returns early (a failed CUDA call through GPU_TRY, a
 * cancelled run) is freed by the destructor once the device has finished the work queued on
 * it, so a failed run leaks nothing and the next one finds the device as before. */
template <typename T> class gpu_owned
{
      public:
	T *ptr = nullptr;

	gpu_owned() = default;
	gpu_owned(const gpu_owned &) = delete;
	gpu_owned &operator=(const gpu_owned &) = delete;

	/* Waits for the device (queued kernels and copies may still use ptr), then frees ptr;
	 * does nothing when nothing is held. */
	~gpu_owned()
	{
		if (!ptr)
			return;
		cudaDeviceSynchronize();
		cudaFree(ptr);
	}

	/* Returns ptr and stops owning it: the caller frees it. */
	T *release()
	{
		T *p = ptr;
		ptr = nullptr;
		return p;
	}
};

/* Returns n timing events that live as long as the process (created on first use, grown as
 * needed), or NULL with e filled. */
cudaEvent_t *gpu_events(int n, struct qx_err *e);

/* Fills *o for kernel func launched with block threads and shared_fixed + shared_per_thread *
 * block bytes of dynamic shared memory; returns 0 or -1 with e filled. */
int gpu_occupancy_of(const void *func, int block, size_t shared_fixed, size_t shared_per_thread,
                     struct gpu_occupancy *o, struct qx_err *e);

/* Milliseconds between two recorded events. */
float gpu_elapsed(cudaEvent_t a, cudaEvent_t b);

/* The current device's memory for a run whose arrays come from its default pool
 * (cudaMallocAsync): cudaMemGetInfo's free bytes plus the blocks the pool keeps unused from
 * earlier runs (gpu_open and the runs over several GPUs keep them), which it hands back before
 * it asks the driver; so an earlier run neither shrinks the next one's budget nor refuses it.
 * Returns the CUDA error. */
static inline cudaError_t gpu_mem_info_pooled(size_t *free_b, size_t *total)
{
	int dev = 0;
	cudaMemPool_t pool;
	unsigned long long reserved = 0, used = 0;
	cudaError_t err = cudaMemGetInfo(free_b, total);
	if (err == cudaSuccess)
		err = cudaGetDevice(&dev);
	if (err == cudaSuccess)
		err = cudaDeviceGetDefaultMemPool(&pool, dev);
	if (err == cudaSuccess)
		err = cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved);
	if (err == cudaSuccess)
		err = cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used);
	if (err == cudaSuccess && reserved > used)
		*free_b += (size_t)(reserved - used);
	return err;
}

/* Gives the blocks the current device's default pool keeps unused back to the driver, for a
 * run that allocates with cudaMalloc (which cannot use them). Returns the CUDA error. */
static inline cudaError_t gpu_pool_trim(void)
{
	int dev = 0;
	cudaMemPool_t pool;
	cudaError_t err = cudaGetDevice(&dev);
	if (err == cudaSuccess)
		err = cudaDeviceGetDefaultMemPool(&pool, dev);
	if (err == cudaSuccess)
		err = cudaMemPoolTrimTo(pool, 0);
	return err;
}

/* The current device's memory for a run whose arrays come from cudaMalloc: the pool's kept
 * blocks go back to the driver first (gpu_pool_trim), then cudaMemGetInfo. Returns the CUDA
 * error. */
static inline cudaError_t gpu_mem_info_unpooled(size_t *free_b, size_t *total)
{
	cudaError_t err = gpu_pool_trim();
	if (err == cudaSuccess)
		err = cudaMemGetInfo(free_b, total);
	return err;
}

#endif
