/* ahead.cuh - breadth running ahead of the host while its list is small (cub_breadth_ahead):
 * the one-GPU run's first iterations (breadth.cu), and those of a run over several GPUs, which
 * starts on GPU 0 (breadth_multi.cu). Every function is static or a template, so that each .cu
 * that includes it has its own copy. */
#ifndef QX_CUBATURE_AHEAD_CUH
#define QX_CUBATURE_AHEAD_CUH

#include <algorithm>

#include <cub/cub.cuh>

#include "common.cuh"

/* breadth running ahead, one block of THREADS after the rule kernel, for at most
 * THREADS * AHEAD_ITEMS leaves (nothing once st->stop is set):
 * checks the new leaves fresh..n-1 against their parents, counts their evaluations, sums the
 * estimates and errors of the n leaves and records the iteration in st's history. Ends the run
 * (AHEAD_DONE) when converged after the first iteration or when nothing splits; else picks the
 * leaves to split (all in the first iteration) with cub_theta_kernel's threshold, here found by
 * bisection over its buckets, writes their positions to pos, and sets st's split and the next
 * iteration's list, handing over to the host (AHEAD_HOST) when that iteration's split could pass
 * cap leaves or maxeval evaluations, or the history is full; so this iteration's split fits,
 * as the previous iteration (or, for the first, the caller) made sure. A NaN error anywhere
 * sets the threshold to -1, as cub_theta_kernel's bucket 0 does: every leaf whose error is a
 * number splits. */
template <int THREADS>
__global__ void __launch_bounds__(THREADS)
    cub_ahead_classify_kernel(cub_ahead *st, const double *parent, const double *est, double *err,
                              int *pos, double rel, double abs_tol, long long cap, double maxeval,
                              int npts, int first)
{
	typedef cub::BlockReduce<cub_tot, THREADS> reduce_t;
	typedef cub::BlockReduce<double, THREADS> sum_t;
	typedef cub::BlockScan<int, THREADS> scan_t;
	__shared__ union {
		typename reduce_t::TempStorage tot;
		typename sum_t::TempStorage sum;
		typename scan_t::TempStorage scan;
	} tmp;
	__shared__ cub_tot all;
	__shared__ double below;
	if (st->stop)
		return;
	const long long n = st->n, fresh = st->fresh, np = st->nparents;
	const long long evals = st->evals + (n - fresh) * npts;
	for (long long j = threadIdx.x; j < np; j += THREADS)
		cub_children_check(2, parent[j], est + fresh + 2 * j, err + fresh + 2 * j);
	__syncthreads();
	double v[AHEAD_ITEMS];
	cub_tot mine = {0, 0, 0};
	for (int q = 0; q < AHEAD_ITEMS; q++) {
		const long long r = (long long)threadIdx.x * AHEAD_ITEMS + q;
		v[q] = r < n ? err[r] : 0;
		if (r < n)
			mine = cub_tot_add{}(mine, cub_tot{est[r], v[q], v[q]});
	}
	mine = reduce_t(tmp.tot).Reduce(mine, cub_tot_add{});
	if (threadIdx.x == 0)
		all = mine;
	__syncthreads();
	const double tol = fmax(abs_tol, rel * fabs(all.est)), budget = BREADTH_KEEP * tol;
	/* the block's sum of the errors at most edge (every thread gets it) */
	auto sum_below = [&](double edge) {
		double s = 0;
		for (int q = 0; q < AHEAD_ITEMS; q++)
			s += v[q] <= edge ? v[q] : 0;
		s = sum_t(tmp.sum).Sum(s);
		if (threadIdx.x == 0)
			below = s;
		__syncthreads();
		s = below;
		__syncthreads();
		return s;
	};
	/* k: the most buckets 1..k (with bucket 0) whose errors sum to at most budget */
	int lo = 0, hi = HIST_BUCKETS - 1;
	while (lo < hi) {
		const int k = (lo + hi + 1) / 2;
		if (sum_below(all.max * exp2(-(HIST_BUCKETS - k) / 4.0)) <= budget)
			lo = k;
		else
			hi = k - 1;
	}
	double theta = all.max * exp2(-(HIST_BUCKETS - lo) / 4.0);
	if (lo == 0 && !(sum_below(theta) <= budget))
		theta = -1;
	if (isnan(all.err))
		theta = -1;
	int flag[AHEAD_ITEMS], nsplit;
	for (int q = 0; q < AHEAD_ITEMS; q++)
		flag[q] = (long long)threadIdx.x * AHEAD_ITEMS + q < n && (first || v[q] > theta);
	scan_t(tmp.scan).ExclusiveSum(flag, flag, nsplit);
	for (int q = 0; q < AHEAD_ITEMS; q++) {
		const long long r = (long long)threadIdx.x * AHEAD_ITEMS + q;
		if (r < n)
			pos[r] = flag[q];
	}
	if (threadIdx.x != 0)
		return;
	const long long it = st->iterations;
	st->history[0][it] = all.est;
	st->history[1][it] = all.err;
	st->history[2][it] = (double)n;
	st->iterations = it + 1;
	st->evals = evals;
	st->est = all.est;
	st->err = all.err;
	st->theta = theta;
	if (all.err <= tol && it > 0) {
		st->stop = AHEAD_DONE;
		st->reason = CUB_CONVERGED;
		return;
	}
	if (nsplit == 0) {
		st->stop = AHEAD_DONE;
		st->reason = CUB_NO_PROGRESS;
		return;
	}
	const long long next = n + nsplit;
	st->fresh = n - nsplit;
	st->n = next;
	st->nparents = nsplit;
	if (2 * next > cap || evals + 2.0 * nsplit * npts + 2.0 * next * npts > maxeval ||
	    it + 1 == AHEAD_HISTORY)
		st->stop = AHEAD_HOST;
}

