/* cmdhistory.h - the lines typed at the prompt: the `history` command, and the history file
 * kept up to date line by line (appended as each line is entered, so a closed terminal loses
 * nothing), on GNU Readline's history list. */
#ifndef QX_CMDHISTORY_H
#define QX_CMDHISTORY_H

#include "shell.h"

/* The most lines the history file and the list keep. */
#define QX_HISTORY_LINES 2000

/* history [N]: prints the last N lines typed (default 20), numbered; returns 0, or -1 with e
 * filled (a bad N, or no line typed: scripts keep no history). */
int cmd_history(struct shell *sh, int argc, char **argv, struct qx_err *e);

/* Reads the history file at path into the list and creates the file when it is missing;
 * later lines are appended to it by history_append. Returns 0 or -1 with e filled. */
int history_open(const char *path, struct qx_err *e);

/* Appends to path the lines added to the list since history_open or the last call, then
 * trims the file to QX_HISTORY_LINES lines. Returns 0, or -1 with e naming the file and the
 * reason (the lines stay in the list for this session). */
int history_append(const char *path, struct qx_err *e);

#endif
