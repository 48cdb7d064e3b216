/* test_param.c - typed parameter values and the store of their texts: the kind of every value
 * parsed or defaulted; any number of distinct expressions and file names kept in one store and
 * read back intact, each text once; two stores (and two sessions) never sharing or clobbering
 * each other's texts; a text refused where there is no store. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/session.h"

static const char *const expr_words[] = {"f1", "f2", NULL};
static const struct param_def expr_def = {
    .name = "integrand", .type = PARAM_EXPR, .choices = expr_words, .help = "an expression"};
static const struct param_def path_def = {.name = "data", .type = PARAM_PATH, .help = "a file"};

#define NEXPRS 1500 /* distinct expressions in one store: well past any fixed table */
#define NPATHS 1000 /* distinct file names */

/* Writes the i-th distinct expression of the tests into buf: x+i, every 7th one long (about
 * 300 bytes), so that the texts fill several blocks of the store. */
static void nth_expr(int i, char *buf, size_t len)
{
	int used = snprintf(buf, len, "x+%d", i);
	for (int k = 0; i % 7 == 0 && k < 60 && (size_t)used + 8 < len; k++)
		used += snprintf(buf + used, len - (size_t)used, "+x*%d", k);
}

/* Each value has the kind of what it holds: number, word (a choice, none), text or range. */
static void test_kinds(void **state)
{
	static const char *const h_words[] = {"scott", NULL};
	const struct param_def h = {
	    .name = "h", .type = PARAM_REAL, .min = 0, .max = 10, .def = -1, .choices = h_words};
	const struct param_def n = {.name = "n", .type = PARAM_INT, .min = 1, .max = 9, .def = 3};
	const struct param_def r = {
	    .name = "r", .type = PARAM_RANGE, .min = 0, .max = 9, .def = 1, .def_hi = 2};
	struct param_store *texts = param_store_new();
	struct param_value v;
	struct qx_err e;
	(void)state;
	assert_non_null(texts);
	assert_int_equal(param_default(&h).kind, PARAM_KIND_WORD);
	assert_int_equal(param_default(&n).kind, PARAM_KIND_NUMBER);
	assert_int_equal(param_default(&r).kind, PARAM_KIND_RANGE);
	assert_int_equal(param_default(&expr_def).kind, PARAM_KIND_WORD);
	assert_int_equal(param_default(&path_def).kind, PARAM_KIND_WORD);
	assert_null(param_path(param_default(&path_def)));
	assert_int_equal(param_parse(&h, "scott", &v, &e), 0);
	assert_true(v.kind == PARAM_KIND_WORD && v.num == -1 && !v.text);
	assert_int_equal(param_parse(&h, "2.5", &v, &e), 0);
	assert_true(v.kind == PARAM_KIND_NUMBER && v.num == 2.5);
	assert_int_equal(param_parse(&r, "1:4", &v, &e), 0);
	assert_true(v.kind == PARAM_KIND_RANGE && v.num == 1 && v.hi == 4);
	assert_int_equal(param_parse_in(texts, &expr_def, "f2", &v, &e), 0);
	assert_true(v.kind == PARAM_KIND_WORD && v.num == 1 && !param_expr(v));
	assert_int_equal(param_parse_in(texts, &expr_def, "x*x", &v, &e), 0);
	assert_true(v.kind == PARAM_KIND_TEXT && v.num < 0);
	assert_string_equal(param_expr(v), "x*x");
	assert_null(param_path(v)); /* an expression is no file name */
	assert_int_equal(param_parse_in(texts, &path_def, "none", &v, &e), 0);
	assert_true(v.kind == PARAM_KIND_WORD && !param_path(v));
	assert_int_equal(param_parse_in(texts, &path_def, "x*x", &v, &e), 0);
	assert_true(v.kind == PARAM_KIND_TEXT && v.num > 0);
	assert_string_equal(param_path(v), "x*x");
	assert_null(param_expr(v));
	assert_int_equal(param_store_count(texts), 1); /* one text, whichever kind names it */
	param_store_free(texts);
}

