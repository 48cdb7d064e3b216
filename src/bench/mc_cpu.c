/* mc_cpu.c - the CPU tables of cubature's Monte Carlo variants in `make bench`: vegas on one
 * thread beside the `vegas` Python package (G. P. Lepage's, PyPI; src/bench/vegas_py.py, when
 * python3 imports it) on the same integrands in dim 8, the same samples an iteration and
 * iterations; then vegas's and qmc's scaling over the CPU's threads (1, 2, 4, ... and all). */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../problems/cubature/cubature_integrands.h"
#include "kit.h"

#define MCC_PEER "src/bench/vegas_py.py" /* from the repository's root, as make runs it */
#define MCC_DIM 8
#define MCC_CALLS 100000 /* samples an iteration, both codes */
#define MCC_ADAPT 5      /* quadx's warm-up iterations: with MCC_ITERS, vegas's nitn */
#define MCC_ITERS 5
#define MCC_REPEAT 5 /* timed runs of each code (the median), after a warm-up */
#define MCC_SEED 1   /* the Genz vectors' (gaussian's c and w) and the draws' */
/* The scaling table: samples an iteration (of MCC_ADAPT + MCC_ITERS iterations) and qmc's
 * maxeval, so that one thread takes about a second; timed runs after a warm-up. */
#define MCC_SCALE_CALLS 200000
#define MCC_SCALE_QMC_MAXEVAL 2100000
#define MCC_SCALE_REPEAT 3
#define MCC_MODES 2 /* the peer's: vegas+ (its defaults) and classic (the map alone) */

/* The integrands of the first table: quadx's integrand word and the peer's argument (NULL:
 * Genz's gaussian, its c and w from MCC_SEED). No spaces in word: one word of set. */
static const struct {
	const char *label, *word, *peer;
} mcc_integrands[] = {
    {"f4", "f4", "f4:8"},
    {"gaussian (Genz)", "gaussian", NULL},
    {"exp(-(x1^2+...+x8^2)), typed", "exp(-(x1^2+x2^2+x3^2+x4^2+x5^2+x6^2+x7^2+x8^2))", "expsum:8"},
};
#define MCC_NINT (sizeof mcc_integrands / sizeof mcc_integrands[0])

/* One row of the peer: its version, time, evaluations, value and standard error. */
struct mcc_peer_row {
	int have;
	char version[32];
	double ms, evals, value, err;
};

static const char *const mcc_modes[MCC_MODES] = {"vegas+", "classic"};

/* The peer's argument of integrand i into buf: gaussian's c and w drawn as quadx's. */
static void mcc_peer_arg(size_t i, char *buf, size_t len)
{
	if (mcc_integrands[i].peer) {
		snprintf(buf, len, "%s", mcc_integrands[i].peer);
		return;
	}
	const struct cub_fn fn = cub_fn_make(CUB_GAUSSIAN, MCC_DIM, MCC_SEED);
	size_t n = (size_t)snprintf(buf, len, "gaussian:");
	for (int k = 0; k < 2 * MCC_DIM && n < len; k++)
		n += (size_t)snprintf(buf + n, len - n, "%s%.17g",
		                      k == MCC_DIM ? ":"
		                      : k          ? ","
		                                   : "",
		                      k < MCC_DIM ? fn.c[k] : fn.w[k - MCC_DIM]);
}

/* Runs the peer on every integrand: its rows into rows[integrand][mode]. Returns 0, or -1
 * with why (len bytes) when it gave none (no python3, no vegas or numpy, the script missing). */
static int mcc_peer(struct mcc_peer_row rows[][MCC_MODES], char *why, size_t len)
{
	char cmd[2048], line[512] = "", first[512] = "";
	size_t n = (size_t)snprintf(cmd, sizeof cmd, "python3 %s %d %d %d", MCC_PEER, MCC_CALLS,
	                            MCC_ADAPT + MCC_ITERS, MCC_REPEAT);
	for (size_t i = 0; i < MCC_NINT && n < sizeof cmd; i++) {
		char arg[640];
		mcc_peer_arg(i, arg, sizeof arg);
		n += (size_t)snprintf(cmd + n, sizeof cmd - n, " %s", arg);
	}
	if (n + 8 >= sizeof cmd)
		return snprintf(why, len, "the command is too long"), -1;
	strcat(cmd, " 2>&1");
	fprintf(stderr, "bench cubature: %s\n", cmd);
	int got = 0;
	FILE *p = popen(cmd, "r");
	if (p) {
		while (fgets(line, sizeof line, p)) {
			struct mcc_peer_row r = {.have = 1};
			char name[32], mode[16];
			line[strcspn(line, "\n")] = '\0';
			if (!*first || !strncmp(line, "unavailable: ", 13)) /* what says why */
				snprintf(first, sizeof first, "%s", line);
			if (sscanf(line,
			           "vegas %31s integrand %31s mode %15s ms %lf evals %lf value %lf "
			           "err %lf",
			           r.version, name, mode, &r.ms, &r.evals, &r.value, &r.err) != 7)
				continue;
			for (size_t i = 0; i < MCC_NINT; i++) {
				char arg[640];
				mcc_peer_arg(i, arg, sizeof arg);
				if (strncmp(arg, name, strlen(name)) || arg[strlen(name)] != ':')
					continue;
				for (int m = 0; m < MCC_MODES; m++)
					if (!strcmp(mode, mcc_modes[m])) {
						rows[i][m] = r;
						got++;
					}
			}
		}
		pclose(p);
	}
	if (got)
		return 0;
	const char *w = strncmp(first, "unavailable: ", 13) ? first : first + 13;
	snprintf(why, len, "%s", *w ? w : "no answer from " MCC_PEER);
	return -1;
}

