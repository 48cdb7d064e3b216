/* main.c - quadx's entry point: options, the coursework-compatible one-shot mode, and the
 * choice between the readline prompt and a script read from stdin, -f or -e. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <gsl/gsl_errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "device.h"
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

/* At exit: flushes and closes standard output; when a write to it failed (a full disk,
 * /dev/full, a closed descriptor) says so in one line on stderr and exits with status 1, so
 * that no lost output goes unnoticed. */
static void close_stdout(void)
{
	int failed = ferror(stdout), err;
	errno = 0;
	failed |= fflush(stdout) != 0;
	err = errno;
	failed |= fclose(stdout) != 0;
	if (!err)
		err = errno;
	if (!failed)
		return;
	fprintf(stderr, "quadx: cannot write to standard output: %s (the output is incomplete)\n",
	        err ? strerror(err) : "a write failed");
	_exit(1);
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

/* One script source of the command line: the text of an -e, or the path of an -f. */
struct source {
	const char *text, *file;
};

/* Runs the text of the consecutive -e options src[0..n) as one script: each -e is a line,
 * and each of its ';'-separated commands is a line of its own (help scripts). Returns the
 * number of failed lines, or -1 when out of memory. */
static int run_commands(struct shell *sh, const struct source *src, int n, int keep_going)
{
	char *script = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&script, &len);
	int failed = -1;
	if (!mem)
		return -1;
	for (int i = 0; i < n; i++)
		fprintf(mem, "%s\n", src[i].text);
	if (fclose(mem) == 0) {
		char *lines = commands_to_lines(script);
		FILE *f = lines ? fmemopen(lines, strlen(lines), "r") : NULL;
		if (f) {
			failed = shell_run_commands(sh, f, keep_going);
			fclose(f);
		}
		free(lines);
	}
	free(script);
	return failed;
}

/* Runs the -e and -f sources in the order given; a run of consecutive -e is one script. An -f
 * file's errors name it when there are other sources. Stops after the first source with an
 * error unless keep_going, and at quit. Returns the number of failed lines, or -1 with the
 * reason printed. */
static int run_sources(struct shell *sh, const struct source *src, int n, int keep_going)
{
	int failed = 0;
	for (int i = 0; i < n && !sh->quit && (keep_going || !failed);) {
		int k = 0, rc;
		if (src[i].text) {
			while (i + k < n && src[i + k].text)
				k++;
			rc = run_commands(sh, src + i, k, keep_going);
			if (rc < 0) {
				fprintf(stderr, "quadx: out of memory\n");
				return -1;
			}
		} else {
			FILE *f = qx_fault("fopen") ? (errno = EIO, NULL) : fopen(src[i].file, "r");
			if (!f) {
				fprintf(stderr, "quadx: cannot open %s: %s\n", src[i].file,
				        strerror(errno));
				return -1;
			}
			k = 1;
			rc = shell_run_stream(sh, f, n > 1 ? src[i].file : NULL, keep_going);
			fclose(f);
		}
		failed += rc;
		i += k;
	}
	return failed;
}

/* Prints the usage of quadx. */
static void usage(FILE *f)
{
	fprintf(f,
	        "usage: quadx [--json] [--keep-going] [-f FILE]... [-e 'CMD; CMD...']...\n"
	        "       quadx --tui\n"
	        "       quadx [-a A] [-b B] [-n N] [-m M] [-i ITERS] [-c] [-g] [-t] [-v] [-d]\n"
	        "On a terminal quadx starts an interactive prompt (type help). Otherwise it reads\n"
	        "commands from stdin, or runs each -f FILE and -e in the order given, stopping at\n"
	        "the first error unless --keep-going; --tui opens the full-screen dashboard\n"
	        "instead. The third form is the coursework's (help coursework): one run, then\n"
	        "exit (-c skips the CPU, -g the GPU, -t prints times, -v values, -d uses double\n"
	        "on the GPU, -h prints this).\n");
}

