/* longman_math_all.h - longman_math.h's precision-dependent functions in both precisions (the
 * _d and _f versions), for every C file of problem longman that evaluates them. */
#ifndef QX_LONGMAN_MATH_ALL_H
#define QX_LONGMAN_MATH_ALL_H

#define LM_REAL double
#define LM_SUFFIX d
#define LM_SUFFIX_IS_FLOAT 0
#include "longman_math.h"
#undef LM_REAL
#undef LM_SUFFIX
#undef LM_SUFFIX_IS_FLOAT
#define LM_REAL float
#define LM_SUFFIX f
#define LM_SUFFIX_IS_FLOAT 1
#include "longman_math.h"
#undef LM_REAL
#undef LM_SUFFIX
#undef LM_SUFFIX_IS_FLOAT

#endif