/* Thousands of distinct expressions in one store: every one is kept and reads back intact
 * (param_expr and param_format) after all the others came; a text given again adds nothing
 * and gets the value it had. */
static void test_many_expressions(void **state)
{
	struct param_store *texts = param_store_new();
	struct param_value *v = calloc(NEXPRS, sizeof *v);
	char text[PARAM_TEXT_LEN], shown[PARAM_TEXT_LEN];
	struct qx_err e;
	(void)state;
	assert_non_null(texts);
	assert_non_null(v);
	for (int i = 0; i < NEXPRS; i++) {
		nth_expr(i, text, sizeof text);
		assert_int_equal(param_parse_in(texts, &expr_def, text, &v[i], &e), 0);
	}
	assert_int_equal(param_store_count(texts), NEXPRS);
	for (int i = 0; i < NEXPRS; i++) {
		nth_expr(i, text, sizeof text);
		assert_string_equal(param_expr(v[i]), text);
		param_format(&expr_def, v[i], shown, sizeof shown);
		assert_string_equal(shown, text);
	}
	for (int i = 0; i < NEXPRS; i += 97) {
		struct param_value again;
		nth_expr(i, text, sizeof text);
		assert_int_equal(param_parse_in(texts, &expr_def, text, &again, &e), 0);
		assert_true(again.num == v[i].num && again.text == v[i].text);
	}
	assert_int_equal(param_store_count(texts), NEXPRS);
	memset(text, 'x', PARAM_EXPR_MAX); /* the longest expression, kept whole */
	text[PARAM_EXPR_MAX] = '\0';
	assert_int_equal(param_parse_in(texts, &expr_def, text, &v[0], &e), 0);
	assert_int_equal(strlen(param_expr(v[0])), PARAM_EXPR_MAX);
	assert_string_equal(param_expr(v[1]), "x+1");
	free(v);
	param_store_free(texts);
}

/* A thousand distinct file names, each kept while a hundred thousand more come: none is given
 * up, and the first reads back as itself at the end. */
static void test_many_paths(void **state)
{
	struct param_store *texts = param_store_new();
	struct param_value *v = calloc(NPATHS, sizeof *v), first, last;
	char name[64];
	struct qx_err e;
	(void)state;
	assert_non_null(texts);
	assert_non_null(v);
	assert_int_equal(param_parse_in(texts, &path_def, "first.csv", &first, &e), 0);
	for (int i = 0; i < NPATHS; i++) {
		snprintf(name, sizeof name, "/tmp/data %d.csv", i);
		assert_int_equal(param_parse_in(texts, &path_def, name, &v[i], &e), 0);
	}
	for (int i = 0; i < 100000; i++) {
		snprintf(name, sizeof name, "more%d.csv", i);
		assert_int_equal(param_parse_in(texts, &path_def, name, &last, &e), 0);
	}
	assert_string_equal(param_path(last), "more99999.csv");
	for (int i = 0; i < NPATHS; i++) {
		snprintf(name, sizeof name, "/tmp/data %d.csv", i);
		assert_string_equal(param_path(v[i]), name);
	}
	assert_string_equal(param_path(first), "first.csv");
	assert_int_equal(param_store_count(texts), 1 + NPATHS + 100000);
	free(v);
	param_store_free(texts);
}

/* Two stores keep their texts apart: the same text has a copy in each, a text of one is not
 * in the other, and freeing one leaves the other's values intact. */
