/* commands.h - the command table (dispatch, help and completion all read it) and the line
 * interpreter shared by the readline prompt, scripts and -e. */
#ifndef QX_COMMANDS_H
#define QX_COMMANDS_H

#include "shell.h"

#define QX_MAX_ARGS 64
#define QX_LINE_MAX 65536 /* bytes of one input line */

/* What the first argument of a command completes to. */
enum cmd_arg { ARG_NONE, ARG_PROBLEM, ARG_SET, ARG_WORDS, ARG_TOPIC, ARG_FILE };

struct cmd_entry {
	const char *name;
	const char *usage;
	const char *help;
	int min_args, max_args;
	enum cmd_arg arg;
	const char *const *words; /* ARG_WORDS: the allowed words */
	int (*exec)(struct shell *sh, int argc, char **argv, struct qx_err *e);
};

/* The command table, terminated by an entry with a NULL name. */
extern const struct cmd_entry cmd_table[];

/* Returns the command named name or uniquely prefixed by it; NULL with e filled otherwise. */
const struct cmd_entry *cmd_find(const char *name, struct qx_err *e);

/* Splits one command's text into words in place: blanks separate, quotes group, # starts a
 * comment. Returns the number of words, or -1 with e filled (unbalanced quote, too many). */
int cmd_split(char *text, char **argv, int max, struct qx_err *e);

/* Executes one line (commands separated by ';'); returns 0 or -1 with e filled. */
int shell_exec_line(struct shell *sh, const char *line, struct qx_err *e);

/* Registers run as what the `dashboard` command starts (the dashboard registers itself this
 * way, so that the command table does not depend on it); without one the command fails. */
void cmd_register_dashboard(int (*run)(struct shell *sh, int standalone, struct qx_err *e));

#endif
