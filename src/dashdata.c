/* dashdata.c - the dashboard's snapshot of the session and its log, free of ncurses.
 * One file, over 600 lines: the snapshot is one struct filled from the session under the
 * dashboard's mutex, with the log beside it; both are read by panels.c only. */
#include "dashdata.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "device.h"
#include "run.h"

/* Clears d. */
void dash_init(struct dash_data *d)
{
	memset(d, 0, sizeof *d);
	d->speedup_serial = d->speedup_threads = d->cpu_scaling = NAN;
}

/* Writes the configuration of a result into buf: the session's timing key, so that it
 * compares equal with the CPU timings' keys. */
static void run_config(const struct run_result *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s", r->timing_key);
}

/* Copies a CPU timing of the session into slot t when it is of problem p (its key starts
 * with p's name). */
static void take_cpu_timing(struct dash_timing *t, const struct cpu_timing *c,
                            const struct problem *p)
{
	const size_t n = strlen(p->name);
	t->valid = !isnan(c->total_ms) && !strncmp(c->key, p->name, n) && c->key[n] == ' ';
	if (!t->valid)
		return;
	memset(&t->med, 0, sizeof t->med);
	t->med.total = c->total_ms;
	t->threads_or_block = c->threads;
	snprintf(t->config, sizeof t->config, "%s", c->key);
}

/* Drops what the snapshot took from the runs of another problem: the GPU timing, speedups
 * and their history, the chart and the error; the next run of the current one is taken in. */
static void forget_runs(struct dash_data *d)
{
	d->timing[SLOT_GPU].valid = 0;
	d->speedup_serial = d->speedup_threads = NAN;
	d->nhistory = 0;
	d->chart.nseries = 0;
	d->error_of[0] = d->extras[0] = d->compile[0] = '\0';
	d->has_error = d->is_reference = 0;
	d->runs_seen = 0;
	memset(&d->seen, 0, sizeof d->seen);
}

/* Takes in the error of the new result r: statistics, worst point, histogram of all points. */
static void take_error(struct dash_data *d, struct session *s, const struct run_result *r)
{
	struct qx_err e;
	const char *names[QX_MAX_COORDS];
	double coords[QX_MAX_COORDS];
	const double *ref;
	d->has_error = r->has_error && r->err.count > 0;
	d->is_reference = r->is_reference;
	d->worst_at[0] = d->worst_value[0] = '\0';
	memset(&d->hist, 0, sizeof d->hist);
	char answer[DASH_LINE], figures[DASH_LINE];
	dash_answer_line(answer, sizeof answer, r);
	dash_extras_line(figures, sizeof figures, r->figure, r->nfigures);
	snprintf(d->extras, sizeof d->extras, "%s%s%s", answer, *answer && *figures ? "  " : "",
	         figures);
	dash_compile_line(d->compile, sizeof d->compile, r->summary.backend, r->figure,
	                  r->nfigures);
	if (!d->has_error)
		return;
	d->err = r->err;
	ref = session_reference(s, r->prob, r->params, &e);
	if (!ref) {
		snprintf(d->worst_value, sizeof d->worst_value, "no reference: %.80s", e.msg);
		return;
	}
	qx_progress_start((long long)r->evals, "error histogram");
	hist_log10_rel(ref, s->last_values, r->summary.prec, r->evals, &d->hist);
	qx_progress_add((long long)r->evals);
	const int nc = r->prob->point(r->params, session_state(s, r->prob), &r->user, r->err.worst,
	                              names, coords, QX_MAX_COORDS);
	for (int k = 0; k < nc; k++) {
		const size_t used = strlen(d->worst_at);
		snprintf(d->worst_at + used, sizeof d->worst_at - used, "%s%s=%.6g", k ? " " : "",
		         names[k], coords[k]);
	}
	snprintf(d->worst_value, sizeof d->worst_value, "%.9g vs %.9g",
	         value_at(s->last_values, r->summary.prec, r->err.worst), ref[r->err.worst]);
}

