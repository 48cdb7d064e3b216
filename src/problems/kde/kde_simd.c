/* kde_simd.c - kde_simd.h: the exact sums of a group of outputs, a tile of samples at a time,
 * each output of the group passing over the tile while it is in the cache. Per tile and output
 * one function of the chosen instruction set: scalar (libm), AVX2 + FMA (SLEEF's exp2f8 and
 * expd4, 1 ulp) or AVX-512F (exp2f16 and expd8); the vector ones are gcc's (target pragmas on
 * their sections, chosen at run time), other compilers (clang: the fuzz build) get the scalar
 * functions alone. */
#include "kde_simd.h"

#include <math.h>

/* Samples per tile: 16 KB of floats, 32 KB of doubles per axis. */
#define KDE_TILE 4096
/* Vectors of float terms a lane adds in float before the run's sum joins the double sum. */
#define KDE_RUN 16

/* Adds term to the Neumaier pair (sum, comp) for one value >= 0. */
static inline void neumaier1(double *sum, double *comp, double term)
{
	const double t = *sum + term;
	*comp += *sum >= term ? (*sum - t) + term : (term - t) + *sum;
	*sum = t;
}

/* Adds the terms exp(-sum_k ((p[k] - x[k][j]) sc[k])^2) of samples j0 <= j < j0 + len to the
 * Neumaier pair (sum, comp) of one output at p. */
typedef void kde_tile_d_fn(size_t j0, size_t len, int dim, const double *const *x, const double *p,
                           const double *sc, double *sum, double *comp);

/* Returns sum_j exp2(-sum_k (p[k] - u[k][j])^2) over samples j0 <= j < j0 + len for one output
 * at p. */
typedef double kde_tile_f_fn(size_t j0, size_t len, int dim, const float *const *u, const float *p);

/* kde_tile_d_fn with libm's exp, one sample at a time. */
static void tile_d_scalar(size_t j0, size_t len, int dim, const double *const *x, const double *p,
                          const double *sc, double *sum, double *comp)
{
	for (size_t j = j0; j < j0 + len; j++) {
		double q = 0;
		for (int k = 0; k < dim; k++) {
			const double t = (p[k] - x[k][j]) * sc[k];
			q += t * t;
		}
		neumaier1(sum, comp, exp(-q));
	}
}

/* kde_tile_f_fn with libm's exp2f, the float terms added in double. */
static double tile_f_scalar(size_t j0, size_t len, int dim, const float *const *u, const float *p)
{
	double sum = 0;
	for (size_t j = j0; j < j0 + len; j++) {
		float q = 0;
		for (int k = 0; k < dim; k++) {
			const float d = p[k] - u[k][j];
			q += d * d;
		}
		sum += (double)exp2f(-q);
	}
	return sum;
}

#if defined(__x86_64__)

#include <xmmintrin.h>

/* Sets this thread's MXCSR to flush denormal results and operands to zero (FTZ, DAZ) while
 * a sum runs, on every path: exp and exp2 pass through denormals for each term below the
 * smallest normal (2^-126 in float), and each such vector costs microcode assists (on the
 * development machine, an AMD EPYC, SLEEF's exp2f over a KDE's spread of arguments ran 1.5 to
 * 2.5 times slower); such terms are below 1e-38 of the largest, 1 at the output's own sample.
 * Returns the MXCSR to restore. */
static unsigned flush_denormals(void)
{
	const unsigned old = _mm_getcsr();
	_mm_setcsr(old | 0x8040);
	return old;
}

/* Restores the MXCSR flush_denormals returned. */
static void restore_denormals(unsigned mxcsr)
{
	_mm_setcsr(mxcsr);
}

#else

/* Leaves denormals as they are off x86-64; returns 0. */
static unsigned flush_denormals(void)
{
	return 0;
}

/* Nothing to restore off x86-64. */
static void restore_denormals(unsigned mxcsr)
{
	(void)mxcsr;
}

#endif

const char *kde_isa_name(enum kde_isa isa)
{
	switch (isa) {
	case KDE_ISA_AVX512:
		return "SLEEF AVX-512";
	case KDE_ISA_AVX2:
		return "SLEEF AVX2";
	case KDE_ISA_SCALAR:
	default:
		return "libm scalar";
	}
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)

#include <immintrin.h>

