/* test_longman.c - problem longman on the CPU: Longman's method against the values of
 * tests/data/longman_ref.csv (closed forms checked by mpmath's quadosc, made by
 * tests/gen_longman_ref.py) on both sides of q = 1/3, for cos, sin and J0, a != 0, double and
 * float; the remainder estimate; the batch run, GSL's QAWF and the validation of bad input; an
 * expression amplitude compiled by the system C compiler: e^{-lambda x} written out agrees with
 * the built-in one, and 1/(1+x^2) with cos, whose integral is (pi/2) e^{-omega}, stays within
 * its remainder estimate with GSL's QAWF as the reference. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <gsl/gsl_integration.h>

#include "../../src/problem.h"

extern const struct problem longman_problem;
static const struct problem *const P = &longman_problem;

struct ref_point {
	char integrand[8];
	double lam, om, a;
	long double value;
};

static struct ref_point refs[64];
static size_t nrefs;

/* Loads the reference file once; fails the group if it is missing or malformed. */
static int load_refs(void **state)
{
	FILE *f = fopen("tests/data/longman_ref.csv", "r");
	char line[256];
	(void)state;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		struct ref_point *r = &refs[nrefs];
		if (line[0] == '#' || !strncmp(line, "integrand", 9))
			continue;
		if (nrefs == sizeof refs / sizeof refs[0] ||
		    sscanf(line, "%7[^,],%lf,%lf,%lf,%Lf", r->integrand, &r->lam, &r->om, &r->a,
		           &r->value) != 5)
			return -1;
		nrefs++;
	}
	fclose(f);
	return nrefs >= 20 ? 0 : -1;
}

/* Index of parameter name in the problem's table (fails the test when absent). */
static int pidx(const char *name)
{
	for (size_t k = 0; k < P->nparams; k++)
		if (!strcmp(P->params[k].name, name))
			return (int)k;
	fail_msg("no parameter %s", name);
	return -1;
}

/* The texts of the expressions setp parses (freed after the group). */
static struct param_store *texts;

/* Frees the texts of the group's expressions. */
static int free_texts(void **state)
{
	(void)state;
	param_store_free(texts);
	return 0;
}

/* Default parameters with NAME VALUE words applied through the parser; returns check(). */
static int setp(struct param_value *v, struct qx_err *e, const char *const *words)
{
	if (!texts)
		assert_non_null(texts = param_store_new());
	for (size_t k = 0; k < P->nparams; k++)
		v[k] = param_default(&P->params[k]);
	for (; words && *words; words += 2) {
		int k = pidx(words[0]);
		if (param_parse_in(texts, &P->params[k], words[1], &v[k], e))
			return -1;
	}
	struct user_defs u;
	user_defs_init(&u);
	return P->check(v, NULL, e) || P->user_integrand(v, &u, e) ? -1 : 0;
}

/* Rounding allowance for one integral: units of precision prec, times the conditioning of
 * f(omega x) at a rounded x (1 + omega x at the last zero), times the size of the summed
 * terms, (N+1) half-cycles of height up to e^{-lambda a} and width pi/omega. */
static double round_tol(enum qx_precision prec, int n, double lam, double om, double a)
{
	const double eps = prec == QX_DOUBLE ? 0x1p-53 : 0x1p-24;
	return 4 * eps * (1 + om * fabs(a) + (n + 2) * M_PI) * (n + 1) * 2 / om * exp(-lam * a);
}

/* Evaluates one integral on the CPU; returns value, fills exact and bound. */
static double eval1(const struct param_value *v, enum qx_precision prec, double lam, double om,
                    double *exact, double *bound)
{
	struct eval_result r = {0};
	struct qx_err e;
	const double args[2] = {lam, om};
	if (P->eval(args, v, NULL, NULL, QX_CPU, prec, &r, &e))
		fail_msg("eval %g %g: %s", lam, om, e.msg);
	assert_int_equal(r.nfigures, 3);
	assert_string_equal(r.figure[0].name, "exact");
	assert_string_equal(r.figure[1].name, "bound");
	*exact = r.figure[0].value;
	*bound = r.figure[1].value;
	return r.value;
}

