/* output.c - a run's result as quadx prints or exports it, one serialiser per format (text,
 * JSON Lines through cJSON, CSV with RFC 4180 fields), on the primitives every row shares;
 * the other rows of a run (samples, eval, worst points, values, records) are in output_rows.c,
 * a sweep's rows and table in output_sweep.c. Phases and figures are printed as each run has
 * them, by name. */
#include "output_internal.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Writes v with the fewest digits that read back as v; "nan"/"inf" never reach here. */
void output_number(char *buf, size_t len, double v)
{
	format_real(v, buf, len);
}

/* The length of the well-formed UTF-8 sequence (RFC 3629: no overlong form, no surrogate,
 * nothing over U+10FFFF) at s, or 0 when the byte at s starts none. */
static size_t utf8_sequence(const unsigned char *s)
{
	unsigned lo = 0x80, hi = 0xBF;
	size_t n;
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		n = 2;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		n = 3, lo = s[0] == 0xE0 ? 0xA0 : lo, hi = s[0] == 0xED ? 0x9F : hi;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		n = 4, lo = s[0] == 0xF0 ? 0x90 : lo, hi = s[0] == 0xF4 ? 0x8F : hi;
	else
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xBF)
			return 0;
	return n;
}

/* Writes JSON text to out with each byte that is not part of well-formed UTF-8 (a file name
 * or a typed word in another encoding, echoed in a message) written as the six characters
 * \\xHH, so that every line is valid JSON in UTF-8 and the byte stays visible. */
void output_json_text(FILE *out, const char *text)
{
	const unsigned char *c = (const unsigned char *)text, *run = c;
	size_t n;
	for (; *c; c += n)
		if (!(n = utf8_sequence(c))) {
			fwrite(run, 1, (size_t)(c - run), out);
			fprintf(out, "\\\\x%02X", *c);
			run = c + (n = 1);
		}
	fwrite(run, 1, (size_t)(c - run), out);
}

/* Writes text to out with each control byte and each byte outside well-formed UTF-8 as the
 * text \\xHH, so that a line from a damaged file shows what it holds and cannot drive the
 * terminal. */
void output_visible_text(FILE *out, const char *text)
{
	size_t n;
	for (const unsigned char *c = (const unsigned char *)text; *c; c += n) {
		n = utf8_sequence(c);
		if (n && !(n == 1 && (*c < 0x20 || *c == 0x7F)))
			fwrite(c, 1, n, out);
		else
			fprintf(out, "\\x%02X", *c), n = 1;
	}
}

/* Prints a cJSON object as one line and frees it. */
void output_print_json(struct output_ctx *io, cJSON *obj)
{
	char *text = cJSON_PrintUnformatted(obj);
	if (text) {
		output_json_text(io->out, text);
		fputc('\n', io->out);
		cJSON_free(text);
	}
	cJSON_Delete(obj);
}

/* Adds a number to obj, or null when it is not finite (JSON has no NaN). */
void output_json_num(cJSON *obj, const char *name, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(obj, name, v);
	else
		cJSON_AddNullToObject(obj, name);
}

/* Prints header (once, until it changes) and row as CSV lines. */
void output_print_csv(struct output_ctx *io, const char *header, const char *row)
{
	if (strcmp(header, io->csv_header) != 0) {
		snprintf(io->csv_header, sizeof io->csv_header, "%s", header);
		fprintf(io->out, "%s\n", header);
	}
	fprintf(io->out, "%s\n", row);
}

/* Appends field to the CSV line (len bytes), after a comma unless first, quoted per RFC 4180
 * when it holds a comma, a double quote or a line break (quotes doubled). */
void output_csv_field(char *line, size_t len, const char *field, int first)
{
	size_t used = strlen(line);
	const int quote = strpbrk(field, ",\"\r\n") != NULL;
	if (!first && used + 1 < len)
		line[used++] = ',';
	if (quote && used + 1 < len)
		line[used++] = '"';
	for (const char *c = field; *c && used + 2 < len; c++) {
		if (*c == '"')
			line[used++] = '"';
		line[used++] = *c;
	}
	if (quote && used + 1 < len)
		line[used++] = '"';
	line[used] = '\0';
}