/* SLEEF declares each vector function only where its instruction set is enabled. */
#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma")
#include <sleef.h>
#pragma GCC pop_options

enum kde_isa kde_simd_best(void)
{
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx512f"))
		return KDE_ISA_AVX512;
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		return KDE_ISA_AVX2;
	return KDE_ISA_SCALAR;
}

/* Adds the lanes of the Neumaier pairs s[0..lanes), c[0..lanes) to (sum, comp). */
static void neumaier_lanes(const double *s, const double *c, int lanes, double *sum, double *comp)
{
	for (int l = 0; l < lanes; l++) {
		neumaier1(sum, comp, s[l]);
		*comp += c[l];
	}
}

#pragma GCC push_options
#pragma GCC target("avx2,fma")

/* Adds term to the Neumaier pairs (sum, comp), lane by lane; every value is >= 0. */
static inline void neumaier4(__m256d *sum, __m256d *comp, __m256d term)
{
	const __m256d t = _mm256_add_pd(*sum, term);
	const __m256d big = _mm256_max_pd(*sum, term), small = _mm256_min_pd(*sum, term);
	*comp = _mm256_add_pd(*comp, _mm256_add_pd(_mm256_sub_pd(big, t), small));
	*sum = t;
}

/* exp(-sum_k ((p_k - x[k][j]) sc_k)^2) of the 4 samples from j. */
static inline __m256d term_d4(int dim, const double *const *x, size_t j, const __m256d *pk,
                              const __m256d *sk)
{
	__m256d q = _mm256_setzero_pd();
	for (int k = 0; k < dim; k++) {
		const __m256d t =
		    _mm256_mul_pd(_mm256_sub_pd(pk[k], _mm256_loadu_pd(x[k] + j)), sk[k]);
		q = _mm256_fnmadd_pd(t, t, q);
	}
	return Sleef_expd4_u10avx2(q);
}

/* kde_tile_d_fn on 4 doubles a vector, Neumaier in each lane; the last rest < 4 samples are
 * copied into a vector padded with infinities, whose terms are exp(-inf) = 0. */
static void tile_d_avx2(size_t j0, size_t len, int dim, const double *const *x, const double *p,
                        const double *sc, double *sum, double *comp)
{
	__m256d pk[3], sk[3], s = _mm256_setzero_pd(), c = _mm256_setzero_pd();
	for (int k = 0; k < dim; k++) {
		pk[k] = _mm256_set1_pd(p[k]);
		sk[k] = _mm256_set1_pd(sc[k]);
	}
	const size_t end = j0 + len;
	size_t j = j0;
	for (; j + 4 <= end; j += 4)
		neumaier4(&s, &c, term_d4(dim, x, j, pk, sk));
	if (j < end) {
		double pad[3][4];
		const double *padded[3];
		for (int k = 0; k < dim; k++) {
			for (size_t l = 0; l < 4; l++)
				pad[k][l] = j + l < end ? x[k][j + l] : INFINITY;
			padded[k] = pad[k];
		}
		neumaier4(&s, &c, term_d4(dim, padded, 0, pk, sk));
	}
	double ls[4], lc[4];
	_mm256_storeu_pd(ls, s);
	_mm256_storeu_pd(lc, c);
	neumaier_lanes(ls, lc, 4, sum, comp);
}

/* exp2(-sum_k (p_k - u[k][j])^2) of the 8 samples from j. */
static inline __m256 term_f8(int dim, const float *const *u, size_t j, const __m256 *pk)
{
	__m256 q = _mm256_setzero_ps();
	for (int k = 0; k < dim; k++) {
		const __m256 d = _mm256_sub_ps(pk[k], _mm256_loadu_ps(u[k] + j));
		q = _mm256_fnmadd_ps(d, d, q);
	}
	return Sleef_exp2f8_u10avx2(q);
}

/* kde_tile_f_fn on 8 floats a vector: runs of KDE_RUN vectors added in float, in double after;
 * the last rest < 8 samples are copied into a vector padded with infinities, whose terms are
 * exp2(-inf) = 0. */
