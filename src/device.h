/* device.h - the C interface of the GPU device layer that every problem shares: the
 * device, the pinned result buffer, the benchmark floors and occupancy figures. Each problem's
 * GPU functions are in its own header (src/problems/expint/expint_gpu.h...). Every function returns
 * 0, or -1 with the CUDA call and its message in e; none of them exits. */
#ifndef QUADX_CUDA_H
#define QUADX_CUDA_H

#include "qx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What `show device` prints about the GPU. */
struct gpu_info {
	char name[256];
	int cc_major, cc_minor;
	int sms;
	int max_threads_per_block;
	size_t shared_per_block;
	/* mem_free counts the blocks the device's memory pool keeps from earlier runs: pooled
	 * arrays reuse them, and a run or measurement whose arrays come from cudaMalloc gives
	 * them back first (gpu_pool_trim) */
	size_t mem_total, mem_free;
	int sm_clock_mhz, mem_clock_mhz, mem_bus_bits;
	int driver_version, runtime_version;
	double context_ms; /* time to create the CUDA context, paid once per session */
};

/* 1 when this binary contains the GPU backend (built with nvcc). */
int gpu_compiled(void);

/* Creates the CUDA context on device 0 on first use and fills *info (the memory free is read
 * at each call). A success is kept for the session; a failure is not kept: the next call
 * tries again, so a transient failure costs one command and a permanent one (no device, an
 * old driver) is reported by each. Fails with the reason when there is no usable GPU. */
int gpu_init(struct gpu_info *info, struct qx_err *e);

/* Stores in *n how many CUDA devices this process sees (CUDA_VISIBLE_DEVICES limits them),
 * at least 1; returns 0, or -1 with the reason when there is no usable GPU (a CPU-only build,
 * no driver, no visible device). Opens nothing: the device layer's context stays device 0's. */
int gpu_count(int *n, struct qx_err *e);

/* Fills *info with the facts of device dev (0 <= dev < gpu_count) as gpu_init does for device
 * 0 (context_ms: 0 for devices other than 0, whose contexts are created by the runs that use
 * them); returns 0 or -1 with e. */
int gpu_device_info(int dev, struct gpu_info *info, struct qx_err *e);

/* Returns a pinned host buffer of at least bytes, owned by the GPU layer and reused by later
 * runs (it grows when needed), or NULL with e filled. */
void *gpu_host_buffer(size_t bytes, struct qx_err *e);

/* Frees the pinned buffer and the device's resources at exit; nothing when no GPU was used. */
void gpu_release(void);

/* Registers fn to run at gpu_release, before the context goes (the last registered first): a
 * problem's GPU layer frees what it keeps across runs (FFT plans, page-locked inputs). At most
 * 8; registering the same fn again does nothing. */
void gpu_at_release(void (*fn)(void));

/* Floors for the benchmark: the median time of a pinned device-to-host copy of bytes (into a
 * pinned buffer of the measurement's own; the result buffer is not touched), and of a kernel
 * that only writes count values of precision prec, each over reps timed runs. */
int gpu_floor_copy(size_t bytes, int reps, double *ms, struct qx_err *e);
int gpu_floor_write(size_t count, enum qx_precision prec, int block, int reps, double *ms,
                    struct qx_err *e);
/* The copy floor of a run over devices 0..ngpus-1: bytes split over them as a run splits its
 * output (by SM counts, mg_split), every device copying its share into one pinned buffer at
 * once from a host thread of its own; *ms gets the median over reps (after a warm-up) of the
 * wall time from the first copy's start to the last one's end. */
int gpu_floor_copy_multi(size_t bytes, int ngpus, int reps, double *ms, struct qx_err *e);

/* What the CUDA occupancy API says about one kernel at one block size: registers per thread
 * (cudaFuncGetAttributes), resident blocks per SM and the theoretical occupancy (resident
 * threads / the SM's maximum, cudaOccupancyMaxActiveBlocksPerMultiprocessor), and the block
 * size cudaOccupancyMaxPotentialBlockSize suggests for the kernel. */
struct gpu_occupancy {
	int block; /* threads per block the kernel is launched with */
	int regs_per_thread;
	int blocks_per_sm;
	double occupancy; /* 0..1 */
	int suggested_block;
	size_t shared_bytes; /* shared memory per block (static + dynamic) */
};

#ifdef __cplusplus
}
#endif

#endif
