/* longman.c - problem `longman`: M improper integrals I_k = int_a^inf e^{-lambda x} f(omega x)
 * dx (f = cos, sin or J0) by Longman's method (seed 001): the first part [a, x_1] and N
 * half-cycle areas between zeros by Gauss-Legendre of order g, summed by the Euler transform
 * or directly. The reference is the exact closed form. */
#include "../problem.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#ifdef QX_HAVE_CUDA
#include "../../cuda/longman.h"
#endif

/* The smallest omega: the last zero, (N + 1.5) pi / omega, and the values, up to 1 / omega,
 * stay far inside the float range (x_{N+1} <= 3.3e9 at N = 1024). */
#define LM_OMEGA_MIN 1e-6
/* The largest lambda / omega: at lambda = 8 omega, e^{-lambda x} falls by e^{-4 pi} over the
 * first part [0, pi/(2 omega)] and order-10 Gauss-Legendre still gives 5e-11 relative in
 * double; at 16 omega the error is 2e-6, at 64 omega 9%. */
#define LM_DECAY_MAX 8.0
/* The largest lambda |a| for a < 0: the integrals grow like e^{-lambda a}, which must stay
 * inside float (e^{88.7} is FLT_MAX; e^{80} leaves room for the other factors). */
#define LM_GROWTH_MAX 80.0

#define LM_REAL double
#define LM_SUFFIX d
#define LM_SUFFIX_IS_FLOAT 0
#include "longman_math.h"
#undef LM_REAL
#undef LM_SUFFIX
#undef LM_SUFFIX_IS_FLOAT
#define LM_REAL float
#define LM_SUFFIX f
#define LM_SUFFIX_IS_FLOAT 1
#include "longman_math.h"
#undef LM_REAL
#undef LM_SUFFIX
#undef LM_SUFFIX_IS_FLOAT

enum {
	P_M,
	P_N,
	P_G,
	P_LAMBDA,
	P_OMEGA,
	P_SPREAD,
	P_SEED,
	P_A,
	P_INTEGRAND,
	P_METHOD,
	P_MATH,
	P_LANES,
	P_COUNT
};

static const char *const spread_names[] = {"grid", "random", NULL};
static const char *const integrand_names[] = {"cos", "sin", "j0", NULL};
static const char *const method_names[] = {"euler", "direct", "auto", NULL};
static const char *const math_names[] = {"fast", "precise", NULL};

static const struct param_def longman_params_def[P_COUNT] = {
    [P_M] = {"M", PARAM_INT, 1, 1e9, 0, 50000, 0, NULL, "number of integrals", 0},
    [P_N] = {"N", PARAM_INT, 2, LM_NMAX, 0, 16, 0, NULL,
             "half-cycle areas V_0..V_{N-1} after the first part", 0},
    [P_G] = {"g", PARAM_INT, 1, LM_GMAX, 0, 10, 0, NULL, "Gauss-Legendre order per area", 0},
    [P_LAMBDA] = {"lambda", PARAM_RANGE, 0, 1e6, 0, 0.05, 0.5, NULL,
                  "decay rates lambda, spread over the integrals", 0},
    [P_OMEGA] = {"omega", PARAM_RANGE, LM_OMEGA_MIN, 1e6, 0, 5, 15, NULL,
                 "frequencies omega, spread over the integrals", 0},
    [P_SPREAD] = {"spread", PARAM_ENUM, 0, 0, 0, LM_GRID, 0, spread_names,
                  "grid: (lambda, omega) on a grid; random: uniform from seed", 0},
    [P_SEED] = {"seed", PARAM_INT, 0, 9007199254740991.0, 0, 1, 0, NULL, "seed of spread random",
                0},
    [P_A] = {"a", PARAM_REAL, -1e6, 1e6, 0, 0, 0, NULL, "lower limit of the integrals", 0},
    [P_INTEGRAND] = {"integrand", PARAM_ENUM, 0, 0, 0, LM_COS, 0, integrand_names,
                     "e^{-lambda x} times cos(omega x), sin(omega x) or J0(omega x)", 0},
    [P_METHOD] = {"method", PARAM_ENUM, 0, 0, 0, LM_AUTO, 0, method_names,
                  "euler transform, direct partial sum, or auto (euler when q > 1/3)", 0},
    [P_MATH] = {"math", PARAM_ENUM, 0, 0, 0, LM_PRECISE, 0, math_names,
                "GPU float: fast intrinsics (__expf, __cosf) or precise functions", 0},
    [P_LANES] = {"lanes", PARAM_INT, 0, 32, 0, 0, 0, NULL,
                 "GPU packed: lanes per integral, 1 2 4 8 16 32, or 0 = chosen for M", 0},
};

