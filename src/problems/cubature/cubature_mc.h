/* cubature_mc.h - what the CPU (C11) and the GPU (CUDA) share for cubature's Monte Carlo
 * variants, vegas (cubature_vegas.c, cuda/cubature/vegas.cu) and qmc (cubature_qmc.c,
 * cuda/cubature/qmc.cu): the random numbers, Philox4x32-10 from Random123 keyed by the seed and
 * counting the sample's index, so both draw the same points; VEGAS's grid map and refinement;
 * the rank-1 lattice's point. */
#ifndef QX_CUBATURE_MC_H
#define QX_CUBATURE_MC_H

#include <stdint.h>

#include <Random123/philox.h>

#include "cubature_job.h"
#include "cubature_math.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The Monte Carlo variants, as struct cub_result's mc and a user kernel's kind. */
#define CUB_MC_VEGAS 1
#define CUB_MC_QMC 2

/* VEGAS: the most bins per axis (cub_vegas_bins: fewer in high dims), the bins' sums a GPU
 * block keeps in shared memory (46 KiB of doubles: with the kernel's own, within the 48 KiB
 * every kernel launches with unasked), the damping exponent of the refinement, the chunks an
 * iteration's samples are summed in (each in order, then the chunks in order: the same sums
 * whatever the threads), and the chi^2 per degree of freedom (with at least 2) over which the
 * iterations disagree too much for the estimate to be trusted. */
#define CUB_VEGAS_BINS 500
#define CUB_VEGAS_SHARED_BINS 5888
#define CUB_VEGAS_ALPHA 1.5
#define CUB_MC_CHUNKS 64
#define CUB_VEGAS_CHI2_MAX 5.0
/* qmc: the lattice's first size (points a shift), the largest (2^32: the points are exact
 * in 32-bit fractions), and the lattice size the Korobov multiplier is chosen on. */
#define CUB_QMC_FIRST_LOG2 10
#define CUB_QMC_MAX_LOG2 32
/* The streams of Philox's third counter word: vegas's iteration it is it itself, qmc's shifts
 * from CUB_MC_QMC_STREAM. */
#define CUB_MC_QMC_STREAM 0x80000000u

/* What a CPU sample loop (cubature_vegas.c's vegas_chunk, cubature_qmc.c's qmc_sum) is marked
 * with: with GCC on x86-64 a second copy built for FMA, chosen at load time where the host has
 * it (target_clones), with everything it calls inlined (flatten), so that the integrands'
 * explicit fma()s (qx_asin_reduced's, the qx_rm_rsqrt step) are instructions, not calls into
 * libm; ISO C mode (-std=c11) contracts nothing else, so both copies compute the same bits.
 * f4 in dim 8 on one thread: 3.4e6 -> 5.3e6 evaluations/s. Empty elsewhere (clang refuses
 * flatten beside target_clones). */
#if !defined(__CUDACC__) && defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CUB_MC_CPU_LOOP __attribute__((target_clones("default", "fma"), flatten))
#else
#define CUB_MC_CPU_LOOP
#endif

/* The host's Philox4x32-10 in SSE2 (every x86-64): a block's counter in one vector, a round
 * one 32 x 32 -> 64 bit multiply of words 0 and 2 (Random123's two mulhilo32), a shuffle and
 * two xors, where the scalar round takes a dozen instructions; the same integers, and the same
 * doubles (r + 1/2) 2^-32 from them: r - 2^31 is converted as a signed integer, then 2^31 + 1/2
 * added, exactly. Other hosts and the GPU take Random123's philox4x32_R. */
#if !defined(__CUDACC__) && defined(__SSE2__)
#include <emmintrin.h>
#define CUB_MC_PHILOX_SSE2 1

/* The counter c after one round under key: (lo0, hi0, lo1, hi1) = (M0 c0, M1 c2), and the
 * out (hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0). */
static inline __m128i cub_mc_round_sse2(__m128i c, __m128i key)
{
	const __m128i mul = _mm_set_epi32(0, (int)PHILOX_M4x32_1, 0, (int)PHILOX_M4x32_0);
	return _mm_xor_si128(_mm_shuffle_epi32(_mm_mul_epu32(c, mul), _MM_SHUFFLE(0, 1, 2, 3)),
	                     _mm_xor_si128(_mm_srli_epi64(c, 32), key));
}

/* The four words of Philox4x32-10 of block j (*r0), and with two of j + 1 (*r1; else *r0's),
 * on the counter (lo, hi, j, stream) with key (k0, k1): two side by side, so that one's
 * multiply runs while the other's shuffles. */
