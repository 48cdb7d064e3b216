/* repl.h - the interactive GNU Readline prompt: completion from the command table, history. */
#ifndef QX_REPL_H
#define QX_REPL_H

#include "commands.h"

/* Sets readline up for sh: completion from the command table, history length. */
void repl_init(struct shell *sh);

/* Runs the prompt until quit or end of input; returns the number of failed commands. */
int repl_run(struct shell *sh);

/* Returns the completion candidates for the word at index `word` of a line whose earlier
 * words are argv[0..word) and whose word so far is text; a NULL-terminated list of the
 * session's static names, or NULL for file-name completion (a file argument, unless one of its
 * command's first words begins with text). Used by readline and unit-tested without it. */
const char *const *repl_candidates(struct shell *sh, int word, char **argv, const char *text,
                                   const char **buf, size_t cap);

/* The history file: $QUADX_HISTFILE, else $XDG_STATE_HOME/quadx/history, else
 * ~/.local/state/quadx/history; writes it into buf, returns 0 or -1. */
int repl_history_path(char *buf, size_t len);

#endif
