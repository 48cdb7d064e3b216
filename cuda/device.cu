/* device.cu - the CUDA context, device facts, the pinned result buffer, timing events and
 * the two floors the benchmark compares against. */
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <thread>
#include <vector>

#include "../src/gpudriver.h"
#include "../src/multigpu.h"
#include "gpu_util.cuh"

/* Reports a failed CUDA call. */
int gpu_fail(struct qx_err *e, const char *what, cudaError_t err)
{
	return qx_fail(e, "%s: %s (%s)", what, cudaGetErrorString(err), cudaGetErrorName(err));
}

/* Returns 1: this binary contains the GPU backend. */
extern "C" int gpu_compiled(void)
{
	return 1;
}

/* The opened GPU: ok once gpu_open succeeded, with its facts. */
static struct {
	int ok;
	struct gpu_info info;
} gpu_state;

/* Counts the visible devices into *count; returns 0 (count may be 0), or -1 with the reason
 * the runtime gives (no driver, a driver older than the runtime). */
static int gpu_visible(int *count, struct qx_err *e)
{
	cudaError_t err = cudaGetDeviceCount(count);
	if (err == cudaErrorInsufficientDriver && !gpu_driver_present("/dev"))
		return qx_fail(e, "no usable GPU: no NVIDIA driver found (no /dev/nvidia* device); "
		                  "GPU commands need a machine with an NVIDIA GPU and its driver");
	if (err != cudaSuccess)
		return qx_fail(e, "no usable GPU: %s (%s)", cudaGetErrorString(err),
		               cudaGetErrorName(err));
	return 0;
}

/* Fills g with the properties of device dev (not the memory figures nor context_ms). */
static int gpu_props(int dev, struct gpu_info *g, struct qx_err *e)
{
	cudaDeviceProp prop;
	int v = 0;
	GPU_TRY(cudaGetDeviceProperties(&prop, dev));
	snprintf(g->name, sizeof g->name, "%s", prop.name);
	g->cc_major = prop.major;
	g->cc_minor = prop.minor;
	g->sms = prop.multiProcessorCount;
	g->max_threads_per_block = prop.maxThreadsPerBlock;
	g->shared_per_block = prop.sharedMemPerBlock;
	g->mem_bus_bits = prop.memoryBusWidth;
	GPU_TRY(cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, dev));
	g->sm_clock_mhz = v / 1000;
	GPU_TRY(cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, dev));
	g->mem_clock_mhz = v / 1000;
	GPU_TRY(cudaDriverGetVersion(&g->driver_version));
	GPU_TRY(cudaRuntimeGetVersion(&g->runtime_version));
	return 0;
}

/* Creates the context (timed), reads the device's properties and keeps the memory pool's
 * freed blocks for reuse, so cudaMallocAsync in later runs does not go back to the driver. */
