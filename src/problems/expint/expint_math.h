/* expint_math.h - the E_n(x) algorithms, written once for the CPU (C11) and the GPU (CUDA):
 * expint_fast_f/_d() and expint_coursework_f/_d() are pure functions of (n, x, iters) that
 * store E_n(x) in *out and return an enum expint_status. The CPU reference and the GPU
 * kernels include this header, so both run the same arithmetic. */
#ifndef QX_EXPINT_MATH_H
#define QX_EXPINT_MATH_H

#include <math.h>

#define QX_REAL double
#define QX_SUFFIX d
#define QX_SUFFIX_IS_FLOAT 0
#include "expint_math_tmpl.h"
#undef QX_REAL
#undef QX_SUFFIX
#undef QX_SUFFIX_IS_FLOAT

#define QX_REAL float
#define QX_SUFFIX f
#define QX_SUFFIX_IS_FLOAT 1
#include "expint_math_tmpl.h"
#undef QX_REAL
#undef QX_SUFFIX
#undef QX_SUFFIX_IS_FLOAT

#endif
