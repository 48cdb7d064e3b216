/* twophase.cu - cubature's twophase variant on the GPU: the algorithm of the two-phase adaptive
 * cubature study (the study), phase 1 a loop with the study's classification and d-way splits
 * from l^dim regions (the host waits once an iteration), phase 2 one thread per region with a
 * bounded heap. Sums are CUB reductions and positions CUB scans. */
#include <algorithm>
#include <vector>

#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "../../src/problems/cubature/cubature_gpu.h"
#include "../gpu_util.cuh"
#include "common.cuh"
#include "rule_kernel.cuh"

/* Classifies each region of twophase's phase 1: active (to split) or retired. Retired when its
 * error fits its volume's share `share` of the tolerance *tol (so the retired errors sum to at
 * most share * tol) and passes the study's test err < max(abs, rel |est|) (the study's test
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

/* Phase 2 of twophase on the active regions of the n in the current list (flag, pos from the
 * last classification): compacts them with their estimates, then one thread each until each
 * meets its share of the remaining tolerance rem; adds the evaluations to res and returns
 * their summed estimate and error in *p2_est, *p2_err and why the worst stopped in *why. */
template <typename T>
static int cub_phase2(const struct cub_job *job, cub_dev<T> &d, const cub_rule &dr, int cur,
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
		cub_p2_batch one = {};
		void *args[] = {&active,    &fn,          &r,  &out, &d.cap, &rem,
		                &vol_total, (void *)&per, &hs, &hp,  &est,   &err,
		                &ap,        &vp,          &up, &sp,  &one};
		GPU_TRY(cudaLaunchKernel((const void *)job->user->kernel[CUB_UK_PHASE2],
		                         dim3(p2_blocks), dim3(128), args, 0, 0));
	} else {
		cub_phase2_kernel<T>
		    <<<p2_blocks, 128>>>(active, job->fn, dr, out, d.cap, rem, vol_total, per,
		                         (int)hsz, heap.ptr, d.parent.ptr, d.ret_err.ptr, axis.ptr,
		                         vol.ptr, used.ptr, stop.ptr, cub_p2_batch{});
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
static int cub_run_twophase(const struct cub_job *job, struct cub_result *res, struct qx_timing *t,
                            struct qx_err *e)
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

/* twophase in the job's precision (cubature_gpu.h). */
extern "C" int cub_gpu_twophase_run(const struct cub_job *job, struct cub_result *res,
                                    struct qx_timing *t, struct qx_err *e)
{
	return job->prec == QX_DOUBLE ? cub_run_twophase<double>(job, res, t, e)
	                              : cub_run_twophase<float>(job, res, t, e);
}
