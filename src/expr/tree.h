/* tree.h - the checked tree of an expression as parse.c builds it and print.c and emit.c walk
 * it; private to src/expr. */
#ifndef QX_EXPR_TREE_H
#define QX_EXPR_TREE_H

#include "expr.h"

enum expr_op {
	E_NUM,   /* num: a finite number >= 0 as typed */
	E_CONST, /* ix 0: pi, 1: e */
	E_VAR,   /* ix: index into the point array (axes, then extras) */
	E_PARAM, /* ix: parameter index */
	E_INDEX, /* ix: nesting level of the sum/prod whose index it is; used as a number */
	E_XI,    /* x[i]: ix as for E_INDEX */
	E_NEG,
	E_NOT,
	E_OR,
	E_AND,
	E_EQ,
	E_NE,
	E_LT,
	E_LE,
	E_GT,
	E_GE,
	E_ADD,
	E_SUB,
	E_MUL,
	E_DIV,
	E_POW,
	E_CALL, /* fn: index into expr_fns */
	E_IF,
	E_SUM, /* ix: nesting level; a[0]: the body */
	E_PROD
};

/* One node; children are indices into the tree's node array. */
struct expr_node {
	enum expr_op op;
	int fn;
	int nargs;
	int a[3];
	int ix;
	int height;
	double num;
};

struct expr {
	struct expr_node *n;
	int count, cap, root;
	int dim, nparams, nextra;
	char **params; /* copies of the scope's names */
	char **extra;
};

/* One function of the language: its name, arity and C name (double; float adds 'f'). */
struct expr_fn {
	const char *name;
	int nargs;
	const char *c;
};

/* The functions, ending with a NULL name. */
extern const struct expr_fn expr_fns[];

/* Returns 1 when the name w is free in the scope of x: no variable, parameter, constant or
 * function has it, so a sum or product may use it as its index. */
int expr_name_free(const struct expr *x, const char *w);

/* A growing string; oom is set (and nothing more written) once an allocation fails. */
struct expr_buf {
	char *p;
	size_t len, cap;
	int oom;
};

/* Appends formatted text to b. */
void expr_buf_put(struct expr_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes v (finite) into buf in the shortest form that reads back to it: plain decimals for
 * 1e-5 <= |v| < 1e16, else the shortest mantissa with a compact exponent (1e-7, 2.5e20). */
void expr_format_number(double v, char *buf, size_t cap);

/* Returns the text of the operator of node kind op ("+", "<=", "!", ...), "" for others. */
const char *expr_op_text(enum expr_op op);

/* The largest |value| node i of x can take when the inputs lie in r (NULL: nothing known):
 * interval arithmetic, never below the true bound up to the evaluation's rounding; infinite
 * when unknown. */
double expr_node_bound(const struct expr *x, int i, const struct expr_ranges *r);

/* The text of reduced_math.h, embedded by reduced_math_text.S, NUL-terminated. */
extern const char qx_reduced_math_text[];

#endif
