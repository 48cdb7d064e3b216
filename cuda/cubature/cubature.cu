/* cubature.cu - problem cubature on the GPU. The rule's points and weights are uploaded once
 * per run; the region lists (centre and half-widths, structure of arrays) stay on the device.
 * The rule is evaluated with one warp (while regions are few, 4, 8 or 16) per region, the
 * threads sharing the points. breadth: the partition's leaves stay in one list with their results;
 * every iteration evaluates the new leaves, checks children against their parent, and splits
 * every leaf whose error is over a threshold taken from a histogram of the errors (the
 * device-wide form of "split the worst"), with a CUB scan for the positions; while the list is
 * small, a batch of iterations is queued at a time, the list's size kept on the device, and
 * one block classifies (CUB's block reduce and scan). twophase: the seed's algorithm (phase 1
 * a loop with the seed's classification and d-way splits from l^dim regions, phase 2 one
 * thread per region with a bounded heap). Sums are CUB reductions; no scan is written by
 * hand. */
#include <algorithm>
#include <vector>

#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "../../src/problems/cubature/cubature_gpu.h"
#include "../gpu_util.cuh"
#include "breadth.cuh"
#include "rule_kernel.cuh"

/* The iterations of st that split: all but one that ended the run. */
static long long cub_ahead_splits(const cub_ahead *st)
{
	return st->iterations - (st->stop == AHEAD_DONE);
}

/* Classifies each region of twophase's phase 1: active (to split) or retired. Retired when its
 * error fits its volume's share `share` of the tolerance *tol (so the retired errors sum to at
 * most share * tol) and passes the seed's test err < max(abs, rel |est|) (the seed's test
 * alone retires errors that may sum past the tolerance where the integrand changes sign).
 * Retired regions' estimate and error go to ret_est and ret_err (0 for active ones). */
template <typename T>
__global__ void cub_classify_kernel(long long n, int dim, cub_list<T> g, long long cap,
                                    const double *est, const double *err, const double *tol,
                                    double share, double total_vol, double rel, double abs_tol,
                                    int *flag, double *ret_est, double *ret_err)
{
	const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (r >= n)
		return;
	double vol = 1;
	for (int i = 0; i < dim; i++)
		vol *= 2 * (double)g.h[i * cap + r];
	int active = err[r] > share * *tol * vol / total_vol;
	if (!(err[r] < fmax(abs_tol, rel * fabs(est[r]))))
		active = 1;
	flag[r] = active;
	ret_est[r] = active ? 0 : est[r];
	ret_err[r] = active ? 0 : err[r];
}

/* Splits each active region r of g into k pieces along its axis into list out at positions
 * k pos[r] .. k pos[r] + k - 1, recording the parent's estimate at pos[r]. */
template <typename T>
__global__ void cub_split_kernel(long long n, int dim, int k, cub_list<T> g, long long cap,
                                 const int *flag, const int *pos, const int *axis,
                                 const double *est, cub_list<T> out, long long out_cap,
                                 double *parent_est)
{
	const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (r >= n || !flag[r])
		return;
	const long long base = (long long)pos[r] * k;
	const int ax = axis[r];
	parent_est[pos[r]] = est[r];
	for (int q = 0; q < k; q++)
		for (int i = 0; i < dim; i++) {
			T c = g.c[i * cap + r], h = g.h[i * cap + r];
			if (i == ax) {
				const T lo = c - h;
				h = h / k;
				c = lo + (2 * q + 1) * h;
			}
			out.c[i * out_cap + base + q] = c;
			out.h[i * out_cap + base + q] = h;
		}
}

/* The phase-2 input of twophase: region r's estimate, error, axis and volume, the regions
 * still active after phase 1, compacted to their positions pos[r]. */
template <typename T>
__global__ void cub_compact_kernel(long long n, int dim, cub_list<T> g, long long cap,
                                   const int *flag, const int *pos, const double *est,
                                   const double *err, const int *axis, double *out_est,
                                   double *out_err, int *out_axis, double *out_vol)
{
	const long long r = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	if (r >= n || !flag[r])
		return;
	double vol = 1;
	for (int i = 0; i < dim; i++)
		vol *= 2 * (double)g.h[i * cap + r];
	out_est[pos[r]] = est[r];
	out_err[pos[r]] = err[r];
	out_axis[pos[r]] = axis[r];
	out_vol[pos[r]] = vol;
}

/* The tolerance of the current estimate into *tol: max(abs, rel |fin_est + live_est|), live_est
 * the device sum at *live. */
__global__ void cub_tol_kernel(const double *live, double fin_est, double rel, double abs_tol,
                               double *tol)
{
	*tol = fmax(abs_tol, rel * fabs(fin_est + *live));
}

/* What the host needs after an iteration, in one copy: out[0..3] = sums[0..3] (live estimate
 * and error, retired estimate and error), out[4] the tolerance, out[5] the active count. */
__global__ void cub_tally_kernel(long long n, const double *sums, const int *pos, const int *flag,
                                 double *out)
{
	for (int k = 0; k < 5; k++)
		out[k] = sums[k];
	out[5] = (double)pos[n - 1] + flag[n - 1];
}

