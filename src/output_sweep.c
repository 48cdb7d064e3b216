/* output_sweep.c - a sweep's output (output.h): its rows as JSON and CSV, the aligned text
 * table (best row marked, phases, block scaling matrices, notes) and the progress lines. The
 * table's grid of cells (blocks of columns that fit the width) is used by nothing else. */
#include "output_internal.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The JSON object of sweep row r. */
cJSON *output_sweep_row_json(const struct sweep *sw, const struct sweep_row *r)
{
	cJSON *obj = cJSON_CreateObject(), *config, *occ;
	cJSON_AddStringToObject(obj, "type", "sweep");
	config = cJSON_AddObjectToObject(obj, "config");
	for (int a = 0; a < sw->naxes; a++)
		output_json_word(config, sw->axes[a].name, r->values[a]);
	cJSON_AddBoolToObject(obj, "ok", r->ok);
	cJSON_AddBoolToObject(obj, "best", r->best);
	if (!r->ok) {
		cJSON_AddStringToObject(obj, "backend", qx_backend_name(r->summary.backend));
		cJSON_AddStringToObject(obj, "error", r->error);
		return obj;
	}
	output_summary_json(obj, sw->prob, &r->summary);
	output_json_num(obj, "speedup", r->speedup);
	if (isfinite(r->speedup))
		cJSON_AddNumberToObject(obj, "speedup_cpu_threads", r->speedup_threads);
	if (r->has_occupancy) {
		occ = cJSON_AddObjectToObject(obj, "occupancy");
		cJSON_AddNumberToObject(occ, "regs_per_thread", r->occ.regs_per_thread);
		cJSON_AddNumberToObject(occ, "blocks_per_sm", r->occ.blocks_per_sm);
		cJSON_AddNumberToObject(occ, "theoretical", r->occ.occupancy);
		cJSON_AddNumberToObject(occ, "suggested_block", r->occ.suggested_block);
		cJSON_AddNumberToObject(occ, "shared_bytes", (double)r->occ.shared_bytes);
	}
	if (r->has_error) {
		output_json_num(obj, "max_rel", r->max_rel);
		cJSON_AddNumberToObject(obj, "over_threshold", (double)r->over);
	} else if (r->ok && r->no_exact) { /* nothing to compare with: null, never 0 */
		cJSON_AddNullToObject(obj, "max_rel");
		cJSON_AddNullToObject(obj, "over_threshold");
	}
	if (r->has_answer) { /* as a run's object has them: null where unknown, never 0 */
		output_json_num(obj, "value", r->value);
		output_json_num(obj, "error_estimate", r->estimate);
		output_json_num(obj, "exact", r->exact);
		output_json_num(obj, "true_error", fabs(r->value - r->exact));
	}
	if (r->has_answer && r->converged >= 0)
		cJSON_AddBoolToObject(obj, "converged", r->converged);
	if (r->has_answer)
		cJSON_AddNumberToObject(obj, "work", r->work);
	if (r->ok && r->integrals > 0) { /* a batch: the figures of its run */
		cJSON_AddNumberToObject(obj, "integrals", (double)r->integrals);
		cJSON_AddNumberToObject(obj, "integrals_converged", (double)r->integrals_converged);
		output_json_num(obj, "worst_error_estimate", r->worst_estimate);
	}
	if (r->ok && r->note)
		cJSON_AddStringToObject(obj, "note", r->note);
	if (sweep_block_axis(sw) >= 0) {
		double eff;
		const double sp = sweep_block_speedup(sw, (size_t)(r - sw->rows), &eff);
		output_json_num(obj, "speedup_vs_first_block", sp);
		output_json_num(obj, "efficiency", eff);
	}
	if (sweep_gpus_axis(sw) >= 0 && r->summary.backend == QX_GPU) {
		double eff;
		int base;
		const double sp = sweep_gpus_speedup(sw, (size_t)(r - sw->rows), &eff, &base);
		cJSON *scaling = cJSON_AddObjectToObject(obj, "gpu_scaling");
		output_json_num(scaling, "gpus", r->ok ? r->summary.gpus : NAN);
		output_json_num(scaling, "base_gpus", base > 0 ? base : NAN);
		output_json_num(scaling, "speedup", sp);
		output_json_num(scaling, "efficiency", eff);
	}
	return obj;
}