/* Appends a number field (empty when not finite). */
void output_csv_num(char *line, size_t len, double v)
{
	char num[40] = "";
	if (isfinite(v))
		output_number(num, sizeof num, v);
	output_csv_field(line, len, num, 0);
}

/* Appends a text field. */
void output_csv_text(char *line, size_t len, const char *text)
{
	output_csv_field(line, len, text, 0);
}

/* The phase times of t as an object: every phase by name, then total. */
cJSON *output_timing_json(const struct qx_timing *t)
{
	cJSON *ph = cJSON_CreateObject();
	for (int k = 0; k < t->nphases; k++)
		output_json_num(ph, t->phase[k].name, t->phase[k].ms);
	output_json_num(ph, "total", t->total);
	return ph;
}

/* Adds word to obj as a number when all of it reads as a finite one ("1", "9", "1e-3": a
 * parameter's value, an enum named by a number), else as a string ("f5", "float"). */
void output_json_word(cJSON *obj, const char *name, const char *word)
{
	char *end;
	const double v = strtod(word, &end);
	if (*word && !*end && isfinite(v))
		cJSON_AddNumberToObject(obj, name, v);
	else
		cJSON_AddStringToObject(obj, name, word);
}

/* Adds the problem's own settings of values v to obj as numbers. */
void output_json_settings(cJSON *obj, const struct problem *p, const struct param_value *v)
{
	for (size_t k = 0; k < p->nsettings; k++)
		cJSON_AddNumberToObject(obj, p->settings[k].name, v[k].num);
}

/* Adds how many times each phase that repeated ran, as "phase_counts" (nothing when none
 * repeated). */
static void json_phase_counts(cJSON *obj, const struct qx_timing *t)
{
	cJSON *counts = NULL;
	for (int k = 0; k < t->nphases; k++)
		if (t->phase[k].count > 1) {
			if (!counts)
				counts = cJSON_AddObjectToObject(obj, "phase_counts");
			cJSON_AddNumberToObject(counts, t->phase[k].name, t->phase[k].count);
		}
}

/* Adds the figures to obj by name. */
static void json_figures(cJSON *obj, const struct qx_figure *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		output_json_num(obj, f[i].name, f[i].value);
}

/* Adds what a run and a sweep's row share (their run_summary m, of problem p) to obj: backend,
 * precision, threads, block, the problem's own settings, variant, the median, fastest and
 * slowest phases, repeat, warmup, the throughputs, and for a GPU run its GPUs (several: the
 * times are the slowest GPU's). */
void output_summary_json(cJSON *obj, const struct problem *p, const struct run_summary *m)
{
	cJSON_AddStringToObject(obj, "backend", qx_backend_name(m->backend));
	cJSON_AddStringToObject(obj, "precision", qx_precision_name(m->prec));
	cJSON_AddNumberToObject(obj, "threads", m->threads);
	cJSON_AddNumberToObject(obj, "block", m->block);
	output_json_settings(obj, p, m->settings);
	cJSON_AddStringToObject(obj, "variant", p->variants[m->variant].name);
	cJSON_AddItemToObject(obj, "time_ms", output_timing_json(&m->med));
	cJSON_AddItemToObject(obj, "time_ms_min", output_timing_json(&m->min));
	cJSON_AddItemToObject(obj, "time_ms_max", output_timing_json(&m->max));
	cJSON_AddNumberToObject(obj, "repeat", m->nsamples);
	cJSON_AddNumberToObject(obj, "warmup", m->warmup);
	output_json_num(obj, "evals_per_s", m->evals_per_s);
	output_json_num(obj, "work_per_s", m->work_per_s);
	cJSON_AddStringToObject(obj, "work_unit", p->work_unit);
	if (m->backend == QX_GPU)
		cJSON_AddNumberToObject(obj, "gpus", m->gpus);
}

