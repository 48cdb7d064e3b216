/* range.c - interval arithmetic over a checked tree: the range a node's value can take when the
 * point's coordinates and the parameters lie in given intervals. The emitter asks it whether a
 * cosine's or sine's argument stays where the branch-free reduced functions are exact. */
#include "tree.h"

#include <math.h>
#include <string.h>

/* An interval; lo = -inf, hi = inf is "unknown". */
struct iv {
	double lo, hi;
};

static const struct iv iv_all = {-INFINITY, INFINITY};

/* [lo, hi], or unknown when either is NaN (inf - inf, 0 * inf). */
static struct iv iv_of(double lo, double hi)
{
	if (isnan(lo) || isnan(hi))
		return iv_all;
	return (struct iv){lo, hi};
}

/* The hull of a and b. */
static struct iv iv_hull(struct iv a, struct iv b)
{
	return (struct iv){fmin(a.lo, b.lo), fmax(a.hi, b.hi)};
}

static struct iv iv_mul(struct iv a, struct iv b)
{
	const double p[4] = {a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi};
	struct iv r = {INFINITY, -INFINITY};
	for (int k = 0; k < 4; k++) {
		if (isnan(p[k]))
			return iv_all;
		r.lo = fmin(r.lo, p[k]);
		r.hi = fmax(r.hi, p[k]);
	}
	return r;
}

/* a / b; unknown when b may be 0. */
static struct iv iv_div(struct iv a, struct iv b)
{
	if (b.lo <= 0 && b.hi >= 0)
		return iv_all;
	return iv_mul(a, (struct iv){1 / b.hi, 1 / b.lo});
}

/* f(a) for f nondecreasing on a's interval. */
static struct iv iv_rising(double (*f)(double), struct iv a)
{
	return iv_of(f(a.lo), f(a.hi));
}

/* The range of |v| for v in a. */
static struct iv iv_abs(struct iv a)
{
	if (a.lo >= 0)
		return a;
	if (a.hi <= 0)
		return (struct iv){-a.hi, -a.lo};
	return (struct iv){0, fmax(-a.lo, a.hi)};
}

static struct iv node_range(const struct expr *x, int i, const struct expr_ranges *r);

/* The range of a call of function fn on the ranges of its arguments a[0..]. */
static struct iv call_range(const char *fn, const struct iv *a)
{
	static const struct {
		const char *name;
		double lo, hi;
	} bounded[] = {{"sin", -1, 1},        {"cos", -1, 1},
	               {"tanh", -1, 1},       {"erf", -1, 1},
	               {"erfc", 0, 2},        {"asin", -M_PI_2, M_PI_2},
	               {"acos", 0, M_PI},     {"atan", -M_PI_2, M_PI_2},
	               {"atan2", -M_PI, M_PI}};
	for (size_t k = 0; k < sizeof bounded / sizeof bounded[0]; k++)
		if (!strcmp(fn, bounded[k].name))
			return (struct iv){bounded[k].lo, bounded[k].hi};
	if (!strcmp(fn, "exp"))
		return iv_rising(exp, a[0]);
	if (!strcmp(fn, "expm1"))
		return iv_rising(expm1, a[0]);
	if (!strcmp(fn, "sinh"))
		return iv_rising(sinh, a[0]);
	if (!strcmp(fn, "cbrt"))
		return iv_rising(cbrt, a[0]);
	if (!strcmp(fn, "floor"))
		return iv_rising(floor, a[0]);
	if (!strcmp(fn, "log") && a[0].lo > 0)
		return iv_rising(log, a[0]);
	if (!strcmp(fn, "log1p") && a[0].lo > -1)
		return iv_rising(log1p, a[0]);
	if (!strcmp(fn, "sqrt") && a[0].hi >= 0)
		return iv_rising(sqrt, (struct iv){fmax(a[0].lo, 0), a[0].hi});
	if (!strcmp(fn, "abs"))
		return iv_abs(a[0]);
	if (!strcmp(fn, "cosh"))
		return iv_rising(cosh, iv_abs(a[0]));
	if (!strcmp(fn, "min"))
		return (struct iv){fmin(a[0].lo, a[1].lo), fmin(a[0].hi, a[1].hi)};
	if (!strcmp(fn, "max"))
		return (struct iv){fmax(a[0].lo, a[1].lo), fmax(a[0].hi, a[1].hi)};
	return iv_all; /* tan, pow, tgamma, lgamma; log and the like near their poles */
}

