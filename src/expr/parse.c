/* parse.c - the recursive-descent parser of the expression language into a checked tree: every
 * name resolved against the scope, every arity checked, depth and length bounded, one message
 * with a column on the first error.
 * One file, over 600 lines: a recursive-descent parser is one function a grammar level calling
 * the next, with the scope and the error path they share; the tree's printer, emitter, range
 * analysis and JIT are files of their own. */
#include "tree.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The functions by name with their arity and C name; pow and if become nodes of their own. */
const struct expr_fn expr_fns[] = {
    {"exp", 1, "exp"},       {"expm1", 1, "expm1"}, {"log", 1, "log"},     {"log1p", 1, "log1p"},
    {"sqrt", 1, "sqrt"},     {"cbrt", 1, "cbrt"},   {"pow", 2, "pow"},     {"sin", 1, "sin"},
    {"cos", 1, "cos"},       {"tan", 1, "tan"},     {"asin", 1, "asin"},   {"acos", 1, "acos"},
    {"atan", 1, "atan"},     {"atan2", 2, "atan2"}, {"sinh", 1, "sinh"},   {"cosh", 1, "cosh"},
    {"tanh", 1, "tanh"},     {"erf", 1, "erf"},     {"erfc", 1, "erfc"},   {"tgamma", 1, "tgamma"},
    {"lgamma", 1, "lgamma"}, {"abs", 1, "fabs"},    {"floor", 1, "floor"}, {"min", 2, "fmin"},
    {"max", 2, "fmax"},      {"if", 3, NULL},       {NULL, 0, NULL}};

/* The parser's state: the text, the position (a byte offset), the nesting depth, the indices
 * of the sums and products around the position (outermost first) and where errors go. */
struct parser {
	const char *s;
	int pos;
	int nest;
	const struct expr_scope *sc;
	struct expr *x;
	struct qx_err *e;
	int nidx;
	int idx_pos[EXPR_MAX_NEST], idx_len[EXPR_MAX_NEST];
};

static int parse_or(struct parser *ps);
static int parse_unary(struct parser *ps);

/* Returns 1 for the characters that may start a name. */
static int name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* Returns 1 for an ASCII digit. */
static int digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Returns 1 for the characters that may continue a name. */
static int name_char(char c)
{
	return name_start(c) || digit(c);
}

/* Moves past blanks and returns the character there. */
static char skip_ws(struct parser *ps)
{
	while (strchr(" \t\n\r\f\v", ps->s[ps->pos]) && ps->s[ps->pos])
		ps->pos++;
	return ps->s[ps->pos];
}

/* Returns the length of the operator token at s, 0 when s starts with no operator. Two-character
 * operators first, so that "<=" is never read as "<" and "=". */
static int op_len(const char *s)
{
	static const char *const two[] = {"<=", ">=", "==", "!=", "&&", "||"};
	for (size_t i = 0; i < sizeof two / sizeof two[0]; i++)
		if (s[0] == two[i][0] && s[1] == two[i][1])
			return 2;
	return s[0] && strchr("+-*/^(),[]<>!", s[0]) ? 1 : 0;
}

/* Returns the length of the number at s (digits, an optional fraction, an optional exponent),
 * 0 when s starts no number, -1 when its exponent has no digits. */
static int number_len(const char *s)
{
	int i = 0;
	if (!digit(s[0]) && !(s[0] == '.' && digit(s[1])))
		return 0;
	while (digit(s[i]))
		i++;
	if (s[i] == '.')
		for (i++; digit(s[i]); i++)
			;
	if (s[i] == 'e' || s[i] == 'E') {
		int j = i + 1;
		if (s[j] == '+' || s[j] == '-')
			j++;
		if (!digit(s[j]))
			return -1;
		while (digit(s[j]))
			j++;
		i = j;
	}
	return i;
}

/* Returns the length of the name at s, 0 when none starts there. */
static int name_len(const char *s)
{
	int i = 0;
	if (!name_start(s[0]))
		return 0;
	while (name_char(s[i]))
		i++;
	return i;
}

