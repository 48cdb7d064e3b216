/* plot_conv.c - `plot convergence` (plot_conv.h): the lines from a run or a sweep, the data and
 * the gnuplot script of error against evaluations on log-log axes. */
#include "plot_conv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* |est - exact|, NaN where exact is not known or the difference is 0 (no point on a log
 * axis). */
static double true_error(double est, double exact)
{
	const double t = fabs(est - exact);
	return t > 0 ? t : NAN;
}

/* Appends a point to line l (dropped when full). */
static void line_add(struct plot_conv_line *l, double evals, double err, double true_err)
{
	if (l->n >= PLOT_CONV_POINTS)
		return;
	l->evals[l->n] = evals;
	l->err[l->n] = err;
	l->true_err[l->n++] = true_err;
}

/* Sorts l's points by their evaluations (insertion: a line has few). */
static void line_sort(struct plot_conv_line *l)
{
	for (int i = 1; i < l->n; i++)
		for (int k = i; k > 0 && l->evals[k] < l->evals[k - 1]; k--) {
			double *cols[3] = {l->evals, l->err, l->true_err};
			for (int c = 0; c < 3; c++) {
				const double t = cols[c][k];
				cols[c][k] = cols[c][k - 1];
				cols[c][k - 1] = t;
			}
		}
}

/* A new line named name, or NULL when pc is full (counted in dropped). */
static struct plot_conv_line *line_new(struct plot_conv *pc, const char *name)
{
	if (pc->nlines == PLOT_CONV_LINES) {
		pc->dropped++;
		return NULL;
	}
	struct plot_conv_line *l = &pc->line[pc->nlines++];
	l->n = 0;
	snprintf(l->name, sizeof l->name, "%s", name);
	return l;
}

/* Adds a run's points to l: its convergence, or its end (work, estimate) without one. */
static void line_of_run(struct plot_conv_line *l, const struct qx_convergence *cv, double work,
                        double value, double estimate, double exact)
{
	if (cv && cv->n > 0)
		for (int i = 0; i < cv->n; i++)
			line_add(l, cv->evals[i], cv->err[i], true_error(cv->est[i], exact));
	else
		line_add(l, work, estimate, true_error(value, exact));
}

/* Whether l has a point that a log-log plot shows (positive evaluations and error estimate). */
static int line_drawable(const struct plot_conv_line *l)
{
	for (int i = 0; i < l->n; i++)
		if (l->evals[i] > 0 && l->err[i] > 0 && isfinite(l->err[i]))
			return 1;
	return 0;
}

/* Whether pc has a line to draw; else fills e with what. */
static int any_drawable(const struct plot_conv *pc, const char *what, struct qx_err *e)
{
	for (int k = 0; k < pc->nlines; k++)
		if (line_drawable(&pc->line[k]))
			return 1;
	qx_fail(e,
	        "plot convergence: %s has no run with an error estimate and its evaluations "
	        "(a problem's iterative runs record them; `help plot` names them)",
	        what);
	return 0;
}

/* The last run's line. */
int plot_conv_from_run(const struct run_result *r, struct plot_conv *pc, struct qx_err *e)
{
	char name[96];
	memset(pc, 0, sizeof *pc);
	pc->prob = r->prob->name;
	pc->per_run = 1;
	if (!r->has_answer)
		return qx_fail(
		    e,
		    "plot convergence: the last run (%s) has no answer of one value with "
		    "an error estimate (`help plot` says which runs have one)",
		    r->prob->name);
	snprintf(name, sizeof name, "%s %s", r->prob->variants[r->summary.variant].name,
	         qx_backend_name(r->summary.backend));
	line_of_run(line_new(pc, name), r->conv, r->work, r->value, r->estimate, r->exact);
	return any_drawable(pc, "the last run", e) ? 0 : -1;
}

/* The name of row r's line: every axis but skip (-1: none) as NAME=VALUE (variant: its
 * value), then the backend; without such an axis its variant and backend. */
