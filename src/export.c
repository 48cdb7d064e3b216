/* export.c - CSV and JSON exports of the session's runs and of the last sweep, and the atomic
 * file write (temporary file, fsync, rename) that they and `plot` use. */
#include "export.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault.h"
#include "output.h"

/* Writes all of data to fd; returns 0 or -1 with errno set. */
static int write_all(int fd, const char *data, size_t len)
{
	while (len > 0) {
		const ssize_t n = qx_fault("write") ? (errno = EIO, -1) : write(fd, data, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		data += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Writes data straight into an existing non-regular file (a device, a pipe). */
static int write_direct(const char *path, const char *data, size_t len, struct qx_err *e)
{
	const int fd = qx_fault("fopen") ? (errno = EIO, -1) : open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return qx_fail(e, "cannot write %.200s: %s", path, strerror(errno));
	if (write_all(fd, data, len)) {
		const int err = errno;
		close(fd);
		return qx_fail(e, "cannot write %.200s: %s", path, strerror(err));
	}
	if (close(fd))
		return qx_fail(e, "cannot write %.200s: %s", path, strerror(errno));
	return 0;
}

/* Atomic write: temporary file beside path, fsync, rename, fsync of the directory. */
int export_write_file(const char *path, const char *data, size_t len, struct qx_err *e)
{
	char dir_buf[PATH_MAX], base_buf[PATH_MAX], tmp[PATH_MAX];
	struct stat st;
	const int exists = stat(path, &st) == 0;
	mode_t mode, mask;
	int fd, dirfd;
	if (exists && !S_ISREG(st.st_mode))
		return write_direct(path, data, len, e);
	if (strlen(path) >= sizeof dir_buf - 16 || !*path)
		return qx_fail(e, "cannot write '%.200s': the path is empty or too long", path);
	snprintf(dir_buf, sizeof dir_buf, "%s", path);
	snprintf(base_buf, sizeof base_buf, "%s", path);
	const char *dir = dirname(dir_buf), *base = basename(base_buf);
	snprintf(tmp, sizeof tmp, "%s/.%s.tmpXXXXXX", dir, base);
	fd = qx_fault("fopen") ? (errno = EIO, -1) : mkstemp(tmp);
	if (fd < 0)
		return qx_fail(e,
		               "cannot write %.200s: cannot create a temporary file in %.200s: %s",
		               path, dir, strerror(errno));
	mask = umask(0);
	umask(mask);
	mode = exists ? st.st_mode & 07777 : 0666 & ~mask;
	if (fchmod(fd, mode) || write_all(fd, data, len) ||
	    (qx_fault("fsync") ? (errno = EIO, -1) : fsync(fd))) {
		const int err = errno;
		close(fd);
		unlink(tmp);
		return qx_fail(e, "cannot write %.200s: %s (the old file, if any, is unchanged)",
		               path, strerror(err));
	}
	if (close(fd) || (qx_fault("rename") ? (errno = EIO, -1) : rename(tmp, path))) {
		const int err = errno;
		unlink(tmp);
		return qx_fail(e, "cannot write %.200s: %s (the old file, if any, is unchanged)",
		               path, strerror(err));
	}
	dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	if (dirfd >= 0) {
		fsync(dirfd); /* makes the rename durable; a failure here loses nothing written */
		close(dirfd);
	}
	return 0;
}

/* The JSON object of sweep row r. */
cJSON *export_sweep_row_json(const struct sweep *sw, const struct sweep_row *r)
{
	cJSON *obj = cJSON_CreateObject(), *config, *occ;
	cJSON_AddStringToObject(obj, "type", "sweep");
	config = cJSON_AddObjectToObject(obj, "config");
	for (int a = 0; a < sw->naxes; a++)
		cJSON_AddStringToObject(config, sw->axes[a].name, r->values[a]);
	cJSON_AddStringToObject(obj, "backend", qx_backend_name(r->backend));
	cJSON_AddBoolToObject(obj, "ok", r->ok);
	cJSON_AddBoolToObject(obj, "best", r->best);
	if (!r->ok) {
		cJSON_AddStringToObject(obj, "error", r->error);
		return obj;
	}
	cJSON_AddStringToObject(obj, "precision", qx_precision_name(r->prec));
	cJSON_AddStringToObject(obj, "variant", sw->prob->variants[r->variant].name);
	cJSON_AddNumberToObject(obj, "block", r->block);
	cJSON_AddNumberToObject(obj, "threads", r->threads);
	cJSON_AddNumberToObject(obj, "streams", r->streams);
	cJSON_AddNumberToObject(obj, "warmup", r->warmup);
	cJSON_AddNumberToObject(obj, "repeat", r->nsamples);
	output_json_phases(obj, "time_ms", &r->med, r->backend);
	output_json_phases(obj, "time_ms_min", &r->min, r->backend);
	output_json_phases(obj, "time_ms_max", &r->max, r->backend);
	output_json_num(obj, "evals_per_s", r->evals_per_s);
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
	}
	return obj;
}

/* Appends ",field" to line (len bytes), quoting field when it holds a comma, quote or newline. */
static void csv_add(char *line, size_t len, const char *field, int first)
{
	size_t used = strlen(line);
	const int quote = strpbrk(field, ",\"\n") != NULL;
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

/* Appends a number (an empty field when not finite). */
static void csv_add_num(char *line, size_t len, double v)
{
	char num[40] = "";
	if (isfinite(v))
		format_real(v, num, sizeof num);
	csv_add(line, len, num, 0);
}

/* The CSV header and row of sweep row r. */
void export_sweep_row_csv(const struct sweep *sw, const struct sweep_row *r, char *header,
                          char *row, size_t len)
{
	static const char *const cols[] = {"precision",
	                                   "variant",
	                                   "block",
	                                   "threads",
	                                   "streams",
	                                   "repeat",
	                                   "alloc_ms",
	                                   "h2d_ms",
	                                   "kernel_ms",
	                                   "d2h_ms",
	                                   "free_ms",
	                                   "total_ms",
	                                   "total_min_ms",
	                                   "total_max_ms",
	                                   "evals_per_s",
	                                   "speedup",
	                                   "speedup_cpu_threads",
	                                   "regs_per_thread",
	                                   "blocks_per_sm",
	                                   "occupancy",
	                                   "suggested_block",
	                                   "max_rel",
	                                   "over_threshold",
	                                   "error"};
	const int gpu = r->backend == QX_GPU, occ = r->ok && r->has_occupancy;
	const int err = r->ok && r->has_error;
	header[0] = row[0] = '\0';
	csv_add(header, len, "type", 1);
	csv_add(row, len, "sweep", 1);
	for (int a = 0; a < sw->naxes; a++) {
		char name[SWEEP_WORD + 8];
		snprintf(name, sizeof name, "config_%s", sw->axes[a].name);
		csv_add(header, len, name, 0);
		csv_add(row, len, r->values[a], 0);
	}
	csv_add(header, len, "backend", 0);
	csv_add(header, len, "ok", 0);
	csv_add(header, len, "best", 0);
	for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
		csv_add(header, len, cols[i], 0);
	csv_add(row, len, qx_backend_name(r->backend), 0);
	csv_add_num(row, len, r->ok);
	csv_add_num(row, len, r->best);
	csv_add(row, len, r->ok ? qx_precision_name(r->prec) : "", 0);
	csv_add(row, len, r->ok ? sw->prob->variants[r->variant].name : "", 0);
	csv_add_num(row, len, r->ok ? r->block : NAN);
	csv_add_num(row, len, r->ok ? r->threads : NAN);
	csv_add_num(row, len, r->ok ? r->streams : NAN);
	csv_add_num(row, len, r->ok ? r->nsamples : NAN);
	csv_add_num(row, len, r->ok && gpu ? r->med.alloc : NAN);
	csv_add_num(row, len, r->ok && gpu ? r->med.h2d : NAN);
	csv_add_num(row, len, r->ok && gpu ? r->med.kernel : NAN);
	csv_add_num(row, len, r->ok && gpu ? r->med.d2h : NAN);
	csv_add_num(row, len, r->ok && gpu ? r->med.free : NAN);
	csv_add_num(row, len, r->ok ? r->med.total : NAN);
	csv_add_num(row, len, r->ok ? r->min.total : NAN);
	csv_add_num(row, len, r->ok ? r->max.total : NAN);
	csv_add_num(row, len, r->ok ? r->evals_per_s : NAN);
	csv_add_num(row, len, r->ok ? r->speedup : NAN);
	csv_add_num(row, len, r->ok && isfinite(r->speedup) ? r->speedup_threads : NAN);
	csv_add_num(row, len, occ ? r->occ.regs_per_thread : NAN);
	csv_add_num(row, len, occ ? r->occ.blocks_per_sm : NAN);
	csv_add_num(row, len, occ ? r->occ.occupancy : NAN);
	csv_add_num(row, len, occ ? r->occ.suggested_block : NAN);
	csv_add_num(row, len, err ? r->max_rel : NAN);
	csv_add_num(row, len, err ? (double)r->over : NAN);
	csv_add(row, len, r->ok ? "" : r->error, 0);
	csv_add_num(row, len, r->ok ? r->warmup : NAN);
	csv_add(header, len, "warmup", 0);
	output_phase_spread_csv(header, len, row, len, r->ok && gpu ? &r->min : NULL,
	                        r->ok && gpu ? &r->max : NULL);
	csv_add(header, len, "problem", 0);
	csv_add(row, len, sw->prob->name, 0);
	csv_add(header, len, "device", 0);
	csv_add(row, len, gpu ? sw->device : "", 0);
	for (size_t k = 0; k < sw->prob->nparams; k++) {
		char name[80], word[80];
		snprintf(name, sizeof name, "base_%s", sw->prob->params[k].name);
		param_format(&sw->prob->params[k], sw->params[k], word, sizeof word);
		csv_add(header, len, name, 0);
		csv_add(row, len, word, 0);
	}
}

/* Adds what the export knows about the machine: the GPU (when the session used it) and the
 * CPU count. */
static void json_machine(cJSON *root, int used_gpu)
{
	struct gpu_info g;
	struct qx_err ignore;
	cJSON *dev;
	cJSON_AddNumberToObject(root, "cpu_count", omp_get_num_procs());
	if (!used_gpu || gpu_init(&g, &ignore)) {
		cJSON_AddNullToObject(root, "device");
		return;
	}
	dev = cJSON_AddObjectToObject(root, "device");
	cJSON_AddStringToObject(dev, "name", g.name);
	cJSON_AddNumberToObject(dev, "sms", g.sms);
	cJSON_AddNumberToObject(dev, "cc_major", g.cc_major);
	cJSON_AddNumberToObject(dev, "cc_minor", g.cc_minor);
	cJSON_AddNumberToObject(dev, "driver_version", g.driver_version);
	cJSON_AddNumberToObject(dev, "runtime_version", g.runtime_version);
}

/* Whether any run of s used the GPU. */
static int session_used_gpu(const struct session *s)
{
	for (size_t i = 0; i < s->nruns; i++)
		if (s->runs[i]->backend == QX_GPU)
			return 1;
	return 0;
}

/* The JSON document of every run: settings, parameters, device, medians and every sample. */
static char *runs_json(const struct session *s)
{
	cJSON *root = cJSON_CreateObject(), *runs;
	char *text;
	cJSON_AddStringToObject(root, "quadx_export", "runs");
	json_machine(root, session_used_gpu(s));
	runs = cJSON_AddArrayToObject(root, "runs");
	for (size_t i = 0; i < s->nruns; i++) {
		const struct run_result *r = s->runs[i];
		cJSON *obj = output_run_json(r);
		cJSON *samples = cJSON_AddArrayToObject(obj, "samples_ms");
		cJSON_AddNumberToObject(obj, "index", (double)i + 1);
		for (int k = 0; k < r->nsamples; k++)
			cJSON_AddItemToArray(samples,
			                     output_phases_json(&r->samples[k], r->backend));
		cJSON_AddItemToArray(runs, obj);
	}
	text = cJSON_Print(root);
	cJSON_Delete(root);
	return text;
}

/* The JSON document of the last sweep: its plan, base parameters, device and rows. */
static char *sweep_json(const struct session *s)
{
	const struct sweep *sw = s->sweep;
	cJSON *root = cJSON_CreateObject(), *axes, *rows, *params;
	char *text;
	cJSON_AddStringToObject(root, "quadx_export", "sweep");
	cJSON_AddStringToObject(root, "problem", sw->prob->name);
	json_machine(root, *sw->device != '\0');
	params = cJSON_AddObjectToObject(root, "params");
	for (size_t k = 0; k < sw->prob->nparams; k++) {
		char word[80];
		param_format(&sw->prob->params[k], sw->params[k], word, sizeof word);
		cJSON_AddStringToObject(params, sw->prob->params[k].name, word);
	}
	axes = cJSON_AddArrayToObject(root, "axes");
	for (int a = 0; a < sw->naxes; a++) {
		cJSON *axis = cJSON_CreateObject(), *values;
		cJSON_AddStringToObject(axis, "name", sw->axes[a].name);
		values = cJSON_AddArrayToObject(axis, "values");
		for (int v = 0; v < sw->axes[a].nvalues; v++)
			cJSON_AddItemToArray(values, cJSON_CreateString(sw->axes[a].values[v]));
		cJSON_AddItemToArray(axes, axis);
	}
	cJSON_AddBoolToObject(root, "cancelled", sw->cancelled);
	cJSON_AddNumberToObject(root, "configs", (double)sw->nconfigs);
	cJSON_AddNumberToObject(root, "configs_done", (double)sw->configs_done);
	output_json_num(root, "best", sw->best >= 0 ? sw->best : NAN);
	rows = cJSON_AddArrayToObject(root, "rows");
	for (size_t i = 0; i < sw->nrows; i++)
		cJSON_AddItemToArray(rows, export_sweep_row_json(sw, &sw->rows[i]));
	text = cJSON_Print(root);
	cJSON_Delete(root);
	return text;
}

/* Prints header to f when it differs from the previous one (prev, 4096 bytes), then row
 * without its line break. */
static void csv_line_start(FILE *f, char *prev, const char *header, const char *row)
{
	if (strcmp(prev, header) != 0) {
		fprintf(f, "%s\n", header);
		snprintf(prev, 4096, "%s", header);
	}
	fputs(row, f);
}

/* Prints every run as CSV to f: the run's columns, then its index, device and samples (every
 * sample, however many, written straight to f). */
static void runs_csv(const struct session *s, FILE *f)
{
	char prev[4096] = "", header[1024], row[2048], line[4096];
	struct gpu_info g;
	struct qx_err ignore;
	const int gpu = session_used_gpu(s) && gpu_init(&g, &ignore) == 0;
	for (size_t i = 0; i < s->nruns; i++) {
		const struct run_result *r = s->runs[i];
		char num[40], head[4096];
		output_run_csv(r, header, row);
		snprintf(head, sizeof head, "%s,index,streams,device,samples_total_ms", header);
		snprintf(line, sizeof line, "%s", row);
		csv_add_num(line, sizeof line, (double)i + 1);
		csv_add_num(line, sizeof line, r->streams);
		csv_add(line, sizeof line, r->backend == QX_GPU && gpu ? g.name : "", 0);
		csv_line_start(f, prev, head, line);
		fputc(',', f);
		for (int k = 0; k < r->nsamples; k++) {
			format_real(r->samples[k].total, num, sizeof num);
			fprintf(f, "%s%s", k ? ";" : "", num);
		}
		fputc('\n', f);
	}
}

/* Prints the last sweep's rows as CSV to f. */
static void sweep_csv(const struct session *s, FILE *f)
{
	char prev[4096] = "", header[4096], row[4096];
	for (size_t i = 0; i < s->sweep->nrows; i++) {
		export_sweep_row_csv(s->sweep, &s->sweep->rows[i], header, row, sizeof header);
		csv_line_start(f, prev, header, row);
		fputc('\n', f);
	}
}

/* Whether path ends with ext. */
static int has_ext(const char *path, const char *ext)
{
	const size_t n = strlen(path), k = strlen(ext);
	return n > k && strcmp(path + n - k, ext) == 0;
}

/* Builds the document in memory, then writes it atomically. */
int export_session(const struct session *s, const char *path, int last, struct qx_err *e)
{
	const int json = has_ext(path, ".json");
	const char *slash = strrchr(path, '/'), *file_part = slash ? slash + 1 : path;
	char *text = NULL;
	size_t len = 0;
	int rc;
	if (!strcmp(file_part, ".csv") || !strcmp(file_part, ".json"))
		return qx_fail(e, "export: the file name before '%s' is empty (e.g. runs%s)",
		               file_part, file_part);
	if (!json && !has_ext(path, ".csv"))
		return qx_fail(e, "export: '%.200s' must end in .csv or .json", path);
	if (last && !s->sweep)
		return qx_fail(e, "export last: no sweep yet (try: sweep block 32..1024)");
	if (!last && s->nruns == 0)
		return qx_fail(e, "export: no run yet (try: run cpu)");
	if (json) {
		text = last ? sweep_json(s) : runs_json(s);
		len = text ? strlen(text) : 0;
	} else {
		FILE *f = open_memstream(&text, &len);
		if (f) {
			if (last)
				sweep_csv(s, f);
			else
				runs_csv(s, f);
			fclose(f);
		}
	}
	if (!text)
		return qx_fail(e, "export: out of memory building %.200s", path);
	rc = export_write_file(path, text, len, e);
	free(text);
	return rc;
}
