/* cubature_batch.c - the glue of a parameter batch of problem cubature (cubature_batch.h): the
 * user's batch into the lists a run takes, the result arrays, the run on the CPU or the GPU,
 * and the exact expression (set exact "EXPR") at every integral. */
#include "cubature_batch.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../expr/expr.h"
#include "../../problem.h"
#include "../../stats.h"
#include "cubature_cpu.h"
#include "cubature_output.h"
#include "cubature_rules.h"

/* The exact expression's parse (cubature_batch.h): the language's scopes have one axis at least,
 * which the expression may not use. */
int cub_exact_parse(const struct user_defs *u, const char *const *names, struct expr **x,
                    struct qx_err *e)
{
	const struct expr_scope scope = {.dim = 1, .params = names, .nparams = u->nparams};
	char text[PARAM_EXPR_MAX + 64];
	if (expr_parse(u->exact_expr, &scope, x, e)) {
		struct qx_err why = *e;
		return qx_fail(e, "exact: %s (an expression in the parameters: set param)",
		               why.msg);
	}
	if (expr_canonical(*x, text, sizeof text) == 0) /* the axis prints as x1 */
		for (const char *t = strstr(text, "x1"); t; t = strstr(t + 1, "x1"))
			if ((t == text || !(isalnum((unsigned char)t[-1]) || t[-1] == '_')) &&
			    !(isalnum((unsigned char)t[2]) || t[2] == '_')) {
				expr_free(*x);
				*x = NULL;
				return qx_fail(e,
				               "exact: '%.64s' uses x, an axis: the exact value "
				               "is an expression in the parameters only",
				               u->exact_expr);
			}
	return 0;
}

/* The batch of rq's user definitions for a job: its lists of values made (malloc'd, freed
 * with cub_batch_free). Returns 0 or -1 with e. */
static int cub_batch_make(const struct user_defs *u, struct cub_batch *b, struct qx_err *e)
{
	*b = (struct cub_batch){.n = user_batch_count(u), .nb = u->nbatch};
	for (int k = 0; k < u->nbatch; k++) {
		double *list = malloc((size_t)u->batch[k].spec.n * sizeof *list);
		if (!list) {
			for (int j = 0; j < k; j++)
				free((void *)b->list[j]);
			return qx_fail(e, "cannot allocate the %lld values of batch parameter %s",
			               u->batch[k].spec.n, u->param_name[u->batch[k].param]);
		}
		param_spec_values(&u->batch[k].spec, list);
		b->slot[k] = u->batch[k].param;
		b->len[k] = u->batch[k].spec.n;
		b->list[k] = list;
	}
	return 0;
}

/* Frees b's lists. */
static void cub_batch_free(struct cub_batch *b)
{
	for (int k = 0; k < b->nb; k++)
		free((void *)b->list[k]);
}

#define CUB_BATCH_PER (2 * sizeof(double) + 2 * sizeof(long long) + sizeof(int))

/* Refuses a CPU batch of n integrals whose memory does not fit the host's: its result arrays
 * and lists (bytes) and, for the queue (queue 1) with a budget set, the region lists, which
 * the threads' lists together may grow to. A default budget becomes a quarter of what the
 * arrays leave, into job->budget (the lists then fit beside them). Returns 0 or -1 with e
 * naming what it needs and what is available. */
