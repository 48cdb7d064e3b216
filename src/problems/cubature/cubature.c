/* cubature.c - problem `cubature`: one integral of an integrand over the box [a, b]^dim by
 * globally adaptive cubature: the two-phase adaptive cubature study's benchmark integrands f1..f5
 * and Genz's six test families. CPU: the sequential CUHRE of the study's Algorithm 1 (a priority
 * queue of regions; with more threads, batches of the worst regions split in parallel) and Debian's
 * libcubature (hcubature); GPU: breadth-first on the whole device and the study's two-phase
 * algorithm (cuda/cubature/twophase.cu). The reference is the exact value where one is known.
 * One file, over 600 lines: the problem's callbacks, its CPU algorithms (the queue and
 * hcubature) and its GPU binding all read the parameters through this file's enum and its
 * integrand (cub_make_fn); the rules, the shared math, the multi-GPU agreement and the kernels
 * are in their own files (cubature_rules.c, cubature_math.h, cubature_multi.c, cuda/cubature/). */
#include "../../problem.h"

#include <complex.h>
#include <cubature.h>
#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUB_REAL double
#define CUB_SUFFIX d
#define CUB_SUFFIX_IS_FLOAT 0
#include "cubature_math.h"
#undef CUB_REAL
#undef CUB_SUFFIX
#undef CUB_SUFFIX_IS_FLOAT
#define CUB_REAL float
#define CUB_SUFFIX f
#define CUB_SUFFIX_IS_FLOAT 1
#include "cubature_math.h"
#undef CUB_REAL
#undef CUB_SUFFIX
#undef CUB_SUFFIX_IS_FLOAT
#include "cubature_ref.h"
#include "cubature_rules.h"
#include "../user_integrand.h"

#ifdef QX_HAVE_CUDA
#include "cubature_gpu.h"
#include "../../gpujit/gpujit.h"
#else
enum cub_reason { CUB_CONVERGED = 0, CUB_MAXEVAL = 1, CUB_BUDGET = 2, CUB_NO_PROGRESS = 3 };
struct cub_result {
	double value, err;
	int reason;
	long long iterations, regions, live, evals;
	double peak_bytes;
};
#endif

enum {
	P_INTEGRAND,
	P_DIM,
	P_REL,
	P_ABS,
	P_MAXEVAL,
	P_BUDGET,
	P_RULE,
	P_INIT,
	P_D,
	P_LMAX,
	P_SEED,
	P_A,
	P_B,
	P_COUNT
};

static const char *const integrand_names[] = {
    "f1", "f1p2",          "f2",          "f3",         "f4",
    "f5", "oscillatory",   "productpeak", "cornerpeak", "gaussian",
    "c0", "discontinuous", NULL};
static const char *const rule_names[] = {"7", "9", NULL};
enum { RULE_7, RULE_9 };

static const struct param_def cub_params_def[P_COUNT] = {
    [P_INTEGRAND] = {"integrand", PARAM_EXPR, 0, 0, 0, CUB_F5, 0, integrand_names,
                     "f1..f5 (the seed's Table I; f1p2: f1 with the paper's exponent -2), "
                     "a Genz family, or your own expression in x1..xdim (help expressions)",
                     0},
    [P_DIM] = {"dim", PARAM_INT, 1, CUB_MAX_DIM, 0, 5, 0, NULL,
               "dimensions (1: Gauss-Kronrod 7/15; rules 7 and 9 from 2)", 0},
    [P_REL] = {"rel", PARAM_REAL, 0, 1, PARAM_MIN_OPEN | PARAM_MAX_OPEN, 1e-6, 0, NULL,
               "relative tolerance, 0 < rel < 1: stop when error <= max(abs, rel |I|)", 0},
    [P_ABS] = {"abs", PARAM_REAL, 0, 1e300, 0, 0, 0, NULL, "absolute tolerance (0: none)", 0},
    [P_MAXEVAL] = {"maxeval", PARAM_INT, 1, 1e15, 0, 1e8, 0, NULL,
                   "largest number of integrand evaluations", 0},
    [P_BUDGET] = {"budget", PARAM_REAL, 0, 1e9, 0, 0, 0, NULL,
                  "MiB for the region list (0: half the free GPU memory, a quarter of the "
                  "host's on the CPU)",
                  0},
    [P_RULE] = {"rule", PARAM_ENUM, 0, 0, 0, RULE_9, 0, rule_names,
                "7: Genz-Malik degree 7/5 (hcubature); 9: degree 9 with null rules (CUHRE)", 0},
    [P_INIT] = {"init", PARAM_INT, 0, 64, 0, 0, 0, NULL,
                "breadth on the GPU: pieces per axis of the first partition, init^dim "
                "regions (0: 2, or 1 where that does not fit)",
                QX_ON_GPU},
    [P_D] = {"d", PARAM_INT, 2, 16, 0, 2, 0, NULL,
             "twophase: pieces a bad region is split into in phase 1", QX_ON_GPU},
    [P_LMAX] = {"lmax", PARAM_INT, 1, 1 << 24, 0, 32768, 0, NULL,
                "twophase: regions phase 1 builds before phase 2 (the seed: 32768)", QX_ON_GPU},
    [P_SEED] = {"seed", PARAM_INT, 0, 9007199254740991.0, 0, 1, 0, NULL,
                "seed of Genz's difficulty and shift vectors", 0},
    [P_A] = {"a", PARAM_REAL, -1e6, 1e6, 0, 0, 0, NULL, "lower limit on every axis", 0},
    [P_B] = {"b", PARAM_REAL, -1e6, 1e6, 0, 1, 0, NULL, "upper limit on every axis", 0},
};

