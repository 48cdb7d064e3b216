/* cubature_batch_cpu.c - the CPU's batch of problem cubature (cubature_batch.h): every
 * integral of the batch by the variant's own CPU algorithm on one thread, the integrals spread
 * over the job's threads. */
#include "cubature_batch.h"

#include <stdatomic.h>
#include <stdio.h>

#include "cubature_output.h"

/* Integrates every integral of b with run (one thread each, job->threads of them at once, the
 * next integral to the first thread free), each into out's arrays at its index; the progress
 * counts finished integrals and those that converged. A failed integral stops the others from
 * starting; the first failure is the run's error. Returns 0 or -1 with e. */
int cub_cpu_batch(const struct cub_job *job, const struct cub_batch *b,
                  int (*run)(const struct cub_job *job, struct cub_result *res, struct qx_err *e),
                  struct cub_batch_result *out, struct qx_err *e)
{
	const int threads = job->threads > 1 ? job->threads : 1;
	struct cub_job one = *job;
	atomic_int failed = 0;
	long long failed_at = -1;
	struct qx_err first = {0};
	long long evals = 0, iterations = 0, regions = 0, peak_regions = 0;
	double peak = 0;
	int mc = 0; /* every integral's run is the same variant's: its mc, or 0 */
	one.threads = 1;
	one.in_batch = 1;
	one.budget = job->budget / (size_t)threads; /* the threads' lists share the budget */
	cub_progress_begin(b->n);
	qx_progress_items("integrals");
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)                               \
    reduction(+ : evals, iterations, regions) reduction(max : peak, peak_regions, mc)
	for (long long i = 0; i < b->n; i++) {
		struct cub_job ji;
		struct cub_result res;
		struct qx_err ei;
		if (atomic_load_explicit(&failed, memory_order_relaxed) || qx_cancelled())
			continue;
		ji = one;
		cub_batch_params(b, b->list, i, ji.fn.user);
		if (run(&ji, &res, &ei)) {
#pragma omp critical(cub_batch_failure)
			if (failed_at < 0 || i < failed_at) {
				failed_at = i;
				first = ei;
			}
			atomic_store(&failed, 1);
			continue;
		}
		out->value[i] = res.value;
		out->err[i] = res.err;
		out->reason[i] = res.reason;
		out->evals[i] = res.evals;
		mc = res.mc > mc ? res.mc : mc;
		if (out->live)
			out->live[i] = res.live;
		evals += res.evals;
		iterations += res.iterations;
		regions += res.regions;
		peak = res.peak_bytes > peak ? res.peak_bytes : peak;
		peak_regions = res.live > peak_regions ? res.live : peak_regions;
		qx_progress_converged(res.reason == CUB_CONVERGED);
		qx_progress_add(1);
	}
	if (qx_cancelled())
		return qx_fail(e, "run cancelled");
	if (failed_at >= 0)
		return qx_fail(e, "integral %lld of the batch: %s", failed_at, first.msg);
	out->total_evals = evals;
	out->iterations = iterations;
	out->regions = regions;
	out->peak_regions = peak_regions;
	out->peak_bytes = peak;
	out->mc = mc;
	return 0;
}