/* |value - exact| into buf, or "-" where no exact value is known (NaN). */
static void mcc_true_error(double value, double exact, char *buf, size_t len)
{
	if (isnan(exact))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2g", fabs(value - exact));
}

/* The first table: per integrand quadx's vegas on one thread and the peer's two modes, each
 * with its evaluations, median time, evaluations/s, quadx's rate over the row's, value,
 * standard error and true error (against quadx's exact value); without the peer one line under
 * the table says why. */
static int mcc_peer_table(struct session *s, struct qx_err *e)
{
	struct mcc_peer_row peer[MCC_NINT][MCC_MODES];
	char words[512], why[512] = "";
	memset(peer, 0, sizeof peer);
	snprintf(words, sizeof words,
	         "variant vegas precision double threads 1 dim %d bounds 0:1 a 0 b 1 seed %d "
	         "calls %d adapt %d iters %d rel 1e-12 abs 0 maxeval %d repeat %d warmup 1",
	         MCC_DIM, MCC_SEED, MCC_CALLS, MCC_ADAPT, MCC_ITERS,
	         MCC_CALLS * (MCC_ADAPT + MCC_ITERS), MCC_REPEAT);
	if (bench_set(s, words, e))
		return -1;
	printf("\n### Monte Carlo on one CPU thread: quadx's vegas against the vegas package\n\n");
	printf(
	    "Dim %d on [0, 1]^%d, %d samples an iteration, %d iterations (quadx: %d warm-up "
	    "and %d in the result; vegas: nitn %d, all in its result), rel 1e-12 so that both "
	    "run every iteration; each a run from a flat grid, the median of %d after a "
	    "warm-up. quadx: `set variant vegas threads 1 precision double`. vegas: G. P. "
	    "Lepage's Python package (Cython) in one process on one thread, its integrand a numpy "
	    "batch function (`@vegas.lbatchintegrand`), run by %s: vegas+ its defaults (the "
	    "adaptive map and adaptive stratified sampling; about %d samples an iteration), "
	    "classic with `nstrat` 1 on every axis and `beta` 0 (the map alone, quadx's "
	    "algorithm). Gaussian: Genz's family with seed %d's c and w, the same in both. "
	    "quadx / row: quadx's evaluations/s over the row's.\n\n",
	    MCC_DIM, MCC_DIM, MCC_CALLS, MCC_ADAPT + MCC_ITERS, MCC_ADAPT, MCC_ITERS,
	    MCC_ADAPT + MCC_ITERS, MCC_REPEAT, MCC_PEER, MCC_CALLS, MCC_SEED);
	printf("| integrand | code | evaluations | ms | evaluations/s | quadx / row | value | "
	       "standard error | true error |\n|---|---|---|---|---|---|---|---|---|\n");
	if (mcc_peer(peer, why, sizeof why))
		fprintf(stderr, "bench cubature: vegas (PyPI) not importable: %s\n", why);
	for (size_t i = 0; i < MCC_NINT; i++) {
		snprintf(words, sizeof words, "integrand %s", mcc_integrands[i].word);
		const struct run_result *r = bench_run(s, words, QX_CPU, e);
		if (!r)
			return -1;
		const double ms = r->summary.med.total, rate = r->work / (ms / 1000),
		             exact = r->exact;
		char true_err[32];
		mcc_true_error(r->value, exact, true_err, sizeof true_err);
		printf(
		    "| %s | quadx vegas (cpu, 1 thread) | %.0f | %.4g | %.3g | 1 | %.10g | %.2g | "
		    "%s |\n",
		    mcc_integrands[i].label, r->work, ms, rate, r->value, r->estimate, true_err);
		for (int m = 0; m < MCC_MODES; m++) {
			const struct mcc_peer_row *p = &peer[i][m];
			if (!p->have)
				continue;
			const double prate = p->evals / (p->ms / 1000);
			mcc_true_error(p->value, exact, true_err, sizeof true_err);
			printf(
			    "| %s | vegas %s %s (1 thread) | %.0f | %.4g | %.3g | %.2fx | %.10g | "
			    "%.2g | %s |\n",
			    mcc_integrands[i].label, p->version, mcc_modes[m], p->evals, p->ms,
			    prate, rate / prate, p->value, p->err, true_err);
		}
		fflush(stdout);
	}
	if (*why)
		printf("\nvegas (PyPI) not importable: %s\n", why);
	return 0;
}

