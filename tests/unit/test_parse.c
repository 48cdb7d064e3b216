/* test_parse.c - parameter parsing and validation, the command table, line splitting and the
 * completion candidates, all without a terminal. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/commands.h"
#include "../../src/repl.h"

static const struct param_def int_def = {"n", PARAM_INT, 1, 1000, 0, 10, 0, NULL, "", 0};
static const struct param_def real_def = {"t", PARAM_REAL, 0, 1, 1, 0.5, 0, NULL, "", 0};
static const struct param_def range_def = {"lambda", PARAM_RANGE, 0, 10, 0, 1, 2, NULL, "", 0};
static const char *const words[] = {"float", "double", NULL};
static const struct param_def enum_def = {"precision", PARAM_ENUM, 0, 0, 0, 0, 0, words, "", 0};

/* Integers: exact values in range pass, everything else fails naming the word and range. */
static void test_int(void **state)
{
	struct param_value v = {.num = 0};
	struct qx_err e;
	(void)state;
	assert_int_equal(param_parse(&int_def, "5", &v, &e), 0);
	assert_true(v.num == 5);
	assert_int_equal(param_parse(&int_def, "1e3", &v, &e), 0);
	assert_true(v.num == 1000);
	const char *bad[] = {"abc", "-5",  "1e99", "2.5",  "0",  "1001", "",
	                     "5x",  "nan", "inf",  "0x10", " 5", "1e400"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		v.num = 42;
		assert_int_equal(param_parse(&int_def, bad[i], &v, &e), -1);
		assert_true(v.num == 42);
		assert_non_null(strstr(e.msg, "1..1000"));
		assert_non_null(strstr(e.msg, "for n"));
	}
}

/* Reals with an open lower bound, ranges and enums. */
static void test_real_range_enum(void **state)
{
	struct param_value v;
	struct qx_err e;
	(void)state;
	assert_int_equal(param_parse(&real_def, "0", &v, &e), -1);
	assert_non_null(strstr(e.msg, "(0, 1]"));
	assert_int_equal(param_parse(&real_def, "1", &v, &e), 0);
	assert_int_equal(param_parse(&range_def, "0.05:0.5", &v, &e), 0);
	assert_true(v.num == 0.05 && v.hi == 0.5);
	assert_int_equal(param_parse(&range_def, "3", &v, &e), 0);
	assert_true(v.num == 3 && v.hi == 3);
	assert_int_equal(param_parse(&range_def, "5:1", &v, &e), -1);
	assert_non_null(strstr(e.msg, "reversed"));
	assert_int_equal(param_parse(&range_def, "1:", &v, &e), -1);
	assert_int_equal(param_parse(&range_def, "1:20", &v, &e), -1);
	assert_int_equal(param_parse(&enum_def, "double", &v, &e), 0);
	assert_true(v.num == 1);
	assert_int_equal(param_parse(&enum_def, "half", &v, &e), -1);
	assert_non_null(strstr(e.msg, "float|double"));
}

/* Formatting round-trips through parsing with the fewest digits. */
/* A REAL with words takes a word (stored as -1 - index, shown as the word) or a number in its
 * range; a PATH takes a printable file name or none and gives it back. */
