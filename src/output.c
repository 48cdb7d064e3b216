/* output.c - formatting of results in text, JSON Lines and CSV. */
#include "output.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <string.h>

/* Writes v with the fewest digits that read back as v; "nan"/"inf" never reach here. */
void output_number(char *buf, size_t len, double v)
{
	format_real(v, buf, len);
}

/* Prints a cJSON object as one line and frees it. */
void output_print_json(struct session *s, cJSON *obj)
{
	char *text = cJSON_PrintUnformatted(obj);
	if (text) {
		fprintf(s->out, "%s\n", text);
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
void output_print_csv(struct session *s, const char *header, const char *row)
{
	if (strcmp(header, s->csv_header) != 0) {
		snprintf(s->csv_header, sizeof s->csv_header, "%s", header);
		fprintf(s->out, "%s\n", header);
	}
	fprintf(s->out, "%s\n", row);
}

/* Appends ",v" to a CSV row; an empty field for a non-finite number. */
static void csv_num(char *row, size_t len, double v)
{
	char num[40] = "";
	if (isfinite(v))
		output_number(num, sizeof num, v);
	strncat(row, ",", len - strlen(row) - 1);
	strncat(row, num, len - strlen(row) - 1);
}

/* Appends ",text" to a CSV row. */
static void csv_text(char *row, size_t len, const char *text)
{
	strncat(row, ",", len - strlen(row) - 1);
	strncat(row, text, len - strlen(row) - 1);
}

/* The phase times of t as an object (only total for the CPU). */
cJSON *output_phases_json(const struct qx_phases *t, enum qx_backend b)
{
	cJSON *ph = cJSON_CreateObject();
	if (b == QX_GPU) {
		output_json_num(ph, "alloc", t->alloc);
		output_json_num(ph, "h2d", t->h2d);
		output_json_num(ph, "kernel", t->kernel);
		output_json_num(ph, "d2h", t->d2h);
		output_json_num(ph, "free", t->free);
	}
	output_json_num(ph, "total", t->total);
	return ph;
}

/* Adds the phase times of t to obj under name. */
void output_json_phases(cJSON *obj, const char *name, const struct qx_phases *t, enum qx_backend b)
{
	cJSON_AddItemToObject(obj, name, output_phases_json(t, b));
}

/* Builds the JSON object of a run result. */
cJSON *output_run_json(const struct run_result *r)
{
	const struct problem *p = r->prob;
	cJSON *obj = cJSON_CreateObject(), *params = NULL, *sp, *err;
	cJSON_AddStringToObject(obj, "type", "run");
	cJSON_AddStringToObject(obj, "problem", p->name);
	cJSON_AddStringToObject(obj, "backend", qx_backend_name(r->backend));
	cJSON_AddStringToObject(obj, "precision", qx_precision_name(r->prec));
	cJSON_AddNumberToObject(obj, "threads", r->threads);
	cJSON_AddNumberToObject(obj, "block", r->block);
	cJSON_AddNumberToObject(obj, "streams", r->streams);
	cJSON_AddStringToObject(obj, "variant", p->variants[r->variant].name);
	params = cJSON_AddObjectToObject(obj, "params");
	for (size_t k = 0; k < p->nparams; k++) {
		const struct param_def *d = &p->params[k];
		char text[80];
		if (d->type == PARAM_ENUM || d->type == PARAM_RANGE) {
			param_format(d, r->params[k], text, sizeof text);
			cJSON_AddStringToObject(params, d->name, text);
		} else {
			cJSON_AddNumberToObject(params, d->name, r->params[k].num);
		}
	}
	output_json_phases(obj, "time_ms", &r->med, r->backend);
	output_json_phases(obj, "time_ms_min", &r->min, r->backend);
	output_json_phases(obj, "time_ms_max", &r->max, r->backend);
	cJSON_AddBoolToObject(obj, "overlapped", r->med.overlapped);
	cJSON_AddNumberToObject(obj, "repeat", r->nsamples);
	cJSON_AddNumberToObject(obj, "warmup", r->warmup);
	cJSON_AddNumberToObject(obj, "evals", (double)r->evals);
	output_json_num(obj, "evals_per_s", r->evals_per_s);
	if (r->backend == QX_GPU && (isfinite(r->speedup_serial) || isfinite(r->speedup_threads))) {
		sp = cJSON_AddObjectToObject(obj, "speedup");
		if (isfinite(r->speedup_serial))
			cJSON_AddNumberToObject(sp, "vs_cpu_serial", r->speedup_serial);
		if (isfinite(r->speedup_threads)) {
			cJSON_AddNumberToObject(sp, "vs_cpu_threads", r->speedup_threads);
			cJSON_AddNumberToObject(sp, "cpu_threads", r->threads_ref);
		}
	}
	cJSON_AddBoolToObject(obj, "reference", r->is_reference);
	if (r->has_error) {
		err = cJSON_AddObjectToObject(obj, "error");
		output_json_num(err, "max_rel", r->err.max_rel);
		output_json_num(err, "mean_rel", r->err.mean_rel);
		output_json_num(err, "max_abs", r->err.max_abs);
		output_json_num(err, "mean_abs", r->err.mean_abs);
		cJSON_AddNumberToObject(err, "over_threshold", (double)r->err.over);
		cJSON_AddNumberToObject(err, "threshold", r->err.threshold);
		for (size_t i = 0; i < r->nextra; i++)
			output_json_num(err, r->extra[i].name, r->extra[i].value);
	}
	return obj;
}

/* Appends the min and max of every GPU phase as CSV columns (empty for a CPU run). */
void output_phase_spread_csv(char *header, size_t hlen, char *row, size_t rlen,
                             const struct qx_phases *min, const struct qx_phases *max)
{
	for (int i = 0; i < QX_GPU_PHASES; i++) {
		const struct qx_phases *ends[] = {min, max};
		for (int k = 0; k < 2; k++) {
			char name[32];
			snprintf(name, sizeof name, ",%s_%s_ms", qx_gpu_phase_names[i],
			         k ? "max" : "min");
			strncat(header, name, hlen - strlen(header) - 1);
			csv_num(row, rlen, ends[k] ? phase_ms(ends[k], i) : NAN);
		}
	}
}

/* Writes the CSV header and row of a run result into header[1024] and row[2048]. */
void output_run_csv(const struct run_result *r, char *header, char *row)
{
	const struct problem *p = r->prob;
	const struct qx_phases *t = &r->med;
	const int gpu = r->backend == QX_GPU;
	const size_t hlen = 1024, rlen = 2048;
	snprintf(header, hlen, "type,problem,backend,precision,threads,block,variant");
	snprintf(row, rlen, "run,%s,%s,%s,%d,%d,%s", p->name, qx_backend_name(r->backend),
	         qx_precision_name(r->prec), r->threads, r->block, p->variants[r->variant].name);
	for (size_t k = 0; k < p->nparams; k++) {
		char text[80];
		param_format(&p->params[k], r->params[k], text, sizeof text);
		csv_text(header, hlen, p->params[k].name);
		csv_text(row, rlen, text);
	}
	strncat(header,
	        ",alloc_ms,h2d_ms,kernel_ms,d2h_ms,free_ms,total_ms,total_min_ms,total_max_ms,"
	        "repeat,evals,evals_per_s,speedup_vs_cpu_serial,speedup_vs_cpu_threads,max_rel,"
	        "mean_rel,max_abs,mean_abs,over_threshold,threshold",
	        hlen - strlen(header) - 1);
	csv_num(row, rlen, gpu ? t->alloc : NAN);
	csv_num(row, rlen, gpu ? t->h2d : NAN);
	csv_num(row, rlen, gpu ? t->kernel : NAN);
	csv_num(row, rlen, gpu ? t->d2h : NAN);
	csv_num(row, rlen, gpu ? t->free : NAN);
	csv_num(row, rlen, t->total);
	csv_num(row, rlen, r->min.total);
	csv_num(row, rlen, r->max.total);
	csv_num(row, rlen, r->nsamples);
	csv_num(row, rlen, (double)r->evals);
	csv_num(row, rlen, r->evals_per_s);
	csv_num(row, rlen, r->speedup_serial);
	csv_num(row, rlen, r->speedup_threads);
	csv_num(row, rlen, r->has_error ? r->err.max_rel : NAN);
	csv_num(row, rlen, r->has_error ? r->err.mean_rel : NAN);
	csv_num(row, rlen, r->has_error ? r->err.max_abs : NAN);
	csv_num(row, rlen, r->has_error ? r->err.mean_abs : NAN);
	csv_num(row, rlen, r->has_error ? (double)r->err.over : NAN);
	csv_num(row, rlen, r->has_error ? r->err.threshold : NAN);
	strncat(header, ",warmup", hlen - strlen(header) - 1);
	csv_num(row, rlen, r->warmup);
	output_phase_spread_csv(header, hlen, row, rlen, gpu ? &r->min : NULL,
	                        gpu ? &r->max : NULL);
	for (size_t i = 0; i < r->nextra; i++) {
		csv_text(header, hlen, r->extra[i].name);
		csv_num(row, rlen, r->extra[i].value);
	}
}

/* CSV header and row of a run result. */
static void run_csv(struct session *s, const struct run_result *r)
{
	char header[1024], row[2048];
	output_run_csv(r, header, row);
	output_print_csv(s, header, row);
}

/* Human-readable lines of a run result. */
static void run_text(struct session *s, const struct run_result *r)
{
	const struct problem *p = r->prob;
	FILE *f = s->out;
	char params[512];
	session_params_string(p, r->params, params, sizeof params);
	fprintf(f, "%s %s  %s  %s  variant %s  ", qx_backend_name(r->backend), p->name, params,
	        qx_precision_name(r->prec), p->variants[r->variant].name);
	if (r->backend == QX_GPU)
		fprintf(f, "block %d\n", r->block);
	else
		fprintf(f, "threads %d\n", r->threads);
	if (r->backend == QX_GPU)
		fprintf(f,
		        "  phases ms   alloc %.4g  h2d %.4g  kernel %.4g  d2h %.4g  free %.4g%s\n",
		        r->med.alloc, r->med.h2d, r->med.kernel, r->med.d2h, r->med.free,
		        r->med.overlapped ? "  (kernel and d2h overlap)" : "");
	fprintf(f, "  total      %.4g ms  (median of %d; min %.4g, max %.4g)  %.4g evals/s\n",
	        r->med.total, r->nsamples, r->min.total, r->max.total, r->evals_per_s);
	if (r->backend == QX_GPU) {
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
	if (r->is_reference)
		fprintf(f, "  error      this run is the reference (cpu double)\n");
	if (r->has_error) {
		fprintf(
		    f,
		    "  error      max_rel %.3g  mean_rel %.3g  max_abs %.3g  mean_abs %.3g  over "
		    "%g: %zu of %zu%s\n",
		    r->err.max_rel, r->err.mean_rel, r->err.max_abs, r->err.mean_abs,
		    r->err.threshold, r->err.over, r->err.count,
		    r->err.over ? "  (see errors)" : "");
		for (size_t i = 0; i < r->nextra; i++)
			fprintf(f, "%s%s %.4g%s", i ? "  " : "             ", r->extra[i].name,
			        r->extra[i].value, i + 1 == r->nextra ? "\n" : "");
	}
}

/* Prints one run result. */
void output_run(struct session *s, const struct run_result *r)
{
	switch (s->format) {
	case FORMAT_JSON:
		output_print_json(s, output_run_json(r));
		break;
	case FORMAT_CSV:
		run_csv(s, r);
		break;
	default:
		run_text(s, r);
	}
	fflush(s->out);
}

/* Prints each timed sample of r. */
void output_samples(struct session *s, const struct run_result *r)
{
	for (int i = 0; i < r->nsamples; i++) {
		const struct qx_phases *t = &r->samples[i];
		if (s->format == FORMAT_JSON) {
			cJSON *obj = cJSON_CreateObject();
			cJSON_AddStringToObject(obj, "type", "sample");
			cJSON_AddNumberToObject(obj, "index", i + 1);
			output_json_phases(obj, "time_ms", t, r->backend);
			output_print_json(s, obj);
		} else if (s->format == FORMAT_CSV) {
			char row[512];
			snprintf(row, sizeof row, "sample,%d", i + 1);
			csv_num(row, sizeof row, t->alloc);
			csv_num(row, sizeof row, t->h2d);
			csv_num(row, sizeof row, t->kernel);
			csv_num(row, sizeof row, t->d2h);
			csv_num(row, sizeof row, t->free);
			csv_num(row, sizeof row, t->total);
			output_print_csv(s, "type,index,alloc_ms,h2d_ms,kernel_ms,d2h_ms,free_ms,total_ms",
			          row);
		} else if (r->backend == QX_GPU) {
			fprintf(
			    s->out,
			    "  sample %-3d alloc %.4g  h2d %.4g  kernel %.4g  d2h %.4g  free %.4g  "
			    "total %.4g ms\n",
			    i + 1, t->alloc, t->h2d, t->kernel, t->d2h, t->free, t->total);
		} else {
			fprintf(s->out, "  sample %-3d total %.4g ms\n", i + 1, t->total);
		}
	}
	fflush(s->out);
}

/* The object of one evaluation result. */
cJSON *output_eval_json(const struct problem *p, const double *args, size_t nargs,
                        enum qx_backend b, enum qx_precision prec, const struct eval_result *v)
{
	cJSON *obj = cJSON_CreateObject(), *arr;
	cJSON_AddStringToObject(obj, "type", "eval");
	cJSON_AddStringToObject(obj, "problem", p->name);
	arr = cJSON_AddArrayToObject(obj, "args");
	for (size_t i = 0; i < nargs; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateNumber(args[i]));
	cJSON_AddStringToObject(obj, "backend", qx_backend_name(b));
	cJSON_AddStringToObject(obj, "precision", qx_precision_name(prec));
	output_json_num(obj, "value", v->value);
	for (size_t i = 0; i < v->nextra; i++)
		output_json_num(obj, v->extra[i].name, v->extra[i].value);
	return obj;
}

/* Prints one evaluation result. */
void output_eval(struct session *s, const struct problem *p, const double *args, size_t nargs,
                 enum qx_backend b, enum qx_precision prec, const struct eval_result *v)
{
	char num[40];
	if (s->format == FORMAT_JSON) {
		output_print_json(s, output_eval_json(p, args, nargs, b, prec, v));
	} else if (s->format == FORMAT_CSV) {
		char header[512] = "type,problem,args,backend,precision,value", row[1024],
		     a[256] = "";
		for (size_t i = 0; i < nargs; i++) {
			output_number(num, sizeof num, args[i]);
			strncat(a, i ? " " : "", sizeof a - strlen(a) - 1);
			strncat(a, num, sizeof a - strlen(a) - 1);
		}
		snprintf(row, sizeof row, "eval,%s,%s,%s,%s", p->name, a, qx_backend_name(b),
		         qx_precision_name(prec));
		csv_num(row, sizeof row, v->value);
		for (size_t i = 0; i < v->nextra; i++) {
			csv_text(header, sizeof header, v->extra[i].name);
			csv_num(row, sizeof row, v->extra[i].value);
		}
		output_print_csv(s, header, row);
	} else {
		fprintf(s->out, "%s(", p->name);
		for (size_t i = 0; i < nargs; i++) {
			output_number(num, sizeof num, args[i]);
			fprintf(s->out, "%s%s", i ? ", " : "", num);
		}
		fprintf(s->out, ")  %s %-6s  %.17g", qx_backend_name(b), qx_precision_name(prec),
		        v->value);
		for (size_t i = 0; i < v->nextra; i++)
			fprintf(s->out, "  %s %.17g", v->extra[i].name, v->extra[i].value);
		fputc('\n', s->out);
	}
	fflush(s->out);
}

/* Prints the worst points: coordinates, reference, value and relative error. */
void output_worst(struct session *s, const struct run_result *r, const double *ref,
                  const void *vals, const size_t *idx, size_t k)
{
	const struct problem *p = r->prob;
	for (size_t i = 0; i < k; i++) {
		const char *names[8];
		double coords[8];
		const int nc = p->point(r->params, idx[i], names, coords);
		const double v = value_at(vals, r->prec, idx[i]);
		const double rel = rel_error(ref[idx[i]], v);
		if (s->format == FORMAT_JSON) {
			cJSON *obj = cJSON_CreateObject();
			cJSON_AddStringToObject(obj, "type", "error");
			cJSON_AddNumberToObject(obj, "rank", (double)(i + 1));
			for (int c = 0; c < nc; c++)
				cJSON_AddNumberToObject(obj, names[c], coords[c]);
			output_json_num(obj, "reference", ref[idx[i]]);
			output_json_num(obj, "value", v);
			output_json_num(obj, "rel_error", rel);
			output_print_json(s, obj);
		} else if (s->format == FORMAT_CSV) {
			char header[256] = "type,rank", row[512];
			snprintf(row, sizeof row, "error,%zu", i + 1);
			for (int c = 0; c < nc; c++) {
				csv_text(header, sizeof header, names[c]);
				csv_num(row, sizeof row, coords[c]);
			}
			strncat(header, ",reference,value,rel_error",
			        sizeof header - strlen(header) - 1);
			csv_num(row, sizeof row, ref[idx[i]]);
			csv_num(row, sizeof row, v);
			csv_num(row, sizeof row, rel);
			output_print_csv(s, header, row);
		} else {
			fprintf(s->out, "%3zu ", i + 1);
			for (int c = 0; c < nc; c++)
				fprintf(s->out, " %s %-12.10g", names[c], coords[c]);
			fprintf(s->out, " reference %-24.17g value %-24.17g rel_error %.3g\n",
			        ref[idx[i]], v, rel);
		}
	}
	fflush(s->out);
}

/* Prints name/value pairs as one record. */
void output_record(struct session *s, const char *kind, const struct kv *kv, size_t n)
{
	char num[40];
	if (s->format == FORMAT_JSON) {
		cJSON *obj = cJSON_CreateObject();
		cJSON_AddStringToObject(obj, "type", kind);
		for (size_t i = 0; i < n; i++) {
			if (kv[i].text)
				cJSON_AddStringToObject(obj, kv[i].name, kv[i].text);
			else
				output_json_num(obj, kv[i].name, kv[i].num);
		}
		output_print_json(s, obj);
	} else if (s->format == FORMAT_CSV) {
		char header[1024] = "type", row[2048];
		snprintf(row, sizeof row, "%s", kind);
		for (size_t i = 0; i < n; i++) {
			csv_text(header, sizeof header, kv[i].name);
			if (kv[i].text)
				csv_text(row, sizeof row, kv[i].text);
			else
				csv_num(row, sizeof row, kv[i].num);
		}
		output_print_csv(s, header, row);
	} else {
		for (size_t i = 0; i < n; i++) {
			if (!kv[i].text)
				output_number(num, sizeof num, kv[i].num);
			fprintf(s->out, "  %-16s %s\n", kv[i].name, kv[i].text ? kv[i].text : num);
		}
	}
	fflush(s->out);
}
