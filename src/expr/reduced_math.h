/* reduced_math.h - cos, sin and asin in double without branches, for the CPU (C11), the GPU
 * (nvcc) and the code quadx compiles at run time (NVRTC, the system C compiler: this file's
 * text is embedded in quadx and put before the source of a user's integrand). cubature's
 * built-in integrands and the expressions the user types share them, so that an expression
 * does the built-in's arithmetic. Self-contained: no include but the C library's headers, and
 * none under NVRTC, which has the math functions built in. */
#ifndef QX_REDUCED_MATH_H
#define QX_REDUCED_MATH_H

/* The largest |x| qx_cos_reduced and qx_sin_reduced take (under 2^15 pi, where the reduction's
 * product is exact); past it their value is meaningless and the caller uses the C library's. */
#define QX_REDUCED_LIMIT 1e5

/* QX_REDUCED_LIMIT_ONLY: the limit alone, for code that writes calls to the functions. */
#ifndef QX_REDUCED_LIMIT_ONLY

#ifndef __CUDACC_RTC__
#include <math.h>
#include <string.h>
#endif

#ifdef __CUDACC__
#define QX_RM_FN __host__ __device__ __forceinline__
#else
#define QX_RM_FN static inline
#endif

/* qx_cos_reduced's constants (from tests/gen_cubature_cos.py --constants): 1/pi; pi in two
 * parts, the first of 38 bits (q times it is exact for |q| < 2^15, where x - q times it is
 * exact too); the coefficients, c8 first, of cos(sqrt(s)) on [0, (pi/2)^2] as a polynomial of
 * degree 8 (mpmath's Chebyshev fit, error 3.9e-18). On the GPU they sit in constant memory. */
#define QX_RM_COS_CONSTANTS                                                                        \
	1 / 3.14159265358979323846, 3.1415926535846666, 5.126688303189038e-12,                     \
	    4.608977003001797e-14, -1.1462901901757276e-11, 2.0876561839933163e-09,                \
	    -2.755731639102575e-07, 2.4801587277414926e-05, -0.001388888888877299,                 \
	    0.04166666666666388, -0.4999999999999997, 1.0
/* qx_sin_reduced's coefficients (tests/gen_cubature_cos.py --constants), c7 first, of
 * S(s) = (sin(sqrt(s)) - sqrt(s)) / s^1.5 on [0, (pi/2)^2] as a polynomial of degree 7
 * (mpmath's Chebyshev fit, error 3.4e-19); sin(r) = r + r s S(s), s = r^2. */
#define QX_RM_SIN_CONSTANTS                                                                        \
	2.7314447669863995e-15, -7.643970296798572e-13, 1.6058977312464087e-10,                    \
	    -2.5052107616996182e-08, 2.7557319219163234e-06, -0.00019841269841254974,              \
	    0.008333333333333316, -0.16666666666666666
/* qx_asin_reduced's constants (from tests/gen_cubature_asin.py --constants): pi/2 as the
 * double nearest it and the rest; the coefficients, c12 first, of P(z) = (asin(sqrt(z)) -
 * sqrt(z)) / z^1.5 on [0, 1/4] as a polynomial of degree 12 (mpmath's Chebyshev fit, error
 * 1.5e-17). */
#define QX_RM_ASIN_CONSTANTS                                                                       \
	1.5707963267948966, 6.123233995736766e-17, 0.028757851367421566, -0.014851887071247204,    \
	    0.01740087944269402, 0.005457506718640358, 0.01032281435018578, 0.011479177415184906,  \
	    0.013971212973552933, 0.017352392720869973, 0.02237217294214989, 0.030381944138531247, \
	    0.04464285714635543, 0.07499999999998433, 0.16666666666666669

/* The tables: the host's, and the GPU's in constant memory; QX_RM_TABLE(name) is the copy of
 * the side the code is compiled for. NVRTC compiles for the GPU alone. */
#ifndef __CUDACC_RTC__
static const double qx_rm_cos_host[] = {QX_RM_COS_CONSTANTS};
static const double qx_rm_sin_host[] = {QX_RM_SIN_CONSTANTS};
static const double qx_rm_asin_host[] = {QX_RM_ASIN_CONSTANTS};
#endif
#ifdef __CUDACC__
static __constant__ double qx_rm_cos_dev[] = {QX_RM_COS_CONSTANTS};
static __constant__ double qx_rm_sin_dev[] = {QX_RM_SIN_CONSTANTS};
static __constant__ double qx_rm_asin_dev[] = {QX_RM_ASIN_CONSTANTS};
#endif
#ifdef __CUDA_ARCH__
#define QX_RM_TABLE(name) qx_rm_##name##_dev
#else
#define QX_RM_TABLE(name) qx_rm_##name##_host
#endif

/* The polynomial of coefficients k[0..n-1], highest degree first, at s (Horner's rule). */
QX_RM_FN double qx_rm_horner(const double *k, int n, double s)
{
	double p = k[0];
	for (int i = 1; i < n; i++)
		p = p * s + k[i];
	return p;
}

