/* kde_simd.h - the inner sums of kde_math.c's exact sums for a group of outputs at once, on the
 * widest vectors this CPU has: AVX-512 (16 floats, 8 doubles), else AVX2 + FMA (8 floats,
 * 4 doubles), both with SLEEF's 1-ulp exp and exp2; else scalar with libm. The samples are
 * walked in tiles that stay in the cache while every output of the group passes over them.
 * On x86-64 denormals are flushed to zero inside (terms below float's or double's smallest
 * normal count as 0), the caller's MXCSR restored after. */
#ifndef QX_KDE_SIMD_H
#define QX_KDE_SIMD_H

#include <stddef.h>

/* The instruction sets of the sums, slowest first. */
enum kde_isa { KDE_ISA_SCALAR, KDE_ISA_AVX2, KDE_ISA_AVX512 };

/* Most outputs one call of kde_simd_sums_d or kde_simd_sums_f computes. */
#define KDE_SIMD_GROUP 16

/* The widest instruction set this CPU runs and this build holds code for: KDE_ISA_AVX512 when
 * the CPU has AVX-512F, else KDE_ISA_AVX2 when it has AVX2 and FMA, else KDE_ISA_SCALAR
 * (always with a compiler other than gcc, or off x86-64). */
enum kde_isa kde_simd_best(void);

/* The name of an instruction set and its exp for tables and messages: "SLEEF AVX-512",
 * "SLEEF AVX2" or "libm scalar". */
const char *kde_isa_name(enum kde_isa isa);

/* sums[r] = sum_j exp(-sum_k ((p[k][r] - x[k][j]) sc[k])^2) for the m <= KDE_SIMD_GROUP outputs
 * r over n samples of dimension dim (1..3) in double, Neumaier-compensated per lane and across
 * tiles, on isa (at most kde_simd_best()). */
void kde_simd_sums_d(enum kde_isa isa, size_t n, int dim, const double *const *x, size_t m,
                     const double *const *p, const double *sc, double *sums);

/* sums[r] = sum_j exp2(-sum_k (p[k][r] - u[k][j])^2) for the m <= KDE_SIMD_GROUP outputs r over
 * n scaled float samples of dimension dim (1..3), on isa (at most kde_simd_best()): each lane
 * adds its terms in float over a run of 16 vectors, the runs' sums are added in double. */
void kde_simd_sums_f(enum kde_isa isa, size_t n, int dim, const float *const *u, size_t m,
                     const float *const *p, double *sums);

#endif