enum { V_BREADTH, V_TWOPHASE, V_HCUBATURE };

static const struct variant_def cub_variants[] = {
    [V_BREADTH] = {"breadth", QX_ON_CPU | QX_ON_GPU,
                   "GPU: every iteration on the whole device, a block per region; CPU: the\n"
                   "      priority queue of the seed's Algorithm 1 (threads: batches in parallel)",
                   0},
    [V_TWOPHASE] = {"twophase", QX_ON_GPU,
                    "the seed's algorithm: phase 1 breadth-first to lmax regions, phase 2 a\n"
                    "      sequential adaptive loop per region, one thread each",
                    0},
    [V_HCUBATURE] = {"hcubature", QX_ON_CPU,
                     "Debian's libcubature (S. G. Johnson's hcubature), double, rule 7", 0},
};

static const struct param_def cub_eval_args[CUB_MAX_DIM] = {
#define CUB_X(n)                                                                                   \
	{                                                                                          \
		"X" #n, PARAM_REAL, -1e6, 1e6, 0, 0, 0, NULL, "coordinate " #n, 0                  \
	}
    CUB_X(1), CUB_X(2),  CUB_X(3),  CUB_X(4),  CUB_X(5),  CUB_X(6),  CUB_X(7),  CUB_X(8),
    CUB_X(9), CUB_X(10), CUB_X(11), CUB_X(12), CUB_X(13), CUB_X(14), CUB_X(15), CUB_X(16),
#undef CUB_X
};

/* f2 and f4 on [0,1]^dim for dim 4..8, tabulated to 15 digits (no closed form). */
static const double cub_f2_known[5] = {0.965045097629949, 0.982404737246461, 0.991158045129322,
                                       0.995561836501742, 0.997774518805240};
static const double cub_f4_known[5] = {0.0999091341286321, 0.0578210493298577, 0.0333572201092090,
                                       0.0191969946696291, 0.0110270689585587};

/* Genz's difficulty: the c_i are scaled so that sum c_i = h / dim^expo (his test package). */
static const double genz_h[6] = {110, 600, 600, 100, 150, 100};
static const double genz_expo[6] = {1.5, 2, 2, 1, 2, 2};

/* The integrand's kind: a built-in one, or CUB_USER for an expression. */
static int cub_kind(const struct param_value *p)
{
	return p[P_INTEGRAND].num < 0 ? CUB_USER : (int)p[P_INTEGRAND].num;
}

/* The integrand of parameters p: kind, dim and, for Genz's families, c and w drawn uniformly
 * in [0, 1) from seed, c normalised to Genz's difficulty. A user's integrand still needs its
 * code and data (cub_bind). */
static struct cub_fn cub_make_fn(const struct param_value *p)
{
	struct cub_fn fn = {.kind = cub_kind(p), .dim = (int)p[P_DIM].num};
	const unsigned long long seed = (unsigned long long)p[P_SEED].num;
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

/* The exact integral of fn over [a, b]^dim, NaN where none is known (f1, f1p2, f2, f3, f4
 * outside the unit cube or the dimensions of the committed table and the issue). */
static double cub_exact(const struct cub_fn *fn, double a, double b)
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
		    !strcmp(cub_ref_table[i].integrand, integrand_names[fn->kind]))
			return cub_ref_table[i].value;
	return NAN;
}

/* The rule degree of parameters p. */
static int cub_degree(const struct param_value *p)
{
	return p[P_RULE].num == RULE_7 ? 7 : 9;
}

/* Rejects a box with a >= b, f3 or f4 on a box past [-1, 1] (asin's domain: every value NaN),
 * a tolerance outside 0 < rel < 1 (and abs < 0, by its range), and a dim the rule has no points
 * for. */
static int cub_check(const struct param_value *p, struct qx_err *e)
{
	const int dim = (int)p[P_DIM].num, deg = cub_degree(p);
	if (!(p[P_A].num < p[P_B].num))
		return qx_fail(e, "the box needs a < b; got a = %g, b = %g", p[P_A].num,
		               p[P_B].num);
	if ((p[P_INTEGRAND].num == CUB_F3 || p[P_INTEGRAND].num == CUB_F4) &&
	    !(p[P_A].num >= -1 && p[P_B].num <= 1))
		return qx_fail(
		    e,
		    "integrand %s takes asin of the coordinates: the box must lie within "
		    "[-1, 1]; got a = %g, b = %g",
		    integrand_names[(int)p[P_INTEGRAND].num], p[P_A].num, p[P_B].num);
	if (!(p[P_REL].num > 0 && p[P_REL].num < 1))
		return qx_fail(e, "rel must be in (0, 1); got %g", p[P_REL].num);
	if (!cub_rule_points(deg, dim))
		return qx_fail(e,
		               "rule %d needs dim 2..%d: its two-axis generators define the "
		               "degree (got dim %d)",
		               deg, CUB_MAX_DIM, dim);
	return 0;
}

/* The user's integrand of p checked against u: its text parsed in x1..xdim and u's
 * parameters, u's bounds against dim. Built-in integrands pass. */
static int cub_user_check(const struct param_value *p, const struct user_defs *u, struct qx_err *e)
{
	struct user_integrand ui;
	if (cub_kind(p) != CUB_USER)
		return 0;
	if (user_integrand_parse(param_expr(p[P_INTEGRAND]), (int)p[P_DIM].num, NULL, 0, u,
	                         p[P_A].num, p[P_B].num, &ui, e)) {
		struct qx_err why = *e; /* the parser's message, with the parameter named */
		return qx_fail(e, "integrand: %s", why.msg);
	}
	user_integrand_free(&ui);
	return 0;
}