static inline void cub_mc_philox_sse2(uint32_t lo, uint32_t hi, uint32_t block, uint32_t stream,
                                      uint32_t k0, uint32_t k1, int two, __m128i *r0, __m128i *r1)
{
	const __m128i bump = _mm_set_epi32(0, (int)PHILOX_W32_1, 0, (int)PHILOX_W32_0);
	__m128i key = _mm_set_epi32(0, (int)k1, 0, (int)k0);
	__m128i c0 = _mm_set_epi32((int)stream, (int)block, (int)hi, (int)lo);
	if (!two) {
#pragma GCC unroll 10
		for (int r = 0; r < 10; r++, key = _mm_add_epi32(key, bump))
			c0 = cub_mc_round_sse2(c0, key);
		*r0 = *r1 = c0;
		return;
	}
	__m128i c1 = _mm_set_epi32((int)stream, (int)(block + 1), (int)hi, (int)lo);
#pragma GCC unroll 10
	for (int r = 0; r < 10; r++, key = _mm_add_epi32(key, bump)) {
		c0 = cub_mc_round_sse2(c0, key);
		c1 = cub_mc_round_sse2(c1, key);
	}
	*r0 = c0;
	*r1 = c1;
}

/* The doubles (r + 1/2) 2^-32 of the words of r into u[0..n), n <= 4. */
static inline void cub_mc_store_sse2(__m128i r, double *u, int n)
{
	const __m128d half = _mm_set1_pd(0x1p31 + 0.5), scale = _mm_set1_pd(0x1p-32);
	r = _mm_xor_si128(r, _mm_set1_epi32((int)0x80000000u)); /* r - 2^31, signed */
	const __m128d a = _mm_mul_pd(_mm_add_pd(_mm_cvtepi32_pd(r), half), scale);
	const __m128d b = _mm_mul_pd(
	    _mm_add_pd(_mm_cvtepi32_pd(_mm_shuffle_epi32(r, _MM_SHUFFLE(1, 0, 3, 2))), half),
	    scale);
	if (n >= 4) {
		_mm_storeu_pd(u, a);
		_mm_storeu_pd(u + 2, b);
		return;
	}
	_mm_storel_pd(u, a);
	if (n > 1)
		_mm_storeh_pd(u + 1, a);
	if (n > 2)
		_mm_storel_pd(u + 2, b);
}
#endif

/* The uniforms u[0..dim) in (0, 1) of sample index of stream under seed: Philox4x32-10 with
 * key (seed's low and high words) on counter (index's low and high words, block, stream), four
 * coordinates a block, each (r + 1/2) 2^-32. */
CUB_HD void cub_mc_uniforms(unsigned long long seed, unsigned stream, unsigned long long index,
                            int dim, double *u)
{
#ifdef CUB_MC_PHILOX_SSE2
	for (int j = 0; 4 * j < dim; j += 2) {
		const int two = 4 * j + 4 < dim;
		__m128i r0, r1;
		cub_mc_philox_sse2((uint32_t)index, (uint32_t)(index >> 32), (uint32_t)j,
		                   (uint32_t)stream, (uint32_t)seed, (uint32_t)(seed >> 32), two,
		                   &r0, &r1);
		cub_mc_store_sse2(r0, u + 4 * j, dim - 4 * j);
		if (two)
			cub_mc_store_sse2(r1, u + 4 * j + 4, dim - 4 * j - 4);
	}
#else
	const philox4x32_key_t key = {{(uint32_t)seed, (uint32_t)(seed >> 32)}};
	for (int j = 0; 4 * j < dim; j++) {
		const philox4x32_ctr_t ctr = {
		    {(uint32_t)index, (uint32_t)(index >> 32), (uint32_t)j, (uint32_t)stream}};
		const philox4x32_ctr_t r = philox4x32_R(10, ctr, key);
		for (int k = 0; k < 4 && 4 * j + k < dim; k++)
			u[4 * j + k] = ((double)r.v[k] + 0.5) * 0x1p-32;
	}
#endif
}

/* VEGAS's bins per axis in dim for iterations of calls samples: a bin for every
 * CUB_VEGAS_BIN_SAMPLES samples (a grid refined from fewer follows the noise and its weights'
 * variance is underestimated), from 50 up to CUB_VEGAS_BINS (Lepage's and m-Cubes' 500, which
 * resolve peaks a fiftieth of the box wide), fewer where dim axes of them would pass
 * CUB_VEGAS_SHARED_BINS. */