static void test_two_stores(void **state)
{
	struct param_store *a = param_store_new(), *b = param_store_new();
	struct param_value va[3], vb[3];
	struct qx_err e;
	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(param_parse_in(a, &expr_def, "x+1", &va[0], &e), 0);
	assert_int_equal(param_parse_in(b, &expr_def, "x+1", &vb[0], &e), 0);
	assert_ptr_not_equal(va[0].text, vb[0].text);
	assert_int_equal(param_parse_in(a, &expr_def, "sin(x)", &va[1], &e), 0);
	assert_int_equal(param_parse_in(b, &expr_def, "cos(x)", &vb[1], &e), 0);
	assert_int_equal(param_parse_in(b, &path_def, "b.csv", &vb[2], &e), 0);
	assert_int_equal(param_parse_in(a, &path_def, "a.csv", &va[2], &e), 0);
	assert_int_equal(param_store_count(a), 3);
	assert_int_equal(param_store_count(b), 3);
	param_store_free(a); /* b's values must not point into a */
	assert_string_equal(param_expr(vb[0]), "x+1");
	assert_string_equal(param_expr(vb[1]), "cos(x)");
	assert_string_equal(param_path(vb[2]), "b.csv");
	param_store_free(b);
}

/* With no store a text is refused with a message, and a choice still parses. */
static void test_no_store(void **state)
{
	struct param_value v = {.num = 7};
	struct qx_err e;
	(void)state;
	assert_int_equal(param_parse(&expr_def, "x+1", &v, &e), -1);
	assert_string_equal(e.msg, "no store for the expression of integrand");
	assert_true(v.num == 7);
	assert_int_equal(param_parse(&path_def, "a.csv", &v, &e), -1);
	assert_string_equal(e.msg, "no store for the file name of data");
	assert_int_equal(param_parse(&expr_def, "f1", &v, &e), 0);
	assert_true(v.num == 0);
	assert_int_equal(param_parse(&path_def, "none", &v, &e), 0);
	assert_null(param_path(v));
}

/* Sets integrand TEXT in session s (cubature); fails the test when set refuses it. */
static void set_integrand(struct session *s, const char *text)
{
	char *argv[] = {"integrand", (char *)text};
	struct qx_err e;
	if (session_set(s, 2, argv, &e))
		fail_msg("set integrand %s: %s", text, e.msg);
}

/* The index of cubature's parameter integrand. */
static int integrand_index(const struct session *s)
{
	const int k = param_find(s->prob->params, s->prob->nparams, "integrand");
	assert_true(k >= 0);
	return k;
}

/* Two sessions set hundreds of distinct integrands each through set: every one is accepted
 * (none refused as one too many), each session's current integrand is its own, and one freed
 * leaves the other's value and texts intact. */
static void test_two_sessions(void **state)
{
	static struct session a, b;
	struct qx_err e;
	char text[64];
	int k;
	(void)state;
	session_init(&a);
	session_init(&b);
	assert_int_equal(session_use(&a, "cubature", &e), 0);
	assert_int_equal(session_use(&b, "cubature", &e), 0);
	k = integrand_index(&a);
	for (int i = 1; i <= 700; i++) {
		snprintf(text, sizeof text, "x+%d", i);
		set_integrand(&a, text);
		assert_string_equal(param_expr(a.params[a.prob_index][k]), text);
		snprintf(text, sizeof text, "x*%d", i);
		set_integrand(&b, text);
		assert_string_equal(param_expr(b.params[b.prob_index][k]), text);
	}
	assert_int_equal(param_store_count(a.texts), 700);
	assert_int_equal(param_store_count(b.texts), 700);
	set_integrand(&a, "x+1"); /* again: the same text, nothing added */
	assert_int_equal(param_store_count(a.texts), 700);
	assert_string_equal(param_expr(a.params[a.prob_index][k]), "x+1");
	assert_string_equal(param_expr(b.params[b.prob_index][k]), "x*700");
	session_free(&a);
	assert_string_equal(param_expr(b.params[b.prob_index][k]), "x*700");
	set_integrand(&b, "x+1");
	assert_string_equal(param_expr(b.params[b.prob_index][k]), "x+1");
	session_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_kinds),      cmocka_unit_test(test_many_expressions),
	    cmocka_unit_test(test_many_paths), cmocka_unit_test(test_two_stores),
	    cmocka_unit_test(test_no_store),   cmocka_unit_test(test_two_sessions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
