/* cubature_integrands.c - problem cubature's built-in integrands beyond their values
 * (cubature_integrands.h): Genz's vectors, the exact integrals in closed form or from the
 * committed table (cubature_ref.h), and each Genz family as an expression. */
#include "cubature_integrands.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cubature_math_all.h"
#include "cubature_ref.h"

const char *const cub_integrand_names[] = {"f1",         "f1p2",     "f2",          "f3",
                                           "f4",         "f5",       "oscillatory", "productpeak",
                                           "cornerpeak", "gaussian", "c0",          "discontinuous",
                                           NULL};

/* f2 and f4 on [0,1]^dim for dim 4..8, tabulated to 15 digits (no closed form). */
static const double cub_f2_known[5] = {0.965045097629949, 0.982404737246461, 0.991158045129322,
                                       0.995561836501742, 0.997774518805240};
static const double cub_f4_known[5] = {0.0999091341286321, 0.0578210493298577, 0.0333572201092090,
                                       0.0191969946696291, 0.0110270689585587};

/* Genz's difficulty: the c_i are scaled so that sum c_i = h / dim^expo (his test package). */
static const double genz_h[6] = {110, 600, 600, 100, 150, 100};
static const double genz_expo[6] = {1.5, 2, 2, 1, 2, 2};

/* Genz's vectors of the integrand kind in dim dimensions (cubature_integrands.h). */
struct cub_fn cub_fn_make(int kind, int dim, unsigned long long seed)
{
	struct cub_fn fn = {.kind = kind, .dim = dim};
	if (fn.kind >= CUB_OSC && fn.kind < CUB_USER) {
		const int fam = fn.kind - CUB_OSC;
		double sum = 0;
		for (int i = 0; i < fn.dim; i++) {
			fn.c[i] = (double)(cub_hash(seed, i) >> 11) * 0x1p-53;
			fn.w[i] = (double)(cub_hash(seed, 64 + i) >> 11) * 0x1p-53;
			sum += fn.c[i];
		}
		const double target = genz_h[fam] / pow(fn.dim, genz_expo[fam]);
		for (int i = 0; i < fn.dim; i++)
			fn.c[i] *= sum > 0 ? target / sum : 0;
	}
	return fn;
}

/* int_a^b e^{-c |x - w|} dx. */
static double cub_c0_1d(double c, double w, double a, double b)
{
	if (w <= a)
		return (exp(-c * (a - w)) - exp(-c * (b - w))) / c;
	if (w >= b)
		return (exp(-c * (w - b)) - exp(-c * (w - a))) / c;
	return (2 - exp(-c * (w - a)) - exp(-c * (b - w))) / c;
}

