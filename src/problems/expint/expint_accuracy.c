/* expint_accuracy.c - E_n(x) against the mpmath reference set: errors in ulp per branch, on the
 * CPU and (through expint_gpu_eval_batch) the GPU, for `make bench` and the unit tests. */
#include "expint_accuracy.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "expint_gpu.h" /* its GPU functions exist in GPU builds only */

/* The iteration limit of every evaluation here: the parameter's default. */
#define ACC_ITERS 2000000000L

long expint_ref_load(const char *path, struct expint_ref **out, struct qx_err *e)
{
	FILE *f = fopen(path, "r");
	struct expint_ref *refs = NULL;
	long count = 0, cap = 0, lineno = 0;
	char line[256];
	if (!f)
		return qx_fail(e, "cannot open the reference set %s", path);
	while (fgets(line, sizeof line, f)) {
		lineno++;
		if (line[0] == '#' || line[0] == 'n')
			continue;
		if (count == cap) {
			struct expint_ref *grown;
			cap = cap ? 2 * cap : 1024;
			grown = realloc(refs, (size_t)cap * sizeof *refs);
			if (!grown) {
				free(refs);
				fclose(f);
				return qx_fail(e, "out of memory reading %s", path);
			}
			refs = grown;
		}
		if (sscanf(line, "%d,%lf,%Lf", &refs[count].n, &refs[count].x,
		           &refs[count].value) != 3) {
			free(refs);
			fclose(f);
			return qx_fail(e, "%s:%ld: not a line n,x,value", path, lineno);
		}
		count++;
	}
	fclose(f);
	*out = refs;
	return count;
}

int expint_ref_counts(const struct expint_ref *r, enum qx_precision prec)
{
	if (prec == QX_DOUBLE)
		return r->value >= DBL_MIN && r->value <= DBL_MAX;
	return (double)(float)r->x == r->x && r->value >= FLT_MIN && r->value <= FLT_MAX;
}

double expint_err_ulp(long double ref, double v, enum qx_precision prec)
{
	const long double diff = fabsl((long double)v - ref);
	int exp2;
	if (isnan(v))
		return INFINITY;
	if (prec == QX_DOUBLE)
		return (double)(diff / (fabsl(ref) * DBL_EPSILON));
	frexpl(ref, &exp2); /* ref = f 2^exp2 with 0.5 <= f < 1: ulp = 2^(exp2 - 24) */
	return (double)ldexpl(diff, 24 - exp2);
}

void expint_accuracy(const struct expint_ref *refs, long count, enum qx_precision prec,
                     const double *values, struct expint_acc *acc)
{
	memset(acc, 0, EXPINT_NBRANCH * sizeof *acc);
	for (long i = 0; i < count; i++) {
		const struct expint_ref *r = &refs[i];
		if (!expint_ref_counts(r, prec))
			continue;
		const int b = prec == QX_DOUBLE ? expint_branch_d(r->n, r->x)
		                                : expint_branch_f(r->n, (float)r->x);
		const double err = expint_err_ulp(r->value, values[i], prec);
		struct expint_acc *a = &acc[b];
		if (a->count == 0 || err > a->max) {
			a->max = err;
			a->worst_n = r->n;
			a->worst_x = r->x;
		}
		a->sum += err;
		a->count++;
	}
}

void expint_values_cpu(const struct expint_ref *refs, long count, enum qx_precision prec, int algo,
                       double *values)
{
	for (long i = 0; i < count; i++) {
		const int n = refs[i].n;
		int status;
		if (prec == QX_DOUBLE) {
			status = algo == EXPINT_ALGO_COURSEWORK
			             ? expint_coursework_d(n, refs[i].x, ACC_ITERS, &values[i])
			             : expint_fast_d(n, refs[i].x, ACC_ITERS, &values[i]);
		} else {
			float v = 0;
			status = algo == EXPINT_ALGO_COURSEWORK
			             ? expint_coursework_f(n, (float)refs[i].x, ACC_ITERS, &v)
			             : expint_fast_f(n, (float)refs[i].x, ACC_ITERS, &v);
			values[i] = v;
		}
		if (status != EXPINT_OK)
			values[i] = NAN;
	}
}

/* Prints one row per branch of acc, labelled with the backend and precision. */
static void print_rows(FILE *out, const char *backend, enum qx_precision prec,
                       const struct expint_acc *acc)
{
	for (int b = 0; b < EXPINT_NBRANCH; b++) {
		const struct expint_acc *a = &acc[b];
		if (a->count == 0)
			continue;
		fprintf(out, "| %s | %s | %s | %ld | %.2f | %.3f | E_%d(%.9g) |\n", backend,
		        qx_precision_name(prec), expint_branch_name(b), a->count, a->max,
		        a->sum / (double)a->count, a->worst_n, a->worst_x);
	}
}

int expint_accuracy_table(FILE *out, const char *path, int gpu, struct qx_err *e)
{
	struct expint_ref *refs;
	const long count = expint_ref_load(path, &refs, e);
	double *values;
	int *status = NULL, *ns = NULL;
	double *xs = NULL;
	int rc = 0;
	if (count < 0)
		return -1;
	values = malloc((size_t)count * sizeof *values);
	if (gpu) {
		status = malloc((size_t)count * sizeof *status);
		ns = malloc((size_t)count * sizeof *ns);
		xs = malloc((size_t)count * sizeof *xs);
	}
	if (!values || (gpu && (!status || !ns || !xs))) {
		rc = qx_fail(e, "out of memory for %ld reference points", count);
		goto done;
	}
	for (long i = 0; gpu && i < count; i++) {
		ns[i] = refs[i].n;
		xs[i] = refs[i].x;
	}
	fprintf(out,
	        "\nexpint accuracy, fast variant, against %s (%ld mpmath points); double: "
	        "relative error in units of 2^-52, float: error in ulps of E_n(float(x))\n\n",
	        path, count);
	fprintf(out, "| backend | prec | branch | points | max ulp | mean ulp | worst at |\n");
	fprintf(out, "|---|---|---|---|---|---|---|\n");
	for (int backend = QX_CPU; backend <= (gpu ? QX_GPU : QX_CPU); backend++) {
		for (int prec = QX_DOUBLE; prec >= QX_FLOAT; prec--) {
			struct expint_acc acc[EXPINT_NBRANCH];
			if (backend == QX_CPU) {
				expint_values_cpu(refs, count, (enum qx_precision)prec,
				                  EXPINT_ALGO_FAST, values);
			} else {
#ifdef QX_HAVE_CUDA
				rc = expint_gpu_eval_batch(ns, xs, count, ACC_ITERS,
				                           (enum qx_precision)prec,
				                           EXPINT_ALGO_FAST, values, status, e);
#else
				rc = qx_fail(e, "this build has no GPU backend");
#endif
				if (rc)
					goto done;
				for (long i = 0; i < count; i++)
					if (status[i] != EXPINT_OK)
						values[i] = NAN;
			}
			expint_accuracy(refs, count, (enum qx_precision)prec, values, acc);
			print_rows(out, qx_backend_name((enum qx_backend)backend),
			           (enum qx_precision)prec, acc);
		}
	}
done:
	free(refs);
	free(values);
	free(status);
	free(ns);
	free(xs);
	return rc;
}