enum { V_PACKED, V_BLOCK, V_QAWF };

static const struct variant_def longman_variants[] = {
    [V_PACKED] = {"packed", QX_ON_CPU | QX_ON_GPU,
                  "GPU: a team of lanes per integral, the Euler sum as fixed weights of the\n"
                  "      areas reduced by warp shuffles; CPU: the plain loop (OpenMP by threads)",
                  0},
    [V_BLOCK] = {"block", QX_ON_GPU,
                 "the seed's layout: one block per integral, the N x N difference table in\n"
                 "      shared memory, a barrier per row",
                 0},
    [V_QAWF] = {"qawf", QX_ON_CPU,
                "GSL's gsl_integration_qawf (QUADPACK QAWF), double, cos and sin only", 0},
};

static const struct param_def longman_eval_args[] = {
    {"LAMBDA", PARAM_REAL, 0, 1e6, 0, 0, 0, NULL, "decay rate lambda >= 0", 0},
    {"OMEGA", PARAM_REAL, LM_OMEGA_MIN, 1e6, 0, 0, 0, NULL, "frequency omega", 0},
};

/* Host tables for order g and N areas, cached across runs: Gauss-Legendre nodes and weights,
 * the Euler weights of the areas, the binomial weights of the remainder estimate and the
 * zeros of J0, in double and float. */
struct longman_tables {
	int g, n;
	double t[LM_GMAX], w[LM_GMAX], c[LM_NMAX], bc[LM_NMAX + 1], z[LM_NMAX + 1];
	float tf[LM_GMAX], wf[LM_GMAX], cf[LM_NMAX], zf[LM_NMAX + 1];
};

/* Gauss-Legendre nodes t and weights w of order g on [-1, 1], by Newton on P_g. */
static void longman_gauss(int g, double *t, double *w)
{
	for (int i = 0; i < (g + 1) / 2; i++) {
		double z = cos(LM_PI * (i + 0.75) / (g + 0.5)), dp = 1;
		for (int it = 0; it < 100; it++) {
			double p1 = 1, p2 = 0;
			for (int j = 1; j <= g; j++) {
				const double p3 = p2;
				p2 = p1;
				p1 = ((2 * j - 1) * z * p2 - (j - 1) * p3) / j;
			}
			dp = g * (z * p1 - p2) / (z * z - 1);
			const double dz = p1 / dp;
			z -= dz;
			if (fabs(dz) < 1e-16)
				break;
		}
		t[i] = -z;
		t[g - 1 - i] = z;
		w[i] = w[g - 1 - i] = 2 / ((1 - z * z) * dp * dp);
	}
}

/* The first n zeros of J0: McMahon's expansion refined by Newton (J0' = -J1). */
static void longman_j0_zeros(int n, double *z)
{
	for (int k = 1; k <= n; k++) {
		const double b = (k - 0.25) * LM_PI, r = 1 / (8 * b);
		double x = b + r - 124.0 / 3 * r * r * r + 120928.0 / 15 * pow(r, 5);
		for (int it = 0; it < 20; it++) {
			const double dx = j0(x) / j1(x);
			x += dx;
			if (fabs(dx) < 1e-15 * x)
				break;
		}
		z[k - 1] = x;
	}
}

