/* script.h - reading commands from a stream (a script, stdin, -f FILE, -e): line by line, each
 * line run by the interpreter on the command table it is given, each line's error reported
 * with where it was, stopping at the first unless keep_going. */
#ifndef QX_SCRIPT_H
#define QX_SCRIPT_H

#include <stdio.h>

#include "interp.h"

/* Reads commands of table from f line by line. Errors go to stderr as `quadx: line N: message`
 * (with name when it is not NULL); stops at the first unless keep_going, and after a line whose
 * output could not be written (main reports it). Returns the number of failed lines. */
int script_run_stream(struct shell *sh, const struct cmd_entry *table, FILE *f, const char *name,
                      int keep_going);

/* Runs the commands of -e, one a line of f, as script_run_stream does, but names an error by
 * the command's place among them: `quadx: command N of -e: message` (in JSON "command": N and
 * "source": "-e"), since the commands of one -e share its one line. */
int script_run_commands(struct shell *sh, const struct cmd_entry *table, FILE *f, int keep_going);

#endif
