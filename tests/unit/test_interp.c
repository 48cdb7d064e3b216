/* test_interp.c - the line interpreter and the script reader on a command table of the test's
 * own: they dispatch through the table they are given and know no command of quadx's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/interp.h"
#include "../../src/output.h"
#include "../../src/script.h"

/* What the test commands saw: the calls, the last call's words. */
static int calls;
static char seen[256];

/* echo [A [B]]: records its words. */
static int echo_exec(struct shell *sh, int argc, char **argv, struct qx_err *e)
{
	(void)sh;
	(void)e;
	calls++;
	seen[0] = '\0';
	for (int i = 0; i < argc; i++) {
		strncat(seen, i ? " " : "", sizeof seen - strlen(seen) - 1);
		strncat(seen, argv[i], sizeof seen - strlen(seen) - 1);
	}
	return 0;
}

/* fail: always fails. */
static int fail_exec(struct shell *sh, int argc, char **argv, struct qx_err *e)
{
	(void)sh;
	(void)argc;
	(void)argv;
	calls++;
	return qx_fail(e, "fail failed");
}

/* stop: sets quit, as quadx's quit does. */
static int stop_exec(struct shell *sh, int argc, char **argv, struct qx_err *e)
{
	(void)argc;
	(void)argv;
	(void)e;
	sh->quit = 1;
	return 0;
}

static const struct cmd_entry table[] = {
    {.name = "echo", .usage = "echo [A [B]]", .help = "", .max_args = 2, .exec = echo_exec},
    {.name = "fail", .usage = "fail", .help = "", .exec = fail_exec},
    {.name = "find", .usage = "find", .help = "", .exec = echo_exec},
    {.name = "stop", .usage = "stop", .help = "", .exec = stop_exec},
    {.name = NULL},
};

/* A fresh shell writing to /dev/null (its session unused by these commands). */
static struct shell *new_shell(void)
{
	static struct shell sh;
	static FILE *null;
	if (!null)
		null = fopen("/dev/null", "w");
	assert_non_null(null);
	memset(&sh, 0, sizeof sh);
	sh.io = output_ctx_of(null);
	calls = 0;
	seen[0] = '\0';
	return &sh;
}

/* Lookup: exact names, unique prefixes, ambiguity and unknown words name the table's own. */
static void test_lookup(void **state)
{
	struct qx_err e;
	(void)state;
	assert_ptr_equal(cmd_lookup(table, "echo", &e), &table[0]);
	assert_ptr_equal(cmd_lookup(table, "e", &e), &table[0]);
	assert_null(cmd_lookup(table, "f", &e));
	assert_string_equal(e.msg, "ambiguous command 'f': fail, find");
	assert_null(cmd_lookup(table, "run", &e));
	assert_string_equal(e.msg, "unknown command 'run': commands are echo, fail, find, stop");
}

/* A line: commands at ';' outside quotes, # a comment, arity checked from the table. */
static void test_exec_line(void **state)
{
	struct shell *sh = new_shell();
	struct qx_err e;
	(void)state;
	assert_int_equal(interp_exec_line(sh, table, "echo a; e 'b;c' d # echo x", &e), 0);
	assert_int_equal(calls, 2);
	assert_string_equal(seen, "e b;c d");
	assert_int_equal(interp_exec_line(sh, table, "echo 1 2 3", &e), -1);
	assert_string_equal(e.msg, "echo: wrong number of arguments (usage: echo [A [B]])");
	calls = 0;
	assert_int_equal(interp_exec_line(sh, table, "fail; echo", &e), -1);
	assert_string_equal(e.msg, "fail failed");
	assert_int_equal(calls, 1); /* the first error stops the line */
	calls = 0;
	assert_int_equal(interp_exec_line(sh, table, "stop; echo", &e), 0);
	assert_int_equal(calls, 0); /* quit stops it too */
}

/* A script: each line through the table, its failures counted, going on with keep_going. */
static void test_script(void **state)
{
	static const char text[] = "echo 1\nfail\necho 2\n";
	struct shell *sh = new_shell();
	FILE *f = fmemopen((void *)text, sizeof text - 1, "r");
	int failed;
	(void)state;
	assert_non_null(f);
	failed = script_run_stream(sh, table, f, "unit", 1);
	fclose(f);
	assert_int_equal(failed, 1);
	assert_int_equal(calls, 3);
	assert_string_equal(seen, "echo 2");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_lookup),
	    cmocka_unit_test(test_exec_line),
	    cmocka_unit_test(test_script),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