/* Builds the JSON object of a run result. */
cJSON *output_run_json(const struct run_result *r)
{
	const struct problem *p = r->prob;
	cJSON *obj = cJSON_CreateObject(), *params = NULL, *sp, *err;
	cJSON_AddStringToObject(obj, "type", "run");
	cJSON_AddStringToObject(obj, "problem", p->name);
	output_summary_json(obj, p, &r->summary);
	params = cJSON_AddObjectToObject(obj, "params");
	for (size_t k = 0; k < p->nparams; k++) {
		const struct param_def *d = &p->params[k];
		char text[PARAM_TEXT_LEN];
		if (!param_is_number(d, r->params[k])) {
			param_format(d, r->params[k], text, sizeof text);
			output_json_word(params, d->name, text);
		} else {
			cJSON_AddNumberToObject(params, d->name, r->params[k].num);
		}
	}
	json_phase_counts(obj, &r->summary.med);
	if (r->summary.gpus > 1 && r->gpu_med) {
		cJSON *arr = cJSON_AddArrayToObject(obj, "per_gpu");
		for (int g = 0; g < r->summary.gpus; g++)
			cJSON_AddItemToArray(arr, output_timing_json(&r->gpu_med[g]));
	}
	cJSON_AddBoolToObject(obj, "overlapped", qx_timing_overlapped(&r->summary.med));
	cJSON_AddNumberToObject(obj, "evals", (double)r->evals);
	cJSON_AddNumberToObject(obj, "work", r->work);
	if (r->summary.backend == QX_GPU &&
	    (isfinite(r->speedup_serial) || isfinite(r->speedup_threads))) {
		sp = cJSON_AddObjectToObject(obj, "speedup");
		if (isfinite(r->speedup_serial))
			cJSON_AddNumberToObject(sp, "vs_cpu_serial", r->speedup_serial);
		if (isfinite(r->speedup_threads)) {
			cJSON_AddNumberToObject(sp, "vs_cpu_threads", r->speedup_threads);
			cJSON_AddNumberToObject(sp, "cpu_threads", r->threads_ref);
		}
	}
	if (r->has_answer) {
		output_json_num(obj, "value", r->value);
		output_json_num(obj, "error_estimate", r->estimate);
		output_json_num(obj, "exact", r->exact);
		output_json_num(obj, "true_error", fabs(r->value - r->exact));
	}
	if (r->error_kind)
		cJSON_AddStringToObject(obj, "error_kind", r->error_kind);
	if (isfinite(r->tolerance))
		cJSON_AddNumberToObject(obj, "tolerance", r->tolerance);
	cJSON_AddBoolToObject(obj, "reference", r->is_reference);
	cJSON_AddStringToObject(obj, "against", r->ref_name);
	cJSON_AddNumberToObject(obj, "compared", (double)r->ref_compared);
	cJSON_AddNumberToObject(obj, "nonfinite", (double)r->nonfinite);
	if (r->note)
		cJSON_AddStringToObject(obj, "note", r->note);
	if (r->has_estimates)
		cJSON_AddNumberToObject(obj, "over_estimate", (double)r->est_under);
	if (r->has_error) {
		const double none = r->err.count ? 0 : NAN; /* nothing compared: null, not 0 */
		err = cJSON_AddObjectToObject(obj, "error");
		output_json_num(err, "max_rel", none + r->err.max_rel);
		output_json_num(err, "mean_rel", none + r->err.mean_rel);
		output_json_num(err, "max_abs", none + r->err.max_abs);
		output_json_num(err, "mean_abs", none + r->err.mean_abs);
		output_json_num(err, "over_threshold", none + (double)r->err.over);
		cJSON_AddNumberToObject(err, "threshold", r->err.threshold);
		if (r->has_rounding) {
			cJSON_AddNumberToObject(err, "over_within_rounding",
			                        (double)r->over_rounding);
			output_json_num(err, "condition_max", r->condition_max);
		}
		json_figures(err, r->figure, r->nfigures);
	} else if (r->nfigures) {
		json_figures(cJSON_AddObjectToObject(obj, "figures"), r->figure, r->nfigures);
	}
	return obj;
}

/* The CSV columns of the phases of problem p and of t: p's declared phases, then any other
 * phase t has; fills names (cap) and returns how many. */
int output_phase_columns(const struct problem *p, const struct qx_timing *t, const char **names,
                         int cap)
{
	int n = 0;
	for (int k = 0; p->phases && p->phases[k] && n < cap; k++)
		names[n++] = p->phases[k];
	for (int k = 0; k < t->nphases && n < cap; k++) {
		int seen = 0;
		for (int j = 0; j < n && !seen; j++)
			seen = strcmp(names[j], t->phase[k].name) == 0;
		if (!seen)
			names[n++] = t->phase[k].name;
	}
	return n;
}