/* Bytes one region needs on the device, the larger of the variants': breadth's two lists of
 * centre, half-widths, est, err and axis, its parent estimate, scratch and position, and
 * running ahead's parent estimate and position (twophase's two lists of centre and
 * half-widths, est, err, parent estimate, retired est and err, axis, flag and position fit in
 * it). */
extern "C" size_t cub_gpu_region_bytes(int dim, enum qx_precision prec)
{
	return 4 * (size_t)dim * qx_precision_size(prec) + 7 * sizeof(double) + 5 * sizeof(int);
}

/* Half the free device memory, 0 when it cannot be read. */
extern "C" size_t cub_gpu_default_budget(void)
{
	size_t free_b = 0, total = 0;
	if (cudaMemGetInfo(&free_b, &total) != cudaSuccess)
		return 0;
	return free_b / 2;
}

/* Everything a run holds on the device, freed by the owners' destructors on every path. */
template <typename T> struct cub_dev {
	gpu_owned<T> c[2], h[2];
	gpu_owned<double> est, err, parent, ret_est, ret_err, rule, sums, tally;
	gpu_owned<int> axis, flag, pos;
	gpu_owned<unsigned char> tmp;
	cub_rule dr; /* the rule with its points and weights in rule */
	size_t tmp_bytes = 0;
	long long cap = 0;
};

/* Allocates lists of cap regions and the rule on the device, and CUB's temporary storage
 * once for every scan and reduction a run makes. */
template <typename T>
static int cub_alloc(const struct cub_gpu_job *job, long long cap, cub_dev<T> &d, struct qx_err *e)
{
	const int dim = job->rule->dim;
	const size_t nt = (size_t)cap * dim * sizeof(T), nd = (size_t)cap * sizeof(double);
	d.cap = cap;
	for (int s = 0; s < 2; s++) {
		GPU_TRY(cudaMalloc(&d.c[s].ptr, nt));
		GPU_TRY(cudaMalloc(&d.h[s].ptr, nt));
	}
	GPU_TRY(cudaMalloc(&d.est.ptr, nd));
	GPU_TRY(cudaMalloc(&d.err.ptr, nd));
	GPU_TRY(cudaMalloc(&d.parent.ptr, nd));
	GPU_TRY(cudaMalloc(&d.ret_est.ptr, nd));
	GPU_TRY(cudaMalloc(&d.ret_err.ptr, nd));
	GPU_TRY(cudaMalloc(&d.sums.ptr, 8 * sizeof(double)));
	GPU_TRY(cudaMalloc(&d.tally.ptr, 8 * sizeof(double)));
	GPU_TRY(cudaMalloc(&d.axis.ptr, (size_t)cap * sizeof(int)));
	GPU_TRY(cudaMalloc(&d.flag.ptr, (size_t)cap * sizeof(int)));
	GPU_TRY(cudaMalloc(&d.pos.ptr, (size_t)cap * sizeof(int)));
	if (cub_rule_upload(job->rule, d.rule, d.dr, e))
		return -1;
	size_t scan = 0, red = 0, red_ll = 0, red_max = 0;
	GPU_TRY(cub::DeviceScan::ExclusiveSum(nullptr, scan, d.flag.ptr, d.pos.ptr, (int)cap));
	GPU_TRY(cub::DeviceReduce::Sum(nullptr, red, d.est.ptr, d.sums.ptr, (int)cap));
	GPU_TRY(cub::DeviceReduce::Sum(nullptr, red_ll, (long long *)nullptr, (long long *)nullptr,
	                               (int)cap));
	GPU_TRY(cub::DeviceReduce::Max(nullptr, red_max, d.flag.ptr, d.pos.ptr, (int)cap));
	d.tmp_bytes = std::max(std::max(scan, red), std::max(red_ll, red_max));
	GPU_TRY(cudaMalloc(&d.tmp.ptr, d.tmp_bytes));
	return 0;
}

/* Sum of n doubles of src (one per region) into the device's sums[slot]: cub::DeviceReduce::Sum
 * (NVIDIA's CUB) in the work area cub_alloc sized. */
template <typename T>
static int region_sum(cub_dev<T> &d, const double *src, long long n, int slot, struct qx_err *e)
{
	size_t bytes = d.tmp_bytes;
	GPU_TRY(cub::DeviceReduce::Sum(d.tmp.ptr, bytes, src, d.sums.ptr + slot, (int)n));
	return 0;
}

/* The timing events of one iteration: its start, the rule done, classify done, the tally
 * copied, and the split's start and end. */
enum { EV_START, EV_RULES, EV_CLASSIFY, EV_COPIED, EV_SPLIT0, EV_SPLIT1, EV_COUNT };

/* Ends an iteration's device work: copies count doubles of the tally to the host (the
 * iteration's one wait) and adds its phases to t (rules, classify, copies and, when
 * split_pending, the split before it); returns 0 or -1 with e filled. */