/* The parameters for one reference point: its integrand and a, with method m and N, g. */
static void point_params(const struct ref_point *r, const char *method, const char *n,
                         const char *g, struct param_value *v)
{
	char a[32];
	struct qx_err e;
	snprintf(a, sizeof a, "%.17g", r->a);
	const char *words[] = {"integrand", r->integrand, "a", a,        "method", method, "N",
	                       n,           "g",          g,   "lambda", "1",      NULL};
	if (setp(v, &e, words))
		fail_msg("params: %s", e.msg);
}

/* eval of reference point r with method auto, N = 16, g = 10 in precision p; its exact value
 * and error bound into *exact and *bound. */
static double eval_auto(const struct ref_point *r, enum qx_precision p, double *exact,
                        double *bound)
{
	struct param_value v[QX_MAX_PARAMS];
	point_params(r, "auto", "16", "10", v);
	return eval1(v, p, r->lam, r->om, exact, bound);
}

/* Double, method auto, N = 16, g = 10: the exact value of eval agrees with mpmath to 1e-15,
 * the error is within the remainder estimate plus rounding, and cos/sin are within 1e-12
 * relative (J0 converges algebraically at lambda = 0: there only the estimate is checked). */
static void test_double_auto(void **state)
{
	(void)state;
	for (size_t i = 0; i < nrefs; i++) {
		const struct ref_point *r = &refs[i];
		double exact, bound;
		const double val = eval_auto(r, QX_DOUBLE, &exact, &bound);
		const double ref = (double)r->value, err = fabs(val - ref);
		if (fabs(exact - ref) > 1e-15 * fabs(ref))
			fail_msg("%s %g %g: exact %.17g, mpmath %.17g", r->integrand, r->lam, r->om,
			         exact, ref);
		if (err > bound + round_tol(QX_DOUBLE, 16, r->lam, r->om, r->a))
			fail_msg("%s lambda %g omega %g a %g: error %.3g over the estimate %.3g",
			         r->integrand, r->lam, r->om, r->a, err, bound);
		if (strcmp(r->integrand, "j0") && err > 1e-12 * fabs(ref))
			fail_msg("%s lambda %g omega %g a %g: value %.17g, mpmath %.17g",
			         r->integrand, r->lam, r->om, r->a, val, ref);
	}
}

/* Float, method auto: within the estimate plus float rounding of the summed terms (the
 * cancellation Longman's sum goes through). */
static void test_float_auto(void **state)
{
	(void)state;
	for (size_t i = 0; i < nrefs; i++) {
		const struct ref_point *r = &refs[i];
		double exact, bound;
		const double val = eval_auto(r, QX_FLOAT, &exact, &bound);
		const double err = fabs(val - (double)r->value);
		if (err > bound + round_tol(QX_FLOAT, 16, r->lam, r->om, r->a))
			fail_msg("float %s lambda %g omega %g a %g: value %.9g, mpmath %.9Lg",
			         r->integrand, r->lam, r->om, r->a, val, r->value);
	}
}

/* With few areas (N = 6), the Euler transform beats the plain sum where q > 1/3 and the plain
 * sum is at least as good where q < 1/3; auto takes the better one on both sides. */
static void test_regimes(void **state)
{
	static const struct {
		const char *f;
		double lam, om;
	} pts[] = {{"cos", 0.05, 5.0}, {"sin", 0.5, 10.0}, {"cos", 3.0, 2.0}, {"sin", 2.0, 0.8}};
	(void)state;
	for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
		struct ref_point r = {"", pts[i].lam, pts[i].om, 0, 0};
		struct param_value v[QX_MAX_PARAMS];
		double err[3], exact, bound;
		const char *methods[3] = {"euler", "direct", "auto"};
		const int euler_side = exp(-pts[i].lam * M_PI / pts[i].om) > 1.0 / 3;
		snprintf(r.integrand, sizeof r.integrand, "%s", pts[i].f);
		for (int m = 0; m < 3; m++) {
			point_params(&r, methods[m], "6", "12", v);
			err[m] = fabs(eval1(v, QX_DOUBLE, r.lam, r.om, &exact, &bound) - exact);
			if (err[m] > bound + 1e-15)
				fail_msg("%s %g %g %s: error %.3g over estimate %.3g", r.integrand,
				         r.lam, r.om, methods[m], err[m], bound);
		}
		if (euler_side) {
			assert_true(err[0] < 1e-3 * err[1]);
			assert_true(err[2] == err[0]);
		} else {
			assert_true(err[1] <= err[0] + 1e-17);
			assert_true(err[2] == err[1]);
		}
	}
}