/* Appends the columns NAME_SUFFIX of the phases named names to header and their times in t to
 * row (empty when t is NULL or lacks the phase). */
void output_csv_phases(char *header, char *row, size_t len, const char *const *names, int n,
                       const char *suffix, const struct qx_timing *t)
{
	for (int k = 0; k < n; k++) {
		char name[64];
		const int j = t ? qx_timing_find(t, names[k]) : -1;
		snprintf(name, sizeof name, "%s%s", names[k], suffix);
		output_csv_text(header, len, name);
		output_csv_num(row, len, j >= 0 ? t->phase[j].ms : NAN);
	}
}

/* Appends NAME_min_ms and NAME_max_ms of each phase named names, from min and max (empty when
 * NULL). */
void output_csv_phase_spread(char *header, char *row, size_t len, const char *const *names, int n,
                             const struct qx_timing *min, const struct qx_timing *max)
{
	for (int k = 0; k < n; k++) {
		output_csv_phases(header, row, len, names + k, 1, "_min_ms", min);
		output_csv_phases(header, row, len, names + k, 1, "_max_ms", max);
	}
}

/* Writes the CSV header and row of a run result into header and row (len bytes each). */
void output_run_csv(const struct run_result *r, char *header, char *row, size_t len)
{
	const struct problem *p = r->prob;
	const char *names[2 * QX_MAX_PHASES];
	const int np = output_phase_columns(p, &r->summary.med, names, 2 * QX_MAX_PHASES);
	const int gpu = r->summary.backend == QX_GPU;
	header[0] = row[0] = '\0';
	output_csv_field(header, len, "type", 1);
	output_csv_field(row, len, "run", 1);
	const char *cols[] = {"problem", "backend", "precision"};
	const char *vals[] = {p->name, qx_backend_name(r->summary.backend),
	                      qx_precision_name(r->summary.prec)};
	for (int k = 0; k < 3; k++) {
		output_csv_text(header, len, cols[k]);
		output_csv_text(row, len, vals[k]);
	}
	output_csv_text(header, len, "threads");
	output_csv_num(row, len, r->summary.threads);
	output_csv_text(header, len, "block");
	output_csv_num(row, len, r->summary.block);
	output_csv_text(header, len, "variant");
	output_csv_text(row, len, p->variants[r->summary.variant].name);
	for (size_t k = 0; k < p->nparams; k++) {
		char text[80];
		param_format(&p->params[k], r->params[k], text, sizeof text);
		output_csv_text(header, len, p->params[k].name);
		output_csv_text(row, len, text);
	}
	output_csv_phases(header, row, len, names, np, "_ms", gpu ? &r->summary.med : NULL);
	const char *after[] = {"total_ms",
	                       "total_min_ms",
	                       "total_max_ms",
	                       "repeat",
	                       "evals",
	                       "evals_per_s",
	                       "speedup_vs_cpu_serial",
	                       "speedup_vs_cpu_threads",
	                       "max_rel",
	                       "mean_rel",
	                       "max_abs",
	                       "mean_abs",
	                       "over_threshold",
	                       "threshold",
	                       "warmup"};
	const double e = r->has_error && r->err.count ? 0 : NAN;
	const double v[] = {r->summary.med.total,    r->summary.min.total, r->summary.max.total,
	                    r->summary.nsamples,     (double)r->evals,     r->summary.evals_per_s,
	                    r->speedup_serial,       r->speedup_threads,   e + r->err.max_rel,
	                    e + r->err.mean_rel,     e + r->err.max_abs,   e + r->err.mean_abs,
	                    e + (double)r->err.over, e + r->err.threshold, r->summary.warmup};
	for (size_t k = 0; k < sizeof after / sizeof after[0]; k++) {
		output_csv_text(header, len, after[k]);
		output_csv_num(row, len, v[k]);
	}
	output_csv_phase_spread(header, row, len, names, np, gpu ? &r->summary.min : NULL,
	                        gpu ? &r->summary.max : NULL);
	output_csv_text(header, len, "work");
	output_csv_num(row, len, r->work);
	output_csv_text(header, len, "work_unit");
	output_csv_text(row, len, p->work_unit);
	output_csv_text(header, len, "work_per_s");
	output_csv_num(row, len, r->summary.work_per_s);
	if (r->has_answer) {
		const char *names[] = {"value", "error_estimate", "exact", "true_error"};
		const double vals[] = {r->value, r->estimate, r->exact, fabs(r->value - r->exact)};
		for (int k = 0; k < 4; k++) {
			output_csv_text(header, len, names[k]);
			output_csv_num(row, len, vals[k]);
		}
	}
	output_csv_text(header, len, "against");
	output_csv_text(row, len, r->ref_name);
	output_csv_text(header, len, "compared");
	output_csv_num(row, len, (double)r->ref_compared);
	if (r->has_error && r->has_rounding) { /* as in the JSON object's error */
		output_csv_text(header, len, "over_within_rounding");
		output_csv_num(row, len, (double)r->over_rounding);
		output_csv_text(header, len, "condition_max");
		output_csv_num(row, len, r->condition_max);
	}
	for (size_t i = 0; i < r->nfigures; i++) {
		output_csv_text(header, len, r->figure[i].name);
		output_csv_num(row, len, r->figure[i].value);
	}
}

