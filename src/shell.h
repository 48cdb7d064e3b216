/* shell.h - the shell: a session plus the state of the interpreter around it. What the
 * commands, the prompt, the dashboard and the modules a command calls (history, notes) take,
 * so that they need no part of the command table (commands.h). */
#ifndef QX_SHELL_H
#define QX_SHELL_H

#include "output_ctx.h"
#include "session.h"

/* A session plus the state of the interpreter around it. */
struct shell {
	struct session s;
	struct output_ctx io; /* where and how commands print */
	int quit;             /* set by `quit` */
	int depth;            /* nesting of `source` */
	int progress_line;    /* 1: long runs show their progress on stderr, a terminal */
};

#endif
