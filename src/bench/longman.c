/* longman.c - the `make bench` section of problem longman: the seed's experiments (time
 * vs M at N = 16, figs. 7, 8, 10; N = 8..32 at small M, fig. 9; float vs double and fast vs
 * precise math, figs. 11-13) on the GPU against CPU serial, CPU threads and GSL's QAWF, with
 * the floors (a pinned device-to-host copy of the M values, a kernel that only writes them)
 * measured in the same run; then what the GPU time depends on (lanes per integral, g, how
 * lambda and omega are generated, method, integrand), and the batch over several GPUs. GPU
 * figures are medians of 20 runs after 3 warm-ups; CPU runs are single. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../device.h"
#include "kit.h"

/* CPU serial and GSL runs use at most this many integrals and are scaled up to M. */
#define LB_CPU_SUBSET 20000
#define LB_GPU_RUNS "repeat 20 warmup 3"

/* Milliseconds for M integrals on the CPU with variant and threads: run on min(M,
 * LB_CPU_SUBSET) integrals and scaled by M / that (exact when M is not larger). */
static int lb_cpu(struct session *s, long m, const char *variant, int threads, double *ms,
                  struct qx_err *e)
{
	char words[128];
	const long sub = m < LB_CPU_SUBSET ? m : LB_CPU_SUBSET;
	const struct run_result *r;
	snprintf(words, sizeof words, "M %ld variant %s threads %d repeat 1 warmup 0", sub, variant,
	         threads);
	if (bench_set(s, words, e) || !(r = bench_run(s, NULL, QX_CPU, e)))
		return -1;
	*ms = r->summary.med.total * (double)m / (double)sub;
	return 0;
}

/* Table 1: time vs M at N = 16 for float fast, float precise and double. */
static int lb_sizes(struct session *s, int nproc, struct qx_err *e)
{
	static const long sizes[] = {1000, 10000, 50000, 100000, 1000000};
	static const char *const cfg[][2] = {
	    {"float", "precise"}, {"float", "fast"}, {"double", "precise"}};
	double serial = 0, thr = 0, qawf = 0;
	printf("\n### Time vs M (N = 16, g = 10, cos, lambda 0.05:0.5, omega 5:15, method auto)\n\n"
	       "CPU serial and GSL QAWF (%d threads, epsabs 1e-13) ran on min(M, %d) integrals, "
	       "scaled to M (`*`: extrapolated). CPU %d thr: one run over all M. `seed layout`: "
	       "variant block, one block and an N x N table per integral.\n\n",
	       nproc, LB_CPU_SUBSET, nproc);
	printf("| M | prec | math | CPU serial ms | CPU %d thr ms | QAWF %d thr ms | seed layout "
	       "ms | alloc | kernel | d2h | free | GPU total ms | copy floor ms | write floor ms | "
	       "kernel / write | total / copy | vs serial | vs %d thr | vs QAWF | max abs err | "
	       "bound max | over bound |\n",
	       nproc, nproc, nproc);
	printf(
	    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---"
	    "|---|\n");
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		for (size_t c = 0; c < sizeof cfg / sizeof cfg[0]; c++) {
			const enum qx_precision prec =
			    strcmp(cfg[c][0], "double") ? QX_FLOAT : QX_DOUBLE;
			const struct run_result *r;
			double block_ms, copy_ms, write_ms;
			char words[256];
			fprintf(stderr, "bench longman: M = %ld, %s %s\n", sizes[i], cfg[c][0],
			        cfg[c][1]);
			snprintf(words, sizeof words, "precision %s math %s", cfg[c][0], cfg[c][1]);
			if (bench_set(s, words, e))
				return -1;
			if (strcmp(cfg[c][1], "fast") && /* the CPU has no fast math */
			    (lb_cpu(s, sizes[i], "packed", 1, &serial, e) ||
			     lb_cpu(s, sizes[i], "packed", nproc, &thr, e) ||
			     (prec == QX_DOUBLE && lb_cpu(s, sizes[i], "qawf", nproc, &qawf, e))))
				return -1;
			snprintf(words, sizeof words, "M %ld variant block %s", sizes[i],
			         LB_GPU_RUNS);
			if (bench_set(s, words, e) || !(r = bench_run(s, NULL, QX_GPU, e)))
				return -1;
			block_ms = r->summary.med.total;
			if (bench_set(s, "variant packed", e) ||
			    !(r = bench_run(s, NULL, QX_GPU, e)) ||
			    gpu_floor_copy((size_t)sizes[i] * qx_precision_size(prec), 20, &copy_ms,
			                   e) ||
			    gpu_floor_write((size_t)sizes[i], prec, 256, 20, &write_ms, e))
				return -1;
			char q_ms[32] = "-", q_speedup[32] = "-";
			const char *mark = sizes[i] > LB_CPU_SUBSET ? "*" : "";
			if (prec == QX_DOUBLE) { /* QAWF computes in double only */
				snprintf(q_ms, sizeof q_ms, "%.3g%s", qawf, mark);
				snprintf(q_speedup, sizeof q_speedup, "%.0fx",
				         qawf / r->summary.med.total);
			}
			printf(
			    "| %ld | %s | %s | %.3g%s | %.3g | %s | %.4f | %.4f | %.4f | %.4f | "
			    "%.4f | "
			    "%.4f | %.4f | %.4f | %.2f | %.2f | %.0fx | %.0fx | %s | %.2g | %.2g | "
			    "%.0f |\n",
			    sizes[i], cfg[c][0], cfg[c][1], serial, mark, thr, q_ms, block_ms,
			    qx_timing_ms(&r->summary.med, "alloc"),
			    qx_timing_ms(&r->summary.med, "kernel"),
			    qx_timing_ms(&r->summary.med, "d2h"),
			    qx_timing_ms(&r->summary.med, "free"), r->summary.med.total, copy_ms,
			    write_ms, qx_timing_ms(&r->summary.med, "kernel") / write_ms,
			    r->summary.med.total / copy_ms, serial / r->summary.med.total,
			    thr / r->summary.med.total, q_speedup, r->err.max_abs,
			    bench_figure(r, "bound_max"), bench_figure(r, "over_bound"));
			fflush(stdout);
		}
	return 0;
}

