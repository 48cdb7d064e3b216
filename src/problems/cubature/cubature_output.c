/* cubature_output.c - a finished run of problem cubature into its run_output
 * (cubature_output.h), and the progress every adaptive run publishes (cubature_job.h). */
#include "cubature_output.h"

#include "cubature_mc.h"
#include "cubature_rules.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

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

/* Records an iteration in the history (cubature_job.h): the last point dropped when it lay off
 * the stride, the history past its head thinned to every other point when full, then iter
 * appended. */
void cub_history_record(struct cub_result *res, long long iter, double est, double err,
                        double regions, double evals)
{
	if (res->hist_stride < 1)
		res->hist_stride = 1;
	if (res->hist_tail && res->nhist > 0)
		res->nhist--;
	if (res->nhist == CUB_HISTORY) {
		const long long keep = 2LL * res->hist_stride;
		int n = 0;
		for (int i = 0; i < res->nhist; i++)
			if (i < CUB_HISTORY_HEAD || res->hist_iter[i] % keep == 0) {
				res->hist_iter[n] = res->hist_iter[i];
				res->hist_est[n] = res->hist_est[i];
				res->hist_err[n] = res->hist_err[i];
				res->hist_regions[n] = res->hist_regions[i];
				res->hist_evals[n++] = res->hist_evals[i];
			}
		res->nhist = n;
		res->hist_stride *= 2;
	}
	const int i = res->nhist++;
	res->hist_iter[i] = iter;
	res->hist_est[i] = est;
	res->hist_err[i] = err;
	res->hist_regions[i] = regions;
	res->hist_evals[i] = evals;
	res->hist_tail = iter % res->hist_stride != 0;
}

/* The note of a run that stopped for reason, in words; unverified: the error estimate is
 * libcubature's own, which quadx does not check. */
static const char *cub_reason_note(int reason, int unverified)
{
	switch (reason) {
	case CUB_CONVERGED:
		return unverified ? "converged by libcubature's own error estimate (unverified: "
		                    "a kink or jump can put the true error over it)"
		                  : "converged (tolerance met)";
	case CUB_MAXEVAL:
		return "not converged: maxeval reached";
	case CUB_BUDGET:
		return "not converged: the region list filled its memory budget";
	case CUB_NONFINITE:
		return "not converged: the integrand was NaN or inf at points of regions still "
		       "live (left out of the value; the error estimate is infinite)";
	case CUB_PRECISION:
		return "not converged: the tolerance is below what the precision reaches (the "
		       "estimate, with the rounding of the samples and sums in it, stands at that "
		       "rounding)";
	default:
		return "not converged: the error estimate stopped falling (splitting made no "
		       "progress)";
	}
}

/* A Monte Carlo run's figures and note into o (its error a standard error): the iterations
 * (vegas's in the result and its chi^2/dof; qmc's points a shift and shifts) and why it stopped,
 * the note written into o->note_text. */
static void cub_output_mc(const struct cub_result *res, int reason, struct run_output *o)
{
	o->error_kind = "standard error";
	run_output_figure_as(o, "iterations", (double)res->iterations, QX_FIG_COUNT);
	if (res->mc == CUB_MC_VEGAS) {
		run_output_figure_as(o, "result_iterations", (double)res->regions, QX_FIG_COUNT);
		run_output_figure(o, "chi2_dof", res->chi2_dof);
	} else
		run_output_figure_as(o, "points_per_shift", (double)res->regions, QX_FIG_COUNT);
	run_output_figure_as(o, "evaluations", (double)res->evals, QX_FIG_COUNT);
	if (res->nonfinite > 0)
		run_output_figure_as(o, "nonfinite_samples", (double)res->nonfinite, QX_FIG_COUNT);
	const char *why = reason == CUB_CONVERGED ? "converged (standard error <= tolerance)"
	                  : reason == CUB_UNTRUSTED
	                      ? "not converged: the estimate is not trustworthy"
	                      : cub_reason_note(reason, 0);
	if (reason == CUB_UNTRUSTED)
		snprintf(o->note_text, sizeof o->note_text,
		         "%s (chi^2/dof = %.3g); the error is a "
		         "standard error",
		         why, res->chi2_dof);
	else
		snprintf(o->note_text, sizeof o->note_text, "%s; the error is a standard error",
		         why);
	o->note = o->note_text;
}

/* One integral's answer (cubature_output.h). An integral converges only with a finite value
 * and an error estimate that meets the tolerance once the rounding the rules do not see is in
 * it. */
int cub_output_value(const struct cub_job *job, double value, double err, int reason, double live,
                     void *values, size_t i, double *err_out)
{
	if (!isfinite(value) || !(err < CUB_ERR_NONFINITE)) {
		reason = CUB_NONFINITE;
		err = INFINITY;
	}
	/* the regions' estimates summed in double carry rounding of their own, which the rules'
	 * error estimates do not see: about log2(regions) + 4 units of the last place of the sum */
	err += (4 + log2(fmax(1, live))) * DBL_EPSILON * fabs(value);
	double stored = value;
	if (job->prec == QX_DOUBLE)
		((double *)values)[i] = value;
	else {
		const float v = (float)value;
		((float *)values)[i] = v;
		err += fabs((double)v - value);
		stored = v;
	}
	/* converged only with the rounding in; and a run that stopped short with its estimate
	 * already at its precision's rounding (64 units of the value's last place) could not
	 * have met the tolerance with more evaluations either */
	const double ulp = job->prec == QX_DOUBLE ? DBL_EPSILON : FLT_EPSILON;
	if (reason == CUB_CONVERGED && !(err <= fmax(job->abs, job->rel * fabs(stored))))
		reason = CUB_PRECISION;
	else if ((reason == CUB_MAXEVAL || reason == CUB_BUDGET || reason == CUB_NO_PROGRESS) &&
	         err <= 64 * ulp * fabs(stored))
		reason = CUB_PRECISION;
	*err_out = err;
	return reason;
}

