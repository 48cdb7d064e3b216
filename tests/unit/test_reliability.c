/* test_reliability.c - bad input against the tables themselves: every parameter and setting of
 * every problem set out of range leaves the session unchanged with an error naming it; the
 * script reader's limits (NUL bytes, over-long and endless lines); control bytes in errors;
 * SIGINT during a sweep and before a command; and, in test builds, the QUADX_FAULT parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/commands.h"
#include "../../src/script.h"
#include "../../src/fault.h"
#include "../../src/sweep.h"

/* Writes into words[] values outside def's allowed set; returns how many. */
static int bad_words(const struct param_def *def, char words[][64])
{
	int n = 0;
	const char *common[] = {"nan", "inf", "-inf", "1e999", "", "\x01", "nosuch"};
	for (size_t i = 0; i < sizeof common / sizeof common[0]; i++)
		snprintf(words[n++], 64, "%s", common[i]);
	if (def->type == PARAM_ENUM || def->type == PARAM_EXPR) /* numbers are expressions */
		return n;
	snprintf(words[n++], 64, "%.17g", def->max * 2 + 1);
	snprintf(words[n++], 64, "%.17g", def->min_open ? def->min : def->min - 1);
	if (def->type == PARAM_INT)
		snprintf(words[n++], 64, "%.17g", def->min + 0.5);
	if (def->type == PARAM_RANGE) {
		snprintf(words[n++], 64, "%.17g:%.17g", def->max, def->min);
		snprintf(words[n++], 64, "%.17g:", def->min);
	}
	return n;
}

/* Sets name to each bad word on a fresh session of problem p and checks nothing changed. */
static void check_bad_values(const struct problem *p, const struct param_def *def)
{
	char words[16][64];
	const int n = bad_words(def, words);
	for (int i = 0; i < n; i++) {
		struct session s, before;
		struct qx_err e = {""};
		char *argv[2] = {(char *)def->name, words[i]};
		session_init(&s);
		assert_int_equal(session_use(&s, p->name, &e), 0);
		before = s;
		assert_int_equal(session_set(&s, 2, argv, &e), -1);
		assert_non_null(strstr(e.msg, def->name));
		assert_memory_equal(s.params, before.params, sizeof s.params);
		assert_memory_equal(s.settings, before.settings, sizeof s.settings);
		assert_memory_equal(s.variant, before.variant, sizeof s.variant);
		session_free(&s);
	}
}

/* Every parameter of every problem, and every setting, out of range. */
static void test_every_table_entry_out_of_range(void **state)
{
	int checked = 0;
	(void)state;
	for (int i = 0; qx_problems[i]; i++) {
		const struct problem *p = qx_problems[i];
		for (size_t k = 0; k < p->nparams; k++, checked++)
			check_bad_values(p, &p->params[k]);
		for (int k = 0; k < S_COUNT; k++, checked++)
			check_bad_values(p, &settings_defs[k]);
	}
	assert_true(checked > 2 * S_COUNT);
}

/* Runs text as a script on a fresh shell with --keep-going; returns the failed lines. */
static int run_script(const char *text, size_t len)
{
	struct shell sh;
	FILE *f = fmemopen((void *)text, len, "r"), *out = fopen("/dev/null", "w");
	int failed;
	assert_non_null(f);
	assert_non_null(out);
	memset(&sh, 0, sizeof sh);
	session_init(&sh.s);
	sh.io = output_ctx_of(out);
	failed = shell_run_stream(&sh, f, "unit", 1);
	fclose(f);
	fclose(out);
	session_free(&sh.s);
	return failed;
}

/* NUL bytes and over-long lines are one error each; the lines around them still run. */
static void test_script_reader_limits(void **state)
{
	static const char nul[] = "show params\nset n\0 5\n\nshow params";
	char *text;
	(void)state;
	assert_int_equal(run_script(nul, sizeof nul - 1), 1);
	text = malloc(QX_LINE_MAX + 100);
	assert_non_null(text);
	memset(text, 'x', QX_LINE_MAX + 100);
	memcpy(text + QX_LINE_MAX + 50, "\nshow\n", 6);
	assert_int_equal(run_script(text, QX_LINE_MAX + 56), 1); /* too long, then show */
	memcpy(text + QX_LINE_MAX + 50, "\nxyz\n", 5);
	assert_int_equal(run_script(text, QX_LINE_MAX + 55), 2); /* the unknown command too */
	free(text);
}

