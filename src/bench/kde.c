/* kde.c - the `make bench` section of problem kde (its speed targets), under 60 s on an
 * H200 besides the scaling over GPUs (about 20 s a GPU count): the special-function unit's ceiling
 * (theoretical and measured), float tiled and fast (each built share) at n = 2^20 at the samples
 * with their errors, double tiled against the FP64 peak (n = 2^17: the rate does not depend on n
 * once the GPU is full), the naive kernel once at the seed's largest size beside tiled, binned at n
 * = 2^24, G = 4096 with its error against the exact sum at every grid point (the GPU's double tiled
 * run), float tiled and fast at n = 2^22 on 1, 2, ... every GPU (scaling), the CPU on every core
 * and serial, and the seed's block-width tables. GPU figures are medians of timed runs after
 * warm-ups (CUDA events); peers are the figures the Gaussian KDE study quotes, measured elsewhere,
 * for comparison.
 * stdout is flushed after every table. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../output.h"
#include "../problems/kde/kde_math.h"
#include "../sweep.h"
#include "kit.h"

#ifdef QX_HAVE_CUDA
#include "../problems/kde/kde_gpu.h"
#include "../device.h"

/* FP64 instructions one double pair costs in the tiled kernel: the subtraction, the square,
 * kde_exp2_poly_d's range check, 3 adds and 13 FMAs, and the tile sum's add. */
#define KB_FP64_PER_PAIR 20
/* FP64 lanes per SM per clock on sm_80 and sm_90 data-centre parts (A100, H100, H200). */
#define KB_FP64_LANES 64

/* The ceiling: sms x 16 ex2 per clock, and the ex2-only kernel's measured rate. */
static int kb_ceiling(struct kde_gpu_ceiling *c, struct qx_err *e)
{
	if (kde_gpu_ceiling(20, c, e))
		return -1;
	printf("\n### The special-function unit's ceiling\n\n"
	       "| SMs | SM clock MHz | theoretical ex2/s (16/clock/SM) | measured ex2/s "
	       "(ex2-only kernel, median of 20) |\n|---|---|---|---|\n"
	       "| %d | %d | %.3g | %.3g |\n",
	       c->sms, c->clock_mhz, c->ex2_per_s_peak, c->ex2_per_s);
	fflush(stdout);
	return 0;
}

/* float tiled and fast (each built share) at n = 2^20 at the samples (against the ceiling),
 * double tiled at n = 2^17 (against the FP64 peak), with each one's max relative error. fast
 * runs at block 1024 (blocks of 8192 sorted outputs; 256 and 512 within 1% on an H100), float
 * tiled too (on an H100: 3.95e12 pairs/s at 1024, 3.94e12 at 512, 3.90e12 at 256), double
 * tiled at 256. */
static int kb_exact(struct session *s, const struct kde_gpu_ceiling *c, struct qx_err *e)
{
	static const char *const cfg[][5] = {
	    {"tiled", "float", "1048576", "1024", "3.9e12, <= 4e-6"},
	    {"fast share 0.125", "float", "1048576", "1024", "-"},
	    {"fast share 0.25", "float", "1048576", "1024", "-"},
	    {"fast share 0.375", "float", "1048576", "1024", "5.0e12, <= 1e-5"},
	    {"tiled", "double", "131072", "256", "50% of FP64 peak"}};
	const size_t last = sizeof cfg / sizeof cfg[0] - 1;
	const double fp64_pairs =
	    (double)c->sms * KB_FP64_LANES * c->clock_mhz * 1e6 / KB_FP64_PER_PAIR;
	printf("\n### Exact sums at the samples (N(0,1), Silverman's h)\n\n"
	       "Errors against the CPU double sum (at an exact sample of outputs). fast's time "
	       "includes its sort of the outputs and the scatter back. Peers (quoted by the "
	       "Gaussian KDE study: H200, float, n = 2^20): KeOps 2.74e12 pairs/s at 3.9e-6; a "
	       "plain exp2f kernel 3.83e12 at 2e-4; with expf 2.28e12.\n\n"
	       "| variant | precision | n | block | pairs/s | of ex2 peak | max rel error | "
	       "compared | target |\n|---|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i <= last; i++) {
		char words[160];
		snprintf(words, sizeof words,
		         "n %s at samples variant %s precision %s block %s repeat 5 warmup 1",
		         cfg[i][2], cfg[i][0], cfg[i][1], cfg[i][3]);
		const struct run_result *r = bench_run(s, words, QX_GPU, e);
		if (!r)
			return -1;
		char share[16] = "-";
		if (i < last)
			snprintf(share, sizeof share, "%.0f%%",
			         100 * r->summary.work_per_s / c->ex2_per_s_peak);
		printf("| %s | %s | %s | %s | %.3g | %s | %.2g | %zu | %s |\n", cfg[i][0],
		       cfg[i][1], cfg[i][2], cfg[i][3], r->summary.work_per_s, share,
		       r->err.max_rel, r->ref_compared, cfg[i][4]);
		if (i == last)
			printf(
			    "\nDouble tiled: %d FP64 instructions per pair (subtraction, square, "
			    "range check, 3 adds and 13 FMAs of the degree-13 exp2, the tile "
			    "sum); at %d FP64 lanes x %d SMs x %d MHz the peak allows %.3g "
			    "pairs/s: "
			    "measured %.0f%% of it.\n",
			    KB_FP64_PER_PAIR, KB_FP64_LANES, c->sms, c->clock_mhz, fp64_pairs,
			    100 * r->summary.work_per_s / fp64_pairs);
	}
	fflush(stdout);
	return bench_set(s, "share 0.375 block 256", e);
}

