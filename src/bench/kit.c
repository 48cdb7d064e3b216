/* kit.c - the bench kit's registry of sections and the helpers every section shares. */
#include "kit.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* In the order of the problems' registry (src/problems/registry.c). */
const struct bench_section bench_sections[] = {
    {"expint", bench_expint},
    {"longman", bench_longman},
    {"cubature", bench_cubature},
    {"kde", bench_kde},
    {NULL, NULL},
};

/* Sets words; on failure names them on stderr ("bench kde: set ...") and returns -1. */
int bench_set(struct session *s, const char *words, struct qx_err *e)
{
	if (session_set_words(s, words, e) == 0)
		return 0;
	fprintf(stderr, "bench %s: set %s\n", s->prob->name, words);
	return -1;
}

/* Says what runs ("bench kde: WORDS on gpu"), sets words, runs b; returns s->last or NULL. */
const struct run_result *bench_run(struct session *s, const char *words, enum qx_backend b,
                                   struct qx_err *e)
{
	if (words) {
		fprintf(stderr, "bench %s: %s on %s\n", s->prob->name, words, qx_backend_name(b));
		if (bench_set(s, words, e))
			return NULL;
	}
	return session_run(s, b, e) ? NULL : s->last;
}

/* Looks the figure up by name among r's own figures. */
double bench_figure(const struct run_result *r, const char *name)
{
	for (size_t i = 0; i < r->nfigures; i++)
		if (!strcmp(r->figure[i].name, name))
			return r->figure[i].value;
	return NAN;
}