/* One value: the integral. */
static size_t cub_count(const struct param_value *p)
{
	(void)p;
	return 1;
}

/* The point of the one result: dim and rel. */
static int cub_point(const struct param_value *p, size_t i, const char **names, double *vals,
                     int cap)
{
	(void)i;
	if (cap < 2)
		return 0;
	names[0] = "dim";
	vals[0] = p[P_DIM].num;
	names[1] = "rel";
	vals[1] = p[P_REL].num;
	return 2;
}

/* The rule for (degree, dim), built once and kept while they stay the same. */
static const struct cub_rule *cub_rule_for(int degree, int dim, struct qx_err *e)
{
	static struct cub_rule rule;
	if (rule.pts && rule.degree == degree && rule.dim == dim)
		return &rule;
	cub_rule_free(&rule);
	return cub_rule_build(degree, dim, &rule, e) ? NULL : &rule;
}

/* The box the CPU integrates over, axis by axis: [a, b] for a built-in integrand, the user's
 * bounds on a finite axis of theirs and [0, 1] on a mapped infinite one. */
struct cub_box {
	double lo[CUB_MAX_DIM], hi[CUB_MAX_DIM];
};

/* A region of the CPU queue: its estimate, error, split axis, centre and half-widths. */
struct cub_region {
	double est, err;
	int axis;
	double c[CUB_MAX_DIM], h[CUB_MAX_DIM];
};

/* Applies the rule to region g (its c and h set): fills est, err and axis. */
static void cub_apply(const struct cub_rule *r, const struct cub_fn *fn, struct cub_region *g)
{
	const int n = r->dim;
	double sums[CUB_MAX_SUMS] = {0}, axis_f[1 + CUB_MAX_AXIS * CUB_MAX_DIM], x[CUB_MAX_DIM];
	double vol = 1;
	for (int p = 0; p < r->npts; p++) {
		const double *u = r->pts + (size_t)p * n;
		for (int i = 0; i < n; i++)
			x[i] = g->c[i] + g->h[i] * u[i];
		const double f = cub_f_d(fn, x);
		if (p <= r->naxis * n)
			axis_f[p] = f;
		for (int k = 0; k < r->nsums; k++)
			sums[k] += r->w[(size_t)k * r->npts + p] * f;
	}
	for (int i = 0; i < n; i++)
		vol *= g->h[i];
	g->est = sums[0] * vol;
	g->err = cub_region_error(r, sums, axis_f, g->h, vol, &g->axis);
}

/* Max-heap on err: moves element k up. */
static void cub_heap_up(struct cub_region *h, size_t k)
{
	while (k > 0) {
		const size_t parent = (k - 1) / 2;
		if (h[parent].err >= h[k].err)
			break;
		const struct cub_region t = h[parent];
		h[parent] = h[k];
		h[k] = t;
		k = parent;
	}
}

/* Max-heap on err: removes the top into *out. */
static void cub_heap_pop(struct cub_region *h, size_t *n, struct cub_region *out)
{
	*out = h[0];
	h[0] = h[--*n];
	for (size_t k = 0;;) {
		size_t big = k;
		const size_t l = 2 * k + 1, r = l + 1;
		if (l < *n && h[l].err > h[big].err)
			big = l;
		if (r < *n && h[r].err > h[big].err)
			big = r;
		if (big == k)
			break;
		const struct cub_region t = h[big];
		h[big] = h[k];
		h[k] = t;
		k = big;
	}
}

/* DCUHRE's consistency check of two children against their parent's estimate: when the
 * children's sum differs from the parent by est1, both errors grow by the factor
 * 1 + 0.5 est1 / (their error sum) and by 0.25 est1 (the parent's error is not trusted to
 * fall more than the children's own estimates show). */
static void cub_children_check(double parent_est, struct cub_region *l, struct cub_region *r)
{
	const double est1 = fabs(parent_est - (l->est + r->est)), est2 = l->err + r->err;
	if (est2 > 0) {
		l->err *= 1 + 0.5 * est1 / est2;
		r->err *= 1 + 0.5 * est1 / est2;
	}
	l->err += 0.25 * est1;
	r->err += 0.25 * est1;
}

/* The host budget in bytes of parameters p: the parameter, or a quarter of the available host
 * memory (1 GiB when unknown). */
static size_t cub_host_budget(const struct param_value *p)
{
	if (p[P_BUDGET].num > 0)
		return (size_t)(p[P_BUDGET].num * 1048576.0);
	const size_t avail = qx_host_mem_available();
	return avail ? avail / 4 : (size_t)1 << 30;
}

/* Starts the progress count of an adaptive run, CPU or GPU: evaluations up to maxeval, in the
 * phase shown now (the run's backend); its error comes with cub_progress_error. */
void cub_progress_begin(long long maxeval)
{
	struct qx_progress was;
	qx_progress_get(&was);
	qx_progress_start(maxeval, was.phase);
}

/* Publishes an adaptive run's error estimate err of its estimate est of the integral against
 * what it stops at, max(abs_tol, rel |est|): the prompt's line and the dashboard show both. */
void cub_progress_error(double est, double err, double rel, double abs_tol)
{
	qx_progress_adaptive(err, fmax(abs_tol, rel * fabs(est)));
}
/* The sequential CUHRE (seed's Algorithm 1): a max-heap of regions by error, started as
 * breadth starts (the box halved along every axis, all of it split once, so that every
 * estimate is checked against its parent's); each iteration then splits the worst region
 * (threads > 1: the 4*threads worst, their children evaluated in parallel) in two along its
 * axis of largest fourth difference until the total error meets max(abs, rel |I|), maxeval
 * would be passed or the list would outgrow the budget. The sums are recomputed from the
 * heap every 256 iterations and at the end. */
