/* userdefs.h - what a user defines for their own integrand besides its text: named parameters
 * (`set param k 3.5`, then `set k 4` or `sweep k 1..10`), each one value or many (`set param k
 * 1..1000:1`: a batch parameter; several make their grid, one integral a point of it), the
 * box's bounds per axis, finite or infinite (`set bounds 0:inf -inf:inf`), and the exact value
 * when known (`set exact 3.14`, or an expression in the parameters: `set exact "(1-exp(-k))/k"`).
 * The session owns one; a run's request points to it. A batch parameter's values and an exact
 * expression are texts kept in the session's store, so a copy of the definitions is valid as
 * long as the session and owns nothing. */
#ifndef QX_USERDEFS_H
#define QX_USERDEFS_H

#include "param.h"
#include "qx.h"

#define USER_MAX_PARAMS 16 /* as CUB_USER_PARAMS: each is passed to the compiled code */
#define USER_NAME_MAX 31
#define USER_MAX_AXES 64
#define USER_BATCH_PARAMS 4        /* batch parameters at most (CUB_BATCH_PARAMS) */
#define USER_BATCH_MAX 100000000LL /* integrals of a batch at most (CUB_BATCH_MAX) */

/* A batch parameter: parameter param takes every value of spec. */
struct user_batch {
	int param;
	struct param_spec spec;
};

struct user_defs {
	int nparams;
	char param_name[USER_MAX_PARAMS][USER_NAME_MAX + 1];
	double param_value[USER_MAX_PARAMS];
	int nbounds; /* 0: the problem's own box; 1: one pair for every axis; else one an axis */
	double lo[USER_MAX_AXES], hi[USER_MAX_AXES]; /* -inf / inf allowed */
	double exact;                                /* NaN: not known */
	const char *exact_expr; /* the exact value as an expression in the parameters (in the
	                         * session's store), or NULL: exact holds it */
	int nbatch;             /* batch parameters, in the order they became so: their grid's
	                         * first axis is batch[0], the one that varies fastest */
	struct user_batch batch[USER_BATCH_PARAMS];
};

/* An empty set of definitions: no parameters, the problem's box, no exact value. */
void user_defs_init(struct user_defs *u);

/* The index of the parameter called name, or -1. */
int user_param_find(const struct user_defs *u, const char *name);

/* Defines the parameter name (a new one, or a new value for one): value a finite number (one
 * value: no longer a batch parameter), or a value spec (param.h: a range or a list, its text
 * kept in store) that makes it a batch parameter, its first value its one value; the name must
 * be an identifier that taken() (the caller's names: its parameters and settings, the
 * expression language's) does not claim. Refuses more than USER_BATCH_PARAMS batch parameters
 * or a grid of more than USER_BATCH_MAX integrals. Returns 0 or -1 with e naming what is
 * allowed; u is then unchanged. */
int user_param_define(struct user_defs *u, struct param_store *store, const char *name,
                      const char *value, int (*taken)(const char *name, const void *arg),
                      const void *arg, struct qx_err *e);

/* Makes parameter j one value again (no longer a batch parameter; its value stays). */
void user_param_single(struct user_defs *u, int j);

/* The batch slot (0..nbatch-1) of parameter j, or -1 when it has one value. */
int user_batch_slot(const struct user_defs *u, int j);

/* How many integrals u's batch makes: the product of its parameters' counts (1: none). */
long long user_batch_count(const struct user_defs *u);

/* The values of u's batch parameters at integral i (0-based, below user_batch_count: the first
 * batch parameter varies fastest) into values[0..nbatch-1]. */
void user_batch_point(const struct user_defs *u, long long i, double *values);

/* Parses `set bounds` words: one LO:HI pair for every axis or one an axis (at most
 * USER_MAX_AXES), each bound a number, -inf or inf, LO < HI. Returns 0 or -1 with e. */
int user_bounds_parse(struct user_defs *u, int argc, char *const *argv, struct qx_err *e);

/* Writes the bounds as `set bounds` takes them ("0:inf -inf:inf"), or "a:b" when none were
 * given, into buf. */
void user_bounds_format(const struct user_defs *u, char *buf, size_t len);

/* Writes every definition of u ("k=3.5 bounds=0:inf exact=3.14") into buf: what tells two sets
 * of definitions apart. */
void user_defs_string(const struct user_defs *u, char *buf, size_t len);

/* Parses `set exact` VALUE: a finite number, none, or else an expression in the parameters,
 * kept in store as exact_expr (the problem checks it: its user_integrand hook). Returns 0 or -1
 * with e. */
int user_exact_parse(struct user_defs *u, struct param_store *store, const char *word,
                     struct qx_err *e);

/* Axis i's bounds (0-based) given the problem's own box [a, b] where none were set. */
void user_axis_bounds(const struct user_defs *u, int i, double a, double b, double *lo, double *hi);

#endif
