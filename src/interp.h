/* interp.h - the line interpreter: a line split into commands and words, each command found
 * in a command table and run with its arguments checked. Generic over the table, which its
 * caller passes (commands.h holds quadx's), so that it needs no command of its own. */
#ifndef QX_INTERP_H
#define QX_INTERP_H

#include "shell.h"

#define QX_MAX_ARGS 64
#define QX_LINE_MAX 65536 /* bytes of one input line */

/* What the first argument of a command completes to. */
enum cmd_arg { ARG_NONE, ARG_PROBLEM, ARG_SET, ARG_WORDS, ARG_TOPIC, ARG_FILE };

/* One command of a table: what dispatch, `help` and completion read. */
struct cmd_entry {
	const char *name;
	const char *usage;
	const char *help;
	int min_args, max_args;
	enum cmd_arg arg;
	const char *const *words; /* ARG_WORDS: the allowed words; ARG_FILE: first words */
	int full_screen;          /* 1: it takes the terminal over: no progress line around it */
	int (*exec)(struct shell *sh, int argc, char **argv, struct qx_err *e);
};

/* Returns the command of table (terminated by an entry with a NULL name) named name or
 * uniquely prefixed by it; NULL with e naming the matches or every command otherwise. */
const struct cmd_entry *cmd_lookup(const struct cmd_entry *table, const char *name,
                                   struct qx_err *e);

/* Splits one command's text into words in place: blanks separate, quotes group, # starts a
 * comment. Returns the number of words, or -1 with e filled (unbalanced quote, too many). */
int cmd_split(char *text, char **argv, int max, struct qx_err *e);

/* Executes one line of commands of table, separated by ';' outside quotes, stopping at the
 * first error or at quit; returns 0 or -1 with e filled. */
int interp_exec_line(struct shell *sh, const struct cmd_entry *table, const char *line,
                     struct qx_err *e);

#endif
