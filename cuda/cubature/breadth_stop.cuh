/* breadth_stop.cuh - breadth's decisions, written once for the run on one GPU (breadth.cu) and
 * the run over several (breadth_multi.cu), so that both take the same steps in the same order
 * and stop at the same iteration for the same reason: the bound the budget puts on the leaves,
 * an iteration's counts and progress, whether it stops (converged, nothing splits, maxeval,
 * budget) or splits, keeping or retiring the leaves that do not split, and the result. Host
 * code only; the iterations breadth runs ahead of the host (ahead.cuh) decide on the device. */
#ifndef QX_CUBATURE_BREADTH_STOP_CUH
#define QX_CUBATURE_BREADTH_STOP_CUH

#include <algorithm>

#include "../../src/problems/cubature/cubature_gpu.h"
#include "common.cuh"

/* Starts res (cleared; converged until an iteration says otherwise) and returns the most leaves
 * breadth's lists may hold: what job->budget has room for, at most 2^30 (CUB's int counts bound
 * a list); -1 with e filled when that is fewer than 4. */
static inline long long cub_breadth_start(const struct cub_job *job, struct cub_result *res,
                                          struct qx_err *e)
{
	const int dim = job->rule->dim;
	const long long budget_cap = std::min<long long>(
	    (long long)(job->budget / cub_gpu_region_bytes(dim, job->prec)), 1LL << 30);
	*res = (struct cub_result){};
	res->reason = CUB_CONVERGED;
	if (budget_cap < 4)
		return qx_fail(e, "budget %.3g MiB: expected room for 4 regions of %zu bytes",
		               job->budget / 1048576.0, cub_gpu_region_bytes(dim, job->prec));
	return budget_cap;
}

/* Counts an iteration that evaluates nnew new leaves into res and into the run's progress. */
static inline void cub_breadth_count(const struct cub_job *job, struct cub_result *res,
                                     long long nnew)
{
	res->evals += nnew * job->rule->npts;
	res->regions += nnew;
	res->iterations++;
	qx_progress_add(nnew * job->rule->npts);
}

/* What breadth does after an iteration: stop (res->reason says why), split the leaves over the
 * threshold keeping the others, or split them and retire the others. */
enum cub_breadth_step { CUB_BREADTH_STOP, CUB_BREADTH_SPLIT, CUB_BREADTH_RETIRE };

/* Records an iteration's tally in res's history and the progress (est, err: the integral's
 * estimate and error estimate, the retired leaves' included; n leaves, nsplit of them over the
 * threshold) and decides, in this order: stop converged where err meets tol after the first
 * iteration (every estimate then checked against its parent's); stop with no progress where
 * nothing splits; stop at maxeval where the split's children would pass it; where the lists
 * would outgrow budget_cap, stop at the budget if the children alone would, else retire the
 * leaves that do not split; else split and keep them. */
static inline enum cub_breadth_step cub_breadth_decide(const struct cub_job *job,
                                                       struct cub_result *res, double est,
                                                       double err, double tol, long long n,
                                                       long long nsplit, long long budget_cap)
{
	cub_history_add(job, res, est, err, n);
	if (err <= tol && res->iterations > 1)
		return CUB_BREADTH_STOP;
	if (nsplit == 0) {
		res->reason = CUB_NO_PROGRESS;
		return CUB_BREADTH_STOP;
	}
	if (res->evals + 2 * nsplit * job->rule->npts > job->maxeval) {
		res->reason = CUB_MAXEVAL;
		return CUB_BREADTH_STOP;
	}
	if (n + nsplit > budget_cap) {
		if (2 * nsplit > budget_cap) {
			res->reason = CUB_BUDGET;
			return CUB_BREADTH_STOP;
		}
		return CUB_BREADTH_RETIRE;
	}
	return CUB_BREADTH_SPLIT;
}

/* Ends the run in res: its value est and error estimate err (the retired leaves' and the live
 * ones' sums) and its live leaves; a run that stopped converged (nothing splits is no progress
 * already) but whose error does not meet its tolerance made no progress. */
static inline void cub_breadth_finish(const struct cub_job *job, struct cub_result *res, double est,
                                      double err, long long live)
{
	res->live = live;
	res->value = est;
	res->err = err;
	if (res->reason == CUB_CONVERGED &&
	    !(res->err <= fmax(job->abs, job->rel * fabs(res->value))))
		res->reason = CUB_NO_PROGRESS;
}

#endif