/* The evaluations spent by point i of res's history, 0 when not recorded. */
static double cub_hist_evals(const struct cub_result *res, int i)
{
	return res->hist_evals[i];
}

/* The history of res as the run's convergence: its points that counted their evaluations. */
static void cub_convergence(const struct cub_result *res, struct qx_convergence *cv)
{
	cv->n = 0;
	for (int i = 0; i < res->nhist && cv->n < QX_CONV_POINTS; i++)
		if (cub_hist_evals(res, i) > 0) {
			cv->evals[cv->n] = cub_hist_evals(res, i);
			cv->est[cv->n] = res->hist_est[i];
			cv->err[cv->n++] = res->hist_err[i];
		}
}

/* Stores a result into o (cubature_output.h): its one value by cub_output_value, its history
 * as the chart and the convergence. */
void cub_output(const struct cub_job *job, const struct cub_result *res, struct run_output *o)
{
	double err;
	const int reason = cub_output_value(job, res->value, res->err, res->reason,
	                                    (double)res->live, o->values, 0, &err);
	if (o->estimates)
		o->estimates[0] = err;
	o->work = (double)res->evals;
	run_output_figure_as(o, "converged", reason == CUB_CONVERGED, QX_FIG_CODE);
	run_output_figure_as(o, "reason", reason, QX_FIG_CODE);
	cub_chart(res, &o->chart);
	cub_convergence(res, &o->conv);
	if (res->mc) {
		cub_output_mc(res, reason, o);
		return;
	}
	if (res->regions > 0) { /* hcubature keeps its regions to itself */
		run_output_figure_as(o, "iterations", (double)res->iterations, QX_FIG_COUNT);
		run_output_figure_as(o, "regions", (double)res->regions, QX_FIG_COUNT);
		run_output_figure_as(o, "live", (double)res->live, QX_FIG_COUNT);
	}
	run_output_figure_as(o, "evaluations", (double)res->evals, QX_FIG_COUNT);
	if (res->nonfinite > 0)
		run_output_figure_as(o, "nonfinite_samples", (double)res->nonfinite, QX_FIG_COUNT);
	if (res->regions > 0)
		run_output_figure_as(o, "peak_MiB", res->peak_bytes / 1048576.0, QX_FIG_MIB);
	o->note = cub_reason_note(reason, res->unverified);
}

/* The convergence chart of a run's history into c (cubature_output.h): per point the digits its
 * error estimate claims, -log10(error / |estimate|) (within 0..16), as a line, and as bars
 * log10 of the live regions (a rule's run) or of the evaluations so far (a Monte Carlo run,
 * or a run whose history counts no regions), x its iteration (qmc: its doubling). */
void cub_chart(const struct cub_result *res, struct qx_chart *c)
{
	struct qx_series *digits = &c->series[0], *bars = &c->series[1];
	const int n = res->nhist < QX_CHART_POINTS ? res->nhist : QX_CHART_POINTS;
	const int evals = res->mc || (n > 0 && !(res->hist_regions[0] > 0));
	if (n < 1)
		return;
	*c = (struct qx_chart){.nseries = 2};
	snprintf(c->title, sizeof c->title, "convergence per %s%s",
	         res->mc == CUB_MC_QMC ? "doubling of the lattice" : "iteration",
	         res->mc == CUB_MC_VEGAS ? " (vegas)"
	         : res->mc               ? " (qmc)"
	                                 : "");
	snprintf(c->xlabel, sizeof c->xlabel, "%s",
	         res->mc == CUB_MC_QMC ? "doubling" : "iteration");
	*digits = (struct qx_series){.kind = QX_SERIES_LINE, .npoints = n};
	*bars = (struct qx_series){.kind = QX_SERIES_BARS, .npoints = n};
	snprintf(digits->name, sizeof digits->name, "digits: -log10(%s / |estimate|)",
	         res->mc ? "std error" : "error est");
	snprintf(bars->name, sizeof bars->name, "%s",
	         evals ? "log10 evaluations so far" : "log10 live regions");
	for (int i = 0; i < n; i++) {
		const double scale = fabs(res->hist_est[i]) > 0 ? fabs(res->hist_est[i]) : 1;
		digits->x[i] = bars->x[i] =
		    res->hist_iter[i] > 0 ? (double)res->hist_iter[i] : i + 1;
		digits->y[i] = fmin(16, fmax(0, -log10(res->hist_err[i] / scale)));
		bars->y[i] = log10(evals ? cub_hist_evals(res, i) : res->hist_regions[i]);
	}
}

/* The words of why integrals stopped for reason (cubature_output.h). */
const char *cub_reason_words(int reason)
{
	switch (reason) {
	case CUB_MAXEVAL:
		return "maxeval reached";
	case CUB_BUDGET:
		return "the region list filled its memory budget";
	case CUB_NONFINITE:
		return "the integrand was NaN or inf";
	case CUB_PRECISION:
		return "the tolerance is below what the precision reaches";
	case CUB_UNTRUSTED:
		return "the estimate is not trustworthy";
	default:
		return "the error estimate stopped falling";
	}
}