/* The CSV header and row of sweep row r (len bytes each). */
void output_sweep_row_csv(const struct sweep *sw, const struct sweep_row *r, char *header,
                          char *row, size_t len)
{
	const struct problem *p = sw->prob;
	const char *names[2 * QX_MAX_PHASES];
	const int np = output_phase_columns(p, &r->summary.med, names, 2 * QX_MAX_PHASES);
	const int gpu = r->summary.backend == QX_GPU, occ = r->ok && r->has_occupancy;
	const int err = r->ok && r->has_error;
	const double ok = r->ok ? 0 : NAN; /* added to a number: empty when the row failed */
	header[0] = row[0] = '\0';
	output_csv_field(header, len, "type", 1);
	output_csv_field(row, len, "sweep", 1);
	for (int a = 0; a < sw->naxes; a++) {
		char name[SWEEP_WORD + 8];
		snprintf(name, sizeof name, "config_%s", sw->axes[a].name);
		output_csv_text(header, len, name);
		output_csv_text(row, len, r->values[a]);
	}
	const char *first[] = {"backend", "ok", "best", "precision", "variant", "block", "threads"};
	for (size_t i = 0; i < sizeof first / sizeof first[0]; i++)
		output_csv_text(header, len, first[i]);
	output_csv_text(row, len, qx_backend_name(r->summary.backend));
	output_csv_num(row, len, r->ok);
	output_csv_num(row, len, r->best);
	output_csv_text(row, len, r->ok ? qx_precision_name(r->summary.prec) : "");
	output_csv_text(row, len, r->ok ? p->variants[r->summary.variant].name : "");
	output_csv_num(row, len, ok + r->summary.block);
	output_csv_num(row, len, ok + r->summary.threads);
	for (size_t k = 0; k < p->nsettings; k++) {
		output_csv_text(header, len, p->settings[k].name);
		output_csv_num(row, len, ok + r->summary.settings[k].num);
	}
	output_csv_text(header, len, "repeat");
	output_csv_num(row, len, ok + r->summary.nsamples);
	output_csv_phases(header, row, len, names, np, "_ms",
	                  r->ok && gpu ? &r->summary.med : NULL);
	const char *cols[] = {
	    "total_ms",      "total_min_ms", "total_max_ms",        "evals_per_s",
	    "work_per_s",    "speedup",      "speedup_cpu_threads", "regs_per_thread",
	    "blocks_per_sm", "occupancy",    "suggested_block",     "max_rel",
	    "over_threshold"};
	const double o = occ ? 0 : NAN, e = err ? 0 : NAN;
	const double v[] = {ok + r->summary.med.total,
	                    ok + r->summary.min.total,
	                    ok + r->summary.max.total,
	                    ok + r->summary.evals_per_s,
	                    ok + r->summary.work_per_s,
	                    ok + r->speedup,
	                    r->ok && isfinite(r->speedup) ? r->speedup_threads : NAN,
	                    o + r->occ.regs_per_thread,
	                    o + r->occ.blocks_per_sm,
	                    o + r->occ.occupancy,
	                    o + r->occ.suggested_block,
	                    e + r->max_rel,
	                    e + (double)r->over};
	for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
		output_csv_text(header, len, cols[i]);
		output_csv_num(row, len, v[i]);
	}
	if (sweep_has_answers(sw)) { /* the answer of a run of one value, as a run's CSV */
		static const char *const acols[] = {
		    "value", "error_estimate", "exact", "true_error", "converged", "work", "note"};
		const double a = r->ok && r->has_answer ? 0 : NAN;
		const double av[] = {a + r->value,
		                     a + r->estimate,
		                     a + r->exact,
		                     a + fabs(r->value - r->exact),
		                     r->ok && r->has_answer && r->converged >= 0 ? r->converged
		                                                                 : NAN,
		                     a + r->work};
		for (size_t i = 0; i < sizeof av / sizeof av[0]; i++) {
			output_csv_text(header, len, acols[i]);
			output_csv_num(row, len, av[i]);
		}
		output_csv_text(header, len, acols[6]);
		output_csv_text(row, len, r->ok && r->note ? r->note : "");
	}
	if (sweep_has_batches(sw)) { /* a batch's figures */
		static const char *const bcols[] = {"integrals", "integrals_converged",
		                                    "worst_error_estimate"};
		const double b = r->ok && r->integrals > 0 ? 0 : NAN;
		const double bv[] = {b + (double)r->integrals, b + (double)r->integrals_converged,
		                     b + r->worst_estimate};
		for (size_t i = 0; i < sizeof bv / sizeof bv[0]; i++) {
			output_csv_text(header, len, bcols[i]);
			output_csv_num(row, len, bv[i]);
		}
	}
	output_csv_text(header, len, "error");
	output_csv_text(row, len, r->ok ? "" : r->error);
	output_csv_text(header, len, "warmup");
	output_csv_num(row, len, ok + r->summary.warmup);
	output_csv_phase_spread(header, row, len, names, np, r->ok && gpu ? &r->summary.min : NULL,
	                        r->ok && gpu ? &r->summary.max : NULL);
	output_csv_text(header, len, "problem");
	output_csv_text(row, len, p->name);
	output_csv_text(header, len, "device");
	output_csv_text(row, len, gpu ? sw->device : "");
	for (size_t k = 0; k < p->nparams; k++) {
		char name[80], word[80];
		snprintf(name, sizeof name, "base_%s", p->params[k].name);
		param_format(&p->params[k], sw->params[k], word, sizeof word);
		output_csv_text(header, len, name);
		output_csv_text(row, len, word);
	}
	if (sweep_gpus_axis(sw) >= 0) { /* a sweep over gpus: its scaling, on the GPU rows */
		static const char *const gcols[] = {"gpus", "gpus_base", "gpus_speedup",
		                                    "gpus_efficiency"};
		double eff = NAN, sp = NAN;
		int base = 0;
		if (gpu)
			sp = sweep_gpus_speedup(sw, (size_t)(r - sw->rows), &eff, &base);
		const double gv[] = {r->ok && gpu ? r->summary.gpus : NAN, base > 0 ? base : NAN,
		                     sp, eff};
		for (size_t i = 0; i < 4; i++) {
			output_csv_text(header, len, gcols[i]);
			output_csv_num(row, len, gv[i]);
		}
	}
}