static void test_real_words_and_path(void **state)
{
	static const char *const words[] = {"silverman", "scott", NULL};
	const struct param_def h = {"h", PARAM_REAL, 0, 10, 1, -1, 0, words, "bandwidth", 0};
	const struct param_def f = {"data", PARAM_PATH, 0, 0, 0, 0, 0, NULL, "file", 0};
	struct param_value v;
	struct qx_err e;
	char buf[PARAM_TEXT_LEN], longname[PARAM_PATH_MAX + 2];
	struct param_store *texts = param_store_new();
	(void)state;
	assert_non_null(texts);
	assert_int_equal(param_parse(&h, "scott", &v, &e), 0);
	assert_true(v.num == -2 && !param_is_number(&h, v));
	param_format(&h, v, buf, sizeof buf);
	assert_string_equal(buf, "scott");
	assert_int_equal(param_parse(&h, "0.5", &v, &e), 0);
	assert_true(v.num == 0.5 && param_is_number(&h, v));
	assert_int_equal(param_parse(&h, "0", &v, &e), -1);
	assert_string_equal(e.msg,
	                    "bad value '0' for h: expected silverman|scott|a number in (0, 10]");
	assert_int_equal(param_parse(&h, "-1", &v, &e), -1);
	assert_int_equal(param_parse_in(texts, &f, "none", &v, &e), 0);
	assert_null(param_path(v));
	assert_int_equal(param_parse_in(texts, &f, "/tmp/a b.csv", &v, &e), 0);
	assert_string_equal(param_path(v), "/tmp/a b.csv");
	param_format(&f, v, buf, sizeof buf);
	assert_string_equal(buf, "/tmp/a b.csv");
	struct param_value again;
	assert_int_equal(param_parse_in(texts, &f, "/tmp/a b.csv", &again, &e), 0);
	assert_true(again.num == v.num); /* the same name, the same value */
	assert_int_equal(param_parse_in(texts, &f, "a\x01b", &v, &e), -1); /* a control byte */
	assert_non_null(strstr(e.msg, "bad file name for data"));
	memset(longname, 'a', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	assert_int_equal(param_parse_in(texts, &f, longname, &v, &e), -1);
	longname[PARAM_PATH_MAX] = '\0';
	assert_int_equal(param_parse_in(texts, &f, longname, &v, &e), 0);
	param_format(&f, v, buf, sizeof buf);
	assert_string_equal(buf, longname);
	param_store_free(texts);
}

static void test_format(void **state)
{
	char buf[64];
	struct param_value v = {.num = 0.1}, back;
	struct qx_err e;
	(void)state;
	param_format(&real_def, v, buf, sizeof buf);
	assert_string_equal(buf, "0.1");
	v.num = 1.0 / 3;
	param_format(&real_def, v, buf, sizeof buf);
	assert_int_equal(param_parse(&real_def, buf, &back, &e), 0);
	assert_true(back.num == v.num);
	v = (struct param_value){.num = 0.05, .hi = 0.5, .kind = PARAM_KIND_RANGE};
	param_format(&range_def, v, buf, sizeof buf);
	assert_string_equal(buf, "0.05:0.5");
}

/* Commands: exact names, unique prefixes, ambiguity and unknown words. */
static void test_cmd_find(void **state)
{
	struct qx_err e;
	(void)state;
	assert_string_equal(cmd_find("run", &e)->name, "run");
	assert_string_equal(cmd_find("ru", &e)->name, "run");
	assert_string_equal(cmd_find("q", &e)->name, "quit");
	assert_null(cmd_find("s", &e));
	assert_non_null(strstr(e.msg, "ambiguous"));
	assert_non_null(strstr(e.msg, "show"));
	assert_null(cmd_find("frobnicate", &e));
	assert_non_null(strstr(e.msg, "unknown command 'frobnicate'"));
	for (const struct cmd_entry *c = cmd_table; c->name; c++) {
		assert_non_null(c->usage);
		assert_non_null(c->help);
		assert_true(c->min_args <= c->max_args);
	}
}

/* Splitting: blanks, quotes, comments; unbalanced quotes fail. */
static void test_split(void **state)
{
	char line[] = "  set  n 5 \"a b\" 'c d'  # comment";
	char bad[] = "set \"n 5";
	char *argv[8];
	struct qx_err e;
	(void)state;
	assert_int_equal(cmd_split(line, argv, 8, &e), 5);
	assert_string_equal(argv[0], "set");
	assert_string_equal(argv[3], "a b");
	assert_string_equal(argv[4], "c d");
	assert_int_equal(cmd_split(bad, argv, 8, &e), -1);
	assert_non_null(strstr(e.msg, "unbalanced"));
}

/* Returns 1 when name is among the NULL-terminated list. */
static int has(const char *const *list, const char *name)
{
	for (; list && *list; list++)
		if (strcmp(*list, name) == 0)
			return 1;
	return 0;
}

/* Completion reads the command table, the problems and the parameter tables. */
static void test_completion(void **state)
{
	static struct shell sh;
	const char *buf[128];
	char *argv[4] = {"set", "precision", NULL, NULL};
	(void)state;
	session_init(&sh.s);
	sh.io = output_ctx_of(stdout);
	assert_true(has(repl_candidates(&sh, 0, argv, "", buf, 128), "errors"));
	assert_true(has(repl_candidates(&sh, 1, argv, "", buf, 128), "iters"));
	assert_true(has(repl_candidates(&sh, 1, argv, "", buf, 128), "threshold"));
	assert_true(has(repl_candidates(&sh, 2, argv, "", buf, 128), "double"));
	argv[1] = "variant";
	assert_true(has(repl_candidates(&sh, 2, argv, "", buf, 128), "coursework"));
	argv[0] = "use";
	assert_true(has(repl_candidates(&sh, 1, argv, "", buf, 128), "expint"));
	argv[0] = "run";
	assert_true(has(repl_candidates(&sh, 1, argv, "", buf, 128), "both"));
	argv[0] = "help"; /* what help takes: commands, problems, topics and every variant */
	const char *const *topics = repl_candidates(&sh, 1, argv, "", buf, 128);
	assert_true(has(topics, "sweep") && has(topics, "longman") && has(topics, "variants"));
	assert_true(has(topics, "shared") && has(topics, "streams") && has(topics, "qawf"));
	assert_true(has(topics, "threads") && has(topics, "block")); /* settings */
	argv[1] = "variant"; /* help variant NAME: the variants */
	assert_true(has(repl_candidates(&sh, 2, argv, "", buf, 128), "packed"));
	assert_false(has(repl_candidates(&sh, 2, argv, "", buf, 128), "threads"));
	topics = repl_candidates(&sh, 1, argv, "", buf, 128);
	size_t coursework = 0;
	for (size_t i = 0; topics[i]; i++)
		coursework += strcmp(topics[i], "coursework") == 0;
	assert_int_equal(coursework, 1); /* a topic and a variant: offered once */
	argv[0] = "source";
	assert_null(repl_candidates(&sh, 1, argv, "", buf, 128));
	/* a file argument whose command has first words: those where the text begins one, else
	 * file names (NULL) */
	static const struct {
		const char *line[2], *text, *want;
	} files[] = {
	    {{"plot"}, "conv", "convergence"}, {{"plot"}, "", "convergence"},
	    {{"plot"}, "out", NULL},           {{"plot", "convergence"}, "c", NULL},
	    {{"export"}, "v", "values"},       {{"export"}, "runs.csv", NULL},
	};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char *line[3] = {(char *)files[i].line[0], (char *)files[i].line[1], NULL};
		const char *const *got =
		    repl_candidates(&sh, line[1] ? 2 : 1, line, files[i].text, buf, 128);
		if (files[i].want)
			assert_true(has(got, files[i].want));
		else
			assert_null(got);
	}
	argv[0] = "export";
	assert_false(has(repl_candidates(&sh, 1, argv, "v", buf, 128), "last"));
	session_free(&sh.s);
}

