/* help.h - the `help` command's pages: the command list, a command's, problem's, topic's,
 * variant's or setting's page, found in help/TOPIC.txt (helptext.c finds a paragraph in one). */
#ifndef QX_HELP_H
#define QX_HELP_H

#include "interp.h"

/* The topics that are pages of their own besides the commands and problems (help, completion). */
extern const char *const help_topics[];

/* help [TOPIC], help variant NAME: prints the page on sh's output, the command list and a
 * command's page from commands (a command table); returns 0 or -1 with e. */
int help_print(struct shell *sh, const struct cmd_entry *commands, int argc, char **argv,
               struct qx_err *e);

/* Finds the help page for topic (help/TOPIC.txt); returns a malloc'd path or NULL. */
char *help_page_path(const char *topic);

#endif
