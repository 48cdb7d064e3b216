/* kde_math.h - the numerical core of problem `kde`, Gaussian kernel density estimation
 * y(p) = 1 / (n prod_k h_k (2 pi)^(d/2)) sum_j exp(-sum_k (p_k - x_jk)^2 / (2 h_k^2)) over n
 * samples x_j of dimension d = 1..3 with a diagonal bandwidth h: the samples (drawn from a
 * distribution and a seed), the bandwidth rules, the evaluation grid, the exact sum in double
 * (the reference) and in float, the exact sum at chosen outputs (the reference for large n),
 * the linear-binning + FFT approximation, and the seed's buggy arithmetic. The part shared
 * with cuda/kde/ (the folded constants and the polynomial exp2) is inline and compiles for
 * the GPU too; the rest is CPU code in kde_math.c. */
#ifndef QX_KDE_MATH_H
#define QX_KDE_MATH_H

#include <math.h>

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

/* Largest |d| kde_gauss2_poly_f takes: d^2 <= 124.99, so 2^-d^2 stays a normal float. */
#define KDE_POLY_DMAX 11.18f
/* 1.5 * 2^23: adding it to x (|x| < 2^22) in float rounds x to the integer j = rint(x), and the
 * sum's low mantissa bits hold 2^22 + j. */
#define KDE_POLY_MAGIC 12582912.0f

/* 2^r in float for |r| <= 1/2: the degree-4 Chebyshev fit on [-1/2, 1/2] (2.8e-6 absolute
 * before rounding; exact at r = 0) in 4 FMAs. */
KDE_HD float kde_exp2_frac_f(float r)
{
	float p = 9.666368515385448e-3f;
	p = fmaf(p, r, 5.592197584225585e-2f);
	p = fmaf(p, r, 2.4022349038020361e-1f);
	p = fmaf(p, r, 6.9312104520342710e-1f);
	return fmaf(p, r, 1.0f);
}

/* x 2^j for shifted = KDE_POLY_MAGIC + j: j added to x's exponent bits (a shift and an add,
 * one LEA on the GPU). x 2^j must be a normal float, or x = 0 with j = 0. */
KDE_HD float kde_scale_shifted_f(float x, float shifted)
{
	union {
		float f;
		int i;
	} bits, ji;
	bits.f = x;
	ji.f = shifted; /* low 23 bits: 2^22 + j in two's complement; << 23 leaves j << 23 */
	bits.i += (int)((unsigned)ji.i << 23);
	return bits.f;
}

/* 2^(-d^2) in float on the FMA pipes, the polynomial of the fast GPU variant's blocks whose
 * outputs spread too far for kde_fact_poly_f: |d| is clamped to KDE_POLY_DMAX (beyond, the
 * result is 2^-124.99 instead of less: below 1e-30 of any sum it joins, which holds a term >=
 * 2^-9 at the samples and the grid), then e = -d^2 = j + r with j = rint(e) by the
 * KDE_POLY_MAGIC shift (one FMA) and r = -d^2 - j (one FMA, exact but for one rounding), 2^r
 * by kde_exp2_frac_f, and j added to the exponent bits. Relative error <= 4e-6 (measured in
 * tests/unit/test_kde.c: 3.5e-6). Costs a min (ALU), 2 FMAs and an add for the reduction, 4
 * FMAs, and one LEA (ALU): with the pair's subtraction and the accumulation, 11 instructions
 * against ex2's 4 (and a MUFU). */
KDE_HD float kde_gauss2_poly_f(float d)
{
	const float a = fminf(fabsf(d), KDE_POLY_DMAX);
	const float shifted = fmaf(-a, a, KDE_POLY_MAGIC);
	const float j = shifted - KDE_POLY_MAGIC;
	return kde_scale_shifted_f(kde_exp2_frac_f(fmaf(-a, a, -j)), shifted);
}

