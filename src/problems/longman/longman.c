/* longman.c - problem `longman`: M improper integrals I_k = int_a^inf e^{-lambda x} f(omega x)
 * dx (f = cos, sin or J0) by Longman's method: the first part [a, x_1] and N
 * half-cycle areas between zeros by Gauss-Legendre of order g, summed by the Euler transform
 * or directly. The reference is the exact closed form. The amplitude may instead be the
 * user's expression g(x) in x and lambda (`set integrand "EXPR"`, oscillator `trig`), compiled
 * for the CPU and the GPU like cubature's integrands (longman_amp.c); its reference is GSL's
 * QAWF (longman_qawf.c); the user's batch parameters (`set param k RANGE`) repeat the M
 * integrals at every point of their grid. The tables are longman_tables.c's, the parameters'
 * enum and definitions longman_params.[ch]'s. What stays here is one problem's C side around its
 * parameter enum: checks, CPU run, reference, error bounds, GPU binding and eval all read the
 * parameters by that enum, so they are kept in one file. */
#include "../../problem.h"
#include "longman_amp.h"
#include "longman_params.h"
#include "longman_qawf.h"
#include "longman_tables.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>

#ifdef QX_HAVE_CUDA
#include "longman_gpu.h"
#endif

/* The largest lambda / omega: at lambda = 8 omega, e^{-lambda x} falls by e^{-4 pi} over the
 * first part [0, pi/(2 omega)] and order-10 Gauss-Legendre still gives 5e-11 relative in
 * double; at 16 omega the error is 2e-6, at 64 omega 9%. */
#define LM_DECAY_MAX 8.0
/* The largest lambda |a| for a < 0: the integrals grow like e^{-lambda a}, which must stay
 * inside float (e^{88.7} is FLT_MAX; e^{80} leaves room for the other factors). */
#define LM_GROWTH_MAX 80.0

#include "longman_math_all.h"

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

/* How many integrals GSL's QAWF computes as the reference of an expression amplitude: a
 * sample spread over the batch (every integral when M is at most this). */
#define LM_QAWF_SAMPLE 2000

/* 1 when the amplitude is the user's expression, 0 for e^{-lambda x}. */
static int lm_is_user(const struct param_value *p)
{
	return p[P_INTEGRAND].num < 0;
}

/* The oscillator (enum longman_integrand): the built-in integrand's, or `trig` for an
 * expression amplitude. */
static int lm_trig(const struct param_value *p)
{
	return lm_is_user(p) ? (int)p[P_TRIG].num : (int)p[P_INTEGRAND].num;
}

/* The method (enum longman_method) the integrals take: auto chooses by q = e^{-lambda pi /
 * omega} for e^{-lambda x}, and is euler for an expression amplitude, whose decay is unknown
 * (Euler's transform suits the slowly, algebraically decaying amplitudes the plain sum does
 * not). */
static int lm_method(const struct param_value *p)
{
	const int m = (int)p[P_METHOD].num;
	return lm_is_user(p) && m == LM_AUTO ? LM_EULER : m;
}

/* Rejects what does not converge, has no exact value or cannot be computed: lambda = 0 with
 * cos or sin, a != 0 with j0, a largest lambda over LM_DECAY_MAX times the smallest omega
 * or, for a < 0, over LM_GROWTH_MAX / |a|; lanes that are not a power of two. For an
 * expression amplitude only lanes and a != 0 with trig j0: the limits on lambda are
 * e^{-lambda x}'s, and g's own decay is the user's to choose (help longman). */
static int longman_check(const struct param_value *p, void **state, struct qx_err *e)
{
	(void)state;
	const int f = lm_trig(p), lanes = (int)p[P_LANES].num;
	if (lanes & (lanes - 1))
		return qx_fail(e,
		               "lanes must be 0 (chosen for M) or a power of two 1, 2, 4, 8, 16, "
		               "32; got %d",
		               lanes);
	if (lm_is_user(p))
		return f == LM_J0 && p[P_A].num != 0
		           ? qx_fail(e,
		                     "trig j0 needs a = 0 (the zeros of J0 are tabulated from 0; "
		                     "got a = %g)",
		                     p[P_A].num)
		           : 0;
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
		    longman_integrand_names[f], longman_integrand_names[f]);
	if (f == LM_J0 && p[P_A].num != 0)
		return qx_fail(e,
		               "integrand j0 needs a = 0 (its exact value is known there only; "
		               "got a = %g)",
		               p[P_A].num);
	return 0;
}

/* 1 when a run of p integrates u's batch (u's batch parameters with an expression amplitude). */
static int lm_batched(const struct param_value *p, const struct user_defs *u)
{
	return u && u->nbatch && lm_is_user(p);
}

