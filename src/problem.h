/* problem.h - the interface every problem implements: its parameters and settings, variants,
 * CPU and GPU runs, reference values and single evaluations.
 *
 * Adding a problem NAME:
 *  1. src/problems/NAME/NAME.c defines `const struct problem NAME_problem` (below): parameter and
 *     variant tables, run_cpu, reference, is_reference, eval...; settings only it uses (expint's
 *     streams) go in its own settings table, GPU-only ones marked in param_def.backends.
 *  2. cuda/NAME/ implements src/problems/NAME/NAME_gpu.h: plain C functions (a job struct,
 *     run, device bytes, occupancy) that NAME.c calls under #ifdef QX_HAVE_CUDA; the GPU run
 *     fills o's phases. Math shared by the CPU and the GPU is one header in src/problems/NAME/;
 *     rules of its own build go in cuda/NAME/build.mk.
 *  3. help/NAME.txt: the page, with a paragraph per variant (tests/unit/test_helptext.c).
 *  4. One line in src/problems/registry.c. No other module of quadx names a problem.
 *  5. tests/unit/test_problems.c checks the contract of every registered problem.
 *  6. Optional: a `make bench` section, src/bench/NAME.c, and its line in the bench kit's
 *     registry (src/bench/kit.c). The bench kit is a client of the session, above it, linked
 *     into build/quadx-bench only: a problem knows nothing of it. */
#ifndef QX_PROBLEM_H
#define QX_PROBLEM_H

#include "param.h"
#include "userdefs.h"

#define QX_MAX_PARAMS 20
#define QX_MAX_PROBLEM_SETTINGS 4
#define QX_MAX_FIGURES 12
#define QX_MAX_COORDS 8 /* coordinates point() may give: its capacity */
#define QX_MAX_EVAL_ARGS 32
#define QX_NOTE_LEN 192 /* a note a run writes (run_output.note_text) */

/* One implementation the user can pick with `set variant NAME`. */
struct variant_def {
	const char *name;
	unsigned backends; /* QX_ON_CPU | QX_ON_GPU */
	const char *help;
	int approximate; /* 1: an approximation of the reference (a binned sum): its values match
	                  * the reference to its own error only, shown with every run */
};

/* Everything a run needs, fixed before it starts. */
struct run_request {
	const struct param_value *params;   /* the problem's parameters, in its table's order */
	const struct param_value *settings; /* the problem's own settings, in its table's order */
	enum qx_precision prec;
	int variant;                  /* index into the problem's variants */
	int block;                    /* GPU threads per block */
	int threads;                  /* CPU threads */
	const struct user_defs *user; /* the user's parameters, bounds and exact value */
	void **jit;   /* the session's compiled integrands (created on first use; jit_free) */
	int gpus;     /* GPU runs: the devices 0..gpus-1 to divide the work over (0 or 1: device 0
	               * alone); more than 1 only for a problem with multi_gpu */
	void **state; /* the session's slot of the problem's own state (struct problem's state) */
};

struct gpu_occupancy; /* src/device.h */

/* How text output shows a figure (JSON and CSV always have the number). */
enum qx_figure_kind {
	QX_FIG_NUMBER, /* four significant digits */
	QX_FIG_COUNT,  /* an integer, every digit */
	QX_FIG_MIB,    /* a size in MiB, shown in GiB, MiB or KiB as fits (name_MiB: "name") */
	QX_FIG_CODE,   /* a code the run's note says in words: not shown in text */
};

/* A named number a problem adds to an evaluation or a run (an exact value, a bound, a count
 * of regions...). */
struct qx_figure {
	const char *name;
	double value;
	enum qx_figure_kind kind;
};

/* A picture a run may leave for the dashboard's Chart panel (and JSON): up to QX_CHART_SERIES
 * series of (x, y) points over one x axis and one y axis from 0, each drawn as a line or as
 * bars, later series over earlier ones and lines over bars. The problem resamples what it
 * shows to at most QX_CHART_POINTS points a series; everything is stored inline, so the chart
 * is copied by assignment and owns nothing. */
#define QX_CHART_SERIES 2
#define QX_CHART_POINTS 256

enum qx_series_kind {
	QX_SERIES_LINE, /* the points joined, x ascending */
	QX_SERIES_BARS, /* bins of equal width centred on x ascending, y their height */
};