/* Euler weights c_j = sum_{r=j}^{n-1} C(r,j)/2^{r+1} (the transform as a linear combination
 * of the signed areas) and bc_j = C(n,j)/2^n (2^{-n} Delta^n V_0 = sum bc_j A_j up to sign). */
static void longman_euler_weights(int n, double *c, double *bc)
{
	double row[LM_NMAX + 1] = {0.5}; /* C(r,j) / 2^{r+1} */
	for (int j = 0; j < n; j++)
		c[j] = 0;
	for (int r = 0; r < n; r++) {
		for (int j = 0; j <= r; j++)
			c[j] += row[j];
		for (int j = r + 1; j > 0; j--)
			row[j] = (row[j] + row[j - 1]) / 2;
		row[0] /= 2;
	}
	for (int j = 0; j <= n; j++)
		bc[j] = 2 * row[j];
}

/* Returns the tables for (g, n), recomputed only when they change. */
static const struct longman_tables *longman_tables(int g, int n)
{
	static struct longman_tables tab;
	if (!tab.g) {
		longman_j0_zeros(LM_NMAX + 1, tab.z);
		for (int i = 0; i <= LM_NMAX; i++)
			tab.zf[i] = (float)tab.z[i];
	}
	if (tab.g != g) {
		longman_gauss(g, tab.t, tab.w);
		for (int i = 0; i < g; i++) {
			tab.tf[i] = (float)tab.t[i];
			tab.wf[i] = (float)tab.w[i];
		}
		tab.g = g;
	}
	if (tab.n != n) {
		longman_euler_weights(n, tab.c, tab.bc);
		for (int j = 0; j < n; j++)
			tab.cf[j] = (float)tab.c[j];
		tab.n = n;
	}
	return &tab;
}

/* Rejects what does not converge, has no exact value or cannot be computed: lambda = 0 with
 * cos or sin, a != 0 with j0, a largest lambda over LM_DECAY_MAX times the smallest omega
 * or, for a < 0, over LM_GROWTH_MAX / |a|. */
static int longman_check(const struct param_value *p, struct qx_err *e)
{
	const int f = (int)p[P_INTEGRAND].num, lanes = (int)p[P_LANES].num;
	if (p[P_LAMBDA].hi > LM_DECAY_MAX * p[P_OMEGA].num)
		return qx_fail(e,
		               "lambda %g is too large for omega %g: lambda must be <= %g omega "
		               "(else e^{-lambda x} vanishes before the first zero pi/(2 omega) "
		               "and Gauss-Legendre cannot resolve it; see help longman)",
		               p[P_LAMBDA].hi, p[P_OMEGA].num, LM_DECAY_MAX);
	if (-p[P_A].num * p[P_LAMBDA].hi > LM_GROWTH_MAX)
		return qx_fail(e,
		               "lambda %g with a = %g: e^{-lambda a} overflows float; lambda |a| "
		               "must be <= %g when a < 0 (see help longman)",
		               p[P_LAMBDA].hi, p[P_A].num, LM_GROWTH_MAX);
	if (f != LM_J0 && p[P_LAMBDA].num <= 0)
		return qx_fail(
		    e,
		    "lambda must be > 0 with integrand %s: e^{-lambda x} %s(omega x) does "
		    "not converge at lambda = 0 (only j0 allows it)",
		    integrand_names[f], integrand_names[f]);
	if (f == LM_J0 && p[P_A].num != 0)
		return qx_fail(e,
		               "integrand j0 needs a = 0 (its exact value is known there only; "
		               "got a = %g)",
		               p[P_A].num);
	if (lanes & (lanes - 1))
		return qx_fail(e,
		               "lanes must be 0 (chosen for M) or a power of two 1, 2, 4, 8, 16, "
		               "32; got %d",
		               lanes);
	return 0;
}

/* Returns M, the number of integrals. */
static size_t longman_count(const struct param_value *p)
{
	return (size_t)p[P_M].num;
}

