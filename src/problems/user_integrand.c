/* user_integrand.c - the user's integrand: parsed, mapped onto the unit cube, compiled and
 * cached (user_integrand.h). */
#include "user_integrand.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gpujit/gpujit.h"
#include "../problem.h"

/* The session's compiled code: the CPU's shared objects and the GPU's modules. */
struct user_jit {
	struct expr_jit_cache *cpu;
	struct gpujit_cache *gpu;
};

/* The session's jit (created on first use), or NULL when memory is out. */
static struct user_jit *user_jit_get(void **jit)
{
	struct user_jit *j = *jit;
	if (!j && (j = calloc(1, sizeof *j)))
		*jit = j;
	return j;
}

/* Frees what user_jit_get made. */
void problem_jit_free(void *jit)
{
	struct user_jit *j = jit;
	if (!j)
		return;
	if (j->cpu)
		expr_jit_cache_free(j->cpu);
	if (j->gpu)
		gpujit_cache_free(j->gpu);
	free(j);
}

/* The names no user parameter may take: the language's. */
int problem_name_reserved(const char *name)
{
	return expr_name_reserved(name);
}

/* Parses and maps. */
int user_integrand_parse(const char *text, int dim, const char *const *extra, int nextra,
                         const struct user_defs *u, double a, double b, struct user_integrand *out,
                         struct qx_err *e)
{
	const char *params[USER_MAX_PARAMS];
	for (int j = 0; j < u->nparams; j++)
		params[j] = u->param_name[j];
	const struct expr_scope scope = {
	    .dim = dim, .params = params, .nparams = u->nparams, .extra = extra, .nextra = nextra};
	memset(out, 0, sizeof *out);
	if (u->nbounds > 1 && u->nbounds != dim)
		return qx_fail(e,
		               "the bounds give %d axes but dim is %d: set one LO:HI pair for "
		               "every axis, or one an axis",
		               u->nbounds, dim);
	if (expr_parse(text, &scope, &out->tree, e))
		return -1;
	if (expr_canonical(out->tree, out->canonical, sizeof out->canonical)) {
		user_integrand_free(out);
		return qx_fail(e, "the expression is too long once written out: at most %d bytes",
		               PARAM_EXPR_MAX);
	}
	out->dim = dim;
	for (int i = 0; i < dim; i++) {
		double lo, hi;
		user_axis_bounds(u, i, a, b, &lo, &hi);
		out->map[i] = isinf(lo) ? (isinf(hi) ? USER_BOTH_INF : USER_LOWER_INF)
		                        : (isinf(hi) ? USER_UPPER_INF : USER_FINITE);
	}
	return 0;
}

/* Frees the tree. */
void user_integrand_free(struct user_integrand *ui)
{
	if (ui->tree)
		expr_free(ui->tree);
	ui->tree = NULL;
}

/* Parameters, then bounds. */
void user_integrand_data(const struct user_integrand *ui, const struct user_defs *u, double a,
                         double b, double *data)
{
	memset(data, 0, USER_DATA_COUNT * sizeof *data);
	for (int j = 0; j < u->nparams; j++)
		data[j] = u->param_value[j];
	for (int i = 0; i < ui->dim; i++) {
		double lo, hi;
		user_axis_bounds(u, i, a, b, &lo, &hi);
		data[USER_DATA_BOUNDS + 2 * i] = isinf(lo) ? 0 : lo;
		data[USER_DATA_BOUNDS + 2 * i + 1] = isinf(hi) ? 0 : hi;
	}
}

/* A growing string: appends printf output to *buf (cap *cap, length *len); returns 0, or -1
 * once memory is out (then *buf is freed and NULL). */
static int user_append(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int user_append(char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
	va_list ap;
	if (!*buf)
		return -1;
	for (;;) {
		va_start(ap, fmt);
		const int n = vsnprintf(*buf + *len, *cap - *len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			free(*buf);
			*buf = NULL;
			return -1;
		}
		if ((size_t)n < *cap - *len) {
			*len += (size_t)n;
			return 0;
		}
		char *more = realloc(*buf, *cap * 2 + (size_t)n);
		if (!more) {
			free(*buf);
			*buf = NULL;
			return -1;
		}
		*buf = more;
		*cap = *cap * 2 + (size_t)n;
	}
}

/* Appends the wrapper qx_user_S of precision prec: each coordinate mapped from t, the
 * Jacobian's product, the body qx_body_S at the mapped point times it (0 where the body is 0,
 * so that a body that vanishes where the map runs to infinity gives 0, not 0 * inf). */
static void user_wrapper(char **buf, size_t *len, size_t *cap, const struct user_integrand *ui,
                         enum expr_lang lang, enum qx_precision prec)
{
	const char *T = prec == QX_DOUBLE ? "double" : "float", *S = prec == QX_DOUBLE ? "d" : "f";
	const int lo = USER_DATA_BOUNDS;
	user_append(buf, len, cap, "%s%s qx_user_%s(const %s *t, const double *p)\n{\n",
	            lang == EXPR_CUDA ? "extern \"C\" __device__ " : "", T, S, T);
	user_append(buf, len, cap, "\t%s x[%d];\n\t%s jac = 1;\n", T, ui->dim, T);
	for (int i = 0; i < ui->dim; i++) {
		const int l = lo + 2 * i, h = lo + 2 * i + 1;
		switch (ui->map[i]) {
		case USER_FINITE:
			user_append(buf, len, cap,
			            "\tx[%d] = (%s)p[%d] + ((%s)p[%d] - (%s)p[%d]) * t[%d];\n"
			            "\tjac *= (%s)p[%d] - (%s)p[%d];\n",
			            i, T, l, T, h, T, l, i, T, h, T, l);
			break;
		case USER_UPPER_INF:
			user_append(
			    buf, len, cap,
			    "\t{\n\t\tconst %s s = 1 - t[%d];\n\t\tx[%d] = (%s)p[%d] + t[%d] / "
			    "s;\n\t\tjac *= 1 / (s * s);\n\t}\n",
			    T, i, i, T, l, i);
			break;
		case USER_LOWER_INF:
			user_append(buf, len, cap,
			            "\tx[%d] = (%s)p[%d] - (1 - t[%d]) / t[%d];\n"
			            "\tjac *= 1 / (t[%d] * t[%d]);\n",
			            i, T, h, i, i, i, i);
			break;
		case USER_BOTH_INF:
			user_append(
			    buf, len, cap,
			    "\t{\n\t\tconst %s u = 2 * t[%d] - 1, w = 1 - u * u;\n\t\tx[%d] = u "
			    "/ w;\n\t\tjac *= 2 * (1 + u * u) / (w * w);\n\t}\n",
			    T, i, i);
			break;
		}
	}
	user_append(buf, len, cap,
	            "\tconst %s v = qx_body_%s(x, p);\n\treturn v == 0 ? 0 : v * jac;\n}\n", T, S);
}

/* The body (expr_emit) and the wrapper (none when bare), for one or both precisions. */
char *user_integrand_source(const struct user_integrand *ui, enum expr_lang lang,
                            enum qx_precision prec)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	const int both = lang == EXPR_C;
	for (int q = both ? QX_FLOAT : (int)prec; q <= (both ? QX_DOUBLE : (int)prec); q++) {
		char name[16];
		snprintf(name, sizeof name, "qx_%s_%s", ui->bare ? "user" : "body",
		         q == QX_DOUBLE ? "d" : "f");
		char *body = expr_emit(ui->tree, lang, (enum qx_precision)q, name);
		if (!body) {
			free(buf);
			return NULL;
		}
		user_append(&buf, &len, &cap, "%s\n", body);
		free(body);
		if (!ui->bare)
			user_wrapper(&buf, &len, &cap, ui, lang, (enum qx_precision)q);
	}
	return buf;
}