/* e^{-lambda x} cos(omega x) or sin (params[2] = 1) for GSL, params = {lambda, omega, sin}. */
static double damped_osc(double x, void *params)
{
	const double *q = params;
	return exp(-q[0] * x) * (q[2] ? sin(q[1] * x) : cos(q[1] * x));
}

/* The remainder estimate from the definition, independently of the problem: the N+1 areas
 * after the first zero by GSL's fixed Gauss-Legendre rule of order g, the difference table of
 * V_j = (-1)^j A_j, and 2^{-N} |Delta^N V_0| (euler) or |V_N| (direct). */
static double bound_by_table(int sine, double lam, double om, double a, int n, int g, int euler,
                             double *v0)
{
	double params[3] = {lam, om, sine}, v[64];
	gsl_function fn = {damped_osc, params};
	gsl_integration_glfixed_table *tab = gsl_integration_glfixed_table_alloc((size_t)g);
	const double shift = sine ? 0 : M_PI / 2;
	const double x1 = (floor((om * a - shift) / M_PI) + 1) * M_PI + shift;
	assert_non_null(tab);
	for (int j = 0; j <= n; j++) {
		const double lo = (x1 + j * M_PI) / om, hi = (x1 + (j + 1) * M_PI) / om;
		v[j] = (j & 1 ? -1 : 1) * gsl_integration_glfixed(&fn, lo, hi, tab);
	}
	gsl_integration_glfixed_table_free(tab);
	*v0 = fabs(v[0]);
	if (!euler)
		return fabs(v[n]);
	for (int r = 0; r < n; r++)
		for (int j = 0; j < n - r; j++)
			v[j] = v[j + 1] - v[j];
	return ldexp(fabs(v[0]), -n);
}

/* The estimate eval reports for cos and sin (from the first area and q alone) equals the one
 * from the difference table of all N+1 areas, for euler and direct, on both sides of
 * q = 1/3 and with a != 0, to 1e-9 relative plus the table's own rounding (about eps V_0
 * after the division by 2^N); N = 8 keeps the estimates far above that rounding. */
static void test_bound_closed_form(void **state)
{
	static const struct {
		const char *f, *method;
		double lam, om, a;
	} pts[] = {{"cos", "euler", 1.1, 5.0, 0},    {"cos", "euler", 0.5, 10.0, 0.3},
	           {"sin", "euler", 1.0, 3.0, 1.7},  {"sin", "euler", 3.0, 2.0, 0},
	           {"cos", "direct", 2.0, 1.5, 0.2}, {"sin", "direct", 0.3, 4.0, 2.5},
	           {"cos", "direct", 0.02, 9.0, 0}};
	(void)state;
	for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
		struct ref_point r = {"", pts[i].lam, pts[i].om, pts[i].a, 0};
		struct param_value v[QX_MAX_PARAMS];
		double exact, bound, v0;
		snprintf(r.integrand, sizeof r.integrand, "%s", pts[i].f);
		point_params(&r, pts[i].method, "8", "10", v);
		eval1(v, QX_DOUBLE, r.lam, r.om, &exact, &bound);
		const double want = bound_by_table(!strcmp(r.integrand, "sin"), r.lam, r.om, r.a, 8,
		                                   10, !strcmp(pts[i].method, "euler"), &v0);
		if (!(fabs(bound - want) <= 1e-9 * want + 1e-15 * v0))
			fail_msg("%s %s lambda %g omega %g a %g: estimate %.17g, table %.17g",
			         r.integrand, pts[i].method, r.lam, r.om, r.a, bound, want);
	}
}

/* A batch on a grid: M = 12 integrals over both ranges, values in double and float as eval
 * gives them, point() names (lambda, omega, bound), the extras count euler and direct, and no
 * integral exceeds its estimate; with g = 3 the quadrature error, which the estimate does not
 * cover, shows as integrals over it. */
