/* export.c - CSV and JSON exports of the session's runs and of the last sweep, and the atomic
 * file write (temporary file, fsync, rename) that they and `plot` use. */
#include "export.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fault.h"
#include "output.h"
#include "run.h"
#include "sweep.h"

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

/* 1 when name is a temporary file of quadx's: .NAME.EXT.tmpXXXXXX, with EXT one of the
 * extensions export and plot write and XXXXXX mkstemp's six letters or digits. */
static int is_quadx_temp(const char *name)
{
	static const char *const exts[] = {".csv", ".json", ".png", ".svg", ".gp", ".dat"};
	const size_t n = strlen(name);
	if (n < 1 + 1 + 3 + 4 + 6 || name[0] != '.' || strncmp(name + n - 10, ".tmp", 4))
		return 0;
	for (size_t i = n - 6; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
		      (name[i] >= '0' && name[i] <= '9')))
			return 0;
	for (size_t k = 0; k < sizeof exts / sizeof *exts; k++) {
		const size_t m = strlen(exts[k]);
		if (n - 10 > m + 1 && !strncmp(name + n - 10 - m, exts[k], m))
			return 1;
	}
	return 0;
}

/* Removes from dir the temporary files of quadx's pattern that an export or plot killed midway
 * (kill -9, a power cut) left behind: those no writer holds locked (a live writer keeps an
 * flock on its temporary file until the rename) and untouched for QX_STALE_TEMP_S seconds (a
 * writer between mkstemp and its flock). Best effort: errors are ignored. */
void export_clean_stale(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *ent;
	const time_t now = time(NULL);
	if (!d)
		return;
	while ((ent = readdir(d)) != NULL) {
		struct stat st;
		int fd;
		if (!is_quadx_temp(ent->d_name))
			continue;
		fd = openat(dirfd(d), ent->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
		    now - st.st_mtime >= QX_STALE_TEMP_S && flock(fd, LOCK_EX | LOCK_NB) == 0)
			unlinkat(dirfd(d), ent->d_name, 0);
		close(fd);
	}
	closedir(d);
}

/* Creates the temporary file beside path (dir/.BASE.tmpXXXXXX into tmp, PATH_MAX bytes),
 * flock'ed so that export_clean_stale leaves it alone while this process lives, after removing
 * the stale ones of dir. Returns its descriptor, or -1 with errno set. */
int export_temp_file(const char *dir, const char *base, char *tmp)
{
	int fd;
	export_clean_stale(dir);
	snprintf(tmp, PATH_MAX, "%s/.%s.tmpXXXXXX", dir, base);
	fd = qx_fault("fopen") ? (errno = EIO, -1) : mkostemp(tmp, O_CLOEXEC);
	if (fd >= 0)
		flock(fd, LOCK_EX | LOCK_NB); /* a new file: nobody else holds it */
	return fd;
}

/* Writes into buf (PATH_MAX bytes) the file path names: path itself, or when path is a
 * symbolic link, the file it points to (so that the link stays and its target is written).
 * Returns 0, or -1 with e filled (a link whose target cannot be resolved). */
static int export_target(const char *path, char *buf, struct qx_err *e)
{
	struct stat st;
	if (lstat(path, &st) || !S_ISLNK(st.st_mode)) {
		snprintf(buf, PATH_MAX, "%s", path);
		return 0;
	}
	if (!realpath(path, buf))
		return qx_fail(e,
		               "cannot write %.200s: it is a symbolic link whose target cannot be "
		               "reached (%s)",
		               path, strerror(errno));
	return 0;
}

/* Atomic write: temporary file beside path (beside its target when path is a symbolic link),
 * fsync, rename, fsync of the directory. */
