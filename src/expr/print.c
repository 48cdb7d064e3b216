/* print.c - the canonical text of a tree: a fixed-precedence printer with no spaces, x1..xD
 * for the axes and numbers in their shortest exact form, so that equal trees print equally and
 * the text parses back to the same tree. It serves as a cache key and is shown to the user. */
#include "tree.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Precedence levels, loosest first; a child looser than its place requires parentheses. */
enum { P_OR = 1, P_AND, P_EQ, P_REL, P_ADD, P_MUL, P_UNARY, P_POW, P_ATOM };

void expr_buf_put(struct expr_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;
	if (b->oom)
		return;
	va_start(ap, fmt);
	n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = 1;
		return;
	}
	if (b->len + (size_t)n + 1 > b->cap) {
		size_t cap =
		    2 * b->cap > b->len + (size_t)n + 1 ? 2 * b->cap : b->len + (size_t)n + 256;
		char *q = realloc(b->p, cap);
		if (!q) {
			b->oom = 1;
			return;
		}
		b->p = q;
		b->cap = cap;
		va_start(ap, fmt);
		vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
		va_end(ap);
	}
	b->len += (size_t)n;
}

/* Drops the leading zeros and the '+' of the exponent of the %g-formatted number in s (1e+05
 * becomes 1e5), in place. */
static void compact_exponent(char *s)
{
	char *ep = strchr(s, 'e'), *d;
	if (!ep)
		return;
	d = ep + 1;
	if (*d == '-')
		d++;
	char *src = d;
	if (*src == '+')
		src++;
	while (*src == '0' && src[1])
		src++;
	if (ep[1] == '+')
		d = ep + 1;
	memmove(d, src, strlen(src) + 1);
}

void expr_format_number(double v, char *buf, size_t cap)
{
	char t[64];
	int p;
	if (v == 0 || (fabs(v) >= 1e-5 && fabs(v) < 1e16)) {
		for (int d = 0; d <= 40; d++) {
			snprintf(t, sizeof t, "%.*f", d, v);
			if (strtod(t, NULL) == v) {
				snprintf(buf, cap, "%s", t);
				return;
			}
		}
	}
	for (p = 1; p < 17; p++) {
		snprintf(t, sizeof t, "%.*e", p - 1, v);
		if (strtod(t, NULL) == v)
			break;
	}
	snprintf(t, sizeof t, "%.*e", p - 1, v);
	compact_exponent(t);
	snprintf(buf, cap, "%s", t);
}

/* Returns the precedence of node kind op. */
static int prec_of(enum expr_op op)
{
	switch (op) {
	case E_OR:
		return P_OR;
	case E_AND:
		return P_AND;
	case E_EQ:
	case E_NE:
		return P_EQ;
	case E_LT:
	case E_LE:
	case E_GT:
	case E_GE:
		return P_REL;
	case E_ADD:
	case E_SUB:
		return P_ADD;
	case E_MUL:
	case E_DIV:
		return P_MUL;
	case E_NEG:
	case E_NOT:
		return P_UNARY;
	case E_POW:
		return P_POW;
	default:
		return P_ATOM;
	}
}

const char *expr_op_text(enum expr_op op)
{
	static const char *const text[] = {
	    [E_NEG] = "-", [E_NOT] = "!", [E_OR] = "||", [E_AND] = "&&", [E_EQ] = "==",
	    [E_NE] = "!=", [E_LT] = "<",  [E_LE] = "<=", [E_GT] = ">",   [E_GE] = ">=",
	    [E_ADD] = "+", [E_SUB] = "-", [E_MUL] = "*", [E_DIV] = "/",  [E_POW] = "^"};
	return op < sizeof text / sizeof text[0] && text[op] ? text[op] : "";
}

/* Writes into buf the index name of the sum or product at nesting level `level`: the level-th
 * name free in the scope of x among i, j, l, m, n, i1, i2, ... So equal trees print the same
 * indices whatever names were typed, nested levels get distinct names, and the text parses
 * back in the same scope. */