/* CSV header and row of a run result. */
static void run_csv(struct output_ctx *io, const struct run_result *r)
{
	char header[4096], row[4096];
	output_run_csv(r, header, row, sizeof row);
	output_print_csv(io, header, row);
}

/* The length of the first row of text in width characters: up to the last double blank
 * that fits when it lies in the row's second half (items such as "threads 2  variant fast"
 * stay whole), else the last blank that fits, else the first word whole (never cut inside a
 * word); all of text when it fits. */
static size_t wrap_row(const char *text, int width)
{
	const size_t n = strlen(text);
	size_t single = 0, dbl = 0;
	if ((int)n <= width)
		return n;
	for (size_t i = 1; i <= (size_t)width && i < n; i++)
		if (text[i] == ' ' && text[i - 1] != ' ') {
			single = i;
			if (text[i + 1] == ' ')
				dbl = i;
		}
	if (dbl > (size_t)width / 2)
		return dbl;
	if (single)
		return single;
	return strcspn(text + 1, " ") + 1;
}

/* Prints text wrapped to cols characters at its blanks, the rows after the first indented by
 * indent. */
void output_print_wrapped(FILE *out, const char *text, int cols, const char *indent)
{
	const int w = (int)strlen(indent);
	if (cols <= w) {
		fprintf(out, "%s\n", text);
		return;
	}
	size_t row = wrap_row(text, cols);
	fprintf(out, "%.*s\n", (int)row, text);
	for (text += row; *text;) {
		while (*text == ' ')
			text++;
		if (!*text)
			break;
		row = wrap_row(text, cols - w);
		fprintf(out, "%s%.*s\n", indent, (int)row, text);
		text += row;
	}
}

/* Writes " (kernel and d2h overlap)": the names of t's overlapped phases, or "" when none. */
static void overlap_note(const struct qx_timing *t, char *buf, size_t len)
{
	int n = 0;
	size_t used = 0;
	buf[0] = '\0';
	for (int k = 0; k < t->nphases && used < len; k++)
		if (t->phase[k].overlapped)
			used += (size_t)snprintf(buf + used, len - used, "%s%s",
			                         n++ ? " and " : "  (", t->phase[k].name);
	if (n && used < len)
		snprintf(buf + used, len - used, " overlap)");
}

/* The line that says how many values over the threshold are the precision's rounding times
 * their condition (values small against the terms summed), not a fault. */
static void rounding_text(FILE *f, const struct run_result *r)
{
	const char *prec = qx_precision_name(r->summary.prec);
	if (r->over_rounding == r->err.over)
		fprintf(f,
		        "  condition  all %zu over %g are within %s rounding x "
		        "their condition",
		        r->err.over, r->err.threshold, prec);
	else
		fprintf(f,
		        "  condition  %zu of the %zu over %g are within %s rounding x "
		        "their condition; %zu are not",
		        r->over_rounding, r->err.over, r->err.threshold, prec,
		        r->err.over - r->over_rounding);
	if (r->over_rounding)
		fprintf(f,
		        ": the terms summed are up to %.2g times larger than those values, so %s's "
		        "unit roundoff %.2g grows to about %.2g relative there",
		        r->condition_max, prec, r->summary.prec == QX_DOUBLE ? 0x1p-53 : 0x1p-24,
		        r->condition_max * (r->summary.prec == QX_DOUBLE ? 0x1p-53 : 0x1p-24));
	fputc('\n', f);
}