/* The integrals a run of p does: M, times the grid of u's batch (lm_batched). */
static long long lm_total(const struct param_value *p, const struct user_defs *u)
{
	const long long m = (long long)p[P_M].num;
	return lm_batched(p, u) ? m * user_batch_count(u) : m;
}

/* The user's expression amplitude of p checked against u: parsed in x and lambda with u's
 * parameters, each batch parameter used by it, M times the batch's grid at most LM_BATCH_MAX.
 * A batch needs an expression amplitude; the built-in integrands pass without one. */
static int longman_user_check(const struct param_value *p, const struct user_defs *u,
                              struct qx_err *e)
{
	const long long m = (long long)p[P_M].num, grid = user_batch_count(u);
	if (u->exact_expr)
		return qx_fail(e, "longman: set exact takes no expression (problem cubature "
		                  "does): expected a finite number or none");
	if (u->nbatch && !lm_is_user(p))
		return qx_fail(
		    e,
		    "longman: a batch (%s has %lld values) needs an expression amplitude "
		    "in its parameters: set integrand \"EXPR\", or set param %s VALUE",
		    u->param_name[u->batch[0].param], u->batch[0].spec.n,
		    u->param_name[u->batch[0].param]);
	if (!lm_is_user(p))
		return 0;
	if (u->nbatch && (double)m * (double)grid > (double)LM_BATCH_MAX)
		return qx_fail(
		    e,
		    "longman: M = %lld (lambda, omega) points at each of the batch's %lld "
		    "parameter points make %.4g integrals: at most %lld (10^9); lower M "
		    "or the batch",
		    m, grid, (double)m * (double)grid, LM_BATCH_MAX);
	return longman_amp_check(p, u, e);
}

/* trig chooses the oscillator of an expression amplitude only; math chooses the GPU's float
 * functions of e^{-lambda x} and the built-in oscillators only. */
static const char *longman_param_unused(const struct param_value *p, size_t k)
{
	if (k == P_TRIG && !lm_is_user(p))
		return "the integrands cos, sin and j0 carry their own oscillator; trig chooses "
		       "the oscillator of an expression amplitude (set integrand \"EXPR\")";
	if (k == P_MATH && lm_is_user(p))
		return "an expression amplitude runs with the precise functions on the GPU (math "
		       "applies to the integrands cos, sin and j0)";
	return NULL;
}

/* Returns the number of integrals: M, times the grid of u's batch parameters with an
 * expression amplitude. */
static size_t longman_count(const struct param_value *p, void **state, const struct user_defs *u)
{
	(void)state;
	return (size_t)lm_total(p, u);
}

/* (lambda, omega) of integral k: of its point k % M (a batch repeats the M points at each of
 * its parameter points). */
static void longman_lo(const struct param_value *p, size_t k, double *lam, double *om)
{
	const long long m = (long long)p[P_M].num;
	longman_params((long long)k % m, m, p[P_LAMBDA].num, p[P_LAMBDA].hi, p[P_OMEGA].num,
	               p[P_OMEGA].hi, (int)p[P_SPREAD].num, (unsigned long long)p[P_SEED].num, lam,
	               om);
}

/* A thread's own copy of the compiled amplitude uf, its parameters' data its own (a batch
 * writes each integral's parameters there: longman_batch_params). */
static void lm_amp_copy(const struct lm_user_fn *uf, struct lm_user_fn *mine)
{
	*mine = *uf;
	mine->amp.p = mine->data;
}

/* One integral in double or float (CPU, precise functions) by the parameters' method, of
 * the amplitude amp (NULL: e^{-lambda x}). */
static double longman_one(const struct param_value *p, const struct longman_tables *tab,
                          enum qx_precision prec, double lam, double om,
                          const struct longman_amp *amp)
{
	const int f = lm_trig(p), n = (int)p[P_N].num, g = (int)p[P_G].num;
	const double a = p[P_A].num, th1 = longman_first_phase(f, om, a);
	const int euler = longman_use_euler(lm_method(p), lam, om);
	if (prec == QX_DOUBLE)
		return longman_value_d(f, lam, om, a, th1, n, g, tab->t, tab->w, tab->z,
		                       euler ? tab->c : NULL, amp);
	return longman_value_f(f, (float)lam, (float)om, (float)a, (float)th1, n, g, tab->tf,
	                       tab->wf, tab->zf, euler ? tab->cf : NULL, amp);
}