/* Scaling over GPUs: float tiled (block 1024) and fast (share 0.375, block 1024) at n = 2^22
 * at the samples on 1, 2, ... every GPU the host has (gpus; counts it lacks are skipped): the
 * median total (warm-up 1, median of 3), the speedup over 1 GPU and the efficiency (speedup /
 * GPUs), each GPU's share of the outputs its own. Bars on 4 GPUs: tiled >= 90%, fast >= 85%.
 * Leaves gpus 1. */
static int kb_scaling(struct session *s, struct qx_err *e)
{
	static const char *const cfg[][2] = {{"tiled", "0.90"}, {"fast share 0.375", "0.85"}};
	int ngpus = 1;
	if (gpu_count(&ngpus, e))
		return -1;
	printf("\n### Scaling over GPUs (float at the samples, n = 2^22, block 1024)\n\n"
	       "Each GPU sums its share of the outputs against every sample (fast: each sorts "
	       "all outputs, sums its share of the sorted ones and scatters them on the host). "
	       "Median of 3 after a warm-up; this host has %d GPU%s.\n\n"
	       "| variant | GPUs | total ms | speedup vs 1 | efficiency | slowest GPU kernel ms | "
	       "max rel error | bar (4 GPUs) |\n|---|---|---|---|---|---|---|---|\n",
	       ngpus, ngpus == 1 ? "" : "s");
	for (size_t i = 0; i < sizeof cfg / sizeof cfg[0]; i++) {
		double one = NAN;
		for (int g = 1; g <= ngpus; g++) {
			char words[160];
			snprintf(words, sizeof words,
			         "n 4194304 at samples precision float block 1024 variant %s "
			         "repeat 3 warmup 1 gpus %d",
			         cfg[i][0], g);
			const struct run_result *r = bench_run(s, words, QX_GPU, e);
			if (!r)
				return -1;
			if (g == 1)
				one = r->summary.med.total;
			const double eff = one / r->summary.med.total / g;
			char bar[48] = "-";
			if (g == 4)
				snprintf(bar, sizeof bar, ">= %.0f%%: %s", 100 * atof(cfg[i][1]),
				         eff >= atof(cfg[i][1]) ? "met" : "NOT met");
			printf("| %s | %d | %.1f | %.2fx | %.0f%% | %.1f | %.2g | %s |\n",
			       cfg[i][0], g, r->summary.med.total, one / r->summary.med.total,
			       100 * eff, qx_timing_ms(&r->summary.med, "kernel"), r->err.max_rel,
			       bar);
			fflush(stdout);
		}
	}
	if (ngpus < 4)
		printf("\n(fewer than 4 GPUs: the 4-GPU bars are not measured here)\n");
	fflush(stdout);
	return bench_set(s, "gpus 1 share 0.375 block 256", e);
}

/* The seed's largest size, n = 2048000 at the samples in float: naive (one timed run, no
 * warm-up: 4 s on an H200) against tiled. */
static int kb_naive(struct session *s, struct qx_err *e)
{
	double ms[2], rel[2];
	static const char *const v[] = {"naive repeat 1 warmup 0", "tiled repeat 3 warmup 1"};
	for (int i = 0; i < 2; i++) {
		char words[128];
		snprintf(words, sizeof words, "n 2048000 precision float block 256 variant %s",
		         v[i]);
		const struct run_result *r = bench_run(s, words, QX_GPU, e);
		if (!r)
			return -1;
		ms[i] = r->summary.med.total;
		rel[i] = r->err.max_rel;
	}
	printf("\n### The seed's largest size, n = 2048000 at the samples, float, block 256\n\n"
	       "| naive ms | naive max rel | tiled ms | tiled max rel | tiled gains |\n"
	       "|---|---|---|---|---|\n| %.1f | %.2g | %.1f | %.2g | %.1fx |\n",
	       ms[0], rel[0], ms[1], rel[1], ms[0] / ms[1]);
	fflush(stdout);
	return 0;
}

/* binned at n = 2^24, G = 4096 (total including the copy of the samples), its error against
 * the exact sum at every grid point where the density is above 1e-3 of its maximum: the exact
 * sums from the GPU's double tiled run at the same grid (their own error is shown). */
