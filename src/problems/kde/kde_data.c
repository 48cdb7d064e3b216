/* kde_data.c - kde_data.h: samples from a text or CSV file, checked line by line. */
#include "kde_data.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Longest field quoted in an error message. */
#define KDE_SHOW 40

/* Field col (1-based) of line into [*start, *end): split at commas, blanks and one pair of
 * double quotes trimmed. Returns 0, or -1 when the line has fewer fields. */
static int kde_field(const char *line, int col, const char **start, const char **end)
{
	const char *p = line;
	for (int c = 1; c < col; c++) {
		p = strchr(p, ',');
		if (!p)
			return -1;
		p++;
	}
	const char *q = strchr(p, ',');
	if (!q)
		q = p + strlen(p);
	while (p < q && isspace((unsigned char)*p))
		p++;
	while (q > p && isspace((unsigned char)q[-1]))
		q--;
	if (q - p >= 2 && *p == '"' && q[-1] == '"') {
		p++;
		q--;
	}
	*start = p;
	*end = q;
	return 0;
}

/* 1 when the line is blank or a '#' comment. */
static int kde_skip_line(const char *line)
{
	while (isspace((unsigned char)*line))
		line++;
	return *line == '\0' || *line == '#';
}

/* Parses the chosen fields of line number ln into v; 1 when line 1 is a header (skip it), 0
 * when parsed, -1 with e naming the line and the field otherwise. */
static int kde_parse_line(const char *path, size_t ln, const char *line, const int *cols, int ncols,
                          double *v, struct qx_err *e)
{
	int words = 0;
	for (int c = 0; c < ncols; c++) {
		const char *s, *t;
		char buf[64], *endp;
		if (kde_field(line, cols[c], &s, &t))
			return qx_fail(e,
			               "%s: line %zu: no column %d (allowed: one number per line, "
			               "or a CSV with the chosen column)",
			               path, ln, cols[c]);
		const int len = (int)(t - s);
		if (ln == 1 && len > 0 && isalpha((unsigned char)*s) && strncasecmp(s, "nan", 3) &&
		    strncasecmp(s, "inf", 3)) {
			words++;
			continue;
		}
		if (len == 0 || len >= (int)sizeof buf)
			return qx_fail(e, "%s: line %zu: '%.*s' is not a number%s", path, ln,
			               len < KDE_SHOW ? len : KDE_SHOW, s,
			               len == 0 ? " (empty field)" : "");
		memcpy(buf, s, (size_t)len);
		buf[len] = '\0';
		errno = 0;
		v[c] = strtod(buf, &endp);
		if (endp == buf || *endp || strpbrk(buf, "xX")) /* hex floats: refused as by set */
			return qx_fail(e, "%s: line %zu: '%s' is not a number", path, ln, buf);
		if (!isfinite(v[c]))
			return qx_fail(e,
			               "%s: line %zu: '%s' is not allowed: samples must be finite "
			               "numbers",
			               path, ln, buf);
	}
	if (words == ncols)
		return 1;
	if (words)
		return qx_fail(e, "%s: line 1: a header must name every chosen column", path);
	return 0;
}

/* One pass over f: checks every line, counts the samples and, when out is not NULL, stores
 * them. Returns 0, or -1 with e. */
static int kde_pass(FILE *f, const char *path, const int *cols, int ncols, size_t *count,
                    struct kde_points *out, struct qx_err *e)
{
	char *line = NULL;
	size_t cap = 0, ln = 0, n = 0;
	ssize_t len;
	int rc = 0;
	errno = 0;
	while ((len = getline(&line, &cap, f)) >= 0) {
		double v[KDE_DMAX];
		/* a UTF-8 byte order mark (editors on Windows write one) is not part of the data */
		const int bom = ln == 0 && len >= 3 && !memcmp(line, "\xEF\xBB\xBF", 3) ? 3 : 0;
		ln++;
		/* a large file: Ctrl-C stops the read */
		if ((ln & 0xFFFF) == 0 && qx_cancelled()) {
			rc = qx_fail(e, "%s: reading cancelled at line %zu", path, ln);
			break;
		}
		if ((size_t)len != strlen(line)) {
			rc = qx_fail(e, "%s: line %zu: contains a NUL byte (not a text file)", path,
			             ln);
			break;
		}
		if (kde_skip_line(line + bom))
			continue;
		const int r = kde_parse_line(path, ln, line + bom, cols, ncols, v, e);
		if (r < 0) {
			rc = -1;
			break;
		}
		if (r > 0)
			continue;
		if (out && n < out->n)
			for (int c = 0; c < ncols; c++)
				out->x[c][n] = v[c];
		n++;
	}
	if (!rc && ferror(f))
		rc = qx_fail(e, "%s: read error: %s", path, strerror(errno ? errno : EIO));
	free(line);
	*count = n;
	return rc;
}

