/* kde_simd.h - the inner sums of kde_math.c in AVX2 with SLEEF (kde_simd.c, compiled for AVX2
 * and FMA): called only when the CPU has both (kde_simd_usable). */
#ifndef QX_KDE_SIMD_H
#define QX_KDE_SIMD_H

#include <stddef.h>

/* 1 when this CPU runs AVX2 and FMA (and kde_simd.c was built for x86-64), else 0. */
int kde_simd_usable(void);

/* sum_j exp(-sum_k ((p[k] - x[k][j]) sc[k])^2) over n samples of dimension dim in double,
 * Neumaier-compensated per lane; returns the sum (its compensation added). */
double kde_simd_sum_d(size_t n, int dim, const double *const *x, const double *p, const double *sc);

/* sum_j exp2(-sum_k (p[k] - u[k][j])^2) over n scaled float samples, Kahan per lane in float;
 * returns the sum in double. */
double kde_simd_sum_f(size_t n, int dim, const float *const *u, const float *p);

#endif