int export_write_file(const char *path, const char *data, size_t len, struct qx_err *e)
{
	char dir_buf[PATH_MAX], base_buf[PATH_MAX], tmp[PATH_MAX], target[PATH_MAX];
	struct stat st;
	const int exists = stat(path, &st) == 0;
	mode_t mode, mask;
	int fd, dirfd;
	if (exists && !S_ISREG(st.st_mode))
		return write_direct(path, data, len, e);
	if (strlen(path) >= sizeof dir_buf - 16 || !*path)
		return qx_fail(e, "cannot write '%.200s': the path is empty or too long", path);
	if (export_target(path, target, e))
		return -1;
	snprintf(dir_buf, sizeof dir_buf, "%s", target);
	snprintf(base_buf, sizeof base_buf, "%s", target);
	const char *dir = dirname(dir_buf), *base = basename(base_buf);
	fd = export_temp_file(dir, base, tmp);
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
	if (qx_fault("rename") ? (errno = EIO, -1) : rename(tmp, target)) {
		const int err = errno;
		close(fd);
		unlink(tmp);
		return qx_fail(e, "cannot write %.200s: %s (the old file, if any, is unchanged)",
		               path, strerror(err));
	}
	close(fd); /* written and flushed before the rename: closing only drops the lock */
	dirfd = open(dir, O_RDONLY | O_DIRECTORY);
	if (dirfd >= 0) {
		fsync(dirfd); /* makes the rename durable; a failure here loses nothing written */
		close(dirfd);
	}
	return 0;
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
		if (s->runs[i]->summary.backend == QX_GPU)
			return 1;
	return 0;
}

/* The text of a JSON document: indented for a file; one line (and its line break) for a
 * device or pipe, so that a --json script's stdout stays one object a line. */
static char *json_text(const cJSON *root, int one_line)
{
	char *text = one_line ? cJSON_PrintUnformatted(root) : cJSON_Print(root), *line;
	if (!text || !one_line)
		return text;
	line = malloc(strlen(text) + 2);
	if (line)
		sprintf(line, "%s\n", text);
	cJSON_free(text);
	return line;
}

/* The JSON document of every run: settings, parameters, device, medians and every sample. */
static char *runs_json(const struct session *s, int one_line)
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
		for (int k = 0; k < r->summary.nsamples; k++)
			cJSON_AddItemToArray(samples, output_timing_json(&r->samples[k]));
		cJSON_AddItemToArray(runs, obj);
	}
	text = json_text(root, one_line);
	cJSON_Delete(root);
	return text;
}

/* The JSON document of the last sweep: its plan, base parameters, device and rows. */
static char *sweep_json(const struct session *s, int one_line)
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
		output_json_word(params, sw->prob->params[k].name, word);
	}
	axes = cJSON_AddArrayToObject(root, "axes");
	for (int a = 0; a < sw->naxes; a++) {
		cJSON *axis = cJSON_CreateObject(), *values;
		cJSON_AddStringToObject(axis, "name", sw->axes[a].name);
		values = cJSON_AddArrayToObject(axis, "values");
		for (int v = 0; v < sw->axes[a].nvalues; v++) {
			cJSON *one = cJSON_CreateObject(); /* the word as output_json_word has it */
			output_json_word(one, "v", sw->axes[a].values[v]);
			cJSON_AddItemToArray(values, cJSON_DetachItemFromObject(one, "v"));
			cJSON_Delete(one);
		}
		cJSON_AddItemToArray(axes, axis);
	}
	cJSON_AddBoolToObject(root, "cancelled", sw->cancelled);
	cJSON_AddNumberToObject(root, "configs", (double)sw->nconfigs);
	cJSON_AddNumberToObject(root, "configs_done", (double)sw->configs_done);
	output_json_num(root, "best", sw->best >= 0 ? sw->best : NAN);
	rows = cJSON_AddArrayToObject(root, "rows");
	for (size_t i = 0; i < sw->nrows; i++)
		cJSON_AddItemToArray(rows, output_sweep_row_json(sw, &sw->rows[i]));
	text = json_text(root, one_line);
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

/* Prints every run as CSV to f: the run's columns, then its index, its problem's settings,
 * device and samples (every sample, however many, written straight to f). */