/* Compiles (or finds) the C source of both precisions. */
int user_integrand_cpu(void **jit, const struct user_integrand *ui,
                       double (**fd)(const double *, const double *),
                       float (**ff)(const float *, const double *), struct user_compile_times *t,
                       struct qx_err *e)
{
	struct user_jit *j = user_jit_get(jit);
	if (!j || (!j->cpu && !(j->cpu = expr_jit_cache_new())))
		return qx_fail(e, "out of memory for the compiled integrands");
	char *src = user_integrand_source(ui, EXPR_C, QX_DOUBLE);
	if (!src)
		return qx_fail(e, "out of memory for the integrand's source");
	struct expr_cpu_fn fn;
	const int rc = expr_cpu_compile_source(j->cpu, src, "qx_user_d", "qx_user_f", &fn, e);
	free(src);
	if (rc)
		return -1;
	*fd = fn.d;
	*ff = fn.f;
	*t = (struct user_compile_times){fn.build_ms, 0, fn.cached};
	return 0;
}

/* Compiles (or finds) the CUDA source of prec and links it with the kernel's fatbin. */
int user_integrand_gpu(void **jit, const struct user_integrand *ui, enum qx_precision prec,
                       const char *kind, const void *fatbin, size_t size, const char *name,
                       void **kernel, struct user_compile_times *t, struct qx_err *e)
{
	struct user_jit *j = user_jit_get(jit);
	if (!j || (!j->gpu && !(j->gpu = gpujit_cache_new())))
		return qx_fail(e, "out of memory for the compiled integrands");
	int arch;
	if (gpujit_device_arch(&arch, e))
		return -1;
	/* the key: the kernel, then the source (the canonical expression, dim, the axes' maps and
	 * the parameters' places, precision) */
	char *src = user_integrand_source(ui, EXPR_CUDA, prec);
	const size_t n = src ? strlen(kind) + strlen(src) + 2 : 0;
	char *key = src ? malloc(n) : NULL;
	if (!key) {
		free(src);
		return qx_fail(e, "out of memory for the integrand's source");
	}
	snprintf(key, n, "%s\n%s", kind, src);
	struct gpujit_times gt = {0};
	const int rc = gpujit_get(j->gpu, key, src, arch, fatbin, size, &name, 1, kernel, &gt, e);
	free(key);
	free(src);
	if (rc)
		return -1;
	*t = (struct user_compile_times){gt.built_compile_ms, gt.built_link_ms, gt.cached};
	return 0;
}

/* Compiles the body alone into a cache of its own, evaluates it once, and frees it. */
int user_integrand_eval(const struct user_integrand *ui, const struct user_defs *u, const double *x,
                        enum qx_precision prec, double *value, struct qx_err *e)
{
	struct expr_jit_cache *c = expr_jit_cache_new();
	char *src = user_integrand_source(ui, EXPR_C, QX_DOUBLE);
	struct expr_cpu_fn fn;
	double data[USER_DATA_COUNT];
	int rc = -1;
	if (!c || !src)
		qx_fail(e, "out of memory for the integrand's source");
	else if (!(rc = expr_cpu_compile_source(c, src, ui->bare ? "qx_user_d" : "qx_body_d",
	                                        ui->bare ? "qx_user_f" : "qx_body_f", &fn, e))) {
		user_integrand_data(ui, u, 0, 1, data);
		if (prec == QX_DOUBLE) {
			*value = fn.d(x, data);
		} else {
			float xf[USER_MAX_AXES];
			for (int i = 0; i < ui->dim; i++)
				xf[i] = (float)x[i];
			*value = fn.f(xf, data);
		}
	}
	free(src);
	expr_jit_cache_free(c);
	return rc;
}
