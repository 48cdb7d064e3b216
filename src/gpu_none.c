/* gpu_none.c - the GPU interface in a build without nvcc: every call says why there is none. */
#include "device.h"

#define NO_CUDA                                                                                    \
	"no GPU backend: this quadx was built without CUDA (nvcc was not found at build time)"

/* Returns 0: no GPU code in this binary. */
int gpu_compiled(void)
{
	return 0;
}

/* Always fails: no GPU backend. */
int gpu_init(struct gpu_info *info, struct qx_err *e)
{
	(void)info;
	return qx_fail(e, NO_CUDA);
}

/* Always fails: no GPU backend. */
int gpu_count(int *n, struct qx_err *e)
{
	*n = 0;
	return qx_fail(e, NO_CUDA);
}

/* Always fails: no GPU backend. */
int gpu_device_info(int dev, struct gpu_info *info, struct qx_err *e)
{
	(void)dev;
	(void)info;
	return qx_fail(e, NO_CUDA);
}

/* Nothing to release. */
void gpu_release(void)
{
}

/* Always fails: no GPU backend. */
void *gpu_host_buffer(size_t bytes, struct qx_err *e)
{
	(void)bytes;
	qx_fail(e, NO_CUDA);
	return (void *)0;
}

/* Always fails: no GPU backend. */
int gpu_floor_copy(size_t bytes, int reps, double *ms, struct qx_err *e)
{
	(void)bytes;
	(void)reps;
	(void)ms;
	return qx_fail(e, NO_CUDA);
}

/* Always fails: no GPU backend. */
int gpu_floor_copy_multi(size_t bytes, int ngpus, int reps, double *ms, struct qx_err *e)
{
	(void)bytes;
	(void)ngpus;
	(void)reps;
	(void)ms;
	return qx_fail(e, NO_CUDA);
}

/* Always fails: no GPU backend. */
int gpu_floor_write(size_t count, enum qx_precision prec, int block, int reps, double *ms,
                    struct qx_err *e)
{
	(void)count;
	(void)prec;
	(void)block;
	(void)reps;
	(void)ms;
	return qx_fail(e, NO_CUDA);
}