static void runs_csv(const struct session *s, FILE *f)
{
	char prev[4096] = "", header[4096], row[4096];
	struct gpu_info g;
	struct qx_err ignore;
	const int gpu = session_used_gpu(s) && gpu_init(&g, &ignore) == 0;
	for (size_t i = 0; i < s->nruns; i++) {
		const struct run_result *r = s->runs[i];
		const struct problem *p = r->prob;
		char num[40];
		output_run_csv(r, header, row, sizeof row);
		output_csv_field(header, sizeof header, "index", 0);
		output_csv_num(row, sizeof row, (double)i + 1);
		for (size_t k = 0; k < p->nsettings; k++) {
			output_csv_field(header, sizeof header, p->settings[k].name, 0);
			output_csv_num(row, sizeof row, r->summary.settings[k].num);
		}
		output_csv_field(header, sizeof header, "device", 0);
		output_csv_field(row, sizeof row, r->summary.backend == QX_GPU && gpu ? g.name : "",
		                 0);
		output_csv_field(header, sizeof header, "samples_total_ms", 0);
		csv_line_start(f, prev, header, row);
		fputc(',', f);
		for (int k = 0; k < r->summary.nsamples; k++) {
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
		output_sweep_row_csv(s->sweep, &s->sweep->rows[i], header, row, sizeof header);
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

/* Whether path is an existing device or pipe (/dev/stdout), written directly in the session's
 * format (JSON in format json, else CSV) whatever its name. */
static int is_device(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* Builds the document in memory, then writes it atomically. */
int export_session(const struct session *s, enum out_format format, const char *path, int last,
                   struct qx_err *e)
{
	const int device = is_device(path);
	const int json = has_ext(path, ".json") || (device && format == FORMAT_JSON);
	const char *slash = strrchr(path, '/'), *file_part = slash ? slash + 1 : path;
	char *text = NULL;
	size_t len = 0;
	int rc;
	if (!strcmp(file_part, ".csv") || !strcmp(file_part, ".json"))
		return qx_fail(e, "export: the file name before '%s' is empty (e.g. runs%s)",
		               file_part, file_part);
	if (!json && !has_ext(path, ".csv") && !device)
		return qx_fail(e, "export: '%.200s' must end in .csv or .json", path);
	if (last && !s->sweep)
		return qx_fail(e, "export last: no sweep yet (try: sweep block 32..1024)");
	if (!last && s->nruns == 0)
		return qx_fail(e, "export: no run yet (try: run cpu)");
	if (json) { /* valid UTF-8 whatever bytes a file name or message holds */
		char *doc = last ? sweep_json(s, device) : runs_json(s, device);
		FILE *f = doc ? open_memstream(&text, &len) : NULL;
		if (f) {
			output_json_text(f, doc);
			fclose(f);
		}
		free(doc);
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

/* Writes every value of the last run to path: CSV rows, or a JSON document whose "values" are
 * the objects `values` prints. */
int export_values(struct session *s, enum out_format format, const char *path, struct qx_err *e)
{
	const int device = is_device(path);
	const int json = has_ext(path, ".json") || (device && format == FORMAT_JSON);
	char *text = NULL;
	size_t len = 0;
	int rc;
	struct qx_err ignore;
	if (!json && !has_ext(path, ".csv") && !device)
		return qx_fail(e, "export values: '%.200s' must end in .csv or .json", path);
	if (!s->last)
		return qx_fail(e, "export values: no run yet (try: run cpu)");
	const struct run_result *r = s->last;
	const double *est = r->has_estimates ? s->estimates : NULL;
	const double *ref =
	    r->is_reference ? NULL : session_reference(s, r->prob, r->params, &ignore);
	if (json) {
		cJSON *root = cJSON_CreateObject(), *values;
		cJSON_AddStringToObject(root, "quadx_export", "values");
		cJSON_AddStringToObject(root, "problem", r->prob->name);
		values = cJSON_AddArrayToObject(root, "values");
		for (size_t i = 0; i < r->evals; i++)
			cJSON_AddItemToArray(values,
			                     output_value_json(r, session_state(s, r->prob),
			                                       s->last_values, est, ref, i));
		text = json_text(root, device);
		cJSON_Delete(root);
		len = text ? strlen(text) : 0;
	} else {
		FILE *f = open_memstream(&text, &len);
		if (f) {
			output_values(f, FORMAT_CSV, r, session_state(s, r->prob), s->last_values,
			              est, ref, 0, r->evals);
			fclose(f);
		}
	}
	if (!text)
		return qx_fail(e, "export values: out of memory building %.200s", path);
	rc = export_write_file(path, text, len, e);
	free(text);
	return rc;
}