/* A stream without line breaks is abandoned after QX_LINE_ABANDON-sized reads: one error. */
static void test_endless_line(void **state)
{
	const size_t len = 17u * 1024 * 1024;
	char *text = calloc(len, 1);
	(void)state;
	assert_non_null(text);
	memset(text, 'a', len);
	assert_int_equal(run_script(text, len), 1);
	free(text);
}

/* Control bytes of a quoted word are written as \xNN. */
static void test_error_escapes_control_bytes(void **state)
{
	struct qx_err e;
	(void)state;
	qx_fail(&e, "bad '%s'", "a\x1b[2J\nb\x7f");
	assert_string_equal(e.msg, "bad 'a\\x1b[2J\\x0ab\\x7f'");
}

/* The sweep observer of test_sigint_between_sweep_configurations: a SIGINT (its handler's
 * call) as the first configuration finishes, before the second one starts. */
static void cancel_after_first(void *arg, const struct sweep *sw)
{
	(void)arg;
	if (sw->running && sw->configs_done == 1)
		qx_cancel_request();
}

/* Executes line on sh; returns its status, with the error in e. */
static int exec_quietly(struct shell *sh, const char *line, struct qx_err *e)
{
	memset(e, 0, sizeof *e);
	return shell_exec_line(sh, line, e);
}

/* A SIGINT as a sweep's configuration finishes cancels the sweep, keeping the row done; one
 * from before a command (cleared as the command is dispatched) does not cancel it. */
static void test_sigint_between_sweep_configurations(void **state)
{
	struct shell sh;
	struct qx_err e;
	FILE *out = fopen("/dev/null", "w");
	(void)state;
	assert_non_null(out);
	memset(&sh, 0, sizeof sh);
	session_init(&sh.s);
	sh.io = output_ctx_of(out);
	assert_int_equal(exec_quietly(&sh, "set n 5 m 5 repeat 1 warmup 0", &e), 0);
	sh.s.sweep_observer = cancel_after_first;
	assert_int_equal(exec_quietly(&sh, "sweep threads 1,2,3 on cpu", &e), -1);
	assert_non_null(strstr(e.msg, "sweep cancelled after 1 runs"));
	assert_true(sh.s.sweep->cancelled);
	assert_int_equal(sh.s.sweep->nrows, 1);
	sh.s.sweep_observer = NULL;
	qx_cancel_request(); /* Ctrl-C at the prompt, then a command */
	assert_int_equal(exec_quietly(&sh, "sweep threads 1,2,3 on cpu", &e), 0);
	assert_int_equal(sh.s.sweep->nrows, 3);
	qx_cancel_request();
	assert_int_equal(exec_quietly(&sh, "run cpu", &e), 0);
	session_free(&sh.s);
	fclose(out);
}

/* Test builds: QUADX_FAULT=OP:N fails the N-th call of OP (matched by prefix) once. */
static void test_fault_parser(void **state)
{
	(void)state;
#ifdef QX_FAULT_INJECTION
	/* The first qx_fault() call reads the environment, so it is set before any. */
	setenv("QUADX_FAULT", "cudaMemcpy:2,fopen", 1);
	assert_int_equal(qx_fault("cudaMemcpyAsync(a, b)"), 0);
	assert_int_equal(qx_fault("malloc"), 0);
	assert_int_equal(qx_fault("(cudaMemcpy(x))"), 1);
	assert_int_equal(qx_fault("cudaMemcpy(x)"), 0);
	assert_int_equal(qx_fault("fopen"), 1);
	assert_int_equal(qx_fault("fopen"), 0);
#else
	setenv("QUADX_FAULT", "fopen", 1);
	assert_int_equal(qx_fault("fopen"), 0); /* release builds never read it */
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fault_parser),
	    cmocka_unit_test(test_every_table_entry_out_of_range),
	    cmocka_unit_test(test_script_reader_limits),
	    cmocka_unit_test(test_endless_line),
	    cmocka_unit_test(test_error_escapes_control_bytes),
	    cmocka_unit_test(test_sigint_between_sweep_configurations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
