/* tui.c - the ncursesw dashboard: screen and windows, GNU Readline in callback mode on the
 * bottom line, keys, the frame loop, and the worker thread that runs every command. Only the
 * UI thread (the one that called tui_run) calls ncurses and readline; the worker runs commands
 * through shell_exec_line and publishes a snapshot and the log under a mutex.
 * One file, over 600 lines: Readline's callbacks and the signal handlers take no context, so
 * they reach the dashboard through this file's one static `active`, and the one-thread rule
 * for ncurses and readline is kept where it can be read whole; what needs neither is already
 * out (layout.c, dashfmt.c, dashdata.c, panels.c). */
#include "tui.h"

#include <errno.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <pthread.h>
#include <readline/history.h>
#include <readline/readline.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>

#include "cmdhistory.h"
#include "panels.h"
#include "repl.h"

#define KEYBUF 64
#define QUEUE 16      /* lines typed during a run wait here, in order */
#define FRAME_MS 100  /* the frame loop waits at most this long for a key: 10 frames a second */
#define Q_WAIT_MS 400 /* q alone on the line leaves when no key follows it within this long */

/* What the worker does for one queued entry: run its line, or make the line of a function key
 * from the settings as they are when its turn comes (after the lines queued before it), so
 * that every press counts however fast they come. */
enum job_kind { JOB_LINE, JOB_PRECISION, JOB_BLOCK_DOWN, JOB_BLOCK_UP };
struct job {
	enum job_kind kind;
	char *line; /* JOB_LINE: the line; else what the log says while it waits */
};

struct tui {
	struct shell *sh;
	char hist[PATH_MAX]; /* the history file each line is appended to, or "" */

	/* Shared with the worker, under lock. */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t worker;
	struct job queue[QUEUE]; /* waiting for the worker, oldest at queue_first */
	int queue_first, queue_len;
	int busy;          /* the worker is running a line (or the device check) */
	int stop;          /* the worker should end */
	int quit_seen;     /* a command set sh->quit */
	double busy_since; /* qx_now_ms() when the line began */
	char busy_line[DASH_LINE];
	struct dash_data shared; /* the snapshot the panels draw from */
	struct dash_log log;

	/* The worker's own. */
	struct dash_data work;
	int err_fd;       /* the temporary file standing in for stderr */
	off_t err_read;   /* how much of it went to the log */
	int saved_stderr; /* the real stderr, restored on exit */

	/* The UI thread's own. */
	WINDOW *status, *cmd, *keys_win, *win[LAYOUT_MAX_PANELS];
	int show_keys;                              /* F1: the list of keys over the panels */
	struct panel_hint hints[LAYOUT_MAX_PANELS]; /* of the panels shown (panels_hints) */
	unsigned shown;                             /* their mask */
	int relayout;                               /* the panels shown changed */
	struct layout lay;
	int too_small;
	struct panel_ctx ctx;
	struct dash_live live;
	const char *last_phase;
	long long last_total;
	double phase_since;
	unsigned char keys[KEYBUF];
	int nkeys;
	int leave;
	double q_since; /* when q was typed on an empty line (0: it was not) */
	char prompt[128];
	SCREEN *screen;
	FILE *devnull;
	char *old_ctype;
};

static struct tui *active; /* the open dashboard, for readline's hooks and the fatal path */
static volatile sig_atomic_t resized;
static const int fatal_signals[] = {SIGTERM, SIGSEGV, SIGABRT, SIGHUP, SIGQUIT, SIGBUS, SIGFPE};
#define NFATAL ((int)(sizeof fatal_signals / sizeof fatal_signals[0]))
static struct sigaction old_fatal[NFATAL], old_winch;

/* SIGWINCH: only notes that the terminal changed size; the frame loop reflows. */
static void on_winch(int sig)
{
	(void)sig;
	resized = 1;
}

/* Puts the terminal and stderr back as they were; the one path every exit takes, fatal
 * signals included. Safe to call twice. */
static void tui_restore(void)
{
	struct tui *t = active;
	if (!t)
		return;
	if (t->saved_stderr >= 0) {
		dup2(t->saved_stderr, STDERR_FILENO);
		close(t->saved_stderr);
		t->saved_stderr = -1;
	}
	if (t->screen && !isendwin())
		endwin();
}

