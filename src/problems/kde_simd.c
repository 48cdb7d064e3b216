/* kde_simd.c - kde_simd.h: the exact sums' inner loops on 4 doubles or 8 floats at a time with
 * SLEEF's vector exp and exp2 (1-ulp versions); the whole file is compiled for AVX2 + FMA and
 * runs only after kde_simd_usable() said yes. */
#include "kde_simd.h"

#include <math.h>

#if defined(__x86_64__) && defined(__GNUC__) &&                                                    \
    !defined(__clang__) /* clang (the fuzz build): scalar */

#pragma GCC target("avx2,fma")
#include <immintrin.h>
#include <sleef.h>

/* Returns 1 when the CPU has AVX2 and FMA. */
int kde_simd_usable(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

/* Adds term to the Neumaier pair (sum, comp), lane by lane; every value is >= 0. */
static inline void neumaier4(__m256d *sum, __m256d *comp, __m256d term)
{
	const __m256d t = _mm256_add_pd(*sum, term);
	const __m256d big = _mm256_max_pd(*sum, term), small = _mm256_min_pd(*sum, term);
	*comp = _mm256_add_pd(*comp, _mm256_add_pd(_mm256_sub_pd(big, t), small));
	*sum = t;
}

/* Adds term to the Neumaier pair (sum, comp) for one value >= 0. */
static inline void neumaier1(double *sum, double *comp, double term)
{
	const double t = *sum + term;
	*comp += *sum >= term ? (*sum - t) + term : (term - t) + *sum;
	*sum = t;
}

double kde_simd_sum_d(size_t n, int dim, const double *const *x, const double *p, const double *sc)
{
	__m256d sum = _mm256_setzero_pd(), comp = _mm256_setzero_pd();
	size_t j = 0;
	for (; j + 4 <= n; j += 4) {
		__m256d q = _mm256_setzero_pd();
		for (int k = 0; k < dim; k++) {
			const __m256d d =
			    _mm256_sub_pd(_mm256_set1_pd(p[k]), _mm256_loadu_pd(x[k] + j));
			const __m256d t = _mm256_mul_pd(d, _mm256_set1_pd(sc[k]));
			q = _mm256_fmadd_pd(t, t, q);
		}
		neumaier4(&sum, &comp, Sleef_expd4_u10avx2(_mm256_sub_pd(_mm256_setzero_pd(), q)));
	}
	double s[4], c[4], total = 0, tcomp = 0;
	_mm256_storeu_pd(s, sum);
	_mm256_storeu_pd(c, comp);
	for (int l = 0; l < 4; l++) {
		neumaier1(&total, &tcomp, s[l]);
		tcomp += c[l];
	}
	for (; j < n; j++) {
		double q = 0;
		for (int k = 0; k < dim; k++) {
			const double t = (p[k] - x[k][j]) * sc[k];
			q += t * t;
		}
		neumaier1(&total, &tcomp, exp(-q));
	}
	return total + tcomp;
}

double kde_simd_sum_f(size_t n, int dim, const float *const *u, const float *p)
{
	__m256 sum = _mm256_setzero_ps(), comp = _mm256_setzero_ps();
	size_t j = 0;
	for (; j + 8 <= n; j += 8) {
		__m256 q = _mm256_setzero_ps();
		for (int k = 0; k < dim; k++) {
			const __m256 d =
			    _mm256_sub_ps(_mm256_set1_ps(p[k]), _mm256_loadu_ps(u[k] + j));
			q = _mm256_fmadd_ps(d, d, q);
		}
		/* Kahan: terms <= 1 against a growing sum */
		const __m256 y = _mm256_sub_ps(
		    Sleef_exp2f8_u10avx2(_mm256_sub_ps(_mm256_setzero_ps(), q)), comp);
		const __m256 t = _mm256_add_ps(sum, y);
		comp = _mm256_sub_ps(_mm256_sub_ps(t, sum), y);
		sum = t;
	}
	float s[8], c[8];
	double total = 0;
	_mm256_storeu_ps(s, sum);
	_mm256_storeu_ps(c, comp);
	for (int l = 0; l < 8; l++)
		total += (double)s[l] - (double)c[l];
	for (; j < n; j++) {
		float q = 0;
		for (int k = 0; k < dim; k++) {
			const float d = p[k] - u[k][j];
			q += d * d;
		}
		total += (double)exp2f(-q);
	}
	return total;
}

#else

/* Returns 0: no AVX2 code in this build. */
int kde_simd_usable(void)
{
	return 0;
}

/* Never called (kde_simd_usable() is 0); returns NAN. */
double kde_simd_sum_d(size_t n, int dim, const double *const *x, const double *p, const double *sc)
{
	(void)n, (void)dim, (void)x, (void)p, (void)sc;
	return NAN;
}

/* Never called (kde_simd_usable() is 0); returns NAN. */
double kde_simd_sum_f(size_t n, int dim, const float *const *u, const float *p)
{
	(void)n, (void)dim, (void)u, (void)p;
	return NAN;
}

#endif