#define CUB_VEGAS_BIN_SAMPLES 100
CUB_HD int cub_vegas_bins(int dim, long long calls)
{
	const long long fit = CUB_VEGAS_SHARED_BINS / (dim > 0 ? dim : 1),
	                want = calls / CUB_VEGAS_BIN_SAMPLES;
	const long long nb = want < 50 ? 50 : want < CUB_VEGAS_BINS ? want : CUB_VEGAS_BINS;
	return (int)(nb < fit ? nb : fit);
}

/* VEGAS's stratification of an iteration of at most calls samples in dim (Lepage's classic
 * VEGAS): each axis cut into ng equal strata of the uniforms (ng^dim cubes), npg >= 2 samples
 * a cube, ng the largest with that; ng = 1 (one cube of every sample) when calls < 2^(dim+1).
 * The iteration draws cubes * npg samples. */
struct cub_vegas_strata {
	long long ng, cubes, npg;
};

/* ng^dim, or most + 1 once it passes most. */
static inline long long cub_vegas_cubes(long long ng, int dim, long long most)
{
	long long cubes = 1;
	for (int i = 0; i < dim; i++) {
		if (cubes > most / ng)
			return most + 1;
		cubes *= ng;
	}
	return cubes;
}

static inline struct cub_vegas_strata cub_vegas_strata_of(long long calls, int dim)
{
	const long long most = calls / 2; /* cubes of 2 samples each */
	long long ng = (long long)pow((double)most, 1.0 / dim);
	ng = ng > 1 ? ng : 1;
	while (ng > 1 && cub_vegas_cubes(ng, dim, most) > most)
		ng--;
	while (cub_vegas_cubes(ng + 1, dim, most) <= most)
		ng++;
	if (ng < 2)
		return (struct cub_vegas_strata){1, 1, calls};
	const long long cubes = cub_vegas_cubes(ng, dim, most);
	return (struct cub_vegas_strata){ng, cubes, calls / cubes};
}

/* The strata of VEGAS's cube under st into digits[0..dim): the cube's digits in base ng, axis
 * by axis (once a cube: integer division is dear on a GPU). */
CUB_HD void cub_vegas_cube_digits(unsigned long long cube, const struct cub_vegas_strata *st,
                                  int dim, double *digits)
{
	const unsigned long long ng = (unsigned long long)st->ng;
	for (int i = 0; i < dim; i++) {
		digits[i] = (double)(cube % ng);
		cube /= ng;
	}
}

/* The uniforms of VEGAS's sample index of the cube whose cub_vegas_cube_digits are digits:
 * Philox's (cub_mc_uniforms) moved into the cube's strata. */
CUB_HD void cub_vegas_uniforms(unsigned long long seed, unsigned it, unsigned long long index,
                               int dim, const struct cub_vegas_strata *st, const double *digits,
                               double *u)
{
	cub_mc_uniforms(seed, it, index, dim, u);
	if (st->ng < 2)
		return;
	const double ng = (double)st->ng;
	for (int i = 0; i < dim; i++)
		u[i] = (digits[i] + u[i]) / ng;
}

/* VEGAS's map of the uniforms u[0..dim) through the grid (dim axes of nb + 1 edges, 0 .. 1)
 * into y in the unit cube and bin[i] each axis's bin; returns the Jacobian, the product of nb
 * times each bin's width. */
CUB_HD double cub_vegas_map(const double *grid, int dim, int nb, const double *u, double *y,
                            int *bin)
{
	double jac = 1;
	for (int i = 0; i < dim; i++) {
		const double *g = grid + (size_t)i * (nb + 1), t = u[i] * nb;
		int k = (int)t;
		k = k < nb ? k : nb - 1;
		const double w = g[k + 1] - g[k];
		y[i] = g[k] + (t - k) * w;
		bin[i] = k;
		jac *= nb * w;
	}
	return jac;
}

/* The lattice's point k of 2^m points with generating vector z, shifted by s, folded by the
 * baker's transform (1 - |2t - 1|, which keeps every shift's mean the integral), into y[0..dim),
 * within (0, 1). */
CUB_HD void cub_qmc_point(const uint64_t *z, int m, uint64_t k, const double *s, int dim, double *y)
{
	const uint64_t mask = m >= 64 ? ~0ULL : (1ULL << m) - 1;
	const double scale = 1.0 / (double)(1ULL << m);
	for (int i = 0; i < dim; i++) {
		double t = (double)((k * z[i]) & mask) * scale + s[i];
		t -= t >= 1 ? 1 : 0;
		t = 1 - fabs(2 * t - 1);
		y[i] = t > 0 ? t : 0x1p-60;
	}
}

/* VEGAS's combination of its iterations: sums of the weights w, w est, w^2 var, and of 1/var,
 * est/var and est^2/var (chi^2's), the last iteration's variance (warm-up or not: 0 before
 * any) and how many have joined. */