static void row_name(const struct sweep *sw, const struct sweep_row *r, int skip, char *buf,
                     size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int a = 0; a < sw->naxes && used < len; a++)
		if (a != skip && !strcmp(sw->axes[a].name, "variant"))
			used += (size_t)snprintf(buf + used, len - used, "%s ", r->values[a]);
		else if (a != skip)
			used += (size_t)snprintf(buf + used, len - used, "%s=%s ", sw->axes[a].name,
			                         r->values[a]);
	if (used == 0)
		snprintf(buf, len, "%s %s", sw->prob->variants[r->summary.variant].name,
		         qx_backend_name(r->summary.backend));
	else if (used < len)
		snprintf(buf + used, len - used, "%s", qx_backend_name(r->summary.backend));
}

/* The sweep's lines. */
int plot_conv_from_sweep(const struct sweep *sw, struct plot_conv *pc, struct qx_err *e)
{
	const int xa = plot_x_axis(sw);
	memset(pc, 0, sizeof *pc);
	pc->prob = sw->prob->name;
	pc->per_run = xa < 0;
	for (size_t i = 0; i < sw->nrows; i++) {
		const struct sweep_row *r = &sw->rows[i];
		struct plot_conv_line *l = NULL;
		char name[96];
		if (!r->ok || !r->has_answer)
			continue;
		row_name(sw, r, xa, name, sizeof name);
		for (int k = 0; k < pc->nlines && !pc->per_run && !l; k++)
			if (!strcmp(pc->line[k].name, name))
				l = &pc->line[k];
		if (!l && !(l = line_new(pc, name)))
			continue;
		if (pc->per_run)
			line_of_run(l, &r->conv, r->work, r->value, r->estimate, r->exact);
		else /* a point a run: its end */
			line_of_run(l, NULL, r->work, r->value, r->estimate, r->exact);
	}
	for (int k = 0; k < pc->nlines; k++)
		line_sort(&pc->line[k]);
	return any_drawable(pc, "the last sweep", e) ? 0 : -1;
}

/* The reference slopes' ends. */
int plot_conv_reference(const struct plot_conv *pc, double *n0, double *n1, double *e0)
{
	*n0 = INFINITY;
	*n1 = *e0 = 0;
	for (int k = 0; k < pc->nlines; k++) {
		const struct plot_conv_line *l = &pc->line[k];
		int first = 1;
		for (int i = 0; i < l->n; i++) {
			if (!(l->evals[i] > 0 && l->err[i] > 0 && isfinite(l->err[i])))
				continue;
			*n0 = fmin(*n0, l->evals[i]);
			*n1 = fmax(*n1, l->evals[i]);
			if (first)
				*e0 = fmax(*e0, l->err[i]);
			first = 0;
		}
	}
	return *e0 > 0 ? 0 : -1;
}

/* One number column (NaN where not finite or not positive: a log axis shows none). */
static void data_num(FILE *f, double v)
{
	if (isfinite(v) && v > 0)
		fprintf(f, " %.9g", v);
	else
		fprintf(f, " NaN");
}

/* The data: a block a line, then the two reference slopes. */
void plot_conv_write_data(const struct plot_conv *pc, FILE *f)
{
	double n0, n1, e0;
	for (int k = 0; k < pc->nlines; k++) {
		const struct plot_conv_line *l = &pc->line[k];
		fprintf(f, "%s# %s\n# evaluations error_estimate true_error\n", k ? "\n\n" : "",
		        l->name);
		for (int i = 0; i < l->n; i++) {
			fprintf(f, "%.17g", l->evals[i]);
			data_num(f, l->err[i]);
			data_num(f, l->true_err[i]);
			fputc('\n', f);
		}
	}
	if (plot_conv_reference(pc, &n0, &n1, &e0))
		n0 = n1 = e0 = NAN;
	static const double slope[2] = {0.5, 1};
	static const char *const name[2] = {"N^-1/2", "N^-1"};
	for (int s = 0; s < 2; s++) {
		fprintf(f, "\n\n# reference %s\n# evaluations error\n", name[s]);
		fprintf(f, "%.17g %.9g\n", n0, e0);
		fprintf(f, "%.17g %.9g\n", n1, e0 * pow(n1 / n0, -slope[s]));
	}
}

