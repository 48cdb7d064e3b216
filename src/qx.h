/* qx.h - types shared by every part of quadx: errors, precision, backends, phase times. */
#ifndef QX_H
#define QX_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QX_ERR_LEN 512

/* One error message, filled by the failing function and reported once by the caller. */
struct qx_err {
	char msg[QX_ERR_LEN];
};

enum qx_precision { QX_FLOAT = 0, QX_DOUBLE = 1 };
enum qx_backend { QX_CPU = 0, QX_GPU = 1 };

/* Bit masks naming which backends a variant supports. */
#define QX_ON_CPU (1u << QX_CPU)
#define QX_ON_GPU (1u << QX_GPU)

/* Milliseconds spent in each phase of one run; a CPU run fills only total. */
struct qx_phases {
	double alloc, h2d, kernel, d2h, free, total;
	int overlapped; /* 1 when kernel and d2h ran concurrently (chunked streams) */
};

/* Formats msg into e and returns -1, so failures read `return qx_fail(e, "...", ...);`. */
int qx_fail(struct qx_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Name of a precision ("float"/"double") and of a backend ("cpu"/"gpu"). */
const char *qx_precision_name(enum qx_precision p);
const char *qx_backend_name(enum qx_backend b);

/* Bytes of one value in precision p. */
size_t qx_precision_size(enum qx_precision p);

/* Monotonic wall clock in milliseconds. */
double qx_now_ms(void);

/* Bytes of host memory available for new allocations (MemAvailable), 0 when unknown. */
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
};

/* Starts a new count of total units in phase; done goes back to 0. */
void qx_progress_start(long long total, const char *phase);

/* Adds n finished units. */
void qx_progress_add(long long n);

/* Names the current phase (a string with static storage). */
void qx_progress_phase(const char *phase);

/* Copies the current progress into p. */
void qx_progress_get(struct qx_progress *p);

#ifdef __cplusplus
}
#endif

#endif