/* Fatal signals: restores the terminal, then dies of the same signal. */
static void on_fatal(int sig)
{
	static const char msg[] = "quadx: fatal signal in the dashboard; terminal restored\n";
	tui_restore();
	if (write(STDERR_FILENO, msg, sizeof msg - 1) < 0) {
		/* nothing more can be done about a failed write here */
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Appends what commands wrote to stderr since the last call to the log (worker, locked). */
static void take_stderr(struct tui *t)
{
	char buf[4096];
	ssize_t n;
	fflush(stderr);
	while ((n = pread(t->err_fd, buf, sizeof buf - 1, t->err_read)) > 0) {
		buf[n] = '\0';
		t->err_read += n;
		dash_log_add(&t->log, buf);
	}
}

/* Copies the worker's snapshot into the one the panels draw from (under the lock), keeping
 * the live convergence chart, which the UI thread alone writes. */
static void publish(struct tui *t)
{
	const struct dash_converge live = t->shared.converge;
	t->shared = t->work;
	t->shared.converge = live;
}

/* Runs one line on the worker: output into a memory stream, then into the log with the error
 * if any; then the new snapshot is published. */
static void worker_run_line(struct tui *t, const char *line)
{
	struct shell *sh = t->sh;
	struct qx_err e = {""};
	char *text = NULL, err[QX_ERR_LEN + 16];
	size_t size = 0;
	FILE *old = sh->io.out, *mem = open_memstream(&text, &size);
	int rc;
	qx_progress_start(0, NULL);
	if (!mem) {
		rc = qx_fail(&e, "cannot capture the output: %s", strerror(errno));
	} else {
		sh->io.out = mem;
		rc = shell_exec_line(sh, line, &e);
		sh->io.out = old;
		fclose(mem);
	}
	dash_update(&t->work, &sh->s);
	pthread_mutex_lock(&t->lock);
	if (text)
		dash_log_add(&t->log, text);
	take_stderr(t);
	if (rc) {
		snprintf(err, sizeof err, "error: %s", e.msg);
		dash_log_add(&t->log, err);
	}
	publish(t);
	t->quit_seen = sh->quit;
	pthread_mutex_unlock(&t->lock);
	free(text);
}

/* The session's sweep observer, on the worker: publishes the sweep's rows to the UI as each
 * configuration finishes (the sweep itself is only ever touched by the worker). */
static void publish_sweep(void *arg, const struct sweep *sw)
{
	struct tui *t = arg;
	dash_take_sweep(&t->work.sweep, sw);
	pthread_mutex_lock(&t->lock);
	t->shared.sweep = t->work.sweep;
	pthread_mutex_unlock(&t->lock);
}

/* The line of job j from the settings as they are now (worker); returns it, or NULL when a
 * block key is at the end of the block's range, with the note for the log in buf. */
static const char *job_line(struct tui *t, const struct job *j, char *buf, size_t len)
{
	if (j->kind == JOB_LINE)
		return j->line;
	if (j->kind == JOB_PRECISION) {
		snprintf(buf, len, "set precision %s",
		         t->work.precision == QX_DOUBLE ? "float" : "double");
		return buf;
	}
	return dash_block_key(&t->work, j->kind == JOB_BLOCK_UP, buf, len) ? buf : NULL;
}

/* The worker thread: checks the GPU once, then runs the lines the UI hands it, one at a time. */
static void *worker_main(void *arg)
{
	struct tui *t = arg;
	char echo[DASH_LOG_WIDTH], made[DASH_LINE];
	dash_update(&t->work, &t->sh->s);
	dash_device(&t->work);
	pthread_mutex_lock(&t->lock);
	publish(t);
	t->busy = 0;
	for (;;) {
		while (!t->queue_len && !t->stop)
			pthread_cond_wait(&t->wake, &t->lock);
		if (t->stop)
			break;
		struct job job = t->queue[t->queue_first];
		t->queue_first = (t->queue_first + 1) % QUEUE;
		t->queue_len--;
		const char *line = job_line(t, &job, made, sizeof made);
		if (!line) { /* a block key at the end of the range: only the note */
			dash_log_add(&t->log, made);
			free(job.line);
			continue;
		}
		t->busy = 1;
		t->busy_since = qx_now_ms();
		snprintf(t->busy_line, sizeof t->busy_line, "%s", line);
		snprintf(echo, sizeof echo, "> %s", line);
		dash_log_add(&t->log, echo);
		pthread_mutex_unlock(&t->lock);
		worker_run_line(t, line);
		free(job.line);
		pthread_mutex_lock(&t->lock);
		t->busy = 0;
	}
	pthread_mutex_unlock(&t->lock);
	return NULL;
}

/* Queues a job of kind for the worker, line being its line or what the log calls it; while a
 * run is in progress the log says it waits, and when QUEUE jobs already wait it is refused. */
static void submit(struct tui *t, enum job_kind kind, const char *line)
{
	char msg[DASH_LINE + 64];
	char *copy = strdup(line);
	pthread_mutex_lock(&t->lock);
	if (!copy || t->queue_len == QUEUE) {
		snprintf(msg, sizeof msg,
		         "a run is in progress (Esc cancels); %d lines wait, not "
		         "run: %.100s",
		         t->queue_len, line);
		dash_log_add(&t->log, msg);
		free(copy);
	} else {
		if (t->busy) {
			snprintf(msg, sizeof msg,
			         "a run is in progress (Esc cancels); queued: %.120s", line);
			dash_log_add(&t->log, msg);
		}
		t->queue[(t->queue_first + t->queue_len++) % QUEUE] = (struct job){kind, copy};
		t->ctx.log_scroll = 0;
		pthread_cond_signal(&t->wake);
	}
	pthread_mutex_unlock(&t->lock);
}

/* Esc and Ctrl-C during a run: cancels it and drops the lines queued behind it. */
static void cancel_run(struct tui *t)
{
	char msg[64];
	qx_cancel_request();
	pthread_mutex_lock(&t->lock);
	if (t->queue_len) {
		snprintf(msg, sizeof msg, "cancelled: %d queued lines dropped", t->queue_len);
		dash_log_add(&t->log, msg);
	}
	for (; t->queue_len; t->queue_len--) {
		free(t->queue[t->queue_first].line);
		t->queue_first = (t->queue_first + 1) % QUEUE;
	}
	pthread_mutex_unlock(&t->lock);
}

/* Readline's line handler: NULL (Ctrl-D on an empty line) leaves; a line goes to the worker. */
static void on_line(char *line)
{
	struct tui *t = active;
	if (!line) {
		t->leave = 1;
		return;
	}
	if (*line) {
		struct qx_err e;
		add_history(line);
		if (t->hist[0] && history_append(t->hist, &e)) /* SIGHUP loses nothing */
			fprintf(stderr, "quadx: %s\n", e.msg);
		submit(t, JOB_LINE, line);
	}
	free(line);
}

/* Readline reads its keys from the buffer the frame loop fills; when it wants one more than
 * was buffered, it waits for the next plain key. */
static int rl_key_from_buffer(FILE *f)
{
	struct tui *t = active;
	(void)f;
	while (!t->nkeys) {
		const int k = wgetch(t->cmd);
		if (k >= 0 && k < 256)
			return k;
	}
	const int k = t->keys[0];
	memmove(t->keys, t->keys + 1, (size_t)--t->nkeys);
	return k;
}

/* Readline asks whether more input is waiting (to finish a key sequence). */
static int rl_keys_waiting(void)
{
	return active->nkeys > 0;
}

/* Readline's terminal set-up and tear-down: ncurses owns the terminal, so nothing. */
static void rl_term_none(int meta)
{
	(void)meta;
}

/* Readline's tear-down hook: nothing, ncurses owns the terminal. */
static void rl_deprep_none(void)
{
}

/* Draws the prompt and the line being edited into the command window, scrolled sideways so
 * that the cursor stays visible. */
static void rl_draw_line(void)
{
	struct tui *t = active;
	if (!t->cmd)
		return;
	const int width = getmaxx(t->cmd);
	const char *prompt = rl_display_prompt ? rl_display_prompt : "";
	const int plen = (int)strlen(prompt);
	int shift = plen + rl_point - (width - 1);
	shift = shift < 0 ? 0 : shift;
	werase(t->cmd);
	if (shift < plen)
		mvwaddnstr(t->cmd, 0, 0, prompt + shift, width);
	const int start = shift > plen ? shift - plen : 0;
	const int x = shift < plen ? plen - shift : 0;
	if (x < width)
		mvwaddnstr(t->cmd, 0, x, rl_line_buffer + start, width - x);
	wmove(t->cmd, 0, plen + rl_point - shift);
}

/* Readline's list of completions (Tab twice) goes to the log. */
static void rl_show_matches(char **matches, int n, int max_len)
{
	struct tui *t = active;
	char line[DASH_LINE] = "completions:";
	(void)max_len;
	for (int i = 1; i <= n; i++) {
		const size_t used = strlen(line);
		snprintf(line + used, sizeof line - used, " %s", matches[i]);
	}
	pthread_mutex_lock(&t->lock);
	dash_log_add(&t->log, line);
	t->ctx.log_scroll = 0;
	pthread_mutex_unlock(&t->lock);
}

/* The readline variables the dashboard replaces while it is open. */
struct rl_hooks {
	rl_getc_func_t *getc;
	rl_hook_func_t *input_available, *signal_event;
	rl_voidfunc_t *redisplay, *deprep;
	rl_vintfunc_t *prep;
	rl_compdisp_func_t *display_matches;
	rl_completion_func_t *complete;
	FILE *out;
	int catch_signals, catch_sigwinch, change_environment;
};
static struct rl_hooks saved_hooks; /* while the dashboard is open: the plain prompt's */

/* Completes from the command table (the plain prompt's completion, which reads the session)
 * only while no command runs, since the worker may be changing the session; during a run Tab
 * completes nothing. */
static char **complete_when_idle(const char *text, int start, int end)
{
	struct tui *t = active;
	pthread_mutex_lock(&t->lock);
	const int idle = !t->busy && !t->queue_len;
	pthread_mutex_unlock(&t->lock);
	rl_attempted_completion_over = !idle;
	return idle && saved_hooks.complete ? saved_hooks.complete(text, start, end) : NULL;
}

/* Swaps readline's current hooks with those in h. */
static void rl_hooks_swap(struct rl_hooks *h)
{
	const struct rl_hooks cur = {rl_getc_function,
	                             rl_input_available_hook,
	                             rl_signal_event_hook,
	                             rl_redisplay_function,
	                             rl_deprep_term_function,
	                             rl_prep_term_function,
	                             rl_completion_display_matches_hook,
	                             rl_attempted_completion_function,
	                             rl_outstream,
	                             rl_catch_signals,
	                             rl_catch_sigwinch,
	                             rl_change_environment};
	rl_getc_function = h->getc;
	rl_input_available_hook = h->input_available;
	rl_signal_event_hook = h->signal_event;
	rl_redisplay_function = h->redisplay;
	rl_deprep_term_function = h->deprep;
	rl_prep_term_function = h->prep;
	rl_completion_display_matches_hook = h->display_matches;
	rl_attempted_completion_function = h->complete;
	rl_outstream = h->out;
	rl_catch_signals = h->catch_signals;
	rl_catch_sigwinch = h->catch_sigwinch;
	rl_change_environment = h->change_environment;
	*h = cur;
}

/* Sets up readline in callback mode with the dashboard's hooks, keeping the old ones. */
static void readline_start(struct tui *t)
{
	saved_hooks = (struct rl_hooks){rl_key_from_buffer,
	                                rl_keys_waiting,
	                                NULL, /* Ctrl-C is the dashboard's key */
	                                rl_draw_line,
	                                rl_deprep_none,
	                                rl_term_none,
	                                rl_show_matches,
	                                complete_when_idle,
	                                t->devnull,
	                                0,
	                                0,
	                                0};
	rl_hooks_swap(&saved_hooks);
	rl_variable_bind("bell-style", "none");
	rl_callback_handler_install(t->prompt, on_line);
}

/* Removes the callback handler and puts readline's hooks back as they were. */
static void readline_stop(void)
{
	rl_callback_handler_remove();
	rl_hooks_swap(&saved_hooks);
}

/* Deletes every window of the dashboard. */
static void windows_free(struct tui *t)
{
	for (int i = 0; i < panel_count; i++)
		if (t->win[i]) {
			delwin(t->win[i]);
			t->win[i] = NULL;
		}
	if (t->status)
		delwin(t->status);
	if (t->cmd)
		delwin(t->cmd);
	if (t->keys_win)
		delwin(t->keys_win);
	t->status = t->cmd = t->keys_win = NULL;
}

/* Computes the layout of the panels shown for the terminal's size and makes one window per
 * panel shown. */
static void windows_make(struct tui *t)
{
	windows_free(t);
	t->too_small = layout_compute(LINES, COLS, t->hints, panel_count, &t->lay) != 0;
	if (LINES >= 2) {
		t->cmd = newwin(1, COLS, LINES - 1, 0);
		keypad(t->cmd, TRUE);
		wtimeout(t->cmd, FRAME_MS);
	}
	if (t->too_small)
		return;
	t->status = newwin(1, COLS, 0, 0);
	t->keys_win = newwin(LINES - 2, COLS, 1, 0);
	for (int i = 0; i < panel_count; i++) {
		const struct rect *r = &t->lay.panel[i];
		if (!t->hints[i].hidden && !(t->lay.dropped & 1u << i))
			t->win[i] = newwin(r->h, r->w, r->y, r->x);
	}
}

/* Asks the terminal its size and reflows the layout. */
static void reflow(struct tui *t)
{
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0 && ws.ws_col > 0)
		resize_term(ws.ws_row, ws.ws_col);
	clearok(curscr, TRUE);
	werase(stdscr);
	wnoutrefresh(stdscr);
	windows_make(t);
}

/* Sets readline's prompt to name the problem and precision, or the run in progress. */
static void update_prompt(struct tui *t)
{
	char prompt[sizeof t->prompt];
	const struct dash_data *d = &t->shared;
	if (t->live.busy)
		snprintf(prompt, sizeof prompt, "quadx (running)> ");
	else
		snprintf(prompt, sizeof prompt, "quadx %s/%s> ", d->problem,
		         qx_precision_name((enum qx_precision)d->precision));
	if (strcmp(prompt, t->prompt)) {
		snprintf(t->prompt, sizeof t->prompt, "%s", prompt);
		rl_set_prompt(t->prompt);
	}
}

/* Reads the run's progress (atomics) and the worker's state for this frame (locked). */
static void update_live(struct tui *t)
{
	struct dash_live *l = &t->live;
	const double now = qx_now_ms();
	l->busy = t->busy;
	snprintf(l->line, sizeof l->line, "%s", t->busy_line);
	qx_progress_get(&l->prog);
	if (!t->busy)
		l->prog.target = 0; /* no run: the live convergence chart goes */
	dash_converge_add(&t->shared.converge, &l->prog);
	if (l->prog.phase != t->last_phase || l->prog.total != t->last_total) {
		t->last_phase = l->prog.phase;
		t->last_total = l->prog.total;
		t->phase_since = now;
	}
	l->elapsed_ms = now - t->busy_since;
	l->phase_ms = now - t->phase_since;
	if (!t->busy && t->quit_seen)
		t->leave = 1;
	struct panel_hint hints[LAYOUT_MAX_PANELS];
	unsigned shown = panels_hints(&t->shared, hints);
	if (t->ctx.zoomed) {
		const int keep = (int)(t->ctx.zoomed - panel_table);
		layout_zoom(hints, panel_count, keep);
		shown = 1u << panel_count | 1u << keep; /* differs from any other layout */
	}
	if (shown != t->shown) {
		memcpy(t->hints, hints, sizeof hints);
		t->shown = shown;
		t->relayout = 1;
	}
}

/* Draws one frame: reflows first when the terminal's size or the panels shown changed (in the
 * same frame, so that the status line never says idle over the old layout), then every panel
 * into its window, the status line, the command line last (it holds the cursor), then one
 * doupdate. */
static void draw_frame(struct tui *t)
{
	pthread_mutex_lock(&t->lock);
	update_live(t);
	if (resized || t->relayout) { /* before drawing: a frame never shows the old layout */
		resized = t->relayout = 0;
		reflow(t);
	}
	if (t->too_small) {
		panels_draw_too_small(stdscr, LINES, COLS, t->lay.min_rows, t->lay.min_cols);
		wnoutrefresh(stdscr);
	} else {
		for (int i = 0; i < panel_count; i++)
			if (t->win[i]) {
				panel_table[i].draw(t->win[i], &panel_table[i], &t->ctx);
				wnoutrefresh(t->win[i]);
			}
		panels_draw_status(t->status, &t->ctx);
		wnoutrefresh(t->status);
		if (t->show_keys && t->keys_win) {
			panels_draw_keys(t->keys_win, &t->ctx);
			wnoutrefresh(t->keys_win);
		}
	}
	update_prompt(t);
	pthread_mutex_unlock(&t->lock);
	if (t->cmd) {
		rl_draw_line();
		wnoutrefresh(t->cmd);
	}
	doupdate();
}

/* Buffers the bytes readline should see for key k (keys ncurses decoded become the escape
 * sequences readline binds); returns 0, or -1 for a key readline has no use for. */
static int key_to_readline(struct tui *t, int k)
{
	static const struct {
		int key;
		const char *seq;
	} seqs[] = {
	    {KEY_UP, "\033[A"},   {KEY_DOWN, "\033[B"},    {KEY_RIGHT, "\033[C"},
	    {KEY_LEFT, "\033[D"}, {KEY_HOME, "\033[H"},    {KEY_END, "\033[F"},
	    {KEY_DC, "\033[3~"},  {KEY_BACKSPACE, "\177"}, {KEY_ENTER, "\r"},
	};
	const char *seq = NULL;
	char one[2] = {(char)k, 0};
	if (k >= 0 && k < 256) {
		seq = one;
	} else {
		for (size_t i = 0; i < sizeof seqs / sizeof seqs[0]; i++)
			if (seqs[i].key == k)
				seq = seqs[i].seq;
	}
	if (!seq)
		return -1;
	const size_t n = k == 0 ? 1 : strlen(seq);
	if (t->nkeys + (int)n > KEYBUF)
		return -1;
	memcpy(t->keys + t->nkeys, seq, n);
	t->nkeys += (int)n;
	return 0;
}

/* Queues the command of a function key: F5/F6/F7 their run; F2, F3 and F4 a job whose line
 * the worker makes from the settings when its turn comes. */
static void function_key(struct tui *t, int k)
{
	if (k == KEY_F(5))
		submit(t, JOB_LINE, "run both");
	else if (k == KEY_F(6))
		submit(t, JOB_LINE, "run cpu");
	else if (k == KEY_F(7))
		submit(t, JOB_LINE, "run gpu");
	else if (k == KEY_F(2))
		submit(t, JOB_PRECISION, "F2 (toggle the precision)");
	else if (k == KEY_F(3))
		submit(t, JOB_BLOCK_DOWN, "F3 (halve the block)");
	else if (k == KEY_F(4))
		submit(t, JOB_BLOCK_UP, "F4 (double the block)");
}

/* Handles one key from ncurses: the dashboard's own keys and the panels' zoom keys first
 * (each zooms its panel, or unzooms), then the panels' other keys (in table
 * order), then readline. */
static void handle_key(struct tui *t, int k)
{
	t->q_since = k == 'q' && rl_end == 0 && !t->nkeys ? qx_now_ms() : 0;
	if (k == KEY_F(10)) {
		t->leave = 1;
		return;
	}
	if (k == KEY_F(1)) {
		t->show_keys = !t->show_keys;
		return;
	}
	for (int i = 0; i < panel_count; i++)
		if (panel_table[i].zoom_key && k == panel_table[i].zoom_key) {
			t->ctx.zoomed = t->ctx.zoomed == &panel_table[i] ? NULL : &panel_table[i];
			t->ctx.log_scroll = 0;
			return;
		}
	if (k == KEY_RESIZE) {
		resized = 1;
		return;
	}
	if (k == KEY_F(2) || k == KEY_F(3) || k == KEY_F(4) || k == KEY_F(5) || k == KEY_F(6) ||
	    k == KEY_F(7)) {
		function_key(t, k);
		return;
	}
	if (k == 27) { /* Esc alone cancels; Esc and a key at once is a Meta key for readline */
		nodelay(t->cmd, TRUE);
		const int next = wgetch(t->cmd);
		wtimeout(t->cmd, FRAME_MS);
		if (next == ERR) {
			if (t->live.busy)
				cancel_run(t);
			return;
		}
		key_to_readline(t, 27);
		k = next;
	} else if (k == 3) { /* Ctrl-C: cancel the run, or drop the line being typed */
		if (t->live.busy) {
			cancel_run(t);
		} else {
			rl_replace_line("", 0);
			rl_point = 0;
		}
		return;
	}
	int used = 0; /* the panels read the log and the snapshot the worker writes: locked */
	pthread_mutex_lock(&t->lock);
	for (int i = 0; i < panel_count && !used; i++)
		used = panel_table[i].on_key && t->win[i] &&
		       panel_table[i].on_key(&t->ctx, k, getmaxy(t->win[i]), getmaxx(t->win[i]));
	pthread_mutex_unlock(&t->lock);
	if (used)
		return;
	if (key_to_readline(t, k) == 0)
		while (t->nkeys && !t->leave)
			rl_callback_read_char();
}

/* Opens the screen: locale for UTF-8, ncurses (refused on a terminal that cannot address the
 * cursor), colours unless NO_COLOR, signals; returns 0 or -1 with e set. */
static int screen_open(struct tui *t, struct qx_err *e)
{
	const char *old = setlocale(LC_CTYPE, NULL);
	const char *no_color = getenv("NO_COLOR");
	struct sigaction sa;
	struct termios tty;
	const int have_tty = tcgetattr(STDOUT_FILENO, &tty) == 0; /* newterm changes the modes */
	t->old_ctype = strdup(old ? old : "C");
	setlocale(LC_CTYPE, "");
	t->ctx.utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	use_env(FALSE); /* the size from the terminal, not LINES/COLUMNS readline may have set */
	use_tioctl(TRUE);
	t->screen = newterm(NULL, stdout, stdin);
	if (!t->screen) {
		const char *term = getenv("TERM");
		return qx_fail(e, "dashboard: cannot set up the terminal (TERM=%.40s)",
		               term ? term : "unset");
	}
	set_term(t->screen);
	const char *cup = tigetstr("cup");
	if (!cup || cup == (char *)-1) { /* TERM=dumb and the like: one garbled line */
		const char *term = getenv("TERM");
		delscreen(t->screen);
		t->screen = NULL;
		if (have_tty) /* as it was: newterm left it without echo, canonical mode, onlcr */
			tcsetattr(STDOUT_FILENO, TCSADRAIN, &tty);
		return qx_fail(
		    e,
		    "dashboard: the terminal (TERM=%.40s) cannot move the cursor (no cup "
		    "capability); use a terminal such as xterm, or the plain commands",
		    term ? term : "unset");
	}
	raw();
	noecho();
	nonl();
	set_escdelay(50);
	t->ctx.color = has_colors() && !(no_color && *no_color);
	if (t->ctx.color) {
		start_color();
		panels_init_colors();
	}
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_fatal;
	for (int i = 0; i < NFATAL; i++)
		sigaction(fatal_signals[i], &sa, &old_fatal[i]);
	sa.sa_handler = on_winch;
	sigaction(SIGWINCH, &sa, &old_winch);
	windows_make(t);
	return 0;
}

/* Closes the screen and puts back the signal handlers and the locale. */
static void screen_close(struct tui *t)
{
	windows_free(t);
	tui_restore();
	if (t->screen) {
		delscreen(t->screen);
		for (int i = 0; i < NFATAL; i++)
			sigaction(fatal_signals[i], &old_fatal[i], NULL);
		sigaction(SIGWINCH, &old_winch, NULL);
	}
	setlocale(LC_CTYPE, t->old_ctype ? t->old_ctype : "C");
	free(t->old_ctype);
}

/* Sends stderr to a temporary file that the worker copies into the log; returns 0 or -1. */
static int stderr_capture(struct tui *t, struct qx_err *e)
{
	char path[] = "/tmp/quadx-stderr-XXXXXX";
	t->err_fd = mkstemp(path);
	if (t->err_fd < 0)
		return qx_fail(e, "dashboard: cannot create a temporary file: %s", strerror(errno));
	unlink(path);
	fflush(stderr);
	t->saved_stderr = dup(STDERR_FILENO);
	if (t->saved_stderr < 0 || dup2(t->err_fd, STDERR_FILENO) < 0) {
		close(t->err_fd);
		return qx_fail(e, "dashboard: cannot redirect stderr: %s", strerror(errno));
	}
	return 0;
}

/* The frame loop: draw (reflowing first on a resize or a change of the panels shown), wait up
 * to FRAME_MS for a key, handle it. A q typed on an empty line leaves once Q_WAIT_MS pass with
 * nothing after it (so that typing quit, or any line, still works). */
static void frame_loop(struct tui *t)
{
	while (!t->leave) {
		draw_frame(t);
		const int k = t->cmd ? wgetch(t->cmd) : getch();
		if (k != ERR)
			handle_key(t, k);
		if (t->q_since && qx_now_ms() - t->q_since >= Q_WAIT_MS && rl_end == 1 &&
		    rl_line_buffer[0] == 'q') {
			rl_replace_line("", 0);
			t->leave = 1;
		}
	}
}

/* Runs the dashboard. */
int tui_run(struct shell *sh, int standalone, struct qx_err *e)
{
	static struct tui tui; /* large (snapshots and the log): not on the stack */
	struct tui *t = &tui;
	int rc = 0;
	if (active)
		return qx_fail(e, "dashboard: already open");
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return qx_fail(e, "dashboard: needs a terminal, and stdin or stdout is not one "
		                  "(scripts use the plain commands)");
	memset(t, 0, sizeof *t);
	t->sh = sh;
	t->saved_stderr = t->err_fd = -1;
	t->ctx.data = &t->shared;
	t->ctx.log = &t->log;
	t->ctx.live = &t->live;
	t->ctx.keys = dash_keys;
	t->ctx.nkeys = dash_key_count;
	dash_init(&t->work);
	dash_init(&t->shared);
	dash_take_sweep(&t->shared.sweep, sh->s.sweep); /* a sweep from the plain prompt */
	t->shown = panels_hints(&t->shared, t->hints);
	t->devnull = fopen("/dev/null", "w");
	if (!t->devnull)
		return qx_fail(e, "dashboard: cannot open /dev/null: %s", strerror(errno));
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->wake, NULL);
	active = t;
	if (stderr_capture(t, e) || screen_open(t, e)) {
		rc = -1;
		goto out;
	}
	repl_init(sh);
	/* from the prompt, repl_run has opened the file already */
	if (repl_history_path(t->hist, sizeof t->hist) ||
	    (standalone && history_open(t->hist, e) && fprintf(stderr, "quadx: %s\n", e->msg)))
		t->hist[0] = '\0';
	snprintf(t->prompt, sizeof t->prompt, "quadx> ");
	readline_start(t);
	sh->s.sweep_observer = publish_sweep;
	sh->s.sweep_observer_arg = t;
	sh->io.dashboard = 1; /* the Log wraps the output itself */
	t->busy = 1;
	snprintf(t->busy_line, sizeof t->busy_line, "(checking the GPU)");
	t->busy_since = qx_now_ms();
	if (pthread_create(&t->worker, NULL, worker_main, t)) {
		rc = qx_fail(e, "dashboard: cannot start the worker thread");
		readline_stop();
		goto out;
	}
	frame_loop(t);
	cancel_run(t); /* leaving during a run stops it */
	pthread_mutex_lock(&t->lock);
	t->stop = 1;
	pthread_cond_signal(&t->wake);
	pthread_mutex_unlock(&t->lock);
	pthread_join(t->worker, NULL);
	qx_cancel_clear();
	readline_stop();
out:
	sh->s.sweep_observer = NULL;
	sh->s.sweep_observer_arg = NULL;
	sh->io.dashboard = 0;
	screen_close(t);
	if (t->err_fd >= 0)
		close(t->err_fd);
	fclose(t->devnull);
	pthread_cond_destroy(&t->wake);
	pthread_mutex_destroy(&t->lock);
	active = NULL;
	sh->quit = 0;
	return rc;
}