/* One variant's scaling table on f4 dim 8 over threads 1, 2, 4, ... and every processor:
 * median time, evaluations/s, speedup = 1 thread's time / N threads', efficiency = speedup /
 * N, and whether the value is the 1-thread run's bit for bit. */
static int mcc_scaling(struct session *s, const char *variant, const char *words, int nproc,
                       struct qx_err *e)
{
	int counts[32], n = 0;
	for (int t = 1; t < nproc && n < 31; t *= 2)
		counts[n++] = t;
	counts[n++] = nproc;
	if (bench_set(s, words, e))
		return -1;
	printf("\n| variant | threads | evaluations | ms | evaluations/s | speedup | efficiency | "
	       "value = 1 thread |\n|---|---|---|---|---|---|---|---|\n");
	double base = NAN, value = NAN;
	for (int i = 0; i < n; i++) {
		char set[32];
		snprintf(set, sizeof set, "threads %d", counts[i]);
		const struct run_result *r = bench_run(s, set, QX_CPU, e);
		if (!r)
			return -1;
		const double ms = r->summary.med.total;
		if (i == 0) {
			base = ms;
			value = r->value;
		}
		printf("| %s | %d | %.0f | %.4g | %.3g | %.2fx | %.2f | %s |\n", variant, counts[i],
		       r->work, ms, r->work / (ms / 1000), base / ms, base / ms / counts[i],
		       r->value == value ? "yes" : "NO");
		fflush(stdout);
	}
	return 0;
}

/* The scaling tables of vegas and qmc. */
static int mcc_scaling_tables(struct session *s, struct qx_err *e)
{
	const int nproc = omp_get_num_procs();
	char vegas[256], qmc[256];
	printf("\n### Monte Carlo over the CPU's threads (f4 dim %d, double)\n\n", MCC_DIM);
	printf(
	    "%d processors. vegas: %d iterations (%d warm-up) of %d samples; qmc: %d shifts "
	    "doubled up to maxeval %d; rel 1e-12 so that every run does the same work. Median of "
	    "%d after a warm-up. The samples are summed in %d fixed chunks whatever the "
	    "threads (more threads than chunks idle), so every row's value is the 1-thread "
	    "run's.\n",
	    nproc, MCC_ADAPT + MCC_ITERS, MCC_ADAPT, MCC_SCALE_CALLS, 16, MCC_SCALE_QMC_MAXEVAL,
	    MCC_SCALE_REPEAT, 64);
	snprintf(vegas, sizeof vegas,
	         "integrand f4 variant vegas precision double dim %d a 0 b 1 seed %d calls %d "
	         "adapt %d iters %d rel 1e-12 abs 0 maxeval %d repeat %d warmup 1",
	         MCC_DIM, MCC_SEED, MCC_SCALE_CALLS, MCC_ADAPT, MCC_ITERS,
	         MCC_SCALE_CALLS * (MCC_ADAPT + MCC_ITERS), MCC_SCALE_REPEAT);
	snprintf(qmc, sizeof qmc,
	         "integrand f4 variant qmc precision double dim %d a 0 b 1 seed %d shifts 16 "
	         "rel 1e-12 abs 0 maxeval %d repeat %d warmup 1",
	         MCC_DIM, MCC_SEED, MCC_SCALE_QMC_MAXEVAL, MCC_SCALE_REPEAT);
	return mcc_scaling(s, "vegas", vegas, nproc, e) || mcc_scaling(s, "qmc", qmc, nproc, e) ? -1
	                                                                                        : 0;
}

/* The CPU Monte Carlo tables (kit.h). */
int bench_mc_cpu(struct session *s, struct qx_err *e)
{
	if (mcc_peer_table(s, e) || mcc_scaling_tables(s, e))
		return -1;
	return bench_set(s, "threads 1 repeat 5 warmup 1", e);
}