static int cub_cpu_adaptive(const struct param_value *p, const struct cub_fn *fnp,
                            const struct cub_box *box, int threads, struct cub_result *res,
                            struct qx_err *e)
{
	const struct cub_fn fn = *fnp;
	const struct cub_rule *r = cub_rule_for(cub_degree(p), fn.dim, e);
	const double rel = p[P_REL].num, abs_tol = p[P_ABS].num;
	const long long maxeval = (long long)p[P_MAXEVAL].num;
	const size_t cap = cub_host_budget(p) / sizeof(struct cub_region);
	const int batch = threads > 1 ? 4 * threads : 1;
	const size_t avail = qx_host_mem_available();
	if (!r)
		return -1;
	if (p[P_BUDGET].num > 0 && avail && cub_host_budget(p) > avail)
		return qx_fail(e,
		               "budget %.6g MiB is more than the %.1f MiB of host memory available "
		               "(set budget 0 for a quarter of it)",
		               p[P_BUDGET].num, avail / 1048576.0);
	/* the first partition, as breadth's: the box halved along every axis unless that takes
	 * over 1e7 evaluations, or it and its split (three times as many) pass maxeval, or the
	 * split would not fit the budget; the first iteration splits all of it */
	const double halves = pow(2.0, fn.dim);
	const int pieces = halves * r->npts <= 1e7 && 3 * halves * r->npts <= (double)maxeval &&
	                           (double)cap >= 2 * halves + 2 * batch
	                       ? 2
	                       : 1;
	const size_t first = pieces == 2 ? (size_t)halves : 1;
	const size_t wide = first > (size_t)batch ? first : (size_t)batch;
	if (cap < 2 * first + 2 * (size_t)batch)
		return qx_fail(e, "budget %.3g MiB holds fewer than %zu regions of %zu bytes",
		               p[P_BUDGET].num, 2 * first + 2 * batch, sizeof(struct cub_region));
	size_t n = 0, alloc = 2 * first > 1024 ? 2 * first : 1024;
	if (alloc > cap)
		alloc = cap;
	struct cub_region *heap = malloc(alloc * sizeof *heap);
	struct cub_region *work = malloc(3 * wide * sizeof *work);
	if (!heap || !work) {
		free(heap);
		free(work);
		return qx_fail(e, "cannot allocate the region list");
	}
	*res = (struct cub_result){0};
	for (size_t k = 0; k < first; k++)
		for (int i = 0; i < fn.dim; i++) {
			const double hw = (box->hi[i] - box->lo[i]) / (2 * pieces);
			heap[k].h[i] = hw;
			heap[k].c[i] = box->lo[i] + hw * (pieces == 2 ? 1 + 2 * ((k >> i) & 1) : 1);
		}
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (first > 1)
	for (size_t k = 0; k < first; k++)
		cub_apply(r, &fn, &heap[k]);
	for (n = 0; n < first; n++)
		cub_heap_up(heap, n);
	res->evals = (long long)first * r->npts;
	res->regions = (long long)first;
	cub_progress_begin(maxeval);
	qx_progress_add((long long)first * r->npts);
	double est = 0, err = 0;
	res->reason = CUB_CONVERGED;
	for (long long it = 0;; it++) {
		if (it % 256 == 0) {
			est = err = 0;
			for (size_t k = 0; k < n; k++) {
				est += heap[k].est;
				err += heap[k].err;
			}
		}
		/* no estimate is trusted before its region was checked against a parent */
		if (it > 0 && err <= fmax(abs_tol, rel * fabs(est)))
			break;
		if (qx_cancelled()) {
			free(heap);
			free(work);
			return qx_fail(e, "run cancelled");
		}
		const int m = it == 0 ? (int)n : (size_t)batch < n ? batch : (int)n;
		if (res->evals + 2LL * m * r->npts > maxeval) {
			res->reason = CUB_MAXEVAL;
			break;
		}
		if (n + (size_t)m > cap) {
			res->reason = CUB_BUDGET;
			break;
		}
		if (n + (size_t)m > alloc) {
			const size_t grow = 2 * alloc < cap ? 2 * alloc : cap;
			struct cub_region *bigger = realloc(heap, grow * sizeof *heap);
			if (!bigger) {
				res->reason = CUB_BUDGET;
				break;
			}
			heap = bigger;
			alloc = grow;
		}
		for (int j = 0; j < m; j++) {
			struct cub_region *par = &work[2 * wide + j], *lt = &work[2 * j],
			                  *rt = &work[2 * j + 1];
			cub_heap_pop(heap, &n, par);
			*lt = *rt = *par;
			const int ax = par->axis;
			lt->h[ax] = rt->h[ax] = par->h[ax] / 2;
			lt->c[ax] = par->c[ax] - lt->h[ax];
			rt->c[ax] = par->c[ax] + rt->h[ax];
		}
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (m > 1)
		for (int j = 0; j < 2 * m; j++)
			cub_apply(r, &fn, &work[j]);
		for (int j = 0; j < m; j++) {
			const struct cub_region *par = &work[2 * wide + j];
			cub_children_check(par->est, &work[2 * j], &work[2 * j + 1]);
			est += work[2 * j].est + work[2 * j + 1].est - par->est;
			err += work[2 * j].err + work[2 * j + 1].err - par->err;
			for (int c = 0; c < 2; c++) {
				heap[n] = work[2 * j + c];
				cub_heap_up(heap, n++);
			}
		}
		res->evals += 2LL * m * r->npts;
		res->regions += 2 * m;
		res->iterations = it + 1;
		qx_progress_add(2LL * m * r->npts);
		cub_progress_error(est, err, rel, abs_tol);
		if (n * sizeof *heap > res->peak_bytes)
			res->peak_bytes = (double)(n * sizeof *heap);
	}
	est = err = 0;
	for (size_t k = 0; k < n; k++) {
		est += heap[k].est;
		err += heap[k].err;
	}
	res->value = est;
	res->err = err;
	res->live = (long long)n;
	if (res->peak_bytes < (double)(n * sizeof *heap))
		res->peak_bytes = (double)(n * sizeof *heap);
	if (res->reason == CUB_CONVERGED && !(err <= fmax(abs_tol, rel * fabs(est))))
		res->reason = CUB_NO_PROGRESS;
	free(heap);
	free(work);
	return 0;
}