/* The exact integral of fn over [a, b]^dim (cubature_integrands.h). */
double cub_exact(const struct cub_fn *fn, double a, double b)
{
	const int n = fn->dim, unit = a == 0 && b == 1;
	double prod = 1;
	switch (fn->kind) {
	case CUB_F5:
		return n * pow(b - a, n - 1) * (sin(10 * b) - sin(10 * a)) / 10 / (2 * CUB_F5_BETA);
	case CUB_OSC: {
		double complex z = cexp(I * 2 * CUB_PI * fn->w[0]);
		for (int i = 0; i < n; i++)
			z *= fn->c[i] > 0 ? (cexp(I * fn->c[i] * b) - cexp(I * fn->c[i] * a)) /
			                        (I * fn->c[i])
			                  : b - a;
		return creal(z);
	}
	case CUB_PRODUCT_PEAK:
		for (int i = 0; i < n; i++)
			prod *= fn->c[i] *
			        (atan(fn->c[i] * (b - fn->w[i])) - atan(fn->c[i] * (a - fn->w[i])));
		return prod;
	case CUB_CORNER_PEAK: {
		long double sum = 0, scale = 1;
		if (n > 20) /* 2^n terms that cancel: none past dim 20 */
			return NAN;
		for (int i = 0; i < n; i++)
			scale *= (long double)fn->c[i] * (i + 1);
		for (long v = 0; v < 1L << n; v++) {
			long double s = 1;
			int ones = 0;
			for (int i = 0; i < n; i++) {
				const int hi = (v >> i) & 1;
				s += (long double)fn->c[i] * (hi ? b : a);
				ones += hi;
			}
			sum += (ones & 1 ? -1 : 1) / s;
		}
		return (double)(sum / scale);
	}
	case CUB_GAUSSIAN:
		for (int i = 0; i < n; i++)
			prod *= sqrt(CUB_PI) / (2 * fn->c[i]) *
			        (erf(fn->c[i] * (b - fn->w[i])) - erf(fn->c[i] * (a - fn->w[i])));
		return prod;
	case CUB_C0:
		for (int i = 0; i < n; i++)
			prod *= cub_c0_1d(fn->c[i], fn->w[i], a, b);
		return prod;
	case CUB_DISCONTINUOUS:
		for (int i = 0; i < n; i++) {
			const double hi = i < 2 && fn->w[i] < b ? fn->w[i] : b;
			if (hi <= a)
				return 0;
			prod *= (exp(fn->c[i] * hi) - exp(fn->c[i] * a)) / fn->c[i];
		}
		return prod;
	default:
		break;
	}
	if (!unit || fn->kind == CUB_USER)
		return NAN;
	if (fn->kind == CUB_F2 && n >= 4 && n <= 8)
		return cub_f2_known[n - 4];
	if (fn->kind == CUB_F4 && n >= 4 && n <= 8)
		return cub_f4_known[n - 4];
	for (size_t i = 0; i < sizeof cub_ref_table / sizeof cub_ref_table[0]; i++)
		if (cub_ref_table[i].dim == n &&
		    !strcmp(cub_ref_table[i].integrand, cub_integrand_names[fn->kind]))
			return cub_ref_table[i].value;
	return NAN;
}

/* Genz's families as expressions (cubature_integrands.h). */
int cub_fn_expression(const struct cub_fn *fnp, char *buf, size_t cap)
{
	const struct cub_fn fn = *fnp;
	size_t n = 0;
	int w;
#define CUB_PUT(...)                                                                               \
	do {                                                                                       \
		w = snprintf(buf + n, n < cap ? cap - n : 0, __VA_ARGS__);                         \
		if (w < 0 || (n += (size_t)w) >= cap)                                              \
			return -1;                                                                 \
	} while (0)
	switch (fn.kind) {
	case CUB_GAUSSIAN: /* exp(-s), s the sum of (c (x - w))^2 */
		CUB_PUT("exp(-(");
		for (int i = 0; i < fn.dim; i++)
			CUB_PUT("%s(%.17g*(x%d-%.17g))^2", i ? "+" : "", fn.c[i], i + 1, fn.w[i]);
		CUB_PUT("))");
		return 0;
	case CUB_PRODUCT_PEAK: /* the product of 1 / (1/c^2 + (x - w)^2) */
		for (int i = 0; i < fn.dim; i++)
			CUB_PUT("%s1/(1/%.17g^2+(x%d-%.17g)^2)", i ? "*" : "", fn.c[i], i + 1,
			        fn.w[i]);
		return 0;
	case CUB_OSC: /* cos(2 pi w1 + sum c x) */
		CUB_PUT("cos(%.17g", 2 * CUB_PI * fn.w[0]);
		for (int i = 0; i < fn.dim; i++)
			CUB_PUT("+%.17g*x%d", fn.c[i], i + 1);
		CUB_PUT(")");
		return 0;
	case CUB_C0: /* exp(-sum c |x - w|) */
		CUB_PUT("exp(-(");
		for (int i = 0; i < fn.dim; i++)
			CUB_PUT("%s%.17g*abs(x%d-%.17g)", i ? "+" : "", fn.c[i], i + 1, fn.w[i]);
		CUB_PUT("))");
		return 0;
	default:
		return -1;
	}
#undef CUB_PUT
}

/* cub_fn_at (cubature_integrands.h). */
double cub_fn_at(const struct cub_fn *fn, const double *x, int single)
{
	if (!single)
		return cub_f_d(fn, x);
	float xf[CUB_FN_MAX_DIM] = {0};
	for (int i = 0; i < fn->dim; i++)
		xf[i] = (float)x[i];
	return cub_f_f(fn, xf);
}