/* Fails with "unexpected ... at column N" and what was expected instead, naming the token at
 * the position (the end, a character that starts no token, or the token). Returns -1. */
static int fail_unexpected(struct parser *ps, const char *expected)
{
	const char *t = ps->s + ps->pos;
	int col = ps->pos + 1, n;
	unsigned char c = (unsigned char)*t;
	if (!c)
		return qx_fail(ps->e, "unexpected end of expression at column %d: %s expected", col,
		               expected);
	n = number_len(t);
	if (n == 0)
		n = name_len(t);
	if (n == 0)
		n = op_len(t);
	if (n > 0)
		return qx_fail(ps->e, "unexpected '%.*s' at column %d: %s expected",
		               n > 32 ? 32 : n, t, col, expected);
	if (c > 32 && c < 127)
		return qx_fail(ps->e, "unexpected character '%c' at column %d", c, col);
	return qx_fail(ps->e, "unexpected character 0x%02x at column %d", c, col);
}

/* Fails at the position with "WHAT expected at column N" (what: "')'", "an index name"), or
 * with the character there when it starts no token (that error comes first). Returns -1. */
static int fail_expected(struct parser *ps, const char *what)
{
	const char *t = ps->s + ps->pos;
	if (*t && number_len(t) == 0 && name_len(t) == 0 && op_len(t) == 0)
		return fail_unexpected(ps, what);
	return qx_fail(ps->e, "%s expected at column %d", what, ps->pos + 1);
}

/* Consumes the operator op when it comes next (after blanks) and is not the start of a longer
 * operator; returns 1 when it did. */
static int accept(struct parser *ps, const char *op)
{
	int n = (int)strlen(op);
	skip_ws(ps);
	if (strncmp(ps->s + ps->pos, op, (size_t)n) != 0 || op_len(ps->s + ps->pos) != n)
		return 0;
	ps->pos += n;
	return 1;
}

/* Consumes the operator op or fails with "'op' expected"; returns 0 or -1. */
static int expect(struct parser *ps, const char *op)
{
	char what[8];
	if (accept(ps, op))
		return 0;
	snprintf(what, sizeof what, "'%s'", op);
	return fail_expected(ps, what);
}

/* Appends a node of op with nargs children at text position pos; fails when out of memory or
 * when the tree grows taller than EXPR_MAX_HEIGHT. Returns its index or -1. */
static int mk(struct parser *ps, int pos, enum expr_op op, int nargs, const int *args)
{
	struct expr *x = ps->x;
	struct expr_node *nd;
	int h = 0;
	if (x->count == x->cap) {
		int cap = x->cap ? 2 * x->cap : 64;
		struct expr_node *n = realloc(x->n, (size_t)cap * sizeof *n);
		if (!n)
			return qx_fail(ps->e, "out of memory parsing the expression");
		x->n = n;
		x->cap = cap;
	}
	nd = &x->n[x->count];
	memset(nd, 0, sizeof *nd);
	nd->op = op;
	nd->nargs = nargs;
	for (int i = 0; i < nargs; i++) {
		nd->a[i] = args[i];
		if (x->n[args[i]].height > h)
			h = x->n[args[i]].height;
	}
	nd->height = h + 1;
	if (nd->height > EXPR_MAX_HEIGHT)
		return qx_fail(ps->e,
		               "expression nested too deeply at column %d (at most %d levels)",
		               pos + 1, EXPR_MAX_HEIGHT);
	return x->count++;
}

/* Appends a node with one or two children (b < 0: one). Returns its index or -1. */
static int mk2(struct parser *ps, int pos, enum expr_op op, int a, int b)
{
	int args[2] = {a, b};
	return mk(ps, pos, op, b < 0 ? 1 : 2, args);
}

/* Appends a leaf node with index ix. Returns its index or -1. */
static int mk_leaf(struct parser *ps, int pos, enum expr_op op, int ix)
{
	int i = mk(ps, pos, op, 0, NULL);
	if (i >= 0)
		ps->x->n[i].ix = ix;
	return i;
}