/* Takes in the session after a command. */
void dash_update(struct dash_data *d, struct session *s)
{
	const struct problem *p = s->prob;
	struct param_def def;
	const char *names[QX_MAX_VARIANTS + 1];
	char text[4][64];
	const enum setting shown[4] = {S_PRECISION, S_BLOCK, S_THREADS, S_VARIANT};
	snprintf(d->problem, sizeof d->problem, "%s", p->name);
	session_params_string(p, s->params[s->prob_index], d->params, sizeof d->params);
	for (int k = 0; k < 4; k++) {
		struct param_value v = {.num = session_setting(s, shown[k])};
		session_setting_def(s, shown[k], &def, names);
		param_format(&def, v, text[k], sizeof text[k]);
		if (shown[k] == S_BLOCK) {
			d->block_min = (int)def.min;
			d->block_max = (int)def.max;
		}
	}
	snprintf(d->settings, sizeof d->settings, "precision %s  block %s  threads %s  variant %s",
	         text[0], text[1], text[2], text[3]);

	d->precision = (int)session_setting(s, S_PRECISION);
	d->block = (int)session_setting(s, S_BLOCK);
	session_timing_key(p, s->params[s->prob_index], &s->user, (enum qx_precision)d->precision,
	                   (int)session_setting(s, S_VARIANT), d->current, sizeof d->current);
	/* another problem's timings, sweep and results are not shown: `use` clears them */
	take_cpu_timing(&d->timing[SLOT_CPU_SERIAL], &s->cpu_serial, p);
	take_cpu_timing(&d->timing[SLOT_CPU_THREADS], &s->cpu_threads, p);
	dash_take_sweep(&d->sweep, s->sweep && s->sweep->prob == p ? s->sweep : NULL);
	d->cpu_scaling = NAN;
	if (d->timing[SLOT_CPU_SERIAL].valid && d->timing[SLOT_CPU_THREADS].valid &&
	    !strcmp(s->cpu_serial.key, s->cpu_threads.key)) {
		d->cpu_scaling = s->cpu_serial.total_ms / s->cpu_threads.total_ms;
		d->cpu_scaling_threads = s->cpu_threads.threads;
	}

	/* A new result differs from the copy of the last one taken in: its timings at least. */
	const struct run_result *r = s->last;
	if (r && r->prob != p) {
		forget_runs(d);
		return;
	}
	if (!r || (d->runs_seen && memcmp(r, &d->seen, sizeof *r) == 0))
		return;
	memcpy(&d->seen, r, sizeof *r);
	d->runs_seen++;
	run_config(r, d->error_of, sizeof d->error_of);
	if (r->summary.backend == QX_GPU) {
		struct dash_timing *t = &d->timing[SLOT_GPU];
		t->valid = 1;
		t->med = r->summary.med;
		t->threads_or_block = r->summary.block;
		t->ngpus = r->summary.gpus > 1 && r->gpu_med ? r->summary.gpus : 0;
		for (int g = 0; g < t->ngpus && g < QX_MAX_GPUS; g++)
			t->gpu[g] = r->gpu_med[g]; /* the result's copy is freed with it */
		run_config(r, t->config, sizeof t->config);
		d->speedup_serial = r->speedup_serial;
		d->speedup_threads = r->speedup_threads;
		d->threads_ref = r->threads_ref;
		const double x = isnan(r->speedup_threads) ? r->speedup_serial : r->speedup_threads;
		if (d->nhistory == DASH_HISTORY)
			memmove(d->history, d->history + 1,
			        (DASH_HISTORY - 1) * sizeof d->history[0]);
		else
			d->nhistory++;
		d->history[d->nhistory - 1] = x;
	}
	if (r->chart)
		d->chart = *r->chart;
	else
		d->chart.nseries = 0;
	take_error(d, s, r);
}

