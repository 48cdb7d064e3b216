/* benchfile.c - sections of the results file of `make bench`. */
#include "benchfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Writes "## name", a blank line and the line of provenance. */
void bench_header(char *buf, size_t len, const char *name, const char *device, const char *date,
                  const char *commit)
{
	snprintf(buf, len, "## %s\n\nMeasured by make bench on %s, %s, commit %s.\n\n", name,
	         device, date, commit);
}

/* Returns where the line starting "## name" begins in doc (the whole line is the heading),
 * or NULL. */
static const char *section_start(const char *doc, const char *name)
{
	const size_t n = strlen(name);
	for (const char *line = doc; line && *line;) {
		if (!strncmp(line, "## ", 3) && !strncmp(line + 3, name, n) &&
		    (line[3 + n] == '\n' || line[3 + n] == '\0'))
			return line;
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return NULL;
}

/* Returns where the section starting at start ends: the next line starting "## ", or the end. */
static const char *section_end(const char *start)
{
	const char *line = strchr(start, '\n');
	while (line) {
		line++;
		if (!strncmp(line, "## ", 3))
			return line;
		line = strchr(line, '\n');
	}
	return start + strlen(start);
}

/* Replaces or appends the section. */
char *bench_replace_section(const char *doc, const char *name, const char *section)
{
	const char *text = doc ? doc : "";
	const char *start = section_start(text, name);
	const char *end = start ? section_end(start) : text + strlen(text);
	const size_t before = start ? (size_t)(start - text) : strlen(text);
	const size_t sl = strlen(section), after = strlen(end);
	/* a section appended goes after a blank line; a replaced one keeps its place */
	const char *gap = !start && before && text[before - 1] != '\n' ? "\n\n"
	                  : !start && before                           ? "\n"
	                                                               : "";
	const int blank = sl >= 2 && section[sl - 1] == '\n' && section[sl - 2] == '\n';
	const char *tail = after && !blank ? (sl && section[sl - 1] == '\n' ? "\n" : "\n\n") : "";
	char *out = malloc(before + strlen(gap) + sl + strlen(tail) + after + 1);
	if (!out)
		return NULL;
	sprintf(out, "%.*s%s%s%s%s", (int)before, text, gap, section, tail, end);
	return out;
}
