/* cubature_cpu.c - problem cubature's adaptive queue on the CPU (cubature_cpu.h): the regions
 * in a max-heap by error, the worst split in two along its axis of largest fourth difference;
 * with threads > 1 batches of the worst regions split at once, their children evaluated in
 * parallel (OpenMP). Every estimate is checked against its parent's as DCUHRE does. */
#include "cubature_cpu.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "cubature_math_all.h"
#include "cubature_rules.h"

/* Applies the rule to region g (cubature_cpu.h): its samples' sums, then its error and axis
 * from the shared rule code (cubature_rules.h). */
void cub_region_apply(const struct cub_rule *r, const struct cub_fn *fn, struct cub_region *g)
{
	const int n = r->dim;
	double sums[CUB_MAX_SUMS] = {0}, axis_f[1 + CUB_MAX_AXIS * CUB_MAX_DIM], x[CUB_MAX_DIM];
	double vol = 1;
	int nonfinite = 0;
	for (int p = 0; p < r->npts; p++) {
		const double *u = r->pts + (size_t)p * n;
		for (int i = 0; i < n; i++)
			x[i] = g->c[i] + g->h[i] * u[i];
		const double f = cub_sample(cub_f_d(fn, x), &nonfinite);
		if (p <= r->naxis * n)
			axis_f[p] = f;
		for (int k = 0; k < r->nsums; k++)
			sums[k] += r->w[(size_t)k * r->npts + p] * f;
	}
	for (int i = 0; i < n; i++)
		vol *= g->h[i];
	g->est = sums[0] * vol;
	g->err = cub_region_error(r, sums, axis_f, g->h, vol, nonfinite, &g->axis);
	g->nonfinite = nonfinite;
}

/* Max-heap on err: moves element k up. */
static void cub_heap_up(struct cub_region *h, size_t k)
{
	while (k > 0) {
		const size_t parent = (k - 1) / 2;
		if (h[parent].err >= h[k].err)
			break;
		const struct cub_region t = h[parent];
		h[parent] = h[k];
		h[k] = t;
		k = parent;
	}
}

/* Max-heap on err: removes the top into *out. */
static void cub_heap_pop(struct cub_region *h, size_t *n, struct cub_region *out)
{
	*out = h[0];
	h[0] = h[--*n];
	for (size_t k = 0;;) {
		size_t big = k;
		const size_t l = 2 * k + 1, r = l + 1;
		if (l < *n && h[l].err > h[big].err)
			big = l;
		if (r < *n && h[r].err > h[big].err)
			big = r;
		if (big == k)
			break;
		const struct cub_region t = h[big];
		h[big] = h[k];
		h[k] = t;
		k = big;
	}
}

/* g's error in the run's sum: 0 for a region with samples that were not finite, which the run
 * counts apart (its error is CUB_ERR_NONFINITE, a sort key, not a figure to add). */
static double cub_finite_err(const struct cub_region *g)
{
	return g->nonfinite ? 0 : g->err;
}

/* Sums the estimates and the finite errors of the n regions of h into *est and *err; returns
 * how many of them have samples that were not finite. */
static long long cub_heap_sums(const struct cub_region *h, size_t n, double *est, double *err)
{
	long long bad = 0;
	*est = *err = 0;
	for (size_t k = 0; k < n; k++) {
		*est += h[k].est;
		*err += cub_finite_err(&h[k]);
		bad += h[k].nonfinite > 0;
	}
	return bad;
}

/* DCUHRE's check of two children against their parent (cubature_cpu.h): the parent's error
 * is not trusted to fall more than the children's own estimates show. */
void cub_region_check(double parent_est, struct cub_region *l, struct cub_region *r)
{
	const double est1 = fabs(parent_est - (l->est + r->est)), est2 = l->err + r->err;
	if (est2 > 0) {
		l->err *= 1 + 0.5 * est1 / est2;
		r->err *= 1 + 0.5 * est1 / est2;
	}
	l->err += 0.25 * est1;
	r->err += 0.25 * est1;
}

/* The sequential CUHRE (the queue of the two-phase adaptive cubature study's Algorithm 1): a
 * max-heap of regions by error, started as breadth starts (the box halved along every axis,
 * all of it split once, so that every estimate is checked against its parent's); each
 * iteration then splits the worst region (threads > 1: the 4*threads worst, their children
 * evaluated in parallel) in two along its axis of largest fourth difference until the total
 * error meets max(abs, rel |I|), maxeval would be passed or the list would outgrow the
 * budget. The sums are recomputed from the heap every 256 iterations and at the end. */