struct qx_series {
	char name[48]; /* what it is, for the legend: "histogram of the samples (64 bins)" */
	enum qx_series_kind kind;
	int npoints; /* 0..QX_CHART_POINTS; points with a NaN coordinate are left out */
	double x[QX_CHART_POINTS], y[QX_CHART_POINTS];
};

struct qx_chart {
	int nseries; /* 0: the run left no chart */
	char title[64];
	char xlabel[16];
	struct qx_series series[QX_CHART_SERIES];
};

/* A run's convergence (optional): after each of up to QX_CONV_POINTS of its iterations, the
 * evaluations spent so far, the estimate of its one answer and the estimate's error estimate
 * (an adaptive run's; a Monte Carlo run's standard error). What `plot convergence` draws
 * against evaluations; stored inline, copied by assignment. */
#define QX_CONV_POINTS 128

struct qx_convergence {
	int n; /* 0: the run left none */
	double evals[QX_CONV_POINTS], est[QX_CONV_POINTS], err[QX_CONV_POINTS];
};

/* What one run returns. The caller sets values (count values of the request's precision)
 * and, for a problem with estimates, estimates (count doubles); the run fills the rest. */
struct run_output {
	void *values;
	double *estimates;     /* per-value error estimates, or NULL */
	double work;           /* units of work done (problem->work_unit); 0: count */
	struct qx_timing time; /* the GPU run's phases; the caller measures the total */
	size_t nfigures;
	struct qx_figure figure[QX_MAX_FIGURES];
	const char *note; /* NULL, or a static line the run wants shown with it ("not converged:
	                   * maxeval"): text output prints it, JSON has it as "note"; or
	                   * note_text, a line the run wrote there (the result keeps a copy) */
	char note_text[QX_NOTE_LEN];
	const char *error_kind; /* NULL, or a static word of what the error estimate is ("standard
	                         * error" for a Monte Carlo run): JSON has it as "error_kind" */
	struct qx_chart chart;  /* optional: nseries 0 (as the caller clears it) leaves none */
	struct qx_convergence conv; /* optional: n 0 (as the caller clears it) leaves none */
	double untimed_ms; /* CPU runs: ms inside run_cpu that are not the run's own (compiling
	                    * the user's integrand, its own phase): taken off the total */
	int ngpus;         /* a GPU run over several devices (rq->gpus > 1): how many, with each
	                    * one's phases and total in gpu_time[]; time is then the slowest's */
	struct qx_timing gpu_time[QX_MAX_GPUS];
};

/* Appends the figure name = value of kind k to o (dropped past QX_MAX_FIGURES). */
static inline void run_output_figure_as(struct run_output *o, const char *name, double value,
                                        enum qx_figure_kind k)
{
	if (o->nfigures < QX_MAX_FIGURES)
		o->figure[o->nfigures++] = (struct qx_figure){name, value, k};
}

/* Appends the figure name = value to o (dropped past QX_MAX_FIGURES). */
static inline void run_output_figure(struct run_output *o, const char *name, double value)
{
	run_output_figure_as(o, name, value, QX_FIG_NUMBER);
}

/* Writes figure f as text shows it by its kind ("regions 26301", "peak 1.5 MiB"); returns 0
 * and writes "" for a code (QX_FIG_CODE), else 1. */
int figure_text(const struct qx_figure *f, char *buf, size_t len);

/* The answer of one single evaluation (`eval ARGS`). */
struct eval_result {
	double value;
	size_t nfigures;
	struct qx_figure figure[QX_MAX_FIGURES];
};

/* Which values the error figures are against. */
enum qx_ref_kind {
	QX_REF_CPU,    /* reference() computes every value on the CPU in double (the default) */
	QX_REF_GPU,    /* the GPU double run of the problem's first GPU variant */
	QX_REF_SAMPLE, /* reference() computes ref_samples values, spread over the outputs */
};

/* The coursework's one-shot command line (quadx -n N -m M ... -t -v: help coursework), which
 * the problem it was written for provides (coursework.c runs it): the parameters its flags
 * set, and how its lines name the values. */
struct problem_coursework {
	const char *flags;              /* the flags that set a parameter, "nmabi" */
	const char *const *flag_params; /* the parameter each of them sets, in that order */
	const char *values;             /* what the timing lines call the values: "exponentials" */
	/* Prints value i of a run (-v) at coordinates c on stdout: tag "CPU" with the double
	 * value and the float one (second), or "GPU" with its value alone (second NULL). */
	void (*print_value)(const char *tag, const double *c, double first, const double *second);
};

