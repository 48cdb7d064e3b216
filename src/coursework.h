/* coursework.h - the coursework program's command line (-a -b -n -m -i -c -g -t -v -d -h):
 * one run of the problem that provides it (problem.h), printed the way the coursework
 * printed it. */
#ifndef QX_COURSEWORK_H
#define QX_COURSEWORK_H

#include "session.h"

struct coursework_opts {
	int used;              /* any coursework option was given */
	const char *set[5][2]; /* parameter NAME VALUE pairs from -n -m -a -b -i */
	int nset;
	int skip_cpu, skip_gpu; /* -c, -g */
	int timing, verbose;    /* -t, -v */
	int gpu_double;         /* -d */
	int help;               /* -h */
};

/* Fills o with the coursework's defaults (no option given). */
void coursework_defaults(struct coursework_opts *o);

/* Records option opt (with its argument); returns 0, or -1 if it is not a coursework option. */
int coursework_option(struct coursework_opts *o, int opt, const char *arg);

/* Performs the run and prints its results; returns the number of errors (0 on success). */
int coursework_run(struct session *s, const struct coursework_opts *o);

#endif
