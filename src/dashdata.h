/* dashdata.h - what the dashboard shows, as plain data: a snapshot of the session taken by the
 * worker thread after each command, and the log of commands and their output. Free of ncurses;
 * the panels draw from it. */
#ifndef QX_DASHDATA_H
#define QX_DASHDATA_H

#include "dashfmt.h"
#include "session.h"
#include "sweep.h"

#define DASH_LOG_LINES 500
#define DASH_LINE 200
#define DASH_LOG_WIDTH 1024 /* a log entry; a longer line goes on in the next entries */
#define DASH_HISTORY 40
#define DASH_DEVICE_LINES 6
#define DASH_CONFIG 512 /* a configuration: as long as the session's timing keys (run.c) */

/* The latest timing of one backend slot: CPU with 1 thread, CPU with threads, GPU. */
enum dash_slot { SLOT_CPU_SERIAL, SLOT_CPU_THREADS, SLOT_GPU, SLOT_COUNT };
struct dash_timing {
	int valid;
	int threads_or_block;     /* CPU threads, or the GPU block size */
	char config[DASH_CONFIG]; /* "expint n=300 m=300 ... float fast" of the run */
	struct qx_timing med;     /* the CPU fills only total */
	int ngpus;                /* the GPU slot's run over several GPUs: how many (else 0), */
	struct qx_timing
	    gpu[QX_MAX_GPUS]; /* each one's median phases and total (med: the slowest's) */
};

/* One GPU of the host as the Device panel lists it (dash_device fills them). */
#define DASH_GPU_NAME 64
struct dash_gpu {
	char name[DASH_GPU_NAME];
	int sms;
};

/* The sweep panel's copy of the last sweep: one row per configuration and backend finished. */
#define DASH_SWEEP_ROWS (2 * SWEEP_MAX_CONFIGS)
struct dash_sweep_row {
	char label[48]; /* the configuration's values and backend: "fast 256 gpu" */
	int ok, best;
	double per_s, total_ms; /* per_s: the throughput in the sweep's unit */
	char error[64];         /* when !ok */
	int has_answer;         /* a run of one value: its value and error estimate (NaN: none) */
	double value, estimate;
	long long integrals, integrals_converged; /* a batch's run (integrals > 0): how many
	                                           * integrals, how many converged */
};
struct dash_sweep {
	int present;            /* 0 before the session's first sweep */
	int running, cancelled; /* as in struct sweep */
	char axes[80];          /* "variant x block on gpu" */
	char unit[24];          /* the throughput's unit: the problem's work unit ("pairs") */
	size_t nconfigs, configs_done;
	int nrows, best; /* best: a row index or -1 */
	struct dash_sweep_row rows[DASH_SWEEP_ROWS];
};

/* The live convergence of an adaptive run (the Chart panel while it runs): per progress report
 * the run's error estimate over the error it stops at, log10, against its evaluations so far;
 * 0 when it meets its tolerance. */
struct dash_converge {
	int active;    /* 1 while an adaptive run reports: the Chart panel shows it */
	long long gen; /* the progress count (qx_progress.gen) the chart follows */
	struct qx_chart chart;
};

struct dash_data {
	char problem[32];
	char params[400];          /* name=value of the problem's parameters */
	char settings[200];        /* precision, block, threads, variant */
	int precision, block;      /* the settings the dashboard's keys change */
	int block_min, block_max;  /* what `set block` accepts */
	char current[DASH_CONFIG]; /* the configuration a run would have now, as in config */
	struct dash_timing timing[SLOT_COUNT];

	double speedup_serial, speedup_threads; /* the latest GPU run's; NaN when not measured */
	int threads_ref;                        /* threads of the CPU run behind speedup_threads */
	double cpu_scaling;                     /* CPU threads over CPU serial, same config; NaN */
	int cpu_scaling_threads;
	double history[DASH_HISTORY]; /* GPU speedups of the recent GPU runs, oldest first */
	int nhistory;

