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

/* Stores a result into o (cubature_output.h): its one value by cub_output_value. */
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

/* The convergence chart of a run with a history (the GPU's rule variants, vegas and qmc on
 * either backend) into o: per iteration the digits its error estimate claims,
 * -log10(error / |estimate|) (within 0..16), as a line and log10 of the regions it evaluated
 * (Monte Carlo: of the evaluations so far) as bars. */
void cub_chart(const struct cub_result *res, struct qx_chart *c)
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
	snprintf(regions->name, sizeof regions->name,
	         res->mc ? "log10 evaluations so far" : "log10 live regions");
	for (int i = 0; i < n; i++) {
		const double scale = fabs(res->hist_est[i]) > 0 ? fabs(res->hist_est[i]) : 1;
		digits->x[i] = regions->x[i] = i + 1;
		digits->y[i] = fmin(16, fmax(0, -log10(res->hist_err[i] / scale)));
		regions->y[i] = log10(res->hist_regions[i]);
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