static double tile_f_avx2(size_t j0, size_t len, int dim, const float *const *u, const float *p)
{
	__m256 pk[3];
	for (int k = 0; k < dim; k++)
		pk[k] = _mm256_set1_ps(p[k]);
	__m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();
	const size_t end = j0 + len;
	for (size_t j = j0; j < end;) {
		const size_t stop = end - j > 8 * KDE_RUN ? j + 8 * KDE_RUN : end;
		__m256 run = _mm256_setzero_ps();
		for (; j + 8 <= stop; j += 8)
			run = _mm256_add_ps(run, term_f8(dim, u, j, pk));
		if (j < stop) {
			float pad[3][8];
			const float *padded[3];
			for (int k = 0; k < dim; k++) {
				for (size_t l = 0; l < 8; l++)
					pad[k][l] = j + l < stop ? u[k][j + l] : INFINITY;
				padded[k] = pad[k];
			}
			run = _mm256_add_ps(run, term_f8(dim, padded, 0, pk));
			j = stop;
		}
		lo = _mm256_add_pd(lo, _mm256_cvtps_pd(_mm256_castps256_ps128(run)));
		hi = _mm256_add_pd(hi, _mm256_cvtps_pd(_mm256_extractf128_ps(run, 1)));
	}
	double l[4];
	_mm256_storeu_pd(l, _mm256_add_pd(lo, hi));
	return (l[0] + l[1]) + (l[2] + l[3]);
}

#pragma GCC pop_options

#pragma GCC push_options
#pragma GCC target("avx512f,avx2,fma")

/* Adds term to the Neumaier pairs (sum, comp), lane by lane; every value is >= 0. */
static inline void neumaier8(__m512d *sum, __m512d *comp, __m512d term)
{
	const __m512d t = _mm512_add_pd(*sum, term);
	const __m512d big = _mm512_max_pd(*sum, term), small = _mm512_min_pd(*sum, term);
	*comp = _mm512_add_pd(*comp, _mm512_add_pd(_mm512_sub_pd(big, t), small));
	*sum = t;
}

/* exp(-sum_k ((p_k - x[k][j]) sc_k)^2) of 8 samples from j, lanes outside mask 0 (and their
 * samples not read). */
static inline __m512d term_d8(int dim, const double *const *x, size_t j, const __m512d *pk,
                              const __m512d *sk, __mmask8 mask)
{
	__m512d q = _mm512_setzero_pd();
	for (int k = 0; k < dim; k++) {
		const __m512d t = _mm512_mul_pd(
		    _mm512_sub_pd(pk[k], _mm512_maskz_loadu_pd(mask, x[k] + j)), sk[k]);
		q = _mm512_fnmadd_pd(t, t, q);
	}
	return _mm512_maskz_mov_pd(mask, Sleef_expd8_u10avx512f(q));
}

/* kde_tile_d_fn on 8 doubles a vector, Neumaier in each lane. */
static void tile_d_avx512(size_t j0, size_t len, int dim, const double *const *x, const double *p,
                          const double *sc, double *sum, double *comp)
{
	__m512d pk[3], sk[3], s = _mm512_setzero_pd(), c = _mm512_setzero_pd();
	for (int k = 0; k < dim; k++) {
		pk[k] = _mm512_set1_pd(p[k]);
		sk[k] = _mm512_set1_pd(sc[k]);
	}
	const size_t end = j0 + len;
	size_t j = j0;
	for (; j + 8 <= end; j += 8)
		neumaier8(&s, &c, term_d8(dim, x, j, pk, sk, 0xff));
	if (j < end)
		neumaier8(&s, &c, term_d8(dim, x, j, pk, sk, (__mmask8)((1u << (end - j)) - 1)));
	double ls[8], lc[8];
	_mm512_storeu_pd(ls, s);
	_mm512_storeu_pd(lc, c);
	neumaier_lanes(ls, lc, 8, sum, comp);
}

/* exp2(-sum_k (p_k - u[k][j])^2) of 16 samples from j, lanes outside mask 0 (and their samples
 * not read). */
static inline __m512 term_f16(int dim, const float *const *u, size_t j, const __m512 *pk,
                              __mmask16 mask)
{
	__m512 q = _mm512_setzero_ps();
	for (int k = 0; k < dim; k++) {
		const __m512 d = _mm512_sub_ps(pk[k], _mm512_maskz_loadu_ps(mask, u[k] + j));
		q = _mm512_fnmadd_ps(d, d, q);
	}
	return _mm512_maskz_mov_ps(mask, Sleef_exp2f16_u10avx512f(q));
}

