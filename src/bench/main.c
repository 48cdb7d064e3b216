/* main.c - build/quadx-bench, `make bench`: every section of the bench kit (kit.h), each in a
 * session of its own with its problem selected; `quadx-bench NAME...` runs the named
 * problems' sections only. The sections print Markdown tables on stdout and progress on
 * stderr; with `-o FILE` each problem's tables replace its `## NAME` section of FILE (the
 * results file, help/performance.txt), headed by the device, the date and the commit
 * ($QUADX_BENCH_COMMIT), the other sections kept. Returns 1 when a section fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../device.h"
#include "../export.h"
#include "benchfile.h"
#include "kit.h"

/* 1 when the problem name is among the names argv[1..argc) or there are none. */
static int bench_chosen(const char *name, int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], name))
			return 1;
	return argc < 2;
}

/* Reads the whole of f from its start; returns the text (malloc'd) or NULL. */
static char *read_all(FILE *f)
{
	long n;
	char *text;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		return NULL;
	text = malloc((size_t)n + 1);
	if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
		free(text);
		return NULL;
	}
	if (text)
		text[n] = '\0';
	return text;
}

/* Runs section b in a session of its own; with section set its stdout is captured into
 * *section (malloc'd). Returns 0 or -1 with e filled. */
static int bench_one(struct session *s, const struct bench_section *b, char **section,
                     struct qx_err *e)
{
	FILE *tmp = section ? tmpfile() : NULL;
	int saved = -1, rc;
	if (section && !tmp)
		return qx_fail(e, "cannot make a temporary file for %s's tables", b->problem);
	if (tmp) {
		fflush(stdout);
		saved = dup(STDOUT_FILENO);
		dup2(fileno(tmp), STDOUT_FILENO);
	}
	session_init(s);
	rc = session_use(s, b->problem, e) || b->run(s, e) ? -1 : 0;
	session_free(s);
	if (tmp) {
		fflush(stdout);
		dup2(saved, STDOUT_FILENO);
		close(saved);
		*section = read_all(tmp);
		fclose(tmp);
		if (!*section && rc == 0)
			rc = qx_fail(e, "cannot read back %s's tables", b->problem);
	}
	return rc;
}

/* Adds problem name's tables under their heading to *doc (replacing its section). */
static int bench_merge(char **doc, const char *name, const char *tables, struct qx_err *e)
{
	char head[512], date[32], device[160];
	struct gpu_info g;
	struct qx_err why;
	const time_t now = time(NULL);
	const char *commit = getenv("QUADX_BENCH_COMMIT");
	strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
	if (gpu_init(&g, &why))
		snprintf(device, sizeof device, "no GPU (%.100s)", why.msg);
	else
		snprintf(device, sizeof device, "%.100s", g.name);
	bench_header(head, sizeof head, name, device, date, commit ? commit : "unknown");
	char *section = malloc(strlen(head) + strlen(tables) + 1), *merged;
	if (!section)
		return qx_fail(e, "out of memory for %s's section", name);
	sprintf(section, "%s%s", head, tables);
	merged = bench_replace_section(*doc, name, section);
	free(section);
	if (!merged)
		return qx_fail(e, "out of memory for the results file");
	free(*doc);
	*doc = merged;
	return 0;
}

int main(int argc, char **argv)
{
	static struct session s; /* large: results keep every sample */
	const char *out = NULL;
	char *doc = NULL;
	int failed = 0;
	if (argc > 2 && !strcmp(argv[1], "-o")) {
		out = argv[2];
		argv[2] = argv[0];
		argv += 2;
		argc -= 2;
		FILE *f = fopen(out, "r");
		if (f) {
			doc = read_all(f);
			fclose(f);
		}
	}
	for (const struct bench_section *b = bench_sections; b->problem; b++) {
		struct qx_err e;
		char *tables = NULL;
		if (!bench_chosen(b->problem, argc, argv))
			continue;
		if (bench_one(&s, b, out ? &tables : NULL, &e) ||
		    (out && bench_merge(&doc, b->problem, tables, &e))) {
			fprintf(stderr, "bench: %s: %s\n", b->problem, e.msg);
			failed = 1;
		}
		free(tables);
	}
	if (out && doc) {
		struct qx_err e;
		if (export_write_file(out, doc, strlen(doc), &e)) {
			fprintf(stderr, "bench: %s\n", e.msg);
			failed = 1;
		} else {
			fprintf(stderr, "bench: wrote %s\n", out);
		}
	}
	free(doc);
	return failed;
}
