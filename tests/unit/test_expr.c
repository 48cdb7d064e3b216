/* test_expr.c - the expression language of user integrands: grammar, precedence, errors and
 * limits, the canonical text, the emitted source, and the compiled CPU functions checked against
 * the same formulas computed here with the C math library. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../src/expr/expr.h"

static const char *const params_kw[] = {"k", "w"};
static const char *const extra_lambda[] = {"lambda"};
/* dim 3 with parameters k, w: the scope of most tests. */
static const struct expr_scope sc3 = {3, params_kw, 2, NULL, 0};

/* An expression in a scope and the text it should give (its canonical form, or its error). */
struct text_case {
	const struct expr_scope *sc;
	const char *text, *want;
};

/* Parses text in sc, failing the test (with the message) when it is refused. */
static struct expr *must_parse(const struct expr_scope *sc, const char *text)
{
	struct expr *x = NULL;
	struct qx_err e = {""};
	if (expr_parse(text, sc, &x, &e)) {
		fprintf(stderr, "'%s' refused: %s\n", text, e.msg);
		fail();
	}
	assert_non_null(x);
	return x;
}

/* Checks that text parses in sc and prints canonically as want. */
static void canon_is(const struct expr_scope *sc, const char *text, const char *want)
{
	struct expr *x = must_parse(sc, text);
	char buf[EXPR_MAX_LEN * 4];
	assert_int_equal(expr_canonical(x, buf, sizeof buf), 0);
	if (strcmp(buf, want) != 0)
		fprintf(stderr, "'%s' printed as '%s', expected '%s'\n", text, buf, want);
	assert_string_equal(buf, want);
	expr_free(x);
}

/* Checks that text is refused in sc with exactly the message want. */
static void error_is(const struct expr_scope *sc, const char *text, const char *want)
{
	struct expr *x = (struct expr *)&x;
	struct qx_err e = {""};
	assert_int_equal(expr_parse(text, sc, &x, &e), -1);
	assert_null(x);
	if (strcmp(e.msg, want) != 0)
		fprintf(stderr, "'%.60s' gave '%s', expected '%s'\n", text, e.msg, want);
	assert_string_equal(e.msg, want);
}

/* Compiles text in sc with cache c and evaluates it at pt (parameters p) in double; the float
 * function's value at the same point rounded to float goes into *fval when fval is not NULL. */
static double eval_in(struct expr_jit_cache *c, const struct expr_scope *sc, const char *text,
                      const double *pt, const double *p, float *fval)
{
	struct expr *x = must_parse(sc, text);
	struct expr_cpu_fn fn;
	struct qx_err e = {""};
	float ptf[64];
	int n = sc->dim + sc->nextra;
	if (expr_cpu_compile(c, x, &fn, &e)) {
		fprintf(stderr, "'%s' not compiled: %s\n", text, e.msg);
		fail();
	}
	expr_free(x);
	assert_true(n <= 64);
	for (int i = 0; i < n; i++)
		ptf[i] = (float)pt[i];
	if (fval)
		*fval = fn.f(ptf, p);
	return fn.d(pt, p);
}

/* Evaluates a constant expression (dim 1, no parameters) in double with cache c. */
static double eval_const(struct expr_jit_cache *c, const char *text)
{
	static const struct expr_scope sc1 = {1, NULL, 0, NULL, 0};
	static const double zero[1] = {0};
	return eval_in(c, &sc1, text, zero, NULL, NULL);
}

/* Checks |got - want| <= tol * max(1, |want|). */
static void near(double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol * fmax(1, fabs(want))))
		fprintf(stderr, "got %.17g, expected %.17g\n", got, want);
	assert_true(fabs(got - want) <= tol * fmax(1, fabs(want)));
}

/* Precedence and associativity, by the values the compiled code gives. */
static void test_precedence_values(void **state)
{
	struct expr_jit_cache *c = expr_jit_cache_new();
	static const struct {
		const char *text;
		double want;
	} cases[] = {{"1+2*3", 7},
	             {"2^3^2", 512},
	             {"-2^2", -4},
	             {"--2", 2},
	             {"-+-2", 2},
	             {"2^-1", 0.5},
	             {"1-2-3", -4},
	             {"8/4/2", 1},
	             {"1<2==1", 1},
	             {"1||0&&0", 1},
	             {"(1||0)&&0", 0},
	             {"!0", 1},
	             {"!2", 0},
	             {"3>2>1", 0},
	             {"2<=2", 1},
	             {"2>=3", 0},
	             {"2!=3", 1},
	             {"2==2", 1},
	             {"-(2+3)*2", -10},
	             {".5+1e-3+2.5", .5 + 1e-3 + 2.5},
	             {"!1<1", 1},
	             {"2*-3", -6},
	             {"1<2 && 3<2", 0},
	             {"0 || -1", 1},
	             {"if(1<2, 10, 20)", 10},
	             {"if(0, 10, 20)", 20},
	             {"pow(2, 10)", 1024},
	             {"-2^-2", -0.25}};
	(void)state;
	assert_non_null(c);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		double v = eval_const(c, cases[i].text);
		if (v != cases[i].want)
			fprintf(stderr, "'%s' = %.17g, expected %.17g\n", cases[i].text, v,
			        cases[i].want);
		assert_true(v == cases[i].want);
	}
	near(eval_const(c, "pi"), M_PI, 0);
	near(eval_const(c, "e"), M_E, 0);
	expr_jit_cache_free(c);
}