static int kb_binned(struct session *s, struct qx_err *e)
{
	enum { G = 4096 };
	float *y = malloc(G * sizeof *y);
	double peak = 0, worst = 0;
	const struct run_result *r;
	if (!y)
		return qx_fail(e, "no memory for the binned values");
	if (!(r = bench_run(s,
	                    "n 16777216 at grid G 4096 variant binned precision float repeat 20 "
	                    "warmup 3",
	                    QX_GPU, e))) {
		free(y);
		return -1;
	}
	const struct run_result keep = *r;
	memcpy(y, s->last_values, G * sizeof *y);
	if (!(r = bench_run(s, "variant tiled precision double repeat 1 warmup 0", QX_GPU, e))) {
		free(y);
		return -1;
	}
	const double *exact = s->last_values;
	for (int i = 0; i < G; i++)
		peak = fmax(peak, exact[i]);
	for (int i = 0; i < G; i++)
		if (exact[i] > 1e-3 * peak)
			worst = fmax(worst, fabs(y[i] - exact[i]) / exact[i]);
	printf("\n### binned on the GPU, n = 2^24, G = 4096 (float out; fixed-point bins, cuFFT in "
	       "double)\n\n"
	       "| total ms (incl. h2d of the samples) | h2d | bin | convolve | max rel error where "
	       "the density > 1e-3 max | exact sums' own max rel | KDEpy FFTKDE (for comparison) | "
	       "target "
	       "|\n|---|---|---|---|---|---|---|---|\n| %.3f | %.3f | %.3f | %.3f | %.2g | %.2g | "
	       "~1e-4 | < 5 ms, <= 1e-4 |\n",
	       keep.summary.med.total, qx_timing_ms(&keep.summary.med, "h2d"),
	       qx_timing_ms(&keep.summary.med, "bin"), qx_timing_ms(&keep.summary.med, "convolve"),
	       worst, r->err.max_rel);
	fflush(stdout);
	free(y);
	return bench_set(s, "at samples", e);
}
#endif

/* The CPU: float tiled on every core (n = 2^17) and serial (n = 2^13). */
static int kb_cpu(struct session *s, struct qx_err *e)
{
	const int nproc = omp_get_num_procs();
	char words[160];
	snprintf(words, sizeof words,
	         "n 131072 at samples variant tiled precision float threads %d repeat 3 warmup 1",
	         nproc);
	const struct run_result *r = bench_run(s, words, QX_CPU, e);
	if (!r)
		return -1;
	const double all = r->summary.work_per_s;
	if (!(r = bench_run(s, "n 8192 threads 1 repeat 3 warmup 1", QX_CPU, e)))
		return -1;
	printf("\n### CPU, float, exact (%s)\n\n| threads | pairs/s | vs serial |\n"
	       "|---|---|---|\n| 1 | %.3g | 1 |\n| %d | %.3g | %.1fx |\n\nSciPy gaussian_kde "
	       "on 16 cores (quoted by the Gaussian KDE study): 5.9e8 pairs/s; target >= 2e10 "
	       "on 16 threads.\n",
	       kde_exact_isa(), r->summary.work_per_s, nproc, all, all / r->summary.work_per_s);
	fflush(stdout);
	return 0;
}

#ifdef QX_HAVE_CUDA
/* The seed's experiment in small: variant seed over block widths 2..1024 for three sizes,
 * with the sweep's time, speedup-vs-block-2 and efficiency tables. */
static int kb_seed_tables(struct session *s, struct qx_err *e)
{
	char w[] = "sweep", a0[] = "n", a1[] = "4000,32000,128000", a2[] = "block",
	     a3[] = "2..1024", a4[] = "on", a5[] = "gpu";
	char *argv[] = {w, a0, a1, a2, a3, a4, a5};
	struct sweep plan;
	if (bench_set(s, "variant seed precision float repeat 2 warmup 1", e) ||
	    sweep_plan(s, 7, argv, &plan, e) || sweep_run(s, &plan, NULL, e))
		return -1;
	printf("\n### The seed's tables (variant seed as written), time, speedup against block "
	       "2 and efficiency = speedup / block\n\n```\n");
	output_sweep_table(s->sweep, stdout, 0);
	printf("```\n");
	fflush(stdout);
	return 0;
}
#endif

/* The kde section: GPU figures when there is a GPU, the CPU's always. */
int bench_kde(struct session *s, struct qx_err *e)
{
	printf("\n## kde: Gaussian kernel density estimation\n");
#ifdef QX_HAVE_CUDA
	struct gpu_info info;
	struct kde_gpu_ceiling c;
	if (gpu_init(&info, e))
		return -1;
	printf("\nDevice: %s\n", info.name);
	fflush(stdout);
	if (bench_only_gpus())
		return kb_scaling(s, e);
	if (kb_ceiling(&c, e) || kb_exact(s, &c, e) || kb_scaling(s, e) || kb_naive(s, e) ||
	    kb_binned(s, e) || kb_cpu(s, e) || kb_seed_tables(s, e))
		return -1;
	return 0;
#else
	return kb_cpu(s, e);
#endif
}
