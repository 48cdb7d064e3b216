/* kit.c - the bench kit's registry of sections and the helpers every section shares. */
#include "kit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../device.h"

/* In the order of the problems' registry (src/problems/registry.c). */
const struct bench_section bench_sections[] = {
    {"expint", bench_expint},
    {"longman", bench_longman},
    {"cubature", bench_cubature},
    {"kde", bench_kde},
    {NULL, NULL},
};

/* Sets words; on failure names them on stderr ("bench kde: set ...") and returns -1. */
int bench_set(struct session *s, const char *words, struct qx_err *e)
{
	if (session_set_words(s, words, e) == 0)
		return 0;
	fprintf(stderr, "bench %s: set %s\n", s->prob->name, words);
	return -1;
}

/* Says what runs ("bench kde: WORDS on gpu"), sets words, runs b; returns s->last or NULL. */
const struct run_result *bench_run(struct session *s, const char *words, enum qx_backend b,
                                   struct qx_err *e)
{
	if (words) {
		fprintf(stderr, "bench %s: %s on %s\n", s->prob->name, words, qx_backend_name(b));
		if (bench_set(s, words, e))
			return NULL;
	}
	return session_run(s, b, e) ? NULL : s->last;
}

/* Looks the figure up by name among r's own figures. */
double bench_figure(const struct run_result *r, const char *name)
{
	for (size_t i = 0; i < r->nfigures; i++)
		if (!strcmp(r->figure[i].name, name))
			return r->figure[i].value;
	return NAN;
}

/* Says cmd on stderr, runs it with popen, keeps its first line (newline dropped) in line and
 * reads the rest to its end, so that the command is never stopped by a closed pipe. */
void bench_peer_line(const char *cmd, char *line, size_t len)
{
	line[0] = '\0';
	fprintf(stderr, "bench: %s\n", cmd);
	FILE *p = popen(cmd, "r");
	if (p) {
		if (!fgets(line, (int)len, p))
			line[0] = '\0';
		while (fgetc(p) != EOF)
			;
		pclose(p);
	}
	line[strcspn(line, "\n")] = '\0';
}

/* The slowest and fastest GPU totals of r (a run over several GPUs) as slowest / fastest; 1 on
 * one GPU. */
static double gpu_spread(const struct run_result *r)
{
	double lo = INFINITY, hi = 0;
	if (r->summary.gpus < 2 || !r->gpu_med)
		return 1;
	for (int g = 0; g < r->summary.gpus; g++) {
		lo = fmin(lo, r->gpu_med[g].total);
		hi = fmax(hi, r->gpu_med[g].total);
	}
	return lo > 0 ? hi / lo : NAN;
}

/* One configuration's GPU scaling table (see kit.h). */
int bench_gpu_scaling(struct session *s, const char *label, const char *words, const int *counts,
                      int n, double *speedup_last, struct qx_err *e)
{
	int have = 0, all[BENCH_SCALING_MAX], run[BENCH_SCALING_MAX], nrun = 0, rc = 0;
	char skipped[128] = "", set[32];
	void *first = NULL; /* the first row's values, to compare every other row's with */
	size_t bytes = 0;
	double base_ms = NAN;
	if (gpu_count(&have, e))
		return -1;
	if (!counts) {
		for (n = 0; n < have && n < BENCH_SCALING_MAX; n++)
			all[n] = n + 1;
		counts = all;
	}
	for (int i = 0; i < n && i < BENCH_SCALING_MAX; i++) {
		const size_t used = strlen(skipped);
		if (counts[i] <= have)
			run[nrun++] = counts[i];
		else
			snprintf(skipped + used, sizeof skipped - used, "%s%d", used ? ", " : "",
			         counts[i]);
	}
	if (!nrun)
		return qx_fail(e, "bench: no GPU count of the scaling table fits this host's %d",
		               have);
	if (bench_set(s, words, e))
		return -1;
	printf("\n### GPU scaling: %s (%d GPU%s on this host%s%s)\n\n", label, have,
	       have == 1 ? "" : "s", *skipped ? "; skipped: " : "", skipped);
	if (run[0] == 1)
		printf(
		    "speedup = time on 1 GPU / time on N GPUs, efficiency = speedup / N; spread = "
		    "the slowest GPU's total / the fastest's.\n\n");
	else
		printf("no 1-GPU row: speedup = time on %d GPUs / time on N GPUs, efficiency = "
		       "speedup x %d / N; spread = the slowest GPU's total / the fastest's.\n\n",
		       run[0], run[0]);
	printf("| GPUs | total ms | kernel ms (slowest) | spread | speedup | efficiency | values = "
	       "%d GPU%s |\n|---|---|---|---|---|---|---|\n",
	       run[0], run[0] == 1 ? "" : "s");
	for (int i = 0; i < nrun && rc == 0; i++) {
		const struct run_result *r;
		snprintf(set, sizeof set, "gpus %d", run[i]);
		if (!(r = bench_run(s, set, QX_GPU, e))) {
			rc = -1;
			break;
		}
		const size_t b = r->evals * qx_precision_size(r->summary.prec);
		int same = 1;
		if (i == 0) {
			base_ms = r->summary.med.total;
			bytes = b;
			first = malloc(b);
			if (!first) {
				rc = qx_fail(e, "bench: out of memory for %zu bytes of values", b);
				break;
			}
			memcpy(first, s->last_values, b);
		} else {
			same = b == bytes && memcmp(first, s->last_values, b) == 0;
		}
		const double speedup = base_ms / r->summary.med.total;
		printf("| %d | %.4f | %.4f | %.3f | %.2fx | %.2f | %s |\n", run[i],
		       r->summary.med.total, qx_timing_ms(&r->summary.med, "kernel"), gpu_spread(r),
		       speedup, speedup * run[0] / run[i], same ? "yes" : "NO");
		fflush(stdout);
		if (speedup_last)
			*speedup_last = speedup;
	}
	free(first);
	struct qx_err ignore; /* a failed run's error is the one to report */
	if (bench_set(s, "gpus 1", rc ? &ignore : e))
		rc = -1;
	return rc;
}

int bench_only_gpus(void)
{
	const char *only = getenv("QUADX_BENCH_ONLY");
	return only && !strcmp(only, "gpus");
}