/* The left-associative binary levels, loosest first: each level's operators (two-character
 * ones first) and node kinds. Equality binds looser than order, as in C. */
static const struct level {
	int n;
	const char *ops[4];
	enum expr_op kinds[4];
} levels[] = {
    {1, {"||"}, {E_OR}},
    {1, {"&&"}, {E_AND}},
    {2, {"==", "!="}, {E_EQ, E_NE}},
    {4, {"<=", ">=", "<", ">"}, {E_LE, E_GE, E_LT, E_GT}},
    {2, {"+", "-"}, {E_ADD, E_SUB}},
    {2, {"*", "/"}, {E_MUL, E_DIV}},
};
#define NLEVELS ((int)(sizeof levels / sizeof levels[0]))

/* Parses binary level L: operands of the next tighter level (unary expressions after the last)
 * joined left to right by the level's operators. Returns the node or -1. */
static int parse_level(struct parser *ps, int L)
{
	const struct level *lv = &levels[L];
	int l = L + 1 < NLEVELS ? parse_level(ps, L + 1) : parse_unary(ps);
	while (l >= 0) {
		int k, r, pos;
		skip_ws(ps);
		pos = ps->pos;
		for (k = 0; k < lv->n && !accept(ps, lv->ops[k]); k++)
			;
		if (k == lv->n)
			break;
		r = L + 1 < NLEVELS ? parse_level(ps, L + 1) : parse_unary(ps);
		if (r < 0)
			return -1;
		l = mk2(ps, pos, lv->kinds[k], l, r);
	}
	return l;
}

/* Parses a whole expression (or an argument, or what parentheses hold). */
static int parse_or(struct parser *ps)
{
	return parse_level(ps, 0);
}

/* Returns 1 when the span [pos, pos+len) of the text equals the word w. */
static int span_is(const struct parser *ps, int pos, int len, const char *w)
{
	return (int)strlen(w) == len && strncmp(ps->s + pos, w, (size_t)len) == 0;
}

/* Returns the axis (1-based) that the name w of length len names in dim (x1..xD, x, y, z),
 * 0 when it names none. */
static int axis_of(const char *w, int len, int dim)
{
	int v = 0;
	if (len == 1 && w[0] >= 'x' && w[0] <= 'z')
		return w[0] - 'x' + 1 <= dim ? w[0] - 'x' + 1 : 0;
	if (len < 2 || len > 5 || w[0] != 'x' || w[1] == '0')
		return 0;
	for (int i = 1; i < len; i++) {
		if (!digit(w[i]))
			return 0;
		v = 10 * v + (w[i] - '0');
	}
	return v <= dim ? v : 0;
}

/* Returns the index of the name w of length len in names (count n), -1 when absent. */
static int find_name(const char *const *names, int n, const char *w, int len)
{
	for (int i = 0; i < n; i++)
		if ((int)strlen(names[i]) == len && strncmp(names[i], w, (size_t)len) == 0)
			return i;
	return -1;
}

/* Returns the index of the function named w (length len) in expr_fns, -1 when none. */
static int find_fn(const char *w, int len)
{
	for (int i = 0; expr_fns[i].name; i++)
		if ((int)strlen(expr_fns[i].name) == len &&
		    strncmp(expr_fns[i].name, w, (size_t)len) == 0)
			return i;
	return -1;
}

/* Returns what the name w (length len) already is in scope sc apart from the user's names: "a
 * variable", "a constant", "a function", or NULL when it is free. */
static const char *reserved(const struct expr_scope *sc, const char *w, int len)
{
	if (axis_of(w, len, sc->dim))
		return "a variable";
	if ((len == 2 && strncmp(w, "pi", 2) == 0) || (len == 1 && w[0] == 'e'))
		return "a constant";
	if (find_fn(w, len) >= 0 || (len == 3 && strncmp(w, "sum", 3) == 0) ||
	    (len == 4 && strncmp(w, "prod", 4) == 0))
		return "a function";
	return NULL;
}

