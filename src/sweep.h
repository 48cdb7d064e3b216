/* sweep.h - sweeps of the current problem over one or two axes (a parameter or a setting and
 * its values): parsing of value ranges and lists, the run, best selection and the table. The
 * last sweep is a plain struct owned by the session (session->sweep), which `plot`, `export
 * last` and a dashboard panel read: one row per configuration and backend. The engine returns
 * data; output.c prints it. */
#ifndef QX_SWEEP_H
#define QX_SWEEP_H

#include "device.h"
#include "session.h"

#define SWEEP_MAX_VALUES 64 /* values of one axis */
#define SWEEP_MAX_AXES 2
#define SWEEP_MAX_CONFIGS 256 /* configurations of one sweep (product of the axes) */
#define SWEEP_WORD 32         /* longest value word */

/* One axis: a parameter or setting name as `set` takes it, and its values as words. */
struct sweep_axis {
	char name[SWEEP_WORD];
	int nvalues;
	char values[SWEEP_MAX_VALUES][SWEEP_WORD];
};

/* One configuration run on one backend. */
struct sweep_row {
	char values[SWEEP_MAX_AXES][SWEEP_WORD]; /* the value of each axis */
	struct run_summary summary;              /* how it ran (backend set on a failed row too) */
	int ok;                 /* 0: it failed or could not launch; error says why */
	char error[QX_ERR_LEN]; /* when !ok */
	double speedup;         /* GPU rows: vs the CPU run of the same configuration, or NaN */
	int speedup_threads;    /* CPU threads of that run */
	int has_occupancy;      /* GPU rows of problems with an occupancy hook */
	struct gpu_occupancy occ;
	int has_error; /* max_rel and over are set: the run was compared with exact values */
	int no_exact;  /* the run was not the reference but no exact value was known: no error */
	double max_rel;
	size_t over;
	const char *note; /* the run's note ("not converged: ..."), static, or NULL */
	/* The answer of a run of one value, as the run has it (run_result's has_answer): its
	 * value, its own error estimate (NaN without one) and the exact value it was compared
	 * with (NaN: none known, so no true error). */
	int has_answer;
	double value, estimate, exact;
	int converged; /* with has_answer: the run's "converged" figure (cubature), 1 or 0; -1
	                * when it has none */
	double work;   /* the run's units of the problem's work_unit (cubature: evaluations) */
	struct qx_convergence conv; /* the run's convergence (n 0: it left none), for `plot
	                             * convergence` */
	/* A batch's run (set param k RANGE; its figures integrals, converged and
	 * worst_error_estimate): how many integrals, how many converged, the largest estimate
	 * (NaN: none); integrals 0 for a run of one integral. */
	long long integrals, integrals_converged;
	double worst_estimate;
	int best; /* 1 on the best row */
};

/* A sweep: its plan (axes, backends) and its rows. From the start of sweep_run it is the
 * session's s->sweep, and rows, nrows and configs_done grow as configurations finish, so a
 * panel can draw it while it runs (they are written by the thread that runs the sweep). It is
 * one allocation with its rows and owns nothing else: free() frees it (session_free, and
 * sweep_run as a new sweep replaces it), so that the session, below this module, needs no
 * function of it. */
struct sweep {
	const struct problem *prob;
	struct param_value params[QX_MAX_PARAMS]; /* the parameters before it; axes override */
	int naxes;
	struct sweep_axis axes[SWEEP_MAX_AXES];
	unsigned backends;             /* QX_ON_CPU | QX_ON_GPU */
	char device[256];              /* the GPU's name when the sweep used it, else "" */
	size_t nconfigs, configs_done; /* configurations planned and finished */
	size_t nrows;
	struct sweep_row *rows; /* in the same allocation as the sweep: free(sweep) frees both */
	int best;               /* index of the best row, -1 when no row succeeded or size_axes */
	unsigned size_axes;     /* bit a: axis a changes the problem's size (its count of values); a
	                         * size sweep compares sizes and names no best */
	int cancelled;          /* 1 when it stopped early; the rows done are kept */
	int running;            /* 1 while sweep_run fills it */
	size_t runs_end; /* the session's count of runs when it ended: a run after it is newer */
};

