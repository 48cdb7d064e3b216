/* progress.c - the state of the run in progress, shared between the thread that runs it and
 * the others by lock-free atomics: the cancel flag (set from a signal handler or the
 * dashboard's Esc, polled by long loops) and the progress count the dashboard reads (qx.h). */
#include "qx.h"

#include <math.h>
#include <stdatomic.h>

static atomic_int cancel_flag;
static atomic_llong progress_done, progress_total, progress_gen;
static _Atomic double progress_start_ms;
static _Atomic double progress_err = NAN, progress_target = NAN;
static _Atomic(const char *) progress_phase = "";
static _Atomic(const char *) progress_then;
static _Atomic(const char *) progress_unit;
static atomic_llong progress_converged;

/* Sets the cancel flag (async-signal-safe: a lock-free atomic store). */
void qx_cancel_request(void)
{
	atomic_store(&cancel_flag, 1);
}

/* Clears the cancel flag. */
void qx_cancel_clear(void)
{
	atomic_store(&cancel_flag, 0);
}

/* Returns the cancel flag. */
int qx_cancelled(void)
{
	return atomic_load_explicit(&cancel_flag, memory_order_relaxed);
}

/* Resets the progress to 0 of total units in phase, as a new count started now. */
void qx_progress_start(long long total, const char *phase)
{
	atomic_store(&progress_done, 0);
	atomic_store(&progress_total, total);
	atomic_store(&progress_phase, phase);
	atomic_store(&progress_start_ms, qx_now_ms());
	atomic_store(&progress_err, NAN);
	atomic_store(&progress_target, NAN);
	atomic_store(&progress_unit, NULL);
	atomic_store(&progress_converged, 0);
	atomic_fetch_add(&progress_gen, 1);
}

/* Names the count's items and clears their converged count. */
void qx_progress_items(const char *unit)
{
	atomic_store(&progress_converged, 0);
	atomic_store(&progress_unit, unit);
}

/* Adds n converged items. */
void qx_progress_converged(long long n)
{
	atomic_fetch_add_explicit(&progress_converged, n, memory_order_relaxed);
}

/* Names what runs after the counts that follow. */
void qx_progress_then(const char *then)
{
	atomic_store(&progress_then, then);
}

/* Publishes an adaptive run's error estimate and the error it stops at. */
void qx_progress_adaptive(double err, double target)
{
	atomic_store(&progress_err, err);
	atomic_store(&progress_target, target);
}

/* Adds n units to the progress. */
void qx_progress_add(long long n)
{
	atomic_fetch_add_explicit(&progress_done, n, memory_order_relaxed);
}

/* Sets the current phase's name. */
void qx_progress_phase(const char *phase)
{
	atomic_store(&progress_phase, phase);
}

/* Reads the progress (each field atomically). */
void qx_progress_get(struct qx_progress *p)
{
	p->done = atomic_load(&progress_done);
	p->total = atomic_load(&progress_total);
	p->phase = atomic_load(&progress_phase);
	p->start_ms = atomic_load(&progress_start_ms);
	p->gen = atomic_load(&progress_gen);
	p->then = atomic_load(&progress_then);
	p->err = atomic_load(&progress_err);
	p->target = atomic_load(&progress_target);
	p->unit = atomic_load(&progress_unit);
	p->converged = atomic_load(&progress_converged);
}
