/* cubature_qmc.c - problem cubature's variant qmc on the CPU (cubature_cpu.h): a randomized
 * rank-1 lattice rule, a Korobov vector from a table its search made (cub_qmc_vector), job->shifts
 * independent random shifts (Philox's, cubature_mc.h) each folded by the baker's transform; the
 * estimate is the mean over the shifts, its error their standard error. The lattice doubles
 * (its old points kept, the new ones the odd multiples) until that meets the tolerance or
 * maxeval. Sums in fixed chunks over the threads (OpenMP): the same answer whatever the
 * threads. */
#include "cubature_cpu.h"

#include <math.h>
#include <stdlib.h>

#include "cubature_math_all.h"
#include "cubature_mc.h"

/* The squared weighted worst-case error of the lattice of 2^m points with vector z in dim
 * dimensions (periodic Sobolev space of smoothness 1, product weights 1/(i+1)^2); b2[r] holds
 * 2 pi^2 B2(r / 2^m), the Bernoulli polynomial's part of each factor. */
static double qmc_criterion(const uint64_t *z, int dim, int m, const double *b2)
{
	const uint64_t n = 1ULL << m;
	double sum = 0;
	for (uint64_t k = 0; k < n; k++) {
		double prod = 1;
		for (int i = 0; i < dim; i++)
			prod *= 1 + b2[(k * z[i]) & (n - 1)] / ((i + 1.0) * (i + 1));
		sum += prod;
	}
	return sum / (double)n - 1;
}

/* Candidate c's Korobov multiplier (cubature_mc.h): an odd number from a fixed hash. */
uint64_t cub_qmc_multiplier(int candidate)
{
	return cub_hash(0x51ed27, (unsigned long long)candidate) | 1;
}

/* The search behind qmc_best (cubature_mc.h): each candidate scored by the sum of the logs of
 * its criterion at 2^8, 2^10 and 2^12 points (the candidates over the cores: a few
 * milliseconds of one core in dim 8, which a run does not pay); the best, the first of
 * equals, so that the choice is the same on any threads. */
int cub_qmc_search(int dim)
{
	enum { M_MAX = 12 };
	static const int sizes[] = {8, 10, 12};
	double b2[3][1 << M_MAX], score[CUB_QMC_CANDIDATES];
	for (int s = 0; s < 3; s++) {
		const uint64_t n = 1ULL << sizes[s];
		for (uint64_t r = 0; r < n; r++) {
			const double x = (double)r / (double)n;
			b2[s][r] = 2 * CUB_PI * CUB_PI * (x * x - x + 1.0 / 6);
		}
	}
#pragma omp parallel for schedule(dynamic, 1)
	for (int c = 0; c < CUB_QMC_CANDIDATES; c++) {
		const uint64_t a = cub_qmc_multiplier(c);
		uint64_t cand[CUB_FN_MAX_DIM];
		cand[0] = 1;
		for (int i = 1; i < dim; i++)
			cand[i] = cand[i - 1] * a;
		score[c] = 0;
		for (int s = 0; s < 3; s++)
			score[c] += log(fmax(qmc_criterion(cand, dim, sizes[s], b2[s]), 1e-300));
	}
	int best = 0;
	for (int c = 1; c < CUB_QMC_CANDIDATES; c++)
		best = score[c] < score[best] ? c : best;
	return best;
}

/* cub_qmc_search's answer for dims 1..CUB_FN_MAX_DIM, as test_mc's test_qmc_table checks it
 * (a run would otherwise spend more time choosing its lattice than using it, in low dims and at
 * low accuracy). */
static const unsigned char qmc_best[CUB_FN_MAX_DIM + 1] = {
    0,  0,  10, 13, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 7,  7,
    23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23,
    23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23, 23,
};

/* The Korobov vector (cubature_mc.h). */
void cub_qmc_vector(int dim, uint64_t *z)
{
	const uint64_t a = cub_qmc_multiplier(qmc_best[dim]);
	z[0] = 1;
	for (int i = 1; i < dim; i++)
		z[i] = z[i - 1] * a;
}

/* The sum of the weights at lattice points k = first + j * step, j in [j0, j1), of 2^m points
 * shifted by s; the samples not finite are left out and counted in *bad. */