static int cub_tally_copy(const double *tally_d, double *tally_h, size_t count, cudaEvent_t *ev,
                          int split_pending, struct qx_timing *t, struct qx_err *e)
{
	GPU_TRY(cudaEventRecord(ev[EV_CLASSIFY]));
	GPU_TRY(cudaMemcpy(tally_h, tally_d, count * sizeof *tally_h, cudaMemcpyDeviceToHost));
	GPU_TRY(cudaEventRecord(ev[EV_COPIED]));
	GPU_TRY(cudaEventSynchronize(ev[EV_COPIED]));
	qx_timing_add(t, "rules", gpu_elapsed(ev[EV_START], ev[EV_RULES]), 0);
	qx_timing_add(t, "classify", gpu_elapsed(ev[EV_RULES], ev[EV_CLASSIFY]), 0);
	qx_timing_add(t, "copies", gpu_elapsed(ev[EV_CLASSIFY], ev[EV_COPIED]), 0);
	if (split_pending)
		qx_timing_add(t, "split", gpu_elapsed(ev[EV_SPLIT0], ev[EV_SPLIT1]), 0);
	return 0;
}

/* Phase 2 of twophase on the active regions of the n in the current list (flag, pos from the
 * last classification): compacts them with their estimates, then one thread each until each
 * meets its share of the remaining tolerance rem; adds the evaluations to res and returns
 * their summed estimate and error in *p2_est, *p2_err and why the worst stopped in *why. */
template <typename T>
static int cub_phase2(const struct cub_gpu_job *job, cub_dev<T> &d, const cub_rule &dr, int cur,
                      long long n, long long active, double rem, struct cub_result *res,
                      double *p2_est, double *p2_err, int *why, struct qx_err *e)
{
	const int dim = job->rule->dim;
	const unsigned eb = (unsigned)((n + ELEM_BLOCK - 1) / ELEM_BLOCK);
	cub_list<T> g = {d.c[cur].ptr, d.h[cur].ptr}, out = {d.c[1 - cur].ptr, d.h[1 - cur].ptr};
	gpu_owned<double> vol;
	gpu_owned<int> axis, stop;
	gpu_owned<long long> used, spent_d;
	gpu_owned<cub_p2_region<T>> heap;
	/* the heap takes what the budget leaves after the lists (half of it: see cap) */
	const size_t per_region = sizeof(cub_p2_region<T>);
	long long hsz = (long long)(job->budget / 2 / ((size_t)active * per_region));
	hsz = std::min(hsz, (long long)PHASE2_HEAP);
	if (hsz < 3)
		hsz = 3;
	GPU_TRY(cudaMalloc(&vol.ptr, (size_t)active * sizeof(double)));
	GPU_TRY(cudaMalloc(&axis.ptr, (size_t)active * sizeof(int)));
	GPU_TRY(cudaMalloc(&stop.ptr, (size_t)active * sizeof(int)));
	GPU_TRY(cudaMalloc(&used.ptr, (size_t)active * sizeof(long long)));
	GPU_TRY(cudaMalloc(&spent_d.ptr, sizeof(long long)));
	GPU_TRY(cudaMalloc(&heap.ptr, (size_t)active * hsz * per_region));
	/* the active regions' centres and half-widths: a split into one piece is a copy */
	cub_split_kernel<T><<<eb, ELEM_BLOCK>>>(n, dim, 1, g, d.cap, d.flag.ptr, d.pos.ptr,
	                                        d.axis.ptr, d.est.ptr, out, d.cap, d.ret_est.ptr);
	GPU_TRY(cudaGetLastError());
	cub_compact_kernel<T><<<eb, ELEM_BLOCK>>>(n, dim, g, d.cap, d.flag.ptr, d.pos.ptr,
	                                          d.est.ptr, d.err.ptr, d.axis.ptr, d.parent.ptr,
	                                          d.ret_err.ptr, axis.ptr, vol.ptr);
	GPU_TRY(cudaGetLastError());
	if (region_sum(d, vol.ptr, active, 0, e))
		return -1;
	double vol_total;
	GPU_TRY(cudaMemcpy(&vol_total, d.sums.ptr, sizeof vol_total, cudaMemcpyDeviceToHost));
	const long long left = job->maxeval - res->evals, per = left / active;
	const unsigned p2_blocks = (unsigned)((active + 127) / 128);
	if (job->user) {
		cub_fn fn = job->fn;
		cub_rule r = dr;
		int hs = (int)hsz;
		cub_p2_region<T> *hp = heap.ptr;
		double *est = d.parent.ptr, *err = d.ret_err.ptr, *vp = vol.ptr;
		const int *ap = axis.ptr;
		long long *up = used.ptr;
		int *sp = stop.ptr;
		void *args[] = {&active, &fn, &r,   &out, &d.cap, &rem, &vol_total, (void *)&per,
		                &hs,     &hp, &est, &err, &ap,    &vp,  &up,        &sp};
		GPU_TRY(cudaLaunchKernel((const void *)job->user->kernel[CUB_UK_PHASE2],
		                         dim3(p2_blocks), dim3(128), args, 0, 0));
	} else {
		cub_phase2_kernel<T><<<p2_blocks, 128>>>(
		    active, job->fn, dr, out, d.cap, rem, vol_total, per, (int)hsz, heap.ptr,
		    d.parent.ptr, d.ret_err.ptr, axis.ptr, vol.ptr, used.ptr, stop.ptr);
	}
	GPU_TRY(cudaGetLastError());
	if (region_sum(d, d.parent.ptr, active, 0, e) || region_sum(d, d.ret_err.ptr, active, 1, e))
		return -1;
	size_t bytes = d.tmp_bytes;
	GPU_TRY(cub::DeviceReduce::Sum(d.tmp.ptr, bytes, used.ptr, spent_d.ptr, (int)active));
	bytes = d.tmp_bytes;
	GPU_TRY(cub::DeviceReduce::Max(d.tmp.ptr, bytes, stop.ptr, d.pos.ptr, (int)active));
	double sums[2];
	long long spent = 0;
	GPU_TRY(cudaMemcpy(sums, d.sums.ptr, sizeof sums, cudaMemcpyDeviceToHost));
	GPU_TRY(cudaMemcpy(&spent, spent_d.ptr, sizeof spent, cudaMemcpyDeviceToHost));
	GPU_TRY(cudaMemcpy(why, d.pos.ptr, sizeof *why, cudaMemcpyDeviceToHost));
	res->evals += spent;
	qx_progress_add(spent);
	*p2_est = sums[0];
	*p2_err = sums[1];
	const double mem = (double)active * hsz * per_region;
	res->peak_bytes =
	    std::max(res->peak_bytes, mem + (double)d.cap * cub_gpu_region_bytes(dim, job->prec));
	return 0;
}

