/* promptline.c - a run's progress on the prompt's line (stderr a terminal), drawn by a thread
 * that polls qx_progress five times a second while a command runs. */
#include "promptline.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "qx.h"

#define POLL_MS 200
#define SHOW_AFTER_MS 1000.0 /* a count younger than this shows nothing */
#define ESTIMATE_AFTER_MS 500.0

/* The thread's state; every field under lock. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	int running, stop;
	int drawn;            /* the progress line is on the screen */
	long long warned_gen; /* the count whose estimate was printed */
	long long first_gen;  /* counts up to this one started before the command */
	long long hidden_gen; /* the count whose line promptline_clear erased */
} line = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

/* The terminal's echo, off while a command runs at the prompt: what the user types ahead would
 * otherwise be echoed at the end of the progress line ("~3 s leftshow last") and, with its
 * newline, left there. The typed text stays queued and readline shows it on its own line at
 * the next prompt. The signals that end quadx put the echo back first. */
static struct termios echo_saved;
static volatile sig_atomic_t echo_off;
static const int echo_signals[] = {SIGTERM, SIGHUP, SIGQUIT};
#define NECHO_SIGNALS (sizeof echo_signals / sizeof echo_signals[0])
static struct sigaction echo_old[NECHO_SIGNALS];
static int echo_handlers; /* echo_old holds the actions ours replaced */

/* Puts the terminal's echo back (async-signal-safe). */
static void echo_restore(void)
{
	if (echo_off) {
		tcsetattr(STDIN_FILENO, TCSANOW, &echo_saved);
		echo_off = 0;
	}
}

/* A signal that ends quadx while the echo is off: the echo back, then the signal's own
 * action (the one before ours). */
static void echo_on_signal(int sig)
{
	echo_restore();
	for (size_t i = 0; i < NECHO_SIGNALS; i++)
		if (echo_signals[i] == sig)
			sigaction(sig, &echo_old[i], NULL);
	raise(sig);
}

/* Turns the echo of a terminal on stdin off, keeping its line editing (typed lines wait
 * whole for readline); nothing when stdin is no terminal. */
static void echo_suspend(void)
{
	struct termios t;
	struct sigaction sa;
	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &echo_saved) != 0 ||
	    !(echo_saved.c_lflag & ECHO))
		return;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = echo_on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NECHO_SIGNALS; i++)
		sigaction(echo_signals[i], &sa, &echo_old[i]);
	echo_handlers = 1;
	t = echo_saved;
	t.c_lflag &= ~(tcflag_t)(ECHO | ECHONL);
	echo_off = 1;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &t) != 0)
		echo_off = 0;
}

/* Puts the echo back after a command and the signals' own actions. */
static void echo_resume(void)
{
	echo_restore();
	if (echo_handlers)
		for (size_t i = 0; i < NECHO_SIGNALS; i++)
			sigaction(echo_signals[i], &echo_old[i], NULL);
	echo_handlers = 0;
}

/* Writes a duration of ms as "15 s", "1 min 20 s", "9 min" or "2.5 h" into buf. */
static void duration_text(char *buf, size_t len, double ms)
{
	const double s = ms / 1000;
	if (s < 60)
		snprintf(buf, len, "%.0f s", ceil(s));
	else if (s < 600 && (int)fmod(s, 60))
		snprintf(buf, len, "%d min %d s", (int)(s / 60), (int)fmod(s, 60));
	else if (s < 5400)
		snprintf(buf, len, "%.0f min", s / 60);
	else
		snprintf(buf, len, "%.1f h", s / 3600);
}

/* The ms of work left in p at now_ms from its rate so far; NaN when nothing is done yet. */
static double time_left(const struct qx_progress *p, double now_ms)
{
	const double elapsed = now_ms - p->start_ms;
	if (p->done <= 0 || elapsed <= 0)
		return NAN;
	return elapsed * (double)(p->total - p->done) / (double)p->done;
}

/* Whether p is a count in progress. */
static int counting(const struct qx_progress *p)
{
	return p->total > 0 && p->done < p->total;
}

/* Writes the progress line: phase, percent, rate, time left; for an adaptive run its error
 * estimate against the error it stops at and its work so far (its time is not known). */
