/* kde_math.h - the numerical core of problem `kde`, Gaussian kernel density estimation
 * y(p) = 1 / (n prod_k h_k (2 pi)^(d/2)) sum_j exp(-sum_k (p_k - x_jk)^2 / (2 h_k^2)) over n
 * samples x_j of dimension d = 1..3 with a diagonal bandwidth h: the samples (drawn from a
 * distribution and a seed), the bandwidth rules, the evaluation grid, the exact sum in double
 * (the reference) and in float, the exact sum at chosen outputs (the reference for large n),
 * the linear-binning + FFT approximation, and the seed's buggy arithmetic. The part shared
 * with cuda/kde.cu (the folded constants and the polynomial exp2) is inline and compiles for
 * the GPU too; the rest is CPU code in kde_math.c. */
#ifndef QX_KDE_MATH_H
#define QX_KDE_MATH_H

#ifdef __CUDACC__
#define KDE_HD __host__ __device__ __forceinline__
#else
#define KDE_HD static inline
#endif

/* Most dimensions: the CPU sums and the tiled GPU kernel take 1..3, every other variant 1. */
#define KDE_DMAX 3

/* 1 / sqrt(2 ln 2): u = x * KDE_U_SCALE / h makes exp(-x^2 / (2 h^2)) = exp2(-u^2). */
#define KDE_U_SCALE 0.84932180028801904272
/* 1 / sqrt(2 pi), the standard normal density at 0. */
#define KDE_INV_SQRT_2PI 0.39894228040143267794

/* The factor in front of the sum: 1 / (n prod_k h_k (2 pi)^(d/2)). */
KDE_HD double kde_norm(double n, int dim, const double *h)
{
	double c = 1 / n;
	for (int k = 0; k < dim; k++)
		c *= KDE_INV_SQRT_2PI / h[k];
	return c;
}

/* 2^e for e <= 0 in float on the FMA pipes: e = j + r with j = rint(e), |r| <= 1/2, 2^r by
 * its Taylor polynomial of degree 6 (truncation below 1.7e-7 relative: (ln2 / 2)^7 / 7!
 * times 2^(1/2)) by Horner in 6 FMAs, and j added to the exponent bits. Below -125 it returns
 * 0 (ex2.approx.ftz flushes below -126; the threshold keeps the exponent field normal).
 * Relative error <= 4e-7 (measured against exp2 in tests/unit/test_kde.c). Costs 3 adds, 6
 * FMAs and 2 integer operations. */
KDE_HD float kde_exp2_poly_f(float e)
{
	const float magic = 12582912.0f; /* 1.5 * 2^23: adding it rounds to an integer */
	if (e < -125.0f)
		return 0.0f;
	const float shifted = e + magic;
	const float j = shifted - magic;
	const float r = e - j;
	float p = 1.5403530393381609954e-4f; /* ln2^6 / 6!, ..., ln2 / 1!, 1 */
	p = p * r + 1.3333558146428443423e-3f;
	p = p * r + 9.6181291076284771620e-3f;
	p = p * r + 5.5504108664821579953e-2f;
	p = p * r + 2.4022650695910071233e-1f;
	p = p * r + 6.9314718055994530942e-1f;
	p = p * r + 1.0f;
	union {
		float f;
		int i;
	} bits, ji;
	bits.f = p;
	ji.f = shifted; /* low 23 bits: 2^22 + j in two's complement; << 23 leaves j << 23 */
	bits.i += (int)((unsigned)ji.i << 23);
	return bits.f;
}

/* 2^e for e <= 0 in double: j = rint(e), |r| <= 1/2, 2^r by its Taylor polynomial of degree
 * 13 (truncation below 6e-18 relative) in 13 FMAs, j into the exponent. Below -1021 it
 * returns 0. Relative error <= 4e-16 (measured in test_kde.c). Costs 3 adds, 13 FMAs and 2
 * integer operations: with the pair's subtraction, square and sum, 19 FP64 operations. */
KDE_HD double kde_exp2_poly_d(double e)
{
	const double magic = 6755399441055744.0; /* 1.5 * 2^52 */
	if (e < -1021.0)
		return 0.0;
	const double shifted = e + magic;
	const double j = shifted - magic;
	const double r = e - j;
	double p = 1.3691488853904128e-12; /* ln2^13 / 13!, ..., ln2 / 1!, 1 */
	p = p * r + 2.5678435993488206e-11;
	p = p * r + 4.4455382718708116e-10;
	p = p * r + 7.054911620801123e-09;
	p = p * r + 1.01780860092397e-07;
	p = p * r + 1.321548679014431e-06;
	p = p * r + 1.5252733804059841e-05;
	p = p * r + 1.540353039338161e-04;
	p = p * r + 1.3333558146428443e-03;
	p = p * r + 9.618129107628477e-03;
	p = p * r + 5.550410866482158e-02;
	p = p * r + 2.4022650695910072e-01;
	p = p * r + 6.931471805599453e-01;
	p = p * r + 1.0;
	union {
		double f;
		long long i;
	} bits, ji;
	bits.f = p;
	ji.f = shifted;
	bits.i += (long long)((unsigned long long)ji.i << 52);
	return bits.f;
}

/* The grid spacing and the index of the grid point at or below t for linear binning on the
 * grid of g points over [lo, hi]: *w is the weight of the point above (0..1), clamped to the
 * ends. Returns the lower index (0..g-2). */
KDE_HD long long kde_bin(double t, double lo, double hi, long long g, double *w)
{
	const double pos = (t - lo) / (hi - lo) * (double)(g - 1);
	if (!(pos > 0)) {
		*w = 0;
		return 0;
	}
	if (pos >= (double)(g - 1)) {
		*w = 1;
		return g - 2;
	}
	long long i = (long long)pos;
	if (i > g - 2)
		i = g - 2;
	*w = pos - (double)i;
	return i;
}

/* Kernel cut of the binned sums: the Gaussian is dropped beyond 8 h (e^-32 of its peak). */
#define KDE_BIN_CUT 8.0

#ifndef __CUDACC__
#endif

#endif