/* (lambda, omega) of integral k. */
static void longman_lo(const struct param_value *p, size_t k, double *lam, double *om)
{
	longman_params((long long)k, (long long)p[P_M].num, p[P_LAMBDA].num, p[P_LAMBDA].hi,
	               p[P_OMEGA].num, p[P_OMEGA].hi, (int)p[P_SPREAD].num,
	               (unsigned long long)p[P_SEED].num, lam, om);
}

/* One integral in double or float (CPU, precise functions) by the parameters' method. */
static double longman_one(const struct param_value *p, const struct longman_tables *tab,
                          enum qx_precision prec, double lam, double om)
{
	const int f = (int)p[P_INTEGRAND].num, n = (int)p[P_N].num, g = (int)p[P_G].num;
	const double a = p[P_A].num, th1 = longman_first_phase(f, om, a);
	const int euler = longman_use_euler((int)p[P_METHOD].num, lam, om);
	if (prec == QX_DOUBLE)
		return longman_value_d(f, lam, om, a, th1, n, g, tab->t, tab->w, tab->z,
		                       euler ? tab->c : NULL);
	return longman_value_f(f, (float)lam, (float)om, (float)a, (float)th1, n, g, tab->tf,
	                       tab->wf, tab->zf, euler ? tab->cf : NULL);
}

/* The remainder estimate of one integral in double: 2^{-N} |Delta^N V_0| with Euler, |V_N|
 * with the direct sum; *mag gets |first part| + sum |areas|, the size of the terms that
 * rounding acts on. For cos and sin, area j+1 is exactly -q times area j (its Gauss nodes are
 * area j's shifted by pi/omega, where f changes sign and e^{-lambda x} shrinks by q), so
 * Delta^N V_0 = (1-q)^N V_0 and V_N = q^N V_0 follow from V_0 alone (g evaluations instead
 * of (N+2) g); for j0 the N+1 areas are integrated. */
static double longman_bound(const struct param_value *p, const struct longman_tables *tab,
                            double lam, double om, double *mag)
{
	const int f = (int)p[P_INTEGRAND].num, n = (int)p[P_N].num, g = (int)p[P_G].num;
	const int euler = longman_use_euler((int)p[P_METHOD].num, lam, om);
	const double a = p[P_A].num, th1 = longman_first_phase(f, om, a);
	double x0 = longman_zero_d(f, om, th1, 1, tab->z), delta = 0, area = 0;
	*mag = fabs(longman_segment_d(f, lam, om, a, x0 - a, g, tab->t, tab->w));
	if (f != LM_J0) {
		const double one_minus_q = -expm1(-lam * LM_PI / om), q = 1 - one_minus_q;
		const double v0 =
		    fabs(longman_segment_d(f, lam, om, x0, LM_PI / om, g, tab->t, tab->w));
		double qj = 1;
		for (int j = 0; j < n; j++) {
			*mag += v0 * qj;
			qj *= q;
		}
		return euler ? v0 * pow(one_minus_q / 2, n) : v0 * qj;
	}
	for (int j = 0; j <= n; j++) {
		const double x1 = longman_zero_d(f, om, th1, j + 2, tab->z);
		area = longman_segment_d(f, lam, om, x0, x1 - x0, g, tab->t, tab->w);
		delta += tab->bc[j] * area;
		if (j < n)
			*mag += fabs(area);
		x0 = x1;
	}
	return euler ? fabs(delta) : fabs(area);
}

/* Fills the coordinates (lambda, omega, bound) of integral i; returns 3. */
static int longman_point(const struct param_value *p, size_t i, const char **names, double *vals,
                         int cap)
{
	const struct longman_tables *tab = longman_tables((int)p[P_G].num, (int)p[P_N].num);
	double mag;
	if (cap < 3)
		return 0;
	names[0] = "lambda";
	names[1] = "omega";
	names[2] = "bound";
	longman_lo(p, i, &vals[0], &vals[1]);
	vals[2] = longman_bound(p, tab, vals[0], vals[1], &mag);
	return 3;
}