/* The tree's shape through its canonical text: parentheses appear exactly where the tree needs
 * them, and equivalent spellings print the same. */
static void test_canonical(void **state)
{
	static const struct expr_scope sc_l = {2, params_kw, 2, extra_lambda, 1};
	static const char *const params_ij[] = {"i", "j"};
	static const struct expr_scope sc_i = {3, params_ij, 1, NULL, 0};
	static const struct expr_scope sc_ij = {3, params_ij, 2, NULL, 0};
	static const struct text_case cases[] = {
	    {&sc3, "x^2 + y", "x1^2+x2"},
	    {&sc3, "x1^2+x2", "x1^2+x2"},
	    {&sc3, "pow(x, 2) + ((y))", "x1^2+x2"},
	    {&sc3, "1+2*3", "1+2*3"},
	    {&sc3, "(1+2)*3", "(1+2)*3"},
	    {&sc3, "1+(2*3)", "1+2*3"},
	    {&sc3, "2^3^2", "2^3^2"},
	    {&sc3, "2^(3^2)", "2^3^2"},
	    {&sc3, "(2^3)^2", "(2^3)^2"},
	    {&sc3, "-2^2", "-2^2"},
	    {&sc3, "(-2)^2", "(-2)^2"},
	    {&sc3, "- - + x", "--x1"},
	    {&sc3, "x-(y-z)", "x1-(x2-x3)"},
	    {&sc3, "(x-y)-z", "x1-x2-x3"},
	    {&sc3, "x/(y*z)", "x1/(x2*x3)"},
	    {&sc3, "2^-x", "2^-x1"},
	    {&sc3, "!(x < 1) && (y >= 2 || z != 3)", "!(x1<1)&&(x2>=2||x3!=3)"},
	    {&sc3, "(x < 1) == (y > 2)", "x1<1==x2>2"},
	    {&sc3, "x < (1 == y)", "x1<(1==x2)"},
	    {&sc3, "1e-3 + 0.10 + 1e20 + 100 + 2.50 + 1e-7 + 5e-324",
	     "0.001+0.1+1e20+100+2.5+1e-7+5e-324"},
	    {&sc3, "k * sin(x) + w", "k*sin(x1)+w"},
	    {&sc3, "sum( i , x [ i ] ^ i )", "sum(i,x[i]^i)"},
	    {&sc3, "sum(q, x[q])", "sum(i,x[i])"},
	    {&sc3, "sum(a, sum(b, x[a]*x[b]*b)) + prod(c, c)",
	     "sum(i,sum(j,x[i]*x[j]*j))+prod(i,i)"},
	    {&sc_i, "sum(q, x[q]*i)", "sum(j,x[j]*i)"},
	    {&sc_ij, "prod(q, sum(r, x[r]^q) + i*j)", "prod(l,sum(m,x[m]^l)+i*j)"},
	    {&sc3, "if(x<0.5, 1, 0)", "if(x1<0.5,1,0)"},
	    {&sc3, "abs(min(x, y)) + max(1, floor(z))", "abs(min(x1,x2))+max(1,floor(x3))"},
	    {&sc_l, "exp(-lambda * x)", "exp(-lambda*x1)"},
	    {&sc3, "pi*e", "pi*e"},
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		canon_is(cases[i].sc, cases[i].text, cases[i].want);
}

/* The canonical text parses back to the same canonical text, for a spread of expressions. */
static void test_canonical_round_trip(void **state)
{
	static const char *const texts[] = {
	    "sin(prod(i, asin(x[i])))",
	    "exp(-x^2-y^2)",
	    "-(-(x))^-(2)",
	    "sum(i, sum(j, x[i]*x[j]*(i<j)))",
	    "1/(1+x*y)",
	    "if(!(x<0.5)||y>=z, k^w, -w)",
	    "atan2(y, x) - 0.1 - 1.0000000000000002 - 123456789012345678",
	    "tgamma(x) + lgamma(y) + erf(z) + erfc(x) + cbrt(y) + expm1(z) + log1p(x)"};
	(void)state;
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		struct expr *x = must_parse(&sc3, texts[i]), *y;
		char *a = expr_canonical_dup(x), *b;
		assert_non_null(a);
		y = must_parse(&sc3, a);
		b = expr_canonical_dup(y);
		assert_string_equal(a, b);
		free(a);
		free(b);
		expr_free(x);
		expr_free(y);
	}
}

