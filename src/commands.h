/* commands.h - quadx's command table (dispatch, help and completion all read it) and the
 * shell's entry points, the interpreter (interp.h) and the script reader (script.h) run on it:
 * what the readline prompt, the dashboard, scripts and -e call. */
#ifndef QX_COMMANDS_H
#define QX_COMMANDS_H

#include <stdio.h>

#include "interp.h"

/* The command table, terminated by an entry with a NULL name. */
extern const struct cmd_entry cmd_table[];

/* Returns the command named name or uniquely prefixed by it; NULL with e filled otherwise. */
const struct cmd_entry *cmd_find(const char *name, struct qx_err *e);

/* Executes one line (commands separated by ';'); returns 0 or -1 with e filled. */
int shell_exec_line(struct shell *sh, const char *line, struct qx_err *e);

/* Reads commands from f line by line (script_run_stream on the command table): errors go to
 * stderr as `quadx: line N: message` (with name when it is not NULL); stops at the first
 * unless keep_going, and after a line whose output could not be written (main reports it).
 * Returns the number of failed lines. */
int shell_run_stream(struct shell *sh, FILE *f, const char *name, int keep_going);

/* Runs the commands of -e, one a line of f, as shell_run_stream does, an error named by the
 * command's place among them (script_run_commands on the command table). */
int shell_run_commands(struct shell *sh, FILE *f, int keep_going);

/* Registers run as what the `dashboard` command starts (the dashboard registers itself this
 * way, so that the command table does not depend on it); without one the command fails. */
void cmd_register_dashboard(int (*run)(struct shell *sh, int standalone, struct qx_err *e));

#endif
