/* cubature_vegas.c - problem cubature's variant vegas on the CPU (cubature_cpu.h): Lepage's
 * VEGAS, importance sampling through a grid of cub_vegas_bins bins per axis refined after every
 * iteration, the uniforms stratified into equal cubes of 2 or more samples each; warm-up iterations
 * only adapt the grid, the others are combined by their inverse-variance weighted mean, with
 * chi^2/dof of their agreement. The samples are Philox's (cubature_mc.h), summed in fixed chunks
 * over the threads (OpenMP), so a run gives the same answer whatever the threads. */
#include "cubature_cpu.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "cubature_math_all.h"
#include "cubature_mc.h"

/* Refines one axis (cubature_mc.h). */
void cub_vegas_refine(double *edges, const double *d, int nb, double alpha)
{
	double s[CUB_VEGAS_BINS], r[CUB_VEGAS_BINS], old[CUB_VEGAS_BINS + 1], sum = 0, rsum = 0;
	if (nb < 2 || nb > CUB_VEGAS_BINS)
		return;
	for (int k = 0; k < nb; k++) {
		const double lo = d[k > 0 ? k - 1 : k], hi = d[k < nb - 1 ? k + 1 : k];
		s[k] =
		    k == 0 || k == nb - 1 ? (d[k] + (k == 0 ? hi : lo)) / 2 : (lo + d[k] + hi) / 3;
		sum += s[k];
	}
	if (!(sum > 0) || !isfinite(sum))
		return;
	for (int k = 0; k < nb; k++) {
		const double f = s[k] / sum;
		const double t = (1 - f) / -log(f); /* alpha 1.5 by sqrt: pow is dear a bin */
		r[k] = f <= 0 ? 0 : f >= 1 ? 1 : alpha == 1.5 ? t * sqrt(t) : pow(t, alpha);
		rsum += r[k];
	}
	if (!(rsum > 0))
		return;
	memcpy(old, edges, (size_t)(nb + 1) * sizeof *old);
	const double share = rsum / nb;
	double acc = 0; /* importance of the old bins before k */
	int k = 0;
	for (int i = 1; i < nb; i++) {
		const double target = i * share;
		while (k < nb - 1 && acc + r[k] < target)
			acc += r[k++];
		const double frac = r[k] > 0 ? (target - acc) / r[k] : 0;
		const double x = old[k] + (frac < 1 ? frac : 1) * (old[k + 1] - old[k]);
		edges[i] = x > edges[i - 1] ? x : edges[i - 1];
	}
	edges[0] = 0;
	edges[nb] = 1;
}

/* Refines every axis (cubature_mc.h), the axes over threads once they hold many bins. */
void cub_vegas_refine_grid(double *grid, const double *d, int dim, int nb, double alpha,
                           int threads)
{
	const int n = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel for schedule(static) num_threads(n) if (dim * nb >= 2048)
	for (int a = 0; a < dim; a++)
		cub_vegas_refine(grid + (size_t)a * (nb + 1), d + (size_t)a * nb, nb, alpha);
}

/* One chunk's sums: of the weights, of its cubes' cub_vegas_cube_var, the samples not finite
 * (left out: weight 0). */
struct vegas_chunk {
	double sw, sv;
	long long nonfinite;
};

/* Cubes first..last-1 of iteration it (Philox's stream it, stratified as st) through grid of
 * nb bins an axis: their sums into *c, each sample's squared weight added into its bins,
 * d[axis * nb + bin]. */
CUB_MC_CPU_LOOP static void vegas_chunk(const struct cub_job *job, const double *grid, int nb,
                                        const struct cub_vegas_strata *st, unsigned it,
                                        long long first, long long last, double vol,
                                        struct vegas_chunk *c, double *d)
{
	const int dim = job->fn.dim;
	double u[CUB_FN_MAX_DIM], y[CUB_FN_MAX_DIM], x[CUB_FN_MAX_DIM], digits[CUB_FN_MAX_DIM];
	int bin[CUB_FN_MAX_DIM];
	double sw = 0, sv = 0; /* kept here, not in *c: the chunks' sums sit side by side */
	long long nonfinite = 0;
	for (long long cube = first; cube < last; cube++) {
		double s1 = 0, s2 = 0;
		cub_vegas_cube_digits((unsigned long long)cube, st, dim, digits);
		for (long long i = cube * st->npg; i < (cube + 1) * st->npg; i++) {
			cub_vegas_uniforms(job->seed, it, (unsigned long long)i, dim, st, digits,
			                   u);
			const double jac = cub_vegas_map(grid, dim, nb, u, y, bin);
			for (int a = 0; a < dim; a++)
				x[a] = job->lo[a] + y[a] * (job->hi[a] - job->lo[a]);
			const double w = cub_f_d(&job->fn, x) * jac * vol;
			if (!isfinite(w)) {
				nonfinite++;
				continue;
			}
			s1 += w;
			s2 += w * w;
			for (int a = 0; a < dim; a++)
				d[a * nb + bin[a]] += w * w;
		}
		sw += s1;
		sv += cub_vegas_cube_var(s1, s2, st->npg);
	}
	*c = (struct vegas_chunk){sw, sv, nonfinite};
}

