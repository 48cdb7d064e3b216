/* output_rows.c - the rows a run leaves besides its result, one serialiser per format (text,
 * JSON Lines, CSV): its timed samples, `eval`'s values, the worst points against the
 * reference, the values with their coordinates, and records (`show`, notes); a run's own
 * result is in output.c, a sweep's in output_sweep.c. */
#include "output_internal.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Prints each timed sample of r. */
void output_samples(struct output_ctx *io, const struct run_result *r)
{
	const char *names[2 * QX_MAX_PHASES];
	const int np = output_phase_columns(r->prob, &r->summary.med, names, 2 * QX_MAX_PHASES);
	for (int i = 0; i < r->summary.nsamples; i++) {
		const struct qx_timing *t = &r->samples[i];
		if (io->format == FORMAT_JSON) {
			cJSON *obj = cJSON_CreateObject();
			cJSON_AddStringToObject(obj, "type", "sample");
			cJSON_AddNumberToObject(obj, "index", i + 1);
			cJSON_AddItemToObject(obj, "time_ms", output_timing_json(t));
			output_print_json(io, obj);
		} else if (io->format == FORMAT_CSV) {
			char header[1024] = "", row[1024] = "";
			output_csv_field(header, sizeof header, "type", 1);
			output_csv_field(row, sizeof row, "sample", 1);
			output_csv_text(header, sizeof header, "index");
			output_csv_num(row, sizeof row, i + 1);
			output_csv_phases(header, row, sizeof row, names, np, "_ms", t);
			output_csv_text(header, sizeof header, "total_ms");
			output_csv_num(row, sizeof row, t->total);
			output_print_csv(io, header, row);
		} else {
			fprintf(io->out, "  sample %-3d", i + 1);
			for (int k = 0; k < t->nphases; k++)
				fprintf(io->out, "%s%s %.4g", k ? "  " : " ", t->phase[k].name,
				        t->phase[k].ms);
			fprintf(io->out, "%stotal %.4g ms\n", t->nphases ? "  " : " ", t->total);
		}
	}
	fflush(io->out);
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
	for (size_t i = 0; i < v->nfigures; i++)
		output_json_num(obj, v->figure[i].name, v->figure[i].value);
	return obj;
}

/* Prints one evaluation result. */
void output_eval(struct output_ctx *io, const struct problem *p, const double *args, size_t nargs,
                 enum qx_backend b, enum qx_precision prec, const struct eval_result *v)
{
	char num[40];
	if (io->format == FORMAT_JSON) {
		output_print_json(io, output_eval_json(p, args, nargs, b, prec, v));
	} else if (io->format == FORMAT_CSV) {
		char header[512] = "type,problem,args,backend,precision,value", row[1024],
		     a[256] = "";
		for (size_t i = 0; i < nargs; i++) {
			output_number(num, sizeof num, args[i]);
			strncat(a, i ? " " : "", sizeof a - strlen(a) - 1);
			strncat(a, num, sizeof a - strlen(a) - 1);
		}
		const char *fields[] = {"eval", p->name, a, qx_backend_name(b),
		                        qx_precision_name(prec)};
		row[0] = '\0';
		for (int k = 0; k < 5; k++)
			output_csv_field(row, sizeof row, fields[k], k == 0);
		output_csv_num(row, sizeof row, v->value);
		for (size_t i = 0; i < v->nfigures; i++) {
			output_csv_text(header, sizeof header, v->figure[i].name);
			output_csv_num(row, sizeof row, v->figure[i].value);
		}
		output_print_csv(io, header, row);
	} else {
		fprintf(io->out, "%s(", p->name);
		for (size_t i = 0; i < nargs; i++) {
			output_number(num, sizeof num, args[i]);
			fprintf(io->out, "%s%s", i ? ", " : "", num);
		}
		fprintf(io->out, ")  %s %-6s  %.17g", qx_backend_name(b), qx_precision_name(prec),
		        v->value);
		for (size_t i = 0; i < v->nfigures; i++)
			fprintf(io->out, "  %s %.17g", v->figure[i].name, v->figure[i].value);
		fputc('\n', io->out);
	}
	fflush(io->out);
}

/* Prints the worst points: coordinates, reference, value and relative error. */
void output_worst(struct output_ctx *io, const struct run_result *r, void **state,
                  const double *ref, const void *vals, const size_t *idx, size_t k)
{
	const struct problem *p = r->prob;
	for (size_t i = 0; i < k; i++) {
		const char *names[QX_MAX_COORDS];
		double coords[QX_MAX_COORDS];
		const int nc =
		    p->point(r->params, state, &r->user, idx[i], names, coords, QX_MAX_COORDS);
		const double v = value_at(vals, r->summary.prec, idx[i]);
		const double rel = rel_error(ref[idx[i]], v);
		if (io->format == FORMAT_JSON) {
			cJSON *obj = cJSON_CreateObject();
			cJSON_AddStringToObject(obj, "type", "worst");
			cJSON_AddNumberToObject(obj, "rank", (double)(i + 1));
			for (int c = 0; c < nc; c++)
				cJSON_AddNumberToObject(obj, names[c], coords[c]);
			output_json_num(obj, "reference", ref[idx[i]]);
			output_json_num(obj, "value", v);
			output_json_num(obj, "rel_error", rel);
			output_print_json(io, obj);
		} else if (io->format == FORMAT_CSV) {
			char header[256] = "type,rank", row[512] = "";
			output_csv_field(row, sizeof row, "worst", 1);
			output_csv_num(row, sizeof row, (double)(i + 1));
			for (int c = 0; c < nc; c++) {
				output_csv_text(header, sizeof header, names[c]);
				output_csv_num(row, sizeof row, coords[c]);
			}
			strncat(header, ",reference,value,rel_error",
			        sizeof header - strlen(header) - 1);
			output_csv_num(row, sizeof row, ref[idx[i]]);
			output_csv_num(row, sizeof row, v);
			output_csv_num(row, sizeof row, rel);
			output_print_csv(io, header, row);
		} else {
			fprintf(io->out, "%3zu ", i + 1);
			for (int c = 0; c < nc; c++)
				fprintf(io->out, " %s %-12.10g", names[c], coords[c]);
			fprintf(io->out, " reference %-24.17g value %-24.17g rel_error %.3g\n",
			        ref[idx[i]], v, rel);
		}
	}
	fflush(io->out);
}