/* The bits of v. */
QX_RM_FN unsigned long long qx_rm_bits(double v)
{
#ifdef __CUDA_ARCH__
	return (unsigned long long)__double_as_longlong(v);
#else
	unsigned long long b;
	memcpy(&b, &v, sizeof b);
	return b;
#endif
}

/* x less the nearest multiple q pi, into *r (in [-pi/2, pi/2]; Cody and Waite's reduction,
 * exact for |x| <= QX_REDUCED_LIMIT); returns q's parity as a sign bit (0 or 1 << 63):
 * cos(x) = (-1)^q cos(r) and sin(x) = (-1)^q sin(r). */
QX_RM_FN unsigned long long qx_rm_pi_reduce(double x, double *r)
{
	const double *k = QX_RM_TABLE(cos);
	/* the nearest integer to x / pi: 1.5 2^52 has unit spacing, so t's last bit is q's */
	const double t = x * k[0] + 0x1.8p52, q = t - 0x1.8p52;
	*r = x - q * k[1] - q * k[2];
	return qx_rm_bits(t) << 63;
}

/* v with its sign bit flipped by sign (0 or 1 << 63). */
QX_RM_FN double qx_rm_flip_sign(double v, unsigned long long sign)
{
	const unsigned long long b = qx_rm_bits(v) ^ sign;
#ifdef __CUDA_ARCH__
	return __longlong_as_double((long long)b);
#else
	memcpy(&v, &b, sizeof v);
	return v;
#endif
}

/* cos(x) for |x| <= QX_REDUCED_LIMIT: x less the nearest multiple q pi is r in [-pi/2, pi/2]
 * (qx_rm_pi_reduce), and cos(x) = (-1)^q P(r^2). Absolute error under 4e-16 against mpmath
 * (tests/data/cubature_cos_ref.csv). Without a branch, the GPU evaluates it in 13 double
 * operations and no table, and an integrand's cosines interleave; CUDA's cos reduces by pi/2,
 * converts q twice, loads its coefficients from memory and branches for every call. */
QX_RM_FN double qx_cos_reduced(double x)
{
	double r;
	const unsigned long long sign = qx_rm_pi_reduce(x, &r);
	return qx_rm_flip_sign(qx_rm_horner(QX_RM_TABLE(cos) + 3, 9, r * r), sign);
}

/* sin(x) for |x| <= QX_REDUCED_LIMIT, as qx_cos_reduced: (-1)^q (r + r s S(s)), s = r^2.
 * Error under 4e-16 of max(|sin x|, 1e-3) against mpmath (at most 2.2e-16). */
QX_RM_FN double qx_sin_reduced(double x)
{
	double r;
	const unsigned long long sign = qx_rm_pi_reduce(x, &r);
	const double s = r * r;
	return qx_rm_flip_sign(r + r * s * qx_rm_horner(QX_RM_TABLE(sin), 8, s), sign);
}

/* 1/sqrt(w) for w in [2^-54, 1/2] (qx_asin_reduced's), and NaN for w < 0: on the GPU the
 * reciprocal square root's hardware approximation (good to about 2^-22), on the host 1 /
 * sqrt(w); one step of the third-order Newton iteration y (1 + e/2 + 3e^2/8), e = 1 - w y^2,
 * cubes its relative error, so the GPU's result is as accurate as the host's (the two can
 * differ in the last bit where the compilers contract multiplications and additions
 * differently). 5 double operations and no branch (CUDA's sqrt branches to a slow path). */
QX_RM_FN double qx_rm_rsqrt(double w)
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

/* asin(x) for any x, NaN for |x| > 1. With t = |x|, s is t up to 1/2 and sqrt((1 - t) / 2)
 * past it, where asin(t) = pi/2 - 2 asin(s); asin(s) = s + s z P(z) with z = s^2 in [0, 1/4],
 * and past 1/2 the result is (pi/2 - 2s) + (pi/2's second part - 2 s z P(z)). Every lane
 * computes the square root (qx_rm_rsqrt, then one correction of the root's residual) and the
 * polynomial once, on the z its t selects, and selects between values: 29 double operations
 * and no branch, so that a point's asins interleave (CUDA's asin branches between its halves
 * at every call). At the 1653 points of tests/data/cubature_asin_ref.csv (mpmath) its error is
 * at most 2.8e-16 absolute and relative, as over 5e7 random points in [0, 1] against long
 * double's asinl. */
QX_RM_FN double qx_asin_reduced(double x)
{
	const double *k = QX_RM_TABLE(asin);
	const double t = fabs(x), w = fma(-0.5, t, 0.5);
	const int big = t > 0.5;
	const double y = qx_rm_rsqrt(w), r0 = w * y, root = fma(fma(-r0, r0, w), 0.5 * y, r0);
	/* w = 0 (t = 1): root is NaN from 0 * inf, and asin(1) = pi/2 */
	const double s = big ? (w == 0 ? 0.0 : root) : t, z = big ? w : t * t;
	const double q = s * z * qx_rm_horner(k + 2, 13, z);
	const double past = fma(-2.0, s, k[0]) + fma(-2.0, q, k[1]), upto = s + q;
	return copysign(big ? past : upto, x);
}

#endif /* QX_REDUCED_LIMIT_ONLY */

#endif