/* The remainder estimate of one integral in double: 2^{-N} |Delta^N V_0| with Euler, |V_N|
 * with the direct sum; *mag gets |first part| + sum |areas|, the size of the terms that
 * rounding acts on. For cos and sin, area j+1 is exactly -q times area j (its Gauss nodes are
 * area j's shifted by pi/omega, where f changes sign and e^{-lambda x} shrinks by q), so
 * Delta^N V_0 = (1-q)^N V_0 and V_N = q^N V_0 follow from V_0 alone (g evaluations instead
 * of (N+2) g); for j0 the N+1 areas are integrated. For the user's amplitude amp (not NULL)
 * the N+1 areas are integrated and the estimate is twice the largest of the last three terms'
 * sizes, r = N-2..N: 2^{-r} |Delta^r V_0| with Euler, |V_r| with the direct sum
 * (longman_amp_bound). The tail of a transform whose terms shrink by about 1/2 is about twice
 * its first omitted term, which the last term alone misjudges when the areas' differences
 * change sign (g = 1/(1+x^2) with cos at omega = 3: the last term says 1.9e-8 of a true
 * 3.6e-8); over omega = 0.2..20 in steps of 0.1 at N = 8 and 16 (mpmath, exact areas) the
 * largest of the last three terms alone reached 1.3 times under the true error, twice it at
 * most 0.65 of the estimate (the last four terms: 0.83). To it is
 * added the quadrature's own estimate over the N areas (longman_amp_quad), which
 * e^{-lambda x}'s estimate leaves out, and over the first part the larger of that and the
 * error measured against QAGS (longman_amp_first_err), which covers a singularity at a. NaN
 * when QAGS cannot integrate the first part: no bound is known. */
static double longman_bound(const struct param_value *p, const struct longman_tables *tab,
                            double lam, double om, const struct longman_amp *amp, double *mag)
{
	const int f = lm_trig(p), n = (int)p[P_N].num, g = (int)p[P_G].num;
	const int euler = longman_use_euler(lm_method(p), lam, om);
	const double a = p[P_A].num, th1 = longman_first_phase(f, om, a);
	double x0 = longman_zero_d(f, om, th1, 1, tab->z), delta = 0, area = 0;
	const double first = longman_segment_d(f, lam, om, a, x0 - a, g, tab->t, tab->w, amp);
	*mag = fabs(first);
	if (f != LM_J0 && !amp) {
		const double one_minus_q = -expm1(-lam * LM_PI / om), q = 1 - one_minus_q;
		const double v0 =
		    fabs(longman_segment_d(f, lam, om, x0, LM_PI / om, g, tab->t, tab->w, NULL));
		double qj = 1;
		for (int j = 0; j < n; j++) {
			*mag += v0 * qj;
			qj *= q;
		}
		return euler ? v0 * pow(one_minus_q / 2, n) : v0 * qj;
	}
	double areas[LM_NMAX + 1], quad = 0;
	if (amp) {
		const double measured = longman_amp_first_err(f, lam, om, a, x0 - a, first, amp);
		quad =
		    isnan(measured)
		        ? NAN
		        : fmax(longman_amp_quad(f, lam, om, a, x0 - a, g, tab, amp, 1), measured);
	}
	for (int j = 0; j <= n; j++) {
		const double x1 = longman_zero_d(f, om, th1, j + 2, tab->z);
		area = areas[j] =
		    longman_segment_d(f, lam, om, x0, x1 - x0, g, tab->t, tab->w, amp);
		delta += tab->bc[j] * area;
		if (j < n) {
			*mag += fabs(area);
			if (amp)
				quad += longman_amp_quad(f, lam, om, x0, x1 - x0, g, tab, amp,
				                         euler ? tab->c[j] : 1);
		}
		x0 = x1;
	}
	if (amp)
		return longman_amp_bound(areas, n, euler) + quad;
	return euler ? fabs(delta) : fabs(area);
}

/* Fills the coordinates of integral i: of a batch (lm_batched) its batch parameters by name
 * first (the grid's point, as cubature's batch names them), then lambda and omega; of the
 * built-in integrands (lambda, omega, bound). Returns how many (2 plus the batch parameters
 * for an expression amplitude, whose compiled code a point has no access to: its bound is in
 * the run's figures). */
static int longman_point(const struct param_value *p, void **state, const struct user_defs *u,
                         size_t i, const char **names, double *vals, int cap)
{
	(void)state;
	const struct longman_tables *tab = longman_tables((int)p[P_G].num, (int)p[P_N].num);
	const int nb = lm_batched(p, u) ? u->nbatch : 0;
	double mag;
	if (cap < 3 + nb)
		return 0;
	if (nb) {
		double at[USER_BATCH_PARAMS];
		user_batch_point(u, (long long)(i / (size_t)p[P_M].num), at);
		for (int b = 0; b < nb; b++) {
			names[b] = u->param_name[u->batch[b].param];
			vals[b] = at[b];
		}
	}
	names[nb] = "lambda";
	names[nb + 1] = "omega";
	longman_lo(p, i, &vals[nb], &vals[nb + 1]);
	if (lm_is_user(p))
		return nb + 2;
	names[2] = "bound";
	vals[2] = longman_bound(p, tab, vals[0], vals[1], NULL, &mag);
	return 3;
}