/* Returns whether slot k's timing is of another configuration than the current settings. */
int dash_timing_other(const struct dash_data *d, enum dash_slot k)
{
	return strcmp(d->timing[k].config, d->current) != 0;
}

/* Writes F3's or F4's command, or the note that the block is already at that end. */
int dash_block_key(const struct dash_data *d, int up, char *line, size_t len)
{
	int block = up ? d->block * 2 : d->block / 2;
	block = block < d->block_min ? d->block_min : block > d->block_max ? d->block_max : block;
	if (block == d->block) {
		snprintf(line, len, "block is already %d, the %s `set block` takes", block,
		         up ? "largest" : "smallest");
		return 0;
	}
	snprintf(line, len, "set block %d", block);
	return 1;
}

/* Writes the answer of a run of one value: "value V ± E (estimate)" and its true error or
 * "no exact value"; "" for a run of many values. */
void dash_answer_line(char *buf, size_t len, const struct run_result *r)
{
	buf[0] = '\0';
	if (!r->has_answer)
		return;
	int n = snprintf(buf, len, "value %.10g", r->value);
	if (n >= 0 && (size_t)n < len && !isnan(r->estimate))
		n += snprintf(buf + n, len - (size_t)n, " ± %.2g (estimate)", r->estimate);
	if (n >= 0 && (size_t)n < len && !r->is_reference)
		snprintf(buf + n, len - (size_t)n,
		         isnan(r->exact) ? "  no exact value" : "  true error %.2g",
		         fabs(r->value - r->exact));
}

/* Writes the compile phase from the figures. */
void dash_compile_line(char *buf, size_t len, enum qx_backend b, const struct qx_figure *fig,
                       size_t n)
{
	double compile = NAN, link = NAN, cached = NAN;
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(fig[i].name, "compile_ms"))
			compile = fig[i].value;
		else if (!strcmp(fig[i].name, "link_ms"))
			link = fig[i].value;
		else if (!strcmp(fig[i].name, "compile_cached"))
			cached = fig[i].value;
	}
	if (isnan(compile))
		return;
	int k = snprintf(buf, len, "%s compile %.3g ms", qx_backend_name(b), compile);
	if (k >= 0 && (size_t)k < len && link > 0)
		k += snprintf(buf + k, len - (size_t)k, " + link %.3g ms", link);
	if (k >= 0 && (size_t)k < len)
		snprintf(buf + k, len - (size_t)k, "%s",
		         cached > 0 ? " (cached)" : ", before the run's time");
}

/* Takes in one progress report for the live convergence chart. */
int dash_converge_add(struct dash_converge *c, const struct qx_progress *p)
{
	struct qx_series *s = &c->chart.series[0];
	if (!(p->target > 0) || !(p->err >= 0) || p->done <= 0) {
		const int was = c->active;
		c->active = 0;
		return was;
	}
	if (!c->active || c->gen != p->gen) {
		c->active = 1;
		c->gen = p->gen;
		c->chart = (struct qx_chart){.nseries = 1};
		snprintf(c->chart.title, sizeof c->chart.title, "convergence, live");
		snprintf(c->chart.xlabel, sizeof c->chart.xlabel, "evaluations");
		s->kind = QX_SERIES_LINE;
		snprintf(s->name, sizeof s->name, "log10(error estimate / where it stops)");
	}
	if (s->npoints && (double)p->done <= s->x[s->npoints - 1])
		return 0;
	if (s->npoints == QX_CHART_POINTS) { /* full: every other point, the newest kept */
		int k = 0;
		for (int i = 1; i < QX_CHART_POINTS; i += 2, k++) {
			s->x[k] = s->x[i];
			s->y[k] = s->y[i];
		}
		s->npoints = k;
	}
	s->x[s->npoints] = (double)p->done;
	s->y[s->npoints++] = p->err > 0 ? fmax(0, log10(p->err / p->target)) : 0;
	return 1;
}