int promptline_text(const struct qx_progress *p, double now_ms, int cols, char *buf, size_t len)
{
	const double elapsed = now_ms - p->start_ms;
	const double left = time_left(p, now_ms);
	char eta[32] = "?";
	if (!counting(p) || elapsed < SHOW_AFTER_MS)
		return -1;
	if (p->target > 0) { /* adaptive */
		snprintf(buf, (size_t)cols > len || cols < 1 ? len : (size_t)cols,
		         "%s error %.2g, stops at %.2g  %lld evaluations  Ctrl-C cancels",
		         p->phase ? p->phase : "run", p->err, p->target, p->done);
		return 0;
	}
	if (!isnan(left))
		duration_text(eta, sizeof eta, left);
	snprintf(buf, (size_t)cols > len || cols < 1 ? len : (size_t)cols,
	         "%s %lld%%  %.3g values/s  ~%s left%s%s", p->phase ? p->phase : "run",
	         p->done * 100 / p->total, (double)p->done / (elapsed / 1000), eta,
	         p->then ? ", then " : "", p->then ? p->then : "");
	return 0;
}

/* Writes the up-front estimate of a long count. */
int promptline_estimate(const struct qx_progress *p, double now_ms, char *buf, size_t len)
{
	const double left = time_left(p, now_ms);
	char eta[32];
	if (!counting(p) || p->target > 0 || now_ms - p->start_ms < ESTIMATE_AFTER_MS ||
	    isnan(left) || left <= PROMPTLINE_LONG_MS)
		return -1;
	duration_text(eta, sizeof eta, left);
	snprintf(buf, len, "%s: estimated %s%s%s; Ctrl-C cancels", p->phase ? p->phase : "run", eta,
	         p->then ? ", then " : "", p->then ? p->then : "");
	return 0;
}

/* The terminal's width from stderr, 80 when unknown. */
static int term_cols(void)
{
	struct winsize ws;
	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1)
		return ws.ws_col;
	return 80;
}

/* Erases the progress line when it is drawn (blanks, so that any terminal erases it). */
static void erase_locked(void)
{
	if (!line.drawn)
		return;
	fprintf(stderr, "\r%*s\r", term_cols() - 1, "");
	fflush(stderr);
	line.drawn = 0;
}

/* Draws the state of the current count: the estimate once, then the progress line. */
static void draw_locked(void)
{
	struct qx_progress p;
	char text[256];
	const double now = qx_now_ms();
	qx_progress_get(&p);
	if (p.gen <= line.first_gen || p.gen == line.hidden_gen) {
		erase_locked();
		return;
	}
	if (line.warned_gen != p.gen && promptline_estimate(&p, now, text, sizeof text) == 0) {
		erase_locked();
		fprintf(stderr, "%s\n", text); /* once per count: the reference's own comes too */
		line.warned_gen = p.gen;
	}
	if (promptline_text(&p, now, term_cols(), text, sizeof text) == 0) {
		erase_locked(); /* a shorter line leaves nothing of the one before ("~15 s leftt")
		                 */
		fprintf(stderr, "\r%s", text);
		line.drawn = 1;
	} else {
		erase_locked();
	}
	fflush(stderr);
}

/* The thread: redraws every POLL_MS until stopped, then erases its line. */
static void *promptline_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&line.lock);
	while (!line.stop) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += POLL_MS * 1000000L;
		ts.tv_sec += ts.tv_nsec / 1000000000L;
		ts.tv_nsec %= 1000000000L;
		if (pthread_cond_timedwait(&line.wake, &line.lock, &ts) == ETIMEDOUT && !line.stop)
			draw_locked();
	}
	erase_locked();
	pthread_mutex_unlock(&line.lock);
	return NULL;
}

/* Starts the thread unless it runs. */
int promptline_begin(void)
{
	struct qx_progress p;
	int rc = 1;
	qx_progress_get(&p);
	pthread_mutex_lock(&line.lock);
	if (line.running) {
		rc = 0;
	} else {
		line.stop = line.drawn = 0;
		line.warned_gen = -1;
		line.first_gen = p.gen;
		line.hidden_gen = -1;
		if (pthread_create(&line.thread, NULL, promptline_main, NULL) == 0) {
			line.running = 1;
			echo_suspend();
		} else {
			rc = -1;
		}
	}
	pthread_mutex_unlock(&line.lock);
	return rc;
}

/* Stops the thread and waits for it. */
void promptline_end(void)
{
	pthread_mutex_lock(&line.lock);
	if (!line.running) {
		pthread_mutex_unlock(&line.lock);
		return;
	}
	line.stop = 1;
	pthread_cond_signal(&line.wake);
	pthread_mutex_unlock(&line.lock);
	pthread_join(line.thread, NULL);
	echo_resume();
	pthread_mutex_lock(&line.lock);
	line.running = 0;
	pthread_mutex_unlock(&line.lock);
}

/* Erases the line and hides the current count. */
void promptline_clear(void)
{
	struct qx_progress p;
	qx_progress_get(&p);
	pthread_mutex_lock(&line.lock);
	erase_locked();
	line.hidden_gen = p.gen;
	pthread_mutex_unlock(&line.lock);
}