/* set is all or nothing: one bad pair leaves every value unchanged. */
static void test_set_atomic(void **state)
{
	static struct session s;
	char *ok[] = {"n", "20", "precision", "double"};
	char *bad[] = {"n", "30", "a", "10", "b", "5"};
	char *unknown[] = {"n", "40", "nosuch", "1"};
	struct qx_err e;
	(void)state;
	session_init(&s);
	assert_int_equal(session_set(&s, 4, ok, &e), 0);
	assert_true(s.params[0][0].num == 20);
	assert_true(session_setting(&s, S_PRECISION) == QX_DOUBLE);
	assert_int_equal(session_set(&s, 6, bad, &e), -1);
	assert_non_null(strstr(e.msg, "a must be less than b"));
	assert_true(s.params[0][0].num == 20 && s.params[0][2].num == 0);
	assert_int_equal(session_set(&s, 4, unknown, &e), -1);
	assert_non_null(strstr(e.msg, "unknown parameter 'nosuch'"));
	assert_int_equal(session_set(&s, 1, unknown, &e), -1);
	assert_true(s.params[0][0].num == 20);
	assert_int_equal(session_set_words(&s, "n 7  m 9", &e), 0); /* the words of a string */
	assert_true(s.params[0][0].num == 7 && s.params[0][1].num == 9);
	assert_int_equal(session_set_words(&s, "n 8 m", &e), -1);
	assert_true(s.params[0][0].num == 7);
	session_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_int),        cmocka_unit_test(test_real_range_enum),
	    cmocka_unit_test(test_format),     cmocka_unit_test(test_cmd_find),
	    cmocka_unit_test(test_split),      cmocka_unit_test(test_completion),
	    cmocka_unit_test(test_set_atomic), cmocka_unit_test(test_real_words_and_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