/* Whether a row of sw has a speedup (a GPU row of a `both` sweep). */
static int has_speedup(const struct sweep *sw)
{
	for (size_t i = 0; i < sw->nrows; i++)
		if (sw->rows[i].ok && isfinite(sw->rows[i].speedup))
			return 1;
	return 0;
}

#define GRID_CELL 48
#define GRID_MAX_COLS (2 + SWEEP_MAX_AXES + QX_MAX_PHASES + 18)

/* A table of text cells: nkey key columns, repeated in every block of columns when the table is
 * split to fit a width, then the others; a row with a note prints it after its key columns (in
 * the first block) instead of its other cells. */
struct grid {
	int nrows, ncols, nkey;
	const char *head[GRID_MAX_COLS];
	int width[GRID_MAX_COLS]; /* at least this wide */
	int left[GRID_MAX_COLS];  /* 1: left-aligned, else right */
	char (*cell)[GRID_MAX_COLS][GRID_CELL];
	const char **note;       /* per row, NULL or its note */
	const char *note_prefix; /* printed before each note */
};

/* Allocates the cells of a grid of nrows rows (all "-"); returns 0 or -1. */
static int grid_alloc(struct grid *g, int nrows)
{
	memset(g, 0, sizeof *g);
	g->nrows = nrows;
	g->cell = calloc((size_t)(nrows ? nrows : 1), sizeof *g->cell);
	g->note = calloc((size_t)(nrows ? nrows : 1), sizeof *g->note);
	if (!g->cell || !g->note) {
		free(g->cell);
		free(g->note);
		return -1;
	}
	for (int r = 0; r < nrows; r++)
		for (int c = 0; c < GRID_MAX_COLS; c++)
			snprintf(g->cell[r][c], GRID_CELL, "-");
	return 0;
}

