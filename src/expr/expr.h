/* expr.h - the expression language of user integrands: a checked tree parsed from the text the
 * user typed, its canonical text, its C and CUDA source, and its compiled CPU code. */
#ifndef QX_EXPR_H
#define QX_EXPR_H

#include <stddef.h>

#include "../qx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The longest expression text accepted, in bytes; longer text is refused before parsing. */
#define EXPR_MAX_LEN 4096
/* The deepest nesting of parentheses, calls and unary operators the parser follows. */
#define EXPR_MAX_NEST 200
/* The tallest tree accepted (a chain such as 1+1+...+1 is as tall as it has operators), so
 * that every walk over the tree has a bounded depth. */
#define EXPR_MAX_HEIGHT 1000
/* The largest dim a scope may have. */
#define EXPR_MAX_DIM 4096

/* What names an expression may use: the axes x1..x<dim> (x, y, z also name x1..x3 where dim
 * allows), the extra variables (their values follow the axes in the point array: x[dim + k]) and
 * the user parameters (passed apart: p[j]). The names must be identifiers that no variable,
 * constant or function takes, each used once. */
struct expr_scope {
	int dim;
	const char *const *params;
	int nparams;
	const char *const *extra;
	int nextra;
};

struct expr; /* a checked tree */

/* Parses text against scope into a checked tree in *out. Returns 0, or -1 with one message in
 * e naming the column (1-based) and what was expected; *out is then NULL. */
int expr_parse(const char *text, const struct expr_scope *scope, struct expr **out,
               struct qx_err *e);

/* Returns 1 when name is a variable x, y, z, x1..x16, a constant or a function of the language,
 * so that no user parameter may take it; else 0. */
int expr_name_reserved(const char *name);

/* Frees a tree (NULL is fine). */
void expr_free(struct expr *x);

/* Writes the canonical text of x into buf: no spaces, x1..xD for the axes, sum and prod
 * indices named by nesting level (i, j, l, ... as the scope leaves free), the fewest
 * parentheses, numbers in their shortest exact form; equal trees give equal text, and the text
 * parses back to the same tree. Parameters print by name, so two scopes that order them
 * differently share a canonical text but not a compiled function. Returns 0, or -1 when it does
 * not fit in cap bytes (or memory runs out). */
int expr_canonical(const struct expr *x, char *buf, size_t cap);

/* Returns the canonical text of x in a malloc'd string, NULL when out of memory. */
char *expr_canonical_dup(const struct expr *x);

/* Returns 1 when parameter j appears in x, 0 when it does not. */
int expr_uses_param(const struct expr *x, int j);

/* Returns the dim of the scope x was parsed in. */
int expr_dim(const struct expr *x);

enum expr_lang { EXPR_C, EXPR_CUDA };

/* What the emitted code may assume of its inputs: point coordinate k lies in [lo[k], hi[k]]
 * (k < nvars; infinite bounds allowed), parameter j is param[j] (j < nparams). Anything not
 * given is taken as unbounded. */
struct expr_ranges {
	int nvars, nparams;
	const double *lo, *hi, *param;
};

/* Returns the source of `T name(const T *x, const double *p)` computing x, T being float or
 * double: for C a function with external linkage after `#include <math.h>`, for CUDA an
 * `extern "C" __device__` function with no #include (NVRTC has the math functions built in).
 * x holds the point (dim coordinates then the extras), p the parameters in scope order.
 * In double, asin and every cos and sin whose argument stays within QX_REDUCED_LIMIT / 2 over
 * r (NULL: nothing known) are the branch-free functions of reduced_math.h, whose text then
 * comes first: the built-in integrands' arithmetic. A source made with r holds only while r
 * does, so a caller keys what it compiles by the source. Returns a malloc'd string, NULL when
 * out of memory. */
char *expr_emit_in(const struct expr *x, enum expr_lang lang, enum qx_precision prec,
                   const char *name, const struct expr_ranges *r);

/* expr_emit_in with nothing known of the inputs. */
char *expr_emit(const struct expr *x, enum expr_lang lang, enum qx_precision prec,
                const char *name);

/* The names of the two functions of expr_emit_unit. */
#define EXPR_CPU_NAME_D "qx_expr_d"
#define EXPR_CPU_NAME_F "qx_expr_f"

/* Returns a C translation unit that defines both precisions' functions, EXPR_CPU_NAME_D and
 * EXPR_CPU_NAME_F, as a shared object exports them (as expr_emit writes them); malloc'd, NULL
 * when out of memory. */
char *expr_emit_unit(const struct expr *x);

/* A compiled integrand: both precisions' functions, how long this call took to get them
 * (compile and load, or only the lookup when cached) and whether the cache had them. The
 * functions stay valid until the cache they came from is freed. */
struct expr_cpu_fn {
	double (*d)(const double *x, const double *p);
	float (*f)(const float *x, const double *p);
	double compile_ms;
	int cached;
	double build_ms; /* what compiling and loading took when the cache's entry was built */
};

/* The most compiled integrands one cache holds. */
#define EXPR_JIT_CACHE_MAX 256

struct expr_jit_cache; /* caller-owned, used by one thread at a time */

/* Returns an empty cache, NULL when out of memory. */
struct expr_jit_cache *expr_jit_cache_new(void);

/* Unloads every shared object of c and frees it (NULL is fine). */
void expr_jit_cache_free(struct expr_jit_cache *c);

/* Returns how many compiled integrands c holds. */
int expr_jit_cache_count(const struct expr_jit_cache *c);

/* Compiles the C translation unit src (or finds it in c) and loads its functions name_d and
 * name_f into out, as expr_cpu_compile does for an expression's own unit: for a caller that
 * adds code of its own around expr_emit's functions. Returns 0, or -1 with the reason in e. */
int expr_cpu_compile_source(struct expr_jit_cache *c, const char *src, const char *name_d,
                            const char *name_f, struct expr_cpu_fn *out, struct qx_err *e);

/* Compiles x for the CPU with the system C compiler ($QUADX_CC, else cc on PATH) into a shared
 * object and loads it, or finds it in c when the same source was compiled before: the key is
 * the emitted source, which holds the canonical form, the dim and the parameters' places, for
 * both precisions. No file is left behind. A cancel request (qx_cancelled) stops the compiler.
 * Returns 0 with out filled, or -1 with the reason in e. */
int expr_cpu_compile(struct expr_jit_cache *c, const struct expr *x, struct expr_cpu_fn *out,
                     struct qx_err *e);

#ifdef __cplusplus
}
#endif

#endif