struct cub_vegas_acc {
	double sw, swi, sw2v, s1, s2, s3, prev;
	int used;
};

/* An iteration's variance var floored at its estimate est's rounding (a variance of 0 still a
 * finite weight). */
CUB_HD double cub_vegas_var_floor(double est, double var)
{
	const double r = 2.220446049250313e-16 * fabs(est);
	return fmax(var, fmax(r * r, 2.2250738585072014e-308));
}

/* Adds an iteration's estimate est of variance var to acc and stores the weighted mean, its
 * standard error and chi^2 per degree of freedom of the iterations' agreement (NaN with one
 * iteration). The weight is 1 over the previous iteration's variance (the first with none
 * takes its own), not over its own: an iteration's variance is an estimate from its own samples
 * and falls with its estimate where a peak is undersampled, so that weighting by it drags the
 * mean low. On Genz's discontinuous family in dim 6 at 1e5 samples an iteration, 20 iterations
 * weighted by their own variances were over 2 standard errors from the exact value on 20 of
 * 20 seeds (the median 7.3); weighted by the previous one's, which cannot know this
 * iteration's samples, on 2 (the median 0.95), the error no larger on smooth integrands. */
CUB_HD void cub_vegas_add(struct cub_vegas_acc *acc, double est, double var, double *value,
                          double *err, double *chi2_dof)
{
	const double v = cub_vegas_var_floor(est, var);
	const double w = 1 / (acc->prev > 0 ? acc->prev : v);
	acc->sw += w;
	acc->swi += w * est;
	acc->sw2v += w * w * v;
	acc->s1 += 1 / v;
	acc->s2 += est / v;
	acc->s3 += est * est / v;
	acc->prev = v;
	acc->used++;
	const double m = acc->swi / acc->sw;
	*value = m;
	*err = sqrt(acc->sw2v) / acc->sw;
	*chi2_dof = acc->used > 1
	                ? fmax(0.0, acc->s3 - 2 * m * acc->s2 + m * m * acc->s1) / (acc->used - 1)
	                : NAN;
}

/* A cube's part of its iteration's variance: s2 / npg - (s1 / npg)^2 of its npg samples'
 * weights summing to s1 and their squares to s2 (npg times the variance of the cube's mean,
 * times npg - 1). */
CUB_HD double cub_vegas_cube_var(double s1, double s2, long long npg)
{
	const double m = s1 / (double)npg, v = s2 / (double)npg - m * m;
	return v > 0 ? v : 0;
}

/* The estimate and its variance of an iteration stratified as st whose weights sum to sw and
 * whose cubes' cub_vegas_cube_var sum to sv: the mean of the cubes' means, and the sum of
 * their means' variances over cubes^2. */
CUB_HD void cub_vegas_estimate(double sw, double sv, const struct cub_vegas_strata *st, double *est,
                               double *var)
{
	const double cubes = (double)st->cubes, npg = (double)st->npg;
	*est = sw / (cubes * npg);
	*var = sv / ((npg > 1 ? npg - 1 : 1) * cubes * cubes);
}

/* VEGAS's iteration of estimate est and variance var, on the CPU (cubature_vegas.c) and the
 * GPU (cuda/cubature/vegas_step.cu) alike: a warm-up one (warm) only adapted the grid and left
 * its variance for the next one's weight, and its point of the history (*value, *err) is its
 * own estimate; a later one joins acc's weighted mean (cub_vegas_add: *value, *err and
 * *chi2_dof are the mean's). Returns 1 where the run has converged: iters iterations joined
 * and the mean's standard error within max(abs, rel |I|). */
CUB_HD int cub_vegas_step(struct cub_vegas_acc *acc, int warm, int iters, double rel, double abs,
                          double est, double var, double *value, double *err, double *chi2_dof)
{
	if (warm) {
		acc->prev = cub_vegas_var_floor(est, var);
		*value = est;
		*err = sqrt(var);
		return 0;
	}
	cub_vegas_add(acc, est, var, value, err, chi2_dof);
	return acc->used >= iters && *err <= fmax(abs, rel * fabs(*value));
}

/* Ends a vegas run on the CPU and the GPU alike, used iterations in its result: its regions
 * are those iterations, and no estimate without one; a sample not finite makes the estimate's
 * error infinite (reason CUB_NONFINITE: no more samples can mend the mean), and a chi^2/dof
 * over CUB_VEGAS_CHI2_MAX with 2 degrees of freedom or more an untrustworthy one. */