/* Copies what descriptor fd (a FIFO, a pipe, a terminal) gives until its end into copy,
 * waiting for input in polls of 100 ms and checking for Ctrl-C between them: a read blocked on
 * a FIFO whose writer stays open never returns if the SIGINT came just before it. Returns 0 at
 * the end of the input, -1 on a cancel, a read error or a failed write. */
static int kde_copy_input(int fd, FILE *copy)
{
	char chunk[65536];
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (qx_cancelled())
			return -1;
		const int ready = poll(&p, 1, 100);
		if (ready < 0 && errno != EINTR)
			return -1;
		if (ready <= 0)
			continue;
		const ssize_t got = read(fd, chunk, sizeof chunk);
		if (got == 0)
			return 0;
		if (got < 0 && errno != EINTR)
			return -1;
		if (got > 0 && fwrite(chunk, 1, (size_t)got, copy) != (size_t)got)
			return -1;
	}
}

/* Opens path for two passes (count, then store). A file that cannot be read twice (a FIFO,
 * a pipe, a terminal) is first copied into an unnamed temporary file (tmpfile), a copy that
 * Ctrl-C stops. Returns the stream, or NULL with e filled. */
static FILE *kde_data_open(const char *path, struct qx_err *e)
{
	struct stat st;
	int failed;
	FILE *f = fopen(path, "r"), *copy;
	if (!f) {
		qx_fail(e, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)))
		return f; /* a directory: the read reports it */
	copy = tmpfile();
	failed = !copy || kde_copy_input(fileno(f), copy) != 0 || fflush(copy);
	fclose(f);
	if (failed) {
		qx_fail(e, "%s: %s", path,
		        qx_cancelled() ? "reading cancelled"
		        : !copy        ? "cannot create a temporary copy of it"
		                       : "read error, or no room for a temporary copy of it");
		if (copy)
			fclose(copy);
		return NULL;
	}
	rewind(copy);
	return copy;
}

/* 1 when the header word [s, t) names a row id: id, index, idx, row, rownum, row_id (any
 * case). */
static int kde_id_name(const char *s, const char *t)
{
	static const char *const names[] = {"id", "index", "idx", "row", "rownum", "row_id", NULL};
	for (int i = 0; names[i]; i++)
		if ((size_t)(t - s) == strlen(names[i]) &&
		    !strncasecmp(s, names[i], (size_t)(t - s)))
			return 1;
	return 0;
}

/* The number of comma-separated fields of line. */
static int kde_fields(const char *line)
{
	int n = 1;
	for (; *line; line++)
		n += *line == ',';
	return n;
}

/* `column auto`: one pass over f finds, among the fields of the first data line, the columns
 * that are row ids (kde_data_auto's rule) and writes the first column c with c..c+ncols-1 all
 * present and none an id into *col; when the file has just ncols columns, 1. Returns 0, or -1
 * with e when every choice holds an id (or the file has fewer than ncols columns: 1, and the
 * load says what is missing). */
