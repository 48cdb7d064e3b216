/* stats.c - medians of timings, error statistics and the worst points. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* qsort comparator for doubles. */
static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

const char *const qx_gpu_phase_names[QX_GPU_PHASES] = {"alloc", "h2d", "kernel", "d2h", "free"};

/* Returns the time of GPU phase `phase` of t (alloc, h2d, kernel, d2h, free). */
double phase_ms(const struct qx_phases *t, int phase)
{
	switch (phase) {
	case 0:
		return t->alloc;
	case 1:
		return t->h2d;
	case 2:
		return t->kernel;
	case 3:
		return t->d2h;
	default:
		return t->free;
	}
}

/* Returns the median of v[0..n) without changing v. */
double stats_median(const double *v, int n)
{
	double *c, med;
	if (n <= 0)
		return NAN;
	c = malloc(sizeof *c * (size_t)n);
	if (!c)
		return NAN;
	memcpy(c, v, sizeof *c * (size_t)n);
	qsort(c, (size_t)n, sizeof *c, cmp_double);
	med = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
	free(c);
	return med;
}

/* Summarizes one phase field (at byte offset off) across samples into med/min/max. */
static void phase_field(const struct qx_phases *s, int n, size_t off, struct qx_phases *med,
                        struct qx_phases *min, struct qx_phases *max)
{
	double v[1024];
	double lo = INFINITY, hi = -INFINITY;
	if (n > 1024)
		n = 1024;
	for (int i = 0; i < n; i++) {
		v[i] = *(const double *)((const char *)&s[i] + off);
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	*(double *)((char *)med + off) = stats_median(v, n);
	*(double *)((char *)min + off) = lo;
	*(double *)((char *)max + off) = hi;
}

/* Computes per-phase median, min and max over the samples. */
void phases_summarize(const struct qx_phases *samples, int n, struct qx_phases *med,
                      struct qx_phases *min, struct qx_phases *max)
{
	static const size_t fields[] = {
	    offsetof(struct qx_phases, alloc),  offsetof(struct qx_phases, h2d),
	    offsetof(struct qx_phases, kernel), offsetof(struct qx_phases, d2h),
	    offsetof(struct qx_phases, free),   offsetof(struct qx_phases, total),
	};
	memset(med, 0, sizeof *med);
	memset(min, 0, sizeof *min);
	memset(max, 0, sizeof *max);
	for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
		phase_field(samples, n, fields[f], med, min, max);
	med->overlapped = min->overlapped = max->overlapped = n > 0 && samples[0].overlapped;
}

/* Returns |r - v| / (|r| + 1e-15), or +inf when v is NaN or infinite. */
double rel_error(double r, double v)
{
	if (!isfinite(v))
		return INFINITY;
	return fabs(r - v) / (fabs(r) + 1e-15);
}

/* Returns element i of a float or double array as double. */
double value_at(const void *vals, enum qx_precision prec, size_t i)
{
	return prec == QX_DOUBLE ? ((const double *)vals)[i] : (double)((const float *)vals)[i];
}

/* Computes max/mean relative and absolute error and the count over threshold. */
void err_stats_compute(const double *ref, const void *vals, enum qx_precision prec, size_t count,
                       double threshold, struct err_stats *out)
{
	double max_rel = 0, sum_rel = 0, max_abs = 0, sum_abs = 0;
	size_t over = 0, worst = 0;
#pragma omp parallel
	{
		double my_max = 0, my_abs = 0;
		size_t my_worst = 0;
#pragma omp for reduction(+ : sum_rel, sum_abs, over) schedule(static)
		for (size_t i = 0; i < count; i++) {
			const double v = value_at(vals, prec, i);
			const double rel = rel_error(ref[i], v);
			const double abs_err = isfinite(v) ? fabs(ref[i] - v) : INFINITY;
			sum_rel += rel;
			sum_abs += abs_err;
			over += !(rel <= threshold);
			if (rel > my_max || (rel == my_max && i < my_worst)) {
				my_max = rel;
				my_worst = i;
			}
			if (abs_err > my_abs)
				my_abs = abs_err;
		}
#pragma omp critical(err_stats_merge)
		{
			if (my_max > max_rel || (my_max == max_rel && my_worst < worst)) {
				max_rel = my_max;
				worst = my_worst;
			}
			if (my_abs > max_abs)
				max_abs = my_abs;
		}
	}
	out->max_rel = max_rel;
	out->mean_rel = count ? sum_rel / (double)count : 0;
	out->max_abs = max_abs;
	out->mean_abs = count ? sum_abs / (double)count : 0;
	out->over = over;
	out->worst = worst;
	out->threshold = threshold;
	out->count = count;
}

/* Keeps the k largest relative errors in idx (sorted, largest first) by insertion. */
size_t err_worst(const double *ref, const void *vals, enum qx_precision prec, size_t count,
                 size_t k, size_t *idx)
{
	double *top;
	size_t have = 0;
	if (k == 0)
		return 0;
	top = malloc(sizeof *top * k);
	if (!top)
		return 0;
	for (size_t i = 0; i < count; i++) {
		const double rel = rel_error(ref[i], value_at(vals, prec, i));
		size_t pos;
		if (have == k && !(rel > top[k - 1]))
			continue;
		pos = have < k ? have++ : k - 1;
		while (pos > 0 && rel > top[pos - 1]) {
			top[pos] = top[pos - 1];
			idx[pos] = idx[pos - 1];
			pos--;
		}
		top[pos] = rel;
		idx[pos] = i;
	}
	free(top);
	return have;
}