/* 1 when name is a variable (in the largest dim, 16), constant or function of the language. */
int expr_name_reserved(const char *name)
{
	const struct expr_scope sc = {.dim = 16};
	return reserved(&sc, name, (int)strlen(name)) != NULL;
}

/* Fails with "unknown name" at pos, listing the variables and parameters of the scope.
 * Returns -1. */
static int fail_unknown(struct parser *ps, int pos, int len)
{
	const struct expr_scope *sc = ps->sc;
	char list[QX_ERR_LEN];
	size_t n = 0;
	if (sc->dim == 1)
		n += (size_t)snprintf(list, sizeof list, "x1");
	else
		n += (size_t)snprintf(list, sizeof list, "x1..x%d", sc->dim);
	for (int k = 0; k < sc->nextra && n < sizeof list; k++)
		n += (size_t)snprintf(list + n, sizeof list - n, ", %s", sc->extra[k]);
	if (sc->nparams == 0 && n < sizeof list)
		n += (size_t)snprintf(list + n, sizeof list - n, ", no parameters");
	for (int j = 0; j < sc->nparams && n < sizeof list; j++)
		n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", j ? ", " : ", parameters ",
		                      sc->params[j]);
	return qx_fail(ps->e, "unknown name '%.*s' at column %d: the variables are %s",
	               len > 40 ? 40 : len, ps->s + pos, pos + 1, list);
}

/* Returns the nesting level of the innermost sum or product whose index is the span
 * [pos, pos+len), -1 when none is. */
static int find_index(const struct parser *ps, int pos, int len)
{
	for (int k = ps->nidx - 1; k >= 0; k--)
		if (ps->idx_len[k] == len &&
		    strncmp(ps->s + ps->idx_pos[k], ps->s + pos, (size_t)len) == 0)
			return k;
	return -1;
}

/* Parses `sum(i, BODY)` or `prod(i, BODY)` after the keyword at pos: the index must be a name
 * that shadows nothing. Returns the node or -1. */
static int parse_loop(struct parser *ps, int pos, enum expr_op op)
{
	int ipos, ilen, body;
	const char *what;
	if (expect(ps, "("))
		return -1;
	skip_ws(ps);
	ipos = ps->pos;
	ilen = name_len(ps->s + ipos);
	if (ilen == 0)
		return fail_expected(ps, "an index name");
	what = reserved(ps->sc, ps->s + ipos, ilen);
	if (!what && find_name(ps->sc->extra, ps->sc->nextra, ps->s + ipos, ilen) >= 0)
		what = "a variable";
	if (!what && find_name(ps->sc->params, ps->sc->nparams, ps->s + ipos, ilen) >= 0)
		what = "a parameter";
	if (!what && find_index(ps, ipos, ilen) >= 0)
		what = "the index of an enclosing sum or prod";
	if (what)
		return qx_fail(ps->e, "index name '%.*s' at column %d shadows %s",
		               ilen > 40 ? 40 : ilen, ps->s + ipos, ipos + 1, what);
	if (ps->nidx >= EXPR_MAX_NEST)
		return qx_fail(ps->e,
		               "expression nested too deeply at column %d (at most %d levels)",
		               ipos + 1, EXPR_MAX_NEST);
	ps->pos += ilen;
	if (expect(ps, ","))
		return -1;
	ps->idx_pos[ps->nidx] = ipos;
	ps->idx_len[ps->nidx] = ilen;
	ps->nidx++;
	body = parse_or(ps);
	ps->nidx--;
	if (body < 0 || expect(ps, ")"))
		return -1;
	body = mk2(ps, pos, op, body, -1);
	if (body >= 0)
		ps->x->n[body].ix = ps->nidx;
	return body;
}

/* Parses the arguments of the function fn after its name at pos and checks their number.
 * Returns the node or -1. */
