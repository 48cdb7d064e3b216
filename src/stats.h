/* stats.h - timing statistics and error statistics; pure functions, unit-tested. */
#ifndef QX_STATS_H
#define QX_STATS_H

#include "qx.h"

/* Median, min and max of the total and of each phase over n samples; the phases are those of
 * every sample, by name, in the order they first appear (a phase a sample lacks counts 0). */
void phases_summarize(const struct qx_timing *samples, int n, struct qx_timing *med,
                      struct qx_timing *min, struct qx_timing *max);

/* Median of n values (sorts a copy); NaN when n is 0. */
double stats_median(const double *v, int n);

/* Error of a result against the reference, the coursework's way:
 * rel_i = |ref_i - v_i| / (|ref_i| + 1e-15), abs_i = |ref_i - v_i|. */
struct err_stats {
	double max_rel, mean_rel, max_abs, mean_abs, threshold;
	size_t over;  /* points with rel > threshold (a NaN value counts as over) */
	size_t worst; /* index of the largest relative error */
	size_t count; /* values compared */
};

/* Relative error of value v against reference r; +inf when v is not a number. */
double rel_error(double r, double v);

/* Reads value i of an array of precision prec as a double. */
double value_at(const void *vals, enum qx_precision prec, size_t i);

/* Computes err_stats of vals (count values of prec) against ref; a NaN in ref (a sampled
 * reference) is skipped, and count says how many values were compared. */
void err_stats_compute(const double *ref, const void *vals, enum qx_precision prec, size_t count,
                       double threshold, struct err_stats *out);

/* Stores in idx[0..k) the indices of the k largest relative errors, largest first; returns
 * how many were stored (fewer when count < k). */
size_t err_worst(const double *ref, const void *vals, enum qx_precision prec, size_t count,
                 size_t k, size_t *idx);

/* Writes a size of mib MiB as people read it: "13.0 GiB", "1.5 MiB", "17.5 KiB", "0 B". */
void format_mib(double mib, char *buf, size_t len);

#endif