/* Adds a column with its heading, least width and alignment; returns its index. */
static int grid_col(struct grid *g, const char *head, int width, int left)
{
	const int c = g->ncols < GRID_MAX_COLS ? g->ncols++ : GRID_MAX_COLS - 1;
	g->head[c] = head;
	g->width[c] = width;
	g->left[c] = left;
	return c;
}

/* Whether column c holds only "-" in the rows without a note. */
static int grid_col_empty(const struct grid *g, int c)
{
	for (int r = 0; r < g->nrows; r++)
		if (!g->note[r] && strcmp(g->cell[r][c], "-") != 0)
			return 0;
	return 1;
}

/* Prints cell text of column c, followed by a blank unless last. */
static void grid_cell(const struct grid *g, int c, const char *text, int last, FILE *out)
{
	if (last && g->left[c])
		fputs(text, out);
	else
		fprintf(out, g->left[c] ? "%-*s%s" : "%*s%s", g->width[c], text, last ? "" : " ");
}

/* Prints the columns first..end-1 after the key columns: the heading, then every row (the
 * notes only in the table's first block). */
static void grid_block(const struct grid *g, const int *shown, int first, int end, int notes,
                       FILE *out)
{
	int last = end - 1; /* the block's last shown column: no blank after it */
	while (last >= first && !shown[last])
		last--;
	for (int r = -1; r < g->nrows; r++) {
		if (r >= 0 && g->note[r] && !notes)
			continue;
		const int note = r >= 0 && g->note[r];
		for (int c = 0; c < g->nkey; c++)
			grid_cell(g, c, r < 0 ? g->head[c] : g->cell[r][c],
			          first == end && !note && c + 1 == g->nkey, out);
		if (note) {
			fprintf(out, "%s%s\n", g->note_prefix, g->note[r]);
			continue;
		}
		for (int c = first; c < end; c++)
			if (shown[c])
				grid_cell(g, c, r < 0 ? g->head[c] : g->cell[r][c], c == last, out);
		fputc('\n', out);
	}
}

/* Prints one matrix of a block sweep: a line per value of the other axis (per backend), a
 * column per block, cell = what(row) (NaN: "-"). */
static void block_matrix(const struct sweep *sw, int ba, const char *title, int which, FILE *out)
{
	const int other = ba == 0 ? 1 : 0;
	fprintf(out, "%s (rows: %s, columns: block)\n  %-9s", title,
	        other < sw->naxes ? sw->axes[other].name : "-", "");
	for (int c = 0; c < sw->axes[ba].nvalues; c++)
		fprintf(out, " %7s", sw->axes[ba].values[c]);
	fputc('\n', out);
	for (size_t i = 0; i < sw->nrows; i++) {
		const struct sweep_row *r = &sw->rows[i];
		if (strcmp(r->values[ba], sw->axes[ba].values[0]))
			continue; /* one line per series, from its first block's row */
		fprintf(out, "  %-5.9s%-4s", other < sw->naxes ? r->values[other] : "",
		        qx_backend_name(r->summary.backend));
		for (int c = 0; c < sw->axes[ba].nvalues; c++) {
			double v = NAN, eff;
			for (size_t k = 0; k < sw->nrows; k++) {
				const struct sweep_row *q = &sw->rows[k];
				if (q->summary.backend != r->summary.backend ||
				    strcmp(q->values[ba], sw->axes[ba].values[c]) ||
				    (other < sw->naxes &&
				     strcmp(q->values[other], r->values[other])))
					continue;
				const double sp = sweep_block_speedup(sw, k, &eff);
				v = which == 0   ? (q->ok ? q->summary.med.total : NAN)
				    : which == 1 ? sp
				                 : eff;
			}
			if (isfinite(v))
				fprintf(out, " %7.3g", v);
			else
				fprintf(out, " %7s", "-");
		}
		fputc('\n', out);
	}
}

/* A sweep over block: the seed's three tables, time, speedup against the smallest block and
 * efficiency = speedup / block width. */
