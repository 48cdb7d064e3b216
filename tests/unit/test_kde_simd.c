/* test_kde_simd.c - the exact sums' inner loops (src/problems/kde/kde_simd.h) on every instruction
 * set this CPU runs, each forced in turn (scalar, AVX2, AVX-512): against long double sums of
 * the same inputs in 1-D to 3-D, for sample counts around the vector widths, the runs and the
 * tiles; a group of outputs against the same outputs one at a time; denormals flushed and the
 * MXCSR restored; the dispatch against the CPU's features. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "../../src/problems/kde/kde_math.h"
#include "../../src/problems/kde/kde_simd.h"

/* Sample counts: below, at and above the vector widths (4, 8, 16), the float runs (128, 256
 * samples) and the tiles (4096). */
static const size_t counts[] = {1, 3, 7, 8, 9, 15, 16, 17, 255, 256, 257, 4095, 4096, 4097, 10007};

/* Scaled samples of dimension 3 (normal, spread 3) in double and their float copies, and 16
 * output points: samples, points between them and points in the tails. */
struct data {
	size_t n;
	double *x[3];
	float *u[3];
	double px[3][KDE_SIMD_GROUP];
	float pu[3][KDE_SIMD_GROUP];
};

/* Fills d with n samples (seed 5) and the output points; owned until data_free. */
static void data_make(struct data *d, size_t n)
{
	struct kde_points s;
	struct qx_err e;
	assert_int_equal(kde_points_alloc(&s, n, 3, &e), 0);
	kde_generate(KDE_NORMAL, 5, &s);
	d->n = n;
	for (int k = 0; k < 3; k++) {
		d->x[k] = malloc(n * sizeof(double));
		d->u[k] = malloc(n * sizeof(float));
		assert_non_null(d->x[k]);
		assert_non_null(d->u[k]);
		for (size_t j = 0; j < n; j++) {
			d->x[k][j] = 3 * s.x[k][j];
			d->u[k][j] = (float)d->x[k][j];
		}
		for (int r = 0; r < KDE_SIMD_GROUP; r++) {
			/* r < 8: at sample r % n; then 0.37 r - 2 off the first; r >= 13 in the
			 * tail */
			const double v = r < 8
			                     ? d->x[k][(size_t)r % n]
			                     : d->x[k][0] + 0.37 * r - 2 + (r >= 13 ? 3.0 * k : 0);
			d->px[k][r] = v;
			d->pu[k][r] = (float)v;
		}
	}
	kde_points_free(&s);
}

/* Frees what data_make allocated. */
static void data_free(struct data *d)
{
	for (int k = 0; k < 3; k++) {
		free(d->x[k]);
		free(d->u[k]);
	}
}

/* sum_j exp(-sum_k ((p_k - x_kj) sc_k)^2) in long double for output r; *qmin is the smallest
 * exponent q (the relative error of exp(-q) grows with q: a few ulps of q). */
static long double ref_d(const struct data *d, int dim, int r, const double *sc, double *qmin)
{
	long double sum = 0;
	*qmin = INFINITY;
	for (size_t j = 0; j < d->n; j++) {
		long double q = 0;
		for (int k = 0; k < dim; k++) {
			const long double t = ((long double)d->px[k][r] - d->x[k][j]) * sc[k];
			q += t * t;
		}
		*qmin = fmin(*qmin, (double)q);
		sum += expl(-q);
	}
	return sum;
}

/* sum_j exp2(-sum_k (p_k - u_kj)^2) in long double for output r, from the float inputs; *qmin
 * is the smallest exponent q. */
static long double ref_f(const struct data *d, int dim, int r, double *qmin)
{
	long double sum = 0;
	*qmin = INFINITY;
	for (size_t j = 0; j < d->n; j++) {
		long double q = 0;
		for (int k = 0; k < dim; k++) {
			const long double t = (long double)d->pu[k][r] - d->u[k][j];
			q += t * t;
		}
		*qmin = fmin(*qmin, (double)q);
		sum += exp2l(-q);
	}
	return sum;
}

/* Every instruction set this CPU runs, forced in turn: the double sums within 1e-15 + 4e-16 q
 * and the float sums within 1e-6 + 2e-7 q of long double, q the output's smallest exponent
 * (the nearest sample's: the error of exp(-q) is a few ulps of q); near a sample (q < 1) float
 * within 2e-7, which float sums of whole tiles (no runs) exceed. Over 16 outputs, dim 1 to 3
 * and every count; float sums below 1e-30 (deep in the tail) are skipped. */