static int gpu_open(struct gpu_info *g, struct qx_err *e)
{
	int count = 0;
	cudaMemPool_t pool;
	unsigned long long keep = ~0ULL;
	const double t0 = qx_now_ms();
	if (gpu_visible(&count, e))
		return -1;
	if (count == 0)
		return qx_fail(e, "no usable GPU: no CUDA device is visible");
	GPU_TRY(cudaSetDevice(0));
	GPU_TRY(cudaFree(0));
	g->context_ms = qx_now_ms() - t0;
	if (gpu_props(0, g, e))
		return -1;
	GPU_TRY(cudaDeviceGetDefaultMemPool(&pool, 0));
	GPU_TRY(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
	return 0;
}

/* Counts the visible devices; fails with the reason when none is usable. */
extern "C" int gpu_count(int *n, struct qx_err *e)
{
	*n = 0;
	if (gpu_visible(n, e))
		return -1;
	if (*n == 0)
		return qx_fail(e, "no usable GPU: no CUDA device is visible");
	return 0;
}

/* Fills *info for device dev: gpu_init's facts for device 0, the properties and memory read
 * through a context of dev's own (the primary one, kept for the runs) for the others. */
extern "C" int gpu_device_info(int dev, struct gpu_info *info, struct qx_err *e)
{
	int n = 0, prev = 0;
	if (gpu_count(&n, e))
		return -1;
	if (dev < 0 || dev >= n)
		return qx_fail(e, "no GPU %d: this host has %d (0..%d)", dev, n, n - 1);
	if (dev == 0)
		return gpu_init(info, e);
	memset(info, 0, sizeof *info);
	if (gpu_props(dev, info, e))
		return -1;
	GPU_TRY(cudaGetDevice(&prev));
	GPU_TRY(cudaSetDevice(dev));
	cudaError_t err = gpu_mem_info_pooled(&info->mem_free, &info->mem_total);
	cudaSetDevice(prev);
	if (err != cudaSuccess)
		return gpu_fail(e, "cudaMemGetInfo", err);
	return 0;
}

/* Opens the GPU on first use and fills *info with its facts and the memory free now; returns
 * 0, or -1 with the reason. A success is kept for the session, a failure is not: the next GPU
 * command tries again. A transient failure (the device held by another process in
 * exclusive-process mode, out of memory while creating the context, an injected fault) thus
 * costs one command, while a permanent one (no device, a driver older than the runtime) is
 * reported again by every GPU command at the price of one quick CUDA call. */
extern "C" int gpu_init(struct gpu_info *info, struct qx_err *e)
{
	if (!gpu_state.ok) {
		if (gpu_open(&gpu_state.info, e))
			return -1;
		gpu_state.ok = 1;
	}
	GPU_TRY(gpu_mem_info_pooled(&gpu_state.info.mem_free, &gpu_state.info.mem_total));
	*info = gpu_state.info;
	return 0;
}

static void *pinned_ptr;
static size_t pinned_bytes;

/* Grows a pinned host buffer (gpu_util.cuh). */
void *gpu_pinned_grow(void **buf, size_t *cap, size_t bytes, const char *what, struct qx_err *e)
{
	if (bytes <= *cap)
		return *buf;
	if (*buf)
		cudaFreeHost(*buf);
	*buf = NULL;
	*cap = 0;
	const cudaError_t err = cudaMallocHost(buf, bytes ? bytes : 1);
	if (err != cudaSuccess) {
		*buf = NULL;
		gpu_fail(e, what, err);
		return NULL;
	}
	*cap = bytes;
	return *buf;
}

/* Returns the session's pinned result buffer, grown to at least bytes (the old one is freed
 * first, so its values are lost), or NULL with e filled. */
extern "C" void *gpu_host_buffer(size_t bytes, struct qx_err *e)
{
	return gpu_pinned_grow(&pinned_ptr, &pinned_bytes, bytes,
	                       "cudaMallocHost (pinned result buffer)", e);
}

/* What gpu_at_release registered, run by gpu_release. */
static void (*release_fns[8])(void);
static int release_count;

/* Registers fn to run at gpu_release (once; at most 8). */
extern "C" void gpu_at_release(void (*fn)(void))
{
	for (int i = 0; i < release_count; i++)
		if (release_fns[i] == fn)
			return;
	if (release_count < 8)
		release_fns[release_count++] = fn;
}

/* At exit: runs the registered release functions, frees the pinned buffer and resets the
 * device (destroying the context and what it holds: streams, events, the memory pool);
 * nothing when the GPU was never opened. */
extern "C" void gpu_release(void)
{
	if (!gpu_state.ok)
		return;
	while (release_count > 0)
		release_fns[--release_count]();
	cudaFreeHost(pinned_ptr);
	pinned_ptr = NULL;
	pinned_bytes = 0;
	cudaDeviceReset();
}

/* The timing events handed out by gpu_events, kept for the process. */
static std::vector<cudaEvent_t> event_pool;

/* Returns at least n events from the pool, creating the missing ones, or NULL with e. */
cudaEvent_t *gpu_events(int n, struct qx_err *e)
{
	while ((int)event_pool.size() < n) {
		cudaEvent_t ev;
		cudaError_t err = cudaEventCreate(&ev);
		if (err != cudaSuccess) {
			gpu_fail(e, "cudaEventCreate", err);
			return NULL;
		}
		event_pool.push_back(ev);
	}
	return event_pool.data();
}

/* Returns the milliseconds from event a to event b (both complete), or 0 when CUDA cannot
 * tell (an event not recorded yet). */
float gpu_elapsed(cudaEvent_t a, cudaEvent_t b)
{
	float ms = 0;
	cudaEventElapsedTime(&ms, a, b);
	return ms;
}

/* Times op (which enqueues work on the default stream and returns a cudaError_t) reps times
 * after one warm-up, with events; stores the median in *ms. */
template <typename Op> static int time_median(int reps, double *ms, struct qx_err *e, Op op)
{
	cudaEvent_t *ev = gpu_events(2, e);
	std::vector<float> t;
	if (!ev)
		return -1;
	for (int i = 0; i <= reps; i++) {
		GPU_TRY(cudaEventRecord(ev[0]));
		GPU_TRY(op());
		GPU_TRY(cudaEventRecord(ev[1]));
		GPU_TRY(cudaEventSynchronize(ev[1]));
		if (i)
			t.push_back(gpu_elapsed(ev[0], ev[1]));
	}
	std::sort(t.begin(), t.end());
	const size_t n = t.size();
	*ms = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
	return 0;
}

/* Times a device-to-host copy of bytes into a pinned buffer of its own (allocated and freed
 * here, so the session's pinned result buffer and the values in it are left alone). */
extern "C" int gpu_floor_copy(size_t bytes, int reps, double *ms, struct qx_err *e)
{
	void *dev = NULL, *host = NULL;
	cudaError_t err = cudaMallocHost(&host, bytes);
	int rc = -1;
	if (err != cudaSuccess)
		return gpu_fail(e, "cudaMallocHost (copy measurement)", err);
	err = gpu_pool_trim(); /* cudaMalloc cannot use the pool's kept blocks */
	if (err == cudaSuccess)
		err = cudaMalloc(&dev, bytes);
	if (err == cudaSuccess)
		err = cudaMemset(dev, 0x3f, bytes);
	if (err == cudaSuccess)
		rc = time_median(reps, ms, e, [&] {
			return cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost);
		});
	else
		gpu_fail(e, "cudaMalloc/cudaMemset (copy measurement)", err);
	cudaFree(dev);
	cudaFreeHost(host);
	return rc;
}