static int parse_call(struct parser *ps, int pos, int fn)
{
	int args[3], n = 0, i;
	if (expect(ps, "("))
		return -1;
	if (!accept(ps, ")")) {
		do {
			int a = parse_or(ps);
			if (a < 0)
				return -1;
			if (n < 3)
				args[n] = a;
			n++;
		} while (accept(ps, ","));
		if (expect(ps, ")"))
			return -1;
	}
	if (n != expr_fns[fn].nargs)
		return qx_fail(ps->e, "%s takes %d argument%s, got %d", expr_fns[fn].name,
		               expr_fns[fn].nargs, expr_fns[fn].nargs == 1 ? "" : "s", n);
	if (strcmp(expr_fns[fn].name, "pow") == 0)
		return mk(ps, pos, E_POW, 2, args);
	if (strcmp(expr_fns[fn].name, "if") == 0)
		return mk(ps, pos, E_IF, 3, args);
	i = mk(ps, pos, E_CALL, n, args);
	if (i >= 0)
		ps->x->n[i].fn = fn;
	return i;
}

/* Parses `x[i]` after the x at pos: i must be the index of an enclosing sum or prod. Returns
 * the node or -1. */
static int parse_subscript(struct parser *ps, int pos)
{
	int ipos, ilen, level;
	accept(ps, "[");
	skip_ws(ps);
	ipos = ps->pos;
	ilen = name_len(ps->s + ipos);
	if (ilen == 0)
		return fail_expected(ps, "an index name");
	level = find_index(ps, ipos, ilen);
	if (level < 0)
		return qx_fail(ps->e, "'x[%.*s]' at column %d is outside a sum or prod over %.*s",
		               ilen > 40 ? 40 : ilen, ps->s + ipos, pos + 1, ilen > 40 ? 40 : ilen,
		               ps->s + ipos);
	ps->pos += ilen;
	if (expect(ps, "]"))
		return -1;
	return mk_leaf(ps, pos, E_XI, level);
}

/* Parses the name at the position: a call, a sum or product, x[i], an index, a variable, an
 * extra, a parameter or a constant. Returns the node or -1. */
static int parse_name(struct parser *ps)
{
	const struct expr_scope *sc = ps->sc;
	int pos = ps->pos, len = name_len(ps->s + pos), k;
	const char *w = ps->s + pos;
	char next;
	ps->pos += len;
	next = skip_ws(ps);
	if (next == '(' && span_is(ps, pos, len, "sum"))
		return parse_loop(ps, pos, E_SUM);
	if (next == '(' && span_is(ps, pos, len, "prod"))
		return parse_loop(ps, pos, E_PROD);
	if (next == '(' && find_fn(w, len) >= 0)
		return parse_call(ps, pos, find_fn(w, len));
	if (next == '[' && span_is(ps, pos, len, "x"))
		return parse_subscript(ps, pos);
	if ((k = find_index(ps, pos, len)) >= 0)
		return mk_leaf(ps, pos, E_INDEX, k);
	if ((k = axis_of(w, len, sc->dim)) > 0)
		return mk_leaf(ps, pos, E_VAR, k - 1);
	if ((k = find_name(sc->extra, sc->nextra, w, len)) >= 0)
		return mk_leaf(ps, pos, E_VAR, sc->dim + k);
	if ((k = find_name(sc->params, sc->nparams, w, len)) >= 0)
		return mk_leaf(ps, pos, E_PARAM, k);
	if (span_is(ps, pos, len, "pi") || span_is(ps, pos, len, "e"))
		return mk_leaf(ps, pos, E_CONST, len == 1);
	if (reserved(sc, w, len))
		return fail_expected(ps, "'('");
	if (next == '(')
		return qx_fail(ps->e, "unknown function '%.*s' at column %d", len > 40 ? 40 : len,
		               w, pos + 1);
	return fail_unknown(ps, pos, len);
}

