/* cubature_math.h - what the CPU (C11) and the GPU (CUDA) share for problem `cubature`: the
 * integrands and their parameters. The integrand itself is a template over the precision:
 * include this header with CUB_REAL (double or float) and CUB_SUFFIX (d or f) defined to get
 * cub_f_d / cub_f_f; the untemplated part (names, limits, the parameter struct) is guarded. */
#ifndef QX_CUBATURE_MATH_H
#define QX_CUBATURE_MATH_H

#include <math.h>
#include <string.h>

#ifdef __CUDACC__
#define CUB_HD __host__ __device__ __forceinline__
#else
#define CUB_HD static inline
#endif

#define CUB_MAX_DIM 16
#define CUB_PI 3.14159265358979323846
/* f5's beta = sin(10)/10 (the seed prints -0.054402111088937). */
#define CUB_F5_BETA (-0.054402111088936981340)

/* The integrands, in the order of the parameter's choices. */
enum cub_integrand {
	CUB_F1,
	CUB_F1P2,
	CUB_F2,
	CUB_F3,
	CUB_F4,
	CUB_F5,
	CUB_OSC,
	CUB_PRODUCT_PEAK,
	CUB_CORNER_PEAK,
	CUB_GAUSSIAN,
	CUB_C0,
	CUB_DISCONTINUOUS,
	CUB_NINTEGRANDS,
	CUB_USER = CUB_NINTEGRANDS /* an expression the user typed, compiled at run time */
};

/* What a user's integrand is given besides the point: its parameters, then each axis's bounds
 * (lo, hi) from which its code maps the unit cube. */
#define CUB_USER_PARAMS 16
#define CUB_USER_DATA (CUB_USER_PARAMS + 2 * CUB_MAX_DIM)

/* One integrand: its kind and dimension, Genz's difficulty c and shift w (unused by f1..f5);
 * for CUB_USER the data its compiled code reads and, on the host, that code (user_d, user_f:
 * double and float; the GPU's is linked into kernels of its own). */
struct cub_fn {
	int kind, dim;
	double c[CUB_MAX_DIM], w[CUB_MAX_DIM];
	double user[CUB_USER_DATA];
	double (*user_d)(const double *x, const double *p);
	float (*user_f)(const float *x, const double *p);
};

/* cub_cos_reduced's constants (from tests/gen_cubature_cos.py --constants): 1/pi; pi in two
 * parts, the first of 38 bits (q times it is exact for |q| < 2^15, where x - q times it is
 * exact too); the coefficients, c8 first, of cos(sqrt(s)) on [0, (pi/2)^2] as a polynomial of
 * degree 8 (mpmath's Chebyshev fit, error 3.9e-18). On the GPU they sit in constant memory. */
#define CUB_COS_CONSTANTS                                                                          \
	1 / CUB_PI, 3.1415926535846666, 5.126688303189038e-12, 4.608977003001797e-14,              \
	    -1.1462901901757276e-11, 2.0876561839933163e-09, -2.755731639102575e-07,               \
	    2.4801587277414926e-05, -0.001388888888877299, 0.04166666666666388,                    \
	    -0.4999999999999997, 1.0
#define CUB_COS_LIMIT 1e5 /* under 2^15 pi */
static const double cub_cos_host[] = {CUB_COS_CONSTANTS};
#ifdef __CUDACC__
static __constant__ double cub_cos_dev[] = {CUB_COS_CONSTANTS};
#endif

/* The host's or the GPU's copy of a table of constants NAME_host / NAME_dev. */
#ifdef __CUDA_ARCH__
#define CUB_TABLE(name) name##_dev
#else
#define CUB_TABLE(name) name##_host
#endif

/* The polynomial of coefficients k[0..n-1], highest degree first, at s (Horner's rule). */
CUB_HD double cub_horner(const double *k, int n, double s)
{
	double p = k[0];
	for (int i = 1; i < n; i++)
		p = p * s + k[i];
	return p;
}

/* cub_sin_reduced's coefficients (tests/gen_cubature_cos.py --constants), c7 first, of
 * S(s) = (sin(sqrt(s)) - sqrt(s)) / s^1.5 on [0, (pi/2)^2] as a polynomial of degree 7
 * (mpmath's Chebyshev fit, error 3.4e-19); sin(r) = r + r s S(s), s = r^2. */
#define CUB_SIN_CONSTANTS                                                                          \
	2.7314447669863995e-15, -7.643970296798572e-13, 1.6058977312464087e-10,                    \
	    -2.5052107616996182e-08, 2.7557319219163234e-06, -0.00019841269841254974,              \
	    0.008333333333333316, -0.16666666666666666