/* Parses a value spec into words: "A..B" the powers of two in [A, B]; "A..B:S" A, A+S, A+2S ...
 * up to B; "A..B:xF" A, A*F, A*F^2 ... up to B; "a,b,c" the words as given. Returns how many
 * (at most max), or -1 with e naming the spec and what is allowed. */
int sweep_parse_values(const char *spec, char (*words)[SWEEP_WORD], int max, struct qx_err *e);

/* Parses the words after `sweep` ("block 32..1024", "size n 1000..8000:x2", "variant block
 * 64,256 on gpu") for session s into plan, checking every configuration against the current
 * problem with `set`'s rules; a batch parameter (set param k RANGE) is no axis: the batch runs
 * whole in each configuration of the other axes. Returns 0 or -1 with e filled; s is not
 * changed. */
int sweep_plan(const struct session *s, int argc, char **argv, struct sweep *plan,
               struct qx_err *e);

/* Whether a row of sw that succeeded carries the answer of a run of one value: the sweep's
 * text, JSON and CSV rows then have its value, estimate, true error and converged columns. */
int sweep_has_answers(const struct sweep *sw);

/* Whether a row of sw that succeeded ran a batch of integrals: the rows then have its
 * integrals, converged count and worst estimate. */
int sweep_has_batches(const struct sweep *sw);

/* Marks and returns the best row: the highest throughput (evaluations per second of the median
 * total; for configurations of the same size, the fastest) among the rows that succeeded with
 * no point over the threshold, else among those that succeeded; -1 when none succeeded. When
 * every row that succeeded carries an answer (runs of one value, which differ in the work they
 * do: variants compared), the fastest instead, among those that converged with no point over
 * the threshold, else among those that succeeded. */
int sweep_pick_best(struct sweep_row *rows, size_t n);

/* The index of sw's axis named "block", or -1: a sweep over block widths also reports each
 * row's speedup against the smallest block and its efficiency (the seeds' tables). */
int sweep_block_axis(const struct sweep *sw);

/* Row i's speedup against the row of the same backend and other axis values at the smallest
 * block of the axis that succeeded (its median total over row i's), with *efficiency = that
 * speedup / row i's block width; NaN (both) without a block axis or such a row. */
double sweep_block_speedup(const struct sweep *sw, size_t i, double *efficiency);

/* The index of sw's axis named "gpus", or -1: a sweep over GPU counts also reports each GPU
 * row's speedup against the fewest GPUs of its series and its efficiency (sweep_gpus_speedup). */
int sweep_gpus_axis(const struct sweep *sw);

/* GPU row i's speedup against the GPU row of its series (same other axis value) with the fewest
 * GPUs that succeeded: that row's median total over row i's. *base gets that count (1 when the
 * sweep has a 1-GPU row; else the smallest count, against which the speedup is then measured),
 * *efficiency = speedup * base / (row i's GPUs): speedup / GPUs when base is 1. NaN (all three
 * NaN, *base 0) without a gpus axis, on a CPU row, a failed row or without a base row. */
double sweep_gpus_speedup(const struct sweep *sw, size_t i, double *efficiency, int *base);

/* Called after each row of a sweep finishes (row of configuration config, 0-based). */
typedef void (*sweep_progress_fn)(const struct sweep *sw, size_t config,
                                  const struct sweep_row *row);

/* Runs plan (from sweep_plan) on session s, calling progress (when not NULL) after each row;
 * the session's parameters, settings and user definitions (a batch too) are restored afterwards.
 * s->sweep_observer (when set) sees the sweep as it starts, after every row, as every
 * configuration finishes and as it ends (running back to 0), on the thread that runs it.
 * The sweep becomes s->sweep as it starts (it takes plan's contents) and stays when cancelled,
 * in which case it returns -1 saying how many runs were kept. Returns 0 or -1 with e filled. */
int sweep_run(struct session *s, struct sweep *plan, sweep_progress_fn progress, struct qx_err *e);

/* Writes the `set block best` value: the block of the last sweep's best row, which must have
 * run on the GPU. Returns 0 or -1 with e filled. */
int sweep_best_block(const struct session *s, int *block, struct qx_err *e);

/* Writes the `set block auto` value: cudaOccupancyMaxPotentialBlockSize's choice for the
 * kernel of the current problem and variant. Returns 0 or -1 with e filled. */
int sweep_auto_block(const struct session *s, int *block, struct qx_err *e);

#endif
