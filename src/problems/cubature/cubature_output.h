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
 * tolerance). */
void cub_output(const struct cub_job *job, const struct cub_result *res, struct run_output *o);

/* The convergence chart of a GPU run's history into c (none without iterations). */
void cub_chart(const struct cub_result *res, struct qx_chart *c);

#endif
