/* session.h - the state of one quadx session: the current problem, every problem's parameters,
 * the settings, the results of the runs so far and the cached reference values. */
#ifndef QX_SESSION_H
#define QX_SESSION_H

#include <stdio.h>

#include "problem.h"
#include "stats.h"
#include "userdefs.h"

#define QX_MAX_PROBLEMS 8
#define QX_MAX_VARIANTS 8
#define QX_MAX_REPEAT 1000

/* Session settings, in the order of settings_defs[]. */
enum setting {
	S_PRECISION,
	S_BLOCK,
	S_THREADS,
	S_VARIANT,
	S_THRESHOLD,
	S_REPEAT,
	S_WARMUP,
	S_GPUS, /* GPUs a GPU run divides its work over: 1..QX_MAX_GPUS, or QX_GPUS_ALL */
	S_COUNT
};

/* One finished run: what ran, its timings (every sample), its work, error and figures. */
/* How a finished run ran and how long it took: what a run result and a sweep's row share, and
 * what output.c writes once for both (output_summary_json, output_summary_csv). */
struct run_summary {
	enum qx_backend backend;
	enum qx_precision prec;
	int variant, block, threads, warmup;
	int gpus; /* the GPUs a GPU run divided its work over (1: device 0 alone; CPU runs 1) */
	struct param_value settings[QX_MAX_PROBLEM_SETTINGS]; /* the problem's own */
	int nsamples;                                         /* timed runs */
	struct qx_timing med, min, max; /* ms; several GPUs: the slowest GPU's */
	double evals_per_s;             /* values per second of the median total */
	double work_per_s;              /* units of the problem's work_unit per second */
};

struct run_result {
	const struct problem *prob;
	struct param_value params[QX_MAX_PARAMS];
	struct user_defs user;      /* the user's definitions it ran with (its batch: point) */
	struct run_summary summary; /* how it ran and how long it took */
	char timing_key[512];       /* session_timing_key of the run: what its speedup compares */
	struct qx_timing *samples;  /* nsamples of them (malloc'd, freed with the result) */
	size_t evals;               /* values computed */
	size_t nonfinite; /* of them NaN or inf: the run says so, whatever its error figures */
	double work;      /* units of the problem's work_unit */
	int is_reference; /* this result is the reference: no error to show */
	int has_error;
	struct err_stats err;
	const char *ref_name; /* what the error is against (problem->ref_name) */
	size_t ref_compared;  /* how many values were compared with the reference */
	int has_estimates;    /* est_under is set: the run gave per-value error estimates */
	size_t est_under;     /* values whose error exceeds their estimate */
	int has_rounding;     /* over_rounding is set: values were over the threshold and the
	                       * problem has a rounding_bound */
	size_t over_rounding; /* of err.over, those within the problem's rounding bound (unit
	                       * roundoff of the precision times the value's condition) */
	double condition_max; /* the largest condition among them (problem->rounding_bound) */
	double speedup_serial, speedup_threads; /* NaN when not measured */
	int threads_ref;                        /* threads of the CPU run behind speedup_threads */
	size_t nfigures;                        /* the problem's own figures */
	struct qx_figure figure[QX_MAX_FIGURES];
	const char *note; /* the run's note (run_output's), static, note_text, or NULL */
	char note_text[QX_NOTE_LEN];
	const char *error_kind; /* run_output's: static, or NULL */
	/* The answer of a run of one value (problem->count 1): the value, its own error estimate
	 * (NaN without one) and the exact value it was compared with (NaN: none known). */
	int has_answer;
	double value, estimate, exact;
	double tolerance; /* the relative tolerance the run was asked for (problem->tolerance),
	                   * its over-threshold flag's threshold; NaN: the session's threshold */
	struct qx_chart *chart; /* a copy of the run's chart (malloc'd, freed with the result), or
	                         * NULL when the run left none */
	struct qx_convergence *conv; /* a copy of the run's convergence (malloc'd, freed with the
	                              * result), or NULL when it left none */
	struct qx_timing *gpu_med;   /* gpus > 1: each GPU's median phases and total (malloc'd,
	                              * gpus of them, freed with the result); med is the slowest's */
};

/* Latest CPU timing for a configuration, kept to compute the GPU's speedup. */
struct cpu_timing {
	char key[512];
	double total_ms;
	int threads;
};

struct sweep; /* sweep.h */

struct session {
	const struct problem *prob;
	int prob_index;
	struct param_value params[QX_MAX_PROBLEMS][QX_MAX_PARAMS];
	int variant[QX_MAX_PROBLEMS];
	struct param_value settings[S_COUNT];
	struct param_value psettings[QX_MAX_PROBLEMS][QX_MAX_PROBLEM_SETTINGS]; /* each problem's */
	/* The texts (file names, expressions) of every value set in the session: the values of
	 * params, runs and sweeps point into it, so it lives as long as the session and is shared
	 * by a copy of the session (a sweep's scratch copy); NULL when out of memory. */
	struct param_store *texts;

	struct run_result **runs; /* every finished run of the session, oldest first (export) */
	size_t nruns, runs_cap;
	struct run_result *last; /* the latest run (one of runs), NULL before the first */
	void *last_values;       /* its values (count of them, in last->prec) */
	void *cpu_values[2];     /* malloc'd buffers for CPU results, reused in turn: a run writes
	                          * the one last_values is not in, so a failed run keeps the last */
	size_t cpu_values_bytes[2];
	double *estimates; /* per-value error estimates of the last run, for problems with them */
	size_t estimates_count;

