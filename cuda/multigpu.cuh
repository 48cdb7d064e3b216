/* multigpu.cuh - the host side that a problem's run over several GPUs shares (the division of
 * the work is src/multigpu.h's): the devices' SM counts as mg_split's weights, each device's
 * pool kept, and a host thread a device. Header-only (templates and inline functions); host code
 * only. */
#ifndef QX_MULTIGPU_CUH
#define QX_MULTIGPU_CUH

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "../src/multigpu.h"
#include "gpu_util.cuh"

/* Fills weights[0..ngpus) with devices 0..ngpus-1's SM counts, the weights mg_split divides a
 * batch by; returns 0 or -1 with e. */
static inline int gpu_sm_weights(int ngpus, double *weights, struct qx_err *e)
{
	for (int d = 0; d < ngpus; d++) {
		int v = 0;
		GPU_TRY(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, d));
		weights[d] = v > 0 ? v : 1;
	}
	return 0;
}

/* Makes device dev's stream-ordered pool keep its freed blocks, as gpu_open does for device
 * 0, so that a share's cudaMallocAsync in later runs does not go back to the driver (which
 * costs a GPU other than device 0 about 0.7 ms a run on an H100). Returns 0 or -1 with e. */
static inline int gpu_keep_pool(int dev, struct qx_err *e)
{
	cudaMemPool_t pool;
	unsigned long long keep = ~0ULL;
	GPU_TRY(cudaDeviceGetDefaultMemPool(&pool, dev));
	GPU_TRY(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
	return 0;
}

/* Runs share(d, stop, err) for every device d < ngpus on a host thread of its own (share makes
 * d current); a share that fails sets *stop, which the others poll between their chunks and
 * then fail with a message that starts "stopped:". Device 0 is current again on return. Returns 0,
 * or -1 with e naming the first GPU, in device order, that failed for a reason of its own. */
template <typename F> static int gpu_run_shares(int ngpus, F share, struct qx_err *e)
{
	struct qx_err errs[QX_MAX_GPUS];
	int rc[QX_MAX_GPUS] = {};
	std::atomic<int> stop{0};
	std::vector<std::thread> threads;
	for (int d = 0; d < ngpus; d++)
		errs[d].msg[0] = '\0';
	try {
		for (int d = 0; d < ngpus; d++)
			threads.emplace_back([&, d] {
				rc[d] = share(d, (const std::atomic<int> *)&stop, &errs[d]);
				if (rc[d])
					stop.store(1);
			});
	} catch (...) { /* a thread that could not start: stop those that did */
		stop.store(1);
		for (std::thread &th : threads)
			th.join();
		cudaSetDevice(0);
		return qx_fail(e, "cannot start a host thread for each of %d GPUs", ngpus);
	}
	for (std::thread &th : threads)
		th.join();
	cudaSetDevice(0);
	for (int pass = 0; pass < 2; pass++) /* a real failure first, then any "stopped" */
		for (int d = 0; d < ngpus; d++)
			if (rc[d] && (pass || strncmp(errs[d].msg, "stopped:", 8)))
				return qx_fail(e, "GPU %d of %d: %s", d, ngpus, errs[d].msg);
	return 0;
}

/* What one device's share of a run holds beside its gpu_owned buffers: NS streams and NE
 * events, created on device dev by the share. The destructor (every return path) makes dev
 * current, waits for the device's queued work and destroys them, so a failed share leaves
 * nothing behind on its device. */
template <int NS, int NE> struct gpu_share_res {
	int dev = -1;
	cudaStream_t s[NS > 0 ? NS : 1] = {};
	cudaEvent_t ev[NE] = {};
	gpu_share_res() = default;
	gpu_share_res(const gpu_share_res &) = delete;
	gpu_share_res &operator=(const gpu_share_res &) = delete;
	~gpu_share_res()
	{
		if (dev < 0)
			return;
		cudaSetDevice(dev);
		cudaDeviceSynchronize();
		for (cudaEvent_t x : ev)
			if (x)
				cudaEventDestroy(x);
		for (cudaStream_t st : s)
			if (st)
				cudaStreamDestroy(st);
	}
};

/* The index of the slowest of per[0..n) (the largest total): the run's time is that GPU's. */
template <typename T> static int gpu_slowest(const T *per, int n)
{
	int slow = 0;
	for (int d = 1; d < n; d++)
		if (per[d].total > per[slow].total)
			slow = d;
	return slow;
}

#endif