static void index_name(const struct expr *x, int level, char *buf, size_t cap)
{
	static const char *const first[] = {"i", "j", "l", "m", "n"};
	const int nfirst = (int)(sizeof first / sizeof first[0]);
	for (int c = 0, seen = 0;; c++) {
		if (c < nfirst)
			snprintf(buf, cap, "%s", first[c]);
		else
			snprintf(buf, cap, "i%d", c - nfirst + 1);
		if (expr_name_free(x, buf) && seen++ == level)
			return;
	}
}

/* Prints node i of x into o, in parentheses when it binds looser than min. Left-associative
 * operators take a left child of their own level and a right child one tighter; ^ takes an
 * atom on the left and a unary expression on the right, as the parser reads them. */
static void print_node(const struct expr *x, int i, int min, struct expr_buf *o)
{
	const struct expr_node *nd = &x->n[i];
	int p = prec_of(nd->op);
	char num[40], name[16];
	if (p < min)
		expr_buf_put(o, "(");
	switch (nd->op) {
	case E_NUM:
		expr_format_number(nd->num, num, sizeof num);
		expr_buf_put(o, "%s", num);
		break;
	case E_CONST:
		expr_buf_put(o, "%s", nd->ix ? "e" : "pi");
		break;
	case E_VAR:
		if (nd->ix < x->dim)
			expr_buf_put(o, "x%d", nd->ix + 1);
		else
			expr_buf_put(o, "%s", x->extra[nd->ix - x->dim]);
		break;
	case E_PARAM:
		expr_buf_put(o, "%s", x->params[nd->ix]);
		break;
	case E_INDEX:
		index_name(x, nd->ix, name, sizeof name);
		expr_buf_put(o, "%s", name);
		break;
	case E_XI:
		index_name(x, nd->ix, name, sizeof name);
		expr_buf_put(o, "x[%s]", name);
		break;
	case E_NEG:
	case E_NOT:
		expr_buf_put(o, "%s", expr_op_text(nd->op));
		print_node(x, nd->a[0], P_UNARY, o);
		break;
	case E_POW:
		print_node(x, nd->a[0], P_ATOM, o);
		expr_buf_put(o, "^");
		print_node(x, nd->a[1], P_UNARY, o);
		break;
	case E_CALL:
	case E_IF:
		expr_buf_put(o, "%s(", nd->op == E_IF ? "if" : expr_fns[nd->fn].name);
		for (int k = 0; k < nd->nargs; k++) {
			if (k)
				expr_buf_put(o, ",");
			print_node(x, nd->a[k], 0, o);
		}
		expr_buf_put(o, ")");
		break;
	case E_SUM:
	case E_PROD:
		index_name(x, nd->ix, name, sizeof name);
		expr_buf_put(o, "%s(%s,", nd->op == E_SUM ? "sum" : "prod", name);
		print_node(x, nd->a[0], 0, o);
		expr_buf_put(o, ")");
		break;
	default:
		print_node(x, nd->a[0], p, o);
		expr_buf_put(o, "%s", expr_op_text(nd->op));
		print_node(x, nd->a[1], p + 1, o);
		break;
	}
	if (p < min)
		expr_buf_put(o, ")");
}

int expr_canonical(const struct expr *x, char *buf, size_t cap)
{
	char *s = expr_canonical_dup(x);
	int r = s && strlen(s) < cap ? 0 : -1;
	if (cap > 0)
		snprintf(buf, cap, "%s", r ? "" : s);
	free(s);
	return r;
}

char *expr_canonical_dup(const struct expr *x)
{
	struct expr_buf o = {NULL, 0, 0, 0};
	print_node(x, x->root, 0, &o);
	if (o.oom) {
		free(o.p);
		return NULL;
	}
	return o.p;
}
