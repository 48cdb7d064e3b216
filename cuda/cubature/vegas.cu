/* vegas.cu - cubature's variant vegas on one GPU (cubature_gpu.h): the CPU's algorithm
 * (cubature_vegas.c) with each iteration's samples drawn on the device, the same Philox points,
 * and the step between iterations on the device too (vegas_step.cu: the grid refined, the
 * iterations combined, the stop decided), so that the host queues iterations by the chunk and
 * reads their records while the device runs the next chunk. */

#include "../../src/problems/cubature/cubature_gpu.h"
#include "../gpu_util.cuh"
#include "mc_kernels.cuh"

/* vegas's kernel for the built-in integrands (mc_kernels.cuh). */
template <typename T>
__global__ void __launch_bounds__(MC_BLOCK)
    cub_vegas_kernel(const __grid_constant__ cub_fn fn, double a, double b, const double *grid,
                     int nb, cub_vegas_strata st, int lanes, unsigned it, unsigned long long seed,
                     double vol, cub_vegas_state *state, double *blk, void *bins)
{
	cub_vegas_body<T, 0>(fn, a, b, grid, nb, st, lanes, it, seed, vol, state, blk, bins);
}

/* What every iteration of a run launches with. */
struct vegas_launch {
	const struct cub_job *job;
	unsigned blocks;
	size_t shm;
	int lanes;
	double vol;
	cub_vegas_step_args step;
	cudaEvent_t end; /* recorded after the last iteration queued */
};

/* Queues iteration it: its samples (the user's kernel where the job has one, else the
 * built-ins' in precision T), then its step; returns 0, or -1 with e filled. */
template <typename T>
static int cub_vegas_queue_one(const vegas_launch &l, unsigned it, struct qx_err *e)
{
	cub_fn fn = l.job->fn;
	double a = l.job->a, b = l.job->b, vol = l.vol;
	unsigned long long seed = l.job->seed;
	const double *grid = l.step.grid;
	int nb = l.step.nb, lanes = l.lanes;
	cub_vegas_strata st = l.step.st;
	cub_vegas_state *state = l.step.state;
	double *blk = l.step.blk;
	void *bins = l.step.bins;
	if (l.job->user) {
		void *args[] = {&fn, &a,    &b,   &grid,  &nb,  &st,  &lanes,
		                &it, &seed, &vol, &state, &blk, &bins};
		GPU_LAUNCH(cudaLaunchKernel((const void *)l.job->user->kernel[CUB_UK_RULE],
		                            dim3(l.blocks), dim3(MC_BLOCK), args, l.shm, 0));
	} else {
		cub_vegas_kernel<T><<<l.blocks, MC_BLOCK, l.shm>>>(fn, a, b, grid, nb, st, lanes,
		                                                   it, seed, vol, state, blk, bins);
		GPU_LAUNCH(cudaGetLastError());
	}
	GPU_LAUNCH(cub_vegas_step_launch(l.step, it));
	return 0;
}

/* Queues iterations first .. first + n - 1, then the copy of the device's ring of records
 * into the host's dst and the event done; returns 0, or -1 with e filled. */