/* The answer of a run of one value: "value V ± E (estimate)", then its true error against
 * the exact value and the tolerance it was asked for, or that no exact value is known. */
static void answer_lines(FILE *f, const struct run_result *r)
{
	fprintf(f, "  value      %.10g", r->value);
	if (!isnan(r->estimate)) /* NaN: no estimate; inf: one that bounds nothing */
		fprintf(f, " ± %.2g (estimate)", r->estimate);
	fputc('\n', f);
	if (r->is_reference || !r->has_error)
		return;
	if (r->err.count == 0) {
		fprintf(f, "  error      no exact value for these parameters: the estimate is the "
		           "only measure of the error\n");
		return;
	}
	const double abs_err = fabs(r->value - r->exact);
	fprintf(f, "  error      true %.2g (rel %.2g) vs %s %.17g", abs_err, r->err.max_rel,
	        r->ref_name, r->exact);
	if (isfinite(r->estimate))
		fprintf(f, "  %s the estimate", abs_err <= r->estimate ? "within" : "OVER");
	fprintf(f, "  %s %s %g%s\n", r->err.over ? "over" : "within",
	        isnan(r->tolerance) ? "the threshold" : "the tolerance rel", r->err.threshold,
	        r->err.over ? " (see errors)" : "");
	if (r->has_rounding)
		rounding_text(f, r);
}

/* Human-readable lines of a run result, into f. */
static void run_lines(FILE *f, const struct run_result *r)
{
	const struct problem *p = r->prob;
	char params[512], note[256];
	session_params_string(p, r->params, params, sizeof params);
	fprintf(f, "%s %s  %s  %s  variant %s  ", qx_backend_name(r->summary.backend), p->name,
	        params, qx_precision_name(r->summary.prec), p->variants[r->summary.variant].name);
	if (r->summary.backend == QX_GPU)
		fprintf(f, "block %d%s%.0d\n", r->summary.block,
		        r->summary.gpus > 1 ? "  gpus " : "",
		        r->summary.gpus > 1 ? r->summary.gpus : 0);
	else
		fprintf(f, "threads %d\n", r->summary.threads);
	if (r->summary.med.nphases) {
		fprintf(f, "  phases ms ");
		for (int k = 0; k < r->summary.med.nphases; k++) {
			fprintf(f, "  %s %.4g", r->summary.med.phase[k].name,
			        r->summary.med.phase[k].ms);
			if (r->summary.med.phase[k].count > 1)
				fprintf(f, " (x%d)", r->summary.med.phase[k].count);
		}
		overlap_note(&r->summary.med, note, sizeof note);
		fprintf(f, "%s\n", note);
	}
	for (int g = 0; r->gpu_med && g < r->summary.gpus;
	     g++) { /* each GPU's phases; med: the slowest */
		fprintf(f, "  gpu %-2d ms  ", g);
		for (int k = 0; k < r->gpu_med[g].nphases; k++)
			fprintf(f, "  %s %.4g", r->gpu_med[g].phase[k].name,
			        r->gpu_med[g].phase[k].ms);
		fprintf(f, "  total %.4g\n", r->gpu_med[g].total);
	}
	fprintf(f, "  total      %.4g ms  (median of %d; min %.4g, max %.4g)  %.4g %s/s\n",
	        r->summary.med.total, r->summary.nsamples, r->summary.min.total,
	        r->summary.max.total, r->summary.work_per_s, p->work_unit);
	if (r->summary.backend == QX_GPU) {
		fprintf(f, "  speedup    ");
		if (isfinite(r->speedup_serial))
			fprintf(f, "%.2fx vs cpu serial", r->speedup_serial);
		else
			fprintf(f, "vs cpu serial: not measured (set threads 1, run cpu)");
		if (isfinite(r->speedup_threads))
			fprintf(f, ", %.2fx vs cpu %d threads\n", r->speedup_threads,
			        r->threads_ref);
		else
			fprintf(f, "; vs cpu threads: not measured\n");
	}
	if (r->nonfinite)
		fprintf(f, "  values     %zu of %zu are NaN or inf (not numbers)\n", r->nonfinite,
		        r->evals);
	if (r->has_answer)
		answer_lines(f, r);
	if (r->is_reference)
		fprintf(f, "  error      this run is the reference (%s)\n", r->ref_name);
	if (r->has_error && !r->has_answer && r->err.count == 0) {
		/* nothing compared: no error to show, not an error of 0 */
		fprintf(f, "  error      not measured: no value had a reference; reference: %s\n",
		        r->ref_name);
	} else if (r->has_error && !r->has_answer) {
		fprintf(
		    f,
		    "  error      max_rel %.3g  mean_rel %.3g  max_abs %.3g  mean_abs %.3g  over "
		    "%g: %zu of %zu vs %s%s\n",
		    r->err.max_rel, r->err.mean_rel, r->err.max_abs, r->err.mean_abs,
		    r->err.threshold, r->err.over, r->err.count, r->ref_name,
		    r->err.over ? "  (see errors)" : "");
		if (r->has_rounding)
			rounding_text(f, r);
		if (r->has_estimates)
			fprintf(f, "             %zu values exceed their error estimate\n",
			        r->est_under);
	}
	int shown = 0;
	for (size_t i = 0; i < r->nfigures; i++) {
		char one[96];
		if (figure_text(&r->figure[i], one, sizeof one))
			fprintf(f, "%s%s", shown++ ? "  " : "             ", one);
	}
	if (shown)
		fputc('\n', f);
	if (r->note)
		fprintf(f, "  note       %s\n", r->note);
}

