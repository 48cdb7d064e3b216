/* repl.c - the interactive prompt on GNU Readline. */
#include "repl.h"

#include <errno.h>
#include <limits.h>
#include <readline/history.h>
#include <readline/readline.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmdhistory.h"
#include "help.h"
#include "messages.h"

#define MAX_CANDIDATES 128

static struct shell *repl_shell;

/* Appends the command names to buf. */
static size_t add_commands(const char **buf, size_t n, size_t cap)
{
	for (const struct cmd_entry *c = cmd_table; c->name && n < cap; c++)
		buf[n++] = c->name;
	return n;
}

/* Appends the problem names to buf. */
static size_t add_problems(const char **buf, size_t n, size_t cap)
{
	for (int i = 0; qx_problems[i] && n < cap; i++)
		buf[n++] = qx_problems[i]->name;
	return n;
}

/* Appends the variant names of every problem to buf, each once (help VARIANT). */
static size_t add_variants(const char **buf, size_t n, size_t cap)
{
	for (int i = 0; qx_problems[i]; i++)
		for (size_t v = 0; v < qx_problems[i]->nvariants && n < cap; v++) {
			const char *name = qx_problems[i]->variants[v].name;
			size_t k = 0;
			while (k < n && strcmp(buf[k], name) != 0)
				k++;
			if (k == n)
				buf[n++] = name;
		}
	return n;
}

/* Candidates for `set`: names at even positions, enumerated values after an enum name. */
static size_t set_candidates(struct shell *sh, int word, char **argv, const char **buf, size_t cap)
{
	const struct problem *p = sh->s.prob;
	size_t n = 0;
	if (word % 2 == 1) {
		for (size_t k = 0; k < p->nparams && n < cap; k++)
			buf[n++] = p->params[k].name;
		for (size_t k = 0; k < p->nsettings && n < cap; k++)
			buf[n++] = p->settings[k].name;
		for (int k = 0; k < S_COUNT && n < cap; k++)
			buf[n++] = settings_defs[k].name;
		return n;
	}
	int k = param_find(p->params, p->nparams, argv[word - 1]);
	const char *const *choices = k >= 0 ? p->params[k].choices : NULL;
	if (k < 0 && (k = param_find(settings_defs, S_COUNT, argv[word - 1])) >= 0) {
		if (k == S_VARIANT) {
			for (size_t v = 0; v < p->nvariants && n < cap; v++)
				buf[n++] = p->variants[v].name;
			return n;
		}
		choices = settings_defs[k].choices;
	}
	for (size_t i = 0; choices && choices[i] && n < cap; i++)
		buf[n++] = choices[i];
	return n;
}

/* Builds the candidate list for the word at index `word`, whose text so far is text; NULL where
 * readline's file names complete it. */
const char *const *repl_candidates(struct shell *sh, int word, char **argv, const char *text,
                                   const char **buf, size_t cap)
{
	struct qx_err e;
	const struct cmd_entry *c;
	size_t n = 0;
	cap--; /* room for the NULL */
	if (word == 0) {
		n = add_commands(buf, 0, cap);
	} else if ((c = cmd_find(argv[0], &e)) != NULL) {
		switch (c->arg) {
		case ARG_FILE: /* its first words where one begins with the text, else file names */
			for (size_t i = 0; word == 1 && c->words && c->words[i] && n < cap; i++)
				if (strncmp(c->words[i], text, strlen(text)) == 0)
					buf[n++] = c->words[i];
			if (n == 0)
				return NULL;
			break;
		case ARG_PROBLEM:
			if (word == 1)
				n = add_problems(buf, 0, cap);
			break;
		case ARG_SET:
			n = set_candidates(sh, word, argv, buf, cap);
			break;
		case ARG_WORDS:
			for (size_t i = 0; word == 1 && c->words[i] && n < cap; i++)
				buf[n++] = c->words[i];
			break;
		case ARG_TOPIC:
			if (word == 1) {
				n = add_commands(buf, 0, cap);
				n = add_problems(buf, n, cap);
				for (int i = 0; help_topics[i] && n < cap; i++)
					buf[n++] = help_topics[i];
				for (int k = 0; k < S_COUNT && n < cap; k++)
					buf[n++] = settings_defs[k].name;
				n = add_variants(buf, n, cap);
			} else if (word == 2 && strcmp(argv[1], "variant") == 0) {
				n = add_variants(buf, 0, cap);
			}
			break;
		case ARG_NONE:
			break;
		}
	}
	buf[n] = NULL;
	return buf;
}

static const char *completion_list[MAX_CANDIDATES];