/* State: a problem may keep what follows from its parameters across calls (kde: the samples,
 * the grid, the histogram), never in a static, in a slot the session owns, one a problem
 * (session_state). The callbacks that take `void **state` (and run_request.state) get that
 * slot: *state is NULL until the problem makes its state there on first use, then whatever
 * it left; the session frees it with state_free when it ends (switching problems keeps it).
 * The state is a cache: any call may pass other parameters than the last, and the problem
 * rebuilds what depends on them. A problem without state ignores the slot (its callers may
 * pass NULL); one with state fails a call given no slot (state NULL) with e saying so. */
struct problem {
	const char *name;
	const char *summary;
	const char *work_unit;     /* what a run's work counts, as throughput names it: "evals" */
	const char *const *phases; /* the phases its GPU runs report, NULL-terminated: the CSV
	                            * columns every run of it has (a CPU run leaves them empty) */
	const char *const *table_phases; /* those the sweep table shows as columns, NULL-ended */
	const struct param_def *params;
	size_t nparams;
	const struct param_def *settings; /* settings only this problem uses (not part of a
	                                   * configuration's identity: no effect on values) */
	size_t nsettings;
	const struct variant_def *variants; /* the first is the default: the best one */
	size_t nvariants;
	const struct param_def *eval_args; /* what `eval` takes (at most QX_MAX_EVAL_ARGS) */
	size_t neval_args;
	size_t neval_min; /* eval takes neval_min..neval_args of them, the rest NaN (0: all) */
	enum qx_ref_kind ref_kind;
	size_t ref_samples;   /* QX_REF_SAMPLE: how many outputs the reference computes */
	const char *ref_name; /* what the reference is, as output says it: "cpu double" */
	/* Optional: the kind for parameters p when it depends on them (the full sum for small
	 * sizes, a sample of outputs for large ones), with *samples (QX_REF_SAMPLE) and *name (a
	 * static string) filled; without it ref_kind, ref_samples and ref_name hold. */
	enum qx_ref_kind (*ref_choice)(const struct param_value *p, void **state, size_t *samples,
	                               const char **name);
	int has_estimates; /* 1: runs fill o->estimates (count doubles, the caller's) */
	int multi_gpu;     /* 1: run_gpu divides its work over rq->gpus devices (o->gpu_time);
	                    * 0: a GPU run uses device 0 alone, and `gpus` > 1 is refused for it */

