/* interp.c - the line interpreter (interp.h): a line cut at ';' and '#', each command split
 * into words, found in the table it is given, its arity checked, then run. */
#include "interp.h"

#include <stdlib.h>
#include <string.h>

#include "promptline.h"

/* Finds a command of table by exact name or unique prefix. */
const struct cmd_entry *cmd_lookup(const struct cmd_entry *table, const char *name,
                                   struct qx_err *e)
{
	const struct cmd_entry *hit = NULL;
	char matches[256] = "";
	const size_t len = strlen(name);
	int n = 0;
	for (const struct cmd_entry *c = table; c->name; c++) {
		if (strcmp(c->name, name) == 0)
			return c;
		if (len && strncmp(c->name, name, len) == 0) {
			hit = c;
			strncat(matches, n++ ? ", " : "", sizeof matches - strlen(matches) - 1);
			strncat(matches, c->name, sizeof matches - strlen(matches) - 1);
		}
	}
	if (n == 1)
		return hit;
	if (n > 1) {
		qx_fail(e, "ambiguous command '%.64s': %s", name, matches);
		return NULL;
	}
	matches[0] = '\0';
	for (const struct cmd_entry *c = table; c->name; c++) {
		strncat(matches, c != table ? ", " : "", sizeof matches - strlen(matches) - 1);
		strncat(matches, c->name, sizeof matches - strlen(matches) - 1);
	}
	qx_fail(e, "unknown command '%.64s': commands are %s", name, matches);
	return NULL;
}

/* Splits text into words in place. */
int cmd_split(char *text, char **argv, int max, struct qx_err *e)
{
	int argc = 0;
	char *r = text, *w = text;
	for (;;) {
		while (*r == ' ' || *r == '\t' || *r == '\r' || *r == '\n')
			r++;
		if (!*r || *r == '#')
			break;
		if (argc == max)
			return qx_fail(e, "too many words on one line (at most %d)", max);
		argv[argc++] = w;
		while (*r && *r != ' ' && *r != '\t' && *r != '\r' && *r != '\n') {
			if (*r == '"' || *r == '\'') {
				const char q = *r++;
				while (*r && *r != q)
					*w++ = *r++;
				if (!*r)
					return qx_fail(e, "unbalanced %s quote",
					               q == '"' ? "double" : "single");
				r++;
			} else {
				*w++ = *r++;
			}
		}
		if (*r)
			r++;
		*w++ = '\0';
	}
	return argc;
}

/* Runs one command of table given as words. */
static int exec_words(struct shell *sh, const struct cmd_entry *table, int argc, char **argv,
                      struct qx_err *e)
{
	const struct cmd_entry *c = cmd_lookup(table, argv[0], e);
	if (!c)
		return -1;
	if (argc - 1 < c->min_args || argc - 1 > c->max_args)
		return qx_fail(e, "%s: wrong number of arguments (usage: %s)", c->name, c->usage);
	/* A Ctrl-C from before this command does not cancel it; one during it cancels it, even
	 * between the runs of a sweep (nothing clears the flag while the command runs). */
	qx_cancel_clear();
	if (!sh->progress_line || sh->io.dashboard || c->full_screen)
		return c->exec(sh, argc, argv, e);
	const int shown = promptline_begin();
	const int rc = c->exec(sh, argc, argv, e);
	if (shown == 1)
		promptline_end();
	else
		promptline_clear(); /* a command of `source`: its error may follow */
	return rc;
}

/* Executes a line: commands separated by ';' outside quotes; stops at the first error. */
int interp_exec_line(struct shell *sh, const struct cmd_entry *table, const char *line,
                     struct qx_err *e)
{
	const size_t len = strlen(line);
	char *copy, *start;
	char quote = 0;
	int rc = 0;
	if (len > QX_LINE_MAX)
		return qx_fail(e, "line too long (%zu bytes; at most %d)", len, QX_LINE_MAX);
	copy = strdup(line);
	if (!copy)
		return qx_fail(e, "out of memory");
	start = copy;
	for (char *p = copy;; p++) {
		if (*p && quote) {
			quote = *p == quote ? 0 : quote;
			continue;
		}
		if (*p == '"' || *p == '\'') {
			quote = *p;
			continue;
		}
		if (*p == '#') /* a comment runs to the end of the line */
			*p = '\0';
		if (*p && *p != ';')
			continue;
		const int end = !*p;
		char *argv[QX_MAX_ARGS];
		*p = '\0';
		int argc = cmd_split(start, argv, QX_MAX_ARGS, e);
		if (argc < 0 || (argc > 0 && exec_words(sh, table, argc, argv, e))) {
			rc = -1;
			break;
		}
		if (end || sh->quit)
			break;
		start = p + 1;
	}
	free(copy);
	return rc;
}
