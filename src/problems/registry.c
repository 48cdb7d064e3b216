/* registry.c - the list of problems quadx offers. */
#include "../problem.h"

#include <stdio.h>
#include <string.h>

extern const struct problem expint_problem;
extern const struct problem longman_problem;
extern const struct problem kde_problem;
extern const struct problem cubature_problem;

const struct problem *const qx_problems[] = {&expint_problem, &longman_problem, &cubature_problem,
                                             &kde_problem, NULL};

/* Returns the problem whose name is name or starts with the unique prefix name, or NULL. */
const struct problem *problem_find(const char *name)
{
	const struct problem *hit = NULL;
	size_t len = strlen(name);
	for (size_t i = 0; qx_problems[i]; i++) {
		if (strcmp(qx_problems[i]->name, name) == 0)
			return qx_problems[i];
		if (len && strncmp(qx_problems[i]->name, name, len) == 0) {
			if (hit)
				return NULL;
			hit = qx_problems[i];
		}
	}
	return hit;
}

/* Writes the arguments eval takes for p into buf; returns buf. */
char *problem_eval_usage(const struct problem *p, char *buf, size_t cap)
{
	const size_t least = p->neval_min ? p->neval_min : p->neval_args;
	size_t used = 0;
	buf[0] = '\0';
	if (p->neval_args - least > 2) { /* many optional ones: " X1 [X2 ... X16]" */
		for (size_t i = 0; i < least && used < cap; i++)
			used +=
			    (size_t)snprintf(buf + used, cap - used, " %s", p->eval_args[i].name);
		if (used < cap)
			snprintf(buf + used, cap - used, " [%s ... %s]", p->eval_args[least].name,
			         p->eval_args[p->neval_args - 1].name);
		return buf;
	}
	for (size_t i = 0; i < p->neval_args && used < cap; i++)
		used += (size_t)snprintf(buf + used, cap - used, "%s%s", i < least ? " " : " [",
		                         p->eval_args[i].name);
	for (size_t i = least; i < p->neval_args && used < cap; i++)
		used += (size_t)snprintf(buf + used, cap - used, "]");
	return buf;
}
