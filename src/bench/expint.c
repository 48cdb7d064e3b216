/* expint.c - the `make bench` section of problem expint: the coursework's sizes on CPU
 * and GPU in float and double, against two floors measured in the same run (a pinned
 * device-to-host copy of the result array and a kernel that only writes it), then sweeps of
 * the GPU variants, block sizes and streams; first the scaling over every GPU the host has
 * against the copy floor of as many GPUs. Prints Markdown tables; progress goes to stderr. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "../device.h"
#include "../output.h"
#include "../problems/expint/expint_accuracy.h"
#include "../sweep.h"
#include "kit.h"

/* The sweep section: every GPU variant of expint x block sizes at n = m = size in precision
 * prec (warm-up 2, median of 10), with occupancy, against the copy and write floors measured
 * here; then the streams variant over 1..16 streams. Prints Markdown tables and the winner;
 * returns 0 or -1 with e filled. */
static int eb_sweep(struct session *s, long size, const char *prec, struct qx_err *e)
{
	static const char *const sweeps[][5] = {
	    {"sweep", "variant", "fast,coursework,shared,constant,streams", "block",
	     "32,64,128,256,512,1024"},
	    {"sweep", "streams", "1,2,4,8,16", "variant", "streams,fast"},
	};
	const size_t count = (size_t)size * (size_t)size;
	const enum qx_precision p = strcmp(prec, "double") == 0 ? QX_DOUBLE : QX_FLOAT;
	char words[160];
	double copy_ms, write_ms;
	snprintf(words, sizeof words,
	         "n %ld m %ld precision %s repeat 10 warmup 2 block 256 variant streams", size,
	         size, prec);
	if (bench_set(s, words, e) ||
	    gpu_floor_copy(count * qx_precision_size(p), 10, &copy_ms, e) ||
	    gpu_floor_write(count, p, 256, 10, &write_ms, e))
		return -1;
	for (size_t k = 0; k < sizeof sweeps / sizeof sweeps[0]; k++) {
		struct sweep plan;
		const struct sweep *sw;
		const struct sweep_row *best, *base = NULL;
		if (sweep_plan(s, 5, (char **)sweeps[k], &plan, e) ||
		    sweep_run(s, &plan, output_sweep_progress, e))
			return -1;
		sw = s->sweep;
		printf("\n%s %s: n = m = %ld %s, copy floor %.2f ms, write floor %.3f ms\n\n",
		       sweeps[k][1], sweeps[k][3], size, prec, copy_ms, write_ms);
		printf("| %s | %s | alloc | h2d | kernel | d2h | total ms | min | max | regs | "
		       "blocks/SM | occupancy | total / copy | kernel / write | max rel err |\n",
		       sweeps[k][1], sweeps[k][3]);
		printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
		for (size_t i = 0; i < sw->nrows; i++) {
			const struct sweep_row *r = &sw->rows[i];
			if (!r->ok) {
				printf("| %s | %s | failed: %s |\n", r->values[0], r->values[1],
				       r->error);
				continue;
			}
			if (!strcmp(r->values[0], "coursework") && !strcmp(r->values[1], "256"))
				base = r;
			printf(
			    "| %s%s | %s | %.3f | %.3f | %.3f | %.3f | %.2f | %.2f | %.2f | %d | "
			    "%d | %.0f%% | %.3f | %.2f | %.2g |\n",
			    r->best ? "**best** " : "", r->values[0], r->values[1],
			    qx_timing_ms(&r->summary.med, "alloc"),
			    qx_timing_ms(&r->summary.med, "h2d"),
			    qx_timing_ms(&r->summary.med, "kernel"),
			    qx_timing_ms(&r->summary.med, "d2h"), r->summary.med.total,
			    r->summary.min.total, r->summary.max.total, r->occ.regs_per_thread,
			    r->occ.blocks_per_sm, 100 * r->occ.occupancy,
			    r->summary.med.total / copy_ms,
			    qx_timing_ms(&r->summary.med, "kernel") / write_ms, r->max_rel);
		}
		if (sw->best < 0)
			continue;
		best = &sw->rows[sw->best];
		printf("\nbest: %s %s, %s %s: %.2f ms", sweeps[k][1], best->values[0], sweeps[k][3],
		       best->values[1], best->summary.med.total);
		if (base)
			printf("; %.2fx faster than coursework at block 256 (%.2f ms)",
			       base->summary.med.total / best->summary.med.total,
			       base->summary.med.total);
		printf("\n");
		fflush(stdout);
	}
	return 0;
}