/* GSL's QAWF for one integral of e^{-lambda x} times cos or sin: the weight function. */
static double longman_qawf_decay(double x, void *lam)
{
	return exp(-*(double *)lam * x);
}

/* Computes all integrals through gsl_integration_qawf, in double, on `threads` threads (each
 * with its own workspaces), polling the cancel flag between blocks of integrals. */
static int longman_qawf(const struct param_value *p, int threads, double *out, struct qx_err *e)
{
	enum { BLOCK = 1024, LIMIT = 1000 };
	const long long m = (long long)p[P_M].num, nblocks = (m + BLOCK - 1) / BLOCK;
	const int f = (int)p[P_INTEGRAND].num;
	long long bad = -1;
	int bad_status = 0;
	if (f == LM_J0)
		return qx_fail(e, "variant qawf does not apply to integrand j0: QAWF integrates "
		                  "f(x) cos(omega x) or f(x) sin(omega x) only");
	gsl_set_error_handler_off();
#pragma omp parallel num_threads(threads)
	{
		gsl_integration_workspace *ws = gsl_integration_workspace_alloc(LIMIT);
		gsl_integration_workspace *cyc = gsl_integration_workspace_alloc(LIMIT);
		gsl_integration_qawo_table *tab = gsl_integration_qawo_table_alloc(
		    1, 1, f == LM_SIN ? GSL_INTEG_SINE : GSL_INTEG_COSINE, 50);
#pragma omp for schedule(dynamic, 1)
		for (long long blk = 0; blk < nblocks; blk++) {
			if (qx_cancelled() || !ws || !cyc || !tab)
				continue;
			const long long end = blk * BLOCK + BLOCK < m ? blk * BLOCK + BLOCK : m;
			for (long long k = blk * BLOCK; k < end; k++) {
				double lam, om, abserr;
				gsl_function fn = {longman_qawf_decay, &lam};
				longman_lo(p, (size_t)k, &lam, &om);
				gsl_integration_qawo_table_set(
				    tab, om, 1, f == LM_SIN ? GSL_INTEG_SINE : GSL_INTEG_COSINE);
				const int status = gsl_integration_qawf(
				    &fn, p[P_A].num, 1e-13, LIMIT, ws, cyc, tab, out + k, &abserr);
				if (status && status != GSL_EROUND) {
#pragma omp critical(longman_bad)
					if (bad < 0 || k < bad) {
						bad = k;
						bad_status = status;
					}
				}
			}
			qx_progress_add(end - blk * BLOCK);
		}
		if (!ws || !cyc || !tab) {
#pragma omp critical(longman_bad)
			bad_status = GSL_ENOMEM;
		}
		gsl_integration_qawo_table_free(tab);
		gsl_integration_workspace_free(cyc);
		gsl_integration_workspace_free(ws);
	}
	if (qx_cancelled())
		return qx_fail(e, "run cancelled");
	if (bad_status == GSL_ENOMEM)
		return qx_fail(e, "variant qawf: cannot allocate GSL workspaces");
	if (bad >= 0) {
		double lam, om;
		longman_lo(p, (size_t)bad, &lam, &om);
		return qx_fail(e,
		               "gsl_integration_qawf failed at lambda = %.17g, omega = %.17g: %s",
		               lam, om, gsl_strerror(bad_status));
	}
	return 0;
}

/* run_cpu: every integral by Longman's method (precise math; `math fast` is GPU-only) on
 * `threads` threads in blocks, polling the cancel flag; or through GSL for variant qawf. */
