/* expint.h - the C interface of problem expint's GPU code (cuda/expint/expint.cu). Every function
 * returns 0, or -1 with the CUDA call and its message in e; none of them exits. */
#ifndef QUADX_EXPINT_H
#define QUADX_EXPINT_H

#include "../../device.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most streams a streamed expint run may use (its setting `streams`). */
#define EXPINT_MAX_STREAMS 16

/* How an expint GPU run moves its results: one kernel then one copy (the coursework's), or the
 * grid in chunks over `streams` streams whose copies overlap the next chunks' kernels. */
enum expint_gpu_sequence { EXPINT_SEQ_SERIAL = 0, EXPINT_SEQ_STREAMED = 1 };

/* Where the kernel keeps its inputs: arguments (global), x staged through shared memory, or
 * a, step, m and iters in __constant__ memory (the seed report's experiments). */
enum expint_gpu_memory { EXPINT_MEM_GLOBAL = 0, EXPINT_MEM_SHARED = 1, EXPINT_MEM_CONSTANT = 2 };

/* One expint run on the GPU: E_i(x_j) for i = 1..n, x_j = a + (b-a) j/m, j = 1..m, row-major
 * into host_out (n*m values of prec). algo is an enum expint_algo. */
struct expint_gpu_job {
	int n;
	long long m;
	double a, b;
	long iters;
	enum qx_precision prec;
	int algo;
	int block;
	int sequence; /* enum expint_gpu_sequence */
	int memory;   /* enum expint_gpu_memory */
	int streams;  /* streams of the streamed sequence, 1..EXPINT_MAX_STREAMS */
};
/* Device bytes the job needs at once (checked against the free memory before a run). */
size_t expint_gpu_device_bytes(const struct expint_gpu_job *job);
/* Runs the job into host_out (pinned, n*m values of prec) with its phases and total in *t; on any
 * failure frees what it allocated and leaves the device usable. */
int expint_gpu_run(const struct expint_gpu_job *job, void *host_out, struct qx_timing *t,
                   struct qx_err *e);

/* Runs the job over devices 0..ngpus-1 (1..QX_MAX_GPUS): the orders split in contiguous
 * shares by the devices' SM counts (src/multigpu.h), the fast algorithm's by each order's
 * modeled cost too (expint_cost.h), each share driven from a host thread of
 * its own that makes its device current and runs the job's sequence on it as expint_gpu_run
 * runs the grid, on its own buffers, streams and events, copying its rows into place in
 * host_out (pinned, n*m values of prec). A point's value depends on (n, x) alone, so the values
 * equal expint_gpu_run's bit for bit. per[0..ngpus) gets each device's phases and total, *t the
 * slowest device's. A failure on any device is named with its index; the others stop between
 * chunks, and every device's buffers, streams and events are freed before it returns -1. */
int expint_gpu_run_multi(const struct expint_gpu_job *job, int ngpus, void *host_out,
                         struct qx_timing *t, struct qx_timing *per, struct qx_err *e);

/* Fills *o for the kernel the job launches at its block size; returns 0 or -1. */
int expint_gpu_occupancy(const struct expint_gpu_job *job, struct gpu_occupancy *o,
                         struct qx_err *e);

/* E_n(x) for one (n, x) on the GPU, computed in precision prec with algorithm algo. */
int expint_gpu_eval(int n, double x, long iters, enum qx_precision prec, int algo, double *value,
                    struct qx_err *e);
/* E_{n[i]}(x[i]) for count points on the GPU, one thread each, in precision prec (x[i] rounded
 * to it) by algorithm algo: the value widened to double in values[i], the enum expint_status
 * in status[i] (the accuracy table and the unit test check every reference point with it). */
int expint_gpu_eval_batch(const int *n, const double *x, long count, long iters,
                          enum qx_precision prec, int algo, double *values, int *status,
                          struct qx_err *e);

#ifdef __cplusplus
}
#endif

#endif
