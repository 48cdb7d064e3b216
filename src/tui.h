/* tui.h - the full-screen ncursesw dashboard (`dashboard`, `quadx --tui`). */
#ifndef QX_TUI_H
#define QX_TUI_H

#include "commands.h"

/* Runs the dashboard on the terminal until quit, F10, q alone on an empty line or Ctrl-D. Commands
 * typed there run on one worker thread through shell_exec_line, their output going to the Log
 * panel. standalone (quadx --tui) also reads and writes the history file, which the plain prompt
 * does otherwise. Returns 0, or -1 with e filled when stdin or stdout is not a terminal, the
 * dashboard is already open, or the terminal cannot be set up. */
int tui_run(struct shell *sh, int standalone, struct qx_err *e);

#endif
