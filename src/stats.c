/* stats.c - medians of timings, error statistics and the worst points. */
#include "stats.h"

#include "problem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* qsort comparator for doubles. */
static int cmp_double(const void *a, const void *b)
{
	const double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
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

/* Stores the median, min and max of v[0..n) into med, min and max. */
static void summarize(const double *v, int n, double *med, double *min, double *max)
{
	double lo = INFINITY, hi = -INFINITY;
	for (int i = 0; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	*med = stats_median(v, n);
	*min = lo;
	*max = hi;
}

/* Computes the median, min and max of the total and of every phase over the samples. */
void phases_summarize(const struct qx_timing *samples, int n, struct qx_timing *med,
                      struct qx_timing *min, struct qx_timing *max)
{
	double *v = malloc(sizeof *v * (size_t)(n > 0 ? n : 1));
	memset(med, 0, sizeof *med);
	for (int i = 0; i < n; i++)
		for (int k = 0; k < samples[i].nphases; k++)
			if (qx_timing_find(med, samples[i].phase[k].name) < 0 &&
			    med->nphases < QX_MAX_PHASES)
				med->phase[med->nphases++] =
				    (struct qx_phase){samples[i].phase[k].name, 0, 0, 0};
	for (int k = 0; k < med->nphases; k++)
		for (int i = 0; i < n; i++) {
			const int j = qx_timing_find(&samples[i], med->phase[k].name);
			med->phase[k].overlapped |= j >= 0 && samples[i].phase[j].overlapped;
			if (j >= 0 && samples[i].phase[j].count > med->phase[k].count)
				med->phase[k].count = samples[i].phase[j].count;
		}
	*min = *max = *med;
	if (!v || n <= 0) {
		med->total = min->total = max->total = NAN;
		free(v);
		return;
	}
	for (int i = 0; i < n; i++)
		v[i] = samples[i].total;
	summarize(v, n, &med->total, &min->total, &max->total);
	for (int k = 0; k < med->nphases; k++) {
		for (int i = 0; i < n; i++) {
			const int j = qx_timing_find(&samples[i], med->phase[k].name);
			v[i] = j >= 0 ? samples[i].phase[j].ms : 0;
		}
		summarize(v, n, &med->phase[k].ms, &min->phase[k].ms, &max->phase[k].ms);
	}
	free(v);
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
	size_t over = 0, worst = 0, compared = 0;
#pragma omp parallel
	{
		double my_max = 0, my_abs = 0;
		size_t my_worst = 0;
#pragma omp for reduction(+ : sum_rel, sum_abs, over, compared) schedule(static)
		for (size_t i = 0; i < count; i++) {
			if (isnan(ref[i]))
				continue; /* a sampled reference has no value here */
			const double v = value_at(vals, prec, i);
			compared++;
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
	out->mean_rel = compared ? sum_rel / (double)compared : 0;
	out->max_abs = max_abs;
	out->mean_abs = compared ? sum_abs / (double)compared : 0;
	out->over = over;
	out->worst = worst;
	out->threshold = threshold;
	out->count = compared;
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
		if (isnan(ref[i]))
			continue;
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

/* Writes a size of mib MiB in the largest unit it holds one of (GiB, MiB, KiB), one decimal. */
void format_mib(double mib, char *buf, size_t len)
{
	const double bytes = mib * 1048576.0;
	if (!(bytes > 0))
		snprintf(buf, len, "0 B");
	else if (bytes >= 1073741824.0)
		snprintf(buf, len, "%.1f GiB", bytes / 1073741824.0);
	else if (bytes >= 1048576.0)
		snprintf(buf, len, "%.1f MiB", mib);
	else if (bytes >= 1024.0)
		snprintf(buf, len, "%.1f KiB", bytes / 1024.0);
	else
		snprintf(buf, len, "%.0f B", bytes);
}

/* Writes figure f by its kind: a count whole, a size in its unit, a number to 4 digits. */
int figure_text(const struct qx_figure *f, char *buf, size_t len)
{
	char size[32];
	const size_t stem = strcspn(f->name, "_");
	switch (f->kind) {
	case QX_FIG_CODE:
		buf[0] = '\0';
		return 0;
	case QX_FIG_COUNT:
		snprintf(buf, len, "%s %.0f", f->name, f->value);
		return 1;
	case QX_FIG_MIB:
		format_mib(f->value, size, sizeof size);
		snprintf(buf, len, "%.*s %s", (int)stem, f->name, size);
		return 1;
	default:
		snprintf(buf, len, "%s %.4g", f->name, f->value);
		return 1;
	}
}