/* Scaling over GPUs: 20000 x 20000 float, variant fast (block 256, median of 10 after 2
 * warm-ups), end to end on 1, 2, ... every GPU the host has (gpus; counts it lacks are
 * skipped): the total, its speedup over 1 GPU and efficiency, the slowest GPU's kernel part
 * and its speedup, and the copy floor of that many GPUs measured here (every GPU copying its
 * share of the output to pinned memory at once). Bars: the total within 1.1x of the floor,
 * the kernel part >= 3.6x faster on 4 GPUs. Leaves gpus 1. */
static int eb_scaling(struct session *s, struct qx_err *e)
{
	const size_t count = (size_t)20000 * 20000;
	double one = NAN, kone = NAN;
	int ngpus = 1;
	if (gpu_count(&ngpus, e) ||
	    bench_set(s,
	              "n 20000 m 20000 precision float variant fast block 256 repeat 10 "
	              "warmup 2",
	              e))
		return -1;
	printf("\nScaling over GPUs: n = m = 20000 float, variant fast, the orders split by SM "
	       "count and modeled cost; copy floor: every GPU copying its share of the %.2f GB "
	       "output to pinned "
	       "memory at once (median of 10); this host has %d GPU%s.\n\n"
	       "| GPUs | total ms | speedup | efficiency | kernel ms (slowest GPU) | kernel "
	       "speedup | copy floor ms | total / floor | max rel err |\n"
	       "|---|---|---|---|---|---|---|---|---|\n",
	       count * 4 / 1e9, ngpus, ngpus == 1 ? "" : "s");
	for (int g = 1; g <= ngpus; g++) {
		char words[32];
		double floor_ms, kernel;
		snprintf(words, sizeof words, "gpus %d", g);
		const struct run_result *r = bench_run(s, words, QX_GPU, e);
		if (!r || gpu_floor_copy_multi(count * sizeof(float), g, 10, &floor_ms, e))
			return -1;
		kernel = qx_timing_ms(&r->summary.med, "kernel");
		if (g == 1) {
			one = r->summary.med.total;
			kone = kernel;
		}
		printf("| %d | %.2f | %.2fx | %.0f%% | %.2f | %.2fx | %.2f | %.3f%s | %.2g |\n", g,
		       r->summary.med.total, one / r->summary.med.total,
		       100 * one / r->summary.med.total / g, kernel, kone / kernel, floor_ms,
		       r->summary.med.total / floor_ms,
		       r->summary.med.total / floor_ms <= 1.1 ? "" : " (over 1.1)", r->err.max_rel);
		if (g == 4)
			printf("\nbars on 4 GPUs: total / floor <= 1.1: %s; kernel part >= 3.6x "
			       "faster: %s (%.2fx)\n\n",
			       r->summary.med.total / floor_ms <= 1.1 ? "met" : "NOT met",
			       kone / kernel >= 3.6 ? "met" : "NOT met", kone / kernel);
		fflush(stdout);
	}
	if (ngpus < 4)
		printf("\n(fewer than 4 GPUs: the 4-GPU bars are not measured here)\n");
	printf("\n");
	fflush(stdout);
	return bench_set(s, "gpus 1", e);
}

