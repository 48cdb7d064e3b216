/* run.h - one run of the session's current problem (run.c): the request it makes, warm-up and
 * timed repetitions, the error against the reference values (computed once per configuration
 * and cached in the session) and the speedup against the CPU timings measured so far. */
#ifndef QX_RUN_H
#define QX_RUN_H

#include "session.h"

/* The request a run of the current problem with the current settings makes (its params point
 * into s). */
struct run_request session_request(const struct session *s);

/* Writes the key that identifies a timing configuration (problem, parameters, the user's
 * definitions u where p takes the user's integrand (NULL: none), precision, variant) into buf:
 * equal configurations give equal keys, different ones different keys. */
void session_timing_key(const struct problem *p, const struct param_value *v,
                        const struct user_defs *u, enum qx_precision prec, int variant, char *buf,
                        size_t len);

/* Runs the current problem on backend b (warmup, then repeat timed runs), computes error and
 * speedup, and makes it the session's last result. */
int session_run(struct session *s, enum qx_backend b, struct qx_err *e);

/* The reference values of the last result's configuration (computed once, then cached). */
const double *session_reference(struct session *s, const struct problem *p,
                                const struct param_value *params, struct qx_err *e);

#endif
