/* cubature_batch.c - the batch tables of the `make bench` section of problem cubature: one
 * typed 3-D integrand at many values of its parameter k, integrated in one run (set param k
 * RANGE): on the CPU over all its cores beside SciPy's cubature of the same k values as one
 * array-valued integrand (src/bench/scipy_batch.py, when python3 imports SciPy >= 1.15); on
 * the GPU in one run of breadth against the same integrals run one at a time. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit.h"

/* The integrand (no spaces: one word of set), on [0, 1]^3, and its parameter's range. */
#define CBB_INTEGRAND "exp(-k*(x^2+y^2+z^2))*cos(k*x)"
#define CBB_K_MAX 10000.0
#define CBB_SINGLES 64 /* single runs whose median stands for one integral run alone */
#define CBB_SCIPY "src/bench/scipy_batch.py" /* from the repository's root, as make runs it */
#define CBB_CPU_REL 1e-6                     /* SciPy's shared subdivision takes minutes at 1e-8 */
#define CBB_LMAX 4194304 /* twophase's phase 1 list: regions to fill the device, not 32768 */

/* SciPy's row of n integrals (k = 1..n) at rel and abs, the median of repeat calls: runs
 * CBB_SCIPY and prints its row. Returns 0, or -1 with why (len bytes) when there is none (no
 * python3, no SciPy >= 1.15, the script missing). */
static int cbb_scipy_row(long long n, double rel, double abs_tol, int repeat, char *why, size_t len)
{
	char cmd[256], line[512] = "", version[32], rule[32];
	double ms;
	long long conv, all, regions;
	snprintf(cmd, sizeof cmd, "python3 %s %lld %.17g %.17g %d 2>&1", CBB_SCIPY, n, rel, abs_tol,
	         repeat);
	fprintf(stderr, "bench cubature: %s\n", cmd);
	FILE *p = popen(cmd, "r");
	if (p) {
		if (!fgets(line, sizeof line, p))
			line[0] = '\0';
		while (fgetc(p) != EOF) /* the rest, so that the script is not cut off */
			;
		pclose(p);
	}
	line[strcspn(line, "\n")] = '\0';
	if (sscanf(line, "scipy %31s ms %lf converged %lld of %lld regions %lld rule %31s", version,
	           &ms, &conv, &all, &regions, rule) != 6) {
		snprintf(why, len, "%s", *line ? line : "no answer from " CBB_SCIPY);
		return -1;
	}
	printf("| %lld | SciPy %s cubature (%s, one process) | 1 | %.4g | %.3g | %lld | %lld |\n",
	       n, version, rule, ms, (double)n / (ms / 1000), conv, regions);
	return 0;
}

/* The CPU's table: per batch size n (k = 1..n) quadx's batch on every core (breadth, the median
 * of 3 after a warm-up) and SciPy's cubature of the same integrals as one array-valued
 * integrand, each with its time, integrals/s, how many converged and the regions it made;
 * without SciPy one line under the table says why. */
static int cbb_cpu_table(struct session *s, struct qx_err *e)
{
	static const long long sizes[] = {10, 30};
	const int nproc = omp_get_num_procs();
	char words[256];
	snprintf(words, sizeof words,
	         "integrand " CBB_INTEGRAND " dim 3 param k 1 bounds 0:1 rel %g abs 1e-14 "
	         "precision double variant breadth maxeval 1e10 budget 0 threads %d",
	         CBB_CPU_REL, nproc);
	if (bench_set(s, words, e))
		return -1;
	printf("\n### A batch on the CPU against SciPy (double, rel %g, abs 1e-14)\n\n",
	       CBB_CPU_REL);
	printf("%s on [0, 1]^3 at k = 1..n, `set param k 1..n:1`: quadx's breadth batch on %d "
	       "threads (an integral a thread at a time; median of 3 after a warm-up) beside "
	       "`scipy.integrate.cubature` of the same k values as one array-valued integrand (a "
	       "column per k, one subdivision for all; %s, one call). Regions: quadx's total "
	       "over its integrals, SciPy's final list.\n\n",
	       CBB_INTEGRAND, nproc, CBB_SCIPY);
	printf("| integrals | code | threads | ms | integrals/s | converged | regions |\n");
	printf("|---|---|---|---|---|---|---|\n");
	char why[512] = "";
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		snprintf(words, sizeof words, "param k 1..%lld:1 repeat 3 warmup 1", sizes[i]);
		const struct run_result *r = bench_run(s, words, QX_CPU, e);
		if (!r)
			return -1;
		const double ms = r->summary.med.total, n = bench_figure(r, "integrals");
		printf("| %.0f | quadx breadth (cpu) | %d | %.4g | %.3g | %.0f | %.0f |\n", n,
		       nproc, ms, n / (ms / 1000), bench_figure(r, "converged"),
		       bench_figure(r, "regions"));
		if (!*why) /* one call: minutes at n = 30 */
			cbb_scipy_row(sizes[i], CBB_CPU_REL, 1e-14, 1, why, sizeof why);
	}
	if (*why)
		printf("\nNo SciPy rows: python3 cannot import scipy.integrate.cubature (SciPy >= "
		       "1.15): %s\n",
		       why);
	return bench_set(s, "param k 1 repeat 5 warmup 1 threads 1", e);
}

