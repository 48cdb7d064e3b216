/* emit.c - a checked tree as C or CUDA source, in float or double: one function of the point
 * and the parameters. Sums and products become loops over a literal dim with an accumulator
 * declared before the return (no statement expressions, so C11 and CUDA C++ both take it);
 * small integer powers become multiplications; in double, asin and the cosines and sines
 * whose arguments are known to stay in range are reduced_math.h's, as the built-ins'. */
#include "tree.h"

#define QX_REDUCED_LIMIT_ONLY
#include "reduced_math.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How deep the parentheses of one C expression may nest before a sub-expression goes into a
 * local of its own (compilers bound bracket depth; clang at 256). */
#define EMIT_MAX_PARENS 32
/* The largest |n| of x^n written as multiplications. */
#define EMIT_MAX_MUL_POWER 8

/* The emitter's state: the tree, the type's spelling, the statements of the function body
 * written so far, how many locals it has and the indentation of the next statement. */
struct emit {
	const struct expr *x;
	const char *T;
	const char *suf;
	int is_float;
	struct expr_buf body;
	int ntemp;
	int indent;
	const struct expr_ranges *r;
	int reduced; /* set once a reduced_math.h function is called */
};

static void emit_node(struct emit *m, int i, struct expr_buf *o, int depth);