static int cub_batch_memory(struct cub_job *job, long long n, double bytes, int queue,
                            struct qx_err *e)
{
	const double avail = (double)qx_host_mem_available();
	const double lists = queue && job->budget_mib > 0 ? (double)job->budget : 0;
	char needs[32], results[32], budget[32], has[32];
	if (avail > 0 && bytes + lists > avail) {
		format_mib((bytes + lists) / 1048576.0, needs, sizeof needs);
		format_mib(bytes / 1048576.0, results, sizeof results);
		format_mib(lists / 1048576.0, budget, sizeof budget);
		format_mib(avail / 1048576.0, has, sizeof has);
		if (lists > 0)
			return qx_fail(e,
			               "run refused: the batch of %lld integrals needs %s (%s for "
			               "its results, %s for the region lists: budget %.6g MiB) and "
			               "%s is available",
			               n, needs, results, budget, job->budget_mib, has);
		return qx_fail(e,
		               "run refused: the batch of %lld integrals needs %s for its results "
		               "and %s is available",
		               n, needs, has);
	}
	if (job->budget_mib <= 0 && avail > 0 && (avail - bytes) / 4 < (double)job->budget)
		job->budget = (size_t)((avail - bytes) / 4);
	return 0;
}

/* The per-integral arrays of a batch result of n integrals (one allocation, at value). */
static int cub_batch_result_alloc(long long n, struct cub_batch_result *r, struct qx_err *e)
{
	const size_t per = CUB_BATCH_PER;
	char *block = malloc((size_t)n * per);
	*r = (struct cub_batch_result){0};
	if (!block)
		return qx_fail(e, "cannot allocate %.1f MiB for the batch's %lld results",
		               (double)n * (double)per / 1048576.0, n);
	r->value = (double *)block;
	r->err = r->value + n;
	r->evals = (long long *)(r->err + n);
	r->live = r->evals + n;
	r->reason = (int *)(r->live + n);
	return 0;
}

/* The exact expression at every integral (cubature_batch.h): compiled once for the CPU, then
 * evaluated at each integral's parameters. */
int cub_exact_expression(const struct user_defs *u, size_t count, double *ref, struct qx_err *e)
{
	const char *names[USER_MAX_PARAMS];
	double par[USER_MAX_PARAMS], at[USER_BATCH_PARAMS], none[1] = {0};
	struct expr *x;
	struct expr_cpu_fn fn;
	for (int j = 0; j < u->nparams; j++) {
		names[j] = u->param_name[j];
		par[j] = u->param_value[j];
	}
	if (cub_exact_parse(u, names, &x, e))
		return -1;
	struct expr_jit_cache *cache = expr_jit_cache_new();
	int rc = cache ? expr_cpu_compile(cache, x, &fn, e)
	               : qx_fail(e, "out of memory for the exact value's code");
	expr_free(x);
	for (size_t i = 0; rc == 0 && i < count; i++) {
		user_batch_point(u, (long long)i, at);
		for (int b = 0; b < u->nbatch; b++)
			par[u->batch[b].param] = at[b];
		ref[i] = fn.d(none, par);
	}
	expr_jit_cache_free(cache);
	return rc;
}

/* Integral i's batch parameters (cubature_batch.h). */
int cub_batch_point(const struct user_defs *u, size_t i, const char **names, double *vals, int cap)
{
	const int n = u->nbatch < cap ? u->nbatch : cap;
	double all[USER_BATCH_PARAMS];
	user_batch_point(u, (long long)i, all);
	for (int b = 0; b < n; b++) {
		names[b] = u->param_name[u->batch[b].param];
		vals[b] = all[b];
	}
	return n;
}

/* A batch's run (cubature_batch.h): on the CPU its memory checked first (cub_batch_memory),
 * its lists and the result arrays made, the CPU's or the GPU's batch, the answers into o,
 * everything freed. */
