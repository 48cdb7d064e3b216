/* script.c - commands read from a stream (script.h): a line at a time, with its number for
 * errors; a line that is not text (too long, a NUL, endless) is refused, not run. */
#include "script.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "messages.h"
#include "output.h"

/* How reading one line of a script ended. */
enum line_status { LINE_OK, LINE_EOF, LINE_TOO_LONG, LINE_NUL, LINE_ENDLESS, LINE_READ_ERROR };

/* A line longer than this is not text: the rest of the stream is abandoned. */
#define QX_LINE_ABANDON (16L * 1024 * 1024)

/* Reads one line of f into buf (at most QX_LINE_MAX bytes and a NUL), without its newline.
 * A longer line is skipped up to its newline (LINE_TOO_LONG), or up to QX_LINE_ABANDON bytes
 * (LINE_ENDLESS); a line holding a NUL byte is LINE_NUL. */
static enum line_status read_line(FILE *f, char *buf)
{
	long len = 0;
	int c, nul = 0;
	for (;;) {
		c = getc(f);
		if (c == EOF && ferror(f) && errno == EINTR) {
			clearerr(f); /* a Ctrl-C while waiting for input: not a read error */
			continue;
		}
		if (c == EOF || c == '\n')
			break;
		if (len < QX_LINE_MAX)
			buf[len] = (char)c;
		nul |= c == '\0';
		if (++len > QX_LINE_ABANDON)
			return LINE_ENDLESS;
	}
	buf[len < QX_LINE_MAX ? len : QX_LINE_MAX] = '\0';
	if (c == EOF && ferror(f))
		return LINE_READ_ERROR;
	if (c == EOF && len == 0)
		return LINE_EOF;
	if (len > QX_LINE_MAX)
		return LINE_TOO_LONG;
	return nul ? LINE_NUL : LINE_OK;
}

/* Reads one line and executes it as a line of table's commands; returns 0, -1 with e filled, or 1
 * at the end of f (-1 with *stop set when the rest of f cannot be read). */
static int exec_next(struct shell *sh, const struct cmd_entry *table, FILE *f, char *buf, int *stop,
                     struct qx_err *e)
{
	switch (read_line(f, buf)) {
	case LINE_EOF:
		return 1;
	case LINE_OK:
		return interp_exec_line(sh, table, buf, e);
	case LINE_TOO_LONG:
		return qx_fail(e, "line too long (at most %d bytes)", QX_LINE_MAX);
	case LINE_NUL:
		return qx_fail(e, "line contains a NUL byte (scripts are text)");
	case LINE_ENDLESS:
		*stop = 1;
		return qx_fail(e, "no line break in %ld bytes: not a text script; stopped reading",
		               QX_LINE_ABANDON);
	case LINE_READ_ERROR:
		*stop = 1;
		return qx_fail(e, "read error: %s", strerror(errno));
	}
	return -1;
}

/* Reports the error msg of line n of a stream (file: its name, or NULL) or, with commands, of
 * the command at place n among the commands of -e (which share one line): on stderr as
 * `quadx: [FILE: ]line N: msg` or `quadx: command N of -e: msg`, and in format json as an error
 * object on the output, {"type":"error","error":msg,"line":N[,"file":FILE]} or
 * {...,"command":N,"source":"-e"}. */
static void stream_error(struct output_ctx *io, const char *file, long n, int commands,
                         const char *msg)
{
	if (commands)
		fprintf(stderr, "quadx: command %ld of -e: %s\n", n, msg);
	else if (file)
		fprintf(stderr, "quadx: %s: line %ld: %s\n", file, n, msg);
	else
		fprintf(stderr, "quadx: line %ld: %s\n", n, msg);
	fflush(stderr);
	if (io->format != FORMAT_JSON)
		return;
	cJSON *obj = cJSON_CreateObject();
	cJSON_AddStringToObject(obj, "type", "error");
	cJSON_AddStringToObject(obj, "error", msg);
	cJSON_AddNumberToObject(obj, commands ? "command" : "line", (double)n);
	if (commands)
		cJSON_AddStringToObject(obj, "source", "-e");
	else if (file)
		cJSON_AddStringToObject(obj, "file", file);
	output_print_json(io, obj);
	fflush(io->out);
}

/* Reads and executes f line by line, reporting errors with their line number (commands: with
 * their place among the commands of -e). */
static int run_stream(struct shell *sh, const struct cmd_entry *table, FILE *f, const char *name,
                      int keep_going, int commands)
{
	char *buf = malloc(QX_LINE_MAX + 1);
	long lineno = 0;
	int failed = 0, stop = 0, rc = 0;
	if (!buf) {
		fprintf(stderr, "quadx: out of memory for a line buffer\n");
		return 1;
	}
	while (!sh->quit && !stop) {
		struct qx_err e = {""};
		lineno++;
		rc = exec_next(sh, table, f, buf, &stop, &e);
		if (ferror(sh->io.out)) { /* the output is lost: stop; main reports it at exit */
			failed++;
			break;
		}
		if (rc > 0)
			break;
		if (rc == 0)
			continue;
		failed++;
		stream_error(&sh->io, name, lineno, commands, e.msg);
		if (!keep_going)
			break;
	}
	free(buf);
	return failed;
}

/* Reads a script of table's commands. */
int script_run_stream(struct shell *sh, const struct cmd_entry *table, FILE *f, const char *name,
                      int keep_going)
{
	return run_stream(sh, table, f, name, keep_going, 0);
}

/* Runs the commands of -e, table's commands. */
int script_run_commands(struct shell *sh, const struct cmd_entry *table, FILE *f, int keep_going)
{
	return run_stream(sh, table, f, NULL, keep_going, 1);
}
