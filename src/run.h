/* run.h - one run of the session's current problem (run.c): warm-up and timed repetitions,
 * the error against the reference values (the session's, session.h) and the speedup against
 * the CPU timings measured so far. */
#ifndef QX_RUN_H
#define QX_RUN_H

#include "session.h"

/* Runs the current problem on backend b (warmup, then repeat timed runs), computes error and
 * speedup, and makes it the session's last result. */
int session_run(struct session *s, enum qx_backend b, struct qx_err *e);

#endif