/* a 2^(q s) in float on the FMA pipes, the fast GPU variant's factorized polynomial term
 * (cuda/kde/fast.cu: q = 2 p', s = s', a = 2^(-s'^2)): x = q s = j + r with j = rint(x) by the
 * KDE_POLY_MAGIC shift fused into one FMA, r = q s - j (one FMA, exact but for one rounding),
 * 2^r by kde_exp2_frac_f, times a with j added to its exponent. Needs |q s| < 2^22 and a 2^j
 * a normal float (or a = 0 with q s = 0, giving 0). Relative error <= 4e-6 (measured in
 * tests/unit/test_kde.c). Costs 2 FMAs and an add, 4 FMAs, one LEA, and the product, which
 * contracts with the caller's accumulation into one FMA: 9 instructions a pair against the
 * ex2 pair's FMUL, MUFU.EX2 and FMA. */
KDE_HD float kde_fact_poly_f(float q, float s, float a)
{
	const float shifted = fmaf(q, s, KDE_POLY_MAGIC);
	const float j = shifted - KDE_POLY_MAGIC;
	return kde_exp2_frac_f(fmaf(q, s, -j)) * kde_scale_shifted_f(a, shifted);
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

#include <stddef.h>

#include "../../qx.h"

/* Where the samples come from (`set dist`): each coordinate of each sample is drawn on its
 * own from the counter-based generator kde_uniform(seed, counter), so sample j is the same
 * whatever n is. normal: N(0, 1); mixture: N(-2, 1) or N(2, 1/4) with probability 1/2 each;
 * uniform: U(0, 1); exponential: rate 1; student: Student's t with 3 degrees of freedom
 * (heavy tails, variance 3). */
enum kde_dist { KDE_NORMAL, KDE_MIXTURE, KDE_UNIFORM, KDE_EXPONENTIAL, KDE_STUDENT };

/* Bandwidth rules, per axis k with sigma_k the sample standard deviation (n - 1) and IQR_k
 * the interquartile range (quantiles interpolated linearly, R's type 7):
 * silverman: d = 1: 0.9 min(sigma, IQR / 1.34) n^(-1/5) (Silverman 1986, eq. 3.31; sigma
 *            alone when IQR = 0); d > 1: (4 / (d + 2))^(1 / (d + 4)) sigma_k n^(-1 / (d + 4))
 *            (the normal reference rule, Silverman 1986, eq. 4.14).
 * scott:     sigma_k n^(-1 / (d + 4)) (Scott 1992, eq. 6.42; SciPy's gaussian_kde default). */
enum kde_bw_rule { KDE_SILVERMAN, KDE_SCOTT };

/* n points of dimension dim, coordinate k of point j in x[k][j] (structure of arrays): the
 * samples, or the points a density is evaluated at. Owned when made by kde_points_alloc. */
struct kde_points {
	size_t n;
	int dim;
	double *x[KDE_DMAX];
};

/* What a long computation polls: cancelled() (a cancel request: stop and fail) and
 * progress(k) (k more outputs finished); either may be NULL. Called from OpenMP threads. */
struct kde_hooks {
	int (*cancelled)(void);
	void (*progress)(long long outputs);
};

/* Allocates p for n >= 1 points of dimension dim (1..KDE_DMAX), zeroed; returns 0, or -1 with
 * e naming the bytes it could not get. */
int kde_points_alloc(struct kde_points *p, size_t n, int dim, struct qx_err *e);

/* Frees what kde_points_alloc gave p and empties it; nothing for an empty p. */
void kde_points_free(struct kde_points *p);

/* Uniform in [0, 1) with 53 random bits, a pure function of (seed, counter). */
double kde_uniform(unsigned long long seed, unsigned long long counter);

/* Fills every coordinate of p (already allocated) with draws of dist from seed. */
void kde_generate(enum kde_dist dist, unsigned long long seed, struct kde_points *p);

/* Per-axis bandwidth h[0..dim) of the samples by rule; returns 0, or -1 with e when the
 * samples are fewer than 2, an axis has no spread (every sample equal), or memory for the
 * quartiles (a copy of one axis) cannot be had. */
int kde_bandwidth(const struct kde_points *s, enum kde_bw_rule rule, double *h, struct qx_err *e);

/* The grid's ends per axis: the samples' smallest and largest coordinate padded by 3 h_k. */
void kde_grid_limits(const struct kde_points *s, const double *h, double *lo, double *hi);

/* Coordinate i of g points spread evenly over [lo, hi], ends included (g = 1: lo). */
double kde_grid_coord(double lo, double hi, size_t g, size_t i);

/* Points of the grid of g points per axis over [lo_k, hi_k] (g^dim points, axis 0 varying
 * fastest) into p, allocated here; returns 0, or -1 with e when g^dim points cannot be had. */
int kde_grid_points(const double *lo, const double *hi, int dim, size_t g, struct kde_points *p,
                    struct qx_err *e);

/* The mean of the samples per axis: the float sums center the data there before rounding. */
void kde_center(const struct kde_points *s, double *c);

/* The exact density in double at m outputs: output k at point idx[k] of at (idx NULL: point k,
 * m <= at->n), y[k] = norm sum_j exp(-sum_a ((p_a - x_ja) / h_a)^2 / 2) with every pair's
 * exponent from the unrounded difference and the sum compensated (Neumaier, per lane): the
 * error is a few ulps of y. exp is SLEEF's (1 ulp) with AVX-512 or AVX2, libm's without
 * (kde_exact_isa). OpenMP over blocks of outputs on `threads` threads (<= 0: OpenMP's default,
 * every core), 16 outputs at a time over each cache-sized tile of samples. Returns 0, or -1
 * with e when cancelled (y then partial). */
int kde_exact_d(const struct kde_points *s, const double *h, const struct kde_points *at,
                const size_t *idx, size_t m, double *y, int threads, const struct kde_hooks *hk,
                struct qx_err *e);

/* The same in float: samples and points centered at the samples' mean, scaled by
 * KDE_U_SCALE / h and rounded to float once, then per pair a subtraction, a square and
 * exp2f (SLEEF's 1-ulp exp2f with AVX-512 or AVX2, libm's without); each vector lane adds 16
 * terms in float, those run sums are added in double (the scalar code adds every term in
 * double), so the sum of n terms stays within a few float ulps (<= 1e-5 relative at n = 2^22,
 * tested). On x86-64 terms below float's smallest normal (2^-126) count as 0 (kde_simd.h).
 * Returns 0, or -1 with e (cancelled, or no memory for the float copies). */
int kde_exact_f(const struct kde_points *s, const double *h, const struct kde_points *at,
                const size_t *idx, size_t m, float *y, int threads, const struct kde_hooks *hk,
                struct qx_err *e);

/* k output indices of m spread evenly (idx[i] = floor(i m / k), i < k, k <= m): the outputs an
 * exact-sample reference computes with kde_exact_d when the full sum is too costly. */
void kde_sample_indices(size_t m, size_t k, size_t *idx);

/* The instruction set and exp the exact sums run on this CPU: "SLEEF AVX-512", "SLEEF AVX2"
 * or "libm scalar". */
const char *kde_exact_isa(void);

/* The binned approximation in 1-D at the grid of g points over [lo, hi]: the samples spread
 * onto the grid by linear binning (kde_bin), then convolved with the Gaussian sampled at the
 * grid spacing (cut at KDE_BIN_CUT h) by FFTW's real FFTs in double, zero-padded so that
 * nothing wraps around. y[i] approximates the density at grid point i; the error comes from
 * the binning (O((spacing / h)^2)) and is measured in tests/unit/test_kde.c. Samples outside
 * [lo, hi] go to the end points. Returns 0, or -1 with e (g < 2, no memory, cancelled). */
int kde_binned(const struct kde_points *s, double h, double lo, double hi, size_t g, double *y,
               const struct kde_hooks *hk, struct qx_err *e);

/* The arithmetic of the seed variant's kernel (cuda/kde/seed.cu, the Gaussian KDE study's own)
 * in float, for checking the GPU's seed variant: adds to y[i] (never zeroed, as in the study's
 * code) sum_j K((x_i - (int)x_j) / hi) with K(t) = 1/sqrt(2 pi) expf(-t^2 / 2), x_j truncated
 * toward zero (saturated, NaN to 0, as the GPU converts), divided by the int hi in float (hi = 0
 * gives +-inf, so K = 0, or NaN where x_i equals a truncated sample) and no 1/(n h) factor. */
void kde_seed_emulate(const float *x, size_t n, int hi, float *y);

#endif

#endif