/* Whether line l has a true error to draw. */
static int has_true(const struct plot_conv_line *l)
{
	for (int i = 0; i < l->n; i++)
		if (isfinite(l->true_err[i]) && l->true_err[i] > 0)
			return 1;
	return 0;
}

/* The script: log-log axes, per line its estimate (solid, points) and true error (dashed, the
 * same colour), then the reference slopes (grey, dotted). */
void plot_conv_write_script(const struct plot_conv *pc, const char *data, const char *image,
                            int kind, int cols, int rows, FILE *f)
{
	int any_true = 0;
	for (int k = 0; k < pc->nlines; k++)
		any_true |= has_true(&pc->line[k]);
	if (kind == PLOT_DUMB)
		fprintf(f, "set terminal dumb nofeed size %d,%d\n", cols, rows);
	else /* noenhanced: N^-1/2 and the names as written */
		fprintf(f, "set terminal %s noenhanced size 900,600\n",
		        kind == PLOT_SVG ? "svg" : "pngcairo");
	fprintf(f, "set output '%s'\n", image);
	fprintf(f, "set grid\nset key outside right top\nset datafile missing 'NaN'\n");
	fprintf(f, "set logscale xy\nset format x '%%.0e'\nset format y '%%.0e'\n");
	fprintf(f,
	        "set title \"%s: error against evaluations%s\\n(%s; solid: error estimate%s)\"\n",
	        pc->prob, pc->dropped ? " (the first lines)" : "",
	        pc->per_run ? "a line a run, a point an iteration"
	                    : "a line a series, a point a run's end",
	        any_true ? ", dashed: true error" : "");
	fprintf(f, "set xlabel 'evaluations'\nset ylabel 'error'\n");
	fprintf(f, "plot ");
	for (int k = 0; k < pc->nlines; k++) {
		const struct plot_conv_line *l = &pc->line[k];
		fprintf(
		    f,
		    "%s%s index %d using 1:2 with linespoints lc %d pt 7 ps 0.5 title \"%s est\"",
		    k ? ", \\\n     " : "", data, k, k + 1, l->name);
		if (has_true(l))
			fprintf(f,
			        ", \\\n     %s index %d using 1:3 with lines dt 2 lc %d title \"%s "
			        "true\"",
			        data, k, k + 1, l->name);
	}
	fprintf(f,
	        ", \\\n     %s index %d using 1:2 with lines dt 3 lc rgb '#808080' title "
	        "\"N^-1/2\"",
	        data, pc->nlines);
	fprintf(f,
	        ", \\\n     %s index %d using 1:2 with lines dt 4 lc rgb '#404040' title "
	        "\"N^-1\"\n",
	        data, pc->nlines + 1);
	fprintf(f, "unset output\n");
}

/* The data, as plot_src takes it. */
static void conv_data(const void *arg, FILE *f)
{
	plot_conv_write_data(arg, f);
}

/* The script, as plot_src takes it. */
static void conv_script(const void *arg, const char *data, const char *image, int kind, int cols,
                        int rows, FILE *f)
{
	plot_conv_write_script(arg, data, image, kind, cols, rows, f);
}

/* The last sweep when no run came after it, else the last run. */
int plot_convergence(const struct session *s, const char *path, int cols, int rows, FILE *out,
                     struct qx_err *e)
{
	const struct sweep *sw = s->sweep;
	struct plot_conv *pc = malloc(sizeof *pc);
	int rc;
	if (!pc)
		return qx_fail(e, "plot convergence: out of memory");
	if (sw && sw->nrows > 0 && !sw->running && (s->nruns == sw->runs_end || !s->last))
		rc = plot_conv_from_sweep(sw, pc, e);
	else if (s->last)
		rc = plot_conv_from_run(s->last, pc, e);
	else
		rc = qx_fail(e, "plot convergence: no run or sweep yet (run or sweep first; "
		                "`help plot` shows an example)");
	if (rc == 0) {
		const struct plot_src src = {conv_data, conv_script, pc};
		rc = plot_draw(&src, path, cols, rows, out, e);
	}
	free(pc);
	return rc;
}
