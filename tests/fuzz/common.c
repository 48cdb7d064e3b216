/* common.c - the fresh shell of the harnesses and the wrapper (ld --wrap=session_run) that
 * lets only tiny runs start, so the fuzzers explore commands rather than compute. */
#include "common.h"

#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int __real_session_run(struct session *s, enum qx_backend b, struct qx_err *e);
int __wrap_session_run(struct session *s, enum qx_backend b, struct qx_err *e);

static struct shell fuzz_shell;
static FILE *devnull;

/* Initializes a shell as main() does, writing to /dev/null. */
struct shell *fuzz_shell_new(void)
{
	if (!devnull) {
		gsl_set_error_handler_off();
		devnull = fopen("/dev/null", "w");
		if (!devnull)
			abort();
	}
	memset(&fuzz_shell, 0, sizeof fuzz_shell);
	session_init(&fuzz_shell.s, devnull);
	return &fuzz_shell;
}

/* Frees the session of sh. */
void fuzz_shell_free(struct shell *sh)
{
	session_free(&sh->s);
}

/* Copies data into a NUL-terminated string. */
char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* session_run as the harnesses see it: refuses a run larger than FUZZ_MAX_VALUES values or
 * FUZZ_MAX_REPS repetitions with an error, and runs the others for real. */
int __wrap_session_run(struct session *s, enum qx_backend b, struct qx_err *e)
{
	const size_t count = s->prob->count(s->params[s->prob_index]);
	const double reps = session_setting(s, S_REPEAT) + session_setting(s, S_WARMUP);
	if (count > FUZZ_MAX_VALUES || reps > FUZZ_MAX_REPS)
		return qx_fail(e, "fuzz: run of %zu values x %.0f not started", count, reps);
	return __real_session_run(s, b, e);
}
