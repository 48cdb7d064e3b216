/* common.c - the fresh shell of the harnesses and the wrappers (ld --wrap) that let only tiny
 * runs start (session_run) and keep export and plot inside a private temporary directory
 * (export_session, export_values, plot_sweep), so the fuzzers explore commands rather than
 * compute or write files where they should not. */
#include "common.h"

#include <dirent.h>
#include <gsl/gsl_errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/export.h"
#include "../../src/plot.h"
#include "../../src/run.h"

int __real_session_run(struct session *s, enum qx_backend b, struct qx_err *e);
int __wrap_session_run(struct session *s, enum qx_backend b, struct qx_err *e);
int __real_export_session(const struct session *s, enum out_format format, const char *path,
                          int last, struct qx_err *e);
int __wrap_export_session(const struct session *s, enum out_format format, const char *path,
                          int last, struct qx_err *e);
int __real_export_values(struct session *s, enum out_format format, const char *path,
                         struct qx_err *e);
int __wrap_export_values(struct session *s, enum out_format format, const char *path,
                         struct qx_err *e);
int __real_plot_sweep(const struct sweep *sw, const char *path, FILE *out, struct qx_err *e);
int __wrap_plot_sweep(const struct sweep *sw, const char *path, FILE *out, struct qx_err *e);

/* --wrap links the wrappers by name alone: each must keep the type of what it wraps. */
#define FUZZ_SAME_TYPE(f)                                                                          \
	_Static_assert(__builtin_types_compatible_p(__typeof__(&f), __typeof__(&__wrap_##f)),      \
	               "the wrapper of " #f " lost its type")
FUZZ_SAME_TYPE(session_run);
FUZZ_SAME_TYPE(export_session);
FUZZ_SAME_TYPE(export_values);
FUZZ_SAME_TYPE(plot_sweep);

static struct shell fuzz_shell;
static FILE *devnull;
static char file_dir[] = "/tmp/quadx-fuzz-XXXXXX"; /* where export and plot may write */

/* Removes every file of file_dir (export and plot create only files there). */
static void empty_file_dir(void)
{
	DIR *d = opendir(file_dir);
	struct dirent *ent;
	if (!d)
		return;
	while ((ent = readdir(d)) != NULL)
		if (ent->d_type != DT_DIR)
			unlinkat(dirfd(d), ent->d_name, 0);
	closedir(d);
}

/* At exit: removes file_dir with what is in it. */
static void remove_file_dir(void)
{
	empty_file_dir();
	rmdir(file_dir);
}

/* Initializes a shell as main() does, writing to /dev/null. The first call also creates
 * file_dir and empties PATH, so that plot finds no gnuplot to start and writes its script and
 * data instead. */
struct shell *fuzz_shell_new(void)
{
	if (!devnull) {
		gsl_set_error_handler_off();
		devnull = fopen("/dev/null", "w");
		if (!devnull || !mkdtemp(file_dir) || setenv("PATH", "", 1))
			abort();
		atexit(remove_file_dir);
	}
	memset(&fuzz_shell, 0, sizeof fuzz_shell);
	session_init(&fuzz_shell.s);
	fuzz_shell.io = output_ctx_of(devnull);
	return &fuzz_shell;
}

/* Frees the session of sh and removes the files its input wrote. */
void fuzz_shell_free(struct shell *sh)
{
	session_free(&sh->s);
	empty_file_dir();
}

/* Writes file_dir/path into buf (PATH_MAX bytes); returns 0, or -1 with e filled when path
 * names a directory (it holds a '/') and would write outside file_dir. */
static int fuzz_path(const char *path, char *buf, struct qx_err *e)
{
	if (strchr(path, '/'))
		return qx_fail(e, "fuzz: '%.64s' not written (only plain file names)", path);
	snprintf(buf, PATH_MAX, "%s/%s", file_dir, path);
	return 0;
}

/* export_session as the harnesses see it: plain names only, written into file_dir. */
int __wrap_export_session(const struct session *s, enum out_format format, const char *path,
                          int last, struct qx_err *e)
{
	char inside[PATH_MAX];
	if (fuzz_path(path, inside, e))
		return -1;
	return __real_export_session(s, format, inside, last, e);
}

/* export_values as the harnesses see it: plain names only, written into file_dir. */
int __wrap_export_values(struct session *s, enum out_format format, const char *path,
                         struct qx_err *e)
{
	char inside[PATH_MAX];
	if (fuzz_path(path, inside, e))
		return -1;
	return __real_export_values(s, format, inside, e);
}

/* plot_sweep as the harnesses see it: plain names only, written into file_dir. */
int __wrap_plot_sweep(const struct sweep *sw, const char *path, FILE *out, struct qx_err *e)
{
	char inside[PATH_MAX];
	if (fuzz_path(path, inside, e))
		return -1;
	return __real_plot_sweep(sw, inside, out, e);
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
	const size_t count =
	    s->prob->count(s->params[s->prob_index], session_state(s, s->prob), &s->user);
	const double reps = session_setting(s, S_REPEAT) + session_setting(s, S_WARMUP);
	if (count > FUZZ_MAX_VALUES || reps > FUZZ_MAX_REPS)
		return qx_fail(e, "fuzz: run of %zu values x %.0f not started", count, reps);
	return __real_session_run(s, b, e);
}