/* The index of the figure called name among the n of fig, or -1. */
static int figure_index(const struct qx_figure *fig, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(fig[i].name, name))
			return (int)i;
	return -1;
}

/* Writes the extras as "name value" pairs, two blanks apart; a batch's integrals and converged
 * first, as one piece. */
void dash_extras_line(char *buf, size_t len, const struct qx_figure *extra, size_t n)
{
	size_t used = 0;
	char one[96];
	const int all = figure_index(extra, n, "integrals");
	const int conv = all >= 0 ? figure_index(extra, n, "converged") : -1;
	buf[0] = '\0';
	if (conv >= 0) {
		fmt_items(buf, len, "integrals", (long long)extra[conv].value,
		          (long long)extra[all].value);
		used = strlen(buf);
	}
	for (size_t i = 0; i < n && used < len; i++)
		if ((conv < 0 || ((int)i != all && (int)i != conv)) &&
		    figure_text(&extra[i], one, sizeof one))
			used +=
			    (size_t)snprintf(buf + used, len - used, "%s%s", used ? "  " : "", one);
}

/* Fills the device lines from gpu_init and a copy measured through a pinned buffer of
 * gpu_floor_copy's own (the session's result buffer is left alone). */
void dash_device(struct dash_data *d)
{
	struct gpu_info g;
	struct qx_err e;
	double ms = 0;
	const size_t bytes = (size_t)64 << 20;
	if (gpu_init(&g, &e)) {
		dash_device_lines(d, NULL, e.msg, 0, 0, NULL);
		return;
	}
	const int copied = gpu_floor_copy(bytes, 5, &ms, &e) == 0 && ms > 0;
	dash_device_lines(d, &g, NULL, bytes, ms, copied ? NULL : e.msg);
	int n = 0;
	d->ngpus = 0;
	if (gpu_count(&n, &e))
		return;
	for (int k = 0; k < n && k < QX_MAX_GPUS; k++, d->ngpus++) {
		if (gpu_device_info(k, &g, &e))
			snprintf(g.name, sizeof g.name, "(%.200s)", e.msg);
		snprintf(d->gpus[k].name, DASH_GPU_NAME, "%s", g.name);
		d->gpus[k].sms = g.sms;
	}
}

/* The slowest GPU of a run over several. */
int dash_gpu_slowest(const struct dash_timing *t)
{
	int slow = -1;
	if (!t->valid || t->ngpus < 2)
		return -1;
	for (int g = 0; g < t->ngpus && g < QX_MAX_GPUS; g++)
		if (slow < 0 || t->gpu[g].total > t->gpu[slow].total)
			slow = g;
	return slow;
}

/* The GPUs a panel of rows rows lists: the first ones, the slowest always among them. */
int dash_gpu_visible(const struct dash_timing *t, int rows, int *idx)
{
	const int slow = dash_gpu_slowest(t);
	int n = 0;
	if (slow < 0 || rows < 1)
		return 0;
	for (int g = 0; g < t->ngpus && g < QX_MAX_GPUS && n < rows; g++)
		idx[n++] = g;
	if (slow > idx[n - 1])
		idx[n - 1] = slow;
	return n;
}

/* Appends " name ms" pieces of t's phases, the longest first, to buf (used bytes of it) while
 * they fit width cells. */
static void longest_phases(char *buf, size_t len, size_t used, const struct qx_timing *t, int width)
{
	int done[QX_MAX_PHASES] = {0};
	for (int n = 0; n < t->nphases && n < QX_MAX_PHASES; n++) {
		int k = -1;
		char piece[48];
		for (int j = 0; j < t->nphases && j < QX_MAX_PHASES; j++)
			if (!done[j] && (k < 0 || t->phase[j].ms > t->phase[k].ms))
				k = j;
		done[k] = 1;
		const int w =
		    snprintf(piece, sizeof piece, "  %.10s %.3g", t->phase[k].name, t->phase[k].ms);
		if (used + (size_t)w > (size_t)width || used + (size_t)w >= len)
			return;
		memcpy(buf + used, piece, (size_t)w + 1);
		used += (size_t)w;
	}
}