int cub_batch_run(const struct cub_job *job, const struct user_defs *u, enum qx_backend b,
                  int (*cpu_run)(const struct cub_job *job, struct cub_result *res,
                                 struct qx_err *e),
                  cub_gpu_batch_fn gpu_run, struct run_output *o, struct qx_err *e)
{
	struct cub_batch batch;
	struct cub_batch_result out;
	struct cub_job cpu = *job; /* the CPU's, its budget beside the batch's arrays */
	if (b == QX_CPU) {
		double bytes = (double)user_batch_count(u) * (double)CUB_BATCH_PER;
		for (int k = 0; k < u->nbatch; k++)
			bytes += (double)u->batch[k].spec.n * sizeof(double);
		if (cub_batch_memory(&cpu, user_batch_count(u), bytes, cpu_run == cub_cpu_adaptive,
		                     e))
			return -1;
	}
	if (cub_batch_make(u, &batch, e))
		return -1;
	if (cub_batch_result_alloc(batch.n, &out, e)) {
		cub_batch_free(&batch);
		return -1;
	}
	const double t0 = qx_now_ms();
	int rc;
	if (b == QX_CPU) {
		rc = cub_cpu_batch(&cpu, &batch, cpu_run, &out, e);
	} else {
		cub_progress_begin(batch.n);
		qx_progress_items("integrals");
		rc = gpu_run ? gpu_run(job, &batch, &out, &o->time, e)
		             : qx_fail(e, "cubature: no GPU in this build");
	}
	if (rc == 0)
		cub_output_batch(job, batch.n, &out, qx_now_ms() - t0, o);
	free(out.value);
	cub_batch_free(&batch);
	return rc;
}

/* Stores a batch's results into o (cubature_batch.h). */
void cub_output_batch(const struct cub_job *job, long long n, const struct cub_batch_result *res,
                      double ms, struct run_output *o)
{
	long long converged = 0, by_reason[CUB_UNTRUSTED + 1] = {0};
	double worst = 0;
	const double npts = job->rule ? (double)job->rule->npts : 1;
	for (long long i = 0; i < n; i++) {
		double err;
		const double live = res->live ? (double)res->live[i] : (double)res->evals[i] / npts;
		const int reason = cub_output_value(job, res->value[i], res->err[i], res->reason[i],
		                                    live, o->values, (size_t)i, &err);
		if (o->estimates)
			o->estimates[i] = err;
		worst = isnan(err) || err > worst ? err : worst;
		converged += reason == CUB_CONVERGED;
		by_reason[reason >= 0 && reason <= CUB_UNTRUSTED ? reason : CUB_NO_PROGRESS]++;
	}
	o->work = (double)res->total_evals;
	run_output_figure_as(o, "integrals", (double)n, QX_FIG_COUNT);
	run_output_figure_as(o, "converged", (double)converged, QX_FIG_COUNT);
	run_output_figure_as(o, "worst_error_estimate", worst, QX_FIG_NUMBER);
	run_output_figure_as(o, "ms_per_integral", ms / (double)n, QX_FIG_NUMBER);
	run_output_figure_as(o, "integrals_per_s", ms > 0 ? 1e3 * (double)n / ms : INFINITY,
	                     QX_FIG_NUMBER);
	run_output_figure_as(o, "evaluations", (double)res->total_evals, QX_FIG_COUNT);
	if (res->regions > 0 && !res->mc) { /* a Monte Carlo run's "regions" are its iterations */
		run_output_figure_as(o, "regions", (double)res->regions, QX_FIG_COUNT);
		run_output_figure_as(o, "peak_MiB", res->peak_bytes / 1048576.0, QX_FIG_MIB);
	}
	/* a Monte Carlo batch's estimates are standard errors, and its run says so */
	const char *kind = res->mc ? "; the errors are standard errors" : "";
	if (res->mc)
		o->error_kind = "standard error";
	if (converged == n) {
		snprintf(o->note_text, sizeof o->note_text,
		         "converged: %lld of %lld integrals (tolerance met)%s", converged, n, kind);
	} else {
		int most = CUB_MAXEVAL; /* the commonest reason among those that did not converge */
		for (int r = CUB_MAXEVAL; r <= CUB_UNTRUSTED; r++)
			most = by_reason[r] > by_reason[most] ? r : most;
		snprintf(o->note_text, sizeof o->note_text,
		         "not converged: %lld of %lld integrals (%s%s)%s", n - converged, n,
		         cub_reason_words(most),
		         by_reason[most] < n - converged ? ", and other reasons" : "", kind);
	}
	o->note = o->note_text;
}