/* The twophase run (see the file's comment). Per iteration of phase 1 the host waits once, for
 * one copy of the tally; the phases are timed with events. */
template <typename T>
static int cub_run_twophase(const struct cub_gpu_job *job, struct cub_result *res,
                            struct qx_timing *t, struct qx_err *e)
{
	const struct cub_rule *rule = job->rule;
	const int dim = rule->dim, k = job->d;
	/* half the budget stays for phase 2's heaps */
	const size_t list_budget = job->budget / 2;
	const long long budget_cap =
	    (long long)(list_budget / cub_gpu_region_bytes(dim, job->prec)) / 2 * 2;
	/* phase 1's lists never hold more than lmax regions, nor more than maxeval lets one
	 * iteration evaluate: allocating the whole budget instead cost about 0.1 s of cudaMalloc
	 * and cudaFree per run */
	const long long need = std::min<long long>(job->maxeval / rule->npts, job->lmax) + 2 * k;
	const long long cap = std::min(budget_cap, need / 2 * 2 + 2);
	const double total_vol = pow(job->b - job->a, dim);
	double t0 = qx_now_ms();
	const double t_start = t0;
	cub_dev<T> d;
	*res = (struct cub_result){};
	res->reason = CUB_CONVERGED;
	if (budget_cap < 2 * k || cap > 2000000000LL)
		return qx_fail(e, "budget %.3g MiB: expected room for %d..2e9 regions of %zu bytes",
		               job->budget / 1048576.0, 2 * k,
		               cub_gpu_region_bytes(dim, job->prec));
	cudaEvent_t *ev = gpu_events(EV_COUNT, e);
	int sms = 0;
	if (!ev || cub_alloc<T>(job, cap, d, e))
		return -1;
	GPU_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	const cub_rule &dr = d.dr;
	/* the initial regions: l^dim, l the largest with l^dim at most lmax / d^2, so that
	 * phase 1 refines at least twice before it reaches lmax */
	int l = 1;
	while (pow(l + 1, dim) * k * k <= job->lmax && pow(l + 1, dim) <= cap)
		l++;
	long long n = (long long)pow(l, dim);
	int cur = 0, split_pending = 0;
	cub_list<T> g = {d.c[0].ptr, d.h[0].ptr};
	cub_init_kernel<T><<<(unsigned)((n + ELEM_BLOCK - 1) / ELEM_BLOCK), ELEM_BLOCK>>>(
	    n, dim, l, job->a, job->b, g, cap);
	GPU_TRY(cudaGetLastError());
	GPU_TRY(cudaDeviceSynchronize());
	qx_timing_add(t, "alloc", qx_now_ms() - t0, 0);
	double fin_est = 0, fin_err = 0, live_est = 0, live_err = 0, tol = 0;
	double tally[6] = {0};
	long long nparents = 0, active = 0;
	for (;;) {
		if (qx_cancelled())
			return qx_fail(e, "run cancelled");
		const unsigned eb = (unsigned)((n + ELEM_BLOCK - 1) / ELEM_BLOCK);
		g = {d.c[cur].ptr, d.h[cur].ptr};
		GPU_TRY(cudaEventRecord(ev[EV_START]));
		GPU_TRY(
		    cub_rule_launch<T>(job, dr, g, cap, n, d.est.ptr, d.err.ptr, d.axis.ptr, sms));
		GPU_TRY(cudaEventRecord(ev[EV_RULES]));
		/* the children's check counts as classification, as in breadth */
		if (nparents)
			cub_children_kernel<<<(unsigned)((nparents + ELEM_BLOCK - 1) / ELEM_BLOCK),
			                      ELEM_BLOCK>>>(nparents, k, d.parent.ptr, d.est.ptr,
			                                    d.err.ptr);
		GPU_TRY(cudaGetLastError());
		res->evals += n * rule->npts;
		res->regions += n;
		res->iterations++;
		qx_progress_add(n * rule->npts);
		if (region_sum(d, d.est.ptr, n, 0, e) || region_sum(d, d.err.ptr, n, 1, e))
			return -1;
		cub_tol_kernel<<<1, 1>>>(d.sums.ptr, fin_est, job->rel, job->abs, d.sums.ptr + 4);
		GPU_TRY(cudaGetLastError());
		cub_classify_kernel<T><<<eb, ELEM_BLOCK>>>(
		    n, dim, g, cap, d.est.ptr, d.err.ptr, d.sums.ptr + 4, 0.5, total_vol, job->rel,
		    job->abs, d.flag.ptr, d.ret_est.ptr, d.ret_err.ptr);
		GPU_TRY(cudaGetLastError());
		size_t bytes = d.tmp_bytes;
		GPU_TRY(
		    cub::DeviceScan::ExclusiveSum(d.tmp.ptr, bytes, d.flag.ptr, d.pos.ptr, (int)n));
		if (region_sum(d, d.ret_est.ptr, n, 2, e) || region_sum(d, d.ret_err.ptr, n, 3, e))
			return -1;
		cub_tally_kernel<<<1, 1>>>(n, d.sums.ptr, d.pos.ptr, d.flag.ptr, d.tally.ptr);
		GPU_TRY(cudaGetLastError());
		if (cub_tally_copy(d.tally.ptr, tally, 6, ev, split_pending, t, e))
			return -1;
		split_pending = 0;
		live_est = tally[0];
		live_err = tally[1];
		tol = tally[4];
		active = (long long)tally[5];
		cub_history_add(job, res, fin_est + live_est, fin_err + live_err, n);
		if (fin_err + live_err <= tol || active == 0)
			break; /* converged, or every region retired: the sums are final */
		if (active * k > std::min((long long)job->lmax, cap))
			break; /* phase 2 takes the active regions */
		if (res->evals + active * k * rule->npts > job->maxeval) {
			res->reason = CUB_MAXEVAL;
			break;
		}
		if (active * k > cap) {
			res->reason = CUB_BUDGET;
			break;
		}
		fin_est += tally[2];
		fin_err += tally[3];
		cub_list<T> out = {d.c[1 - cur].ptr, d.h[1 - cur].ptr};
		GPU_TRY(cudaEventRecord(ev[EV_SPLIT0]));
		cub_split_kernel<T><<<eb, ELEM_BLOCK>>>(n, dim, k, g, cap, d.flag.ptr, d.pos.ptr,
		                                        d.axis.ptr, d.est.ptr, out, cap,
		                                        d.parent.ptr);
		GPU_TRY(cudaGetLastError());
		GPU_TRY(cudaEventRecord(ev[EV_SPLIT1]));
		split_pending = 1;
		nparents = active;
		n = active * k;
		cur = 1 - cur;
		const double mem = (double)n * cub_gpu_region_bytes(dim, job->prec);
		res->peak_bytes = mem > res->peak_bytes ? mem : res->peak_bytes;
	}
	res->live = n;
	if (res->reason == CUB_CONVERGED && active > 0 && fin_err + live_err > tol) {
		/* phase 2: the retired regions' sums are final; the active ones go on */
		double p2_est = 0, p2_err = 0;
		int why = 0;
		t0 = qx_now_ms();
		fin_est += tally[2];
		fin_err += tally[3];
		if (cub_phase2(job, d, dr, cur, n, active, std::max(tol - fin_err, 0.0), res,
		               &p2_est, &p2_err, &why, e))
			return -1;
		live_est = p2_est;
		live_err = p2_err;
		res->live = active;
		if (fin_err + live_err > tol)
			res->reason = why == 2 ? CUB_BUDGET : CUB_MAXEVAL;
		qx_timing_add(t, "phase2", qx_now_ms() - t0, 0);
	}
	res->value = fin_est + live_est;
	res->err = fin_err + live_err;
	if (res->reason == CUB_CONVERGED &&
	    !(res->err <= fmax(job->abs, job->rel * fabs(res->value))))
		res->reason = CUB_MAXEVAL;
	t->total = qx_now_ms() - t_start;
	return 0;
}