/* Parses the number at the position; it must be finite. Returns the node or -1. */
static int parse_number(struct parser *ps)
{
	int pos = ps->pos, len = number_len(ps->s + pos), i;
	char *t;
	double v;
	if (len < 0)
		return qx_fail(ps->e, "malformed number at column %d: digits expected after 'e'",
		               pos + 1);
	t = strndup(ps->s + pos, (size_t)len);
	if (!t)
		return qx_fail(ps->e, "out of memory parsing the expression");
	v = strtod(t, NULL);
	free(t);
	if (!isfinite(v))
		return qx_fail(ps->e, "number out of range at column %d", pos + 1);
	ps->pos += len;
	i = mk(ps, pos, E_NUM, 0, NULL);
	if (i >= 0)
		ps->x->n[i].num = v;
	return i;
}

/* Parses an operand: a number, a name, or an expression in parentheses. Returns the node or
 * -1. */
static int parse_primary(struct parser *ps)
{
	char c = skip_ws(ps);
	if (number_len(ps->s + ps->pos) != 0)
		return parse_number(ps);
	if (name_start(c))
		return parse_name(ps);
	if (accept(ps, "(")) {
		int r = parse_or(ps);
		if (r < 0 || expect(ps, ")"))
			return -1;
		return r;
	}
	return fail_unexpected(ps, "a number, a name or '('");
}

/* Parses an operand and an optional `^ EXPONENT`; the exponent is a unary expression, so ^ is
 * right-associative and 2^-1 is allowed. Returns the node or -1. */
static int parse_power(struct parser *ps)
{
	int b = parse_primary(ps), pos;
	if (b < 0)
		return -1;
	skip_ws(ps);
	pos = ps->pos;
	if (!accept(ps, "^"))
		return b;
	int ex = parse_unary(ps);
	return ex < 0 ? -1 : mk2(ps, pos, E_POW, b, ex);
}

/* Parses signs and negations before a power, so -x^2 is -(x^2). Every nested expression passes
 * here, so this is where the depth is bounded. Returns the node or -1. */
static int parse_unary(struct parser *ps)
{
	int r, pos;
	skip_ws(ps);
	pos = ps->pos;
	if (ps->nest >= EXPR_MAX_NEST)
		return qx_fail(ps->e,
		               "expression nested too deeply at column %d (at most %d levels)",
		               pos + 1, EXPR_MAX_NEST);
	ps->nest++;
	if (accept(ps, "-")) {
		r = parse_unary(ps);
		r = r < 0 ? -1 : mk2(ps, pos, E_NEG, r, -1);
	} else if (accept(ps, "!")) {
		r = parse_unary(ps);
		r = r < 0 ? -1 : mk2(ps, pos, E_NOT, r, -1);
	} else if (accept(ps, "+")) {
		r = parse_unary(ps);
	} else {
		r = parse_power(ps);
	}
	ps->nest--;
	return r;
}

/* Checks one user name of the scope (what: "parameter" or "variable"): an identifier that is
 * neither taken by the language nor used twice. Returns 0 or -1. */
static int check_name(const struct expr_scope *sc, const char *what, const char *name,
                      struct qx_err *e)
{
	int len;
	const char *taken;
	if (!name || !name[0] || (len = name_len(name)) != (int)strlen(name))
		return qx_fail(e, "%s name '%s' is not a name", what, name ? name : "");
	taken = reserved(sc, name, len);
	if (taken)
		return qx_fail(e, "%s name '%s' is taken by %s", what, name, taken);
	return 0;
}

/* Returns how many of the scope's user names (parameters and extras) equal name. */
static int count_name(const struct expr_scope *sc, const char *name)
{
	int n = 0;
	for (int j = 0; j < sc->nparams; j++)
		n += strcmp(sc->params[j], name) == 0;
	for (int k = 0; k < sc->nextra; k++)
		n += strcmp(sc->extra[k], name) == 0;
	return n;
}