/* The JSON object of value i of the last run r (vals, its estimates est or NULL, the
 * reference ref or NULL): its index, coordinates, value, estimate and reference. */
cJSON *output_value_json(const struct run_result *r, void **state, const void *vals,
                         const double *est, const double *ref, size_t i)
{
	const char *names[QX_MAX_COORDS];
	double coords[QX_MAX_COORDS];
	const int nc = r->prob->point(r->params, state, &r->user, i, names, coords, QX_MAX_COORDS);
	cJSON *obj = cJSON_CreateObject();
	cJSON_AddStringToObject(obj, "type", "value");
	cJSON_AddNumberToObject(obj, "index", (double)i);
	for (int c = 0; c < nc; c++)
		cJSON_AddNumberToObject(obj, names[c], coords[c]);
	output_json_num(obj, "value", value_at(vals, r->summary.prec, i));
	if (est)
		output_json_num(obj, "error_estimate", est[i]);
	if (ref)
		output_json_num(obj, "reference", ref[i]);
	return obj;
}

/* Writes values first..first+n of the last run r as format f to out: JSON Lines, CSV (a header
 * then a row each) or text rows of coordinates, value, estimate and reference. */
void output_values(FILE *out, enum out_format f, const struct run_result *r, void **state,
                   const void *vals, const double *est, const double *ref, size_t first, size_t n)
{
	for (size_t i = first; i < first + n && i < r->evals; i++) {
		cJSON *obj = output_value_json(r, state, vals, est, ref, i), *item;
		char *text = NULL, num[40];
		if (f == FORMAT_JSON) {
			text = cJSON_PrintUnformatted(obj);
			if (text)
				fprintf(out, "%s\n", text);
		} else if (f == FORMAT_CSV) {
			char header[512] = "", row[1024] = "";
			int k = 0;
			cJSON_ArrayForEach(item, obj)
			{
				output_csv_field(header, sizeof header, item->string, k == 0);
				if (cJSON_IsString(item))
					output_csv_field(row, sizeof row, item->valuestring,
					                 k == 0);
				else if (cJSON_IsNumber(item)) {
					output_number(num, sizeof num, item->valuedouble);
					output_csv_field(row, sizeof row, num, k == 0);
				} else
					output_csv_field(row, sizeof row, "", k == 0);
				k++;
			}
			if (i == first)
				fprintf(out, "%s\n", header);
			fprintf(out, "%s\n", row);
		} else {
			for (item = obj->child ? obj->child->next : NULL; item; item = item->next) {
				if (cJSON_IsNumber(item))
					output_number(num, sizeof num, item->valuedouble);
				fprintf(out, "  %s %s", item->string,
				        cJSON_IsNumber(item) ? num : "none");
			}
			fputc('\n', out);
		}
		cJSON_free(text);
		cJSON_Delete(obj);
	}
}

/* Prints name/value pairs as one record. */
void output_record(struct output_ctx *io, const char *kind, const struct kv *kv, size_t n)
{
	char num[40];
	if (io->format == FORMAT_JSON) {
		cJSON *obj = cJSON_CreateObject();
		cJSON_AddStringToObject(obj, "type", kind);
		for (size_t i = 0; i < n; i++) {
			if (kv[i].text)
				cJSON_AddStringToObject(obj, kv[i].name, kv[i].text);
			else
				output_json_num(obj, kv[i].name, kv[i].num);
		}
		output_print_json(io, obj);
	} else if (io->format == FORMAT_CSV) {
		char header[1024] = "type", row[2048] = "";
		output_csv_field(row, sizeof row, kind, 1);
		for (size_t i = 0; i < n; i++) {
			output_csv_text(header, sizeof header, kv[i].name);
			if (kv[i].text)
				output_csv_text(row, sizeof row, kv[i].text);
			else
				output_csv_num(row, sizeof row, kv[i].num);
		}
		output_print_csv(io, header, row);
	} else {
		for (size_t i = 0; i < n; i++) {
			if (!kv[i].text)
				output_number(num, sizeof num, kv[i].num);
			fprintf(io->out, "  %-16s %s\n", kv[i].name, kv[i].text ? kv[i].text : num);
		}
	}
	fflush(io->out);
}