/* Table 2: N = 8..32 at M = 10^4 (the seed's fig. 9), float precise and double. */
static int lb_areas(struct session *s, int nproc, struct qx_err *e)
{
	static const int ns[] = {8, 12, 16, 20, 24, 32};
	printf("\n### N = 8..32 at M = 10000 (g = 10, cos, method auto)\n\n");
	printf("| N | prec | GPU total ms | kernel | seed layout ms | CPU %d thr ms | vs %d thr | "
	       "max abs err | bound max |\n",
	       nproc, nproc);
	printf("|---|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
		for (int prec = QX_FLOAT; prec <= QX_DOUBLE; prec++) {
			const struct run_result *r;
			double thr, block_ms;
			char words[256];
			fprintf(stderr, "bench longman: N = %d, %s\n", ns[i],
			        qx_precision_name((enum qx_precision)prec));
			snprintf(words, sizeof words, "N %d precision %s math precise", ns[i],
			         qx_precision_name((enum qx_precision)prec));
			if (bench_set(s, words, e) || lb_cpu(s, 10000, "packed", nproc, &thr, e))
				return -1;
			if (bench_set(s, "variant block " LB_GPU_RUNS, e) ||
			    !(r = bench_run(s, NULL, QX_GPU, e)))
				return -1;
			block_ms = r->summary.med.total;
			if (bench_set(s, "variant packed", e) ||
			    !(r = bench_run(s, NULL, QX_GPU, e)))
				return -1;
			printf("| %d | %s | %.4f | %.4f | %.4f | %.3g | %.0fx | %.2g | %.2g |\n",
			       ns[i], qx_precision_name((enum qx_precision)prec),
			       r->summary.med.total, qx_timing_ms(&r->summary.med, "kernel"),
			       block_ms, thr, thr / r->summary.med.total, r->err.max_abs,
			       bench_figure(r, "bound_max"));
			fflush(stdout);
		}
	return bench_set(s, "N 16", e);
}

/* Table 3: at M = 10^6, N = 16, one change at a time from the defaults. */
static int lb_costs(struct session *s, struct qx_err *e)
{
	static const char *const changes[] = {"lanes 0",
	                                      "lanes 1",
	                                      "lanes 2",
	                                      "lanes 4",
	                                      "lanes 8",
	                                      "lanes 32",
	                                      "M 50000 lanes 0",
	                                      "M 50000 lanes 4",
	                                      "M 50000 lanes 8",
	                                      "M 50000 lanes 16",
	                                      "M 50000 lanes 32",
	                                      "g 5",
	                                      "g 20",
	                                      "spread random",
	                                      "method euler",
	                                      "method direct",
	                                      "integrand sin",
	                                      "integrand j0"};
	static const char *const precs[][2] = {{"float", "precise"}, {"double", "precise"}};
	const char *reset = "lanes 0 g 10 spread grid method auto integrand cos";
	printf("\n### What the GPU time depends on (M = 10^6, N = 16; one change from these "
	       "defaults per row; lanes 0 = chosen for M)\n\n");
	printf("| change | prec | kernel ms | d2h ms | GPU total ms | max abs err | bound max |\n");
	printf("|---|---|---|---|---|---|---|\n");
	for (size_t p = 0; p < sizeof precs / sizeof precs[0]; p++)
		for (size_t i = 0; i < sizeof changes / sizeof changes[0]; i++) {
			const struct run_result *r;
			char words[256];
			fprintf(stderr, "bench longman: %s, %s\n", changes[i], precs[p][0]);
			snprintf(words, sizeof words,
			         "%s M 1000000 variant packed precision %s math %s %s", reset,
			         precs[p][0], precs[p][1], LB_GPU_RUNS);
			if (bench_set(s, words, e) || bench_set(s, changes[i], e) ||
			    !(r = bench_run(s, NULL, QX_GPU, e)))
				return -1;
			printf("| %s | %s | %.4f | %.4f | %.4f | %.2g | %.2g |\n", changes[i],
			       precs[p][0], qx_timing_ms(&r->summary.med, "kernel"),
			       qx_timing_ms(&r->summary.med, "d2h"), r->summary.med.total,
			       r->err.max_abs, bench_figure(r, "bound_max"));
			fflush(stdout);
		}
	return bench_set(s, reset, e);
}

/* Table 4: the batch divided over 1, 2 and 4 GPUs (those the host has; kit.h's
 * bench_gpu_scaling), at M = 10^7, where the bar is 3x on 4 GPUs, and at M = 300001, where
 * each GPU's fixed costs (its allocation, launch and copy latency) are most of the run and the
 * extra GPUs buy little. */
static int lb_gpus(struct session *s, struct qx_err *e)
{
	static const int counts[] = {1, 2, 4};
	static const char *const base =
	    "N 16 g 10 spread grid method auto integrand cos lanes 0 variant packed precision "
	    "float math precise " LB_GPU_RUNS;
	char words[256];
	double at4 = NAN;
	int have = 0;
	if (gpu_count(&have, e))
		return -1;
	printf("\n### Several GPUs (float precise, N = 16, variant packed; the batch split by SM "
	       "counts, each GPU's share on its own host thread; bar: 3x or more on 4 GPUs at "
	       "M = 10^7)\n");
	snprintf(words, sizeof words, "%s M 10000000", base);
	if (bench_gpu_scaling(s, "M = 10^7", words, counts, 3, &at4, e))
		return -1;
	if (have >= 4)
		printf("\nOn 4 GPUs at M = 10^7: %.2fx, %s the bar of 3x.\n", at4,
		       at4 >= 3 ? "meeting" : "BELOW");
	else
		printf("\nThe bar (3x on 4 GPUs) needs a host of 4 GPUs; this one has %d.\n", have);
	snprintf(words, sizeof words, "%s M 300001", base);
	if (bench_gpu_scaling(s, "M = 300001, a small batch: setup latency, not work", words,
	                      counts, 3, NULL, e))
		return -1;
	return bench_set(s, "M 50000", e);
}

/* longman's section: every longman table of `make bench` (sizes, areas, costs, GPUs) in session
 * s (current problem longman), or with QUADX_BENCH_ONLY=gpus the GPU scaling table alone
 * (a quick look on a host of several GPUs); returns 0, or -1 with e from the first run or floor
 * that fails. */
int bench_longman(struct session *s, struct qx_err *e)
{
	const int nproc = omp_get_num_procs();
	struct gpu_info g;
	if (gpu_init(&g, e))
		return -1;
	printf("\n## longman: device %s (%d SMs), %d CPU threads\n", g.name, g.sms, nproc);
	printf("GPU: variant packed, block 256, median of 20 runs after 3 warm-ups; phases "
	       "partition the total (kernel = span of the kernels, d2h = the copy left after "
	       "them).\n");
	if (bench_only_gpus())
		return lb_gpus(s, e);
	return lb_sizes(s, nproc, e) || lb_areas(s, nproc, e) || lb_costs(s, e) || lb_gpus(s, e)
	           ? -1
	           : 0;
}