/* b^n for the constant n: an integer |n| <= 64 as repeated products (a wider interval than
 * the true one where b spans 0, never a narrower), 0.5 as the square root, else unknown. */
static struct iv pow_range(struct iv b, double n)
{
	if (n == 0.5 && b.hi >= 0)
		return iv_rising(sqrt, (struct iv){fmax(b.lo, 0), b.hi});
	if (n != floor(n) || fabs(n) > 64)
		return iv_all;
	struct iv p = {1, 1};
	for (int k = 0; k < (int)fabs(n); k++)
		p = iv_mul(p, b);
	return n < 0 ? iv_div((struct iv){1, 1}, p) : p;
}

/* The range of node i's value; never narrower than the true one (up to the rounding of the
 * evaluation, which the caller allows for). */
static struct iv node_range(const struct expr *x, int i, const struct expr_ranges *r)
{
	const struct expr_node *nd = &x->n[i];
	struct iv a, b, args[3];
	switch (nd->op) {
	case E_NUM:
		return (struct iv){nd->num, nd->num};
	case E_CONST:
		return nd->ix ? (struct iv){M_E, M_E} : (struct iv){M_PI, M_PI};
	case E_VAR:
		if (r && nd->ix < r->nvars)
			return iv_of(r->lo[nd->ix], r->hi[nd->ix]);
		return iv_all;
	case E_PARAM:
		if (r && nd->ix < r->nparams)
			return iv_of(r->param[nd->ix], r->param[nd->ix]);
		return iv_all;
	case E_INDEX:
		return (struct iv){1, x->dim};
	case E_XI:
		if (!r || r->nvars < x->dim || x->dim < 1)
			return iv_all;
		a = iv_of(r->lo[0], r->hi[0]);
		for (int k = 1; k < x->dim; k++)
			a = iv_hull(a, iv_of(r->lo[k], r->hi[k]));
		return a;
	case E_NEG:
		a = node_range(x, nd->a[0], r);
		return (struct iv){-a.hi, -a.lo};
	case E_ADD:
	case E_SUB:
		a = node_range(x, nd->a[0], r);
		b = node_range(x, nd->a[1], r);
		return nd->op == E_ADD ? iv_of(a.lo + b.lo, a.hi + b.hi)
		                       : iv_of(a.lo - b.hi, a.hi - b.lo);
	case E_MUL:
		return iv_mul(node_range(x, nd->a[0], r), node_range(x, nd->a[1], r));
	case E_DIV:
		return iv_div(node_range(x, nd->a[0], r), node_range(x, nd->a[1], r));
	case E_POW:
		b = node_range(x, nd->a[1], r);
		if (b.lo != b.hi)
			return iv_all;
		return pow_range(node_range(x, nd->a[0], r), b.lo);
	case E_CALL:
		for (int k = 0; k < nd->nargs && k < 3; k++)
			args[k] = node_range(x, nd->a[k], r);
		return call_range(expr_fns[nd->fn].name, args);
	case E_IF:
		return iv_hull(node_range(x, nd->a[1], r), node_range(x, nd->a[2], r));
	case E_SUM:
		return iv_mul(node_range(x, nd->a[0], r), (struct iv){x->dim, x->dim});
	case E_PROD:
		a = node_range(x, nd->a[0], r);
		b = (struct iv){1, 1};
		for (int k = 0; k < x->dim; k++)
			b = iv_mul(b, a);
		return b;
	default: /* comparisons, logic, not: 0 or 1 */
		return (struct iv){0, 1};
	}
}

double expr_node_bound(const struct expr *x, int i, const struct expr_ranges *r)
{
	const struct iv v = node_range(x, i, r);
	return fmax(fabs(v.lo), fabs(v.hi));
}