	double *ref; /* reference values for ref_key (NaN where not computed), or NULL */
	char ref_key[512];

	struct cpu_timing cpu_serial, cpu_threads;

	struct user_defs user; /* the user's parameters, bounds and exact value (their integrand) */
	void *jit; /* compiled integrands, kept for the session (problem.h's jit_free) */
	/* Each problem's own state (problem.h's state), a slot a problem in qx_problems' order
	 * (session_state): one allocation shared, like texts, by a shallow copy of the session,
	 * so what a copy's calls make there is the session's; freed by session_free with each
	 * problem's state_free. NULL when out of memory: a problem with state then refuses. */
	void **states;

	struct sweep *sweep; /* the last sweep, NULL before the first */
	/* Called by sweep_run as the sweep grows (see sweep.h), with sweep_observer_arg; the
	 * dashboard publishes the rows to its UI thread. NULL: none. */
	void (*sweep_observer)(void *arg, const struct sweep *sw);
	void *sweep_observer_arg;
};

/* The settings' table; variant's choices are the current problem's variants. */
extern const struct param_def settings_defs[S_COUNT];

/* Initializes s with the first problem, defaults everywhere, and an empty store of texts. */
void session_init(struct session *s);

/* Frees what s owns (its texts last: values point into them). */
void session_free(struct session *s);

/* Switches to the problem named name (unique prefix); its parameters are kept from before. */
int session_use(struct session *s, const char *name, struct qx_err *e);

/* Applies NAME VALUE pairs to the problem's parameters and the settings, all or nothing. */
int session_set(struct session *s, int argc, char **argv, struct qx_err *e);

/* session_set on the space-separated NAME VALUE pairs of words (at most 32 words, 511 bytes):
 * what the bench sections set. */
int session_set_words(struct session *s, const char *words, struct qx_err *e);

/* Returns the current value of a setting as a number (precision/variant: the index). */
double session_setting(const struct session *s, enum setting which);

/* The value of setting gpus that stands for every GPU the host has (`set gpus all`). */
#define QX_GPUS_ALL (-1.0)

/* The GPUs a GPU run of s uses now: 1 for `gpus 1` (no device is asked: the run's own checks
 * say why a GPU is missing), else the setting resolved against the devices visible now
 * (`all`: every one); returns 0 with *n set, or -1 with e naming how many there are, or why
 * there is none. Called when a GPU run starts, as the host's devices may have changed since
 * `set` checked them. */
int session_gpus(const struct session *s, int *n, struct qx_err *e);

/* The most CPU threads per processor of this host that `threads` accepts. */
#define QX_THREADS_PER_CPU 4

/* Fills def with the setting's definition for the current problem (variant gets its names;
 * threads its upper bound: QX_THREADS_PER_CPU per processor, at most 1024). */
void session_setting_def(const struct session *s, enum setting which, struct param_def *def,
                         const char **names);

/* Finds the parameter or setting called name for the current problem: its definition into def
 * (variant: its choices into names), and where its value lives in the session into *value
 * (NULL for variant, which is per problem). Returns 1 when found, 0 when not. */
int session_find_name(const struct session *s, const char *name, struct param_def *def,
                      const char **names);

/* Writes "a, b, c" of every name `set` accepts for the current problem (its parameters, its
 * settings, then the session's) into buf. */
void session_names(const struct session *s, char *buf, size_t len);

/* Writes "name=value name=value" of the current problem's parameters into buf. */
void session_params_string(const struct problem *p, const struct param_value *v, char *buf,
                           size_t len);

/* The session's slot of problem p's own state (problem.h's state), or NULL when s has none
 * (out of memory) or p is not one of qx_problems. */
void **session_state(const struct session *s, const struct problem *p);

/* The request a run of the current problem with the current settings makes (its params point
 * into s). */
struct run_request session_request(const struct session *s);

/* Writes the key that identifies a timing configuration (problem, parameters, the user's
 * definitions u where p takes the user's integrand (NULL: none), precision, variant) into buf:
 * equal configurations give equal keys, different ones different keys. */
void session_timing_key(const struct problem *p, const struct param_value *v,
                        const struct user_defs *u, enum qx_precision prec, int variant, char *buf,
                        size_t len);

/* The reference values of p at params (computed once, then cached in the session). */
const double *session_reference(struct session *s, const struct problem *p,
                                const struct param_value *params, struct qx_err *e);

/* The reference kind of p at params (state: p's slot, session_state), with its sample size and
 * name (p->ref_choice, else p's fixed ones). */
enum qx_ref_kind session_reference_kind(const struct problem *p, const struct param_value *params,
                                        void **state, size_t *samples, const char **name);

/* 1 when the session holds the reference values of p at params. */
int session_reference_cached(const struct session *s, const struct problem *p,
                             const struct param_value *params);

/* Returns a malloc'd buffer for count reference values, or NULL with e filled. */
double *session_reference_buffer(size_t count, struct qx_err *e);

/* The reference values of p at params: the cached ones (buf is then freed), else computed into
 * buf (a session_reference_buffer the session takes), or into a new buffer when buf is NULL.
 * Returns NULL with e filled when memory is short or the computation fails or is cancelled. */
const double *session_reference_into(struct session *s, const struct problem *p,
                                     const struct param_value *params, double *buf,
                                     struct qx_err *e);

/* Keeps a copy of the count double values of a run that is itself the reference of p at
 * params as the session's reference (none without memory). */
void session_reference_keep(struct session *s, const struct problem *p,
                            const struct param_value *params, const void *values, size_t count);

#endif