	char error_of[DASH_CONFIG]; /* which run the error panel describes, "" before the first */
	int has_error, is_reference;
	struct err_stats err;
	char worst_at[100];    /* the worst point's coordinates, "n=3 x=1.5" */
	char worst_value[100]; /* its value and the reference, "0.0123 vs 0.0124" */
	struct log_hist hist;
	char extras[DASH_LINE];  /* the problem's own figures of the run, "bound_max 1e-07  ..." */
	char compile[DASH_LINE]; /* the run's compile phase, "cpu compile 162 ms (cached)"; "" */
	struct qx_chart chart;   /* the run's chart; nseries 0 when it left none */

	char device[DASH_DEVICE_LINES][DASH_LINE];
	int ndevice;
	struct dash_gpu gpus[QX_MAX_GPUS]; /* every GPU the host has, device order */
	int ngpus;                         /* how many (0: none, or not asked yet) */

	struct dash_sweep sweep;
	struct dash_converge converge; /* written by the UI thread (dash_converge_add) */

	int runs_seen;
	struct run_result seen; /* a copy of the last result taken in, to spot a new one */
};

/* The log: the last DASH_LOG_LINES lines, a ring. */
struct dash_log {
	char line[DASH_LOG_LINES][DASH_LOG_WIDTH];
	int first, count;
};

/* The dashboard's keys, as the status line and F1's list show them (tui.c acts on them). */
extern const struct key_hint dash_keys[];
extern const int dash_key_count;

/* Clears d: no runs, NaN speedups. */
void dash_init(struct dash_data *d);

/* Takes in the session after a command: problem, settings, the CPU timings, and the last run
 * when it is new (its timing, speedups, error, histogram over all points, worst point and
 * chart). */
void dash_update(struct dash_data *d, struct session *s);

/* Returns 1 when the timing of slot k was measured on a configuration (problem, parameters,
 * precision, variant) other than the current settings', 0 when on the same one. */
int dash_timing_other(const struct dash_data *d, enum dash_slot k);

/* The command of F3 (up = 0: halve the block) or F4 (up = 1: double it), clamped to what
 * `set block` accepts: returns 1 with "set block N" in line, or 0 with a note for the log in
 * line when the block is already at that end. */
int dash_block_key(const struct dash_data *d, int up, char *line, size_t len);

/* Writes the answer of a run of one value into buf: "value V ± E (estimate)  true error T"
 * (or "no exact value"); "" for a run of many values. */
void dash_answer_line(char *buf, size_t len, const struct run_result *r);

/* Writes the compile phase of a run from its figures compile_ms, link_ms and compile_cached
 * (user integrands), e.g. "gpu compile 120 ms + link 310 ms (cached)", into buf: the time the
 * code took to build, outside the run's own time; cached: this run reused it and built
 * nothing. "" when the run compiled nothing. */
void dash_compile_line(char *buf, size_t len, enum qx_backend b, const struct qx_figure *fig,
                       size_t n);

/* Takes in a progress report p for the live convergence chart c: while p is an adaptive run's
 * (target > 0, an error estimate, evaluations done) c is active and a report with more
 * evaluations than its last point adds (evaluations, log10(err / target) at least 0); a new
 * count (another gen) starts the chart again; when it is full every other point goes. Anything
 * else (no run, a count of known total) makes c inactive. Returns 1 when c changed. */
int dash_converge_add(struct dash_converge *c, const struct qx_progress *p);

/* Writes the extras (a problem's own figures of a run) as "name value  name value" into buf,
 * a batch's figures integrals and converged as one piece first, "integrals 997/1000
 * converged"; "" when there are none. */
void dash_extras_line(char *buf, size_t len, const struct qx_figure *extra, size_t n);

/* Takes in the sweep sw (NULL: none yet) for the sweep panel; the rows past DASH_SWEEP_ROWS
 * are dropped. */
void dash_take_sweep(struct dash_sweep *d, const struct sweep *sw);

/* The sweep panel's header: "block on gpu: 3 of 9 configurations; best 256 gpu" (or
 * "cancelled after ..."); "no sweep yet ..." before the first. */