/* libcubature's integrand: one value of the parameters' function. */
static int cub_hcubature_f(unsigned ndim, const double *x, void *fdata, unsigned fdim, double *fval)
{
	(void)ndim;
	(void)fdim;
	if (qx_cancelled())
		return 1; /* hcubature stops and returns failure */
	fval[0] = cub_f_d((const struct cub_fn *)fdata, x);
	return 0;
}

/* Variant hcubature: Debian's libcubature, counting evaluations in a wrapper. */
struct cub_counted {
	struct cub_fn fn;
	long long evals;
};

/* Counts and evaluates. */
static int cub_hcubature_counted(unsigned ndim, const double *x, void *fdata, unsigned fdim,
                                 double *fval)
{
	struct cub_counted *c = fdata;
	c->evals++;
	return cub_hcubature_f(ndim, x, &c->fn, fdim, fval);
}

/* Runs hcubature (its rule is Genz-Malik 7/5 for dim >= 2, Gauss-Kronrod for dim 1). */
static int cub_cpu_hcubature(const struct param_value *p, const struct cub_fn *fn,
                             const struct cub_box *box, struct cub_result *res, struct qx_err *e)
{
	struct cub_counted c = {*fn, 0};
	*res = (struct cub_result){0};
	const int rc = hcubature(1, cub_hcubature_counted, &c, (unsigned)c.fn.dim, box->lo, box->hi,
	                         (size_t)p[P_MAXEVAL].num, p[P_ABS].num, p[P_REL].num,
	                         ERROR_INDIVIDUAL, &res->value, &res->err);
	if (qx_cancelled())
		return qx_fail(e, "run cancelled");
	if (rc)
		return qx_fail(e, "hcubature failed (out of memory?)");
	res->evals = c.evals;
	res->reason = res->err <= fmax(p[P_ABS].num, p[P_REL].num * fabs(res->value))
	                  ? CUB_CONVERGED
	                  : CUB_MAXEVAL;
	return 0;
}

/* The note of a run that stopped for reason, in words. */
static const char *cub_reason_note(int reason)
{
	switch (reason) {
	case CUB_CONVERGED:
		return "converged (tolerance met)";
	case CUB_MAXEVAL:
		return "not converged: maxeval reached";
	case CUB_BUDGET:
		return "not converged: the region list filled its memory budget";
	default:
		return "not converged: the error estimate stopped falling (splitting made no "
		       "progress)";
	}
}

/* Stores a result into o: the value in the run's precision, the error estimate when o has
 * room for it (plus the
 * rounding to float when the value is float), the work and the figures. */
static void cub_output(const struct cub_result *res, enum qx_precision prec, struct run_output *o)
{
	/* the regions' estimates summed in double carry rounding of their own, which the rules'
	 * error estimates do not see: about log2(regions) + 4 units of the last place of the sum */
	double err =
	    res->err + (4 + log2(fmax(1, (double)res->live))) * DBL_EPSILON * fabs(res->value);
	if (prec == QX_DOUBLE)
		((double *)o->values)[0] = res->value;
	else {
		const float v = (float)res->value;
		((float *)o->values)[0] = v;
		err += fabs((double)v - res->value);
	}
	if (o->estimates)
		o->estimates[0] = err;
	o->work = (double)res->evals;
	run_output_figure_as(o, "converged", res->reason == CUB_CONVERGED, QX_FIG_CODE);
	run_output_figure_as(o, "reason", res->reason, QX_FIG_CODE);
	if (res->regions > 0) { /* hcubature keeps its regions to itself */
		run_output_figure_as(o, "iterations", (double)res->iterations, QX_FIG_COUNT);
		run_output_figure_as(o, "regions", (double)res->regions, QX_FIG_COUNT);
		run_output_figure_as(o, "live", (double)res->live, QX_FIG_COUNT);
	}
	run_output_figure_as(o, "evaluations", (double)res->evals, QX_FIG_COUNT);
	if (res->regions > 0)
		run_output_figure_as(o, "peak_MiB", res->peak_bytes / 1048576.0, QX_FIG_MIB);
	o->note = cub_reason_note(res->reason);
}

/* Records what compiling the user's integrand took as figures of o: the compiler's and the
 * linker's milliseconds when this run built it, and whether the session had it already. */
static void cub_compile_figures(const struct user_compile_times *t, struct run_output *o)
{
	run_output_figure(o, "compile_ms", t->compile_ms);
	if (t->link_ms > 0)
		run_output_figure(o, "link_ms", t->link_ms);
	run_output_figure_as(o, "compile_cached", t->cached, QX_FIG_COUNT);
}

/* The integrand of request rq for the CPU into *fn: a built-in one, or the user's, parsed and
 * compiled (or found in the session's cache) with its parameters and box in fn->user. */
