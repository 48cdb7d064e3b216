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

#define CUB_MAX_DIM 16    /* the rules' largest dim */
#define CUB_FN_MAX_DIM 64 /* the integrands' largest: the Monte Carlo variants' */
#define CUB_PI 3.14159265358979323846
/* f5's beta = sin(10)/10 (the two-phase adaptive cubature study prints -0.054402111088937). */
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
#define CUB_USER_DATA (CUB_USER_PARAMS + 2 * CUB_FN_MAX_DIM)

/* One integrand: its kind and dimension, Genz's difficulty c and shift w (unused by f1..f5);
 * for CUB_USER the data its compiled code reads and, on the host, that code (user_d, user_f:
 * double and float; the GPU's is linked into kernels of its own). */
struct cub_fn {
	int kind, dim;
	double c[CUB_FN_MAX_DIM], w[CUB_FN_MAX_DIM];
	double user[CUB_USER_DATA];
	double (*user_d)(const double *x, const double *p);
	float (*user_f)(const float *x, const double *p);
};

/* The branch-free double cos, sin and asin the built-ins share with the user's expressions
 * (reduced_math.h); cos and sin take |x| <= CUB_COS_LIMIT, and set *wide past it, where the
 * caller evaluates again with the C library's. */
#include "../../expr/reduced_math.h"
#define CUB_COS_LIMIT QX_REDUCED_LIMIT

/* cos(x) by qx_cos_reduced, setting *wide past its range: the integrand is then evaluated
 * again with the C library's cos (cub_f_d), or, in the GPU's kernels made for an integrand,
 * the host has checked the arguments' range (cub_trig_arg_bound). (f5's eight cosines a point
 * were most of its rule kernel's instructions with CUDA's cos.) */
CUB_HD double cub_cos_reduced(double x, int *wide)
{
	*wide |= !(fabs(x) <= CUB_COS_LIMIT);
	return qx_cos_reduced(x);
}

/* sin(x) by qx_sin_reduced, setting *wide past its range, as cub_cos_reduced. */
CUB_HD double cub_sin_reduced(double x, int *wide)
{
	*wide |= !(fabs(x) <= CUB_COS_LIMIT);
	return qx_sin_reduced(x);
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
#define CUB_ASIN(v) qx_asin_reduced(v)
#endif

/* The integrand fn at the point x (fn->dim coordinates), in precision CUB_REAL; in double with
 * wide, its cosines (and f4's sine) are cub_cos_reduced's and cub_sin_reduced's (which set
 * *wide past their range), without it the C library's; in double its asins (f3, f4) are
 * qx_asin_reduced's, in float asinf's. */
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