static inline void cub_vegas_end(struct cub_result *res, int used)
{
	res->regions = used;
	if (used == 0)
		res->value = res->err = NAN;
	if (res->nonfinite > 0) {
		res->reason = CUB_NONFINITE;
		res->err = INFINITY;
	} else if (used > 2 && res->chi2_dof > CUB_VEGAS_CHI2_MAX)
		res->reason = CUB_UNTRUSTED;
}

/* The GPU's fixed-point scale of vegas's next iteration (cuda/cubature/vegas_step.cu), from
 * this one's total of the squared weights (an axis's bins): total to 2^52, so that a bin holds
 * 4096 times it (one sample 1024 times it) and a sample of 2^-52 of it still counts (the
 * truncation loses under n 2^-52 of the total over n samples, far below what refinement can
 * resolve); 0 (the next iteration sums doubles) where this one's sums wrapped (its bins lost),
 * the total is 0, or its scale would not be finite. */
CUB_HD double cub_vegas_next_scale(double total, int wrapped)
{
	const double next = 0x1p52 / total;
	return !wrapped && total > 0 && isfinite(next) ? next : 0;
}

/* qmc's estimate: the mean over the R shifts of sum[r] / n and its standard error. */
static inline void cub_qmc_stats(const double *sum, int R, double n, double *mean, double *err)
{
	double m = 0, ss = 0;
	for (int r = 0; r < R; r++)
		m += sum[r] / n;
	m /= R;
	for (int r = 0; r < R; r++)
		ss += (sum[r] / n - m) * (sum[r] / n - m);
	*mean = m;
	*err = sqrt(ss / ((double)R * (R - 1)));
}

/* Ends a level of qmc's doubling, on the CPU (cubature_qmc.c) and the GPU (qmc.cu) alike: the
 * mean and standard error of the R shifts' sums over 2^m points each into res, with the level's
 * work (R * count new points). Returns 1 where the run stops: converged (res->reason set), a
 * sample not finite (no more points can mend the mean: reason CUB_NONFINITE, estimate inf), or
 * the next level would pass maxeval or the lattice's largest size. */
static inline int cub_qmc_level_end(const struct cub_job *job, struct cub_result *res,
                                    const double *sum, int R, int m, unsigned long long count,
                                    int level)
{
	cub_qmc_stats(sum, R, (double)(1ULL << m), &res->value, &res->err);
	res->evals += (long long)((unsigned long long)R * count);
	res->iterations = level + 1;
	res->regions = 1LL << m; /* a qmc run's regions: the points of each shift */
	if (res->nonfinite > 0) {
		res->reason = CUB_NONFINITE;
		res->err = INFINITY;
		return 1;
	}
	if (res->err <= fmax(job->abs, job->rel * fabs(res->value))) {
		res->reason = CUB_CONVERGED;
		return 1;
	}
	return m >= CUB_QMC_MAX_LOG2 ||
	       (double)res->evals + (double)R * (double)(1ULL << m) > (double)job->maxeval;
}

/* Refines one axis's edges[0..nb] (0 .. 1, increasing; nb <= CUB_VEGAS_BINS) from the sums
 * d[0..nb) of the squared weights in its bins, as Lepage's VEGAS: d smoothed over neighbours, each
 * bin's importance
 * ((1 - d/sum) / ln(sum/d))^alpha, the edges moved so that every new bin holds an equal share
 * of it. Leaves the edges alone when d is all zero (or not finite). */
void cub_vegas_refine(double *edges, const double *d, int nb, double alpha);

/* cub_vegas_refine on each of grid's dim axes (nb + 1 edges each) from d (nb sums each), on
 * threads threads (0: OpenMP's default) once they hold many bins. */
void cub_vegas_refine_grid(double *grid, const double *d, int dim, int nb, double alpha,
                           int threads);

/* The Korobov generating vector z[0..dim) (z_i = a^i mod 2^64, used modulo the lattice's 2^m),
 * a the multiplier of the candidate cub_qmc_search chose for dim, read from its table. */
void cub_qmc_vector(int dim, uint64_t *z);

/* The candidates for the multiplier a: CUB_QMC_CANDIDATES odd numbers, candidate c's from a fixed
 * hash (cub_qmc_multiplier). cub_qmc_search returns the candidate whose lattices of 2^8..2^12
 * points have the smallest weighted worst-case error in dim dimensions (product weights
 * 1/(i+1)^2, the periodic Sobolev space of smoothness 1). */
enum { CUB_QMC_CANDIDATES = 64 };
uint64_t cub_qmc_multiplier(int candidate);
int cub_qmc_search(int dim);

#ifdef __cplusplus
}
#endif

#endif