/* The Timing panel's line of GPU g. */
void dash_gpu_timing_line(char *buf, size_t len, const struct dash_timing *t, int g, int width)
{
	const int slow = dash_gpu_slowest(t);
	buf[0] = '\0';
	if (slow < 0 || g < 0 || g >= t->ngpus || width < 1)
		return;
	int used = snprintf(buf, len, "%cgpu%d %.4g ms", g == slow ? '>' : ' ', g, t->gpu[g].total);
	if (used < 0 || (size_t)used >= len)
		return;
	if (used > width) { /* too narrow even for the total: the mark and the GPU */
		buf[(size_t)width < len ? width : 0] = '\0';
		return;
	}
	longest_phases(buf, len, (size_t)used, &t->gpu[g], width);
}

/* The Device panel's line of GPU g. */
void dash_gpu_device_line(char *buf, size_t len, const struct dash_data *d, int g, int width)
{
	const struct dash_timing *t = &d->timing[SLOT_GPU];
	const int slow = dash_gpu_slowest(t), ran = slow >= 0 && g < t->ngpus;
	char tail[48], head[8];
	buf[0] = '\0';
	if (g < 0 || g >= d->ngpus || width < 1)
		return;
	snprintf(head, sizeof head, "%c%d ", g == slow ? '>' : ' ', g);
	if (ran)
		snprintf(tail, sizeof tail, " %.4g ms", t->gpu[g].total);
	else
		snprintf(tail, sizeof tail, " %d SMs", d->gpus[g].sms);
	const int room = width - (int)strlen(head) - (int)strlen(tail);
	if (room < 4) { /* the index and the time (or SMs) before the name */
		snprintf(buf, len, "%s%s", head, tail + 1);
		if ((int)strlen(buf) > width && (size_t)width < len)
			buf[width] = '\0';
		return;
	}
	int cut = (int)strnlen(d->gpus[g].name, (size_t)room);
	while (cut > 0 && d->gpus[g].name[cut - 1] == ' ') /* no blank before the tail's */
		cut--;
	snprintf(buf, len, "%s%.*s%s", head, cut, d->gpus[g].name, tail);
}

/* Writes the device lines from the GPU's facts and the copy's measurement. */
void dash_device_lines(struct dash_data *d, const struct gpu_info *gpu, const char *why,
                       size_t bytes, double copy_ms, const char *copy_err)
{
	d->ndevice = 0;
	if (!gpu) {
		snprintf(d->device[d->ndevice++], DASH_LINE, "no GPU");
		snprintf(d->device[d->ndevice++], DASH_LINE, "%.190s", why);
		return;
	}
	snprintf(d->device[d->ndevice++], DASH_LINE, "%.100s (cc %d.%d)", gpu->name, gpu->cc_major,
	         gpu->cc_minor);
	snprintf(d->device[d->ndevice++], DASH_LINE, "%d SMs  %.1f GiB (%.1f GiB free)", gpu->sms,
	         gpu->mem_total / 1073741824.0, gpu->mem_free / 1073741824.0);
	snprintf(d->device[d->ndevice++], DASH_LINE, "SM %d MHz  memory %d MHz, %d-bit bus",
	         gpu->sm_clock_mhz, gpu->mem_clock_mhz, gpu->mem_bus_bits);
	if (copy_err)
		snprintf(d->device[d->ndevice++], DASH_LINE, "copy d2h: %.150s", copy_err);
	else
		snprintf(d->device[d->ndevice++], DASH_LINE,
		         "copy d2h %.1f GB/s (%zu MiB pinned, median of 5)",
		         bytes / (copy_ms * 1e6), bytes >> 20);
	snprintf(d->device[d->ndevice++], DASH_LINE, "driver %d  runtime %d  context %.4g ms",
	         gpu->driver_version, gpu->runtime_version, gpu->context_ms);
}