/* One device's part of the multi-GPU copy floor: its device buffer and stream, freed (after
 * its work) by the destructor. */
struct floor_share {
	int dev = -1;
	void *buf = nullptr;
	cudaStream_t s = nullptr;
	floor_share() = default;
	floor_share(const floor_share &) = delete;
	floor_share &operator=(const floor_share &) = delete;
	~floor_share()
	{
		if (dev < 0)
			return;
		cudaSetDevice(dev);
		if (s)
			cudaStreamSynchronize(s);
		cudaFree(buf);
		if (s)
			cudaStreamDestroy(s);
	}
};

/* Sets up share sh on device dev (a buffer of bytes filled, a stream); returns 0 or -1. */
static int floor_share_open(floor_share &sh, int dev, size_t bytes, struct qx_err *e)
{
	GPU_TRY(cudaSetDevice(dev));
	sh.dev = dev;
	GPU_TRY(cudaStreamCreateWithFlags(&sh.s, cudaStreamNonBlocking));
	GPU_TRY(gpu_pool_trim()); /* cudaMalloc cannot use the pool's kept blocks */
	GPU_TRY(cudaMalloc(&sh.buf, bytes ? bytes : 1));
	GPU_TRY(cudaMemset(sh.buf, 0x3f, bytes));
	GPU_TRY(cudaDeviceSynchronize());
	return 0;
}

/* Copies every share into host at once, one host thread per device started together; *ms
 * gets the wall time from the earliest start to the latest end. Returns 0 or -1. */
static int floor_copy_once(floor_share *sh, const struct mg_share *part, int ngpus, char *host,
                           double *ms, struct qx_err *e)
{
	using clock = std::chrono::steady_clock;
	std::atomic<int> ready{0};
	std::vector<clock::time_point> t0(ngpus), t1(ngpus);
	std::vector<cudaError_t> err(ngpus, cudaSuccess);
	std::vector<std::thread> threads;
	try {
		for (int d = 0; d < ngpus; d++)
			threads.emplace_back([&, d] {
				cudaSetDevice(d);
				ready.fetch_add(1);
				while (ready.load() < ngpus)
					std::this_thread::yield();
				t0[d] = clock::now();
				err[d] = cudaMemcpyAsync(host + part[d].first, sh[d].buf,
				                         (size_t)part[d].count,
				                         cudaMemcpyDeviceToHost, sh[d].s);
				if (err[d] == cudaSuccess)
					err[d] = cudaStreamSynchronize(sh[d].s);
				t1[d] = clock::now();
			});
	} catch (...) {
		ready.store(ngpus); /* release the started threads */
		for (std::thread &th : threads)
			th.join();
		return qx_fail(e, "cannot start a host thread for each of %d GPUs", ngpus);
	}
	for (std::thread &th : threads)
		th.join();
	for (int d = 0; d < ngpus; d++)
		if (err[d] != cudaSuccess)
			return gpu_fail(e, "cudaMemcpyAsync (multi-GPU copy measurement)", err[d]);
	clock::time_point a = t0[0], b = t1[0];
	for (int d = 1; d < ngpus; d++) {
		a = std::min(a, t0[d]);
		b = std::max(b, t1[d]);
	}
	*ms = std::chrono::duration<double, std::milli>(b - a).count();
	return 0;
}

