/* bench.c - `make bench`: every registered problem's bench section (problem->bench), each in
 * a session of its own with the problem selected; `quadx-bench NAME...` runs the named
 * problems' sections only. The sections print Markdown tables on stdout and progress on
 * stderr. Returns 1 when a section fails. */
#include <stdio.h>
#include <string.h>

#include "session.h"

/* 1 when problem p is among the names argv[1..argc) or there are none. */
static int bench_chosen(const struct problem *p, int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], p->name))
			return 1;
	return argc < 2;
}

int main(int argc, char **argv)
{
	static struct session s; /* large: results keep every sample */
	int failed = 0;
	for (int i = 0; qx_problems[i]; i++) {
		const struct problem *p = qx_problems[i];
		struct qx_err e;
		if (!p->bench || !bench_chosen(p, argc, argv))
			continue;
		session_init(&s, stderr);
		if (session_use(&s, p->name, &e) || p->bench(&s, &e)) {
			fprintf(stderr, "bench: %s: %s\n", p->name, e.msg);
			failed = 1;
		}
		session_free(&s);
	}
	return failed;
}
