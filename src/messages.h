/* messages.h - what quadx prints besides results, in the session's format: a script's errors,
 * help pages, and the rows of `eval` that have no value (no GPU; a precision that cannot
 * represent an argument or the result). In format json every one is a JSON Lines object on
 * the session's output, so that every line of a --json script is JSON. */
#ifndef QX_MESSAGES_H
#define QX_MESSAGES_H

#include "shell.h"

/* A command that prints text (help, plot): runs print(sh, argc, argv, e); in format json its
 * text, when there is any, is caught and printed as one {"type":kind,"topic":topic,
 * "text":TEXT} object instead.
 * Returns what print returns (-1 with e filled also when the text cannot be caught). */
int messages_text(struct shell *sh, const char *kind, const char *topic,
                  int (*print)(struct shell *sh, int argc, char **argv, struct qx_err *e), int argc,
                  char **argv, struct qx_err *e);

/* Whether messages_text sends text longer than the terminal through the pager ($PAGER, else
 * `less -FRX` when there is one) while the session prints to stdout on a terminal: on at the
 * interactive prompt. */
void messages_use_pager(int on);

/* Prints the row of `eval` for backend b and precision prec (prec < 0: the whole backend)
 * whose value is missing: status says why in a word ("unavailable", "not representable"),
 * why in a sentence. Text: `P(ARGS)  BACKEND PREC  STATUS: WHY`, or `P  gpu: none (WHY)` for
 * a missing backend; json: the eval object with "value":null, "status" and "note"; csv:
 * the eval row with an empty value, the status and the note (json and csv: for a missing
 * backend, a row per precision). */
void messages_eval_missing(struct output_ctx *io, const struct problem *p, const double *args,
                           size_t nargs, enum qx_backend b, int prec, const char *status,
                           const char *why);

/* Whether precision prec represents the argument x: 0 when x is not zero but rounds to zero
 * or to infinity in it. */
int messages_representable(enum qx_precision prec, double x);

#endif