/* Prints the lines of a run result wrapped to the session's width at blanks (between items
 * first): the first line's rest indented by 2, the others' by 13, under their values. */
static void run_text(struct output_ctx *io, const struct run_result *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	if (!mem) {
		run_lines(io->out, r);
		return;
	}
	run_lines(mem, r);
	if (fclose(mem)) {
		free(text);
		run_lines(io->out, r);
		return;
	}
	for (char *line = text, *end; *line; line = end + 1) {
		end = strchr(line, '\n');
		if (!end)
			end = line + strlen(line);
		const char save = *end;
		*end = '\0';
		output_print_wrapped(io->out, line, output_cols(io),
		                     line[0] == ' ' ? "             " : "  ");
		if (!save)
			break;
	}
	free(text);
}

/* Adds the array name of the n numbers v to obj (null for one that is not finite). */
static void json_numbers(cJSON *obj, const char *name, const double *v, int n)
{
	cJSON *a = cJSON_AddArrayToObject(obj, name);
	for (int i = 0; i < n; i++)
		cJSON_AddItemToArray(a, isfinite(v[i]) ? cJSON_CreateNumber(v[i])
		                                       : cJSON_CreateNull());
}

/* Adds chart c to obj as "chart": its title, x label and series (name, kind "line" or "bars",
 * x and y). */
static void json_chart(cJSON *obj, const struct qx_chart *c)
{
	cJSON *chart = cJSON_AddObjectToObject(obj, "chart"), *series;
	cJSON_AddStringToObject(chart, "title", c->title);
	cJSON_AddStringToObject(chart, "xlabel", c->xlabel);
	series = cJSON_AddArrayToObject(chart, "series");
	for (int k = 0; k < c->nseries && k < QX_CHART_SERIES; k++) {
		const struct qx_series *sr = &c->series[k];
		const int n = sr->npoints < QX_CHART_POINTS ? sr->npoints : QX_CHART_POINTS;
		cJSON *one = cJSON_CreateObject();
		cJSON_AddStringToObject(one, "name", sr->name);
		cJSON_AddStringToObject(one, "kind", sr->kind == QX_SERIES_BARS ? "bars" : "line");
		json_numbers(one, "x", sr->x, n);
		json_numbers(one, "y", sr->y, n);
		cJSON_AddItemToArray(series, one);
	}
}

/* Prints one run result; JSON has the run's chart too, when it left one (not in `export`,
 * whose documents stay the runs' figures). */
void output_run(struct output_ctx *io, const struct run_result *r)
{
	cJSON *obj;
	switch (io->format) {
	case FORMAT_JSON:
		obj = output_run_json(r);
		if (r->chart)
			json_chart(obj, r->chart);
		output_print_json(io, obj);
		break;
	case FORMAT_CSV:
		run_csv(io, r);
		break;
	default:
		run_text(io, r);
	}
	fflush(io->out);
}
