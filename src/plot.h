/* plot.h - draws the last sweep through gnuplot's command language: time against the swept
 * value (median with min..max bars, one line per series), and the GPU's speedup or the CPU's
 * parallel efficiency when the sweep measured them; or the last run's one-parameter batch,
 * each integral's value against the parameter. */
#ifndef QX_PLOT_H
#define QX_PLOT_H

#include <stdio.h>

#include "sweep.h"

/* The terminals a plot's script writes for: PNG, SVG, or gnuplot's dumb one (text). */
enum { PLOT_PNG, PLOT_SVG, PLOT_DUMB };

/* What a plot draws: its data and its script for gnuplot terminal kind (cols x rows a panel for
 * PLOT_DUMB) from data (a datablock name or a quoted file name) into image; arg is what it
 * draws (a sweep, a batch, a convergence). */
struct plot_src {
	void (*data)(const void *arg, FILE *f);
	void (*script)(const void *arg, const char *data, const char *image, int kind, int cols,
	               int rows, FILE *f);
	const void *arg;
};

/* Draws src into path (.png or .svg) as plot_sweep does (gnuplot, or without it the script
 * and data beside path), or with path "-" into out as text (cols x rows), as plot_terminal
 * does. Returns 0, 1 (no gnuplot: script and data written) or -1 with e filled. */
int plot_draw(const struct plot_src *src, const char *path, int cols, int rows, FILE *out,
              struct qx_err *e);

/* Writes the gnuplot data of sw to f: one block per series (the other axis's value and the
 * backend), separated by two blank lines, with columns x, label, median, min, max total ms,
 * speedup and efficiency (NaN where not measured). Returns the number of series. */
int plot_write_data(const struct sweep *sw, FILE *f);

/* Index of sw's axis drawn along x: its first numeric one, or -1 when every axis is words. */
int plot_x_axis(const struct sweep *sw);

/* Writes a gnuplot script to f that draws sw from data (a datablock name such as $sweep, or a
 * quoted file name) into image, as SVG when svg is 1, else PNG. */
void plot_write_script(const struct sweep *sw, const char *data, const char *image, int svg,
                       FILE *f);

/* Draws the last sweep of s into path (.png or .svg) with gnuplot when it is on the PATH
 * (atomically: a temporary image renamed into place) and returns 0; without gnuplot it writes
 * PATH's stem .gp and .dat, prints to out how to render them and returns 1. Returns -1 with e
 * filled on failure. */
int plot_sweep(const struct sweep *sw, const char *path, FILE *out, struct qx_err *e);

/* Draws the last sweep into out as text, with gnuplot's dumb terminal, each panel cols x rows
 * characters. Returns 0, or -1 with e filled (no gnuplot, nothing to draw, gnuplot failed). */
int plot_terminal(const struct sweep *sw, int cols, int rows, FILE *out, struct qx_err *e);

/* A one-parameter batch's integrals (the last run's): n values of precision prec with their
 * error estimates est (NULL: none) at the parameter's values x. */
struct plot_batch {
	const char *prob, *param;
	size_t n;
	const double *x;
	const void *values;
	const double *est;
	enum qx_precision prec;
};

/* Draws b, value against the parameter with the error estimates as bars, into path (.png or
 * .svg), as plot_sweep does, or with path "-" into out as text (cols x rows), as plot_terminal
 * does. Returns 0, 1 (no gnuplot: script and data written) or -1 with e filled. */
int plot_batch(const struct plot_batch *b, const char *path, int cols, int rows, FILE *out,
               struct qx_err *e);

#endif
