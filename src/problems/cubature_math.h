/* cubature_math.h - what the CPU (C11) and the GPU (CUDA) share for problem `cubature`: the
 * integrands and their parameters. The integrand itself is a template over the precision:
 * include this header with CUB_REAL (double or float) and CUB_SUFFIX (d or f) defined to get
 * cub_f_d / cub_f_f; the untemplated part (names, limits, the parameter struct) is guarded. */
#ifndef QX_CUBATURE_MATH_H
#define QX_CUBATURE_MATH_H

#include <math.h>

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
	CUB_NINTEGRANDS
};

/* One integrand: its kind and dimension, Genz's difficulty c and shift w (unused by f1..f5). */
struct cub_fn {
	int kind, dim;
	double c[CUB_MAX_DIM], w[CUB_MAX_DIM];
};

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
#else
#define CUB_M(fn) fn
#endif

/* The integrand fn at the point x (fn->dim coordinates), in precision CUB_REAL. */
CUB_HD CUB_REAL CUB_FN(cub_f)(const struct cub_fn *fn, const CUB_REAL *x)
{
	const int n = fn->dim;
	CUB_REAL s = 0, p = 1;
	switch (fn->kind) {
	case CUB_F1:
	case CUB_F1P2: {
		for (int i = 0; i < n; i++)
			s += x[i] * x[i];
		const CUB_REAL c = CUB_M(cos)(s), g = 1 / ((CUB_REAL)0.1 + c * c);
		return fn->kind == CUB_F1 ? g : g * g;
	}
	case CUB_F2: {
		CUB_REAL f = 4;
		for (int i = 0; i < n; i++, f *= 4)
			p *= CUB_M(cos)(f * x[i]);
		return CUB_M(cos)(p);
	}
	case CUB_F3:
		for (int i = 0; i < n; i++) {
			CUB_REAL xi = 1;
			for (int k = 0; k <= i; k++)
				xi *= x[i];
			p *= (CUB_REAL)(i + 1) * CUB_M(asin)(xi);
		}
		return CUB_M(sin)(p);
	case CUB_F4:
		for (int i = 0; i < n; i++)
			p *= CUB_M(asin)(x[i]);
		return CUB_M(sin)(p);
	case CUB_F5:
		for (int i = 0; i < n; i++)
			s += CUB_M(cos)(10 * x[i]);
		return s * (CUB_REAL)(0.5 / CUB_F5_BETA);
	case CUB_OSC:
		s = (CUB_REAL)(2 * CUB_PI * fn->w[0]);
		for (int i = 0; i < n; i++)
			s += (CUB_REAL)fn->c[i] * x[i];
		return CUB_M(cos)(s);
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
	default: /* CUB_DISCONTINUOUS */
		if (x[0] > (CUB_REAL)fn->w[0] || (n > 1 && x[1] > (CUB_REAL)fn->w[1]))
			return 0;
		for (int i = 0; i < n; i++)
			s += (CUB_REAL)fn->c[i] * x[i];
		return CUB_M(exp)(s);
	}
}

#undef CUB_CAT2
#undef CUB_CAT
#undef CUB_FN
#undef CUB_M
#endif
