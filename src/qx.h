/* qx.h - types shared by every part of quadx: errors, precision, backends, phase times. */
#ifndef QX_H
#define QX_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QX_ERR_LEN 512

/* The most GPUs one run divides its work over (`set gpus`). */
#define QX_MAX_GPUS 16

/* One error message, filled by the failing function and reported once by the caller. */
struct qx_err {
	char msg[QX_ERR_LEN];
};

enum qx_precision { QX_FLOAT = 0, QX_DOUBLE = 1 };
enum qx_backend { QX_CPU = 0, QX_GPU = 1 };

/* Bit masks naming which backends a variant supports. */
#define QX_ON_CPU (1u << QX_CPU)
#define QX_ON_GPU (1u << QX_GPU)

/* One named phase of a run (alloc, h2d, a kernel, an iteration's split...): its time, summed
 * over the times it ran (an iterative algorithm repeats its phases), and how many times. */
#define QX_MAX_PHASES 12
struct qx_phase {
	const char *name; /* a string with static storage */
	double ms;
	int count;
	int overlapped; /* 1: it ran concurrently with the other phases so marked, so the phases'
	                 * sum can exceed the total */
};

/* What one run measured: its phases in the order they first ran (a CPU run has none) and the
 * total wall time in milliseconds. */
struct qx_timing {
	int nphases;
	struct qx_phase phase[QX_MAX_PHASES];
	double total;
};

/* Adds ms to the phase named name of t (appended when new, so a phase that repeats each
 * iteration is summed and counted); overlapped marks it as concurrent with others. A phase
 * past QX_MAX_PHASES is dropped (its time stays in the total). */
void qx_timing_add(struct qx_timing *t, const char *name, double ms, int overlapped);

/* Returns the index of the phase named name in t, or -1. */
int qx_timing_find(const struct qx_timing *t, const char *name);

/* Returns the time of the phase named name in t, or 0 when it has none. */
double qx_timing_ms(const struct qx_timing *t, const char *name);

/* Returns 1 when some phase of t is marked overlapped. */
int qx_timing_overlapped(const struct qx_timing *t);

/* Formats msg into e and returns -1, so failures read `return qx_fail(e, "...", ...);`. */
int qx_fail(struct qx_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Name of a precision ("float"/"double") and of a backend ("cpu"/"gpu"). */
const char *qx_precision_name(enum qx_precision p);
const char *qx_backend_name(enum qx_backend b);

/* Bytes of one value in precision p. */
size_t qx_precision_size(enum qx_precision p);

/* Monotonic wall clock in milliseconds. */
double qx_now_ms(void);

/* Bytes of host memory available for new allocations (MemAvailable, lowered to what the
 * address-space limit RLIMIT_AS leaves), 0 when unknown. */
size_t qx_host_mem_available(void);

/* Asks the run in progress to stop (SIGINT, Esc); safe from a signal handler. */
void qx_cancel_request(void);

/* Clears a pending cancel request before a new run starts. */
void qx_cancel_clear(void);

/* Returns 1 when the run in progress should stop; long loops poll it. */
int qx_cancelled(void);

/* Progress of the run in progress, published by the thread that runs it (lock-free atomics) and
 * read by the dashboard: units (points, integrals) done of total, and the current phase, a
 * static string such as "cpu", "reference", "alloc", "kernel", "d2h", "free". */
struct qx_progress {
	long long done, total;
	const char *phase;
	double start_ms;     /* when the count started (qx_now_ms) */
	long long gen;       /* how many counts have started: a new one has a larger gen */
	const char *then;    /* what runs after this count, a static string ("the reference"), or
	                      * NULL: announced with it, as its time is not in this one's */
	double err, target;  /* an adaptive run's error estimate so far and the error it stops
	                      * at (target > 0; NaN for a count of known total): done counts its
	                      * work */
	const char *unit;    /* a count of items that converge or not ("integrals": a batch), a
	                      * static string; NULL for a plain count */
	long long converged; /* with unit: of the items done, those that converged */
};

/* Starts a new count of total units in phase; done goes back to 0. */
void qx_progress_start(long long total, const char *phase);

/* Adds n finished units. */
void qx_progress_add(long long n);

/* An adaptive run's state: its error estimate so far and the error it stops at; its work so
 * far is the count's done (qx_progress_add), its total the most it may do. */
void qx_progress_adaptive(double err, double target);

/* Makes the current count one of items that converge or not, named unit ("integrals", a
 * static string), none converged yet: the dashboard shows how many converged of the total. */
void qx_progress_items(const char *unit);

/* Adds n items of the count that converged (qx_progress_items). */
void qx_progress_converged(long long n);

/* Names what runs after the counts that follow (a static string), NULL for nothing. */
void qx_progress_then(const char *then);

/* Names the current phase (a string with static storage). */
void qx_progress_phase(const char *phase);

/* Copies the current progress into p. */
void qx_progress_get(struct qx_progress *p);

#ifdef __cplusplus
}
#endif

#endif
