/* bench.c - `make bench`: every registered problem's bench section (problem->bench), each in
 * a session of its own with the problem selected. The sections print Markdown tables on
 * stdout and progress on stderr. Returns 1 when a section fails. */
#include <stdio.h>

#include "session.h"

int main(void)
{
	static struct session s; /* large: results keep every sample */
	int failed = 0;
	for (int i = 0; qx_problems[i]; i++) {
		const struct problem *p = qx_problems[i];
		struct qx_err e;
		if (!p->bench)
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
