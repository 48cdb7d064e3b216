/* longman_tables.h - the host tables of Longman's method: Gauss-Legendre nodes and weights,
 * Euler weights, the remainder's binomial weights and the zeros of J0, in double and float;
 * the CPU run and the reference read them, the GPU job uploads them. */
#ifndef QX_LONGMAN_TABLES_H
#define QX_LONGMAN_TABLES_H

#include "longman_math.h"

/* Host tables for order g and N areas, cached across runs: Gauss-Legendre nodes and weights,
 * the Euler weights of the areas, the binomial weights of the remainder estimate and the
 * zeros of J0, in double and float. */
struct longman_tables {
	int g, n;
	double t[LM_GMAX], w[LM_GMAX], c[LM_NMAX], bc[LM_NMAX + 1], z[LM_NMAX + 1];
	float tf[LM_GMAX], wf[LM_GMAX], cf[LM_NMAX], zf[LM_NMAX + 1];
};

/* Returns the tables for order g (1..LM_GMAX) and n areas (1..LM_NMAX), recomputed only when
 * they change: one cache shared by the runs of a session. */
const struct longman_tables *longman_tables(int g, int n);

#endif