static int longman_run_cpu(const struct run_request *rq, struct run_output *o, struct qx_err *e)
{
	void *out = o->values;
	enum { BLOCK = 1024 };
	const struct param_value *p = rq->params;
	const long long m = (long long)p[P_M].num, nblocks = (m + BLOCK - 1) / BLOCK;
	if (rq->variant == V_QAWF) {
		if (rq->prec == QX_FLOAT)
			return qx_fail(e, "variant qawf computes in double only: set precision "
			                  "double");
		return longman_qawf(p, rq->threads, out, e);
	}
	const struct longman_tables *tab = longman_tables((int)p[P_G].num, (int)p[P_N].num);
#pragma omp parallel for schedule(dynamic, 1) num_threads(rq->threads)
	for (long long blk = 0; blk < nblocks; blk++) {
		if (qx_cancelled())
			continue;
		const long long end = blk * BLOCK + BLOCK < m ? blk * BLOCK + BLOCK : m;
		for (long long k = blk * BLOCK; k < end; k++) {
			double lam, om;
			longman_lo(p, (size_t)k, &lam, &om);
			const double v = longman_one(p, tab, rq->prec, lam, om);
			if (rq->prec == QX_DOUBLE)
				((double *)out)[k] = v;
			else
				((float *)out)[k] = (float)v;
		}
		qx_progress_add(end - blk * BLOCK);
	}
	if (qx_cancelled())
		return qx_fail(e, "run cancelled");
	return 0;
}

/* reference: the exact values, on `threads` threads. */
static int longman_reference(const struct param_value *p, const struct user_defs *u, int threads,
                             const size_t *idx, size_t n, double *ref, struct qx_err *e)
{
	(void)u; /* no user integrand here */
	const long long m = (long long)p[P_M].num;
	const int f = (int)p[P_INTEGRAND].num;
	(void)idx;
	(void)n;
	(void)e;
#pragma omp parallel for schedule(static) num_threads(threads)
	for (long long k = 0; k < m; k++) {
		double lam, om;
		longman_lo(p, (size_t)k, &lam, &om);
		ref[k] = longman_exact(f, lam, om, p[P_A].num);
	}
	return 0;
}

/* No run is the reference: the exact values are. */
static int longman_is_reference(enum qx_backend b, enum qx_precision prec, int variant)
{
	(void)b;
	(void)prec;
	(void)variant;
	return 0;
}

/* The rounding error of one integral in precision prec whose terms sum to mag in size: 4 eps
 * of the precision, times the conditioning 1 + omega x of f at the last zero, times mag. */
static double longman_rounding(const struct param_value *p, enum qx_precision prec, double om,
                               double mag)
{
	const double eps = prec == QX_DOUBLE ? 0x1p-53 : 0x1p-24;
	const double cond = 1 + om * fabs(p[P_A].num) + (p[P_N].num + 2) * LM_PI;
	return 4 * eps * cond * mag;
}

/* rounding_bound: the rounding of integral i in prec; its condition is the size of the first
 * part and the areas summed over the size of the exact value. */
static double longman_rounding_bound(const struct param_value *p, enum qx_precision prec, size_t i,
                                     double *condition)
{
	const struct longman_tables *tab = longman_tables((int)p[P_G].num, (int)p[P_N].num);
	double lam, om, mag;
	longman_lo(p, i, &lam, &om);
	longman_bound(p, tab, lam, om, &mag);
	*condition = mag / fabs(longman_exact((int)p[P_INTEGRAND].num, lam, om, p[P_A].num));
	return longman_rounding(p, prec, om, mag);
}

/* add_figures: the largest remainder estimate, how many integrals miss their estimate by more
 * than rounding (4 eps of the precision, times the conditioning 1 + omega x of f at the last
 * zero, times the size of the summed terms), and how many took euler and direct. The
 * estimates are recomputed in double on every core: for cos and sin from the first area
 * alone (longman_bound), about N times cheaper than the run itself. Variant qawf uses neither
 * Longman's areas nor his estimate: none. */
