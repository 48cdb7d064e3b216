/* longman_amp.c - problem longman's expression amplitude g(x) in x and lambda (longman_amp.h):
 * parsed, compiled for the CPU and linked into the GPU's kernel, refused when it does not decay,
 * and the parts of its remainder estimate that e^{-lambda x}'s does not need. */
#include "longman_amp.h"
#include "longman_params.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef QX_HAVE_CUDA
#include "../../gpujit/gpujit.h"
#endif

#include "longman_math_all.h"

/* Parses p's expression amplitude in x (dim 1) and lambda against u's parameters into ui, as
 * a bare body (no map: u's bounds do not apply); returns 0, or -1 with e naming the column
 * and what was expected, prefixed with the parameter's name. */
static int lm_parse(const struct param_value *p, const struct user_defs *u,
                    struct user_integrand *ui, struct qx_err *e)
{
	static const char *const extra[] = {"lambda"};
	struct user_defs mine = *u;
	mine.nbounds = 0;
	if (user_integrand_parse(param_expr(p[P_INTEGRAND]), 1, extra, 1, &mine, 0, 1, ui, e)) {
		struct qx_err why = *e;
		return qx_fail(e, "integrand: %s", why.msg);
	}
	ui->bare = 1;
	return 0;
}

/* Records what compiling the amplitude took as figures of o, as cubature does: the compiler's
 * and the linker's milliseconds when this run built it, and whether the session had it. */
static void lm_compile_figures(const struct user_compile_times *t, struct run_output *o)
{
	run_output_figure(o, "compile_ms", t->compile_ms);
	if (t->link_ms > 0)
		run_output_figure(o, "link_ms", t->link_ms);
	run_output_figure_as(o, "compile_cached", t->cached, QX_FIG_COUNT);
}

/* Parses p's expression amplitude against u to check it, and that it uses every batch
 * parameter of u; returns 0 or -1 with e. */
int longman_amp_check(const struct param_value *p, const struct user_defs *u, struct qx_err *e)
{
	struct user_integrand ui;
	if (lm_parse(p, u, &ui, e))
		return -1;
	for (int b = 0; b < u->nbatch; b++) {
		const int j = u->batch[b].param;
		if (!expr_uses_param(ui.tree, j)) {
			user_integrand_free(&ui);
			return qx_fail(
			    e,
			    "longman: batch parameter %s (%lld values) is not in the "
			    "amplitude: use it there, or make it one value (set param %s "
			    "VALUE)",
			    u->param_name[j], u->batch[b].spec.n, u->param_name[j]);
		}
	}
	user_integrand_free(&ui);
	return 0;
}

/* The batch (longman_amp.h): every list's values, one after the other. */
int longman_amp_batch(const struct param_value *p, const struct user_defs *u,
                      struct lm_batch_lists *l, struct qx_err *e)
{
	const int nb = u ? u->nbatch : 0;
	long long n = 0;
	*l = (struct lm_batch_lists){.b = {.m = (long long)p[P_M].num, .nb = nb}};
	for (int b = 0; b < nb; b++)
		n += u->batch[b].spec.n;
	if (nb == 0)
		return 0;
	if (!(l->vals = malloc((size_t)n * sizeof *l->vals)))
		return qx_fail(e, "cannot allocate the %lld values of the batch parameters", n);
	l->nvals = n;
	n = 0;
	for (int b = 0; b < nb; b++) {
		l->b.slot[b] = u->batch[b].param;
		l->b.len[b] = u->batch[b].spec.n;
		l->b.off[b] = n;
		param_spec_values(&u->batch[b].spec, l->vals + n);
		n += u->batch[b].spec.n;
	}
	return 0;
}

/* Frees the batch's values. */
void longman_amp_batch_free(struct lm_batch_lists *l)
{
	free(l->vals);
	l->vals = NULL;
}

/* Compiles (or finds in *jit, the session's cache or a caller's own) p's amplitude for the CPU
 * into *uf, its compile times into o when not NULL. Returns 0 or -1 with e. */
