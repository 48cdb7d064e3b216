/* user_integrand.c - the user's integrand: parsed, mapped onto the unit cube, compiled and
 * cached (user_integrand.h). */
#include "user_integrand.h"

#include <math.h>
#include <pthread.h>
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
	out->nparams = u->nparams;
	for (int j = 0; j < u->nparams; j++)
		out->param[j] =
		    user_batch_slot(u, j) < 0 ? u->param_value[j] : NAN; /* a batch's: any */
	for (int i = 0; i < dim; i++) {
		double lo, hi;
		user_axis_bounds(u, i, a, b, &lo, &hi);
		out->lo[i] = lo;
		out->hi[i] = hi;
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
			if (lang == EXPR_C) /* the CPU integrates over the axis as it is */
				user_append(buf, len, cap, "\tx[%d] = t[%d];\n", i, i);
			else
				user_append(
				    buf, len, cap,
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

/* The body (expr_emit_in, over the axes' bounds and the parameters' values) and the wrapper
 * (none when bare), for one or both precisions. */
char *user_integrand_source(const struct user_integrand *ui, enum expr_lang lang,
                            enum qx_precision prec)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	const int both = lang == EXPR_C;
	/* a bare body's point is not on the box (longman's x runs to infinity): nothing is
	 * assumed of it */
	const struct expr_ranges ranges = {.nvars = ui->bare ? 0 : ui->dim,
	                                   .nparams = ui->nparams,
	                                   .lo = ui->lo,
	                                   .hi = ui->hi,
	                                   .param = ui->param};
	for (int q = both ? QX_FLOAT : (int)prec; q <= (both ? QX_DOUBLE : (int)prec); q++) {
		char name[16];
		snprintf(name, sizeof name, "qx_%s_%s", ui->bare ? "user" : "body",
		         q == QX_DOUBLE ? "d" : "f");
		char *body = expr_emit_in(ui->tree, lang, (enum qx_precision)q, name, &ranges);
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

/* One build of user_integrand_gpu_kernels beyond the first, on a thread of its own: only
 * built into the cache (no GPU call), loaded afterwards by the calling thread. */
struct user_build {
	struct gpujit_cache *c;
	const char *key, *src, *name;
	const void *fatbin;
	size_t size;
	int arch, rc;
	struct gpujit_times t;
	struct qx_err e;
};

static void *user_build_run(void *arg)
{
	struct user_build *b = arg;
	b->rc = gpujit_get(b->c, b->key, b->src, b->arch, b->fatbin, b->size, &b->name, 1, NULL,
	                   &b->t, &b->e);
	return NULL;
}

/* The cache key of kernel kind for the source src: the kind, then the source (the canonical
 * expression, dim, the axes' maps, the parameters' places, precision, the math chosen); NULL
 * when memory is out. */
static char *user_key(const char *kind, const char *src)
{
	const size_t n = strlen(kind) + strlen(src) + 2;
	char *key = malloc(n);
	if (key)
		snprintf(key, n, "%s\n%s", kind, src);
	return key;
}

/* Builds every kernel's entry side by side (the first on this thread, which also loads it),
 * then loads the others from the cache. */
int user_integrand_gpu_kernels(void **jit, const struct user_integrand *ui, enum qx_precision prec,
                               struct user_gpu_kernel *k, int n, struct user_compile_times *t,
                               struct qx_err *e)
{
	struct user_jit *j = user_jit_get(jit);
	struct user_build b[USER_GPU_KERNELS_MAX];
	pthread_t tid[USER_GPU_KERNELS_MAX];
	int started[USER_GPU_KERNELS_MAX] = {0}, arch, rc = 0;
	if (n < 1 || n > USER_GPU_KERNELS_MAX)
		return qx_fail(e, "user_integrand_gpu_kernels: 1..%d kernels, not %d",
		               USER_GPU_KERNELS_MAX, n);
	if (!j || (!j->gpu && !(j->gpu = gpujit_cache_new())))
		return qx_fail(e, "out of memory for the compiled integrands");
	if (gpujit_device_arch(&arch, e))
		return -1;
	char *src = user_integrand_source(ui, EXPR_CUDA, prec);
	if (!src)
		return qx_fail(e, "out of memory for the integrand's source");
	memset(b, 0, sizeof b);
	for (int i = 0; i < n; i++) {
		b[i] = (struct user_build){.c = j->gpu,
		                           .key = user_key(k[i].kind, src),
		                           .src = src,
		                           .name = k[i].name,
		                           .fatbin = k[i].fatbin,
		                           .size = k[i].size,
		                           .arch = arch};
		if (!b[i].key)
			rc = qx_fail(e, "out of memory for the integrand's source");
	}
	for (int i = 1; i < n && !rc; i++)
		started[i] = pthread_create(&tid[i], NULL, user_build_run, &b[i]) == 0;
	*t = (struct user_compile_times){0, 0, 1};
	for (int i = 0; i < n && !rc; i++) {
		struct gpujit_times gt = {.cached = 1};
		if (started[i]) {
			pthread_join(tid[i], NULL);
			started[i] = 0;
			if (b[i].rc) {
				rc = qx_fail(e, "%s", b[i].e.msg);
				break;
			}
		}
		rc = gpujit_get(j->gpu, b[i].key, src, arch, k[i].fatbin, k[i].size, &k[i].name, 1,
		                &k[i].kernel, &gt, e);
		const struct gpujit_times *built = i ? &b[i].t : &gt;
		t->compile_ms += built->built_compile_ms;
		t->link_ms += built->built_link_ms;
		t->cached &= built->cached;
	}
	for (int i = 1; i < n; i++)
		if (started[i])
			pthread_join(tid[i], NULL);
	for (int i = 0; i < n; i++)
		free((char *)b[i].key);
	free(src);
	return rc;
}

/* One kernel: user_integrand_gpu_kernels of one. */
int user_integrand_gpu(void **jit, const struct user_integrand *ui, enum qx_precision prec,
                       const char *kind, const void *fatbin, size_t size, const char *name,
                       void **kernel, struct user_compile_times *t, struct qx_err *e)
{
	struct user_gpu_kernel k = {kind, fatbin, size, name, NULL};
	if (user_integrand_gpu_kernels(jit, ui, prec, &k, 1, t, e))
		return -1;
	*kernel = k.kernel;
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

/* Compiles the body with a kernel that evaluates it at one point into a cache of its own,
 * runs it once on the GPU, and frees it. */
int user_integrand_eval_gpu(const struct user_integrand *ui, const struct user_defs *u,
                            const double *x, enum qx_precision prec, double *value,
                            struct qx_err *e)
{
	const char *T = prec == QX_DOUBLE ? "double" : "float", *S = prec == QX_DOUBLE ? "d" : "f";
	const char *name = "qx_eval";
	char *src = user_integrand_source(ui, EXPR_CUDA, prec);
	size_t len = src ? strlen(src) : 0, cap = len + 1;
	double data[USER_DATA_COUNT];
	void *kernel;
	int arch;
	user_append(&src, &len, &cap,
	            "extern \"C\" __global__ void qx_eval(const double *pt, const double *p, "
	            "double *out)\n{\n\t%s x[%d];\n\tfor (int i = 0; i < %d; i++)\n\t\tx[i] = "
	            "(%s)pt[i];\n\t*out = (double)qx_body_%s(x, p);\n}\n",
	            T, ui->dim, ui->dim, T, S);
	if (!src)
		return qx_fail(e, "out of memory for the integrand's source");
	struct gpujit_cache *c = gpujit_cache_new();
	int rc = -1;
	if (!c)
		qx_fail(e, "out of memory for the compiled integrand");
	else if (!gpujit_device_arch(&arch, e) &&
	         !gpujit_get(c, src, src, arch, NULL, 0, &name, 1, &kernel, NULL, e)) {
		user_integrand_data(ui, u, 0, 1, data);
		rc = gpujit_eval_point(kernel, x, ui->dim, data, USER_DATA_COUNT, value, e);
	}
	gpujit_cache_free(c);
	free(src);
	return rc;
}

/* Finite axes keep the user's bounds; infinite ones are mapped from [0, 1]. */
void user_integrand_cpu_box(const struct user_integrand *ui, double *lo, double *hi)
{
	for (int i = 0; i < ui->dim; i++) {
		const int finite = ui->map[i] == USER_FINITE;
		lo[i] = finite ? ui->lo[i] : 0;
		hi[i] = finite ? ui->hi[i] : 1;
	}
}