static void test_batch(void **state)
{
	const char *words[] = {"M", "12", "lambda", "0.1:3", "omega", "3:9", NULL};
	struct param_value v[QX_MAX_PARAMS];
	struct qx_err e;
	double out[12], ref[12];
	float outf[12];
	struct run_request rq = {v, NULL, QX_DOUBLE, 0, 256, 2, NULL, NULL, 1, NULL};
	struct run_output o = {.values = out}, of = {.values = outf};
	const struct qx_figure *ex = o.figure;
	(void)state;
	assert_int_equal(setp(v, &e, words), 0);
	assert_int_equal(P->count(v, NULL, NULL), 12);
	assert_int_equal(P->run_cpu(&rq, &o, &e), 0);
	assert_int_equal(P->reference(v, NULL, NULL, 2, NULL, 12, ref, &e), 0);
	for (size_t i = 0; i < 12; i++) {
		const char *names[4];
		double c[4], exact, bound;
		assert_int_equal(P->point(v, NULL, NULL, i, names, c, 4), 3);
		assert_string_equal(names[0], "lambda");
		assert_string_equal(names[2], "bound");
		assert_true(c[0] >= 0.1 && c[0] <= 3 && c[1] >= 3 && c[1] <= 9);
		assert_true(out[i] == eval1(v, QX_DOUBLE, c[0], c[1], &exact, &bound));
		assert_true(ref[i] == exact && c[2] == bound);
	}
	P->add_figures(&rq, ref, &o);
	assert_int_equal(o.nfigures, 4);
	assert_string_equal(ex[1].name, "over_bound");
	assert_true(ex[1].value == 0);
	assert_true(ex[2].value > 0 && ex[3].value > 0 && ex[2].value + ex[3].value == 12);
	rq.prec = QX_FLOAT;
	assert_int_equal(P->run_cpu(&rq, &of, &e), 0);
	ex = of.figure;
	P->add_figures(&rq, ref, &of);
	assert_int_equal(of.nfigures, 4);
	assert_true(ex[1].value == 0);
	rq.prec = QX_DOUBLE;
	v[pidx("g")].num = 3;
	o = (struct run_output){.values = out};
	ex = o.figure;
	assert_int_equal(P->run_cpu(&rq, &o, &e), 0);
	P->add_figures(&rq, ref, &o);
	assert_int_equal(o.nfigures, 4);
	assert_true(ex[1].value >= 6);
}

/* Random spread: reproducible from the seed, inside the ranges, different for another seed. */
static void test_random_spread(void **state)
{
	const char *w1[] = {"M", "50", "spread", "random", "seed", "7", NULL};
	const char *w2[] = {"M", "50", "spread", "random", "seed", "8", NULL};
	struct param_value v[QX_MAX_PARAMS];
	struct qx_err e;
	const char *names[4];
	double c1[4], c2[4], c3[4];
	int differ = 0;
	(void)state;
	for (size_t i = 0; i < 50; i++) {
		assert_int_equal(setp(v, &e, w1), 0);
		P->point(v, NULL, NULL, i, names, c1, 4);
		assert_true(c1[0] >= 0.05 && c1[0] <= 0.5 && c1[1] >= 5 && c1[1] <= 15);
		assert_int_equal(setp(v, &e, w2), 0);
		P->point(v, NULL, NULL, i, names, c2, 4);
		differ += c1[0] != c2[0];
		assert_int_equal(setp(v, &e, w1), 0); /* the same seed again: the same point */
		P->point(v, NULL, NULL, i, names, c3, 4);
		assert_true(c3[0] == c1[0] && c3[1] == c1[1]);
	}
	assert_true(differ > 45);
}

/* GSL's QAWF agrees with the exact values; it refuses float and j0 with a clear message. */
static void test_qawf(void **state)
{
	const char *words[] = {"M", "9",   "lambda",    "0.1:2", "omega", "0.5:20",
	                       "a", "0.7", "integrand", "sin",   NULL};
	struct param_value v[QX_MAX_PARAMS];
	struct qx_err e;
	double out[9], ref[9];
	struct run_request rq = {v, NULL, QX_DOUBLE, 2, 256, 2, NULL, NULL, 1, NULL};
	struct run_output o = {.values = out};
	(void)state;
	assert_string_equal(P->variants[rq.variant].name, "qawf");
	assert_int_equal(setp(v, &e, words), 0);
	assert_int_equal(P->run_cpu(&rq, &o, &e), 0);
	assert_int_equal(P->reference(v, NULL, NULL, 1, NULL, 9, ref, &e), 0);
	for (int i = 0; i < 9; i++)
		assert_true(fabs(out[i] - ref[i]) < 1e-10);
	rq.prec = QX_FLOAT;
	assert_int_equal(P->run_cpu(&rq, &o, &e), -1);
	assert_non_null(strstr(e.msg, "double only"));
	rq.prec = QX_DOUBLE;
	v[pidx("integrand")].num = 2;
	v[pidx("a")].num = 0;
	assert_int_equal(P->run_cpu(&rq, &o, &e), -1);
	assert_non_null(strstr(e.msg, "j0"));
}