/* Takes in the sweep for the sweep panel: its plan as text and one short row per row. */
void dash_take_sweep(struct dash_sweep *d, const struct sweep *sw)
{
	d->present = sw != NULL;
	if (!sw)
		return;
	d->running = sw->running;
	d->cancelled = sw->cancelled;
	d->nconfigs = sw->nconfigs;
	d->configs_done = sw->configs_done;
	d->nrows = sw->nrows < DASH_SWEEP_ROWS ? (int)sw->nrows : DASH_SWEEP_ROWS;
	d->best = sw->best < d->nrows ? sw->best : -1;
	snprintf(d->axes, sizeof d->axes, "%s%s%s on %s", sw->axes[0].name,
	         sw->naxes > 1 ? " x " : "", sw->naxes > 1 ? sw->axes[1].name : "",
	         sw->backends == (QX_ON_CPU | QX_ON_GPU) ? "both"
	         : sw->backends == QX_ON_GPU             ? "gpu"
	                                                 : "cpu");
	snprintf(d->unit, sizeof d->unit, "%s", sw->prob->work_unit);
	for (int i = 0; i < d->nrows; i++) {
		const struct sweep_row *r = &sw->rows[i];
		struct dash_sweep_row *o = &d->rows[i];
		o->label[0] = '\0';
		for (int a = 0; a < sw->naxes; a++) {
			const size_t used = strlen(o->label);
			snprintf(o->label + used, sizeof o->label - used, "%.20s ", r->values[a]);
		}
		const size_t used = strlen(o->label);
		snprintf(o->label + used, sizeof o->label - used, "%s",
		         qx_backend_name(r->summary.backend));
		o->ok = r->ok;
		o->best = i == d->best;
		o->per_s = r->ok ? r->summary.work_per_s : NAN;
		o->total_ms = r->ok ? r->summary.med.total : NAN;
		snprintf(o->error, sizeof o->error, "%s", r->ok ? "" : r->error);
		o->has_answer = r->ok && r->has_answer;
		o->value = o->has_answer ? r->value : NAN;
		o->estimate = o->has_answer ? r->estimate : NAN;
		o->integrals = r->ok ? r->integrals : 0;
		o->integrals_converged = r->ok ? r->integrals_converged : 0;
	}
}

/* Writes the sweep panel's header. */
void dash_sweep_header(char *buf, size_t len, const struct dash_sweep *sw)
{
	if (!sw->present) {
		snprintf(buf, len, "no sweep yet (try: sweep block 32..1024)");
		return;
	}
	const int n =
	    snprintf(buf, len, "%s: %s%zu of %zu configurations", sw->axes,
	             sw->cancelled ? "cancelled after " : "", sw->configs_done, sw->nconfigs);
	if (sw->best >= 0 && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "; best %s", sw->rows[sw->best].label);
}

/* Writes a throughput with an SI prefix: "1.07 G/s"; "-" when it is not a positive number. */
static void fmt_rate(char *buf, size_t len, double per_s)
{
	static const char prefix[] = " kMGTPE";
	int k = 0;
	if (!(per_s > 0) || !isfinite(per_s)) {
		snprintf(buf, len, "-");
		return;
	}
	while (per_s >= 999.5 && k < (int)sizeof prefix - 2) {
		per_s /= 1000;
		k++;
	}
	snprintf(buf, len, k ? "%.3g %c/s" : "%.3g /s", per_s, prefix[k]);
}

/* Writes the answer of sweep row r, "V ± E" (ASCII: "V +- E"; "V" without an estimate; a
 * batch: "997/1000 converged") into buf, "" for a row without one; returns its width in
 * cells. */