static const double cub_sin_host[] = {CUB_SIN_CONSTANTS};
#ifdef __CUDACC__
static __constant__ double cub_sin_dev[] = {CUB_SIN_CONSTANTS};
#endif

/* x less the nearest multiple q pi, into *r (in [-pi/2, pi/2]; Cody and Waite's reduction
 * with cub_cos_reduced's constants, its product exact for |x| <= CUB_COS_LIMIT), setting *wide
 * past that limit; returns q's parity as a sign bit (0 or 1 << 63): cos(x) = (-1)^q cos(r) and
 * sin(x) = (-1)^q sin(r). */
CUB_HD unsigned long long cub_pi_reduce(double x, double *r, int *wide)
{
	const double *k = CUB_TABLE(cub_cos);
	*wide |= !(fabs(x) <= CUB_COS_LIMIT);
	/* the nearest integer to x / pi: 1.5 2^52 has unit spacing, so t's last bit is q's */
	const double t = x * k[0] + 0x1.8p52, q = t - 0x1.8p52;
	*r = x - q * k[1] - q * k[2];
	unsigned long long tb;
	memcpy(&tb, &t, sizeof tb);
	return tb << 63;
}

/* v with its sign bit flipped by sign (0 or 1 << 63). */
CUB_HD double cub_flip_sign(double v, unsigned long long sign)
{
	unsigned long long vb;
	memcpy(&vb, &v, sizeof vb);
	vb ^= sign;
	memcpy(&v, &vb, sizeof v);
	return v;
}

/* cos(x) in double for the integrands, for |x| <= CUB_COS_LIMIT: x less the nearest multiple
 * q pi is r in [-pi/2, pi/2] (cub_pi_reduce), and cos(x) = (-1)^q P(r^2). Absolute error under
 * 4e-16 against mpmath (tests/data/cubature_cos_ref.csv). Beyond the limit the value is
 * meaningless and *wide is set: the integrand is then evaluated again with the C library's cos
 * (cub_f_d), or, in the GPU's kernels made for an integrand, the host has checked the
 * arguments' range (cub_trig_arg_bound). Without a branch of its own, the GPU evaluates it in
 * 13 double operations and no table, and an integrand's cosines interleave; CUDA's cos reduces
 * by pi/2, converts q twice, loads its coefficients from memory and branches for every call
 * (f5's eight cosines a point were most of its rule kernel's instructions). */
CUB_HD double cub_cos_reduced(double x, int *wide)
{
	double r;
	const unsigned long long sign = cub_pi_reduce(x, &r, wide);
	return cub_flip_sign(cub_horner(CUB_TABLE(cub_cos) + 3, 9, r * r), sign);
}

/* sin(x) in double for f4, for |x| <= CUB_COS_LIMIT, as cub_cos_reduced: (-1)^q (r + r s
 * S(s)), s = r^2, r and q from cub_pi_reduce (*wide set past the limit). Error under 4e-16 of
 * max(|sin x|, 1e-3) against mpmath (the reference file's third column; at most 2.2e-16). */
CUB_HD double cub_sin_reduced(double x, int *wide)
{
	double r;
	const unsigned long long sign = cub_pi_reduce(x, &r, wide);
	const double s = r * r;
	return cub_flip_sign(r + r * s * cub_horner(CUB_TABLE(cub_sin), 8, s), sign);
}

/* cub_asin_reduced's constants (from tests/gen_cubature_asin.py --constants): pi/2 as the
 * double nearest it and the rest; the coefficients, c12 first, of P(z) = (asin(sqrt(z)) -
 * sqrt(z)) / z^1.5 on [0, 1/4] as a polynomial of degree 12 (mpmath's Chebyshev fit, error
 * 1.5e-17). On the GPU they sit in constant memory. */
#define CUB_ASIN_CONSTANTS                                                                         \
	1.5707963267948966, 6.123233995736766e-17, 0.028757851367421566, -0.014851887071247204,    \
	    0.01740087944269402, 0.005457506718640358, 0.01032281435018578, 0.011479177415184906,  \
	    0.013971212973552933, 0.017352392720869973, 0.02237217294214989, 0.030381944138531247, \
	    0.04464285714635543, 0.07499999999998433, 0.16666666666666669
static const double cub_asin_host[] = {CUB_ASIN_CONSTANTS};
#ifdef __CUDACC__
static __constant__ double cub_asin_dev[] = {CUB_ASIN_CONSTANTS};
#endif

/* 1/sqrt(w) for w in [2^-54, 1/2] (cub_asin_reduced's), and NaN for w < 0: on the GPU the
 * reciprocal square root's hardware approximation (good to about 2^-22), on the host 1 /
 * sqrt(w); one step of the third-order Newton iteration y (1 + e/2 + 3e^2/8), e = 1 - w y^2,
 * cubes its relative error, so the GPU's result is as accurate as the host's (the host's tests
 * check the same steps; the two can differ in the last bit where the compilers contract
 * multiplications and additions differently). 5 double operations and no branch (CUDA's sqrt tests
 * its argument and branches to a slow path at every call). */
