/* test_history.c - the history file shared by two quadx sessions at its line cap: every line
 * each appends is kept, none twice, and the file holds the cap's lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <readline/history.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../src/cmdhistory.h"

#define LINES_EACH 600

/* In a child: opens path as a session does and appends LINES_EACH lines named by tag, one at a
 * time as they are typed; exits 0, or 1 on an error. */
static void append_lines(const char *path, char tag)
{
	struct qx_err e;
	char line[32];
	if (history_open(path, &e))
		_exit(1);
	for (int i = 0; i < LINES_EACH; i++) {
		snprintf(line, sizeof line, "%c %d", tag, i);
		add_history(line);
		if (history_append(path, &e))
			_exit(1);
	}
	_exit(0);
}

/* Two sessions append to a file already at its cap at the same time; the file then holds the
 * cap's lines: all of both sessions' lines, once each, and the newest old lines before them. */
static void test_two_sessions_at_the_cap(void **state)
{
	char path[] = "/tmp/quadx-history-XXXXXX", line[64];
	int fd = mkstemp(path), status, seen[2][LINES_EACH] = {{0}}, total = 0, old = 0;
	FILE *f;
	pid_t kids[2];
	(void)state;
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	for (int i = 0; i < QX_HISTORY_LINES; i++)
		fprintf(f, "old %d\n", i);
	assert_int_equal(fclose(f), 0);
	for (int k = 0; k < 2; k++) {
		kids[k] = fork();
		assert_true(kids[k] >= 0);
		if (kids[k] == 0)
			append_lines(path, k ? 'B' : 'A');
	}
	for (int k = 0; k < 2; k++) {
		assert_int_equal(waitpid(kids[k], &status, 0), kids[k]);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof line, f)) {
		int i;
		char tag;
		total++;
		if (sscanf(line, "%c %d", &tag, &i) == 2 && (tag == 'A' || tag == 'B')) {
			assert_true(i >= 0 && i < LINES_EACH);
			seen[tag == 'B'][i]++;
		} else {
			assert_true(strncmp(line, "old ", 4) == 0);
			old++;
		}
	}
	fclose(f);
	unlink(path);
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < LINES_EACH; i++)
			assert_int_equal(seen[k][i], 1);
	assert_int_equal(old, QX_HISTORY_LINES - 2 * LINES_EACH);
	assert_int_equal(total, QX_HISTORY_LINES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_two_sessions_at_the_cap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