/* The copy floor over ngpus devices (src/device.h). */
extern "C" int gpu_floor_copy_multi(size_t bytes, int ngpus, int reps, double *ms, struct qx_err *e)
{
	double weights[QX_MAX_GPUS];
	struct mg_share part[QX_MAX_GPUS];
	std::vector<double> t;
	void *host = NULL;
	int rc = 0;
	if (ngpus < 1 || ngpus > QX_MAX_GPUS)
		return qx_fail(e, "copy floor: %d GPUs: expected 1..%d", ngpus, QX_MAX_GPUS);
	for (int d = 0; d < ngpus; d++) {
		int v = 0;
		GPU_TRY(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, d));
		weights[d] = v > 0 ? v : 1;
	}
	if (mg_split((long long)bytes, ngpus, weights, part, e))
		return -1;
	GPU_TRY(cudaMallocHost(&host, bytes ? bytes : 1));
	{ /* the shares freed (their destructors) before the pinned buffer */
		floor_share sh[QX_MAX_GPUS];
		for (int d = 0; d < ngpus && !rc; d++)
			rc = floor_share_open(sh[d], d, (size_t)part[d].count, e);
		for (int i = 0; i <= reps && !rc; i++) {
			double one = 0;
			rc = floor_copy_once(sh, part, ngpus, (char *)host, &one, e);
			if (i && !rc)
				t.push_back(one);
		}
	}
	cudaSetDevice(0);
	cudaFreeHost(host);
	if (rc)
		return -1;
	std::sort(t.begin(), t.end());
	const size_t n = t.size();
	*ms = n == 0 ? 0 : n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
	return 0;
}

/* Writes a value derived from the index into every element: the least work a kernel that
 * produces the result array can do. */
template <typename T> __global__ void write_only_kernel(T *out, size_t count)
{
	const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < count)
		out[i] = (T)i;
}

/* Times write_only_kernel over count values of precision prec at block threads per block
 * (median of reps after a warm-up) into *ms; returns 0 or -1 with e. */
extern "C" int gpu_floor_write(size_t count, enum qx_precision prec, int block, int reps,
                               double *ms, struct qx_err *e)
{
	gpu_owned<void> dev;
	const size_t grid = (count + block - 1) / block;
	GPU_TRY(gpu_pool_trim()); /* cudaMalloc cannot use the pool's kept blocks */
	GPU_TRY(cudaMalloc(&dev.ptr, count * qx_precision_size(prec)));
	if (time_median(reps, ms, e, [&] {
		    if (prec == QX_DOUBLE)
			    write_only_kernel<<<grid, block>>>((double *)dev.ptr, count);
		    else
			    write_only_kernel<<<grid, block>>>((float *)dev.ptr, count);
		    return cudaGetLastError();
	    }))
		return -1;
	GPU_TRY(cudaFree(dev.release()));
	return 0;
}

/* Dynamic shared memory of a launch as a function of its block size, for
 * cudaOccupancyMaxPotentialBlockSizeVariableSMem. */
struct shared_per_block {
	size_t fixed, per_thread;
	__host__ __device__ size_t operator()(int block) const
	{
		return fixed + per_thread * (size_t)block;
	}
};

/* Asks the occupancy API about func at block threads (see gpu_util.cuh); fills *o and returns
 * 0, or -1 with e. */
int gpu_occupancy_of(const void *func, int block, size_t shared_fixed, size_t shared_per_thread,
                     struct gpu_occupancy *o, struct qx_err *e)
{
	cudaFuncAttributes attr;
	int per_sm = 0, min_grid = 0, suggested = 0, max_threads = 0;
	const shared_per_block shared = {shared_fixed, shared_per_thread};
	GPU_TRY(cudaFuncGetAttributes(&attr, func));
	GPU_TRY(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
	GPU_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, func, block, shared(block)));
	GPU_TRY(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&min_grid, &suggested, func, shared,
	                                                       attr.maxThreadsPerBlock));
	o->block = block;
	o->regs_per_thread = attr.numRegs;
	o->blocks_per_sm = per_sm;
	o->occupancy = max_threads > 0 ? (double)per_sm * block / max_threads : 0;
	o->suggested_block = suggested;
	o->shared_bytes = attr.sharedSizeBytes + shared(block);
	return 0;
}