/* Every error message in its exact form, with its column. */
static void test_errors(void **state)
{
	static const char *const params_k[] = {"k"};
	static const struct expr_scope sc_k = {3, params_k, 1, NULL, 0};
	static const struct expr_scope sc1 = {1, NULL, 0, NULL, 0};
	static const struct expr_scope sc_l = {1, NULL, 0, extra_lambda, 1};
	static const struct text_case cases[] = {
	    {&sc_k, "x + y + q",
	     "unknown name 'q' at column 9: the variables are x1..x3, "
	     "parameters k"},
	    {&sc3, "x4",
	     "unknown name 'x4' at column 1: the variables are x1..x3, parameters k, w"},
	    {&sc1, "y", "unknown name 'y' at column 1: the variables are x1, no parameters"},
	    {&sc_l, "x*lambda*mu",
	     "unknown name 'mu' at column 10: the variables are x1, lambda, no parameters"},
	    {&sc3, "exp(-(x^2 + y", "')' expected at column 14"},
	    {&sc3, "sin(x y)", "')' expected at column 7"},
	    {&sc3, "asin(x, y)", "asin takes 1 argument, got 2"},
	    {&sc3, "atan2(x)", "atan2 takes 2 arguments, got 1"},
	    {&sc3, "if(x, 1)", "if takes 3 arguments, got 2"},
	    {&sc3, "sin()", "sin takes 1 argument, got 0"},
	    {&sc3, "x $ y", "unexpected character '$' at column 3"},
	    {&sc3, "x = y", "unexpected character '=' at column 3"},
	    {&sc3, "x & y", "unexpected character '&' at column 3"},
	    {&sc3, "x\x01", "unexpected character 0x01 at column 2"},
	    {&sc3, "x +",
	     "unexpected end of expression at column 4: a number, a name or '(' "
	     "expected"},
	    {&sc3, "x * )", "unexpected ')' at column 5: a number, a name or '(' expected"},
	    {&sc3, "x y", "unexpected 'y' at column 3: an operator or the end expected"},
	    {&sc3, "(x))", "unexpected ')' at column 4: an operator or the end expected"},
	    {&sc3, "", "empty expression at column 1"},
	    {&sc3, " \t ", "empty expression at column 1"},
	    {&sc3, "x + 1e999", "number out of range at column 5"},
	    {&sc3, "2e+", "malformed number at column 1: digits expected after 'e'"},
	    {&sc3, "sin + 1", "'(' expected at column 5"},
	    {&sc3, "foo(x)", "unknown function 'foo' at column 1"},
	    {&sc3, "x[i]", "'x[i]' at column 1 is outside a sum or prod over i"},
	    {&sc3, "sum(i, x[j])", "'x[j]' at column 8 is outside a sum or prod over j"},
	    {&sc3, "sum(i x[i])", "',' expected at column 7"},
	    {&sc3, "sum(1, x)", "an index name expected at column 5"},
	    {&sc3, "sum(i, x[i]", "')' expected at column 12"},
	    {&sc3, "sum(i, x[i)", "']' expected at column 11"},
	    {&sc3, "sum(k, 1)", "index name 'k' at column 5 shadows a parameter"},
	    {&sc3, "prod(y, 1)", "index name 'y' at column 6 shadows a variable"},
	    {&sc3, "sum(pi, 1)", "index name 'pi' at column 5 shadows a constant"},
	    {&sc3, "sum(i, prod(i, x[i]))",
	     "index name 'i' at column 13 shadows the index of an enclosing sum or prod"},
	    {&sc_l, "sum(lambda, 1)", "index name 'lambda' at column 5 shadows a variable"},
	};
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		error_is(cases[i].sc, cases[i].text, cases[i].want);
}