static void test_sums_against_long_double(void **state)
{
	const double sc[3] = {0.5, 0.8, 1.3};
	(void)state;
	for (int isa = KDE_ISA_SCALAR; isa <= (int)kde_simd_best(); isa++) {
		double worst_d = 0, worst_f = 0;
		size_t checked_f = 0;
		for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
			struct data d;
			data_make(&d, counts[c]);
			for (int dim = 1; dim <= 3; dim++) {
				const double *px[3] = {d.px[0], d.px[1], d.px[2]};
				const float *pu[3] = {d.pu[0], d.pu[1], d.pu[2]};
				double yd[KDE_SIMD_GROUP], yf[KDE_SIMD_GROUP];
				kde_simd_sums_d(isa, d.n, dim, (const double *const *)d.x,
				                KDE_SIMD_GROUP, px, sc, yd);
				kde_simd_sums_f(isa, d.n, dim, (const float *const *)d.u,
				                KDE_SIMD_GROUP, pu, yf);
				for (int r = 0; r < KDE_SIMD_GROUP; r++) {
					double qd, qf;
					const long double vd = ref_d(&d, dim, r, sc, &qd);
					const long double vf = ref_f(&d, dim, r, &qf);
					const double ed = (double)fabsl((yd[r] - vd) / vd);
					if (!(ed <= 1e-15 + 4e-16 * qd))
						fail_msg("%s double n %zu dim %d output %d: %.17g, "
						         "long double %.17Lg (rel %.2g)",
						         kde_isa_name(isa), d.n, dim, r, yd[r], vd,
						         ed);
					if (qd < 1)
						worst_d = fmax(worst_d, ed);
					if (vf < 1e-30L)
						continue;
					const double ef = (double)fabsl((yf[r] - vf) / vf);
					if (!(ef <= (qf < 1 ? 2e-7 : 1e-6 + 2e-7 * qf)))
						fail_msg("%s float n %zu dim %d output %d: %.9g, "
						         "long double %.12Lg (rel %.2g)",
						         kde_isa_name(isa), d.n, dim, r, yf[r], vf,
						         ef);
					if (qf < 1)
						worst_f = fmax(worst_f, ef);
					checked_f++;
				}
			}
			data_free(&d);
		}
		assert_true(checked_f > 500);
		print_message("%s: worst relative error where q < 1: double %.2g, float %.2g\n",
		              kde_isa_name(isa), worst_d, worst_f);
	}
}

/* A group's sums equal those of its outputs computed one at a time, bit for bit (an output's
 * value does not depend on the group it is in, nor on the thread count), on every instruction
 * set, for every group size. */
static void test_group_equals_single(void **state)
{
	const double sc[3] = {0.7, 0.7, 0.7};
	struct data d;
	(void)state;
	data_make(&d, 5000);
	for (int isa = KDE_ISA_SCALAR; isa <= (int)kde_simd_best(); isa++)
		for (size_t m = 1; m <= KDE_SIMD_GROUP; m += 5) {
			const double *px[3] = {d.px[0], d.px[1], d.px[2]};
			const float *pu[3] = {d.pu[0], d.pu[1], d.pu[2]};
			double gd[KDE_SIMD_GROUP], gf[KDE_SIMD_GROUP];
			kde_simd_sums_d(isa, d.n, 2, (const double *const *)d.x, m, px, sc, gd);
			kde_simd_sums_f(isa, d.n, 2, (const float *const *)d.u, m, pu, gf);
			for (size_t r = 0; r < m; r++) {
				const double *qx[3] = {d.px[0] + r, d.px[1] + r, d.px[2] + r};
				const float *qu[3] = {d.pu[0] + r, d.pu[1] + r, d.pu[2] + r};
				double one_d, one_f;
				kde_simd_sums_d(isa, d.n, 2, (const double *const *)d.x, 1, qx, sc,
				                &one_d);
				kde_simd_sums_f(isa, d.n, 2, (const float *const *)d.u, 1, qu,
				                &one_f);
				assert_true(one_d == gd[r]);
				assert_true(one_f == gf[r]);
			}
		}
	data_free(&d);
}

/* The sums flush denormals inside (FTZ, DAZ) on x86-64, on every path, and give the caller's
 * MXCSR back: 100 samples at 0 and outputs at 11.6, each term 2^-134.56 (a float denormal),
 * sum to 0 there and to 100 times the denormal elsewhere. */
static void test_denormals_flushed(void **state)
{
	float zeros[100] = {0}, at[KDE_SIMD_GROUP];
	const float *u[1] = {zeros}, *p[1] = {at};
	(void)state;
	for (int r = 0; r < KDE_SIMD_GROUP; r++)
		at[r] = 11.6f;
	for (int isa = KDE_ISA_SCALAR; isa <= (int)kde_simd_best(); isa++) {
		double y[KDE_SIMD_GROUP];
#if defined(__x86_64__)
		const unsigned before = _mm_getcsr();
#endif
		kde_simd_sums_f(isa, 100, 1, u, KDE_SIMD_GROUP, p, y);
#if defined(__x86_64__)
		assert_int_equal(_mm_getcsr(), before);
#endif
#if defined(__x86_64__)
		const double expect = 0;
#else
		const double expect = 100 * (double)exp2f(-11.6f * 11.6f);
#endif
		for (int r = 0; r < KDE_SIMD_GROUP; r++)
			assert_true(y[r] == expect);
	}
	assert_true(exp2f(-11.6f * 11.6f) > 0 && exp2f(-11.6f * 11.6f) < 0x1p-126f);
}

/* The dispatch picks the widest instruction set the CPU has (gcc x86-64 builds; others are
 * scalar), and every set has its name. */
static void test_dispatch(void **state)
{
	(void)state;
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
	__builtin_cpu_init();
	const enum kde_isa expect =
	    __builtin_cpu_supports("avx512f")                                 ? KDE_ISA_AVX512
	    : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? KDE_ISA_AVX2
	                                                                      : KDE_ISA_SCALAR;
#else
	const enum kde_isa expect = KDE_ISA_SCALAR;
#endif
	assert_int_equal(kde_simd_best(), expect);
	assert_string_equal(kde_exact_isa(), kde_isa_name(expect));
	assert_string_equal(kde_isa_name(KDE_ISA_AVX512), "SLEEF AVX-512");
	assert_string_equal(kde_isa_name(KDE_ISA_AVX2), "SLEEF AVX2");
	assert_string_equal(kde_isa_name(KDE_ISA_SCALAR), "libm scalar");
	print_message("this CPU: %s\n", kde_exact_isa());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sums_against_long_double),
	    cmocka_unit_test(test_group_equals_single),
	    cmocka_unit_test(test_denormals_flushed),
	    cmocka_unit_test(test_dispatch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