static int cub_bind_cpu(const struct run_request *rq, struct cub_fn *fn, struct cub_box *box,
                        struct run_output *o, struct qx_err *e)
{
	const struct param_value *p = rq->params;
	struct user_integrand ui;
	struct user_compile_times t;
	*fn = cub_make_fn(p);
	for (int i = 0; i < fn->dim; i++) {
		box->lo[i] = p[P_A].num;
		box->hi[i] = p[P_B].num;
	}
	if (fn->kind != CUB_USER)
		return 0;
	if (user_integrand_parse(param_expr(p[P_INTEGRAND]), fn->dim, NULL, 0, rq->user, p[P_A].num,
	                         p[P_B].num, &ui, e))
		return -1;
	user_integrand_data(&ui, rq->user, p[P_A].num, p[P_B].num, fn->user);
	user_integrand_cpu_box(&ui, box->lo, box->hi);
	const double t0 = qx_now_ms();
	const int rc = user_integrand_cpu(rq->jit, &ui, &fn->user_d, &fn->user_f, &t, e);
	if (o) /* the compile is a phase of its own, outside the run's time */
		o->untimed_ms += qx_now_ms() - t0;
	user_integrand_free(&ui);
	if (rc)
		return -1;
	if (o)
		cub_compile_figures(&t, o);
	return 0;
}

/* The relative tolerance of a run at a value of size |value|: rel, or abs / |value| where
 * that is larger (the run stops at max(abs, rel |I|)). */
static double cub_tolerance(const struct param_value *p, double value)
{
	const double rel = p[P_REL].num;
	return fabs(value) > 0 && p[P_ABS].num / fabs(value) > rel ? p[P_ABS].num / fabs(value)
	                                                           : rel;
}

/* run_cpu: the adaptive queue (variant breadth) or hcubature, in double (a float run
 * rounds the double result and adds the rounding to the error estimate). */
static int cub_run_cpu(const struct run_request *rq, struct run_output *o, struct qx_err *e)
{
	struct cub_result res;
	struct cub_fn fn;
	struct cub_box box;
	if (cub_check(rq->params, e) || cub_bind_cpu(rq, &fn, &box, o, e))
		return -1;
	if (rq->variant == V_HCUBATURE) {
		if (rq->prec == QX_FLOAT)
			return qx_fail(e,
			               "variant hcubature computes in double only: set precision "
			               "double");
		if (cub_cpu_hcubature(rq->params, &fn, &box, &res, e))
			return -1;
	} else if (cub_cpu_adaptive(rq->params, &fn, &box, rq->threads, &res, e))
		return -1;
	cub_output(&res, rq->prec, o);
	return 0;
}

/* reference: the exact value (NaN where none is known). */
static int cub_reference(const struct param_value *p, const struct user_defs *u, int threads,
                         const size_t *idx, size_t n, double *ref, struct qx_err *e)
{
	(void)threads;
	(void)idx;
	(void)n;
	(void)e;
	const struct cub_fn fn = cub_make_fn(p);
	ref[0] =
	    fn.kind == CUB_USER ? (u ? u->exact : NAN) : cub_exact(&fn, p[P_A].num, p[P_B].num);
	return 0;
}

/* No run is the reference: the exact values are. */
static int cub_is_reference(enum qx_backend b, enum qx_precision prec, int variant)
{
	(void)b;
	(void)prec;
	(void)variant;
	return 0;
}

/* Host memory a run takes at its start besides the result: the CPU queue's first block of
 * regions and its work array (it grows within the budget, which the CPU run checks against
 * the available memory itself; a GPU run's budget is device memory, device_bytes'). */
static size_t cub_host_bytes(const struct run_request *rq)
{
	const size_t batch = rq->threads > 1 ? 4 * (size_t)rq->threads : 1;
	return rq->variant == V_HCUBATURE ? 0 : (1024 + 3 * batch) * sizeof(struct cub_region);
}

#ifdef QX_HAVE_CUDA
/* The GPU job of request rq with the rule r. */
static struct cub_gpu_job cub_job(const struct param_value *p, enum qx_precision prec, int variant,
                                  const struct cub_rule *r)
{
	struct cub_gpu_job job = {
	    .fn = cub_make_fn(p),
	    .a = p[P_A].num,
	    .b = p[P_B].num,
	    .rel = p[P_REL].num,
	    .abs = p[P_ABS].num,
	    .maxeval = (long long)p[P_MAXEVAL].num,
	    .budget = p[P_BUDGET].num > 0 ? (size_t)(p[P_BUDGET].num * 1048576.0)
	                                  : cub_gpu_default_budget(),
	    .algo = variant == V_TWOPHASE ? CUB_GPU_TWOPHASE : CUB_GPU_BREADTH,
	    .init = (int)p[P_INIT].num,
	    .d = (int)p[P_D].num,
	    .lmax = (int)p[P_LMAX].num,
	    .prec = prec,
	    .rule = r,
	};
	return job;
}

/* The convergence chart of a GPU run into o: per iteration the digits its error estimate
 * claims, -log10(error / |estimate|) (within 0..16), as a line and
 * log10 of the regions it evaluated as bars. */
