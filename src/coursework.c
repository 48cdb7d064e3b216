/* coursework.c - the coursework-compatible one-shot mode. */
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

/* Records one coursework option. */
int coursework_option(struct coursework_opts *o, int opt, const char *arg)
{
	const char *name = NULL;
	switch (opt) {
	case 'n':
		name = "n";
		break;
	case 'm':
		name = "m";
		break;
	case 'a':
		name = "a";
		break;
	case 'b':
		name = "b";
		break;
	case 'i':
		name = "iters";
		break;
	case 'c':
		o->skip_cpu = 1;
		break;
	case 'g':
		o->skip_gpu = 1;
		break;
	case 't':
		o->timing = 1;
		break;
	case 'v':
		o->verbose = 1;
		break;
	case 'd':
		o->gpu_double = 1;
		break;
	case 'h':
		o->help = 1;
		break;
	default:
		return -1;
	}
	if (name && o->nset < 5) {
		o->set[o->nset][0] = name;
		o->set[o->nset][1] = arg;
		o->nset++;
	}
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

/* Prints every grid value of a backend as the coursework's -v did. */
static void cw_print_values(struct session *s, const char *tag, const double *dbl,
                            const void *other, enum qx_precision other_prec)
{
	const struct run_result *r = s->last;
	for (size_t i = 0; i < r->evals; i++) {
		const char *names[QX_MAX_COORDS];
		double c[QX_MAX_COORDS] = {0};
		s->prob->point(r->params, i, names, c, QX_MAX_COORDS);
		printf("%s==> exponentialIntegralDouble (%d,%f)=%f ,", tag, (int)c[0], c[1],
		       dbl ? dbl[i] : value_at(other, other_prec, i));
		if (dbl)
			printf("exponentialIntegralFloat  (%d,%f)=%f\n", (int)c[0], c[1],
			       value_at(other, other_prec, i));
		else
			printf("\n");
	}
}

/* The coursework run: CPU double and float (unless -c), then the GPU (unless -g). */
int coursework_run(struct session *s, const struct coursework_opts *o)
{
	double cpu_ms = 0, gpu_ms = 0;
	struct qx_err e;
	if (session_use(s, "expint", &e)) {
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
			printf("calculating the exponentials on the cpu took: %f seconds\n",
			       cpu_ms / 1e3);
		if (o->verbose)
			cw_print_values(s, "CPU", s->ref, s->last_values, QX_FLOAT);
	}
	if (!o->skip_gpu) {
		if (cw_run(s, QX_GPU, o->gpu_double ? "double" : "float"))
			return 1;
		gpu_ms = s->last->summary.med.total;
		if (o->timing) {
			printf("calculating the exponentials on the gpu took: %f seconds\n",
			       gpu_ms / 1e3);
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