static void table_block_scaling(const struct sweep *sw, FILE *out)
{
	const int ba = sweep_block_axis(sw);
	if (ba < 0)
		return;
	block_matrix(sw, ba, "time ms", 0, out);
	block_matrix(sw, ba, "speedup vs the smallest block", 1, out);
	block_matrix(sw, ba, "efficiency = speedup / block", 2, out);
}

/* A sweep over gpus: the scaling table, a line per GPU row (per series of the other axis) with
 * its GPU count, median time, speedup against the fewest GPUs of its series and efficiency;
 * the title says what the speedup is against (1 GPU, or the fewest when no row ran on 1). */
static void table_gpus_scaling(const struct sweep *sw, FILE *out)
{
	const int ga = sweep_gpus_axis(sw), other = ga == 0 ? 1 : 0;
	int base = 0, lines = 0;
	double eff;
	if (ga < 0)
		return;
	for (size_t i = 0; i < sw->nrows; i++) {
		int b;
		sweep_gpus_speedup(sw, i, &eff, &b);
		base = b > base ? b : base; /* the largest base, the one to name when not 1 */
		lines += sw->rows[i].summary.backend == QX_GPU;
	}
	if (!lines)
		return;
	if (base <= 1)
		fprintf(out, "GPU scaling: speedup = time on 1 GPU / time on N GPUs, "
		             "efficiency = speedup / N\n");
	else
		fprintf(
		    out,
		    "GPU scaling: no 1-GPU row, so speedup = time on the fewest GPUs (%d) / time "
		    "on N GPUs, efficiency = speedup x %d / N\n",
		    base, base);
	fprintf(out, "  %-9s %4s %10s %8s %10s\n", other < sw->naxes ? sw->axes[other].name : "",
	        "gpus", "time ms", base > 1 ? "speedup*" : "speedup", "efficiency");
	for (size_t i = 0; i < sw->nrows; i++) {
		const struct sweep_row *r = &sw->rows[i];
		int b;
		if (r->summary.backend != QX_GPU)
			continue;
		const double sp = sweep_gpus_speedup(sw, i, &eff, &b);
		fprintf(out, "  %-9.9s %4s", other < sw->naxes ? r->values[other] : "",
		        r->values[ga]);
		if (!r->ok) {
			fprintf(out, " failed: %s\n", r->error);
			continue;
		}
		fprintf(out, " %10.4g", r->summary.med.total);
		if (isfinite(sp))
			fprintf(out, " %7.3fx %10.3f\n", sp, eff);
		else
			fprintf(out, " %8s %10s\n", "-", "-");
	}
	if (base > 1)
		fprintf(out, "  * against %d GPUs (sweep gpus 1,... for the speedup against one)\n",
		        base);
}

/* Prints g in blocks of columns that fit cols characters (each block with the key columns
 * first), leaving out the columns that are all "-"; frees its cells. */
static void grid_print(struct grid *g, int cols, FILE *out)
{
	int shown[GRID_MAX_COLS], key = 0;
	for (int c = 0; c < g->ncols; c++) {
		shown[c] = c < g->nkey || !grid_col_empty(g, c);
		if ((int)strlen(g->head[c]) > g->width[c])
			g->width[c] = (int)strlen(g->head[c]);
		for (int r = 0; r < g->nrows; r++)
			if (!g->note[r] && (int)strlen(g->cell[r][c]) > g->width[c])
				g->width[c] = (int)strlen(g->cell[r][c]);
		if (c < g->nkey)
			key += g->width[c] + 1;
	}
	int first = g->nkey;
	while (first < g->ncols && !shown[first])
		first++;
	if (first == g->ncols)
		grid_block(g, shown, first, first, 1, out);
	for (int block = 0; first < g->ncols; block++) {
		int end = first, used = key;
		while (end < g->ncols &&
		       (!shown[end] || end == first || used + g->width[end] <= cols)) {
			used += shown[end] ? g->width[end] + 1 : 0;
			end++;
		}
		if (block)
			fputc('\n', out);
		grid_block(g, shown, first, end, !block, out);
		first = end;
		while (first < g->ncols && !shown[first])
			first++;
	}
	free(g->cell);
	free(g->note);
}