/* Readline generator: returns the next candidate starting with text (malloc'd). */
static char *completion_next(const char *text, int state)
{
	static size_t i, len;
	if (!state) {
		i = 0;
		len = strlen(text);
	}
	while (completion_list[i]) {
		const char *name = completion_list[i++];
		if (strncmp(name, text, len) == 0)
			return strdup(name);
	}
	return NULL;
}

/* Readline completion hook: splits the line before the cursor and completes its last word. */
static char **completion_hook(const char *text, int start, int end)
{
	char *before = strndup(rl_line_buffer, (size_t)start);
	char *argv[QX_MAX_ARGS];
	struct qx_err e;
	char *seg;
	int argc;
	(void)end;
	if (!before)
		return NULL;
	seg = strrchr(before, ';'); /* complete within the last command of the line */
	argc = cmd_split(seg ? seg + 1 : before, argv, QX_MAX_ARGS, &e);
	if (argc < 0 ||
	    !repl_candidates(repl_shell, argc, argv, text, completion_list, MAX_CANDIDATES)) {
		free(before);
		return NULL; /* readline falls back to file names */
	}
	free(before);
	rl_attempted_completion_over = 1;
	return rl_completion_matches(text, completion_next);
}

/* Writes the history file path into buf and creates its directory. */
int repl_history_path(char *buf, size_t len)
{
	const char *env = getenv("QUADX_HISTFILE"), *state = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");
	char dir[PATH_MAX];
	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return 0;
	}
	if (state && *state)
		snprintf(dir, sizeof dir, "%s/quadx", state);
	else if (home && *home)
		snprintf(dir, sizeof dir, "%s/.local/state/quadx", home);
	else
		return -1;
	/* mkdir -p: create each component, ignoring those that exist. */
	for (char *p = dir + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(dir, 0700);
			*p = '/';
		}
	if (mkdir(dir, 0700) && errno != EEXIST)
		return -1;
	snprintf(buf, len, "%s/history", dir);
	return 0;
}

/* Builds the prompt "quadx PROBLEM/PRECISION> ". */
static void repl_prompt(const struct shell *sh, char *buf, size_t len)
{
	snprintf(buf, len, "quadx %s/%s> ", sh->s.prob->name,
	         qx_precision_name((enum qx_precision)session_setting(&sh->s, S_PRECISION)));
}

/* Called by readline when a signal interrupted its read: a Ctrl-C at the prompt (the SIGINT
 * handler set the cancel flag, no run being in progress) discards the line being typed and
 * shows a fresh prompt, as shells do. Returns 0. */
static int repl_on_signal(void)
{
	if (!qx_cancelled())
		return 0;
	qx_cancel_clear();
	rl_replace_line("", 0);
	rl_point = rl_end = 0;
	rl_crlf();
	rl_on_new_line();
	rl_redisplay();
	return 0;
}

/* Sets readline up for sh: its name, completion from the tables, the history's length, and
 * Ctrl-C at the prompt. */
void repl_init(struct shell *sh)
{
	repl_shell = sh;
	rl_readline_name = "quadx";
	rl_attempted_completion_function = completion_hook;
	rl_signal_event_hook = repl_on_signal;
	stifle_history(QX_HISTORY_LINES);
}

/* The interactive loop: a one-line banner, then a line at a time; each line typed (in the
 * dashboard too) is appended to the history file before it runs (a run killed by a signal is
 * still there), and long help pages go through the pager. */
int repl_run(struct shell *sh)
{
	char hist[PATH_MAX], prompt[128];
	struct qx_err herr;
	int have_hist = repl_history_path(hist, sizeof hist) == 0;
	int failed = 0;
	repl_init(sh);
	if (have_hist && history_open(hist, &herr)) {
		fprintf(stderr, "quadx: %s\n", herr.msg);
		have_hist = 0;
	}
	messages_use_pager(1);
	printf("quadx: type help for the commands; Tab completes; quit or Ctrl-D leaves\n");
	while (!sh->quit) {
		struct qx_err e = {""};
		char *line;
		repl_prompt(sh, prompt, sizeof prompt);
		line = readline(prompt);
		if (!line) {
			putchar('\n');
			break;
		}
		if (*line)
			add_history(line);
		if (have_hist && history_append(hist, &herr))
			fprintf(stderr, "quadx: %s\n", herr.msg);
		if (shell_exec_line(sh, line, &e)) {
			fprintf(stderr, "quadx: %s\n", e.msg);
			failed++;
		}
		free(line);
	}
	messages_use_pager(0);
	return failed;
}