static void longman_add_figures(const struct run_request *rq, const double *ref,
                                struct run_output *o)
{
	const void *vals = o->values;
	if (rq->variant == V_QAWF)
		return;
	const struct param_value *p = rq->params;
	const long long m = (long long)p[P_M].num;
	const struct longman_tables *tab = longman_tables((int)p[P_G].num, (int)p[P_N].num);
	double worst = 0;
	long long over = 0, euler = 0;
#pragma omp parallel for schedule(dynamic, 256) reduction(max : worst) reduction(+ : over, euler)
	for (long long k = 0; k < m; k++) {
		double lam, om, mag;
		longman_lo(p, (size_t)k, &lam, &om);
		const double bound = longman_bound(p, tab, lam, om, &mag);
		const double v =
		    rq->prec == QX_DOUBLE ? ((const double *)vals)[k] : ((const float *)vals)[k];
		worst = bound > worst ? bound : worst;
		over += !(fabs(v - ref[k]) <= bound + longman_rounding(p, rq->prec, om, mag));
		euler += longman_use_euler((int)p[P_METHOD].num, lam, om);
	}
	run_output_figure(o, "bound_max", worst);
	run_output_figure_as(o, "over_bound", (double)over, QX_FIG_COUNT);
	run_output_figure_as(o, "euler", (double)euler, QX_FIG_COUNT);
	run_output_figure_as(o, "direct", (double)(m - euler), QX_FIG_COUNT);
}

/* Host memory besides results and reference: the cached tables. */
static size_t longman_host_bytes(const struct run_request *rq)
{
	(void)rq;
	return sizeof(struct longman_tables);
}

/* gpu_block: packed launches the block setting, which must be whole warps up to its kernel's
 * launch bound; block sets its own, N+1 rounded up to a warp. Returns it, or -1 with e. */
static int longman_launch_block(const struct run_request *rq, struct qx_err *e)
{
	if (rq->variant == V_BLOCK)
		return longman_block_threads((int)rq->params[P_N].num);
	if (rq->variant == V_PACKED && !longman_packed_block_ok(rq->block))
		return qx_fail(
		    e,
		    "bad block %d for variant packed: expected a multiple of %d in %d..%d "
		    "(whole warps, up to the kernel's launch bound)",
		    rq->block, LM_WARP, LM_WARP, LM_PACKED_MAX_BLOCK);
	return rq->block;
}

#ifdef QX_HAVE_CUDA
/* The GPU job matching parameters p in precision prec with variant v. */
static struct longman_gpu_job longman_job(const struct param_value *p, enum qx_precision prec,
                                          int variant, int block)
{
	const struct longman_tables *tab = longman_tables((int)p[P_G].num, (int)p[P_N].num);
	struct longman_gpu_job job = {
	    .m = (long long)p[P_M].num,
	    .n = (int)p[P_N].num,
	    .g = (int)p[P_G].num,
	    .lam_lo = p[P_LAMBDA].num,
	    .lam_hi = p[P_LAMBDA].hi,
	    .om_lo = p[P_OMEGA].num,
	    .om_hi = p[P_OMEGA].hi,
	    .a = p[P_A].num,
	    .spread = (int)p[P_SPREAD].num,
	    .seed = (unsigned long long)p[P_SEED].num,
	    .integrand = (int)p[P_INTEGRAND].num,
	    .method = (int)p[P_METHOD].num,
	    .math = (int)p[P_MATH].num,
	    .prec = prec,
	    .layout = variant == V_BLOCK ? LONGMAN_GPU_BLOCK : LONGMAN_GPU_PACKED,
	    .block = block,
	    .lanes = (int)p[P_LANES].num,
	    .gl_t = tab->t,
	    .gl_w = tab->w,
	    .euler_c = tab->c,
	    .zeros = tab->z,
	    .gl_tf = tab->tf,
	    .gl_wf = tab->wf,
	    .euler_cf = tab->cf,
	    .zeros_f = tab->zf,
	};
	return job;
}

/* run_gpu: every integral on the GPU into out, with phase times. */
static int longman_run_gpu(const struct run_request *rq, struct run_output *o, struct qx_err *e)
{
	const struct longman_gpu_job job =
	    longman_job(rq->params, rq->prec, rq->variant, rq->block);
	return longman_gpu_run(&job, o->values, &o->time, e);
}