/* Fills the key columns of row r of g (the best mark and the axis values) from row i of sw. */
static void grid_key(struct grid *g, const struct sweep *sw, int r, int i)
{
	snprintf(g->cell[r][0], GRID_CELL, "%c", sw->rows[i].best ? '*' : ' ');
	for (int a = 0; a < sw->naxes; a++)
		snprintf(g->cell[r][1 + a], GRID_CELL, "%s", sw->rows[i].values[a]);
}

/* Adds the key columns of a sweep table to g: the best mark and one per axis. */
static void grid_key_cols(struct grid *g, const struct sweep *sw)
{
	grid_col(g, "", 1, 1);
	for (int a = 0; a < sw->naxes; a++)
		grid_col(g, sw->axes[a].name, 0, 1);
	g->nkey = 1 + sw->naxes;
}

/* Prints, under the table, the note of every row whose run left one, e.g.
 * "note: rel=1e-9 cpu: not converged: maxeval reached". */
static void table_notes(const struct sweep *sw, FILE *out)
{
	int no_exact = 0;
	for (size_t i = 0; i < sw->nrows; i++) {
		const struct sweep_row *r = &sw->rows[i];
		no_exact |= r->ok && r->no_exact;
		if (!r->ok || !r->note)
			continue;
		fputs("note:", out);
		for (int a = 0; a < sw->naxes; a++)
			fprintf(out, " %s=%s", sw->axes[a].name, r->values[a]);
		fprintf(out, " %s: %s\n", qx_backend_name(r->summary.backend), r->note);
	}
	if (no_exact)
		fputs(
		    "note: \"no exact\": no exact value is known for these parameters, so there is "
		    "no true error (`set exact VALUE` gives one)\n",
		    out);
}

/* Fills the four answer cells of row r (a run of one value): its value as a run prints it,
 * its estimate, its true error ("no exact" when no exact value is known, "ref" on the
 * reference) and whether it converged ("-" when the run does not say). */
static void answer_cells(const struct sweep_row *r, char (*cell)[GRID_CELL])
{
	snprintf(cell[0], GRID_CELL, "%.10g", r->value);
	if (isfinite(r->estimate))
		snprintf(cell[1], GRID_CELL, "%.2g", r->estimate);
	if (!isnan(r->exact))
		snprintf(cell[2], GRID_CELL, "%.2g", fabs(r->value - r->exact));
	else
		snprintf(cell[2], GRID_CELL, "%s", r->no_exact ? "no exact" : "ref");
	if (r->converged >= 0)
		snprintf(cell[3], GRID_CELL, "%s", r->converged ? "yes" : "no");
}

/* Prints the table of sw: per row the answer and its work (a batch: converged of its integrals and
 * the worst estimate), the totals, the problem's table phases, the throughput, the occupancy, the
 * speedup and the largest relative error, then the runs' notes. */