/* Refuses, with one line on stderr, options that would be ignored together: the coursework
 * flags with -e, -f, --json or --tui, and --tui with -e or -f. Returns 1 when refused. */
static int options_conflict(const struct coursework_opts *cw, int nsrc, int json, int tui)
{
	const char *what = NULL;
	if (cw->used && nsrc)
		what = "-e and -f do not go with the coursework flags (-a -b -n -m -i -c -g -t -v "
		       "-d): use `set n N m M` and `run` in the script";
	else if (cw->used && json)
		what = "--json does not go with the coursework flags, which print the coursework's "
		       "text: use quadx --json -e 'set n N m M; run'";
	else if (cw->used && tui)
		what = "--tui does not go with the coursework flags: set n and m in the dashboard";
	else if (tui && nsrc)
		what =
		    "--tui takes no -e or -f: run the script with `source FILE` in the dashboard";
	if (what)
		fprintf(stderr, "quadx: %s\n", what);
	return what != NULL;
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
	struct source *src = calloc((size_t)argc, sizeof *src);
	int nsrc = 0, keep_going = 0, json = 0, failed = 0, tui = 0, opt;
	struct sigaction sa;
	struct winsize ws;

	/* A closed standard output gets /dev/null opened read-only: writes to it fail (and are
	 * reported at exit) rather than land in the next file quadx opens. */
	if (fcntl(STDOUT_FILENO, F_GETFD) < 0 && errno == EBADF) {
		int fd = open("/dev/null", O_RDONLY);
		if (fd >= 0 && fd != STDOUT_FILENO) {
			dup2(fd, STDOUT_FILENO);
			close(fd);
		}
	}
	atexit(close_stdout);
	if (!src) {
		fprintf(stderr, "quadx: out of memory\n");
		return 1;
	}
	gsl_set_error_handler_off();
	session_init(&sh->s);
	sh->io = output_ctx_of(stdout);
	cmd_register_dashboard(tui_run);
	coursework_defaults(&cw);
	while ((opt = getopt_long(argc, argv, "a:b:n:m:i:cgtvdhf:e:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'J':
			sh->io.format = FORMAT_JSON;
			json = 1;
			break;
		case 'K':
			keep_going = 1;
			break;
		case 'H':
			usage(stdout);
			free(src);
			return 0;
		case 'V':
			printf("quadx %s\n", QX_VERSION);
			free(src);
			return 0;
		case 'f':
			src[nsrc++].file = optarg;
			break;
		case 'e':
			src[nsrc++].text = optarg;
			break;
		case 'T':
			tui = 1;
			break;
		default:
			if (coursework_option(&cw, opt, optarg)) {
				usage(stderr);
				free(src);
				return 2;
			}
		}
	}
	if (optind < argc) {
		fprintf(stderr, "quadx: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		free(src);
		return 2;
	}
	if (cw.help) {
		usage(stdout);
		free(src);
		return 0;
	}
	if (options_conflict(&cw, nsrc, json, tui)) {
		free(src);
		return 2;
	}

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sh->progress_line = isatty(STDERR_FILENO);
	if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
	    ws.ws_col >= 40 && ws.ws_row >= 10) {
		sh->io.cols = ws.ws_col;
		sh->io.rows = ws.ws_row;
	}

	if (tui) {
		struct qx_err e;
		failed = tui_run(sh, 1, &e);
		if (failed)
			fprintf(stderr, "quadx: %s\n", e.msg);
	} else if (cw.used) {
		failed = coursework_run(&sh->s, &cw);
	} else if (nsrc) {
		failed = run_sources(sh, src, nsrc, keep_going);
	} else if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)) {
		failed = repl_run(sh);
	} else {
		failed = shell_run_stream(sh, stdin, NULL, keep_going);
	}
	session_free(&sh->s);
	gpu_release();
	free(src);
	return failed ? 1 : 0;
}