static int fmt_answer(char *buf, size_t len, const struct dash_sweep_row *r, int utf8)
{
	buf[0] = '\0';
	if (r->ok && r->integrals > 0) {
		snprintf(buf, len, "%lld/%lld converged", r->integrals_converged, r->integrals);
		return (int)strlen(buf);
	}
	if (!r->ok || !r->has_answer)
		return 0;
	int n = snprintf(buf, len, "%.10g", r->value);
	if (isfinite(r->estimate) && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, utf8 ? " ± %.2g" : " +- %.2g", r->estimate);
	return (int)strlen(buf) - (utf8 && isfinite(r->estimate)); /* ± is 2 bytes, 1 cell */
}

/* Writes row i of the sweep's bar chart. */
void dash_sweep_line(char *buf, size_t len, const struct dash_sweep *sw, int i, int width, int utf8)
{
	enum { FIGURE = 10, MIN_BAR = 8 };
	char bar[4 * 256], fig[32], answer[64];
	int label_w = 0, answer_w = 0;
	double fastest = 0;
	buf[0] = '\0';
	if (i < 0 || i >= sw->nrows)
		return;
	for (int k = 0; k < sw->nrows; k++) {
		const int n = (int)strlen(sw->rows[k].label);
		const int a = fmt_answer(answer, sizeof answer, &sw->rows[k], utf8);
		label_w = n > label_w ? n : label_w;
		answer_w = a > answer_w ? a : answer_w;
		if (sw->rows[k].ok && sw->rows[k].per_s > fastest)
			fastest = sw->rows[k].per_s;
	}
	label_w = label_w > width / 3 ? width / 3 : label_w;
	const struct dash_sweep_row *r = &sw->rows[i];
	if (!r->ok) {
		snprintf(buf, len, "  %-*.*s failed: %s", label_w, label_w, r->label, r->error);
		return;
	}
	int cells = width - 2 - label_w - 1 - 1 - FIGURE;
	if (answer_w && cells - answer_w - 1 >= MIN_BAR)
		cells -= answer_w + 1; /* the answers fit, aligned, before the bars */
	else
		answer_w = 0;
	cells = cells < 0 ? 0 : cells > 256 ? 256 : cells;
	const int drawn = fmt_bar(bar, sizeof bar, r->per_s, fastest, cells, utf8);
	const int shown = answer_w ? fmt_answer(answer, sizeof answer, r, utf8) : 0;
	if (!answer_w)
		answer[0] = '\0';
	fmt_rate(fig, sizeof fig, r->per_s);
	snprintf(buf, len, "%c %-*.*s %*s%s%s%s%*s %s", r->best ? '*' : ' ', label_w, label_w,
	         r->label, answer_w - shown, "", answer, answer_w ? " " : "", bar, cells - drawn,
	         "", fig);
}

/* Writes the sweep's progress for the status line. */
void dash_sweep_progress(char *buf, size_t len, const struct dash_sweep *sw)
{
	if (!sw->present || !sw->running) {
		buf[0] = '\0';
		return;
	}
	const size_t k = sw->configs_done < sw->nconfigs ? sw->configs_done + 1 : sw->nconfigs;
	snprintf(buf, len, "configuration %zu of %zu", k, sw->nconfigs);
}

/* Picks the sweep rows a panel of rows rows shows. */
int dash_sweep_visible(const struct dash_sweep *sw, int rows, int *idx)
{
	const int shown = rows < 0 ? 0 : sw->nrows < rows ? sw->nrows : rows;
	const int first = sw->nrows - shown;
	const int keep_best = shown > 0 && sw->best >= 0 && sw->best < first;
	int n = 0;
	if (keep_best)
		idx[n++] = sw->best;
	for (int i = first + keep_best; i < sw->nrows; i++)
		idx[n++] = i;
	return n;
}