/* Bad input is refused by the parameter table or check(), naming the problem. */
static void test_validation(void **state)
{
	static const struct {
		const char *name, *value, *msg;
	} bad[] = {
	    {"lambda", "-0.1", "lambda"},
	    {"lambda", "0.5:0.05", "reversed"},
	    {"omega", "0", "omega"},
	    {"omega", "-3:4", "omega"},
	    {"omega", "1e-7:4", "1e-06"},
	    {"lambda", "0.1:41", "must be <= 8 omega"},
	    {"a", "-200", "lambda |a| must be <= 80"},
	    {"N", "1", "N"},
	    {"g", "0", "g"},
	    {"g", "129", "g"},
	    {"M", "0", "M"},
	    {"method", "best", "euler"},
	    {"integrand", "tan", "'(' expected at column 4"},
	    {"integrand", "q*x", "unknown name 'q' at column 1: the variables are x1, lambda"},
	    {"integrand", "exp(x,1)", "exp takes 1 argument, got 2"},
	    {"trig", "tan", "cos"},
	    {"lanes", "3", "power of two"},
	    {"lanes", "64", "lanes"},
	};
	struct param_value v[QX_MAX_PARAMS];
	struct qx_err e;
	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		const char *words[] = {bad[i].name, bad[i].value, NULL};
		assert_int_equal(setp(v, &e, words), -1);
		if (!strstr(e.msg, bad[i].msg))
			fail_msg("set %s %s: '%s'", bad[i].name, bad[i].value, e.msg);
	}
	const char *cos0[] = {"lambda", "0:1", NULL};
	assert_int_equal(setp(v, &e, cos0), -1);
	assert_non_null(strstr(e.msg, "lambda must be > 0"));
	const char *sin0[] = {"integrand", "sin", "lambda", "0", NULL};
	assert_int_equal(setp(v, &e, sin0), -1);
	const char *j0ok[] = {"integrand", "j0", "lambda", "0", NULL};
	assert_int_equal(setp(v, &e, j0ok), 0);
	const char *j0a[] = {"integrand", "j0", "a", "1", NULL};
	assert_int_equal(setp(v, &e, j0a), -1);
	assert_non_null(strstr(e.msg, "a = 0"));
	const double args[2] = {0, 3};
	struct eval_result r;
	assert_int_equal(setp(v, &e, NULL), 0);
	assert_int_equal(P->eval(args, v, NULL, NULL, QX_CPU, QX_DOUBLE, &r, &e), -1);
	assert_non_null(strstr(e.msg, "lambda must be > 0"));
}

/* An expression amplitude: "exp(-lambda*x)" with trig cos, sin and j0 equals the built-in
 * integrand to 1e-15 (double) and 1e-6 (float); 1/(1+x^2) with cos for omega 0.3..12, N 8 and
 * 16: the value within its bound of (pi/2) e^{-omega}, QAWF's value within 1e-14 of it with its
 * error estimate reported; trig j0 has no reference (NaN, never 0); trig applies to an
 * expression only and math to the built-in integrands only. */
