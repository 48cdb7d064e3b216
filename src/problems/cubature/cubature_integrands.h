/* cubature_integrands.h - what problem cubature knows of its built-in integrands beyond their
 * values (cubature_math.h computes those; cubature_integrands.c): their names, Genz's vectors
 * drawn from the seed, the exact integrals, and each family as an expression. */
#ifndef QX_CUBATURE_INTEGRANDS_H
#define QX_CUBATURE_INTEGRANDS_H

#include <stddef.h>

#include "cubature_math.h"

/* The built-in integrands' names in the order of enum cub_integrand, NULL-terminated. */
extern const char *const cub_integrand_names[];

/* The integrand kind (an enum cub_integrand, or CUB_USER) in dim dimensions: for Genz's
 * families c and w drawn uniformly in [0, 1) from seed, c normalised to Genz's difficulty. A
 * user's integrand still needs its code and data (cubature.c binds them). */
struct cub_fn cub_fn_make(int kind, int dim, unsigned long long seed);

/* The exact integral of fn over [a, b]^dim, NaN where none is known (f1, f1p2, f2, f3, f4
 * outside the unit cube or the dimensions tabulated: cubature_ref.h, f2 and f4 in dims 4..8). */
double cub_exact(const struct cub_fn *fn, double a, double b);

/* Genz's families with their drawn c and w as the expression language's text into buf (cap
 * bytes), each written as the C source of cub_f_body computes it (the same operations in the
 * same order), numbers in %.17g; returns 0, or -1 for another integrand or when it does not
 * fit. */
int cub_fn_expression(const struct cub_fn *fn, char *buf, size_t cap);

/* The built-in integrand fn at x (fn->dim coordinates) in double, or in float (x rounded to
 * float first) where single is 1. */
double cub_fn_at(const struct cub_fn *fn, const double *x, int single);

#endif
