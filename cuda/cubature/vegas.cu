/* vegas.cu - cubature's variant vegas on one GPU (cubature_gpu.h): the CPU's algorithm
 * (cubature_vegas.c) with each iteration's samples drawn on the device, the same Philox points;
 * the host adds the blocks' sums in block order, refines the grid (cub_vegas_refine) and
 * combines the iterations (cub_vegas_add). */

#include "../../src/problems/cubature/cubature_gpu.h"
#include "../gpu_util.cuh"
#include "mc_kernels.cuh"

/* vegas's kernel for the built-in integrands (mc_kernels.cuh). */
template <typename T>
__global__ void __launch_bounds__(MC_BLOCK)
    cub_vegas_kernel(cub_fn fn, double a, double b, const double *grid, int nb, cub_vegas_strata st,
                     int lanes, unsigned it, unsigned long long seed, double vol, double scale,
                     double *blk, void *bins)
{
	cub_vegas_body<T, 0>(fn, a, b, grid, nb, st, lanes, it, seed, vol, scale, blk, bins);
}

/* Launches iteration it (grid of nb bins an axis, strata st, the bins' fixed-point scale) on
 * blocks blocks with shared bytes shm: the user's kernel where the job has one, else the
 * built-ins' in precision T; returns the launch's error. */
template <typename T>
static cudaError_t cub_vegas_launch(const struct cub_job *job, unsigned blocks, size_t shm,
                                    const double *grid, int nb, cub_vegas_strata st, int lanes,
                                    unsigned it, double vol, double scale, double *blk, void *bins)
{
	cub_fn fn = job->fn;
	double a = job->a, b = job->b;
	unsigned long long seed = job->seed;
	if (job->user) {
		void *args[] = {&fn, &a,    &b,   &grid,  &nb,  &st,  &lanes,
		                &it, &seed, &vol, &scale, &blk, &bins};
		return cudaLaunchKernel((const void *)job->user->kernel[CUB_UK_RULE], dim3(blocks),
		                        dim3(MC_BLOCK), args, shm, 0);
	}
	cub_vegas_kernel<T><<<blocks, MC_BLOCK, shm>>>(fn, a, b, grid, nb, st, lanes, it, seed, vol,
	                                               scale, blk, bins);
	return cudaGetLastError();
}

static void *vegas_pinned;
static size_t vegas_pinned_bytes;

/* Frees vegas's pinned buffer (at gpu_release). */
static void cub_vegas_host_free(void)
{
	cudaFreeHost(vegas_pinned);
	vegas_pinned = NULL;
	vegas_pinned_bytes = 0;
}

/* Returns vegas's pinned host buffer of at least bytes, kept for later runs (the session's
 * pinned buffer holds the run's values, so it is not this one), or NULL with e filled. */
static double *cub_vegas_host(size_t bytes, struct qx_err *e)
{
	if (!vegas_pinned)
		gpu_at_release(cub_vegas_host_free);
	return (double *)gpu_pinned_grow(&vegas_pinned, &vegas_pinned_bytes, bytes,
	                                 "cudaMallocHost (vegas's grid and sums)", e);
}

/* vegas in precision T: the iterations as cub_cpu_vegas's, phases "alloc", "samples",
 * "copies" and "free" into *t. */
