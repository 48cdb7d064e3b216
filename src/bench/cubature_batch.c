/* cubature_batch.c - the batch table of the `make bench` section of problem cubature: one
 * typed 3-D integrand at many values of its parameter k, integrated in one GPU run of breadth
 * (set param k RANGE), against the same integrals run one at a time in the same process. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kit.h"

#ifdef QX_HAVE_CUDA

/* The integrand (no spaces: one word of set), on [0, 1]^3, and its parameter's range. */
#define CBB_INTEGRAND "exp(-k*(x^2+y^2+z^2))*cos(k*x)"
#define CBB_K_MAX 10000.0
#define CBB_SINGLES 64 /* single runs whose median stands for one integral run alone */

/* The median time of CBB_SINGLES single runs (k spread evenly over 1..CBB_K_MAX, each a run of
 * its own with its warm-up) into *ms; returns 0 or -1 with e. */
static int cbb_singles(struct session *s, double *ms, struct qx_err *e)
{
	double t[CBB_SINGLES];
	for (int j = 0; j < CBB_SINGLES; j++) {
		char words[96];
		snprintf(words, sizeof words, "param k %.17g repeat 1 warmup 1",
		         1 + (CBB_K_MAX - 1) * j / (CBB_SINGLES - 1));
		const struct run_result *r = bench_run(s, words, QX_GPU, e);
		if (!r)
			return -1;
		t[j] = r->summary.med.total;
	}
	for (int i = 1; i < CBB_SINGLES; i++) /* insertion sort: 64 values */
		for (int j = i; j > 0 && t[j - 1] > t[j]; j--) {
			const double x = t[j];
			t[j] = t[j - 1];
			t[j - 1] = x;
		}
	*ms = (t[CBB_SINGLES / 2 - 1] + t[CBB_SINGLES / 2]) / 2;
	return 0;
}

/* The table: per batch size n (10^2..10^5 integrals, k spread over 1..10^4) the batch's
 * median time, integrals/s, evaluations and their rate, how many converged, and the speedup
 * over n single runs at the singles' median time. */
int bench_cubature_batch(struct session *s, struct qx_err *e)
{
	static const long long sizes[] = {100, 1000, 10000, 100000};
	double single_ms;
	if (bench_set(s,
	              "integrand " CBB_INTEGRAND " dim 3 param k 1 bounds 0:1 rel 1e-8 abs 1e-14 "
	              "precision double variant breadth maxeval 1e10 budget 0",
	              e) ||
	    cbb_singles(s, &single_ms, e))
		return -1;
	printf("\n### A batch: many integrals in one GPU run (breadth, double, rel 1e-8, abs "
	       "1e-14)\n\n");
	printf(
	    "%s on [0, 1]^3 at n values of k spread evenly over 1..%g, `set param k 1..%g:STEP`. "
	    "Single runs: %d runs of one integral each (k spread the same way, each after a "
	    "warm-up) in the same process, median %.4g ms; their time for n integrals is n "
	    "times that median. Batch: median of 3 after a warm-up.\n\n",
	    CBB_INTEGRAND, CBB_K_MAX, CBB_K_MAX, CBB_SINGLES, single_ms);
	printf("| integrals | batch ms | integrals/s | evaluations | evaluations/s | converged | "
	       "n single runs ms | speedup |\n");
	printf("|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		char words[128];
		const double step = (CBB_K_MAX - 1) / (double)(sizes[i] - 1);
		snprintf(words, sizeof words, "param k 1..%g:%.17g repeat 3 warmup 1", CBB_K_MAX,
		         step);
		const struct run_result *r = bench_run(s, words, QX_GPU, e);
		if (!r)
			return -1;
		const double ms = r->summary.med.total, n = bench_figure(r, "integrals");
		const double evals = bench_figure(r, "evaluations");
		printf("| %.0f | %.4g | %.3g | %.3g | %.3g | %.0f | %.4g | %.0fx |\n", n, ms,
		       n / (ms / 1000), evals, evals / (ms / 1000), bench_figure(r, "converged"),
		       n * single_ms, n * single_ms / ms);
	}
	return bench_set(s, "param k 1 repeat 5 warmup 1", e);
}

#else

/* CPU-only builds: no GPU batch to time. */
int bench_cubature_batch(struct session *s, struct qx_err *e)
{
	(void)s;
	(void)e;
	return 0;
}

#endif