/* Appends text to the log, line by line. */
void dash_log_add(struct dash_log *log, const char *text)
{
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t n = nl ? (size_t)(nl - text) : strlen(text), next = n + (nl ? 1 : 0);
		if (n > DASH_LOG_WIDTH - 1) { /* goes on in the next entry: after a blank if any */
			n = next = DASH_LOG_WIDTH - 1;
			for (size_t i = n; i > n / 2; i--)
				if (text[i] == ' ' || text[i] == '\t') {
					n = i;
					next = i + 1;
					break;
				}
			while (((unsigned char)text[n] & 0xC0) == 0x80) /* not inside a character */
				n = --next;
		}
		const int slot = (log->first + log->count) % DASH_LOG_LINES;
		char *dst = log->line[slot];
		for (size_t i = 0; i < n; i++)
			dst[i] = text[i] == '\t' ? ' ' : text[i];
		dst[n] = '\0';
		if (log->count < DASH_LOG_LINES)
			log->count++;
		else
			log->first = (log->first + 1) % DASH_LOG_LINES;
		text += next;
	}
}

/* Returns line i of the log. */
const char *dash_log_line(const struct dash_log *log, int i)
{
	if (i < 0 || i >= log->count)
		return NULL;
	return log->line[(log->first + i) % DASH_LOG_LINES];
}

/* Counts the log's wrapped rows. */
int dash_log_rows(const struct dash_log *log, int width)
{
	int rows = 0;
	for (int i = 0; i < log->count; i++)
		rows += fmt_wrap_indent(dash_log_line(log, i), width, NULL, 0);
	return rows;
}

/* Fills the Log panel's view. */
int dash_log_view(const struct dash_log *log, int width, int scroll, int rows,
                  struct dash_log_row *view)
{
	struct wrap_piece piece[DASH_LOG_WIDTH];
	const int total = dash_log_rows(log, width);
	int bottom = total - (scroll > 0 ? scroll : 0), n = 0, r = 0;
	if (bottom < rows)
		bottom = total < rows ? total : rows;
	const int top = bottom - rows > 0 ? bottom - rows : 0;
	for (int i = 0; i < log->count && r < bottom; i++) {
		const char *line = dash_log_line(log, i);
		const int np = fmt_wrap_indent(line, width, piece, DASH_LOG_WIDTH);
		for (int p = 0; p < np; p++, r++)
			if (r >= top && r < bottom)
				view[n++] = (struct dash_log_row){line, piece[p]};
	}
	return n;
}

/* The dashboard's keys; tui.c's handle_key acts on them. */
const struct key_hint dash_keys[] = {
    {"F1", "keys", "show or hide this list of keys", 0},
    {"F5", "run both", "run both: time the CPU and the GPU", 2},
    {"F6", "cpu", "run cpu", 5},
    {"F7", "gpu", "run gpu", 5},
    {"F8", "zoom", "zoom the Log to the whole screen, and back", 3},
    {"F9", "chart",
     "zoom the Chart (the last run's, when its problem draws one) to the whole "
     "screen, and back",
     5},
    {"F2", "precision", "toggle the precision (float/double)", 6},
    {"F3/F4", "block /2 x2",
     "halve / double the block size within what `set block` takes (at either end the log "
     "says so); every press counts, each from the block the one before it set",
     7},
    {"PgUp/PgDn", NULL, "scroll the Log a page at a time (long lines wrap)", 0},
    {"Esc", NULL, "cancel the run in progress and drop the lines queued behind it (Ctrl-C too)", 0},
    {"Ctrl-C", NULL, "with no run: drop the line being typed", 0},
    {"Tab", NULL, "complete; twice: list the completions in the Log", 0},
    {"q", NULL, "leave, typed alone on an empty command line (nothing else within 0.4 s)", 0},
    {"F10", "leave", "leave the dashboard (also Ctrl-D on an empty line, or quit)", 0},
};
const int dash_key_count = sizeof dash_keys / sizeof dash_keys[0];