static void cub_chart(const struct cub_result *res, struct qx_chart *c)
{
	struct qx_series *digits = &c->series[0], *regions = &c->series[1];
	const int n = res->nhist < QX_CHART_POINTS ? res->nhist : QX_CHART_POINTS;
	if (n < 1)
		return;
	*c = (struct qx_chart){.nseries = 2};
	snprintf(c->title, sizeof c->title, "convergence per iteration");
	snprintf(c->xlabel, sizeof c->xlabel, "iteration");
	*digits = (struct qx_series){.kind = QX_SERIES_LINE, .npoints = n};
	*regions = (struct qx_series){.kind = QX_SERIES_BARS, .npoints = n};
	snprintf(digits->name, sizeof digits->name, "digits: -log10(error est / |estimate|)");
	snprintf(regions->name, sizeof regions->name, "log10 live regions");
	for (int i = 0; i < n; i++) {
		const double scale = fabs(res->hist_est[i]) > 0 ? fabs(res->hist_est[i]) : 1;
		digits->x[i] = regions->x[i] = i + 1;
		digits->y[i] = fmin(16, fmax(0, -log10(res->hist_err[i] / scale)));
		regions->y[i] = log10(res->hist_regions[i]);
	}
}

/* The LTO-IR fatbins of the user-integrand kernels (cuda/cubature/user_embed.S): per precision
 * (float, double) the rule kernel for any dimension, for dimensions 4..8, and phase 2. */