/* The stats of the last QAWF reference of an expression amplitude on this thread (the thread
 * that computes a run's reference also adds its figures; a cached reference keeps them). */
static _Thread_local struct lm_qawf_stats lm_qawf_last;

/* What a QAWF batch reads of each integral: the parameters, and the user's batch (NULL or nb
 * 0: none). */
struct lm_qawf_ctx {
	const struct param_value *p;
	const struct lm_batch_lists *lists;
};

/* longman_lo as a QAWF batch's lambda and omega of integral k (arg: an lm_qawf_ctx). */
static void lm_qawf_at(const void *arg, size_t k, double *lam, double *om)
{
	longman_lo(((const struct lm_qawf_ctx *)arg)->p, k, lam, om);
}

/* Integral k's batch parameters into the amplitude's data (arg: an lm_qawf_ctx). */
static void lm_qawf_params(const void *arg, size_t k, double *data)
{
	const struct lm_batch_lists *l = ((const struct lm_qawf_ctx *)arg)->lists;
	longman_batch_params(&l->b, l->vals, (long long)k, data);
}

/* The QAWF batch of c with amplitude amp (NULL: e^{-lambda x}). */
static struct lm_qawf_batch lm_qawf_of(const struct lm_qawf_ctx *c, const struct longman_amp *amp)
{
	const int nb = c->lists ? c->lists->b.nb : 0;
	return (struct lm_qawf_batch){lm_qawf_at,    c,   c->p[P_A].num,
	                              lm_trig(c->p), amp, nb ? lm_qawf_params : NULL};
}

/* Refuses a run of rq whose user batch longman cannot take (a session may carry one from
 * problem cubature): a built-in integrand, a batch parameter the amplitude does not use, more
 * than LM_BATCH_MAX integrals (longman_user_check). Returns 0 (also for no batch) or -1. */
static int lm_batch_refuse(const struct run_request *rq, struct qx_err *e)
{
	return rq->user && rq->user->nbatch ? longman_user_check(rq->params, rq->user, e) : 0;
}

/* run_cpu: every integral by Longman's method (precise math; `math fast` is GPU-only) on
 * `threads` threads in blocks, polling the cancel flag; or through GSL for variant qawf. An
 * expression amplitude is compiled first (or found in the session's cache) and refused when it
 * does not decay over its lambdas and batch parameters (longman_amp_decay_check); each thread
 * then writes each integral's batch parameters into its own copy of the amplitude's data. */
static int longman_run_cpu(const struct run_request *rq, struct run_output *o, struct qx_err *e)
{
	void *out = o->values;
	enum { BLOCK = 1024 };
	const struct param_value *p = rq->params;
	const long long m = lm_total(p, rq->user), nblocks = (m + BLOCK - 1) / BLOCK;
	struct lm_user_fn uf;
	struct lm_batch_lists lists = {{0}, NULL, 0};
	if (lm_batch_refuse(rq, e))
		return -1;
	if (rq->variant == V_QAWF) {
		if (rq->prec == QX_FLOAT)
			return qx_fail(e, "variant qawf computes in double only: set precision "
			                  "double");
		if (lm_is_user(p))
			return qx_fail(e,
			               "variant qawf is the reference of an expression amplitude "
			               "(its values would be compared with themselves): use "
			               "variant packed");
		const struct lm_qawf_ctx c = {p, NULL};
		const struct lm_qawf_batch batch = lm_qawf_of(&c, NULL);
		return longman_qawf(&batch, rq->threads, NULL, m, NULL, out, e);
	}
	const int user = lm_is_user(p);
	if (user && (longman_amp_bind_cpu(p, rq->user, rq->jit, &uf, o, e) ||
	             longman_amp_decay_check(p, rq->user, &uf.amp, e) ||
	             longman_amp_batch(p, lm_batched(p, rq->user) ? rq->user : NULL, &lists, e)))
		return -1;
	const struct longman_tables *tab = longman_tables((int)p[P_G].num, (int)p[P_N].num);
#pragma omp parallel num_threads(rq->threads)
	{
		struct lm_user_fn mine;
		if (user)
			lm_amp_copy(&uf, &mine);
#pragma omp for schedule(dynamic, 1)
		for (long long blk = 0; blk < nblocks; blk++) {
			if (qx_cancelled())
				continue;
			const long long end = blk * BLOCK + BLOCK < m ? blk * BLOCK + BLOCK : m;
			for (long long k = blk * BLOCK; k < end; k++) {
				double lam, om;
				longman_lo(p, (size_t)k, &lam, &om);
				if (lists.b.nb)
					longman_batch_params(&lists.b, lists.vals, k, mine.data);
				const double v =
				    longman_one(p, tab, rq->prec, lam, om, user ? &mine.amp : NULL);
				if (rq->prec == QX_DOUBLE)
					((double *)out)[k] = v;
				else
					((float *)out)[k] = (float)v;
			}
			qx_progress_add(end - blk * BLOCK);
		}
	}
	longman_amp_batch_free(&lists);
	if (qx_cancelled())
		return qx_fail(e, "run cancelled");
	return 0;
}

