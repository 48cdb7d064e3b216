/* kit.h - the bench kit: what `make bench` (build/quadx-bench) runs. A client of the session,
 * above it: each problem's section (src/bench/NAME.c) drives a session of its own through
 * session_set and session_run as a script would, and prints Markdown tables on stdout and
 * progress on stderr. Nothing below the kit knows of it, and it is linked into
 * build/quadx-bench only, never into ./quadx. A section returns a status (0, or -1 with e
 * filled); nothing exits.
 *
 * Adding a section: src/bench/NAME.c defines `int bench_NAME(struct session *, struct qx_err *)`,
 * declared below, and one line in bench_sections (kit.c). */
#ifndef QX_BENCH_KIT_H
#define QX_BENCH_KIT_H

#include "../run.h"

/* One problem's section: run in a session of its own with problem `problem` selected. */
struct bench_section {
	const char *problem; /* the problem's name (problem_find) */
	int (*run)(struct session *s, struct qx_err *e);
};

/* Every section, in the order `make bench` runs them; ended by one with a NULL problem. */
extern const struct bench_section bench_sections[];

/* Applies the space-separated NAME VALUE pairs of words to s (all or nothing, as `set`);
 * on failure also says on stderr which words failed. Returns 0 or -1 with e filled. */
int bench_set(struct session *s, const char *words, struct qx_err *e);

/* Sets words (unless NULL), then runs backend b; with words, first says on stderr what runs.
 * Returns the session's new last result, or NULL with e filled. */
const struct run_result *bench_run(struct session *s, const char *words, enum qx_backend b,
                                   struct qx_err *e);

/* The figure called name of run r (evaluations, bound_max...), NaN when it has none. */
double bench_figure(const struct run_result *r, const char *name);

/* Runs the shell command cmd of a peer's driver (said on stderr) and keeps the first line of
 * its output, without its newline, in line (len bytes; empty when it printed none). */
void bench_peer_line(const char *cmd, char *line, size_t len);

/* The most GPU counts one scaling table takes. */
#define BENCH_SCALING_MAX 16

/* Prints the Markdown GPU scaling table of one configuration of s (words, applied first, e.g.
 * "M 10000000 repeat 20 warmup 3"): per count of counts[0..n) (NULL: 1..N) that the host's N
 * GPUs allow, a GPU run on that many GPUs (`set gpus`) with its median total, the slowest
 * GPU's kernel, the spread of the GPUs' totals (slowest / fastest), the speedup against the
 * 1-GPU row (the fewest counts' row when 1 is not among them, as the table says) and the
 * efficiency = speedup x that count / GPUs, and whether its values equal the first row's bit for
 * bit. The counts over N are named as skipped; gpus is 1 again afterwards. label names the
 * configuration in the heading. *speedup_last (NULL: not wanted) gets the speedup of the
 * largest count run. Returns 0, or -1 with e (no GPU, or a run failed). */
int bench_gpu_scaling(struct session *s, const char *label, const char *words, const int *counts,
                      int n, double *speedup_last, struct qx_err *e);

/* The sections (src/bench/NAME.c), each in session s with its problem selected. */
int bench_expint(struct session *s, struct qx_err *e);
int bench_longman(struct session *s, struct qx_err *e);
int bench_cubature(struct session *s, struct qx_err *e);
int bench_kde(struct session *s, struct qx_err *e);
/* The Monte Carlo tables of the cubature section (src/bench/cubature_mc.c): on the GPU vegas and
 * qmc beside m-Cubes ($QUADX_MCUBES) and breadth, and vegas against its floor; then the CPU's
 * (bench_mc_cpu). */
int bench_cubature_mc(struct session *s, struct qx_err *e);
/* The batch tables of the cubature section (src/bench/cubature_batch.c): the CPU's beside
 * SciPy's cubature, and in GPU builds the GPU's. */
int bench_cubature_batch(struct session *s, struct qx_err *e);
/* The PAGANI table of the cubature section (src/bench/cubature_pagani.c): breadth beside PAGANI
 * ($QUADX_PAGANI, its driver) on the study's ten peer rows; in CPU builds a line saying it needs
 * a GPU build. */
int bench_cubature_pagani(struct session *s, struct qx_err *e);
/* The CPU tables of cubature's Monte Carlo variants (src/bench/mc_cpu.c): vegas on one thread
 * beside the vegas Python package (a line saying why where python3 cannot import it), and
 * vegas's and qmc's scaling over the CPU's threads; leaves variant qmc, threads 1. */
int bench_mc_cpu(struct session *s, struct qx_err *e);

/* 1 when QUADX_BENCH_ONLY is "gpus": each section runs its GPU scaling table alone (a lent
 * machine with several GPUs and little time). */
int bench_only_gpus(void);

#endif