static void test_user_amplitude(void **state)
{
	static const char *const trig[] = {"cos", "sin", "j0"};
	struct param_value v[QX_MAX_PARAMS], w[QX_MAX_PARAMS];
	struct eval_result r, b;
	struct user_defs u;
	struct qx_err e;
	(void)state;
	user_defs_init(&u);
	for (int f = 0; f < 3; f++) {
		const char *user[] = {"integrand", "exp(-lambda*x)", "trig", trig[f], NULL};
		const char *builtin[] = {"integrand", trig[f], NULL};
		assert_int_equal(setp(v, &e, user), 0);
		assert_int_equal(setp(w, &e, builtin), 0);
		for (int q = 0; q < 2; q++) {
			const enum qx_precision prec = q ? QX_DOUBLE : QX_FLOAT;
			const double args[2] = {0.7, 2.5};
			if (P->eval(args, v, NULL, &u, QX_CPU, prec, &r, &e) ||
			    P->eval(args, w, NULL, &u, QX_CPU, prec, &b, &e))
				fail_msg("%s: %s", trig[f], e.msg);
			assert_true(fabs(r.value - b.value) <= (q ? 1e-15 : 1e-6));
			assert_string_equal(r.figure[0].name, "reference");
			if (f == 2) { /* QAWF takes cos and sin only: no reference */
				assert_true(isnan(r.figure[0].value) && isnan(r.figure[3].value));
			} else {
				assert_true(fabs(r.figure[0].value - b.figure[0].value) < 1e-14);
				assert_true(r.figure[1].value > 0 && r.figure[1].value < 1e-10);
			}
		}
	}
	assert_non_null(P->param_unused(w, (size_t)pidx("trig")));
	assert_null(P->param_unused(w, (size_t)pidx("math")));
	assert_null(P->param_unused(v, (size_t)pidx("trig")));
	assert_non_null(P->param_unused(v, (size_t)pidx("math")));
	for (int n = 8; n <= 16; n += 8) {
		char nw[8];
		snprintf(nw, sizeof nw, "%d", n);
		const char *words[] = {"integrand", "1/(1+x^2)", "lambda", "0", "N", nw, NULL};
		assert_int_equal(setp(v, &e, words), 0);
		for (double om = 0.3; om <= 12; om += 0.35) {
			const double args[2] = {0, om}, exact = M_PI / 2 * exp(-om);
			if (P->eval(args, v, NULL, &u, QX_CPU, QX_DOUBLE, &r, &e))
				fail_msg("omega %g: %s", om, e.msg);
			assert_string_equal(r.figure[2].name, "bound");
			if (!(fabs(r.value - exact) <= r.figure[2].value))
				fail_msg("N %d omega %g: error %g over the bound %g", n, om,
				         fabs(r.value - exact), r.figure[2].value);
			assert_true(fabs(r.figure[0].value - exact) <= 1e-14);
		}
	}
}

/* gpu_block: packed launches the block setting when it is whole warps in 32..256 and refuses
 * every other one naming the limit; block launches N+1 rounded up to a warp whatever the
 * setting; the CPU-only qawf passes the setting through. */
static void test_launch_block(void **state)
{
	static const int refused[] = {1, 16, 31, 33, 100, 255, 257, 288, 512, 1000, 1024};
	static const struct {
		const char *n;
		int threads;
	} block_layout[] = {{"2", 32},    {"16", 32},     {"31", 32},    {"32", 64},
	                    {"100", 128}, {"1023", 1024}, {"1024", 1056}};
	struct param_value v[QX_MAX_PARAMS];
	struct qx_err e;
	struct run_request rq = {v, NULL, QX_FLOAT, 0, 256, 1, NULL, NULL, 1, NULL};
	(void)state;
	assert_string_equal(P->variants[0].name, "packed");
	assert_string_equal(P->variants[1].name, "block");
	assert_string_equal(P->variants[2].name, "qawf");
	assert_int_equal(setp(v, &e, NULL), 0);
	for (int b = 32; b <= 256; b += 32) {
		rq.block = b;
		assert_int_equal(P->gpu_block(&rq, &e), b);
	}
	for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
		rq.block = refused[i];
		strcpy(e.msg, "");
		assert_int_equal(P->gpu_block(&rq, &e), -1);
		char word[32];
		snprintf(word, sizeof word, "bad block %d ", refused[i]);
		if (!strstr(e.msg, word) || !strstr(e.msg, "multiple of 32 in 32..256"))
			fail_msg("block %d: '%s'", refused[i], e.msg);
	}
	rq.variant = 1;
	for (size_t i = 0; i < sizeof block_layout / sizeof block_layout[0]; i++) {
		const char *words[] = {"N", block_layout[i].n, NULL};
		assert_int_equal(setp(v, &e, words), 0);
		for (int b = 1; b <= 1024; b *= 4) {
			rq.block = b;
			assert_int_equal(P->gpu_block(&rq, &e), block_layout[i].threads);
		}
	}
	rq.variant = 2;
	rq.block = 1000;
	assert_int_equal(P->gpu_block(&rq, &e), 1000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_double_auto),  cmocka_unit_test(test_float_auto),
	    cmocka_unit_test(test_regimes),      cmocka_unit_test(test_bound_closed_form),
	    cmocka_unit_test(test_batch),        cmocka_unit_test(test_random_spread),
	    cmocka_unit_test(test_qawf),         cmocka_unit_test(test_validation),
	    cmocka_unit_test(test_launch_block), cmocka_unit_test(test_user_amplitude),
	};
	return cmocka_run_group_tests(tests, load_refs, free_texts);
}