int cub_cpu_adaptive(const struct cub_job *job, struct cub_result *res, struct qx_err *e)
{
	const struct cub_fn fn = job->fn;
	const struct cub_rule *r = job->rule;
	const int threads = job->threads;
	const double rel = job->rel, abs_tol = job->abs;
	const long long maxeval = job->maxeval;
	const size_t cap = job->budget / sizeof(struct cub_region);
	const int batch = threads > 1 ? 4 * threads : 1;
	const size_t avail = qx_host_mem_available();
	if (job->budget_mib > 0 && avail && job->budget > avail)
		return qx_fail(e,
		               "budget %.6g MiB is more than the %.1f MiB of host memory available "
		               "(set budget 0 for a quarter of it)",
		               job->budget_mib, avail / 1048576.0);
	/* the first partition, as breadth's: the box halved along every axis unless that takes
	 * over 1e7 evaluations, or it and its split (three times as many) pass maxeval, or the
	 * split would not fit the budget; the first iteration splits all of it */
	const double halves = pow(2.0, fn.dim);
	const int pieces = halves * r->npts <= 1e7 && 3 * halves * r->npts <= (double)maxeval &&
	                           (double)cap >= 2 * halves + 2 * batch
	                       ? 2
	                       : 1;
	const size_t first = pieces == 2 ? (size_t)halves : 1;
	const size_t wide = first > (size_t)batch ? first : (size_t)batch;
	if (cap < 2 * first + 2 * (size_t)batch)
		return qx_fail(e, "budget %.3g MiB holds fewer than %zu regions of %zu bytes",
		               job->budget_mib, 2 * first + 2 * batch, sizeof(struct cub_region));
	size_t n = 0, alloc = 2 * first > 1024 ? 2 * first : 1024;
	if (alloc > cap)
		alloc = cap;
	struct cub_region *heap = malloc(alloc * sizeof *heap);
	struct cub_region *work = malloc(3 * wide * sizeof *work);
	if (!heap || !work) {
		free(heap);
		free(work);
		return qx_fail(e, "cannot allocate the region list");
	}
	*res = (struct cub_result){0};
	for (size_t k = 0; k < first; k++)
		for (int i = 0; i < fn.dim; i++) {
			const double hw = (job->hi[i] - job->lo[i]) / (2 * pieces);
			heap[k].h[i] = hw;
			heap[k].c[i] = job->lo[i] + hw * (pieces == 2 ? 1 + 2 * ((k >> i) & 1) : 1);
		}
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (first > 1)
	for (size_t k = 0; k < first; k++)
		cub_region_apply(r, &fn, &heap[k]);
	for (n = 0; n < first; n++)
		cub_heap_up(heap, n);
	res->evals = (long long)first * r->npts;
	for (size_t k = 0; k < first; k++)
		res->nonfinite += heap[k].nonfinite;
	res->regions = (long long)first;
	if (!job->in_batch) {
		cub_progress_begin(maxeval);
		qx_progress_add((long long)first * r->npts);
	}
	double est = 0, err = 0;
	long long bad = 0; /* live regions with samples that were not finite */
	res->reason = CUB_CONVERGED;
	for (long long it = 0;; it++) {
		if (it % 256 == 0)
			bad = cub_heap_sums(heap, n, &est, &err);
		/* no estimate is trusted before its region was checked against a parent */
		if (it > 0 && bad == 0 && err <= fmax(abs_tol, rel * fabs(est)))
			break;
		if (qx_cancelled()) {
			free(heap);
			free(work);
			return qx_fail(e, "run cancelled");
		}
		const int m = it == 0 ? (int)n : (size_t)batch < n ? batch : (int)n;
		if (res->evals + 2LL * m * r->npts > maxeval) {
			res->reason = CUB_MAXEVAL;
			break;
		}
		if (n + (size_t)m > cap) {
			res->reason = CUB_BUDGET;
			break;
		}
		if (n + (size_t)m > alloc) {
			const size_t grow = 2 * alloc < cap ? 2 * alloc : cap;
			struct cub_region *bigger = realloc(heap, grow * sizeof *heap);
			if (!bigger) {
				res->reason = CUB_BUDGET;
				break;
			}
			heap = bigger;
			alloc = grow;
		}
		for (int j = 0; j < m; j++) {
			struct cub_region *par = &work[2 * wide + j], *lt = &work[2 * j],
			                  *rt = &work[2 * j + 1];
			cub_heap_pop(heap, &n, par);
			*lt = *rt = *par;
			const int ax = par->axis;
			lt->h[ax] = rt->h[ax] = par->h[ax] / 2;
			lt->c[ax] = par->c[ax] - lt->h[ax];
			rt->c[ax] = par->c[ax] + rt->h[ax];
		}
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (m > 1)
		for (int j = 0; j < 2 * m; j++)
			cub_region_apply(r, &fn, &work[j]);
		for (int j = 0; j < m; j++) {
			const struct cub_region *par = &work[2 * wide + j];
			struct cub_region *lt = &work[2 * j], *rt = &work[2 * j + 1];
			cub_region_check(par->est, lt, rt);
			est += lt->est + rt->est - par->est;
			err += cub_finite_err(lt) + cub_finite_err(rt) - cub_finite_err(par);
			bad += (lt->nonfinite > 0) + (rt->nonfinite > 0) - (par->nonfinite > 0);
			res->nonfinite += lt->nonfinite + rt->nonfinite;
			for (int c = 0; c < 2; c++) {
				heap[n] = work[2 * j + c];
				cub_heap_up(heap, n++);
			}
		}
		res->evals += 2LL * m * r->npts;
		res->regions += 2 * m;
		res->iterations = it + 1;
		cub_history_record(res, it + 1, est, err, (double)n, (double)res->evals);
		if (!job->in_batch) {
			qx_progress_add(2LL * m * r->npts);
			cub_progress_error(est, err, rel, abs_tol);
		}
		if (n * sizeof *heap > res->peak_bytes)
			res->peak_bytes = (double)(n * sizeof *heap);
	}
	bad = cub_heap_sums(heap, n, &est, &err);
	res->value = est;
	res->err = bad ? INFINITY : err;
	res->live = (long long)n;
	if (res->peak_bytes < (double)(n * sizeof *heap))
		res->peak_bytes = (double)(n * sizeof *heap);
	if (bad)
		res->reason = CUB_NONFINITE;
	else if (res->reason == CUB_CONVERGED && !(err <= fmax(abs_tol, rel * fabs(est))))
		res->reason = CUB_NO_PROGRESS;
	free(heap);
	free(work);
	return 0;
}

/* The queue's first block of regions and its work array for threads threads. */
size_t cub_cpu_adaptive_host_bytes(int threads)
{
	const size_t batch = threads > 1 ? 4 * (size_t)threads : 1;
	return (1024 + 3 * batch) * sizeof(struct cub_region);
}