/* reference: the exact values on `threads` threads; for an expression amplitude GSL's QAWF
 * (cos and sin) of the sampled integrals idx[0..n) (idx NULL: all), NaN where GSL cannot
 * obtain one, and NaN everywhere for trig j0 (no reference: nothing is compared). */
static int longman_reference(const struct param_value *p, void **state, const struct user_defs *u,
                             int threads, const size_t *idx, size_t n, double *ref,
                             struct qx_err *e)
{
	(void)state;
	const long long m = lm_total(p, u);
	if (lm_is_user(p)) {
		struct lm_user_fn uf;
		struct lm_batch_lists lists = {{0}, NULL, 0};
		void *jit = NULL;
		lm_qawf_last = (struct lm_qawf_stats){0, 0};
		if (lm_trig(p) == LM_J0) {
			for (long long k = 0; k < m; k++)
				ref[k] = NAN;
			return 0;
		}
		int rc = longman_amp_bind_cpu(p, u, &jit, &uf, NULL, e) ||
		         longman_amp_batch(p, lm_batched(p, u) ? u : NULL, &lists, e);
		const struct lm_qawf_ctx c = {p, &lists};
		const struct lm_qawf_batch batch = lm_qawf_of(&c, &uf.amp);
		if (!rc)
			rc = longman_qawf(&batch, threads, idx, idx ? (long long)n : m,
			                  &lm_qawf_last, ref, e);
		longman_amp_batch_free(&lists);
		problem_jit_free(jit);
		return rc ? -1 : 0;
	}
	const int f = (int)p[P_INTEGRAND].num;
	(void)e;
#pragma omp parallel for schedule(static) num_threads(threads)
	for (long long k = 0; k < m; k++) {
		double lam, om;
		longman_lo(p, (size_t)k, &lam, &om);
		ref[k] = longman_exact(f, lam, om, p[P_A].num);
	}
	return 0;
}

/* The reference of p: the exact values, or for an expression amplitude GSL's QAWF on a sample
 * of LM_QAWF_SAMPLE integrals spread over the batch (QAWF costs far more than Longman's
 * method on slowly decaying amplitudes). */