/* Device bytes the GPU run allocates. */
static size_t longman_device_bytes(const struct run_request *rq)
{
	const struct longman_gpu_job job =
	    longman_job(rq->params, rq->prec, rq->variant, rq->block);
	return longman_gpu_device_bytes(&job);
}

/* Occupancy of the kernel the GPU run launches. */
static int longman_occupancy(const struct run_request *rq, struct gpu_occupancy *o,
                             struct qx_err *e)
{
	const struct longman_gpu_job job =
	    longman_job(rq->params, rq->prec, rq->variant, rq->block);
	return longman_gpu_occupancy(&job, o, e);
}
#endif

/* eval LAMBDA OMEGA: one integral on backend b in precision prec (the GPU: variant packed with
 * the parameters' math), with the exact value, the remainder estimate and the error. */
static int longman_eval(const double *args, const struct param_value *p, const struct user_defs *u,
                        enum qx_backend b, enum qx_precision prec, struct eval_result *out,
                        struct qx_err *e)
{
	(void)u; /* no user integrand here */
	struct param_value q[QX_MAX_PARAMS];
	double mag;
	for (int k = 0; k < P_COUNT; k++)
		q[k] = p[k];
	q[P_M].num = 1;
	q[P_LAMBDA] = (struct param_value){args[0], args[0]};
	q[P_OMEGA] = (struct param_value){args[1], args[1]};
	if (longman_check(q, e))
		return -1;
	const struct longman_tables *tab = longman_tables((int)q[P_G].num, (int)q[P_N].num);
	if (b == QX_GPU) {
#ifdef QX_HAVE_CUDA
		const struct longman_gpu_job job = longman_job(q, prec, V_PACKED, 256);
		struct qx_timing t = {0};
		double d = 0;
		float f = 0;
		if (longman_gpu_run(&job, prec == QX_DOUBLE ? (void *)&d : (void *)&f, &t, e))
			return -1;
		out->value = prec == QX_DOUBLE ? d : f;
#else
		return 1;
#endif
	} else {
		out->value = longman_one(q, tab, prec, args[0], args[1]);
	}
	const double exact = longman_exact((int)q[P_INTEGRAND].num, args[0], args[1], q[P_A].num);
	out->nfigures = 3;
	out->figure[0] = (struct qx_figure){.name = "exact", .value = exact};
	out->figure[1] = (struct qx_figure){.name = "bound",
	                                    .value = longman_bound(q, tab, args[0], args[1], &mag)};
	out->figure[2] = (struct qx_figure){.name = "error", .value = fabs(out->value - exact)};
	return 0;
}

/* The phases its GPU runs report (cuda/longman.cu), in order. */
static const char *const longman_phases[] = {"alloc", "h2d", "kernel", "d2h", "free", NULL};
static const char *const longman_table_phases[] = {"kernel", "d2h", NULL};

const struct problem longman_problem = {
    .name = "longman",
    .summary = "improper oscillatory integrals by Longman's method (seed 001)",
    .phases = longman_phases,
    .table_phases = longman_table_phases,
    .work_unit = "integrals",
    .params = longman_params_def,
    .nparams = P_COUNT,
    .ref_kind = QX_REF_CPU,
    .ref_name = "exact values",
    .variants = longman_variants,
    .nvariants = sizeof longman_variants / sizeof longman_variants[0],
    .eval_args = longman_eval_args,
    .neval_args = 2,
    .check = longman_check,
    .count = longman_count,
    .host_bytes = longman_host_bytes,
    .point = longman_point,
    .run_cpu = longman_run_cpu,
    .reference = longman_reference,
    .is_reference = longman_is_reference,
    .add_figures = longman_add_figures,
    .rounding_bound = longman_rounding_bound,
    .gpu_block = longman_launch_block,
    .eval = longman_eval,
#ifdef QX_HAVE_CUDA
    .run_gpu = longman_run_gpu,
    .device_bytes = longman_device_bytes,
    .occupancy = longman_occupancy,
#endif
};