int longman_amp_bind_cpu(const struct param_value *p, const struct user_defs *u, void **jit,
                         struct lm_user_fn *uf, struct run_output *o, struct qx_err *e)
{
	struct user_integrand ui;
	struct user_compile_times t;
	if (lm_parse(p, u, &ui, e))
		return -1;
	user_integrand_data(&ui, u, 0, 1, uf->data);
	const int rc = user_integrand_cpu(jit, &ui, &uf->amp.d, &uf->amp.f, &t, e);
	user_integrand_free(&ui);
	if (rc)
		return -1;
	uf->amp.p = uf->data;
	if (o)
		lm_compile_figures(&t, o);
	return 0;
}

/* The decay check of an expression amplitude samples |g| at 8 points a decade of x - a, from
 * 10 to 1e30, and compares its largest value over the two far windows x - a in 1e14..1e16 and
 * 1e28..1e30: an amplitude that decays at all, even as slowly as 1/log(x) (a factor 0.5 between
 * the windows), falls by more than LM_DECAY_KEEP; one that tends to a nonzero value, grows or
 * keeps oscillating (1, x, exp(x), 2 + sin(x)) does not. */
#define LM_DECAY_PER_DECADE 8
#define LM_DECAY_MID_LO 14
#define LM_DECAY_MID_HI 16
#define LM_DECAY_FAR_LO 28
#define LM_DECAY_FAR_HI 30
#define LM_DECAY_KEEP 0.97
/* How many lambdas of the batch's range the decay check samples (ends included), and how many
 * values of each batch parameter (its ends and points between). */
#define LM_DECAY_LAMBDAS 33
#define LM_DECAY_PER_PARAM 5

/* The largest |g(x, lam)| over x - a = 10^(k/LM_DECAY_PER_DECADE) for decades d0..d1 (NaN
 * samples skipped, an infinite one kept), its x in *at; -1 when every sample is NaN. */
static double lm_decay_max(const struct longman_amp *amp, double lam, double a, int d0, int d1,
                           double *at)
{
	double worst = -1;
	*at = NAN;
	for (int k = d0 * LM_DECAY_PER_DECADE; k <= d1 * LM_DECAY_PER_DECADE; k++) {
		const double x[2] = {a + pow(10, (double)k / LM_DECAY_PER_DECADE), lam};
		const double v = fabs(amp->d(x, amp->p));
		if (!isnan(v) && v > worst) {
			worst = v;
			*at = x[0];
		}
	}
	return worst;
}

/* The decay check of amp (its parameters as they are) at LM_DECAY_LAMBDAS lambdas of p's range
 * (ends included); where |g| stays, -1 with e saying where, with the batch parameters' values
 * `params` ("k = 2, q = 0.5", or ""). Returns 0 or -1. */
static int lm_decay_at(const struct param_value *p, const struct longman_amp *amp,
                       const char *params, struct qx_err *e)
{
	const double lo = p[P_LAMBDA].num, hi = p[P_LAMBDA].hi, a = p[P_A].num;
	const int nlam = lo == hi ? 1 : LM_DECAY_LAMBDAS;
	for (int i = 0; i < nlam; i++) {
		const double lam = nlam == 1 ? lo : lo + (hi - lo) * i / (nlam - 1);
		double x_mid, x_far, x_near;
		const double mid =
		    lm_decay_max(amp, lam, a, LM_DECAY_MID_LO, LM_DECAY_MID_HI, &x_mid);
		const double far =
		    lm_decay_max(amp, lam, a, LM_DECAY_FAR_LO, LM_DECAY_FAR_HI, &x_far);
		if (mid < 0 || far <= 0 || far < LM_DECAY_KEEP * mid)
			continue;
		const double near = lm_decay_max(amp, lam, a, 1, 1, &x_near);
		char at[320] = "";
		if (lo != hi)
			snprintf(at, sizeof at, "; at lambda = %g%s%s", lam, *params ? ", " : "",
			         params);
		else if (*params)
			snprintf(at, sizeof at, "; at %s", params);
		return qx_fail(e,
		               "not integrable: g does not decay (|g(x)| = %.3g at x = %.3g, %.3g "
		               "at x = %.3g, %.3g at x = %.3g%s): the integral converges only "
		               "when g(x) -> 0 as x -> inf; an amplitude that falls to 0, even "
		               "as slowly as 1/sqrt(x) or 1/log(x), is taken (help longman)",
		               near, x_near, mid, x_mid, far, x_far, at);
	}
	return 0;
}