static enum qx_ref_kind longman_ref_choice(const struct param_value *p, void **state,
                                           size_t *samples, const char **name)
{
	(void)state;
	if (!lm_is_user(p)) {
		*name = "exact values";
		return QX_REF_CPU;
	}
	*name = lm_trig(p) == LM_J0 ? "none (QAWF takes cos and sin only)" : "GSL QAWF";
	*samples = LM_QAWF_SAMPLE;
	return QX_REF_SAMPLE;
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
 * part and the areas summed over the size of the exact value. None (0) for an expression
 * amplitude, whose code is not at hand here: its values over the threshold stay flagged. */
static double longman_rounding_bound(const struct param_value *p, enum qx_precision prec, size_t i,
                                     double *condition)
{
	const struct longman_tables *tab = longman_tables((int)p[P_G].num, (int)p[P_N].num);
	double lam, om, mag;
	*condition = 0;
	if (lm_is_user(p))
		return 0;
	longman_lo(p, i, &lam, &om);
	longman_bound(p, tab, lam, om, NULL, &mag);
	*condition = mag / fabs(longman_exact((int)p[P_INTEGRAND].num, lam, om, p[P_A].num));
	return longman_rounding(p, prec, om, mag);
}

/* add_figures: the largest remainder estimate, how many integrals miss their estimate by more
 * than rounding (4 eps of the precision, times the conditioning 1 + omega x of f at the last
 * zero, times the size of the summed terms), and how many took euler and direct. The
 * estimates are recomputed in double on every core: for cos and sin from the first area
 * alone (longman_bound), about N times cheaper than the run itself; for an expression
 * amplitude from its N+1 areas (the run's cost again), compared where the QAWF reference has
 * a value, with QAWF's own largest error estimate added to the allowance (qawf_err_max; and
 * qawf_failed, the sampled integrals GSL could not obtain). Variant qawf uses neither
 * Longman's areas nor his estimate: none. */
static void longman_add_figures(const struct run_request *rq, const double *ref,
                                struct run_output *o)
{
	const void *vals = o->values;
	if (rq->variant == V_QAWF)
		return;
	const struct param_value *p = rq->params;
	const long long m = lm_total(p, rq->user);
	const struct longman_tables *tab = longman_tables((int)p[P_G].num, (int)p[P_N].num);
	const int user = lm_is_user(p), qawf = user && lm_trig(p) != LM_J0;
	const double ref_err = qawf ? lm_qawf_last.err_max : 0;
	struct lm_user_fn uf;
	struct lm_batch_lists lists = {{0}, NULL, 0};
	struct qx_err e;
	double worst = 0;
	long long over = 0, euler = 0, unknown = 0;
	if (user && (longman_amp_bind_cpu(p, rq->user, rq->jit, &uf, NULL, &e) ||
	             longman_amp_batch(p, lm_batched(p, rq->user) ? rq->user : NULL, &lists, &e)))
		return; /* the run compiled it and made its batch: only memory can fail here */
#pragma omp parallel reduction(max : worst) reduction(+ : over, euler, unknown)
	{
		struct lm_user_fn mine;
		if (user)
			lm_amp_copy(&uf, &mine);
#pragma omp for schedule(dynamic, 256)
		for (long long k = 0; k < m; k++) {
			double lam, om, mag;
			longman_lo(p, (size_t)k, &lam, &om);
			if (lists.b.nb)
				longman_batch_params(&lists.b, lists.vals, k, mine.data);
			const double bound =
			    longman_bound(p, tab, lam, om, user ? &mine.amp : NULL, &mag);
			const double v = rq->prec == QX_DOUBLE ? ((const double *)vals)[k]
			                                       : ((const float *)vals)[k];
			euler += longman_use_euler(lm_method(p), lam, om);
			if (isnan(bound)) {
				unknown++;
				continue;
			}
			worst = bound > worst ? bound : worst;
			if (!isnan(ref[k]))
				over += !(fabs(v - ref[k]) <=
				          bound + longman_rounding(p, rq->prec, om, mag) + ref_err);
		}
	}
	longman_amp_batch_free(&lists);
	run_output_figure(o, "bound_max", unknown ? NAN : worst);
	run_output_figure_as(o, "over_bound", (double)over, QX_FIG_COUNT);
	run_output_figure_as(o, "euler", (double)euler, QX_FIG_COUNT);
	run_output_figure_as(o, "direct", (double)(m - euler), QX_FIG_COUNT);
	if (user)
		run_output_figure_as(o, "bound_unknown", (double)unknown, QX_FIG_COUNT);
	if (qawf) {
		run_output_figure(o, "qawf_err_max", ref_err);
		run_output_figure_as(o, "qawf_failed", (double)lm_qawf_last.failed, QX_FIG_COUNT);
		if (lm_qawf_last.failed)
			o->note =
			    "GSL's QAWF could not obtain some sampled references (qawf_failed): "
			    "those integrals are not compared";
	} else if (user) {
		o->note = "no reference: QAWF takes cos and sin only, so nothing is compared and "
		          "bound_max, Longman's own estimate, is the only measure of the error";
	}
	if (unknown && qawf && lm_qawf_last.failed)
		o->note =
		    "error bound unknown (bound_unknown integrals, bound_max nan): g is "
		    "singular at a, or not finite on the first part, and GSL's QAGS could not "
		    "integrate the first part [a, x_1]; and GSL's QAWF could not obtain some "
		    "sampled references (qawf_failed): those integrals are not compared";
	else if (unknown)
		o->note =
		    "error bound unknown (bound_unknown integrals, bound_max nan): g is "
		    "singular at a, or not finite on the first part, and GSL's QAGS could not "
		    "integrate the first part [a, x_1] to measure the Gauss-Legendre error "
		    "there";
}

/* Host memory besides results and reference: the cached tables, and a batch's lists of
 * values. */
static size_t longman_host_bytes(const struct run_request *rq)
{
	size_t lists = 0;
	for (int b = 0; lm_batched(rq->params, rq->user) && b < rq->user->nbatch; b++)
		lists += (size_t)rq->user->batch[b].spec.n * sizeof(double);
	return sizeof(struct longman_tables) + lists;
}

/* gpu_block: packed launches the block setting, which must be whole warps up to its kernel's
 * launch bound; block sets its own, N+1 rounded up to a warp. Returns it, or -1 with e. */
static int longman_launch_block(const struct run_request *rq, struct qx_err *e)
{
	if (rq->variant == V_BLOCK && lm_is_user(rq->params))
		return qx_fail(e, "variant block takes the built-in amplitude e^{-lambda x} only: "
		                  "an expression amplitude runs on variant packed");
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
/* The GPU job matching parameters p and the user's definitions u (NULL: none) in precision
 * prec with variant v: its integrals M times u's batch grid, the batch's lists counted
 * (batch_nvals) but not yet made (the run makes them: batch, batch_vals). */
static struct longman_gpu_job longman_job(const struct param_value *p, const struct user_defs *u,
                                          enum qx_precision prec, int variant, int block)
{
	const struct longman_tables *tab = longman_tables((int)p[P_G].num, (int)p[P_N].num);
	long long nvals = 0;
	for (int b = 0; lm_batched(p, u) && b < u->nbatch; b++)
		nvals += u->batch[b].spec.n;
	struct longman_gpu_job job = {
	    .m = lm_total(p, u),
	    .n = (int)p[P_N].num,
	    .g = (int)p[P_G].num,
	    .lam_lo = p[P_LAMBDA].num,
	    .lam_hi = p[P_LAMBDA].hi,
	    .om_lo = p[P_OMEGA].num,
	    .om_hi = p[P_OMEGA].hi,
	    .a = p[P_A].num,
	    .spread = (int)p[P_SPREAD].num,
	    .seed = (unsigned long long)p[P_SEED].num,
	    .integrand = lm_trig(p),
	    .method = lm_method(p),
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
	    .batch = {.m = (long long)p[P_M].num},
	    .batch_nvals = nvals,
	};
	return job;
}

/* run_gpu: every integral on the GPU (or over rq->gpus GPUs) into out, with phase times; an
 * expression amplitude is compiled for the CPU and checked to decay over its lambdas and batch
 * parameters (longman_amp_decay_check), then compiled and linked for the GPU (its time in
 * figures, outside the phases); a batch's lists go with the job, each integral's kernel thread
 * reading its parameters from its index (longman_batch_params). */
static int longman_run_gpu(const struct run_request *rq, struct run_output *o, struct qx_err *e)
{
	const struct param_value *p = rq->params;
	struct longman_gpu_job job = longman_job(p, rq->user, rq->prec, rq->variant, rq->block);
	struct lm_user_fn uf;
	struct lm_batch_lists lists = {{0}, NULL, 0};
	if (lm_batch_refuse(rq, e))
		return -1;
	if (lm_is_user(p) &&
	    (longman_amp_bind_cpu(p, rq->user, rq->jit, &uf, NULL, e) ||
	     longman_amp_decay_check(p, rq->user, &uf.amp, e) ||
	     longman_amp_bind_gpu(rq, &job, o, e) ||
	     longman_amp_batch(p, lm_batched(p, rq->user) ? rq->user : NULL, &lists, e)))
		return -1;
	if (lists.b.nb) {
		job.batch = lists.b;
		job.batch_vals = lists.vals;
		job.batch_nvals = lists.nvals;
	}
	int rc;
	if (rq->gpus > 1) { /* the batch over several GPUs, each one's phases in gpu_time */
		o->ngpus = rq->gpus;
		rc = longman_gpu_run_multi(&job, rq->gpus, o->values, &o->time, o->gpu_time, e);
	} else {
		rc = longman_gpu_run(&job, o->values, &o->time, e);
	}
	longman_amp_batch_free(&lists);
	return rc;
}

/* Device bytes the GPU run allocates. */
static size_t longman_device_bytes(const struct run_request *rq)
{
	const struct longman_gpu_job job =
	    longman_job(rq->params, rq->user, rq->prec, rq->variant, rq->block);
	return longman_gpu_device_bytes(&job);
}

/* Occupancy of the kernel the GPU run launches. */
static int longman_occupancy(const struct run_request *rq, struct gpu_occupancy *o,
                             struct qx_err *e)
{
	struct longman_gpu_job job =
	    longman_job(rq->params, rq->user, rq->prec, rq->variant, rq->block);
	if (lm_is_user(rq->params) && longman_amp_bind_gpu(rq, &job, NULL, e))
		return -1;
	return longman_gpu_occupancy(&job, o, e);
}
#endif

/* eval of an expression amplitude, CPU only (the GPU's kernel lives in a run's session
 * cache): the integral by Longman's method in prec, the remainder estimate, GSL QAWF's value
 * and error estimate as the reference, and the error against it; reference and error are NaN
 * where QAWF cannot give one (trig j0, or GSL failing), never 0. A batch parameter takes its
 * one value there (its first: user_param_define), and the decay check that point alone. */
static int longman_eval_user(const double *args, const struct param_value *q,
                             const struct user_defs *u, enum qx_backend b, enum qx_precision prec,
                             struct eval_result *out, struct qx_err *e)
{
	const struct longman_tables *tab = longman_tables((int)q[P_G].num, (int)q[P_N].num);
	struct lm_user_fn uf;
	void *jit = NULL;
	double mag, ref = NAN;
	struct lm_qawf_stats st = {NAN, 0};
	if (b == QX_GPU)
		return 1;
	if (longman_amp_bind_cpu(q, u, &jit, &uf, NULL, e) ||
	    longman_amp_decay_check(q, NULL, &uf.amp, e)) {
		problem_jit_free(jit);
		return -1;
	}
	out->value = longman_one(q, tab, prec, args[0], args[1], &uf.amp);
	const double bound = longman_bound(q, tab, args[0], args[1], &uf.amp, &mag);
	const struct lm_qawf_ctx c = {q, NULL};
	const struct lm_qawf_batch batch = lm_qawf_of(&c, &uf.amp);
	if (lm_trig(q) != LM_J0 && longman_qawf(&batch, 1, NULL, 1, &st, &ref, e)) {
		problem_jit_free(jit);
		return -1;
	}
	problem_jit_free(jit);
	out->nfigures = 4;
	out->figure[0] = (struct qx_figure){.name = "reference", .value = ref};
	out->figure[1] =
	    (struct qx_figure){.name = "reference_err", .value = isnan(ref) ? NAN : st.err_max};
	out->figure[2] = (struct qx_figure){.name = "bound", .value = bound};
	out->figure[3] = (struct qx_figure){.name = "error", .value = fabs(out->value - ref)};
	return 0;
}

/* eval LAMBDA OMEGA: one integral on backend b in precision prec (the GPU: variant packed with
 * the parameters' math), with the exact value, the remainder estimate and the error. */
static int longman_eval(const double *args, const struct param_value *p, void **state,
                        const struct user_defs *u, enum qx_backend b, enum qx_precision prec,
                        struct eval_result *out, struct qx_err *e)
{
	struct param_value q[QX_MAX_PARAMS];
	double mag;
	for (int k = 0; k < P_COUNT; k++)
		q[k] = p[k];
	q[P_M].num = 1;
	q[P_LAMBDA] = (struct param_value){.num = args[0], .hi = args[0], .kind = PARAM_KIND_RANGE};
	q[P_OMEGA] = (struct param_value){.num = args[1], .hi = args[1], .kind = PARAM_KIND_RANGE};
	if (longman_check(q, state, e))
		return -1;
	if (lm_is_user(q))
		return longman_eval_user(args, q, u, b, prec, out, e);
	const struct longman_tables *tab = longman_tables((int)q[P_G].num, (int)q[P_N].num);
	if (b == QX_GPU) {
#ifdef QX_HAVE_CUDA
		const struct longman_gpu_job job = longman_job(q, NULL, prec, V_PACKED, 256);
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
		out->value = longman_one(q, tab, prec, args[0], args[1], NULL);
	}
	const double exact = longman_exact((int)q[P_INTEGRAND].num, args[0], args[1], q[P_A].num);
	out->nfigures = 3;
	out->figure[0] = (struct qx_figure){.name = "exact", .value = exact};
	out->figure[1] = (struct qx_figure){
	    .name = "bound", .value = longman_bound(q, tab, args[0], args[1], NULL, &mag)};
	out->figure[2] = (struct qx_figure){.name = "error", .value = fabs(out->value - exact)};
	return 0;
}

/* The phases its GPU runs report (cuda/longman/longman.cu), in order. */
static const char *const longman_phases[] = {"alloc", "h2d", "kernel", "d2h", "free", NULL};
static const char *const longman_table_phases[] = {"kernel", "d2h", NULL};

// clang-format off
const struct problem longman_problem = {
    .name = "longman", .summary = "improper oscillatory integrals by Longman's method",
    .phases = longman_phases, .table_phases = longman_table_phases, .work_unit = "integrals",
    .params = longman_params_def, .nparams = P_COUNT,
    .ref_kind = QX_REF_CPU, .ref_name = "exact values", .ref_choice = longman_ref_choice,
    .variants = longman_variants,
    .nvariants = sizeof longman_variants / sizeof longman_variants[0],
    .eval_args = longman_eval_args, .neval_args = LONGMAN_NEVAL_ARGS,
    .check = longman_check, .user_integrand = longman_user_check,
    .param_unused = longman_param_unused,
    .count = longman_count, .host_bytes = longman_host_bytes,
    .point = longman_point, .run_cpu = longman_run_cpu,
    .reference = longman_reference, .is_reference = longman_is_reference,
    .add_figures = longman_add_figures, .rounding_bound = longman_rounding_bound,
    .gpu_block = longman_launch_block, .eval = longman_eval,
#ifdef QX_HAVE_CUDA
    .run_gpu = longman_run_gpu, .multi_gpu = 1,
    .device_bytes = longman_device_bytes, .occupancy = longman_occupancy,
#endif
};
// clang-format on