/* Runs breadth's first iterations ahead of the host, from the n0 leaves in buf[0]: per
 * iteration the rule on the new leaves, cub_ahead_classify_kernel and cub_next_kernel, all
 * reading the list's size from the state st_d on the device, AHEAD_BATCH iterations queued
 * before the host looks at the state, so the device does not wait for the host between them.
 * Lists hold at most cap <= AHEAD_CAP leaves (both buffers have room for cap; parent and pos
 * too); ev holds 3 AHEAD_BATCH + 2 events. Adds the iterations to res (counts and history)
 * and their phases to t; returns 0 with *st the final state (the list in
 * buf[cub_ahead_splits(st) % 2]), or -1 with e filled (cancelled, or a CUDA error). */
template <typename T>
static int cub_breadth_ahead(const struct cub_job *job, const cub_rule &dr, cub_buf<T> *buf,
                             long long n0, long long cap, double *parent, int *pos, cub_ahead *st_d,
                             int sms, cudaEvent_t *ev, struct cub_result *res, struct qx_timing *t,
                             cub_ahead *st, struct qx_err *e)
{
	const int dim = job->rule->dim, npts = job->rule->npts;
	const double rel = job->rel, abs_tol = job->abs, maxeval = (double)job->maxeval;
	long long launched = 0;
	*st = cub_ahead{};
	st->n = n0;
	GPU_TRY(cudaMemcpy(st_d, st, sizeof *st, cudaMemcpyHostToDevice));
	while (st->stop == AHEAD_GO) {
		if (qx_cancelled())
			return qx_fail(e, "run cancelled");
		const long long evals = st->evals, done = st->iterations;
		/* the most leaves in the list, and new ones, at the coming iteration */
		long long up = st->n, up_new = st->n - st->fresh;
		GPU_TRY(cudaEventRecord(ev[0]));
		for (int b = 0; b < AHEAD_BATCH; b++, launched++) {
			cub_buf<T> &in = buf[launched % 2], &out = buf[1 - launched % 2];
			const cub_split_of split = {in.err, &st_d->theta, launched == 0};
			GPU_TRY(cub_rule_launch<T>(job, dr, cub_list<T>{in.c, in.h}, in.cap, up_new,
			                           in.est, in.err, in.axis, sms, st_d));
			GPU_TRY(cudaEventRecord(ev[3 * b + 1]));
			/* a block as small as the list allows: its fixed work is per warp */
			const int first = launched == 0;
			if (up <= 128 * AHEAD_ITEMS)
				cub_ahead_classify_kernel<128>
				    <<<1, 128>>>(st_d, parent, in.est, in.err, pos, rel, abs_tol,
				                 cap, maxeval, npts, first);
			else if (up <= 512 * AHEAD_ITEMS)
				cub_ahead_classify_kernel<512>
				    <<<1, 512>>>(st_d, parent, in.est, in.err, pos, rel, abs_tol,
				                 cap, maxeval, npts, first);
			else
				cub_ahead_classify_kernel<1024>
				    <<<1, 1024>>>(st_d, parent, in.est, in.err, pos, rel, abs_tol,
				                  cap, maxeval, npts, first);
			GPU_TRY(cudaEventRecord(ev[3 * b + 2]));
			cub_next_kernel<T>
			    <<<(unsigned)((up + ELEM_BLOCK - 1) / ELEM_BLOCK), ELEM_BLOCK>>>(
			        0, dim, cub_list<T>{in.c, in.h}, in.cap, in.est, in.err, in.axis,
			        split, pos, 1, 0, cub_list<T>{out.c, out.h}, out.cap, out.est,
			        out.err, out.axis, parent, st_d, launched);
			GPU_TRY(cudaGetLastError());
			GPU_TRY(cudaEventRecord(ev[3 * b + 3]));
			up = std::min(2 * up, cap);
			up_new = up;
		}
		GPU_TRY(cudaMemcpy(st, st_d, sizeof *st, cudaMemcpyDeviceToHost));
		GPU_TRY(cudaEventRecord(ev[3 * AHEAD_BATCH + 1]));
		GPU_TRY(cudaEventSynchronize(ev[3 * AHEAD_BATCH + 1]));
		/* the phases of the iterations that ran (the rest of the batch found st->stop) */
		for (int b = 0; done + b < st->iterations; b++) {
			qx_timing_add(t, "rules", gpu_elapsed(ev[3 * b], ev[3 * b + 1]), 0);
			qx_timing_add(t, "classify", gpu_elapsed(ev[3 * b + 1], ev[3 * b + 2]), 0);
			if (done + b < cub_ahead_splits(st))
				qx_timing_add(t, "split", gpu_elapsed(ev[3 * b + 2], ev[3 * b + 3]),
				              0);
		}
		qx_timing_add(t, "copies",
		              gpu_elapsed(ev[3 * AHEAD_BATCH], ev[3 * AHEAD_BATCH + 1]), 0);
		for (long long i = done; i < st->iterations; i++)
			cub_history_add(job, res, st->history[0][i], st->history[1][i],
			                (long long)st->history[2][i]);
		qx_progress_add(st->evals - evals);
	}
	res->iterations = st->iterations;
	res->evals = st->evals;
	res->regions = st->evals / npts;
	return 0;
}

#endif
