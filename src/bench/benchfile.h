/* benchfile.h - the results file `make bench` writes (help/performance.txt): one `## NAME`
 * section per problem, each headed by the device, date and commit it was measured on; a bench
 * of some problems replaces their sections and keeps the others. Pure text, unit-tested. */
#ifndef QX_BENCHFILE_H
#define QX_BENCHFILE_H

#include <stddef.h>

/* Writes the heading of section name into buf: "## name" and the line saying where, when and
 * of what it was measured ("Measured by make bench on DEVICE, DATE, commit COMMIT."). */
void bench_header(char *buf, size_t len, const char *name, const char *device, const char *date,
                  const char *commit);

/* Returns doc (NULL: empty) with its section `## name` (its heading line up to the next line
 * that starts with "## ", or the end) replaced by section, or section appended after a blank
 * line when doc has none; malloc'd, NULL when out of memory. */
char *bench_replace_section(const char *doc, const char *name, const char *section);

#endif
