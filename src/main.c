/* main.c - quadx's entry point: options, the coursework-compatible one-shot mode, and the
 * choice between the readline prompt and a script read from stdin, -f or -e. */
#include <errno.h>
#include <getopt.h>
#include <gsl/gsl_errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cuda/quadx_cuda.h"
#include "commands.h"
#include "coursework.h"
#include "fault.h"
#include "repl.h"
#include "tui.h"

#define QX_VERSION "0.1"

/* SIGINT: cancels the run in progress; polled by the CPU loops and between GPU runs. */
static void on_sigint(int sig)
{
	(void)sig;
	qx_cancel_request();
}

/* Returns a malloc'd copy of the -e text with each ';' outside quotes turned into a line
 * break, so each command is a script line of its own (numbered, and --keep-going applies). */
static char *commands_to_lines(const char *cmds)
{
	char *s = strdup(cmds), quote = 0;
	for (char *p = s; p && *p; p++) {
		if (quote)
			quote = *p == quote ? 0 : quote;
		else if (*p == '"' || *p == '\'')
			quote = *p;
		else if (*p == ';')
			*p = '\n';
	}
	return s;
}

/* Prints the usage of quadx. */
static void usage(FILE *f)
{
	fprintf(f,
	        "usage: quadx [--json] [--keep-going] [-f FILE | -e 'CMD; CMD...'] [--tui]\n"
	        "       quadx [-a A] [-b B] [-n N] [-m M] [-i ITERS] [-c] [-g] [-t] [-v] [-d]\n"
	        "On a terminal quadx starts an interactive prompt (type help). Otherwise it reads\n"
	        "commands from stdin, -f FILE or -e, stopping at the first error unless\n"
	        "--keep-going; --tui opens the full-screen dashboard instead. The second form\n"
	        "is the coursework's: one expint run, then exit\n"
	        "(-c skips the CPU, -g the GPU, -t prints times, -v values, -d uses double on the\n"
	        "GPU, -h prints this).\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"json", no_argument, NULL, 'J'},       {"keep-going", no_argument, NULL, 'K'},
	    {"help", no_argument, NULL, 'H'},       {"version", no_argument, NULL, 'V'},
	    {"file", required_argument, NULL, 'f'}, {"exec", required_argument, NULL, 'e'},
	    {"tui", no_argument, NULL, 'T'},        {NULL, 0, NULL, 0},
	};
	static struct shell shell;
	struct shell *sh = &shell;
	struct coursework_opts cw = {0};
	const char *file = NULL, *cmds = NULL;
	int keep_going = 0, failed = 0, tui = 0, opt;
	struct sigaction sa;

	gsl_set_error_handler_off();
	session_init(&sh->s, stdout);
	cmd_register_dashboard(tui_run);
	coursework_defaults(&cw);
	while ((opt = getopt_long(argc, argv, "a:b:n:m:i:cgtvdhf:e:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'J':
			sh->s.format = FORMAT_JSON;
			break;
		case 'K':
			keep_going = 1;
			break;
		case 'H':
			usage(stdout);
			return 0;
		case 'V':
			printf("quadx %s\n", QX_VERSION);
			return 0;
		case 'f':
			file = optarg;
			break;
		case 'e':
			cmds = optarg;
			break;
		case 'T':
			tui = 1;
			break;
		default:
			if (coursework_option(&cw, opt, optarg)) {
				usage(stderr);
				return 2;
			}
		}
	}
	if (optind < argc) {
		fprintf(stderr, "quadx: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (cw.help) {
		usage(stdout);
		return 0;
	}

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);

	if (tui) {
		struct qx_err e;
		failed = tui_run(sh, 1, &e);
		if (failed)
			fprintf(stderr, "quadx: %s\n", e.msg);
	} else if (cw.used) {
		failed = coursework_run(&sh->s, &cw);
	} else if (cmds) {
		char *script = commands_to_lines(cmds);
		FILE *f = script ? fmemopen(script, strlen(script), "r") : NULL;
		if (!f) {
			fprintf(stderr, "quadx: out of memory\n");
			return 1;
		}
		failed = shell_run_stream(sh, f, NULL, keep_going);
		fclose(f);
		free(script);
	} else if (file) {
		FILE *f = qx_fault("fopen") ? (errno = EIO, NULL) : fopen(file, "r");
		if (!f) {
			fprintf(stderr, "quadx: cannot open %s: %s\n", file, strerror(errno));
			return 1;
		}
		failed = shell_run_stream(sh, f, NULL, keep_going);
		fclose(f);
	} else if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)) {
		failed = repl_run(sh);
	} else {
		failed = shell_run_stream(sh, stdin, NULL, keep_going);
	}
	session_free(&sh->s);
	gpu_release();
	return failed ? 1 : 0;
}
