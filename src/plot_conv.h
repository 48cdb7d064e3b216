/* plot_conv.h - `plot convergence`: error against evaluations on log-log axes for a lecturer,
 * the error estimate of each line solid and its true error (where an exact value is known)
 * dashed, beside the reference slopes N^-1/2 (Monte Carlo) and N^-1 (quasi-Monte Carlo at
 * best). Its lines come from the last run's convergence, from each run of the last sweep over
 * words (sweep variant breadth,vegas,qmc: one line a run, its history), or, from a sweep over a
 * number (rel, maxeval, calls...), one line a series of the other axes, through each run's end.
 * The data and the script are plain text (gnuplot's), written without a terminal. */
#ifndef QX_PLOT_CONV_H
#define QX_PLOT_CONV_H

#include <stdio.h>

#include "plot.h"

#define PLOT_CONV_LINES 32 /* lines a plot draws: a sweep's first ones */
#define PLOT_CONV_POINTS (QX_CONV_POINTS > SWEEP_MAX_VALUES ? QX_CONV_POINTS : SWEEP_MAX_VALUES)

/* One line: its name for the key ("variant=vegas cpu") and its points, evaluations ascending,
 * each with its error estimate and true error (NaN where not known or 0). */
struct plot_conv_line {
	char name[96];
	int n;
	double evals[PLOT_CONV_POINTS], err[PLOT_CONV_POINTS], true_err[PLOT_CONV_POINTS];
};

/* What `plot convergence` draws. */
struct plot_conv {
	const char *prob; /* the problem's name, for the title */
	int per_run;      /* 1: each line is one run's history; 0: each point one run's end */
	int nlines;
	int dropped; /* lines past PLOT_CONV_LINES left out */
	struct plot_conv_line line[PLOT_CONV_LINES];
};

/* The lines of the last run r: its convergence (or, without one, its end as one point).
 * Returns 0, or -1 with e filled when r has no answer with an error estimate. */
int plot_conv_from_run(const struct run_result *r, struct plot_conv *pc, struct qx_err *e);

/* The lines of sweep sw (see the top): over words only, one a successful row, its history;
 * else one a series of the first numeric axis (the other axis's value and the backend) through
 * the ends of its rows. Returns 0, or -1 with e filled when no row has a point to draw. */
int plot_conv_from_sweep(const struct sweep *sw, struct plot_conv *pc, struct qx_err *e);

/* Where the reference slopes start and end: from the fewest evaluations *n0 at the largest
 * error estimate *e0 of a line's first point, to the most evaluations *n1. Returns 0, or -1
 * when pc has no point with positive evaluations and a positive finite error estimate. */
int plot_conv_reference(const struct plot_conv *pc, double *n0, double *n1, double *e0);

/* Writes the data of pc: one block a line ("# NAME", then "evaluations error_estimate
 * true_error" rows, NaN where not known), then the blocks "# reference N^-1/2" and
 * "# reference N^-1", two points each, blocks separated by two blank lines. */
void plot_conv_write_data(const struct plot_conv *pc, FILE *f);

/* Writes the gnuplot script drawing pc from data (a datablock name or a quoted file name) into
 * image for terminal kind (PLOT_PNG, PLOT_SVG, PLOT_DUMB of cols x rows characters). */
void plot_conv_write_script(const struct plot_conv *pc, const char *data, const char *image,
                            int kind, int cols, int rows, FILE *f);

/* `plot convergence [PATH]`: draws the last sweep when no run came after it, else the last run,
 * into path (.png, .svg) or with path "-" into out as text (cols x rows), as plot_draw does.
 * Returns 0, 1 (no gnuplot: script and data written) or -1 with e filled. */
int plot_convergence(const struct session *s, const char *path, int cols, int rows, FILE *out,
                     struct qx_err *e);

#endif