GPUJIT_FATBIN_DECLARE(cub_f_0);
GPUJIT_FATBIN_DECLARE(cub_f_4);
GPUJIT_FATBIN_DECLARE(cub_f_5);
GPUJIT_FATBIN_DECLARE(cub_f_6);
GPUJIT_FATBIN_DECLARE(cub_f_7);
GPUJIT_FATBIN_DECLARE(cub_f_8);
GPUJIT_FATBIN_DECLARE(cub_f_p2);
GPUJIT_FATBIN_DECLARE(cub_d_0);
GPUJIT_FATBIN_DECLARE(cub_d_4);
GPUJIT_FATBIN_DECLARE(cub_d_5);
GPUJIT_FATBIN_DECLARE(cub_d_6);
GPUJIT_FATBIN_DECLARE(cub_d_7);
GPUJIT_FATBIN_DECLARE(cub_d_8);
GPUJIT_FATBIN_DECLARE(cub_d_p2);
#define CUB_LTO_ROW(s)                                                                             \
	{                                                                                          \
		{qx_lto_cub_##s##_0, qx_lto_cub_##s##_0_end},                                      \
		    {qx_lto_cub_##s##_4, qx_lto_cub_##s##_4_end},                                  \
		    {qx_lto_cub_##s##_5, qx_lto_cub_##s##_5_end},                                  \
		    {qx_lto_cub_##s##_6, qx_lto_cub_##s##_6_end},                                  \
		    {qx_lto_cub_##s##_7, qx_lto_cub_##s##_7_end},                                  \
		    {qx_lto_cub_##s##_8, qx_lto_cub_##s##_8_end},                                  \
		{                                                                                  \
			qx_lto_cub_##s##_p2, qx_lto_cub_##s##_p2_end                               \
		}                                                                                  \
	}
static const unsigned char *const cub_lto[2][7][2] = {CUB_LTO_ROW(f), CUB_LTO_ROW(d)};
#undef CUB_LTO_ROW

/* The user's integrand of rq for the GPU: fn's data, and uk's kernels linked at run time for
 * the run's precision and dimension (the rule kernel, and phase 2 for twophase). */
static int cub_bind_gpu(const struct run_request *rq, struct cub_fn *fn,
                        struct cub_user_kernels *uk, struct run_output *o, struct qx_err *e)
{
	const struct param_value *p = rq->params;
	const int dim = (int)p[P_DIM].num, dn = dim >= 4 && dim <= 8 ? dim : 0;
	const int q = rq->prec == QX_DOUBLE;
	const char *suffix = q ? "d" : "f";
	struct user_integrand ui;
	struct user_compile_times t;
	char name[2][32], kind[2][16];
	*uk = (struct cub_user_kernels){.dn = dn};
	if (user_integrand_parse(param_expr(p[P_INTEGRAND]), dim, NULL, 0, rq->user, p[P_A].num,
	                         p[P_B].num, &ui, e))
		return -1;
	user_integrand_data(&ui, rq->user, p[P_A].num, p[P_B].num, fn->user);
	snprintf(name[0], sizeof name[0], "qx_cub_rule_%s", suffix);
	snprintf(name[1], sizeof name[1], "qx_cub_phase2_%s", suffix);
	snprintf(kind[0], sizeof kind[0], "rule%d", dn);
	snprintf(kind[1], sizeof kind[1], "phase2");
	struct user_gpu_kernel k[2];
	const int nk = rq->variant == V_TWOPHASE ? 2 : 1;
	for (int i = 0; i < nk; i++) {
		const unsigned char *const *bin = cub_lto[q][i ? 6 : dn ? dn - 3 : 0];
		k[i] = (struct user_gpu_kernel){kind[i], bin[0], (size_t)(bin[1] - bin[0]), name[i],
		                                NULL};
	}
	const int rc = user_integrand_gpu_kernels(rq->jit, &ui, rq->prec, k, nk, &t, e);
	user_integrand_free(&ui);
	if (rc)
		return -1;
	for (int i = 0; i < nk; i++)
		uk->kernel[i] = k[i].kernel;
	cub_compile_figures(&t, o);
	return 0;
}

/* run_gpu: the adaptive integration on the GPU, its phases in o->time, its convergence in
 * o->chart. */
static int cub_run_gpu(const struct run_request *rq, struct run_output *o, struct qx_err *e)
{
	struct cub_result res;
	const struct cub_rule *r;
	if (cub_check(rq->params, e) ||
	    !(r = cub_rule_for(cub_degree(rq->params), (int)rq->params[P_DIM].num, e)))
		return -1;
	if (rq->gpus > 1 && rq->variant == V_TWOPHASE)
		return qx_fail(
		    e,
		    "cubature: variant twophase runs on one GPU (gpus is %d): set gpus 1, "
		    "or variant breadth, which divides its work over GPUs",
		    rq->gpus);
	struct cub_gpu_job job = cub_job(rq->params, rq->prec, rq->variant, r);
	struct cub_user_kernels uk;
	if (rq->gpus > 1 && !(rq->params[P_BUDGET].num > 0)) /* a budget every GPU has room for */
		job.budget = cub_gpu_default_budget_multi(rq->gpus);
	if (job.fn.kind == CUB_USER) { /* its code maps every axis from [0, 1] itself */
		if (cub_bind_gpu(rq, &job.fn, &uk, o, e))
			return -1;
		job.user = &uk;
		job.a = 0;
		job.b = 1;
	}
	cub_progress_begin(job.maxeval);
	if (rq->gpus > 1) { /* breadth over several GPUs, each one's phases in gpu_time */
		o->ngpus = rq->gpus;
		if (cub_gpu_run_multi(&job, rq->gpus, &res, &o->time, o->gpu_time, e))
			return -1;
	} else if (cub_gpu_run(&job, &res, &o->time, e))
		return -1;
	cub_output(&res, rq->prec, o);
	cub_chart(&res, &o->chart);
	return 0;
}

/* Device bytes: the budget (the region lists never outgrow it) and the rule. */
static size_t cub_device_bytes(const struct run_request *rq)
{
	const struct param_value *p = rq->params;
	const long npts = cub_rule_points(cub_degree(p), (int)p[P_DIM].num);
	const size_t budget =
	    p[P_BUDGET].num > 0 ? (size_t)(p[P_BUDGET].num * 1048576.0) : cub_gpu_default_budget();
	return budget + (size_t)npts * ((size_t)p[P_DIM].num + CUB_MAX_SUMS) * sizeof(double);
}
#endif

/* eval X1..Xdim: the integrand at the point of exactly dim coordinates (the arguments not
 * given are NaN) in precision prec, with the exact integral over the box as a figure. */
static int cub_eval(const double *args, const struct param_value *p, const struct user_defs *u,
                    enum qx_backend b, enum qx_precision prec, struct eval_result *out,
                    struct qx_err *e)
{
	struct cub_fn fn = cub_make_fn(p);
	int given = 0;
	while (given < CUB_MAX_DIM && !isnan(args[given]))
		given++;
	if (given != fn.dim)
		return qx_fail(e, "eval takes dim = %d coordinates X1..X%d; got %d", fn.dim, fn.dim,
		               given);
	if (b == QX_GPU && fn.kind != CUB_USER)
		return 1;
	if (fn.kind == CUB_USER) {
		struct user_integrand ui;
		if (user_integrand_parse(param_expr(p[P_INTEGRAND]), fn.dim, NULL, 0, u, p[P_A].num,
		                         p[P_B].num, &ui, e))
			return -1;
		const int rc = b == QX_GPU
		                   ? user_integrand_eval_gpu(&ui, u, args, prec, &out->value, e)
		                   : user_integrand_eval(&ui, u, args, prec, &out->value, e);
		user_integrand_free(&ui);
		if (rc)
			return -1;
		out->nfigures = 1;
		out->figure[0] = (struct qx_figure){"integral", u->exact, QX_FIG_NUMBER};
		return 0;
	}
	if (prec == QX_DOUBLE)
		out->value = cub_f_d(&fn, args);
	else {
		float x[CUB_MAX_DIM] = {0};
		for (int i = 0; i < fn.dim; i++)
			x[i] = (float)args[i];
		out->value = cub_f_f(&fn, x);
	}
	out->nfigures = 1;
	out->figure[0] =
	    (struct qx_figure){.name = "integral", .value = cub_exact(&fn, p[P_A].num, p[P_B].num)};
	return 0;
}

/* as_expression: Genz's families with their drawn c and w, each written as the C source of
 * cub_f_body computes it (the same operations in the same order), numbers in %.17g. */
static int cub_as_expression(const struct param_value *p, char *buf, size_t cap)
{
	const struct cub_fn fn = cub_make_fn(p);
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

/* The phases its GPU runs report (cuda/cubature/), each summed over the iterations. */
static const char *const cub_phases[] = {"alloc",  "rules",  "classify", "split",
                                         "copies", "phase2", "free",     NULL};
static const char *const cub_table_phases[] = {"rules", "classify", "split", NULL};

const struct problem cubature_problem = {
    .name = "cubature",
    .summary = "adaptive multidimensional integration, CUHRE rules",
    .work_unit = "evaluations",
    .phases = cub_phases,
    .table_phases = cub_table_phases,
    .params = cub_params_def,
    .nparams = P_COUNT,
    .variants = cub_variants,
    .nvariants = sizeof cub_variants / sizeof cub_variants[0],
    .eval_args = cub_eval_args,
    .neval_args = CUB_MAX_DIM,
    .neval_min = 1,
    .ref_kind = QX_REF_CPU,
    .ref_name = "exact value",
    .has_estimates = 1,
    .check = cub_check,
    .user_integrand = cub_user_check,
    .count = cub_count,
    .host_bytes = cub_host_bytes,
    .point = cub_point,
    .run_cpu = cub_run_cpu,
    .reference = cub_reference,
    .is_reference = cub_is_reference,
    .tolerance = cub_tolerance,
    .eval = cub_eval,
    .as_expression = cub_as_expression,
#ifdef QX_HAVE_CUDA
    .run_gpu = cub_run_gpu,
    .multi_gpu = 1,
    .device_bytes = cub_device_bytes,
#endif
};