static void table_main(const struct sweep *sw, int cols, FILE *out)
{
	const char *const *ph = sw->prob->table_phases;
	struct grid g;
	int nph = 0;
	if (grid_alloc(&g, (int)sw->nrows)) {
		fprintf(out, "(out of memory for the table)\n");
		return;
	}
	grid_key_cols(&g, sw);
	g.nkey++;
	g.note_prefix = "failed: ";
	grid_col(&g, "on", 4, 1);
	const int value = grid_col(&g, "value", 0, 0);
	grid_col(&g, "estimate", 0, 0);
	grid_col(&g, "true err", 0, 0);
	grid_col(&g, "converged", 0, 1);
	const int work = grid_col(&g, sw->prob->work_unit, 0, 0);
	const int worst = grid_col(&g, "worst est", 0, 0);
	const int total = grid_col(&g, "total ms", 10, 0);
	grid_col(&g, "min", 10, 0);
	grid_col(&g, "max", 10, 0);
	for (; ph && ph[nph]; nph++)
		grid_col(&g, ph[nph], 9, 0);
	char rate_name[GRID_CELL];
	snprintf(rate_name, sizeof rate_name, "%s/s", sw->prob->work_unit);
	const int rate = grid_col(&g, rate_name, 10, 0);
	grid_col(&g, "regs", 5, 0);
	grid_col(&g, "blk/SM", 6, 0);
	grid_col(&g, "occ", 5, 0);
	grid_col(&g, "auto", 5, 0);
	const int speedup = grid_col(&g, "speedup", 9, 0);
	const int err = grid_col(&g, "max_rel", 9, 0);
	for (int i = 0; i < g.nrows; i++) {
		const struct sweep_row *r = &sw->rows[i];
		char(*cell)[GRID_CELL] = g.cell[i];
		grid_key(&g, sw, i, i);
		snprintf(cell[g.nkey - 1], GRID_CELL, "%s", qx_backend_name(r->summary.backend));
		if (!r->ok) {
			g.note[i] = r->error;
			continue;
		}
		if (r->has_answer) {
			answer_cells(r, cell + value);
			snprintf(cell[work], GRID_CELL, "%.4g", r->work);
		}
		if (r->integrals > 0) { /* a batch: converged of all, the largest estimate */
			snprintf(cell[value + 3], GRID_CELL, "%lld/%lld", r->integrals_converged,
			         r->integrals);
			if (isfinite(r->worst_estimate))
				snprintf(cell[worst], GRID_CELL, "%.2g", r->worst_estimate);
		}
		snprintf(cell[total], GRID_CELL, "%.4g", r->summary.med.total);
		snprintf(cell[total + 1], GRID_CELL, "%.4g", r->summary.min.total);
		snprintf(cell[total + 2], GRID_CELL, "%.4g", r->summary.max.total);
		for (int k = 0; k < nph; k++) {
			const int j = qx_timing_find(&r->summary.med, ph[k]);
			if (j >= 0)
				snprintf(cell[total + 3 + k], GRID_CELL, "%.4g",
				         r->summary.med.phase[j].ms);
		}
		snprintf(cell[rate], GRID_CELL, "%.4g", r->summary.work_per_s);
		if (r->has_occupancy) {
			snprintf(cell[rate + 1], GRID_CELL, "%d", r->occ.regs_per_thread);
			snprintf(cell[rate + 2], GRID_CELL, "%d", r->occ.blocks_per_sm);
			snprintf(cell[rate + 3], GRID_CELL, "%.0f%%", 100 * r->occ.occupancy);
			snprintf(cell[rate + 4], GRID_CELL, "%d", r->occ.suggested_block);
		}
		if (isfinite(r->speedup))
			snprintf(cell[speedup], GRID_CELL, "%.3gx/%dt", r->speedup,
			         r->speedup_threads);
		if (r->has_error)
			snprintf(cell[err], GRID_CELL, "%.3g", r->max_rel);
		else
			snprintf(cell[err], GRID_CELL, "%s", r->no_exact ? "no exact" : "ref");
	}
	grid_print(&g, cols, out);
	table_notes(sw, out);
}

/* Prints the median, min and max of every phase of the rows that have phases (the GPU's), one
 * line per row under the table's axis columns (nothing when none has). */
static void table_phases(const struct sweep *sw, int cols, FILE *out)
{
	static char heads[QX_MAX_PHASES][GRID_CELL];
	const struct sweep_row *first = NULL;
	struct grid g;
	int n = 0;
	for (size_t i = 0; i < sw->nrows; i++)
		if (sw->rows[i].ok && sw->rows[i].summary.med.nphases) {
			first = first ? first : &sw->rows[i];
			n++;
		}
	if (!first || grid_alloc(&g, n))
		return;
	fprintf(out, "%s phases in ms, median [min, max]:\n",
	        qx_backend_name(first->summary.backend));
	grid_key_cols(&g, sw);
	for (int f = 0; f < first->summary.med.nphases; f++) {
		snprintf(heads[f], GRID_CELL, " %s", first->summary.med.phase[f].name);
		grid_col(&g, heads[f], 25, 1);
	}
	for (size_t i = 0, gi = 0; i < sw->nrows; i++) {
		const struct sweep_row *r = &sw->rows[i];
		if (!r->ok || r->summary.med.nphases == 0)
			continue;
		grid_key(&g, sw, (int)gi, (int)i);
		for (int f = 0; f < r->summary.med.nphases && f < first->summary.med.nphases; f++)
			snprintf(g.cell[gi][g.nkey + f], GRID_CELL, " %.4g [%.4g, %.4g]",
			         r->summary.med.phase[f].ms, r->summary.min.phase[f].ms,
			         r->summary.max.phase[f].ms);
		gi++;
	}
	grid_print(&g, cols, out);
}