/* Refuses an amplitude amp of p that does not decay, before anything runs: the integral of
 * g(x) trig(omega x) converges only when g -> 0 (Dirichlet's test: g falling monotonically to
 * 0 suffices, 1/sqrt(x) and 1/x included), and Longman's Euler sum of areas that do not shrink
 * returns a finite (Abel) value with a tiny estimate. Checked at LM_DECAY_LAMBDAS lambdas of
 * the batch's range (an amplitude may use lambda) and, for u's batch parameters (u NULL: the
 * parameters as amp has them), at LM_DECAY_PER_PARAM values of each spread by index over its
 * values, its ends included, at every point of their grid: an amplitude decays for some values
 * only (exp(-k*x) at k = 0). Where the far samples are all NaN the check cannot decide and the
 * run goes ahead. Returns 0, or -1 with e saying where |g| stays. */
int longman_amp_decay_check(const struct param_value *p, const struct user_defs *u,
                            const struct longman_amp *amp, struct qx_err *e)
{
	const int nb = u ? u->nbatch : 0;
	double data[USER_DATA_COUNT];
	struct longman_amp mine = *amp;
	long long ns[LM_BATCH_PARAMS], points = 1;
	memcpy(data, amp->p, sizeof data);
	mine.p = data;
	for (int b = 0; b < nb; b++) {
		const long long n = u->batch[b].spec.n;
		ns[b] = n < LM_DECAY_PER_PARAM ? n : LM_DECAY_PER_PARAM;
		points *= ns[b];
	}
	for (long long t = 0; t < points; t++) {
		char params[256] = "";
		size_t used = 0;
		long long r = t;
		for (int b = 0; b < nb; b++) {
			const struct user_batch *ub = &u->batch[b];
			const long long i = r % ns[b],
			                k = ns[b] > 1 ? (ub->spec.n - 1) * i / (ns[b] - 1) : 0;
			r /= ns[b];
			data[ub->param] = param_spec_value(&ub->spec, k);
			if (used < sizeof params)
				used += (size_t)snprintf(params + used, sizeof params - used,
				                         "%s%s = %g", b ? ", " : "",
				                         u->param_name[ub->param], data[ub->param]);
		}
		if (lm_decay_at(p, &mine, params, e))
			return -1;
	}
	return 0;
}

/* An oscillatory integrand g(x) trig(omega x) for GSL's QAGS: the first part of one integral. */
struct lm_first_arg {
	const struct longman_amp *amp;
	int trig;
	double lam, om;
};

/* gsl_function of lm_first_arg: g(x) times the oscillator at x. */
static double lm_first_fn(double x, void *arg)
{
	const struct lm_first_arg *q = arg;
	const double at[2] = {x, q->lam};
	const double osc = q->trig == LM_J0    ? j0(q->om * x)
	                   : q->trig == LM_SIN ? sin(q->om * x)
	                                       : cos(q->om * x);
	return q->amp->d(at, q->amp->p) * osc;
}

/* The error of Gauss-Legendre's value `whole` of the first part [a, a + h] of an expression
 * amplitude, measured against GSL's QAGS (adaptive Gauss-Kronrod with extrapolation, which
 * evaluates no endpoint and integrates a singularity at a such as 1/sqrt(x - a)): |whole -
 * QAGS| plus QAGS's own error estimate. The halving estimate (longman_amp_quad) assumes that
 * splitting at least halves the error, which an endpoint singularity defeats: 1/sqrt(x)
 * halves it by 1/sqrt(2) only, and the halving estimate says 0.59 of the true error. Returns
 * NaN when QAGS cannot integrate the first part (it reports divergence or runs out of
 * subdivisions, as at a singularity that is not integrable such as 1/x at a = 0, or a value
 * is not finite): then no bound is known. QAGS's roundoff status keeps its value and estimate
 * (x^-0.999 at 0 ends there, its estimate still honest). */