/* Checks the scope: dim in range, every user name valid and used once. Returns 0 or -1. */
static int check_scope(const struct expr_scope *sc, struct qx_err *e)
{
	if (sc->dim < 1 || sc->dim > EXPR_MAX_DIM)
		return qx_fail(e, "dim %d out of range for an expression (1..%d)", sc->dim,
		               EXPR_MAX_DIM);
	if (sc->nparams < 0 || sc->nextra < 0 || (sc->nparams && !sc->params) ||
	    (sc->nextra && !sc->extra))
		return qx_fail(e, "invalid scope for an expression");
	for (int j = 0; j < sc->nparams + sc->nextra; j++) {
		const char *what = j < sc->nparams ? "parameter" : "variable";
		const char *name = j < sc->nparams ? sc->params[j] : sc->extra[j - sc->nparams];
		if (check_name(sc, what, name, e))
			return -1;
		if (count_name(sc, name) > 1)
			return qx_fail(e, "%s name '%s' is used twice", what, name);
	}
	return 0;
}

/* Returns a malloc'd array of copies of the n strings of names, NULL when out of memory (or
 * when n is 0, which callers tell apart). */
static char **copy_names(const char *const *names, int n)
{
	char **c;
	if (n == 0)
		return NULL;
	c = calloc((size_t)n, sizeof *c);
	for (int i = 0; c && i < n; i++)
		if (!(c[i] = strdup(names[i]))) {
			for (int k = 0; k < i; k++)
				free(c[k]);
			free(c);
			c = NULL;
		}
	return c;
}

int expr_parse(const char *text, const struct expr_scope *scope, struct expr **out,
               struct qx_err *e)
{
	struct parser ps;
	struct expr *x;
	size_t len;
	*out = NULL;
	if (!text || !scope)
		return qx_fail(e, "no expression");
	if (check_scope(scope, e))
		return -1;
	len = strnlen(text, EXPR_MAX_LEN + 1);
	if (len > EXPR_MAX_LEN)
		return qx_fail(e, "expression too long: %zu bytes, at most %d", strlen(text),
		               EXPR_MAX_LEN);
	memset(&ps, 0, sizeof ps);
	ps.s = text;
	ps.sc = scope;
	ps.e = e;
	if (!skip_ws(&ps))
		return qx_fail(e, "empty expression at column 1");
	x = calloc(1, sizeof *x);
	if (!x)
		return qx_fail(e, "out of memory parsing the expression");
	x->dim = scope->dim;
	x->nparams = scope->nparams;
	x->nextra = scope->nextra;
	x->params = copy_names(scope->params, scope->nparams);
	x->extra = copy_names(scope->extra, scope->nextra);
	if ((scope->nparams && !x->params) || (scope->nextra && !x->extra)) {
		expr_free(x);
		return qx_fail(e, "out of memory parsing the expression");
	}
	ps.x = x;
	x->root = parse_or(&ps);
	if (x->root >= 0 && skip_ws(&ps))
		x->root = fail_unexpected(&ps, "an operator or the end");
	if (x->root < 0) {
		expr_free(x);
		return -1;
	}
	*out = x;
	return 0;
}

void expr_free(struct expr *x)
{
	if (!x)
		return;
	for (int j = 0; x->params && j < x->nparams; j++)
		free(x->params[j]);
	for (int k = 0; x->extra && k < x->nextra; k++)
		free(x->extra[k]);
	free(x->params);
	free(x->extra);
	free(x->n);
	free(x);
}

int expr_uses_param(const struct expr *x, int j)
{
	for (int i = 0; i < x->count; i++)
		if (x->n[i].op == E_PARAM && x->n[i].ix == j)
			return 1;
	return 0;
}

int expr_name_free(const struct expr *x, const char *w)
{
	const struct expr_scope sc = {x->dim, (const char *const *)x->params, x->nparams,
	                              (const char *const *)x->extra, x->nextra};
	int len = (int)strlen(w);
	return !reserved(&sc, w, len) && find_name(sc.params, sc.nparams, w, len) < 0 &&
	       find_name(sc.extra, sc.nextra, w, len) < 0;
}

int expr_dim(const struct expr *x)
{
	return x->dim;
}