/* ---- breadth ---- */

/* One block of HIST_BUCKETS threads, from the sums tot and the error histogram hist: the
 * tolerance max(abs, rel |fin_est + tot->est|) into *tolp, and the split threshold *theta, the
 * upper edge of the highest bucket K < HIST_BUCKETS whose buckets 0..K sum to at most
 * BREADTH_KEEP (tolerance - fin_err), so that the leaves at or under it keep that share of
 * what the tolerance leaves and the largest error always splits; -1 (split all) when bucket 0
 * alone is over it. Zeroes hist for the next iteration. (cub_ahead_classify_kernel finds the
 * same threshold by bisection.) */
__global__ void __launch_bounds__(256)
    cub_theta_kernel(double *hist, const cub_tot *tot, double fin_est, double fin_err, double rel,
                     double abs_tol, double *tolp, double *theta)
{
	typedef cub::BlockScan<double, 256> scan_t;
	__shared__ typename scan_t::TempStorage tmp;
	const double tol = fmax(abs_tol, rel * fabs(fin_est + tot->est));
	const double budget = BREADTH_KEEP * (tol - fin_err), h0 = hist[0];
	double cum;
	scan_t(tmp).InclusiveSum(hist[1 + threadIdx.x], cum);
	cum += h0;
	const int k = __syncthreads_count(cum <= budget && threadIdx.x < HIST_BUCKETS - 1);
	hist[1 + threadIdx.x] = 0;
	if (threadIdx.x == 0) {
		hist[0] = 0;
		*tolp = tol;
		if (k > 0)
			*theta = tot->max * exp2(-(HIST_BUCKETS - k) / 4.0);
		else
			*theta = h0 <= budget ? tot->max * 0x1p-64 : -1;
	}
}

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
static int cub_breadth_ahead(const struct cub_gpu_job *job, const cub_rule &dr, cub_buf<T> *buf,
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

/* breadth: the leaves of the partition stay in one list with their results. Each iteration
 * evaluates the rule on the new leaves (children, checked against their parents), sums
 * estimates and errors, and splits every leaf whose error is over a threshold chosen from a
 * histogram of the errors so that the unsplit leaves' errors take at most BREADTH_KEEP of the
 * tolerance the retired ones leave (the largest always splits): the device-wide form of the
 * sequential queue's "split the worst". Unsplit leaves are kept, not evaluated again; they
 * retire (their sums final) only when the list would outgrow the budget. The first
 * partition (cub_breadth_pieces) splits whole, so a run converges, when the summed errors
 * meet the tolerance, only once every leaf's estimate has been checked against its parent's.
 * The lists grow as needed, 8x at a time. While the list is small the iterations run ahead
 * of the host (cub_breadth_ahead); after that the host waits once per iteration, for one
 * copy of the tally. */
template <typename T>
static int cub_run_breadth(const struct cub_gpu_job *job, struct cub_result *res,
                           struct qx_timing *t, struct qx_err *e)
{
	const struct cub_rule *rule = job->rule;
	const int dim = rule->dim;
	/* CUB's int counts bound a list */
	const long long budget_cap = std::min<long long>(
	    (long long)(job->budget / cub_gpu_region_bytes(dim, job->prec)), 1LL << 30);
	const double t_start = qx_now_ms();
	cub_buf<T> buf[2];
	gpu_owned<double> parent, rule_d; /* parents' estimates past acap; points and weights */
	gpu_owned<unsigned char> small;   /* sums, tally, histogram; running ahead's */
	cub_work wk;                      /* scratch, pos and CUB's storage for wcap leaves */
	double *scratch = nullptr;
	int *pos = nullptr;
	void *tmp = nullptr;
	size_t tmp_bytes = 0;
	long long wcap = 0, pcap = 0; /* capacity of work; of parent */
	int sms = 0;
	*res = (struct cub_result){};
	res->reason = CUB_CONVERGED;
	if (budget_cap < 4)
		return qx_fail(e, "budget %.3g MiB: expected room for 4 regions of %zu bytes",
		               job->budget / 1048576.0, cub_gpu_region_bytes(dim, job->prec));
	const int l = cub_breadth_pieces(job, budget_cap, e);
	if (l < 0)
		return -1;
	cudaEvent_t *ev = gpu_events(std::max<int>(EV_COUNT, 3 * AHEAD_BATCH + 2), e);
	if (!ev)
		return -1;
	GPU_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	/* small, one allocation: sums, tally and histogram; the state of running ahead; the
	 * parents' estimates and the positions of acap leaves (the lists' room while small) */
	const long long acap = std::min(std::min(budget_cap, BREADTH_FIRST_CAP), AHEAD_CAP);
	const size_t ahead_at = (16 + HIST_BUCKETS + 1 + 31) / 32 * 32 * sizeof(double),
	             parent_at = ahead_at + (sizeof(cub_ahead) + 255) / 256 * 256,
	             pos_at = parent_at + acap * sizeof(double);
	GPU_TRY(cudaMalloc(&small.ptr, pos_at + acap * sizeof(int)));
	double *sums = (double *)small.ptr, *tally = sums + 8, *hist = sums + 16;
	double *parent_p = (double *)(small.ptr + parent_at);
	pcap = acap;
	GPU_TRY(cudaMemset(hist, 0, (HIST_BUCKETS + 1) * sizeof(double)));
	cub_rule dr;
	if (cub_rule_upload(rule, rule_d, dr, e))
		return -1;
	long long n = (long long)pow(l, dim);
	if (cub_buf_reserve(buf[0], dim, std::min(budget_cap, std::max(BREADTH_FIRST_CAP, n)), e) ||
	    cub_buf_reserve(buf[1], dim, buf[0].cap, e))
		return -1;
	cub_list<T> g = {buf[0].c, buf[0].h};
	cub_init_kernel<T><<<(unsigned)((n + ELEM_BLOCK - 1) / ELEM_BLOCK), ELEM_BLOCK>>>(
	    n, dim, l, job->a, job->b, g, buf[0].cap);
	GPU_TRY(cudaGetLastError());
	GPU_TRY(cudaDeviceSynchronize());
	qx_timing_add(t, "alloc", qx_now_ms() - t_start, 0);
	cub_tot *tot = (cub_tot *)sums;
	double *tol_d = sums + 3, *theta_d = sums + 4;
	double fin_est = 0, fin_err = 0, live_est = 0, live_err = 0, tally_h[5] = {0};
	/* the first iterations run ahead of the host while the list is small, if the first
	 * split fits there; the host goes on from where they hand over */
	cub_ahead ahead = {};
	ahead.n = n;
	ahead.stop = AHEAD_HOST;
	if (2 * n <= acap && 3.0 * n * rule->npts <= job->maxeval &&
	    cub_breadth_ahead<T>(job, dr, buf, n, acap, parent_p, (int *)(small.ptr + pos_at),
	                         (cub_ahead *)(small.ptr + ahead_at), sms, ev, res, t, &ahead, e))
		return -1;
	if (ahead.stop == AHEAD_DONE)
		res->reason = ahead.reason;
	n = ahead.n;
	long long fresh = ahead.fresh, nparents = ahead.nparents;
	live_est = ahead.est;
	live_err = ahead.err;
	int cur = (int)(cub_ahead_splits(&ahead) % 2), split_pending = 0;
	while (ahead.stop == AHEAD_HOST) {
		if (qx_cancelled())
			return qx_fail(e, "run cancelled");
		cub_buf<T> &in = buf[cur];
		g = {in.c, in.h};
		const cub_split_of split = {in.err, theta_d, res->iterations == 0};
		auto tot_in = thrust::make_transform_iterator(thrust::make_counting_iterator(0LL),
		                                              cub_tot_of{in.est, in.err});
		auto split_in =
		    thrust::make_transform_iterator(thrust::make_counting_iterator(0LL), split);
		if (wcap < in.cap) { /* the work arrays follow the largest list */
			if (cub_work_reserve(wk, in.cap, split_in, tot_in, tot, e))
				return -1;
			wcap = wk.cap;
			scratch = wk.scratch;
			pos = wk.pos;
			tmp = wk.tmp;
			tmp_bytes = wk.tmp_bytes;
		}
		const unsigned eb = (unsigned)((n + ELEM_BLOCK - 1) / ELEM_BLOCK);
		const long long nnew = n - fresh;
		GPU_TRY(cudaEventRecord(ev[EV_START]));
		cub_list<T> gf = {in.c + fresh, in.h + fresh};
		GPU_TRY(cub_rule_launch<T>(job, dr, gf, in.cap, nnew, in.est + fresh,
		                           in.err + fresh, in.axis + fresh, sms));
		GPU_TRY(cudaEventRecord(ev[EV_RULES]));
		/* the children's check counts as classification, as when running ahead */
		if (nparents)
			cub_children_kernel<<<(unsigned)((nparents + ELEM_BLOCK - 1) / ELEM_BLOCK),
			                      ELEM_BLOCK>>>(nparents, 2, parent_p, in.est + fresh,
			                                    in.err + fresh);
		GPU_TRY(cudaGetLastError());
		res->evals += nnew * rule->npts;
		res->regions += nnew;
		res->iterations++;
		qx_progress_add(nnew * rule->npts);
		size_t bytes = tmp_bytes;
		GPU_TRY(cub::DeviceReduce::Reduce(tmp, bytes, tot_in, tot, (int)n, cub_tot_add{},
		                                  cub_tot{0, 0, 0}));
		cub_hist_kernel<<<std::min(eb, 1024u), ELEM_BLOCK>>>(n, in.err, tot, hist);
		cub_theta_kernel<<<1, HIST_BUCKETS>>>(hist, tot, fin_est, fin_err, job->rel,
		                                      job->abs, tol_d, theta_d);
		GPU_TRY(cudaGetLastError());
		bytes = tmp_bytes;
		GPU_TRY(cub::DeviceScan::ExclusiveSum(tmp, bytes, split_in, pos, (int)n));
		cub_breadth_tally_kernel<<<1, 1>>>(n, tot, tol_d, pos, split, tally);
		GPU_TRY(cudaGetLastError());
		if (cub_tally_copy(tally, tally_h, 5, ev, split_pending, t, e))
			return -1;
		split_pending = 0;
		live_est = tally_h[0];
		live_err = tally_h[1];
		const double tol = tally_h[2];
		const long long nsplit = (long long)tally_h[3];
		cub_history_add(job, res, fin_est + live_est, fin_err + live_err, n);
		if (fin_err + live_err <= tol && res->iterations > 1)
			break;
		if (nsplit == 0) {
			res->reason = CUB_NO_PROGRESS;
			break;
		}
		if (res->evals + 2 * nsplit * rule->npts > job->maxeval) {
			res->reason = CUB_MAXEVAL;
			break;
		}
		int keep = 1;
		if (n + nsplit > budget_cap) {
			if (2 * nsplit > budget_cap) {
				res->reason = CUB_BUDGET;
				break;
			}
			/* the list would outgrow the budget: the unsplit leaves retire */
			double ret[2];
			keep = 0;
			for (int k = 0; k < 2; k++) {
				cub_unsplit_kernel<<<eb, ELEM_BLOCK>>>(n, k ? in.err : in.est,
				                                       split, scratch);
				GPU_TRY(cudaGetLastError());
				bytes = tmp_bytes;
				GPU_TRY(
				    cub::DeviceReduce::Sum(tmp, bytes, scratch, tally + k, (int)n));
			}
			GPU_TRY(cudaMemcpy(ret, tally, sizeof ret, cudaMemcpyDeviceToHost));
			fin_est += ret[0];
			fin_err += ret[1];
		}
		const long long nkeep = keep ? n - nsplit : 0, next = nkeep + 2 * nsplit;
		cub_buf<T> &out = buf[1 - cur];
		if (next > out.cap &&
		    cub_buf_reserve(out, dim, std::min(budget_cap, std::max(next, 8 * in.cap)), e))
			return -1;
		/* parent's entries of this iteration were read by the children's check */
		if (pcap < nsplit) {
			pcap = in.cap;
			if (cub_realloc(parent, pcap, e))
				return -1;
			parent_p = parent.ptr;
		}
		GPU_TRY(cudaEventRecord(ev[EV_SPLIT0]));
		GPU_TRY(cub_next_launch<T>(n, dim, g, in.cap, in.est, in.err, in.axis, split, pos,
		                           keep, nkeep, cub_list<T>{out.c, out.h}, out.cap, out.est,
		                           out.err, out.axis, parent_p));
		GPU_TRY(cudaEventRecord(ev[EV_SPLIT1]));
		split_pending = 1;
		nparents = nsplit;
		fresh = nkeep;
		n = next;
		cur = 1 - cur;
	}
	/* the region arrays only grow: the two lists, work (scratch and positions), the parents'
	 * estimates, and running ahead's positions and parents (these counted in pcap until
	 * parent took over) */
	res->peak_bytes = (double)(buf[0].cap + buf[1].cap) * (2 * dim * sizeof(T) + 20) +
	                  (double)(wcap + wcap / 2 + pcap) * sizeof(double) +
	                  (double)acap * (sizeof(int) + (parent.ptr ? sizeof(double) : 0));
	res->live = n;
	res->value = fin_est + live_est;
	res->err = fin_err + live_err;
	if (res->reason == CUB_CONVERGED &&
	    !(res->err <= fmax(job->abs, job->rel * fabs(res->value))))
		res->reason = CUB_NO_PROGRESS;
	t->total = qx_now_ms() - t_start;
	return 0;
}

/* Runs the job in its precision. */
extern "C" int cub_gpu_run(const struct cub_gpu_job *job, struct cub_result *res,
                           struct qx_timing *t, struct qx_err *e)
{
	if (job->algo == CUB_GPU_BREADTH)
		return job->prec == QX_DOUBLE ? cub_run_breadth<double>(job, res, t, e)
		                              : cub_run_breadth<float>(job, res, t, e);
	return job->prec == QX_DOUBLE ? cub_run_twophase<double>(job, res, t, e)
	                              : cub_run_twophase<float>(job, res, t, e);
}

/* The rule alone on nregions regions (the first nregions of a uniform grid), the median of
 * reps launches after a warm-up, timed with events. */
template <typename T>
static int cub_floor(const struct cub_gpu_job *job, long long nregions, int reps, double *ms,
                     struct qx_err *e)
{
	const int dim = job->rule->dim;
	cub_dev<T> d;
	if (cub_alloc<T>(job, nregions, d, e))
		return -1;
	const cub_rule &dr = d.dr;
	int l = 1;
	while (pow(l + 1, dim) <= nregions)
		l++;
	cub_list<T> g = {d.c[0].ptr, d.h[0].ptr};
	int sms = 0;
	cub_init_kernel<T><<<(unsigned)((nregions + ELEM_BLOCK - 1) / ELEM_BLOCK), ELEM_BLOCK>>>(
	    nregions, dim, l, job->a, job->b, g, nregions);
	GPU_TRY(cudaGetLastError());
	GPU_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	cudaEvent_t *ev = gpu_events(2, e);
	if (!ev)
		return -1;
	double times[64];
	reps = reps < 64 ? reps : 64;
	for (int i = -1; i < reps; i++) {
		GPU_TRY(cudaEventRecord(ev[0]));
		GPU_TRY(cub_rule_launch<T>(job, dr, g, nregions, nregions, d.est.ptr, d.err.ptr,
		                           d.axis.ptr, sms));
		GPU_TRY(cudaEventRecord(ev[1]));
		GPU_TRY(cudaEventSynchronize(ev[1]));
		if (i >= 0)
			times[i] = gpu_elapsed(ev[0], ev[1]);
	}
	std::sort(times, times + reps);
	*ms = times[reps / 2];
	return 0;
}

/* The rule-only floor in the job's precision. */
extern "C" int cub_gpu_rule_floor(const struct cub_gpu_job *job, long long nregions, int reps,
                                  double *ms, struct qx_err *e)
{
	if (nregions < 1 || reps < 1)
		return qx_fail(e, "rule floor: expected nregions >= 1 and reps >= 1");
	if (job->prec == QX_DOUBLE)
		return cub_floor<double>(job, nregions, reps, ms, e);
	return cub_floor<float>(job, nregions, reps, ms, e);
}