/* The scope itself is checked: names that the language takes or that repeat are refused. */
static void test_scope_errors(void **state)
{
	static const char *const bad_x1[] = {"x1"};
	static const char *const bad_sin[] = {"sin"};
	static const char *const twice[] = {"k", "k"};
	static const char *const not_name[] = {"2k"};
	const struct expr_scope s1 = {3, bad_x1, 1, NULL, 0}, s2 = {3, bad_sin, 1, NULL, 0},
	                        s3 = {3, twice, 2, NULL, 0}, s4 = {3, not_name, 1, NULL, 0},
	                        s5 = {0, NULL, 0, NULL, 0}, s6 = {3, params_kw, 1, params_kw, 1},
	                        s7 = {1, bad_x1, 1, NULL, 0};
	struct expr *x;
	(void)state;
	error_is(&s1, "1", "parameter name 'x1' is taken by a variable");
	error_is(&s2, "1", "parameter name 'sin' is taken by a function");
	error_is(&s3, "1", "parameter name 'k' is used twice");
	error_is(&s4, "1", "parameter name '2k' is not a name");
	error_is(&s5, "1", "dim 0 out of range for an expression (1..4096)");
	error_is(&s6, "1", "parameter name 'k' is used twice");
	/* y names x2 only where dim allows it, so dim 1 may call a parameter y. */
	static const char *const y[] = {"y"};
	const struct expr_scope s8 = {1, y, 1, NULL, 0};
	x = must_parse(&s8, "x*y");
	assert_int_equal(expr_uses_param(x, 0), 1);
	expr_free(x);
	error_is(&s7, "1", "parameter name 'x1' is taken by a variable");
}

/* The length and nesting limits: refused with a message, never a crash. */
static void test_limits(void **state)
{
	char *text = malloc(EXPR_MAX_LEN + 2);
	char msg[QX_ERR_LEN];
	struct expr *x;
	size_t n;
	(void)state;
	assert_non_null(text);
	memset(text, ' ', EXPR_MAX_LEN + 1);
	text[0] = 'x';
	text[EXPR_MAX_LEN] = '\0';
	x = must_parse(&sc3, text);
	expr_free(x);
	text[EXPR_MAX_LEN] = ' ';
	text[EXPR_MAX_LEN + 1] = '\0';
	error_is(&sc3, text, "expression too long: 4097 bytes, at most 4096");

	/* 199 parentheses fit the 200 levels, 200 do not. */
	n = 0;
	for (int i = 0; i < EXPR_MAX_NEST - 1; i++)
		text[n++] = '(';
	text[n++] = 'x';
	for (int i = 0; i < EXPR_MAX_NEST - 1; i++)
		text[n++] = ')';
	text[n] = '\0';
	expr_free(must_parse(&sc3, text));
	memmove(text + 1, text, n + 1);
	text[0] = '(';
	strcat(text, ")");
	snprintf(msg, sizeof msg, "expression nested too deeply at column %d (at most %d levels)",
	         EXPR_MAX_NEST + 1, EXPR_MAX_NEST);
	error_is(&sc3, text, msg);
	memset(text, '-', 300);
	strcpy(text + 300, "x");
	snprintf(msg, sizeof msg, "expression nested too deeply at column %d (at most %d levels)",
	         EXPR_MAX_NEST + 1, EXPR_MAX_NEST);
	error_is(&sc3, text, msg);

	/* A chain of 999 additions is as tall as the limit allows; one more is refused. */
	strcpy(text, "x");
	for (int i = 0; i < EXPR_MAX_HEIGHT - 1; i++)
		strcat(text, "+x");
	expr_free(must_parse(&sc3, text));
	strcat(text, "+x");
	snprintf(msg, sizeof msg, "expression nested too deeply at column %d (at most %d levels)",
	         2 * EXPR_MAX_HEIGHT, EXPR_MAX_HEIGHT);
	error_is(&sc3, text, msg);
	free(text);
}

/* Sums and products over the axes: the index as a number, x[i], nesting. */
static void test_sum_prod(void **state)
{
	static const struct expr_scope sc4 = {4, NULL, 0, NULL, 0};
	static const double pt[4] = {0.125, 0.25, 0.5, 0.75};
	struct expr_jit_cache *c = expr_jit_cache_new();
	double s = 0, pr = 1, f3 = 0, pairs = 0, fact = 1;
	float f;
	(void)state;
	for (int i = 0; i < 4; i++) {
		s += pt[i];
		pr *= pt[i];
		f3 += (i + 1) * asin(pow(pt[i], i + 1));
		fact *= i + 2;
		for (int j = 0; j < 4; j++)
			pairs += i < j ? pt[i] * pt[j] : 0;
	}
	near(eval_in(c, &sc4, "sum(i, x[i])", pt, NULL, &f), s, 1e-15);
	near(f, s, 1e-6);
	near(eval_in(c, &sc4, "prod(i, x[i])", pt, NULL, &f), pr, 1e-15);
	near(f, pr, 1e-6);
	near(eval_in(c, &sc4, "sum(i, i*asin(x[i]^i))", pt, NULL, &f), f3, 1e-14);
	near(f, f3, 1e-5);
	near(eval_in(c, &sc4, "sum(i, sum(j, x[i]*x[j]*(i<j)))", pt, NULL, NULL), pairs, 1e-15);
	near(eval_in(c, &sc4, "prod(i, 1 + i)", pt, NULL, NULL), fact, 0);
	near(eval_in(c, &sc4, "sum(i, 1) + prod(j, 2)", pt, NULL, NULL), 4 + 16, 0);
	expr_jit_cache_free(c);
}

