/* userdefs.h - what a user defines for their own integrand besides its text: named parameters
 * (`set param k 3.5`, then `set k 4` or `sweep k 1..10`), the box's bounds per axis, finite or
 * infinite (`set bounds 0:inf -inf:inf`), and the exact value when known (`set exact 3.14`).
 * The session owns one; a run's request points to it. */
#ifndef QX_USERDEFS_H
#define QX_USERDEFS_H

#include "qx.h"

#define USER_MAX_PARAMS 16 /* as CUB_USER_PARAMS: each is passed to the compiled code */
#define USER_NAME_MAX 31
#define USER_MAX_AXES 16

struct user_defs {
	int nparams;
	char param_name[USER_MAX_PARAMS][USER_NAME_MAX + 1];
	double param_value[USER_MAX_PARAMS];
	int nbounds; /* 0: the problem's own box; 1: one pair for every axis; else one an axis */
	double lo[USER_MAX_AXES], hi[USER_MAX_AXES]; /* -inf / inf allowed */
	double exact;                                /* NaN: not known */
};

/* An empty set of definitions: no parameters, the problem's box, no exact value. */
void user_defs_init(struct user_defs *u);

/* The index of the parameter called name, or -1. */
int user_param_find(const struct user_defs *u, const char *name);

/* Defines the parameter name (a new one, or a new value for one), value a finite number; the
 * name must be an identifier that taken() (the caller's names: its parameters and settings, the
 * expression language's) does not claim. Returns 0 or -1 with e naming what is allowed. */
int user_param_define(struct user_defs *u, const char *name, const char *value,
                      int (*taken)(const char *name, const void *arg), const void *arg,
                      struct qx_err *e);

/* Parses `set bounds` words: one LO:HI pair for every axis or one an axis (at most
 * USER_MAX_AXES), each bound a number, -inf or inf, LO < HI. Returns 0 or -1 with e. */
int user_bounds_parse(struct user_defs *u, int argc, char *const *argv, struct qx_err *e);

/* Writes the bounds as `set bounds` takes them ("0:inf -inf:inf"), or "a:b" when none were
 * given, into buf. */
void user_bounds_format(const struct user_defs *u, char *buf, size_t len);

/* Writes every definition of u ("k=3.5 bounds=0:inf exact=3.14") into buf: what tells two sets
 * of definitions apart. */
void user_defs_string(const struct user_defs *u, char *buf, size_t len);

/* Parses `set exact` VALUE (a finite number, or none). Returns 0 or -1 with e. */
int user_exact_parse(struct user_defs *u, const char *word, struct qx_err *e);

/* Axis i's bounds (0-based) given the problem's own box [a, b] where none were set. */
void user_axis_bounds(const struct user_defs *u, int i, double a, double b, double *lo, double *hi);

#endif
