/* cubature_output.h - what every run of problem cubature leaves in its run_output, CPU or GPU
 * (cubature_output.c): the value and its error estimate, the figures and the note of why it
 * stopped, the convergence chart of a GPU run. */
#ifndef QX_CUBATURE_OUTPUT_H
#define QX_CUBATURE_OUTPUT_H

#include "../../problem.h"
#include "cubature_job.h"

/* Stores result res of job into o: the value in the job's precision, the error estimate when
 * o has room for it (with the rounding of the regions' sum and, for float, of the value;
 * infinite where samples that were not finite were left out), the work, the figures and the
 * note of why it stopped (not converged where the rounding takes the estimate over the
 * tolerance), the history as the chart (cub_chart) and as the run's convergence (its points
 * with their evaluations counted). */
void cub_output(const struct cub_job *job, const struct cub_result *res, struct run_output *o);

/* Stores one integral's answer, value with the rule's error estimate err after a run that
 * stopped for reason over live regions, as cub_output does: the value in the job's precision
 * into values[i], the error estimate with the rounding of the regions' sum and, for float, of
 * the value into *err (infinite where the value or estimate is not finite); returns the
 * reason, CUB_PRECISION where the rounding takes the estimate over the tolerance. */
int cub_output_value(const struct cub_job *job, double value, double err, int reason, double live,
                     void *values, size_t i, double *err_out);

/* The words of why an integral stopped for reason (enum cub_reason, not converged), for a
 * batch's note. */
const char *cub_reason_words(int reason);

/* The convergence chart of a run's history into c (none without iterations): per point the
 * digits of its error estimate as a line and, as bars, log10 of the live regions of a rule's
 * run or of the evaluations so far of a Monte Carlo run. cub_output draws it too. */
void cub_chart(const struct cub_result *res, struct qx_chart *c);

#endif
