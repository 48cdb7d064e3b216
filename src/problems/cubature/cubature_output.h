/* cubature_output.h - what every run of problem cubature leaves in its run_output, CPU or GPU
 * (cubature_output.c): the value and its error estimate, the figures and the note of why it
 * stopped, the convergence chart of a GPU run. */
#ifndef QX_CUBATURE_OUTPUT_H
#define QX_CUBATURE_OUTPUT_H

#include "../../problem.h"
#include "cubature_job.h"

/* Stores result res into o: the value in precision prec, the error estimate when o has room
 * for it (with the rounding of the regions' sum and, for float, of the value), the work, the
 * figures and the note. */
void cub_output(const struct cub_result *res, enum qx_precision prec, struct run_output *o);

/* The convergence chart of a GPU run's history into c (none without iterations). */
void cub_chart(const struct cub_result *res, struct qx_chart *c);

#endif