CUB_MC_CPU_LOOP static double qmc_sum(const struct cub_job *job, const uint64_t *z, int m,
                                      const double *s, uint64_t first, uint64_t step, uint64_t j0,
                                      uint64_t j1, double vol, long long *bad)
{
	const int dim = job->fn.dim;
	double y[CUB_FN_MAX_DIM], x[CUB_FN_MAX_DIM], sum = 0;
	*bad = 0;
	for (uint64_t j = j0; j < j1; j++) {
		cub_qmc_point(z, m, first + j * step, s, dim, y);
		for (int a = 0; a < dim; a++)
			x[a] = job->lo[a] + y[a] * (job->hi[a] - job->lo[a]);
		const double w = cub_f_d(&job->fn, x) * vol;
		if (isfinite(w))
			sum += w;
		else
			++*bad;
	}
	return sum;
}

/* Host bytes qmc takes: the shifts and their chunks' sums. */
size_t cub_cpu_qmc_host_bytes(int threads)
{
	(void)threads;
	return (size_t)256 * (CUB_FN_MAX_DIM + CUB_MC_CHUNKS + 1) * sizeof(double);
}

/* qmc (cubature_cpu.h). */
int cub_cpu_qmc(const struct cub_job *job, struct cub_result *res, struct qx_err *e)
{
	const int dim = job->fn.dim, R = job->shifts;
	uint64_t z[CUB_FN_MAX_DIM];
	double *s = malloc((size_t)R * CUB_FN_MAX_DIM * sizeof *s);
	double *sum = calloc((size_t)R, sizeof *sum);
	double *part = malloc((size_t)R * CUB_MC_CHUNKS * sizeof *part);
	long long *bad = malloc((size_t)R * CUB_MC_CHUNKS * sizeof *bad);
	if (!s || !sum || !part || !bad) {
		free(s);
		free(sum);
		free(part);
		free(bad);
		return qx_fail(e, "cannot allocate qmc's shifts");
	}
	double vol = 1;
	for (int a = 0; a < dim; a++)
		vol *= job->hi[a] - job->lo[a];
	cub_qmc_vector(dim, z);
	for (int r = 0; r < R; r++)
		cub_mc_uniforms(job->seed, CUB_MC_QMC_STREAM + (unsigned)r, 0, dim,
		                s + (size_t)r * CUB_FN_MAX_DIM);
	*res = (struct cub_result){.mc = 2, .chi2_dof = NAN, .reason = CUB_MAXEVAL, .live = 1};
	if (!job->in_batch)
		cub_progress_begin(job->maxeval);
	int m = CUB_QMC_FIRST_LOG2;
	while (m > 0 && (double)R * (double)(1ULL << m) > (double)job->maxeval)
		m--;
	for (int level = 0;; level++, m++) {
		if (qx_cancelled()) {
			free(s);
			free(sum);
			free(part);
			free(bad);
			return qx_fail(e, "run cancelled");
		}
		/* the first level every point of 2^m, then the new (odd) points of each doubling */
		const uint64_t first = level ? 1 : 0, step = level ? 2 : 1;
		const uint64_t count = level ? 1ULL << (m - 1) : 1ULL << m;
		const uint64_t per = (count + CUB_MC_CHUNKS - 1) / CUB_MC_CHUNKS;
#pragma omp parallel for schedule(dynamic, 1) num_threads(job->threads)
		for (int t = 0; t < R * CUB_MC_CHUNKS; t++) {
			const int r = t / CUB_MC_CHUNKS, c = t % CUB_MC_CHUNKS;
			const uint64_t j0 = c * per < count ? c * per : count;
			const uint64_t j1 = j0 + per < count ? j0 + per : count;
			part[t] = qmc_sum(job, z, m, s + (size_t)r * CUB_FN_MAX_DIM, first, step,
			                  j0, j1, vol, &bad[t]);
		}
		for (int r = 0; r < R; r++)
			for (int c = 0; c < CUB_MC_CHUNKS; c++) {
				sum[r] += part[r * CUB_MC_CHUNKS + c];
				res->nonfinite += bad[r * CUB_MC_CHUNKS + c];
			}
		const int stop = cub_qmc_level_end(job, res, sum, R, m, count, level);
		cub_history_record(res, level + 1, res->value, res->err, 1, (double)res->evals);
		if (!job->in_batch) {
			qx_progress_add((long long)(R * count));
			cub_progress_error(res->value, res->err, job->rel, job->abs);
		}
		if (stop)
			break;
	}
	res->peak_bytes = (double)((size_t)R * (CUB_FN_MAX_DIM + 2 * CUB_MC_CHUNKS + 1) * 8);
	free(s);
	free(sum);
	free(part);
	free(bad);
	return 0;
}