/* Parameters come from p in scope order, extras after the axes in the point. */
static void test_params_extras(void **state)
{
	static const struct expr_scope sc = {2, params_kw, 2, extra_lambda, 1};
	static const double pt[3] = {0.25, 0.5, 4}, p[2] = {3.5, 2};
	struct expr_jit_cache *c = expr_jit_cache_new();
	struct expr *x;
	float f;
	(void)state;
	near(eval_in(c, &sc, "k*x + w*lambda - y", pt, p, &f), 3.5 * 0.25 + 2 * 4 - 0.5, 0);
	near(f, 3.5 * 0.25 + 2 * 4 - 0.5, 1e-6);
	x = must_parse(&sc, "k*x");
	assert_int_equal(expr_uses_param(x, 0), 1);
	assert_int_equal(expr_uses_param(x, 1), 0);
	assert_int_equal(expr_dim(x), 2);
	expr_free(x);
	expr_jit_cache_free(c);
}

/* Every function of the language against the C library, in one compiled selector. */
static void test_functions(void **state)
{
	static const double pts[] = {0.1, 0.37, 0.5, 0.93};
	const char *text =
	    "if(k==0,exp(x),if(k==1,expm1(x),if(k==2,log(x),if(k==3,log1p(x),"
	    "if(k==4,sqrt(x),if(k==5,cbrt(x),if(k==6,sin(x),if(k==7,cos(x),"
	    "if(k==8,tan(x),if(k==9,asin(x),if(k==10,acos(x),if(k==11,atan(x),"
	    "if(k==12,sinh(x),if(k==13,cosh(x),if(k==14,tanh(x),if(k==15,erf(x),"
	    "if(k==16,erfc(x),if(k==17,tgamma(x),if(k==18,lgamma(x),"
	    "if(k==19,abs(-x),if(k==20,floor(10*x),if(k==21,min(x,y),"
	    "if(k==22,max(x,y),if(k==23,atan2(y,x),if(k==24,pow(x,y),"
	    "if(k==25,x^2.5,if(k==26,x^0.5,if(k==27,x^-3,x^0))))))))))))))))))))))))))))";
	struct expr_jit_cache *c = expr_jit_cache_new();
	(void)state;
	for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
		volatile double vx = pts[i], vy = 0.6; /* no constant folding of the references */
		double x = vx, y = vy, pt[3] = {x, y, 0};
		const double want[] = {
		    exp(x),    expm1(x),    log(x),        log1p(x),        sqrt(x),    cbrt(x),
		    sin(x),    cos(x),      tan(x),        asin(x),         acos(x),    atan(x),
		    sinh(x),   cosh(x),     tanh(x),       erf(x),          erfc(x),    tgamma(x),
		    lgamma(x), fabs(-x),    floor(10 * x), fmin(x, y),      fmax(x, y), atan2(y, x),
		    pow(x, y), pow(x, 2.5), sqrt(x),       1 / (x * x * x), 1};
		for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
			double p[2] = {(double)k, 0};
			float f;
			double d = eval_in(c, &sc3, text, pt, p, &f);
			if (d != want[k])
				fprintf(stderr, "function %zu at %g: %.17g, expected %.17g\n", k, x,
				        d, want[k]);
			assert_true(d == want[k]);
			near(f, want[k], 2e-6);
		}
	}
	assert_int_equal(expr_jit_cache_count(c), 1);
	expr_jit_cache_free(c);
}

/* The integrands of the brief, at several points, in both precisions. */
static void test_integrands(void **state)
{
	static const struct expr_scope sc8 = {8, NULL, 0, NULL, 0};
	static const struct expr_scope sc2 = {2, NULL, 0, NULL, 0};
	struct expr_jit_cache *c = expr_jit_cache_new();
	(void)state;
	for (int t = 0; t < 5; t++) {
		volatile double vpt[8]; /* no constant folding of the references */
		double pt[8], pr = 1;
		float f;
		for (int i = 0; i < 8; i++) {
			vpt[i] = 0.05 + 0.9 * fmod(0.37 * (t + 1) + 0.123 * i, 1.0);
			pt[i] = vpt[i];
			pr *= asin(pt[i]);
		}
		near(eval_in(c, &sc8, "sin(prod(i, asin(x[i])))", pt, NULL, &f), sin(pr), 1e-15);
		near(f, sin(pr), 1e-6);
		double g = exp(-pt[0] * pt[0] - pt[1] * pt[1]);
		assert_true(eval_in(c, &sc2, "exp(-x^2-y^2)", pt, NULL, &f) == g);
		near(f, g, 1e-6);
		near(eval_in(c, &sc2, "if(x<0.5, 1, 0)", pt, NULL, &f), pt[0] < 0.5, 0);
		near(f, pt[0] < 0.5, 0);
		assert_true(eval_in(c, &sc2, "atan2(y, x)", pt, NULL, &f) == atan2(pt[1], pt[0]));
		near(f, atan2(pt[1], pt[0]), 1e-6);
	}
	/* A chain too long for one C expression's parentheses goes through locals. */
	char *chain = malloc(2 * EXPR_MAX_HEIGHT + 1);
	static const double one[3] = {0.5, 0.125, 0};
	assert_non_null(chain);
	strcpy(chain, "x");
	for (int i = 0; i < EXPR_MAX_HEIGHT - 1; i++)
		strcat(chain, i % 2 ? "+x" : "-y");
	double want = 0.5;
	for (int i = 0; i < EXPR_MAX_HEIGHT - 1; i++)
		want = i % 2 ? want + 0.5 : want - 0.125;
	near(eval_in(c, &sc3, chain, one, NULL, NULL), want, 1e-15);
	free(chain);
	expr_jit_cache_free(c);
}

