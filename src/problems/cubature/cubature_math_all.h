/* cubature_math_all.h - cubature_math.h's integrands in both precisions (cub_f_d and cub_f_f,
 * with their bodies), for every file that evaluates the built-in integrands, CPU or GPU. */
#ifndef QX_CUBATURE_MATH_ALL_H
#define QX_CUBATURE_MATH_ALL_H

#define CUB_REAL double
#define CUB_SUFFIX d
#define CUB_SUFFIX_IS_FLOAT 0
#include "cubature_math.h"
#undef CUB_REAL
#undef CUB_SUFFIX
#undef CUB_SUFFIX_IS_FLOAT
#define CUB_REAL float
#define CUB_SUFFIX f
#define CUB_SUFFIX_IS_FLOAT 1
#include "cubature_math.h"
#undef CUB_REAL
#undef CUB_SUFFIX
#undef CUB_SUFFIX_IS_FLOAT

#endif