/* Prints the sweep as a table with a title line and the best row marked, cols wide. */
void output_sweep_table(const struct sweep *sw, FILE *out, int cols)
{
	if (cols <= 0)
		cols = INT_MAX; /* no limit */
	char title[1024];
	size_t used = (size_t)snprintf(title, sizeof title, "sweep %s over", sw->prob->name);
	for (int a = 0; a < sw->naxes && used < sizeof title; a++)
		used +=
		    (size_t)snprintf(title + used, sizeof title - used, " %s", sw->axes[a].name);
	if (used < sizeof title)
		snprintf(title + used, sizeof title - used,
		         "%s%s: median (min, max) ms of each configuration's repeats%s",
		         *sw->device ? ", gpu " : "", sw->device,
		         has_speedup(sw) ? "; speedup = vs cpu/threads" : "");
	output_print_wrapped(out, title, cols, "  ");
	table_main(sw, cols, out);
	table_phases(sw, cols, out);
	table_block_scaling(sw, out);
	table_gpus_scaling(sw, out);
	if (sw->size_axes) {
		const int a = sw->size_axes & 1u ? 0 : 1;
		fprintf(out,
		        "best: none: %s sets the problem's size (the rows compare sizes, not "
		        "settings)\n",
		        sw->axes[a].name);
	} else if (sw->best >= 0) {
		const struct sweep_row *b = &sw->rows[sw->best];
		fprintf(out, "best:");
		for (int a = 0; a < sw->naxes; a++)
			fprintf(out, " %s=%s", sw->axes[a].name, b->values[a]);
		fprintf(out, " on %s, %.4g ms", qx_backend_name(b->summary.backend),
		        b->summary.med.total);
		if (b->summary.backend == QX_GPU)
			fprintf(out, " (set block best takes block %d)", b->summary.block);
		fputc('\n', out);
	} else {
		fprintf(out, "best: none (no configuration succeeded)\n");
	}
	if (sw->cancelled)
		fprintf(out, "cancelled: the table holds the runs done before the cancel\n");
}

/* Prints the sweep in the session's format: a table, JSON Lines or CSV rows. */
void output_sweep(struct output_ctx *io, const struct sweep *sw)
{
	if (io->format == FORMAT_TEXT) {
		output_sweep_table(sw, io->out, output_cols(io));
	} else {
		for (size_t i = 0; i < sw->nrows; i++) {
			if (io->format == FORMAT_JSON) {
				output_print_json(io, output_sweep_row_json(sw, &sw->rows[i]));
			} else {
				char header[4096], row[4096];
				output_sweep_row_csv(sw, &sw->rows[i], header, row, sizeof row);
				output_print_csv(io, header, row);
			}
		}
	}
	fflush(io->out);
}

/* Prints the progress line of row (configuration config) of sw to stderr: its time, and of a
 * batch how many integrals converged. */
void output_sweep_progress(const struct sweep *sw, size_t config, const struct sweep_row *row)
{
	fprintf(stderr, "sweep %zu/%zu:", config + 1, sw->nconfigs);
	for (int a = 0; a < sw->naxes; a++)
		fprintf(stderr, " %s=%s", sw->axes[a].name, row->values[a]);
	if (row->ok && row->integrals > 0) /* a batch: how many of its integrals converged */
		fprintf(stderr, " %s %.4g ms, integrals %lld/%lld converged\n",
		        qx_backend_name(row->summary.backend), row->summary.med.total,
		        row->integrals_converged, row->integrals);
	else if (row->ok)
		fprintf(stderr, " %s %.4g ms\n", qx_backend_name(row->summary.backend),
		        row->summary.med.total);
	else
		fprintf(stderr, " %s failed: %s\n", qx_backend_name(row->summary.backend),
		        row->error);
	fflush(stderr);
}
