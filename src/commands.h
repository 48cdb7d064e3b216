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

/* Help topics that are neither commands nor problems, NULL-terminated. */
extern const char *const help_topics[];

/* The command table, terminated by an entry with a NULL name. */
extern const struct cmd_entry cmd_table[];

/* Returns the command named name or uniquely prefixed by it; NULL with e filled otherwise. */
const struct cmd_entry *cmd_find(const char *name, struct qx_err *e);

/* Splits one command's text into words in place: blanks separate, quotes group, # starts a
 * comment. Returns the number of words, or -1 with e filled (unbalanced quote, too many). */
int cmd_split(char *text, char **argv, int max, struct qx_err *e);

/* Executes one line (commands separated by ';'); returns 0 or -1 with e filled. */
int shell_exec_line(struct shell *sh, const char *line, struct qx_err *e);

/* Reads commands from f line by line. Errors go to stderr as `quadx: line N: message` (with
 * name when it is not NULL); stops at the first unless keep_going, and after a line whose
 * output could not be written (main reports it). Returns the number of failed lines. */
int shell_run_stream(struct shell *sh, FILE *f, const char *name, int keep_going);

/* Runs the commands of -e, one a line of f, as shell_run_stream does, but names an error by
 * the command's place among them: `quadx: command N of -e: message` (in JSON "command": N and
 * "source": "-e"), since the commands of one -e share its one line. */
int shell_run_commands(struct shell *sh, FILE *f, int keep_going);

/* Registers run as what the `dashboard` command starts (the dashboard registers itself this
 * way, so that the command table does not depend on it); without one the command fails. */
void cmd_register_dashboard(int (*run)(struct shell *sh, int standalone, struct qx_err *e));

/* Finds the help page for topic (help/TOPIC.txt); returns a malloc'd path or NULL. */
char *help_page_path(const char *topic);

#endif