/* One iteration (stream it) of st's cubes: its estimate *est and variance of the estimate
 * *var, the bins' sums in d (dim * nb, from the chunks' dd, in order). Returns the samples
 * left out as not finite. */
static long long vegas_iteration(const struct cub_job *job, const double *grid, int nb,
                                 const struct cub_vegas_strata *st, unsigned it, double vol,
                                 double *dd, double *d, double *est, double *var)
{
	const int nd = job->fn.dim * nb;
	const long long n = st->cubes, per = (n + CUB_MC_CHUNKS - 1) / CUB_MC_CHUNKS;
	struct vegas_chunk c[CUB_MC_CHUNKS];
	memset(dd, 0, (size_t)CUB_MC_CHUNKS * nd * sizeof *dd);
#pragma omp parallel for schedule(dynamic, 1) num_threads(job->threads)
	for (int k = 0; k < CUB_MC_CHUNKS; k++) {
		const long long first = k * per < n ? k * per : n;
		const long long last = first + per < n ? first + per : n;
		vegas_chunk(job, grid, nb, st, it, first, last, vol, &c[k], dd + (size_t)k * nd);
	}
	double sw = 0, sv = 0;
	long long bad = 0;
	memset(d, 0, (size_t)nd * sizeof *d);
	for (int k = 0; k < CUB_MC_CHUNKS; k++) {
		sw += c[k].sw;
		sv += c[k].sv;
		bad += c[k].nonfinite;
		for (int j = 0; j < nd; j++)
			d[j] += dd[(size_t)k * nd + j];
	}
	cub_vegas_estimate(sw, sv, st, est, var);
	return bad;
}

/* Host bytes vegas takes: the grid, the bins' sums and the chunks' (dim * nb of them at most
 * CUB_VEGAS_SHARED_BINS, one more edge an axis). */
size_t cub_cpu_vegas_host_bytes(int threads)
{
	(void)threads;
	return (size_t)(CUB_MC_CHUNKS + 2) * (CUB_VEGAS_SHARED_BINS + CUB_FN_MAX_DIM) *
	       sizeof(double);
}

/* VEGAS (cubature_cpu.h): job->adapt warm-up iterations, then iterations until the combined
 * standard error meets max(abs, rel |I|) after at least job->iters of them, or the next would
 * pass maxeval; the grid refined after each. */
int cub_cpu_vegas(const struct cub_job *job, struct cub_result *res, struct qx_err *e)
{
	const int dim = job->fn.dim, nb = cub_vegas_bins(dim, job->calls), nd = dim * nb;
	const struct cub_vegas_strata st = cub_vegas_strata_of(job->calls, dim);
	const long long calls = st.cubes * st.npg; /* the samples an iteration draws */
	double *grid = malloc((size_t)dim * (nb + 1) * sizeof *grid);
	double *d = malloc((size_t)nd * sizeof *d);
	double *dd = malloc((size_t)CUB_MC_CHUNKS * nd * sizeof *dd);
	if (!grid || !d || !dd) {
		free(grid);
		free(d);
		free(dd);
		return qx_fail(e, "cannot allocate vegas's grid");
	}
	double vol = 1;
	for (int a = 0; a < dim; a++) {
		vol *= job->hi[a] - job->lo[a];
		for (int k = 0; k <= nb; k++)
			grid[a * (nb + 1) + k] = (double)k / nb;
	}
	*res = (struct cub_result){.mc = 1, .chi2_dof = NAN, .reason = CUB_MAXEVAL, .live = 1};
	if (!job->in_batch)
		cub_progress_begin(job->maxeval);
	struct cub_vegas_acc acc = {0};
	for (unsigned it = 0; res->evals + calls <= job->maxeval; it++) {
		if (qx_cancelled()) {
			free(grid);
			free(d);
			free(dd);
			return qx_fail(e, "run cancelled");
		}
		double est, var;
		res->nonfinite += vegas_iteration(job, grid, nb, &st, it, vol, dd, d, &est, &var);
		res->evals += calls;
		res->iterations++;
		cub_vegas_refine_grid(grid, d, dim, nb, CUB_VEGAS_ALPHA, job->threads);
		if (!job->in_batch)
			qx_progress_add(calls);
		const int warm = (int)it < job->adapt;
		double value, err;
		const int done = cub_vegas_step(&acc, warm, job->iters, job->rel, job->abs, est,
		                                var, &value, &err, &res->chi2_dof);
		cub_history_record(res, it + 1, value, err, 1, (double)res->evals);
		if (warm)
			continue;
		res->value = value;
		res->err = err;
		if (!job->in_batch)
			cub_progress_error(res->value, res->err, job->rel, job->abs);
		if (done) {
			res->reason = CUB_CONVERGED;
			break;
		}
	}
	cub_vegas_end(res, acc.used);
	res->peak_bytes = (double)((size_t)(CUB_MC_CHUNKS + 2) * nd * sizeof(double));
	free(grid);
	free(d);
	free(dd);
	return 0;
}