static int kde_auto_pass(FILE *f, const char *path, int ncols, int *col, struct qx_err *e)
{
	int is_id[KDE_AUTO_MAX + 1] = {0}, nf = 0, header = 0;
	double first[KDE_AUTO_MAX + 1];
	char *line = NULL;
	size_t cap = 0, ln = 0, k = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, f)) >= 0) {
		const int bom = ln == 0 && len >= 3 && !memcmp(line, "\xEF\xBB\xBF", 3) ? 3 : 0;
		const char *l = line + bom;
		ln++;
		if (kde_skip_line(l))
			continue;
		const int fields = kde_fields(l);
		if (!nf) {
			nf = fields < KDE_AUTO_MAX ? fields : KDE_AUTO_MAX;
			for (int c = 1; c <= nf; c++)
				is_id[c] = 1; /* a sequence until a line shows otherwise */
		}
		int words = 0;
		for (int c = 1; c <= nf; c++) {
			const char *s, *t;
			if (kde_field(l, c, &s, &t))
				break;
			words += ln == 1 && t > s && isalpha((unsigned char)*s);
		}
		if (ln == 1 &&
		    words == nf) { /* a header: its names, the values start on the next */
			header = 1;
			for (int c = 1; c <= nf; c++) {
				const char *s, *t;
				kde_field(l, c, &s, &t);
				is_id[c] = kde_id_name(s, t) ? 2 : 1;
			}
			continue;
		}
		for (int c = 1; c <= nf; c++) {
			const char *s, *t;
			char buf[64], *endp;
			double v = NAN;
			if (is_id[c] != 1 || kde_field(l, c, &s, &t))
				continue;
			if (t - s > 0 && (size_t)(t - s) < sizeof buf) {
				memcpy(buf, s, (size_t)(t - s));
				buf[t - s] = '\0';
				v = strtod(buf, &endp);
				if (*endp)
					v = NAN;
			}
			if (k == 0)
				first[c] = v;
			/* the row numbers from 0 or 1, one a line */
			if (!(k == 0 ? v == 0 || v == 1 : v == first[c] + (double)k))
				is_id[c] = 0;
		}
		k++;
	}
	free(line);
	if (ferror(f))
		return qx_fail(e, "%s: read error: %s", path, strerror(errno ? errno : EIO));
	(void)header;
	*col = 1;
	if (nf <= ncols || k < 2) /* nothing to choose (one sample: the load refuses it) */
		return 0;
	for (int c = 1; c + ncols - 1 <= nf; c++) {
		int ok = 1;
		for (int j = c; j < c + ncols; j++)
			ok &= !is_id[j];
		if (ok) {
			*col = c;
			return 0;
		}
	}
	return qx_fail(e,
	               "%s: column auto: no %d column%s without a row id (a header named id, "
	               "index or row, or the row numbers 1..n) among its %d: set column N",
	               path, ncols, ncols > 1 ? "s" : "", nf);
}

int kde_data_load(const char *path, int *cols, int ncols, size_t max_n, struct kde_points *out,
                  struct qx_err *e)
{
	size_t n = 0, again = 0;
	if (ncols < 1 || ncols > KDE_DMAX)
		return qx_fail(e, "%d columns: allowed 1 to %d", ncols, KDE_DMAX);
	for (int c = 0; c < ncols; c++)
		if (cols[c] < (cols[0] == 0 ? 0 : 1))
			return qx_fail(e, "column %d: columns count from 1", cols[c]);
	FILE *f = kde_data_open(path, e);
	if (!f)
		return -1;
	if (cols[0] == 0) {
		if (kde_auto_pass(f, path, ncols, &cols[0], e))
			goto fail;
		for (int c = 1; c < ncols; c++)
			cols[c] = cols[0] + c;
		rewind(f);
	}
	if (kde_pass(f, path, cols, ncols, &n, NULL, e))
		goto fail;
	if (n == 0) {
		qx_fail(e,
		        "%s: no samples (the file is empty or has only blank, comment or header "
		        "lines)",
		        path);
		goto fail;
	}
	if (n > max_n) {
		qx_fail(e, "%s: %zu samples, at most %zu allowed", path, n, max_n);
		goto fail;
	}
	const size_t bytes = n * (size_t)ncols * sizeof(double), avail = qx_host_mem_available();
	if (avail && bytes > avail) {
		qx_fail(e, "%s: %zu samples need %zu bytes, %zu bytes of host memory available",
		        path, n, bytes, avail);
		goto fail;
	}
	if (kde_points_alloc(out, n, ncols, e))
		goto fail;
	rewind(f);
	if (kde_pass(f, path, cols, ncols, &again, out, e))
		goto fail_free;
	if (again != n) {
		qx_fail(e, "%s: the file changed while it was read (%zu samples, then %zu)", path,
		        n, again);
		goto fail_free;
	}
	fclose(f);
	return 0;
fail_free:
	kde_points_free(out);
fail:
	fclose(f);
	return -1;
}