/* expint's section: the table of sizes, the accuracy per branch, then the sweeps at 20000^2 in
 * float and double, in session s (current problem expint); returns 0 or -1 with e. */
int bench_expint(struct session *s, struct qx_err *e)
{
	static const long sizes[] = {5000, 8192, 16384, 20000};
	struct gpu_info g;
	char words[160];
	const int nproc = omp_get_num_procs();

	if (gpu_init(&g, e))
		return -1;
	printf("expint, fast variant, block 256; device: %s (%d SMs), %d CPU threads\n", g.name,
	       g.sms, nproc);
	printf("GPU: median of 10 runs after 2 warm-ups; CPU all threads: 1 run; CPU serial: one "
	       "run on m/50 samples per order, scaled by 50 (extrapolated).\n");
	if (eb_scaling(s, e))
		return -1;
	if (bench_only_gpus())
		return 0;
	printf("| n = m | prec | CPU serial s (extrap.) | CPU %d thr s | GPU alloc | kernel | "
	       "d2h | free | GPU total ms | copy floor ms | write floor ms | total / copy | "
	       "kernel / write | coursework total ms | speedup vs serial | vs %d thr | max rel "
	       "err |\n",
	       nproc, nproc);
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		for (int prec = QX_DOUBLE; prec >= QX_FLOAT; prec--) {
			const char *pname = qx_precision_name((enum qx_precision)prec);
			const size_t count = (size_t)sizes[i] * (size_t)sizes[i];
			double serial_s, threads_s, copy_ms, write_ms, cw_ms;
			const struct run_result *r;
			fprintf(stderr, "bench: n = m = %ld, %s\n", sizes[i], pname);
			snprintf(
			    words, sizeof words,
			    "n %ld m %ld precision %s variant fast threads 1 repeat 1 warmup 0",
			    sizes[i], sizes[i] / 50, pname);
			if (!(r = bench_run(s, words, QX_CPU, e)))
				return -1;
			serial_s = r->summary.med.total * 50 / 1e3;
			snprintf(words, sizeof words, "m %ld threads %d", sizes[i], nproc);
			if (!(r = bench_run(s, words, QX_CPU, e)))
				return -1;
			threads_s = r->summary.med.total / 1e3;
			if (!(r = bench_run(s, "repeat 10 warmup 2 variant coursework", QX_GPU, e)))
				return -1;
			cw_ms = r->summary.med.total;
			if (!(r = bench_run(s, "variant fast", QX_GPU, e)) ||
			    gpu_floor_copy(count * qx_precision_size((enum qx_precision)prec), 10,
			                   &copy_ms, e) ||
			    gpu_floor_write(count, (enum qx_precision)prec, 256, 10, &write_ms, e))
				return -1;
			printf(
			    "| %ld | %s | %.2f | %.3f | %.3f | %.3f | %.3f | %.3f | %.2f | %.2f | "
			    "%.3f | %.3f | %.2f | %.2f | %.0fx | %.0fx | %.2g |\n",
			    sizes[i], pname, serial_s, threads_s,
			    qx_timing_ms(&r->summary.med, "alloc"),
			    qx_timing_ms(&r->summary.med, "kernel"),
			    qx_timing_ms(&r->summary.med, "d2h"),
			    qx_timing_ms(&r->summary.med, "free"), r->summary.med.total, copy_ms,
			    write_ms, r->summary.med.total / copy_ms,
			    qx_timing_ms(&r->summary.med, "kernel") / write_ms, cw_ms,
			    serial_s * 1e3 / r->summary.med.total,
			    threads_s * 1e3 / r->summary.med.total, r->err.max_rel);
			fflush(stdout);
		}
	}
	if (expint_accuracy_table(stdout, "tests/data/expint_ref.csv", 1, e))
		return -1;
	fflush(stdout);
	return eb_sweep(s, 20000, "float", e) || eb_sweep(s, 20000, "double", e) ? -1 : 0;
}
