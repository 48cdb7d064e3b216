/* expint_accuracy.h - the accuracy of E_n(x) against the mpmath reference set
 * (tests/data/expint_ref.csv, made by tests/gen_expint_ref.py): loading the set, errors in ulp,
 * and the per-branch table `make bench` prints. */
#ifndef QX_EXPINT_ACCURACY_H
#define QX_EXPINT_ACCURACY_H

#include <stdio.h>

#include "../../qx.h"
#include "expint_math.h"

/* One reference point: E_n(x) at the double x, to 25 significant digits. */
struct expint_ref {
	int n;
	double x;
	long double value;
};

/* Loads the reference set at path into a malloc'd array *out (free() it); returns the number
 * of points, or -1 with e when the file is missing or a line is malformed. */
long expint_ref_load(const char *path, struct expint_ref **out, struct qx_err *e);

/* Whether point r counts for precision prec: the value is a normal number of that precision,
 * and for float x is a float (float is compared with E_n at float(x)). */
int expint_ref_counts(const struct expint_ref *r, enum qx_precision prec);

/* The error of v against ref: double, |v - ref| / (|ref| DBL_EPSILON) (relative error in units
 * of 2.2e-16); float, |v - ref| / ulp(ref), ulp(ref) the spacing of floats at ref. */
double expint_err_ulp(long double ref, double v, enum qx_precision prec);

/* Max and mean error of one branch, and where the max is. */
struct expint_acc {
	double max, sum;
	long count;
	int worst_n;
	double worst_x;
};

/* Errors per branch (enum expint_branch of the fast algorithm) of values[i] (E_n(x) of point i
 * in precision prec; NaN for a failed evaluation counts as an infinite error) over the points
 * that count; acc has EXPINT_NBRANCH entries. */
void expint_accuracy(const struct expint_ref *refs, long count, enum qx_precision prec,
                     const double *values, struct expint_acc *acc);

/* values[i] = E_n(x) of point i on the CPU by algorithm algo (enum expint_algo) in precision
 * prec (float at float(x)); NaN where the evaluation fails. */
void expint_values_cpu(const struct expint_ref *refs, long count, enum qx_precision prec, int algo,
                       double *values);

/* Prints the Markdown table of max and mean ulp per branch and precision for the fast
 * algorithm on the CPU and, when gpu is nonzero, on the GPU (the batch entry point of
 * cuda/expint/expint.cu); returns 0, or -1 with e. */
int expint_accuracy_table(FILE *out, const char *path, int gpu, struct qx_err *e);

#endif