void dash_sweep_header(char *buf, size_t len, const struct dash_sweep *sw);

/* Row i of the sweep's bar chart, width cells wide: '*' on the best row, the label, the answer
 * of a run of one value ("0.6321205588 ± 9e-16"; a batch's "997/1000 converged"; when a bar of
 * 8 cells still fits beside it),
 * a bar of its throughput on the scale of the fastest row, and the throughput ("1.07 G/s"); a
 * failed row shows its error. */
void dash_sweep_line(char *buf, size_t len, const struct dash_sweep *sw, int i, int width,
                     int utf8);

/* Fills idx with the indexes of the sweep rows that a panel of rows rows shows, in order: all
 * when they fit, else the newest, with the best row first in place of the oldest of them when it
 * is older; returns how many (at most rows, and at most DASH_SWEEP_ROWS). */
int dash_sweep_visible(const struct dash_sweep *sw, int rows, int *idx);

/* The sweep's place in the status line while it runs: "configuration 3 of 9"; "" when no
 * sweep runs. */
void dash_sweep_progress(char *buf, size_t len, const struct dash_sweep *sw);

/* Fills the device lines: the GPU's name, SMs, memory, clocks and a measured pinned
 * device-to-host copy bandwidth (through a pinned buffer of the measurement's own, so it never
 * touches a result), or why there is no GPU. */
void dash_device(struct dash_data *d);

/* The device lines of dash_device from gpu (NULL: no GPU, why says why) and the copy's
 * measurement: copy_ms for bytes, or copy_err when it failed (NULL when it worked). */
void dash_device_lines(struct dash_data *d, const struct gpu_info *gpu, const char *why,
                       size_t bytes, double copy_ms, const char *copy_err);

/* The GPU of the GPU slot's run over several GPUs t with the largest median total (the one the
 * run waited for: its time is the run's), or -1 when t is not such a run. */
int dash_gpu_slowest(const struct dash_timing *t);

/* Fills idx with the GPUs of t's run over several GPUs that rows rows show, in device order:
 * all when they fit, else the first ones with the slowest in place of the last when it is not
 * among them. Returns how many (0 when t is no such run or rows < 1). */
int dash_gpu_visible(const struct dash_timing *t, int rows, int *idx);

/* The Timing panel's line of GPU g of t's run over several GPUs, at most width cells (ASCII):
 * ">gpu1 4.12 ms  kernel 3.21  d2h 0.4": '>' marks the slowest GPU (a blank the others), then
 * its median total and its phases from the longest down, as many whole ones as fit. */
void dash_gpu_timing_line(char *buf, size_t len, const struct dash_timing *t, int g, int width);

/* The Device panel's line of GPU g of the host, at most width cells: "0 NVIDIA H100 80GB HBM3
 * 132 SMs", its name cut to fit; when the last GPU run (slot) went over several GPUs and g was
 * one of them its median total follows ("1.2 ms") and '>' marks the slowest instead of the
 * leading blank. */
void dash_gpu_device_line(char *buf, size_t len, const struct dash_data *d, int g, int width);

/* Appends text to the log, one entry per line (tabs become spaces); a line longer than an
 * entry goes on in the next entries, broken at a blank where it can, nothing of it dropped. */
void dash_log_add(struct dash_log *log, const char *text);

/* Returns line i of the log, 0 the oldest kept; NULL past the end. */
const char *dash_log_line(const struct dash_log *log, int i);

/* One row of the Log panel: the log line it shows part of, and which part. */
struct dash_log_row {
	const char *line;
	struct wrap_piece piece;
};

/* Returns how many rows the log takes with its lines wrapped to width cells (fmt_wrap). */
int dash_log_rows(const struct dash_log *log, int width);

/* Fills view with the rows a Log panel of rows rows and width cells shows, scrolled back scroll
 * rows from the newest (at most as far as the oldest row at the top), oldest first; returns
 * how many it filled: rows, or fewer when the log is shorter. */
int dash_log_view(const struct dash_log *log, int width, int scroll, int rows,
                  struct dash_log_row *view);

#endif