/* Appends one statement line to the function body at the current indentation. */
__attribute__((format(printf, 2, 3))) static void line(struct emit *m, const char *fmt, ...)
{
	char text[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	expr_buf_put(&m->body, "%.*s%s\n", m->indent, "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t", text);
}

/* Writes the number v as a literal of the emitted type: a double literal (always with a '.'
 * or an exponent), cast to float in float. */
static void literal(struct emit *m, double v, struct expr_buf *o)
{
	char num[64];
	expr_format_number(v, num, sizeof num);
	if (!strpbrk(num, ".e"))
		strcat(num, ".0");
	if (m->is_float)
		expr_buf_put(o, "((float)%s)", num);
	else
		expr_buf_put(o, "%s", num);
}

/* Returns 1 for a node written as a short atom (a number, a variable, a parameter, an index,
 * x[i]): such a node may be repeated in the text at no cost. */
static int is_leaf(const struct expr_node *nd)
{
	return nd->op <= E_XI;
}

/* Writes node i into a new local of the function body and its name into o, so that a long or
 * repeated sub-expression is computed once. Locals are evaluated unconditionally, which is
 * harmless: the language has no side effects. */
static void hoist(struct emit *m, int i, struct expr_buf *o)
{
	struct expr_buf t = {NULL, 0, 0, 0};
	int id = m->ntemp++;
	emit_node(m, i, &t, 0);
	if (t.oom)
		m->body.oom = 1;
	else
		expr_buf_put(&m->body, "%.*s%s t%d = %s;\n", m->indent,
		             "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t", m->T, id, t.p);
	free(t.p);
	expr_buf_put(o, "t%d", id);
}

/* Returns 1 and the value in *v when node i is a constant number (a number or its negation). */
static int constant(const struct expr *x, int i, double *v)
{
	const struct expr_node *nd = &x->n[i];
	if (nd->op == E_NUM) {
		*v = nd->num;
		return 1;
	}
	if (nd->op == E_NEG && x->n[nd->a[0]].op == E_NUM) {
		*v = -x->n[nd->a[0]].num;
		return 1;
	}
	return 0;
}

/* Writes base^exponent: a small integer exponent as multiplications (x^2 is x*x exactly, a
 * negative one as 1 over them), 0.5 as the square root, any other as pow. A base that is not an
 * atom goes into a local first so that it is written once. */
static void emit_pow(struct emit *m, const struct expr_node *nd, struct expr_buf *o, int depth)
{
	double v;
	struct expr_buf b = {NULL, 0, 0, 0};
	if (!constant(m->x, nd->a[1], &v) || (v != 0.5 && (v != floor(v) || fabs(v) > 8))) {
		expr_buf_put(o, "pow%s(", m->suf);
		emit_node(m, nd->a[0], o, depth + 1);
		expr_buf_put(o, ", ");
		emit_node(m, nd->a[1], o, depth + 1);
		expr_buf_put(o, ")");
		return;
	}
	if (v == 0.5) {
		expr_buf_put(o, "sqrt%s(", m->suf);
		emit_node(m, nd->a[0], o, depth + 1);
		expr_buf_put(o, ")");
		return;
	}
	if (v == 0) {
		literal(m, 1, o);
		return;
	}
	if (is_leaf(&m->x->n[nd->a[0]]))
		emit_node(m, nd->a[0], &b, depth + 1);
	else
		hoist(m, nd->a[0], &b);
	if (b.oom)
		m->body.oom = 1;
	expr_buf_put(o, "(");
	if (v < 0) {
		literal(m, 1, o);
		expr_buf_put(o, " / (");
	}
	for (int k = 0; k < (int)fabs(v); k++)
		expr_buf_put(o, "%s%s", k ? " * " : "", b.p ? b.p : "");
	expr_buf_put(o, v < 0 ? "))" : ")");
	free(b.p);
}

/* Writes a sum or product over the axes as a loop before the return, with an accumulator
 * local; writes the accumulator's name into o. The loop's bound is the literal dim, so the
 * compilers may unroll it. */
static void emit_loop(struct emit *m, const struct expr_node *nd, struct expr_buf *o)
{
	struct expr_buf t = {NULL, 0, 0, 0};
	int id = m->ntemp++, k = nd->ix, sum = nd->op == E_SUM;
	line(m, "%s s%d = %d;", m->T, id, sum ? 0 : 1);
	line(m, "for (int k%d = 1; k%d <= %d; k%d++) {", k, k, m->x->dim, k);
	m->indent++;
	emit_node(m, nd->a[0], &t, 0);
	if (t.oom)
		m->body.oom = 1;
	else
		expr_buf_put(&m->body, "%.*ss%d %c= %s;\n", m->indent,
		             "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t", id, sum ? '+' : '*', t.p);
	free(t.p);
	m->indent--;
	line(m, "}");
	expr_buf_put(o, "s%d", id);
}

/* Writes the two children of nd between open, mid and close (two parentheses deeper). */
static void emit_binary(struct emit *m, const struct expr_node *nd, struct expr_buf *o, int depth,
                        const char *open, const char *mid, const char *close)
{
	expr_buf_put(o, "%s", open);
	emit_node(m, nd->a[0], o, depth + 2);
	expr_buf_put(o, "%s", mid);
	emit_node(m, nd->a[1], o, depth + 2);
	expr_buf_put(o, "%s", close);
}

/* Writes the callee of the call nd and its '(': in double asin, and cos and sin with an
 * argument within half the reduced functions' range (room for the rounding of the argument's
 * own evaluation), are reduced_math.h's; the others the math library's. */
static void emit_callee(struct emit *m, const struct expr_node *nd, struct expr_buf *o)
{
	const char *name = expr_fns[nd->fn].name;
	const int trig = !strcmp(name, "cos") || !strcmp(name, "sin");
	if (!m->is_float &&
	    (!strcmp(name, "asin") ||
	     (trig && expr_node_bound(m->x, nd->a[0], m->r) <= QX_REDUCED_LIMIT / 2))) {
		m->reduced = 1;
		expr_buf_put(o, "qx_%s_reduced(", name);
		return;
	}
	expr_buf_put(o, "%s%s(", expr_fns[nd->fn].c, m->suf);
}

/* Writes node i as a C expression into o; depth counts the parentheses around it, and a node
 * too deep goes into a local. Comparisons and logic give 1 or 0 in the emitted type. */
static void emit_node(struct emit *m, int i, struct expr_buf *o, int depth)
{
	const struct expr *x = m->x;
	const struct expr_node *nd = &x->n[i];
	const char *op = expr_op_text(nd->op);
	char open[32], mid[32];
	int logic;
	if (depth > EMIT_MAX_PARENS && !is_leaf(nd)) {
		hoist(m, i, o);
		return;
	}
	switch (nd->op) {
	case E_NUM:
		literal(m, nd->num, o);
		break;
	case E_CONST:
		literal(m, nd->ix ? M_E : M_PI, o);
		break;
	case E_VAR:
		expr_buf_put(o, "x[%d]", nd->ix);
		break;
	case E_PARAM:
		expr_buf_put(o, m->is_float ? "((float)p[%d])" : "p[%d]", nd->ix);
		break;
	case E_INDEX:
		expr_buf_put(o, "((%s)k%d)", m->T, nd->ix);
		break;
	case E_XI:
		expr_buf_put(o, "x[k%d - 1]", nd->ix);
		break;
	case E_NEG:
		expr_buf_put(o, "(-");
		emit_node(m, nd->a[0], o, depth + 1);
		expr_buf_put(o, ")");
		break;
	case E_NOT:
		expr_buf_put(o, "((%s)(", m->T);
		emit_node(m, nd->a[0], o, depth + 2);
		expr_buf_put(o, " == 0))");
		break;
	case E_OR:
	case E_AND:
	case E_EQ:
	case E_NE:
	case E_LT:
	case E_LE:
	case E_GT:
	case E_GE:
		logic = nd->op == E_OR || nd->op == E_AND;
		snprintf(open, sizeof open, "((%s)(", m->T);
		snprintf(mid, sizeof mid, " %s%s ", logic ? "!= 0 " : "", op);
		emit_binary(m, nd, o, depth, open, mid, logic ? " != 0))" : "))");
		break;
	case E_POW:
		emit_pow(m, nd, o, depth);
		break;
	case E_CALL:
		emit_callee(m, nd, o);
		for (int k = 0; k < nd->nargs; k++) {
			if (k)
				expr_buf_put(o, ", ");
			emit_node(m, nd->a[k], o, depth + 1);
		}
		expr_buf_put(o, ")");
		break;
	case E_IF:
		expr_buf_put(o, "(");
		emit_node(m, nd->a[0], o, depth + 1);
		expr_buf_put(o, " != 0 ? ");
		emit_node(m, nd->a[1], o, depth + 1);
		expr_buf_put(o, " : ");
		emit_node(m, nd->a[2], o, depth + 1);
		expr_buf_put(o, ")");
		break;
	case E_SUM:
	case E_PROD:
		emit_loop(m, nd, o);
		break;
	default:
		snprintf(mid, sizeof mid, " %s ", op);
		emit_binary(m, nd, o, depth, "(", mid, ")");
		break;
	}
}

/* Appends the function name computing x in precision prec to out, with the CUDA qualifiers
 * when lang says so; returns 1 when it calls reduced_math.h's functions, else 0. */
static int emit_function(const struct expr *x, enum expr_lang lang, enum qx_precision prec,
                         const char *name, const struct expr_ranges *r, struct expr_buf *out)
{
	struct emit m;
	struct expr_buf ret = {NULL, 0, 0, 0};
	memset(&m, 0, sizeof m);
	m.x = x;
	m.r = r;
	m.is_float = prec == QX_FLOAT;
	m.T = m.is_float ? "float" : "double";
	m.suf = m.is_float ? "f" : "";
	m.indent = 1;
	emit_node(&m, x->root, &ret, 0);
	expr_buf_put(out, "%s%s %s(const %s *x, const double *p)\n{\n\t(void)x;\n\t(void)p;\n",
	             lang == EXPR_CUDA ? "extern \"C\" __device__ " : "", m.T, name, m.T);
	if (m.body.p)
		expr_buf_put(out, "%s", m.body.p);
	expr_buf_put(out, "\treturn %s;\n}\n", ret.p ? ret.p : "");
	if (m.body.oom || ret.oom)
		out->oom = 1;
	free(m.body.p);
	free(ret.p);
	return m.reduced;
}

/* Returns the string of out, or NULL (freeing it) when an allocation failed. */
static char *finish(struct expr_buf *out)
{
	if (!out->oom)
		return out->p;
	free(out->p);
	return NULL;
}

/* Returns head, then reduced_math.h's text when reduced says so, then fn, in a malloc'd
 * string (NULL when out of memory); frees fn's string. */
static char *join(const char *head, int reduced, struct expr_buf *fn)
{
	struct expr_buf out = {NULL, 0, 0, 0};
	expr_buf_put(&out, "%s%s%s%s", head, reduced ? qx_reduced_math_text : "",
	             reduced ? "\n" : "", fn->p ? fn->p : "");
	if (fn->oom)
		out.oom = 1;
	free(fn->p);
	return finish(&out);
}

char *expr_emit_in(const struct expr *x, enum expr_lang lang, enum qx_precision prec,
                   const char *name, const struct expr_ranges *r)
{
	struct expr_buf fn = {NULL, 0, 0, 0};
	const int reduced = emit_function(x, lang, prec, name, r, &fn);
	return join(lang == EXPR_C ? "#include <math.h>\n\n" : "", reduced, &fn);
}

char *expr_emit(const struct expr *x, enum expr_lang lang, enum qx_precision prec, const char *name)
{
	return expr_emit_in(x, lang, prec, name, NULL);
}

char *expr_emit_unit(const struct expr *x)
{
	struct expr_buf fn = {NULL, 0, 0, 0};
	int reduced = emit_function(x, EXPR_C, QX_DOUBLE, EXPR_CPU_NAME_D, NULL, &fn);
	expr_buf_put(&fn, "\n");
	reduced |= emit_function(x, EXPR_C, QX_FLOAT, EXPR_CPU_NAME_F, NULL, &fn);
	return join("#include <math.h>\n\n", reduced, &fn);
}