/* The emitted source: math.h only for C, CUDA qualifiers, float functions and literals,
 * multiplications for small powers, loops over a literal dim; in double the reduced asin, and
 * the reduced sin of a product of asins (bounded whatever the point), after their text. */
static void test_emit(void **state)
{
	static const struct expr_scope sc8 = {8, params_kw, 2, NULL, 0};
	struct expr *x = must_parse(&sc8, "sin(prod(i, asin(x[i]))) + x^2 + y^0.5 + z^2.5 + k");
	char *c = expr_emit(x, EXPR_C, QX_DOUBLE, "g"),
	     *cu = expr_emit(x, EXPR_CUDA, QX_FLOAT, "h");
	const char *cuda_head =
	    "extern \"C\" __device__ float h(const float *x, const double *p)\n";
	(void)state;
	assert_non_null(c);
	assert_non_null(cu);
	static const char *const in_c[] = {"#include <math.h>",
	                                   "#ifndef QX_REDUCED_MATH_H",
	                                   "qx_sin_reduced(",
	                                   "qx_asin_reduced(",
	                                   "\ndouble g(const double *x, const double *p)\n",
	                                   "for (int k0 = 1; k0 <= 8; k0++)",
	                                   "x[0] * x[0]",
	                                   "sqrt(x[1])",
	                                   "pow(x[2], 2.5)",
	                                   "p[0]"};
	static const char *const in_cu[] = {"asinf(", "sinf(", "powf(x[2], ((float)2.5))",
	                                    "((float)p[0])", "sqrtf(x[1])"};
	for (size_t i = 0; i < sizeof in_c / sizeof in_c[0]; i++)
		assert_non_null(strstr(c, in_c[i]));
	for (size_t i = 0; i < sizeof in_cu / sizeof in_cu[0]; i++)
		assert_non_null(strstr(cu, in_cu[i]));
	assert_null(strstr(cu, "#include"));
	assert_null(strstr(cu, "QX_REDUCED_MATH_H"));
	assert_null(strstr(cu, "pow("));
	assert_int_equal(strncmp(cu, cuda_head, strlen(cuda_head)), 0);
	free(c);
	free(cu);
	expr_free(x);
}

/* Returns 1 when text, emitted in double over the ranges r, calls the reduced function fn
 * (qx_cos_reduced ...), 0 when it calls the C library's. */
static int emits_reduced(const struct expr_scope *sc, const char *text, const struct expr_ranges *r,
                         const char *fn)
{
	struct expr *x = must_parse(sc, text);
	char *src = expr_emit_in(x, EXPR_C, QX_DOUBLE, "g", r), call[32], lib[32];
	assert_non_null(src);
	/* the prelude defines the reduced functions; the body after it tells which are called
	 * ("qx_cos_reduced(" does not hold "cos(") */
	snprintf(call, sizeof call, "qx_%s_reduced(", fn);
	snprintf(lib, sizeof lib, "%s(", fn);
	const char *body = strstr(src, "double g(");
	assert_non_null(body);
	const int reduced = strstr(body, call) != NULL, any_lib = strstr(body, lib) != NULL;
	free(src);
	expr_free(x);
	assert_true(reduced != any_lib);
	return reduced;
}

/* Which cosines and sines are the reduced ones: those whose argument stays within half the
 * reduced range over the axes' bounds and the parameters' values, by interval arithmetic; an
 * unknown parameter, an unbounded axis or a division by a range holding 0 keeps the C
 * library's. Float never uses them. The reduced code compiled by the C compiler agrees with
 * the C library within 4e-16. */