CUB_HD double cub_rsqrt_asin(double w)
{
#ifdef __CUDA_ARCH__
	double y;
	asm("rsqrt.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(w));
#else
	double y = 1 / sqrt(w);
#endif
	const double e = fma(-w, y * y, 1.0);
	return fma(fma(e, 0.375, 0.5), y * e, y);
}

/* asin(x) in double for f3 and f4, NaN for |x| > 1. With t = |x|, s is t up to 1/2 and
 * sqrt((1 - t) / 2) past it, where asin(t) = pi/2 - 2 asin(s); asin(s) = s + s z P(z) with
 * z = s^2 in [0, 1/4], and past 1/2 the result is (pi/2 - 2s) + (pi/2's second part - 2 s z
 * P(z)). Every lane computes the square root (cub_rsqrt_asin, then one correction of the
 * root's residual) and the polynomial once, on the z its t selects, and selects between
 * values: 29 double operations and no branch, so that a point's asins interleave (CUDA's asin
 * branches between its halves at every call: about 15 operations below 0.575 and 26 above, both
 * where a warp's lanes disagree, and the branches keep a point's asins apart). At the 1653
 * points of tests/data/cubature_asin_ref.csv (mpmath) its error is at most 2.8e-16 absolute and
 * relative, as over 5e7 random points in [0, 1] against long double's asinl (without the root's
 * correction 4.1e-16 relative). */
CUB_HD double cub_asin_reduced(double x)
{
	const double *k = CUB_TABLE(cub_asin);
	const double t = fabs(x), w = fma(-0.5, t, 0.5);
	const int big = t > 0.5;
	const double y = cub_rsqrt_asin(w), r0 = w * y, root = fma(fma(-r0, r0, w), 0.5 * y, r0);
	/* w = 0 (t = 1): root is NaN from 0 * inf, and asin(1) = pi/2 */
	const double s = big ? (w == 0 ? 0.0 : root) : t, z = big ? w : t * t;
	const double q = s * z * cub_horner(k + 2, 13, z);
	const double past = fma(-2.0, s, k[0]) + fma(-2.0, q, k[1]), upto = s + q;
	return copysign(big ? past : upto, x);
}

/* The largest |argument| fn's cosines (and f4's sine) can take on the box [a, b]^dim (0 for
 * the integrands without one; infinite for f4 past [-1, 1], where asin is NaN): the GPU's
 * kernels made for an integrand use cub_cos_reduced and cub_sin_reduced without the second
 * evaluation when it is within CUB_COS_LIMIT. */
static inline double cub_trig_arg_bound(const struct cub_fn *fn, double a, double b)
{
	const double m = fmax(fabs(a), fabs(b));
	double s = 0;
	switch (fn->kind) {
	case CUB_F1:
	case CUB_F1P2:
		return fn->dim * m * m;
	case CUB_F2: /* cos(4^i x_i), then the cosine of their product, at most 1 */
		return fmax(ldexp(m, 2 * fn->dim), 1.0);
	case CUB_F4: /* |asin| <= pi/2 */
		return m <= 1 ? pow(CUB_PI / 2, fn->dim) : INFINITY;
	case CUB_F5:
		return 10 * m;
	case CUB_OSC:
		s = 2 * CUB_PI * fabs(fn->w[0]);
		for (int i = 0; i < fn->dim; i++)
			s += fabs(fn->c[i]) * m;
		return s;
	default:
		return 0;
	}
}

/* A 64-bit mix of (seed, k) (splitmix64's finalizer). */
CUB_HD unsigned long long cub_hash(unsigned long long seed, unsigned long long k)
{
	unsigned long long z = seed * 0x9E3779B97F4A7C15ULL + (k + 1) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

#endif

#ifdef CUB_REAL
#define CUB_CAT2(a, b) a##_##b
#define CUB_CAT(a, b) CUB_CAT2(a, b)
#define CUB_FN(name) CUB_CAT(name, CUB_SUFFIX)
#if CUB_SUFFIX_IS_FLOAT
#define CUB_M(fn) fn##f
#define CUB_COS(v) cosf(v)
#define CUB_SIN(v) sinf(v)
#define CUB_ASIN(v) asinf(v)
#else
#define CUB_M(fn) fn
#define CUB_COS(v) (wide ? cub_cos_reduced(v, wide) : cos(v))
#define CUB_SIN(v) (wide ? cub_sin_reduced(v, wide) : sin(v))
#define CUB_ASIN(v) cub_asin_reduced(v)
#endif

/* The integrand fn at the point x (fn->dim coordinates), in precision CUB_REAL; in double with
 * wide, its cosines (and f4's sine) are cub_cos_reduced's and cub_sin_reduced's (which set
 * *wide past their range), without it the C library's; in double its asins (f3, f4) are
 * cub_asin_reduced's, in float asinf's. */
CUB_HD CUB_REAL CUB_FN(cub_f_body)(const struct cub_fn *fn, const CUB_REAL *x, int *wide)
{
#if CUB_SUFFIX_IS_FLOAT
	(void)wide;
#endif
	const int n = fn->dim;
	CUB_REAL s = 0, p = 1;
	switch (fn->kind) {
	case CUB_F1:
	case CUB_F1P2: {
		for (int i = 0; i < n; i++)
			s += x[i] * x[i];
		const CUB_REAL c = CUB_COS(s), g = 1 / ((CUB_REAL)0.1 + c * c);
		return fn->kind == CUB_F1 ? g : g * g;
	}
	case CUB_F2: {
		CUB_REAL f = 4;
		for (int i = 0; i < n; i++, f *= 4)
			p *= CUB_COS(f * x[i]);
		return CUB_COS(p);
	}
	case CUB_F3:
		for (int i = 0; i < n; i++) {
			CUB_REAL xi = 1;
			for (int k = 0; k <= i; k++)
				xi *= x[i];
			p *= (CUB_REAL)(i + 1) * CUB_ASIN(xi);
		}
		return CUB_M(sin)(p);
	case CUB_F4:
		for (int i = 0; i < n; i++)
			p *= CUB_ASIN(x[i]);
		return CUB_SIN(p);
	case CUB_F5:
		for (int i = 0; i < n; i++)
			s += CUB_COS(10 * x[i]);
		return s * (CUB_REAL)(0.5 / CUB_F5_BETA);
	case CUB_OSC:
		s = (CUB_REAL)(2 * CUB_PI * fn->w[0]);
		for (int i = 0; i < n; i++)
			s += (CUB_REAL)fn->c[i] * x[i];
		return CUB_COS(s);
	case CUB_PRODUCT_PEAK:
		for (int i = 0; i < n; i++) {
			const CUB_REAL c = (CUB_REAL)fn->c[i], d = x[i] - (CUB_REAL)fn->w[i];
			p *= 1 / (1 / (c * c) + d * d);
		}
		return p;
	case CUB_CORNER_PEAK:
		s = 1;
		for (int i = 0; i < n; i++)
			s += (CUB_REAL)fn->c[i] * x[i];
		for (int i = 0; i <= n; i++)
			p /= s;
		return p;
	case CUB_GAUSSIAN:
		for (int i = 0; i < n; i++) {
			const CUB_REAL d = (CUB_REAL)fn->c[i] * (x[i] - (CUB_REAL)fn->w[i]);
			s += d * d;
		}
		return CUB_M(exp)(-s);
	case CUB_C0:
		for (int i = 0; i < n; i++)
			s += (CUB_REAL)fn->c[i] * CUB_M(fabs)(x[i] - (CUB_REAL)fn->w[i]);
		return CUB_M(exp)(-s);
#ifndef __CUDA_ARCH__
	case CUB_USER: /* the host's compiled code; the GPU's kernels for it call theirs */
#if CUB_SUFFIX_IS_FLOAT
		return fn->user_f(x, fn->user);
#else
		return fn->user_d(x, fn->user);
#endif
#endif
	default: /* CUB_DISCONTINUOUS */
		if (x[0] > (CUB_REAL)fn->w[0] || (n > 1 && x[1] > (CUB_REAL)fn->w[1]))
			return 0;
		for (int i = 0; i < n; i++)
			s += (CUB_REAL)fn->c[i] * x[i];
		return CUB_M(exp)(s);
	}
}

/* The integrand fn at the point x (fn->dim coordinates), in precision CUB_REAL: in double with
 * cub_cos_reduced and cub_sin_reduced, evaluated again with the C library's cos and sin if an
 * argument was past their range. */
CUB_HD CUB_REAL CUB_FN(cub_f)(const struct cub_fn *fn, const CUB_REAL *x)
{
#if CUB_SUFFIX_IS_FLOAT
	return CUB_FN(cub_f_body)(fn, x, NULL);
#else
	int wide = 0;
	const double v = CUB_FN(cub_f_body)(fn, x, &wide);
	return wide ? CUB_FN(cub_f_body)(fn, x, NULL) : v;
#endif
}

#undef CUB_CAT2
#undef CUB_CAT
#undef CUB_FN
#undef CUB_M
#undef CUB_COS
#undef CUB_SIN
#undef CUB_ASIN
#endif
