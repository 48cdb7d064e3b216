/* coursework.c - the coursework-compatible one-shot mode, on the problem that provides it
 * (problem.h's struct problem_coursework: its flags' parameters and its lines). */
#include "coursework.h"

#include <stdio.h>
#include <string.h>

#include "run.h"
#include "stats.h"

/* Resets o. */
void coursework_defaults(struct coursework_opts *o)
{
	memset(o, 0, sizeof *o);
}

/* The problem that provides the coursework's command line, or NULL. */
static const struct problem *coursework_problem(void)
{
	for (int i = 0; qx_problems[i]; i++)
		if (qx_problems[i]->coursework)
			return qx_problems[i];
	return NULL;
}

/* Records one coursework option: a parameter flag of the problem's, or -c -g -t -v -d -h. */
int coursework_option(struct coursework_opts *o, int opt, const char *arg)
{
	const struct problem *p = coursework_problem();
	const char *flag = p && opt > 0 ? strchr(p->coursework->flags, opt) : NULL;
	if (!flag && opt == 0)
		return -1;
	if (flag && o->nset < 5) {
		o->set[o->nset][0] = p->coursework->flag_params[flag - p->coursework->flags];
		o->set[o->nset][1] = arg;
		o->nset++;
	}
	// clang-format off
	switch (flag ? 0 : opt) {
	case 0: break; /* a parameter's flag, recorded above */
	case 'c': o->skip_cpu = 1; break;
	case 'g': o->skip_gpu = 1; break;
	case 't': o->timing = 1; break;
	case 'v': o->verbose = 1; break;
	case 'd': o->gpu_double = 1; break;
	case 'h': o->help = 1; break;
	default: return -1;
	}
	// clang-format on
	o->used = 1;
	return 0;
}

/* Sets NAME VALUE in the session, printing the error; returns 0 or -1. */
static int cw_set(struct session *s, const char *name, const char *value)
{
	struct qx_err e;
	char *argv[2] = {(char *)name, (char *)value};
	if (session_set(s, 2, argv, &e)) {
		fprintf(stderr, "quadx: %s\n", e.msg);
		return -1;
	}
	return 0;
}

/* Runs backend b in precision prec once; prints the error and returns -1 on failure. */
static int cw_run(struct session *s, enum qx_backend b, const char *prec)
{
	struct qx_err e;
	if (cw_set(s, "precision", prec))
		return -1;
	if (session_run(s, b, &e)) {
		fprintf(stderr, "quadx: %s\n", e.msg);
		return -1;
	}
	return 0;
}

/* Prints every value of a backend as the coursework's -v did (the problem's print_value):
 * with dbl, the double values and the other ones beside them; else the other ones alone. */
static void cw_print_values(struct session *s, const char *tag, const double *dbl,
                            const void *other, enum qx_precision other_prec)
{
	const struct run_result *r = s->last;
	for (size_t i = 0; i < r->evals; i++) {
		const char *names[QX_MAX_COORDS];
		double c[QX_MAX_COORDS] = {0};
		const double v = value_at(other, other_prec, i);
		s->prob->point(r->params, session_state(s, s->prob), &r->user, i, names, c,
		               QX_MAX_COORDS);
		s->prob->coursework->print_value(tag, c, dbl ? dbl[i] : v, dbl ? &v : NULL);
	}
}

/* The coursework run on the problem that provides it: CPU double and float (unless -c), then
 * the GPU (unless -g). */
int coursework_run(struct session *s, const struct coursework_opts *o)
{
	const struct problem *p = coursework_problem();
	double cpu_ms = 0, gpu_ms = 0;
	struct qx_err e;
	if (!p) {
		fprintf(stderr, "quadx: no problem provides the coursework's command line\n");
		return 1;
	}
	if (session_use(s, p->name, &e)) {
		fprintf(stderr, "quadx: %s\n", e.msg);
		return 1;
	}
	if (cw_set(s, "repeat", "1") || cw_set(s, "warmup", "0"))
		return 1;
	for (int i = 0; i < o->nset; i++)
		if (cw_set(s, o->set[i][0], o->set[i][1]))
			return 1;
	if (!o->skip_cpu) {
		if (cw_run(s, QX_CPU, "double"))
			return 1;
		cpu_ms = s->last->summary.med.total;
		if (cw_run(s, QX_CPU, "float"))
			return 1;
		cpu_ms += s->last->summary.med.total;
		if (o->timing)
			printf("calculating the %s on the cpu took: %f seconds\n",
			       p->coursework->values, cpu_ms / 1e3);
		if (o->verbose)
			cw_print_values(s, "CPU", s->ref, s->last_values, QX_FLOAT);
	}
	if (!o->skip_gpu) {
		if (cw_run(s, QX_GPU, o->gpu_double ? "double" : "float"))
			return 1;
		gpu_ms = s->last->summary.med.total;
		if (o->timing) {
			printf("calculating the %s on the gpu took: %f seconds\n",
			       p->coursework->values, gpu_ms / 1e3);
			if (!o->skip_cpu)
				printf("speedup (cpu double+float over gpu %s): %.2fx\n",
				       o->gpu_double ? "double" : "float", cpu_ms / gpu_ms);
		}
		printf("gpu %s vs cpu double: max relative error %.3g, %zu of %zu points over "
		       "%g\n",
		       o->gpu_double ? "double" : "float", s->last->err.max_rel, s->last->err.over,
		       s->last->err.count, s->last->err.threshold);
		if (o->verbose)
			cw_print_values(s, "GPU", NULL, s->last_values, s->last->summary.prec);
	}
	return 0;
}