	/* Optional: for a problem that takes the user's own integrand, checks it (its text in a
	 * PARAM_EXPR parameter) against the user's parameters and bounds; returns 0 or -1 with e
	 * naming the column and what was expected. Its presence enables `set param`, `set bounds`
	 * and `set exact`. */
	int (*user_integrand)(const struct param_value *p, const struct user_defs *u,
	                      struct qx_err *e);
	/* Optional: NULL when parameter k has an effect under parameters p, else why it has none
	 * (a static string: kde's n, dist and seed while data names a file). An unused parameter
	 * is left out of the run's header and `show params`, and `set` refuses it. */
	const char *(*param_unused)(const struct param_value *p, size_t k);
	/* Checks relations between parameters (a < b...); returns 0 or -1 with e filled. */
	int (*check)(const struct param_value *p, void **state, struct qx_err *e);
	/* Number of result values a run produces (u: see point). */
	size_t (*count)(const struct param_value *p, void **state, const struct user_defs *u);
	/* Host bytes a run needs besides the result and reference arrays (inputs, tables). */
	size_t (*host_bytes)(const struct run_request *rq);
	/* Device bytes a GPU run needs at once. */
	size_t (*device_bytes)(const struct run_request *rq);
	/* Names and values of the coordinates of result i ("n", 3, "x", 1.5), at most cap of
	 * them; returns how many. (count and point take the user's definitions u, NULL for none:
	 * a problem that takes the user's integrand makes one result of each point of their
	 * batch's grid.) */
	int (*point)(const struct param_value *p, void **state, const struct user_defs *u, size_t i,
	             const char **names, double *vals, int cap);
	/* Computes all results on the CPU into o->values (count values of rq->prec). */
	int (*run_cpu)(const struct run_request *rq, struct run_output *o, struct qx_err *e);
	/* Computes all results on the GPU into the host array o->values, with its phases in
	 * o->time; NULL in builds without CUDA. */
	int (*run_gpu)(const struct run_request *rq, struct run_output *o, struct qx_err *e);
	/* The reference values in double (u: the user's definitions, for a problem that takes
	 * the user's integrand): for QX_REF_CPU every value (idx NULL, n = count); for
	 * QX_REF_SAMPLE ref[idx[i]] for i < n; unused for QX_REF_GPU (may be NULL). */
	int (*reference)(const struct param_value *p, void **state, const struct user_defs *u,
	                 int threads, const size_t *idx, size_t n, double *ref, struct qx_err *e);
	/* Whether the run of (backend, prec, variant) is itself the reference. */
	int (*is_reference)(enum qx_backend b, enum qx_precision prec, int variant);
	/* Optional: figures of a finished run that need its reference (a remainder bound, how
	 * many values exceed it...), appended to o from o->values and ref (NaN where the reference
	 * has no value). */
	void (*add_figures)(const struct run_request *rq, const double *ref, struct run_output *o);
	/* Optional: the relative error a run of p was asked for at a value of size |value| (a
	 * tolerance), the threshold its error is flagged against in place of the session's. */
	double (*tolerance)(const struct param_value *p, double value);
	/* Optional: a bound of the rounding error of value i in a correct run in precision prec:
	 * the precision's unit roundoff times the value's condition (the size of the terms summed,
	 * the conditioning of the integrand's argument), absolute; *condition gets the size of
	 * the terms summed over the value's size. A value over the threshold within it is
	 * reported as the precision's limit there (a small value of large terms), not as a
	 * failure; truncation errors are not covered (they stay flagged). */
	double (*rounding_bound)(const struct param_value *p, enum qx_precision prec, size_t i,
	                         double *condition);
	/* Optional: the threads per block a GPU run of rq launches (rq->block, or the size the
	 * variant picks itself), or -1 with e naming the limit when the variant cannot launch
	 * rq->block. Without it a GPU run launches rq->block. */
	int (*gpu_block)(const struct run_request *rq, struct qx_err *e);
	/* Optional, GPU builds: fills o with the registers, resident blocks per SM, theoretical
	 * occupancy and suggested block size of the kernel that rq would launch; 0 or -1. */
	int (*occupancy)(const struct run_request *rq, struct gpu_occupancy *o, struct qx_err *e);
	/* Evaluates one instance given the eval args (each representable in prec); returns 0, 1
	 * when backend b has no evaluation (NULL run_gpu), QX_EVAL_UNREPRESENTABLE with e saying
	 * why when the result overflows or underflows prec, or -1 with e filled. */
	int (*eval)(const double *args, const struct param_value *p, void **state,
	            const struct user_defs *u, enum qx_backend b, enum qx_precision prec,
	            struct eval_result *out, struct qx_err *e);
	/* Optional: writes the integrand of p as the expression language's text (help
	 * expressions), numbers in full, so that `set integrand "TEXT"` integrates the same
	 * function; returns 0, or -1 when it has none or it does not fit in cap bytes. */
	int (*as_expression)(const struct param_value *p, char *buf, size_t cap);
	/* Optional: the coursework's command line, provided by one problem at most. */
	const struct problem_coursework *coursework;
	/* Optional: frees the problem's own state (see "State" above); NULL for a problem that
	 * keeps none. */
	void (*state_free)(void *state);
};

#define QX_EVAL_UNREPRESENTABLE 2

/* Frees the compiled integrands a session keeps (run_request.jit); NULL is a no-op. */
void problem_jit_free(void *jit);

/* 1 when name belongs to the expression language (a variable, constant or function), so that
 * no user parameter may take it. */
int problem_name_reserved(const char *name);

/* All problems, NULL-terminated; the first is the one a session starts with. */
extern const struct problem *const qx_problems[];

/* Writes the arguments eval takes for p into buf (" X [Y [Z]]": the optional ones past
 * neval_min in brackets; more than two of them as " X1 [X2 ... X16]"); returns buf. */
char *problem_eval_usage(const struct problem *p, char *buf, size_t cap);

/* Returns the problem named name (a unique prefix is accepted), or NULL. */
const struct problem *problem_find(const char *name);

#endif