/* kde_tile_f_fn on 16 floats a vector: runs of KDE_RUN vectors added in float, in double
 * after. */
static double tile_f_avx512(size_t j0, size_t len, int dim, const float *const *u, const float *p)
{
	__m512 pk[3];
	for (int k = 0; k < dim; k++)
		pk[k] = _mm512_set1_ps(p[k]);
	__m512d lo = _mm512_setzero_pd(), hi = _mm512_setzero_pd();
	const size_t end = j0 + len;
	for (size_t j = j0; j < end;) {
		const size_t stop = end - j > 16 * KDE_RUN ? j + 16 * KDE_RUN : end;
		__m512 run = _mm512_setzero_ps();
		for (; j + 16 <= stop; j += 16)
			run = _mm512_add_ps(run, term_f16(dim, u, j, pk, 0xffff));
		if (j < stop) {
			run = _mm512_add_ps(
			    run, term_f16(dim, u, j, pk, (__mmask16)((1u << (stop - j)) - 1)));
			j = stop;
		}
		lo = _mm512_add_pd(lo, _mm512_cvtps_pd(_mm512_castps512_ps256(run)));
		hi = _mm512_add_pd(hi, _mm512_cvtps_pd(_mm256_castpd_ps(
		                           _mm512_extractf64x4_pd(_mm512_castps_pd(run), 1))));
	}
	return _mm512_reduce_add_pd(_mm512_add_pd(lo, hi));
}

#pragma GCC pop_options

/* The double tile function of isa. */
static kde_tile_d_fn *tile_d_for(enum kde_isa isa)
{
	return isa == KDE_ISA_AVX512 ? tile_d_avx512
	       : isa == KDE_ISA_AVX2 ? tile_d_avx2
	                             : tile_d_scalar;
}

/* The float tile function of isa. */
static kde_tile_f_fn *tile_f_for(enum kde_isa isa)
{
	return isa == KDE_ISA_AVX512 ? tile_f_avx512
	       : isa == KDE_ISA_AVX2 ? tile_f_avx2
	                             : tile_f_scalar;
}

#else

/* Returns KDE_ISA_SCALAR: this build holds no vector code. */
enum kde_isa kde_simd_best(void)
{
	return KDE_ISA_SCALAR;
}

/* The double tile function: the scalar one in this build. */
static kde_tile_d_fn *tile_d_for(enum kde_isa isa)
{
	(void)isa;
	return tile_d_scalar;
}

/* The float tile function: the scalar one in this build. */
static kde_tile_f_fn *tile_f_for(enum kde_isa isa)
{
	(void)isa;
	return tile_f_scalar;
}

#endif

void kde_simd_sums_d(enum kde_isa isa, size_t n, int dim, const double *const *x, size_t m,
                     const double *const *p, const double *sc, double *sums)
{
	kde_tile_d_fn *tile = tile_d_for(isa);
	const unsigned mxcsr = flush_denormals();
	double sum[KDE_SIMD_GROUP] = {0}, comp[KDE_SIMD_GROUP] = {0};
	for (size_t j = 0; j < n; j += KDE_TILE) {
		const size_t len = n - j < KDE_TILE ? n - j : KDE_TILE;
		for (size_t r = 0; r < m; r++) {
			double pr[3];
			for (int k = 0; k < dim; k++)
				pr[k] = p[k][r];
			tile(j, len, dim, x, pr, sc, &sum[r], &comp[r]);
		}
	}
	for (size_t r = 0; r < m; r++)
		sums[r] = sum[r] + comp[r];
	restore_denormals(mxcsr);
}

void kde_simd_sums_f(enum kde_isa isa, size_t n, int dim, const float *const *u, size_t m,
                     const float *const *p, double *sums)
{
	kde_tile_f_fn *tile = tile_f_for(isa);
	const unsigned mxcsr = flush_denormals();
	for (size_t r = 0; r < m; r++)
		sums[r] = 0;
	for (size_t j = 0; j < n; j += KDE_TILE) {
		const size_t len = n - j < KDE_TILE ? n - j : KDE_TILE;
		for (size_t r = 0; r < m; r++) {
			float pr[3];
			for (int k = 0; k < dim; k++)
				pr[k] = p[k][r];
			sums[r] += tile(j, len, dim, u, pr);
		}
	}
	restore_denormals(mxcsr);
}
