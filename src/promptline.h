/* promptline.h - the progress of a long run on the prompt's line, when stderr is a terminal and
 * no dashboard is up: after about a second, "cpu 42%  2.1e+05 values/s  ~1 min 20 s left",
 * redrawn in place on stderr; when the work left is long, one line saying so up front
 * ("cpu: estimated 9 min; Ctrl-C cancels"). A thread reads the progress that runs publish
 * (qx_progress) while one command runs; nothing is written to stdout. */
#ifndef QX_PROMPTLINE_H
#define QX_PROMPTLINE_H

#include <stddef.h>

struct qx_progress; /* qx.h */

/* Work left above this many ms is announced up front. */
#define PROMPTLINE_LONG_MS 10000.0

/* Starts showing the progress of the counts that start from now on, unless it is shown
 * already (a command run by `source`). Returns 1 when this call started it (the caller then
 * calls promptline_end), 0 when it was running, -1 when no thread could be started. */
int promptline_begin(void);

/* Stops showing progress and erases the progress line. */
void promptline_end(void);

/* Erases the progress line before other output; it comes back with the next count. */
void promptline_clear(void);

/* Writes the progress line for p at time now_ms into buf (len bytes), at most cols - 1
 * characters; returns 0, or -1 when nothing is to be shown (no total, finished, or under a
 * second old). */
int promptline_text(const struct qx_progress *p, double now_ms, int cols, char *buf, size_t len);

/* Writes "cpu: estimated 9 min; Ctrl-C cancels" into buf when the work left of p, estimated
 * from the rate of its first half second or more, is over PROMPTLINE_LONG_MS; returns 0, or -1
 * when not (too early to tell, or short). */
int promptline_estimate(const struct qx_progress *p, double now_ms, char *buf, size_t len);

#endif