static void test_emit_ranges(void **state)
{
	static const struct expr_scope sc = {2, params_kw, 2, NULL, 0};
	const double lo[2] = {0, 0}, hi[2] = {1, 1}, inf_hi[2] = {1, INFINITY};
	const double k3[2] = {3, 0}, kbig[2] = {1e6, 0};
	const struct expr_ranges unit = {2, 2, lo, hi, k3}, big = {2, 2, lo, hi, kbig},
	                         open = {2, 2, lo, inf_hi, k3}, wide = {2, 0, lo, hi, NULL};
	(void)state;
	assert_true(emits_reduced(&sc, "cos(10*x)", &unit, "cos"));
	assert_true(emits_reduced(&sc, "cos(10*x)", NULL, "cos") == 0);
	assert_true(emits_reduced(&sc, "sin(k*x)", &unit, "sin"));
	assert_true(emits_reduced(&sc, "sin(k*x)", &big, "sin") == 0);
	assert_true(emits_reduced(&sc, "sin(k*x)", &wide, "sin") == 0); /* k unknown */
	assert_true(emits_reduced(&sc, "cos(x*y)", &open, "cos") == 0);
	assert_true(emits_reduced(&sc, "cos(x/y)", &unit, "cos") == 0);
	assert_true(emits_reduced(&sc, "cos(x/(1+y))", &unit, "cos"));
	assert_true(emits_reduced(&sc, "cos(exp(10*x))", &unit, "cos"));      /* e^10 = 22026 */
	assert_true(emits_reduced(&sc, "cos(exp(11*x))", &unit, "cos") == 0); /* e^11 = 59874 */
	assert_true(emits_reduced(&sc, "cos(sum(i,x[i]^2)*1e4)", &unit, "cos"));
	assert_true(emits_reduced(&sc, "cos(sum(i,x[i]^2)*3e4)", &unit, "cos") == 0);
	assert_true(emits_reduced(&sc, "sin(prod(i,asin(x[i])))", NULL, "sin"));
	assert_true(emits_reduced(&sc, "cos(if(x<y,1e3,x))", &unit, "cos"));
	assert_true(emits_reduced(&sc, "cos(tan(x))", &unit, "cos") == 0);

	struct expr *x = must_parse(&sc, "cos(10*x) + sin(k*y) + asin(x - y)");
	char *d = expr_emit_in(x, EXPR_C, QX_DOUBLE, "gd", &unit),
	     *f = expr_emit_in(x, EXPR_C, QX_FLOAT, "gf", &unit);
	assert_non_null(d);
	assert_non_null(f);
	assert_null(strstr(f, "reduced"));
	char *unit_src = malloc(strlen(d) + strlen(f) + 2);
	assert_non_null(unit_src);
	sprintf(unit_src, "%s\n%s", d, f);
	struct expr_jit_cache *c = expr_jit_cache_new();
	struct expr_cpu_fn fn;
	struct qx_err e = {""};
	assert_non_null(c);
	if (expr_cpu_compile_source(c, unit_src, "gd", "gf", &fn, &e))
		fail_msg("not compiled: %s", e.msg);
	for (int i = 0; i <= 1000; i++) {
		const double pt[2] = {i / 1000.0, 1 - i / 1000.0};
		const double want = cos(10 * pt[0]) + sin(3 * pt[1]) + asin(pt[0] - pt[1]);
		near(fn.d(pt, k3), want, 4e-15);
	}
	expr_jit_cache_free(c);
	free(unit_src);
	free(d);
	free(f);
	expr_free(x);
}

/* The cache: the same integrand compiles once; a different one, or the same text whose
 * parameters sit elsewhere in p, compiles again. */
static void test_cache(void **state)
{
	static const char *const params_wk[] = {"w", "k"};
	static const struct expr_scope sc_wk = {3, params_wk, 2, NULL, 0};
	struct expr_jit_cache *c = expr_jit_cache_new();
	struct expr *a = must_parse(&sc3, "x^2 + k"), *b = must_parse(&sc3, "x1^2+k"),
	            *d = must_parse(&sc_wk, "x1^2+k");
	struct expr_cpu_fn f1, f2, f3;
	struct qx_err e = {""};
	double pt[3] = {3, 0, 0}, p[2] = {1, 100};
	(void)state;
	assert_int_equal(expr_cpu_compile(c, a, &f1, &e), 0);
	assert_int_equal(f1.cached, 0);
	assert_true(f1.compile_ms > 0);
	assert_int_equal(expr_cpu_compile(c, b, &f2, &e), 0);
	assert_int_equal(f2.cached, 1);
	assert_true(f2.d == f1.d && f2.f == f1.f);
	assert_int_equal(expr_jit_cache_count(c), 1);
	assert_int_equal(expr_cpu_compile(c, d, &f3, &e), 0);
	assert_int_equal(f3.cached, 0);
	assert_int_equal(expr_jit_cache_count(c), 2);
	assert_true(f1.d(pt, p) == 10);
	assert_true(f3.d(pt, p) == 109);
	expr_free(a);
	expr_free(b);
	expr_free(d);
	expr_jit_cache_free(c);
}

