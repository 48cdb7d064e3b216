/* dashdata.c - the dashboard's snapshot of the session and its log, free of ncurses. */
#include "dashdata.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../cuda/quadx_cuda.h"

/* Clears d. */
void dash_init(struct dash_data *d)
{
	memset(d, 0, sizeof *d);
	d->speedup_serial = d->speedup_threads = d->cpu_scaling = NAN;
}

/* Writes "PROBLEM params precision variant" of a result into buf. */
static void run_config(const struct run_result *r, char *buf, size_t len)
{
	char params[400];
	session_params_string(r->prob, r->params, params, sizeof params);
	snprintf(buf, len, "%s %s %s %s", r->prob->name, params, qx_precision_name(r->prec),
	         r->prob->variants[r->variant].name);
}

/* Copies a CPU timing of the session into slot t. */
static void take_cpu_timing(struct dash_timing *t, const struct cpu_timing *c)
{
	t->valid = !isnan(c->total_ms) && c->key[0];
	if (!t->valid)
		return;
	memset(&t->med, 0, sizeof t->med);
	t->med.total = c->total_ms;
	t->threads_or_block = c->threads;
	snprintf(t->config, sizeof t->config, "%s", c->key);
}

/* Takes in the error of the new result r: statistics, worst point, histogram of all points. */
static void take_error(struct dash_data *d, struct session *s, const struct run_result *r)
{
	struct qx_err e;
	const char *names[8];
	double coords[8];
	const double *ref;
	d->has_error = r->has_error;
	d->is_reference = r->is_reference;
	d->worst_at[0] = d->worst_value[0] = '\0';
	memset(&d->hist, 0, sizeof d->hist);
	if (!r->has_error)
		return;
	d->err = r->err;
	ref = session_reference(s, r->prob, r->params, &e);
	if (!ref) {
		snprintf(d->worst_value, sizeof d->worst_value, "no reference: %.80s", e.msg);
		return;
	}
	qx_progress_start((long long)r->evals, "error histogram");
	hist_log10_rel(ref, s->last_values, r->prec, r->evals, &d->hist);
	qx_progress_add((long long)r->evals);
	const int nc = r->prob->point(r->params, r->err.worst, names, coords);
	for (int k = 0; k < nc && k < 8; k++) {
		const size_t used = strlen(d->worst_at);
		snprintf(d->worst_at + used, sizeof d->worst_at - used, "%s%s=%.6g", k ? " " : "",
		         names[k], coords[k]);
	}
	snprintf(d->worst_value, sizeof d->worst_value, "%.9g vs %.9g",
	         value_at(s->last_values, r->prec, r->err.worst), ref[r->err.worst]);
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
		struct param_value v = {session_setting(s, shown[k]), 0};
		session_setting_def(s, shown[k], &def, names);
		param_format(&def, v, text[k], sizeof text[k]);
	}
	snprintf(d->settings, sizeof d->settings, "precision %s  block %s  threads %s  variant %s",
	         text[0], text[1], text[2], text[3]);

	d->precision = (int)session_setting(s, S_PRECISION);
	d->block = (int)session_setting(s, S_BLOCK);
	take_cpu_timing(&d->timing[SLOT_CPU_SERIAL], &s->cpu_serial);
	take_cpu_timing(&d->timing[SLOT_CPU_THREADS], &s->cpu_threads);
	d->cpu_scaling = NAN;
	if (d->timing[SLOT_CPU_SERIAL].valid && d->timing[SLOT_CPU_THREADS].valid &&
	    !strcmp(s->cpu_serial.key, s->cpu_threads.key)) {
		d->cpu_scaling = s->cpu_serial.total_ms / s->cpu_threads.total_ms;
		d->cpu_scaling_threads = s->cpu_threads.threads;
	}

	/* A new result differs from the copy of the last one taken in: its timings at least. */
	const struct run_result *r = s->last;
	if (!r || (d->runs_seen && memcmp(r, &d->seen, sizeof *r) == 0))
		return;
	memcpy(&d->seen, r, sizeof *r);
	d->runs_seen++;
	run_config(r, d->error_of, sizeof d->error_of);
	if (r->backend == QX_GPU) {
		struct dash_timing *t = &d->timing[SLOT_GPU];
		t->valid = 1;
		t->med = r->med;
		t->threads_or_block = r->block;
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
	take_error(d, s, r);
}

/* Fills the device lines from gpu_init and a measured copy. The copy goes through the GPU
 * layer's pinned buffer, which may hold the last GPU result's values: then it is skipped. */
void dash_device(struct dash_data *d, const struct session *s)
{
	struct gpu_info g;
	struct qx_err e;
	double ms;
	const size_t bytes = (size_t)64 << 20;
	d->ndevice = 0;
	if (gpu_init(&g, &e)) {
		snprintf(d->device[d->ndevice++], DASH_LINE, "no GPU");
		snprintf(d->device[d->ndevice++], DASH_LINE, "%.190s", e.msg);
		return;
	}
	snprintf(d->device[d->ndevice++], DASH_LINE, "%.100s (cc %d.%d)", g.name, g.cc_major,
	         g.cc_minor);
	snprintf(d->device[d->ndevice++], DASH_LINE, "%d SMs  %.1f GiB (%.1f GiB free)", g.sms,
	         g.mem_total / 1073741824.0, g.mem_free / 1073741824.0);
	snprintf(d->device[d->ndevice++], DASH_LINE, "SM %d MHz  memory %d MHz, %d-bit bus",
	         g.sm_clock_mhz, g.mem_clock_mhz, g.mem_bus_bits);
	if (s->last && s->last->backend == QX_GPU)
		snprintf(d->device[d->ndevice++], DASH_LINE,
		         "copy d2h: not measured (the pinned buffer holds the last result)");
	else if (gpu_floor_copy(bytes, 5, &ms, &e) == 0 && ms > 0)
		snprintf(d->device[d->ndevice++], DASH_LINE,
		         "copy d2h %.1f GB/s (64 MiB pinned, median of 5)", bytes / (ms * 1e6));
	else
		snprintf(d->device[d->ndevice++], DASH_LINE, "copy d2h: %.150s", e.msg);
	snprintf(d->device[d->ndevice++], DASH_LINE, "driver %d  runtime %d  context %.4g ms",
	         g.driver_version, g.runtime_version, g.context_ms);
}

/* Appends text to the log, line by line. */
void dash_log_add(struct dash_log *log, const char *text)
{
	while (*text) {
		const char *nl = strchr(text, '\n');
		const size_t n = nl ? (size_t)(nl - text) : strlen(text);
		const int slot = (log->first + log->count) % DASH_LOG_LINES;
		char *dst = log->line[slot];
		size_t w = 0;
		for (size_t i = 0; i < n && w < DASH_LINE - 1; i++)
			dst[w++] = text[i] == '\t' ? ' ' : text[i];
		dst[w] = '\0';
		if (log->count < DASH_LOG_LINES)
			log->count++;
		else
			log->first = (log->first + 1) % DASH_LOG_LINES;
		text += n + (nl ? 1 : 0);
	}
}

/* Returns line i of the log. */
const char *dash_log_line(const struct dash_log *log, int i)
{
	if (i < 0 || i >= log->count)
		return NULL;
	return log->line[(log->first + i) % DASH_LOG_LINES];
}