template <typename T>
static int cub_vegas_queue(const vegas_launch &l, unsigned first, unsigned n, cub_vegas_record *dst,
                           cudaEvent_t done, struct qx_err *e)
{
	for (unsigned it = first; it < first + n; it++)
		if (cub_vegas_queue_one<T>(l, it, e))
			return -1;
	GPU_TRY(cudaEventRecord(l.end));
	GPU_TRY(cudaMemcpyAsync(dst, l.step.ring, CUB_VEGAS_RING * sizeof *dst,
	                        cudaMemcpyDeviceToHost));
	GPU_TRY(cudaEventRecord(done));
	return 0;
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

/* The iterations of a run's chunk j: first the warm-up and the fewest that can converge,
 * then 2, 4, 8 .. up to half the ring, so that a run queues little past its stop (a chunk
 * queued after it costs two launches an iteration that return at once) and a long one keeps
 * the device busy while the host reads. */
static unsigned cub_vegas_chunk(const struct cub_job *job, int j)
{
	const long long most = CUB_VEGAS_RING / 2;
	if (j == 0)
		return (unsigned)std::min(most, std::max(1LL, (long long)job->adapt + job->iters));
	return (unsigned)std::min(most, 1LL << std::min(j, 5));
}

/* vegas in precision T: the iterations as cub_cpu_vegas's, queued by the chunk (two in
 * flight: the host reads one's records while the device runs the next; a chunk queued past
 * the stop returns at once), phases "alloc", "samples" (the device's time of the iterations
 * and their steps) and "free" into *t. */
template <typename T>
static int cub_run_vegas(const struct cub_job *job, struct cub_result *res, struct qx_timing *t,
                         struct qx_err *e)
{
	const int dim = job->fn.dim, nb = cub_vegas_bins(dim, job->calls), nd = dim * nb,
	          ng = dim * (nb + 1);
	const cub_vegas_strata st = cub_vegas_strata_of(job->calls, dim);
	const long long calls = st.cubes * st.npg; /* the samples an iteration draws */
	const double t0 = qx_now_ms();
	int sms = 0;
	GPU_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	const int lanes = cub_vegas_lanes(st, sms);
	/* one wave of the blocks the built-ins' kernel keeps resident (the occupancy API), at most
	 * a block per MC_BLOCK lanes' cubes: a second, partial wave would leave most of the
	 * device idle at its end, and each block's flush of its dim * nb bins to the device's is
	 * a fixed cost a block */
	const size_t shm = (size_t)nd * sizeof(double);
	struct gpu_occupancy occ;
	if (gpu_occupancy_of((const void *)cub_vegas_kernel<T>, MC_BLOCK, shm, 0, &occ, e))
		return -1;
	const long long want = (st.cubes * lanes + MC_BLOCK - 1) / MC_BLOCK,
	                wave = (long long)std::max(1, occ.blocks_per_sm) * sms;
	const unsigned blocks = (unsigned)std::max(1LL, std::min(want, wave));
	cudaEvent_t *ev = gpu_events(4, e);
	if (!ev)
		return -1;
	/* one allocation: the grid, the bins' sums, the blocks' sums, the state, the ring of
	 * records (all of 8-byte words); on the host, pinned, the first grid and two rings, one
	 * for each chunk in flight */
	const size_t words =
	    (size_t)ng + nd + 3 * (size_t)blocks +
	    (sizeof(cub_vegas_state) + CUB_VEGAS_RING * sizeof(cub_vegas_record)) / sizeof(double);
	gpu_owned<double> buf;
	GPU_TRY(cudaMalloc(&buf.ptr, words * sizeof(double)));
	double *const grid_d = buf.ptr, *const bins_d = grid_d + ng, *const blk_d = bins_d + nd;
	cub_vegas_state *const state_d = (cub_vegas_state *)(blk_d + 3 * (size_t)blocks);
	cub_vegas_record *const ring_d = (cub_vegas_record *)(state_d + 1);
	double *const grid = cub_vegas_host(
	    (size_t)ng * sizeof(double) + 2 * CUB_VEGAS_RING * sizeof(cub_vegas_record), e);
	if (!grid)
		return -1;
	cub_vegas_record *const ring[2] = {(cub_vegas_record *)(grid + ng),
	                                   (cub_vegas_record *)(grid + ng) + CUB_VEGAS_RING};
	double vol = 1;
	for (int i = 0; i < dim; i++) {
		vol *= job->b - job->a;
		for (int k = 0; k <= nb; k++)
			grid[i * (nb + 1) + k] = (double)k / nb;
	}
	/* the bins, the state (scale 0: the first iteration sums doubles) and the ring zeroed */
	GPU_TRY(cudaMemcpyAsync(grid_d, grid, (size_t)ng * sizeof(double), cudaMemcpyHostToDevice));
	GPU_TRY(cudaMemsetAsync(bins_d, 0, (words - ng) * sizeof(double)));
	qx_timing_add(t, "alloc", qx_now_ms() - t0, 0);
	*res = (struct cub_result){};
	res->mc = CUB_MC_VEGAS;
	res->chi2_dof = NAN;
	res->reason = CUB_MAXEVAL;
	res->live = 1;
	const vegas_launch l = {.job = job,
	                        .blocks = blocks,
	                        .shm = shm,
	                        .lanes = lanes,
	                        .vol = vol,
	                        .step = {.grid = grid_d,
	                                 .bins = bins_d,
	                                 .blk = blk_d,
	                                 .blocks = blocks,
	                                 .dim = dim,
	                                 .nb = nb,
	                                 .adapt = job->adapt,
	                                 .iters = job->iters,
	                                 .rel = job->rel,
	                                 .abs = job->abs,
	                                 .alpha = CUB_VEGAS_ALPHA,
	                                 .st = st,
	                                 .state = state_d,
	                                 .ring = ring_d},
	                        .end = ev[1]};
	/* the iterations that fit in maxeval, each of calls samples */
	const long long fit = calls > 0 ? job->maxeval / calls : 0;
	const unsigned most = (unsigned)std::min<long long>(fit, 0x7fffffffLL);
	unsigned first[2] = {0, 0}, count[2] = {0, 0}, queued = 0;
	int chunks = 0;
	GPU_TRY(cudaEventRecord(ev[0]));
	for (int j = 0; j < 2 && queued < most; j++) {
		count[j] = std::min(most - queued, cub_vegas_chunk(job, chunks++));
		first[j] = queued;
		if (cub_vegas_queue<T>(l, queued, count[j], ring[j], ev[2 + j], e))
			return -1;
		queued += count[j];
	}
	int used = 0, done = most == 0;
	for (int j = 0; !done; j ^= 1) {
		GPU_TRY(cudaEventSynchronize(ev[2 + j]));
		for (unsigned it = first[j]; it < first[j] + count[j] && !done; it++) {
			/* a record not of it: the device stopped before it (it decides as the
			 * host reads, so this cannot be; were it so, the run ends there) */
			const cub_vegas_record &r = ring[j][it % CUB_VEGAS_RING];
			if (r.it1 != it + 1) {
				done = 1;
				break;
			}
			res->evals += calls;
			res->iterations++;
			res->nonfinite += (long long)r.nonfinite;
			qx_progress_add(calls);
			cub_history_record(res, it + 1, r.value, r.err, 1, (double)res->evals);
			if ((int)it < job->adapt)
				continue;
			used++;
			res->value = r.value;
			res->err = r.err;
			res->chi2_dof = r.chi2_dof;
			cub_progress_error(res->value, res->err, job->rel, job->abs);
			if (r.converged) {
				res->reason = CUB_CONVERGED;
				done = 1;
			}
		}
		count[j] = 0;
		if (done || (queued == most && count[j ^ 1] == 0))
			break;
		if (qx_cancelled())
			return qx_fail(e, "run cancelled");
		if (queued < most) {
			count[j] = std::min(most - queued, cub_vegas_chunk(job, chunks++));
			first[j] = queued;
			if (cub_vegas_queue<T>(l, queued, count[j], ring[j], ev[2 + j], e))
				return -1;
			queued += count[j];
		}
	}
	GPU_TRY(cudaStreamSynchronize(0)); /* the last chunk's copy too, queued after ev[1] */
	qx_timing_add(t, "samples", most > 0 ? gpu_elapsed(ev[0], ev[1]) : 0, 0);
	cub_vegas_end(res, used);
	const double f0 = qx_now_ms();
	GPU_TRY(cudaFree(buf.release()));
	qx_timing_add(t, "free", qx_now_ms() - f0, 0);
	t->total = qx_now_ms() - t0;
	res->peak_bytes = (double)(words * sizeof(double));
	return 0;
}

/* Variant vegas on device 0 (cubature_gpu.h). */
extern "C" int cub_gpu_vegas_run(const struct cub_job *job, struct cub_result *res,
                                 struct qx_timing *t, struct qx_err *e)
{
	return job->prec == QX_DOUBLE ? cub_run_vegas<double>(job, res, t, e)
	                              : cub_run_vegas<float>(job, res, t, e);
}

/* The device's refinement for the tests (cubature_gpu.h). */
extern "C" int cub_gpu_vegas_refine(double *grid, const double *d, int dim, int nb,
                                    struct qx_err *e)
{
	const size_t edges = (size_t)dim * (nb + 1), sums = (size_t)dim * nb;
	gpu_owned<double> buf;
	GPU_TRY(cudaMalloc(&buf.ptr, (edges + sums) * sizeof(double)));
	GPU_TRY(cudaMemcpy(buf.ptr, grid, edges * sizeof(double), cudaMemcpyHostToDevice));
	GPU_TRY(cudaMemcpy(buf.ptr + edges, d, sums * sizeof(double), cudaMemcpyHostToDevice));
	GPU_LAUNCH(cub_vegas_refine_device(buf.ptr, buf.ptr + edges, dim, nb, CUB_VEGAS_ALPHA));
	GPU_TRY(cudaMemcpy(grid, buf.ptr, edges * sizeof(double), cudaMemcpyDeviceToHost));
	GPU_TRY(cudaFree(buf.release()));
	return 0;
}