/* Returns the number of entries of dir other than . and .. */
static int dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *ent;
	int n = 0;
	assert_non_null(d);
	while ((ent = readdir(d)) != NULL)
		n += strcmp(ent->d_name, ".") && strcmp(ent->d_name, "..");
	closedir(d);
	return n;
}

/* Sets or, with value NULL, removes the environment variable name. */
static void set_env(const char *name, const char *value)
{
	if (value)
		setenv(name, value, 1);
	else
		unsetenv(name);
}

/* No file is left in $TMPDIR after a compile, a failed compile, a missing compiler or a
 * cancel; a missing compiler gives one clear message, a failing one its first lines. */
static void test_files_and_compiler(void **state)
{
	char dir[] = "/tmp/quadx-test-expr-XXXXXX", bindir[] = "/tmp/quadx-test-cc-XXXXXX";
	char script[64], want[QX_ERR_LEN];
	FILE *f;
	char *old_tmp = getenv("TMPDIR"), *old_cc = getenv("QUADX_CC");
	struct expr_jit_cache *c = expr_jit_cache_new();
	struct expr *x = must_parse(&sc3, "x + y * z"), *y = must_parse(&sc3, "x - y");
	struct expr_cpu_fn fn;
	struct qx_err e = {""};
	(void)state;
	old_tmp = old_tmp ? strdup(old_tmp) : NULL;
	old_cc = old_cc ? strdup(old_cc) : NULL;
	assert_non_null(mkdtemp(dir));
	assert_non_null(mkdtemp(bindir));
	setenv("TMPDIR", dir, 1);
	unsetenv("QUADX_CC");
	assert_int_equal(expr_cpu_compile(c, x, &fn, &e), 0);
	assert_int_equal(dir_entries(dir), 0);
	setenv("QUADX_CC", "/bin/false", 1);
	assert_int_equal(expr_cpu_compile(c, y, &fn, &e), -1);
	assert_string_equal(e.msg, "cannot compile the integrand on the CPU: /bin/false failed "
	                           "(exit 1)");
	assert_int_equal(dir_entries(dir), 0);
	setenv("QUADX_CC", "/nonexistent", 1);
	assert_int_equal(expr_cpu_compile(c, y, &fn, &e), -1);
	assert_string_equal(e.msg, "cannot compile the integrand on the CPU: no C compiler (cc) "
	                           "found; install gcc or set QUADX_CC");
	assert_null(fn.d);
	assert_int_equal(dir_entries(dir), 0);
	/* The compiler's first lines make the message; a cancel stops it. */
	snprintf(script, sizeof script, "%s/cc", bindir);
	f = fopen(script, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\necho 'error one' >&2\necho 'error two' >&2\nexit 3\n", f);
	fclose(f);
	assert_int_equal(chmod(script, 0755), 0);
	setenv("QUADX_CC", script, 1);
	assert_int_equal(expr_cpu_compile(c, y, &fn, &e), -1);
	snprintf(want, sizeof want,
	         "cannot compile the integrand on the CPU: %s failed (exit 3): error one error two",
	         script);
	assert_string_equal(e.msg, want);
	unsetenv("QUADX_CC");
	qx_cancel_request();
	assert_int_equal(expr_cpu_compile(c, y, &fn, &e), -1);
	qx_cancel_clear();
	assert_string_equal(e.msg, "cannot compile the integrand on the CPU: cancelled");
	assert_int_equal(dir_entries(dir), 0);
	assert_int_equal(expr_jit_cache_count(c), 1);
	assert_int_equal(unlink(script), 0);
	assert_int_equal(rmdir(bindir), 0);
	set_env("QUADX_CC", old_cc);
	set_env("TMPDIR", old_tmp);
	assert_int_equal(rmdir(dir), 0);
	free(old_cc);
	free(old_tmp);
	expr_free(x);
	expr_free(y);
	expr_jit_cache_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_precedence_values),
	    cmocka_unit_test(test_canonical),
	    cmocka_unit_test(test_canonical_round_trip),
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_scope_errors),
	    cmocka_unit_test(test_limits),
	    cmocka_unit_test(test_sum_prod),
	    cmocka_unit_test(test_params_extras),
	    cmocka_unit_test(test_functions),
	    cmocka_unit_test(test_integrands),
	    cmocka_unit_test(test_emit),
	    cmocka_unit_test(test_emit_ranges),
	    cmocka_unit_test(test_cache),
	    cmocka_unit_test(test_files_and_compiler),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