#ifdef QX_HAVE_CUDA

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

/* The GPU's table: per batch size n (10^2..10^5 integrals, k spread over 1..10^4) and variant
 * (breadth; twophase with lmax CBB_LMAX, so that phase 1 fills the device before phase 2) the
 * batch's median time, integrals/s, evaluations and their rate, how many converged, and the
 * speedup over n single runs (breadth's) at the singles' median time. */
static int cbb_gpu_table(struct session *s, struct qx_err *e)
{
	static const long long sizes[] = {100, 1000, 10000, 100000};
	double single_ms;
	if (bench_set(s,
	              "integrand " CBB_INTEGRAND " dim 3 param k 1 bounds 0:1 rel 1e-8 abs 1e-14 "
	              "precision double variant breadth maxeval 1e10 budget 0",
	              e) ||
	    cbb_singles(s, &single_ms, e))
		return -1;
	printf("\n### A batch: many integrals in one GPU run (breadth and twophase, double, rel "
	       "1e-8, abs 1e-14)\n\n");
	printf(
	    "%s on [0, 1]^3 at n values of k spread evenly over 1..%g, `set param k 1..%g:STEP`. "
	    "Single runs: %d runs of one integral each (k spread the same way, each after a "
	    "warm-up) in the same process, median %.4g ms; their time for n integrals is n "
	    "times that median (single runs of breadth). Batch: median of 3 after a warm-up; "
	    "twophase with lmax %d (its phase 1 list, the batch's).\n\n",
	    CBB_INTEGRAND, CBB_K_MAX, CBB_K_MAX, CBB_SINGLES, single_ms, CBB_LMAX);
	printf("| integrals | variant | batch ms | integrals/s | evaluations | evaluations/s | "
	       "converged | n single runs ms | speedup |\n");
	printf("|---|---|---|---|---|---|---|---|---|\n");
	static const char *const variants[] = {"breadth", "twophase"};
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
			char words[160];
			const double step = (CBB_K_MAX - 1) / (double)(sizes[i] - 1);
			snprintf(words, sizeof words,
			         "variant %s lmax %d param k 1..%g:%.17g repeat 3 warmup 1",
			         variants[v], CBB_LMAX, CBB_K_MAX, step);
			const struct run_result *r = bench_run(s, words, QX_GPU, e);
			if (!r)
				return -1;
			const double ms = r->summary.med.total, n = bench_figure(r, "integrals");
			const double evals = bench_figure(r, "evaluations");
			/* a batch that left integrals unconverged did less than the singles did */
			const double conv = bench_figure(r, "converged");
			char speedup[32] = "- (not all converged)";
			if (conv == n)
				snprintf(speedup, sizeof speedup, "%.0fx", n * single_ms / ms);
			printf("| %.0f | %s | %.4g | %.3g | %.3g | %.3g | %.0f | %.4g | %s |\n", n,
			       variants[v], ms, n / (ms / 1000), evals, evals / (ms / 1000), conv,
			       n * single_ms, speedup);
		}
	return bench_set(s, "variant breadth lmax 32768 param k 1 repeat 5 warmup 1", e);
}

#endif

/* The batch tables: the CPU's against SciPy, then (GPU builds) the GPU's. */
int bench_cubature_batch(struct session *s, struct qx_err *e)
{
#ifdef QX_HAVE_CUDA
	return cbb_cpu_table(s, e) || cbb_gpu_table(s, e) ? -1 : 0;
#else
	return cbb_cpu_table(s, e);
#endif
}