double longman_amp_first_err(int f, double lam, double om, double a, double h, double whole,
                             const struct longman_amp *amp)
{
	enum { LIMIT = 200 };
	struct lm_first_arg arg = {amp, f, lam, om};
	gsl_function fn = {lm_first_fn, &arg};
	gsl_integration_workspace *ws = gsl_integration_workspace_alloc(LIMIT);
	double r = NAN, err = NAN;
	if (!ws)
		return NAN;
	const int status = gsl_integration_qags(&fn, a, a + h, 0, 1e-12, LIMIT, ws, &r, &err);
	gsl_integration_workspace_free(ws);
	if ((status && status != GSL_EROUND) || !isfinite(r) || !isfinite(err))
		return NAN;
	return fabs(whole - r) + err;
}

/* The remainder estimate of an expression amplitude from its signed areas A_0..A_n: twice the
 * largest over r = n-2..n of 2^{-r} |Delta^r V_0| = |sum_j C(r,j) 2^{-r} A_j| (the signs of the
 * A_j alternate) with Euler, of |A_r| with the direct sum. */
double longman_amp_bound(const double *areas, int n, int euler)
{
	double worst = 0;
	for (int r = n - 2; r <= n; r++) {
		double d = 0, c = ldexp(1, -r); /* C(r,j) 2^{-r} */
		if (!euler) {
			worst = fmax(worst, fabs(areas[r]));
			continue;
		}
		for (int j = 0; j <= r; j++) {
			d += c * areas[j];
			c = c * (r - j) / (j + 1);
		}
		worst = fmax(worst, fabs(d));
	}
	return 2 * worst;
}

/* The quadrature error estimate of one segment [x0, x0 + h] of an expression amplitude, times
 * its weight c in the sum: twice the difference of Gauss-Legendre of order g over the whole
 * segment and the same rule over its two halves (where splitting at least halves the error,
 * as it does for a smooth amplitude, that covers the coarser sum's error). An amplitude that varies
 * on a scale shorter than the half-cycle (g = 1/(1+x^2) at omega = 0.2: 1e-4 in the first part at g
 * = 10) shows here, not in the transform's remainder. */
double longman_amp_quad(int f, double lam, double om, double x0, double h, int g,
                        const struct longman_tables *tab, const struct longman_amp *amp, double c)
{
	const double whole = longman_segment_d(f, lam, om, x0, h, g, tab->t, tab->w, amp);
	const double halves =
	    longman_segment_d(f, lam, om, x0, h / 2, g, tab->t, tab->w, amp) +
	    longman_segment_d(f, lam, om, x0 + h / 2, h / 2, g, tab->t, tab->w, amp);
	return 2 * fabs(c) * fabs(whole - halves);
}

#ifdef QX_HAVE_CUDA
/* The LTO-IR fatbins of the kernel for an expression amplitude, one a precision
 * (cuda/longman/lm_user_d.lto.cu, lm_user_f.lto.cu). */
GPUJIT_FATBIN_DECLARE(lm_user_d);
GPUJIT_FATBIN_DECLARE(lm_user_f);

/* The expression amplitude of rq for the GPU: its parameters into job->user_p and the packed
 * kernel linked at run time with it for the run's precision (or found in the session's cache)
 * into job->user_kernel; the compile times into o when not NULL. Returns 0 or -1 with e. */
int longman_amp_bind_gpu(const struct run_request *rq, struct longman_gpu_job *job,
                         struct run_output *o, struct qx_err *e)
{
	const int q = rq->prec == QX_DOUBLE;
	const void *bin = q ? GPUJIT_FATBIN(lm_user_d) : GPUJIT_FATBIN(lm_user_f);
	const size_t size = q ? GPUJIT_FATBIN_SIZE(lm_user_d) : GPUJIT_FATBIN_SIZE(lm_user_f);
	struct user_integrand ui;
	struct user_compile_times t;
	double data[USER_DATA_COUNT];
	void *kernel = NULL;
	if (lm_parse(rq->params, rq->user, &ui, e))
		return -1;
	user_integrand_data(&ui, rq->user, 0, 1, data);
	const int rc = user_integrand_gpu(rq->jit, &ui, rq->prec, "longman", bin, size,
	                                  q ? "qx_lm_user_d" : "qx_lm_user_f", &kernel, &t, e);
	user_integrand_free(&ui);
	if (rc)
		return -1;
	memcpy(job->user_p, data, sizeof job->user_p);
	job->user_kernel = kernel;
	if (o)
		lm_compile_figures(&t, o);
	return 0;
}
#endif