template <typename T>
static int cub_run_vegas(const struct cub_job *job, struct cub_result *res, struct qx_timing *t,
                         struct qx_err *e)
{
	const int dim = job->fn.dim, nb = cub_vegas_bins(dim, job->calls), nd = dim * nb,
	          ng = dim * (nb + 1);
	const cub_vegas_strata st = cub_vegas_strata_of(job->calls, dim);
	const long long calls = st.cubes * st.npg; /* the samples an iteration draws */
	const size_t shm = (size_t)nd * sizeof(double);
	const double t0 = qx_now_ms();
	int sms = 0;
	GPU_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	const int lanes = cub_vegas_lanes(st, sms);
	const long long want = (st.cubes * lanes + MC_BLOCK - 1) / MC_BLOCK;
	const unsigned blocks = (unsigned)std::max(1LL, std::min<long long>(want, 8LL * sms));
	cudaEvent_t *ev = gpu_events(2, e);
	if (!ev)
		return -1;
	/* one allocation: the grid, then the bins' sums (and the count of those that wrapped) and
	 * the blocks' sums, which come back in one copy an iteration; on the host, the same in
	 * pinned memory, so that an iteration's copies and launch are queued at once */
	const size_t back = (size_t)nd + 1 + 3 * (size_t)blocks;
	gpu_owned<double> buf;
	GPU_TRY(cudaMalloc(&buf.ptr, ((size_t)ng + back) * sizeof(double)));
	double *const grid_d = buf.ptr, *const bins_d = buf.ptr + ng,
	              *const blk_d = bins_d + nd + 1;
	double *const grid = cub_vegas_host(((size_t)ng + back) * sizeof(double), e);
	if (!grid)
		return -1;
	double *const bins = grid + ng, *const blk = bins + nd + 1;
	double vol = 1, scale = 0; /* the bins' fixed point (0: doubles) */
	for (int i = 0; i < dim; i++) {
		vol *= job->b - job->a;
		for (int k = 0; k <= nb; k++)
			grid[i * (nb + 1) + k] = (double)k / nb;
	}
	qx_timing_add(t, "alloc", qx_now_ms() - t0, 0);
	*res = (struct cub_result){};
	res->mc = CUB_MC_VEGAS;
	res->chi2_dof = NAN;
	res->reason = CUB_MAXEVAL;
	res->live = 1;
	struct cub_vegas_acc acc = {};
	for (unsigned it = 0; res->evals + calls <= job->maxeval; it++) {
		if (qx_cancelled())
			return qx_fail(e, "run cancelled");
		const double c0 = qx_now_ms();
		GPU_TRY(cudaMemcpyAsync(grid_d, grid, (size_t)ng * sizeof(double),
		                        cudaMemcpyHostToDevice));
		GPU_TRY(cudaMemsetAsync(bins_d, 0, ((size_t)nd + 1) * sizeof(double)));
		GPU_TRY(cudaEventRecord(ev[0]));
		GPU_LAUNCH(cub_vegas_launch<T>(job, blocks, shm, grid_d, nb, st, lanes, it, vol,
		                               scale, blk_d, bins_d));
		GPU_TRY(cudaEventRecord(ev[1]));
		GPU_TRY(
		    cudaMemcpyAsync(bins, bins_d, back * sizeof(double), cudaMemcpyDeviceToHost));
		GPU_TRY(cudaStreamSynchronize(0));
		const double ms = gpu_elapsed(ev[0], ev[1]);
		qx_timing_add(t, "samples", ms, 0);
		qx_timing_add(t, "copies", qx_now_ms() - c0 - ms, 0);
		double sw = 0, sv = 0, est, var;
		for (unsigned k = 0; k < blocks; k++) {
			sw += blk[3 * k];
			sv += blk[3 * k + 1];
			res->nonfinite += (long long)blk[3 * k + 2];
		}
		cub_vegas_estimate(sw, sv, &st, &est, &var);
		res->evals += calls;
		res->iterations++;
		qx_progress_add(calls);
		const double next = cub_vegas_bins_from_fixed(bins, nd, nb, scale);
		if (next >= 0)
			cub_vegas_refine_grid(grid, bins, dim, nb, CUB_VEGAS_ALPHA, 0);
		scale = next > 0 ? next : 0;
		if ((int)it < job->adapt) {
			cub_history_record(res, it + 1, est, sqrt(var), 1, (double)res->evals);
			continue;
		}
		cub_vegas_add(&acc, est, var, &res->value, &res->err, &res->chi2_dof);
		cub_history_record(res, it + 1, res->value, res->err, 1, (double)res->evals);
		cub_progress_error(res->value, res->err, job->rel, job->abs);
		if (acc.used >= job->iters &&
		    res->err <= fmax(job->abs, job->rel * fabs(res->value))) {
			res->reason = CUB_CONVERGED;
			break;
		}
	}
	res->regions = acc.used;
	if (acc.used == 0)
		res->value = res->err = NAN;
	if (res->nonfinite > 0) {
		res->reason = CUB_NONFINITE;
		res->err = INFINITY;
	} else if (acc.used > 2 && res->chi2_dof > CUB_VEGAS_CHI2_MAX)
		res->reason = CUB_UNTRUSTED;
	const double f0 = qx_now_ms();
	GPU_TRY(cudaFree(buf.release()));
	qx_timing_add(t, "free", qx_now_ms() - f0, 0);
	t->total = qx_now_ms() - t0;
	res->peak_bytes = (double)(((size_t)ng + back) * sizeof(double));
	return 0;
}

/* Variant vegas on device 0 (cubature_gpu.h). */
extern "C" int cub_gpu_vegas_run(const struct cub_job *job, struct cub_result *res,
                                 struct qx_timing *t, struct qx_err *e)
{
	return job->prec == QX_DOUBLE ? cub_run_vegas<double>(job, res, t, e)
	                              : cub_run_vegas<float>(job, res, t, e);
}
