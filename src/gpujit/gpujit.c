/* gpujit.c - the run-time GPU compiler of user integrands (gpujit.h): NVRTC and nvJitLink
 * through dlopen, the build of one cubin, and the caller's cache of cubins and kernels. Built
 * in GPU builds only (gpujit_none.c stands in without CUDA).
 * One file, over 600 lines: the dlopen'd NVRTC and nvJitLink entry points are this file's
 * statics, shared by the build and the cache that calls it. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <nvJitLink.h>
#include <nvrtc.h>

#include "load.h"
#include "gpujit.h"

/* The CUDA version that built quadx's kernels: their LTO-IR links only with an nvJitLink of the
 * same major version and at least this minor one, and NVRTC must be of the same major. */
#define BUILD_MAJOR (CUDA_VERSION / 1000)
#define BUILD_MINOR (CUDA_VERSION % 1000 / 10)

/* The NVRTC and nvJitLink functions used, typed as the headers declare them. nvJitLink's
 * header maps each name to a versioned symbol (__nvJitLinkCreate_13_0): those are resolved, so
 * an older library fails at load rather than at run. */
struct jit_api {
	void *nvrtc, *nvjitlink; /* dlopen handles */
	char nvrtc_path[256], nvjitlink_path[256];
	int rtc_major, rtc_minor;
	unsigned link_major, link_minor;
	__typeof__(&nvrtcVersion) rtc_version;
	__typeof__(&nvrtcGetErrorString) rtc_error;
	__typeof__(&nvrtcCreateProgram) rtc_create;
	__typeof__(&nvrtcCompileProgram) rtc_compile;
	__typeof__(&nvrtcGetProgramLogSize) rtc_log_size;
	__typeof__(&nvrtcGetProgramLog) rtc_log;
	__typeof__(&nvrtcGetLTOIRSize) rtc_ltoir_size;
	__typeof__(&nvrtcGetLTOIR) rtc_ltoir;
	__typeof__(&nvrtcDestroyProgram) rtc_destroy;
	__typeof__(&nvJitLinkVersion) link_version;
	__typeof__(&nvJitLinkCreate) link_create;
	__typeof__(&nvJitLinkAddData) link_add;
	__typeof__(&nvJitLinkComplete) link_complete;
	__typeof__(&nvJitLinkGetLinkedCubinSize) link_cubin_size;
	__typeof__(&nvJitLinkGetLinkedCubin) link_cubin;
	__typeof__(&nvJitLinkGetErrorLogSize) link_log_size;
	__typeof__(&nvJitLinkGetErrorLog) link_log;
	__typeof__(&nvJitLinkDestroy) link_destroy;
};

static struct jit_api api;
static int api_ok;
static pthread_mutex_t api_lock = PTHREAD_MUTEX_INITIALIZER;

/* Resolves name in lib into *fn (a function pointer's storage); returns 0, or -1 with the
 * symbol and library in e. */
static int resolve(void *lib, const char *path, const char *name, void *fn, struct qx_err *e)
{
	void *sym = dlsym(lib, name);
	if (!sym)
		return qx_fail(e, "%s lacks %s", path, name);
	memcpy(fn, &sym, sizeof sym);
	return 0;
}

/* Resolves the NVRTC functions from the open lib and checks its version against the build's;
 * returns 0, or -1 with the reason in e. */
static int bind_nvrtc(void *lib, const char *path, struct qx_err *e)
{
	if (resolve(lib, path, "nvrtcVersion", &api.rtc_version, e) ||
	    resolve(lib, path, "nvrtcGetErrorString", &api.rtc_error, e) ||
	    resolve(lib, path, "nvrtcCreateProgram", &api.rtc_create, e) ||
	    resolve(lib, path, "nvrtcCompileProgram", &api.rtc_compile, e) ||
	    resolve(lib, path, "nvrtcGetProgramLogSize", &api.rtc_log_size, e) ||
	    resolve(lib, path, "nvrtcGetProgramLog", &api.rtc_log, e) ||
	    resolve(lib, path, "nvrtcGetLTOIRSize", &api.rtc_ltoir_size, e) ||
	    resolve(lib, path, "nvrtcGetLTOIR", &api.rtc_ltoir, e) ||
	    resolve(lib, path, "nvrtcDestroyProgram", &api.rtc_destroy, e))
		return -1;
	if (api.rtc_version(&api.rtc_major, &api.rtc_minor) != NVRTC_SUCCESS)
		return qx_fail(e, "%s: nvrtcVersion failed", path);
	if (api.rtc_major != BUILD_MAJOR)
		return qx_fail(e, "%s is NVRTC %d.%d; quadx's kernels were built by CUDA %d.%d",
		               path, api.rtc_major, api.rtc_minor, BUILD_MAJOR, BUILD_MINOR);
	return 0;
}

/* Resolves the nvJitLink functions from the open lib and checks its version; returns 0, or -1
 * with the reason in e. Each is looked up by the versioned name that the header's inline
 * wrapper calls (__nvJitLinkCreate_13_0), else by its plain name; the version check then
 * refuses a library older than the build. */
static int bind_nvjitlink(void *lib, const char *path, struct qx_err *e)
{
	static const char *const base[] = {
	    "Create",         "AddData",         "Complete",    "GetLinkedCubinSize",
	    "GetLinkedCubin", "GetErrorLogSize", "GetErrorLog", "Destroy",
	};
	void *const slots[] = {
	    &api.link_create, &api.link_add,      &api.link_complete, &api.link_cubin_size,
	    &api.link_cubin,  &api.link_log_size, &api.link_log,      &api.link_destroy,
	};
	char name[96];
	for (size_t i = 0; i < sizeof base / sizeof *base; i++) {
		snprintf(name, sizeof name, "__nvJitLink%s_%d_%d", base[i], BUILD_MAJOR,
		         BUILD_MINOR);
		if (dlsym(lib, name) == NULL)
			snprintf(name, sizeof name, "nvJitLink%s", base[i]);
		if (resolve(lib, path, name, slots[i], e))
			return -1;
	}
	if (resolve(lib, path, "nvJitLinkVersion", &api.link_version, e))
		return -1;
	if (api.link_version(&api.link_major, &api.link_minor) != NVJITLINK_SUCCESS)
		return qx_fail(e, "%s: nvJitLinkVersion failed", path);
	if ((int)api.link_major != BUILD_MAJOR || (int)api.link_minor < BUILD_MINOR)
		return qx_fail(
		    e, "%s is nvJitLink %u.%u; quadx's kernels need %d.%d or a later %d.x", path,
		    api.link_major, api.link_minor, BUILD_MAJOR, BUILD_MINOR, BUILD_MAJOR);
	return 0;
}

/* Opens the first of the candidate files of library stem (e.g. "libnvrtc") that loads and
 * binds: the file named by the environment variable env when set, else stem.so.MAJOR and
 * stem.so on the library path, then under $CUDA_HOME/lib64 and /usr/local/cuda/lib64. Returns
 * the handle with its path in path[256], or NULL with the last reason in e ("not found" when
 * no candidate exists; dlopen's message for the file the variable names). */
static void *open_lib(const char *stem, const char *env,
                      int (*bind)(void *, const char *, struct qx_err *), char *path,
                      struct qx_err *e)
{
	const char *dirs[] = {"", getenv("CUDA_HOME"), "/usr/local/cuda"};
	char cand[8][256];
	int ncand = 0;
	const char *forced = getenv(env);
	if (forced && *forced) {
		snprintf(cand[ncand++], sizeof cand[0], "%s", forced);
	} else {
		for (size_t d = 0; d < sizeof dirs / sizeof *dirs; d++) {
			if (!dirs[d] || (d > 0 && !*dirs[d]))
				continue;
			const char *sep = *dirs[d] ? "/lib64/" : "";
			snprintf(cand[ncand++], sizeof cand[0], "%s%s%s.so.%d", dirs[d], sep, stem,
			         BUILD_MAJOR);
			snprintf(cand[ncand++], sizeof cand[0], "%s%s%s.so", dirs[d], sep, stem);
		}
	}
	qx_fail(e, "not found on the library path, in $CUDA_HOME/lib64 or /usr/local/cuda/lib64");
	for (int i = 0; i < ncand; i++) {
		void *lib = dlopen(cand[i], RTLD_NOW | RTLD_LOCAL);
		if (!lib && forced && *forced)
			qx_fail(e, "%s (named by %s) cannot be loaded: %s", forced, env, dlerror());
		if (!lib)
			continue;
		if (bind(lib, cand[i], e) == 0) {
			snprintf(path, 256, "%s", cand[i]);
			return lib;
		}
		dlclose(lib);
	}
	return NULL;
}

/* Loads both libraries once for the process (a failure is tried again at the next call);
 * returns 0, or -1 with the reason and the install hint in e. */
static int load_api(struct qx_err *e)
{
	struct qx_err why;
	int rc = 0;
	pthread_mutex_lock(&api_lock);
	if (api_ok)
		goto out;
	api.nvrtc = open_lib("libnvrtc", "QUADX_NVRTC", bind_nvrtc, api.nvrtc_path, &why);
	if (!api.nvrtc) {
		rc = qx_fail(
		    e,
		    "GPU integrands are unavailable: NVRTC %d.x (libnvrtc.so.%d), the CUDA "
		    "runtime compiler: %s; install it (NVIDIA's package cuda-nvrtc-%d-%d or "
		    "the CUDA toolkit) or name the file in QUADX_NVRTC",
		    BUILD_MAJOR, BUILD_MAJOR, why.msg, BUILD_MAJOR, BUILD_MINOR);
		goto out;
	}
	api.nvjitlink =
	    open_lib("libnvJitLink", "QUADX_NVJITLINK", bind_nvjitlink, api.nvjitlink_path, &why);
	if (!api.nvjitlink) {
		dlclose(api.nvrtc);
		api.nvrtc = NULL;
		rc = qx_fail(
		    e,
		    "GPU integrands are unavailable: nvJitLink %d.%d or later %d.x "
		    "(libnvJitLink.so.%d), the CUDA device linker: %s; install it (NVIDIA's "
		    "package libnvjitlink-%d-%d or the CUDA toolkit) or name the file in "
		    "QUADX_NVJITLINK",
		    BUILD_MAJOR, BUILD_MINOR, BUILD_MAJOR, BUILD_MAJOR, why.msg, BUILD_MAJOR,
		    BUILD_MINOR);
		goto out;
	}
	if (api.link_minor < (unsigned)api.rtc_minor) {
		dlclose(api.nvrtc);
		dlclose(api.nvjitlink);
		api.nvrtc = api.nvjitlink = NULL;
		rc =
		    qx_fail(e,
		            "GPU integrands are unavailable: %s is NVRTC %d.%d but %s is nvJitLink "
		            "%u.%u, too old to link its output; install matching versions",
		            api.nvrtc_path, api.rtc_major, api.rtc_minor, api.nvjitlink_path,
		            api.link_major, api.link_minor);
		goto out;
	}
	api_ok = 1;
out:
	pthread_mutex_unlock(&api_lock);
	return rc;
}

/* Loads NVRTC and nvJitLink (once); 0 when both are usable. */
int gpujit_available(struct qx_err *e)
{
	return load_api(e);
}

/* Copies the first lines of a compiler's log into out[len] on one line: leading blanks and the
 * lines that only hold a caret or are empty are dropped, the rest joined with " | ". */
static void log_head(const char *log, char *out, size_t len)
{
	size_t o = 0;
	out[0] = '\0';
	while (*log && o + 1 < len) {
		const char *end = strchr(log, '\n');
		size_t n = end ? (size_t)(end - log) : strlen(log);
		const char *s = log;
		while (n && (*s == ' ' || *s == '\t')) {
			s++;
			n--;
		}
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\r' || s[n - 1] == '\t'))
			n--;
		if (n && !(n == 1 && *s == '^')) {
			int w = snprintf(out + o, len - o, "%s%.*s", o ? " | " : "", (int)n, s);
			o = w < 0 ? o : o + (size_t)w >= len ? len - 1 : o + (size_t)w;
		}
		log = end ? end + 1 : log + strlen(log);
	}
}

/* Compiles src with NVRTC for compute_<arch> to LTO-IR, malloc'd into *ir of *n bytes, with
 * --fmad=false under GPUJIT_NO_FMAD in flags; returns 0, or -1 with NVRTC's error and its
 * log's first lines in e. */
static int compile_ltoir(const char *src, int arch, unsigned flags, char **ir, size_t *n,
                         struct qx_err *e)
{
	nvrtcProgram prog;
	char archopt[48], head[400];
	const char *opts[] = {archopt, "-dlto", "-std=c++17", "-default-device", "--fmad=true"};
	snprintf(archopt, sizeof archopt, "--gpu-architecture=compute_%d", arch);
	if (flags & GPUJIT_NO_FMAD)
		opts[4] = "--fmad=false";
	nvrtcResult r = api.rtc_create(&prog, src, "integrand.cu", 0, NULL, NULL);
	if (r != NVRTC_SUCCESS)
		return qx_fail(e, "NVRTC: nvrtcCreateProgram: %s", api.rtc_error(r));
	r = api.rtc_compile(prog, (int)(sizeof opts / sizeof *opts), opts);
	if (r != NVRTC_SUCCESS) {
		size_t logn = 0;
		char *log = NULL;
		head[0] = '\0';
		if (api.rtc_log_size(prog, &logn) == NVRTC_SUCCESS && logn > 1 &&
		    (log = malloc(logn)) && api.rtc_log(prog, log) == NVRTC_SUCCESS)
			log_head(log, head, sizeof head);
		free(log);
		api.rtc_destroy(&prog);
		return qx_fail(e, "NVRTC could not compile the integrand for compute_%d (%s): %s",
		               arch, api.rtc_error(r), head[0] ? head : "no log");
	}
	*ir = NULL;
	r = api.rtc_ltoir_size(prog, n);
	if (r == NVRTC_SUCCESS && !(*ir = malloc(*n ? *n : 1))) {
		api.rtc_destroy(&prog);
		return qx_fail(e, "NVRTC: out of memory for %zu bytes of LTO-IR", *n);
	}
	if (r == NVRTC_SUCCESS)
		r = api.rtc_ltoir(prog, *ir);
	api.rtc_destroy(&prog);
	if (r != NVRTC_SUCCESS) {
		free(*ir);
		*ir = NULL;
		return qx_fail(e, "NVRTC: nvrtcGetLTOIR: %s", api.rtc_error(r));
	}
	return 0;
}

/* Fails with what nvJitLink call failed, its result code and the error log's first lines;
 * destroys the handle. */
static int link_fail(nvJitLinkHandle *h, const char *what, int arch, nvJitLinkResult r,
                     struct qx_err *e)
{
	char head[400];
	size_t logn = 0;
	char *log = NULL;
	head[0] = '\0';
	if (*h && api.link_log_size(*h, &logn) == NVJITLINK_SUCCESS && logn > 1 &&
	    (log = malloc(logn)) && api.link_log(*h, log) == NVJITLINK_SUCCESS)
		log_head(log, head, sizeof head);
	free(log);
	if (*h)
		api.link_destroy(h);
	return qx_fail(e, "nvJitLink could not link the integrand for sm_%d (%s, error %d): %s",
	               arch, what, (int)r, head[0] ? head : "no log");
}

/* Links the LTO-IR ir[n] with kernels (a fatbin, may be NULL) for sm_<arch> with -lto -O3 and
 * the options of o into a malloc'd *cubin of *size bytes; returns 0, or -1 with nvJitLink's
 * log in e. */
static int link_cubin(const char *ir, size_t n, const void *kernels, size_t kernels_size, int arch,
                      const struct gpujit_opts *o, void **cubin, size_t *size, struct qx_err *e)
{
	nvJitLinkHandle h = NULL;
	char archopt[32];
	const int nopts = 4 + o->nkernels;
	const char **opts = malloc((size_t)nopts * sizeof *opts);
	char **used = calloc((size_t)o->nkernels + 1, sizeof *used);
	nvJitLinkResult r = NVJITLINK_SUCCESS;
	snprintf(archopt, sizeof archopt, "-arch=sm_%d", arch);
	for (int i = 0; used && i < o->nkernels; i++)
		if (asprintf(&used[i], "-kernels-used=%s", o->kernels[i]) < 0)
			used[i] = NULL;
	int ok = opts && used;
	for (int i = 0; ok && i < o->nkernels; i++)
		ok = used[i] != NULL;
	if (ok) {
		opts[0] = archopt;
		opts[1] = "-lto";
		opts[2] = "-O3";
		opts[3] = o->flags & GPUJIT_NO_FMAD ? "-fma=0" : "-fma=1";
		for (int i = 0; i < o->nkernels; i++)
			opts[4 + i] = used[i];
		r = api.link_create(&h, (uint32_t)nopts, opts);
	}
	for (int i = 0; used && i < o->nkernels; i++)
		free(used[i]);
	free(used);
	free(opts);
	if (!ok)
		return qx_fail(e, "nvJitLink: out of memory for its options");
	if (r != NVJITLINK_SUCCESS)
		return link_fail(&h, "nvJitLinkCreate", arch, r, e);
	r = api.link_add(h, NVJITLINK_INPUT_LTOIR, ir, n, "integrand");
	if (r != NVJITLINK_SUCCESS)
		return link_fail(&h, "the integrand's LTO-IR", arch, r, e);
	if (kernels && kernels_size) {
		r = api.link_add(h, NVJITLINK_INPUT_FATBIN, kernels, kernels_size, "kernels");
		if (r != NVJITLINK_SUCCESS)
			return link_fail(&h, "the kernels' fatbin", arch, r, e);
	}
	r = api.link_complete(h);
	if (r != NVJITLINK_SUCCESS)
		return link_fail(&h, "nvJitLinkComplete", arch, r, e);
	r = api.link_cubin_size(h, size);
	if (r != NVJITLINK_SUCCESS)
		return link_fail(&h, "nvJitLinkGetLinkedCubinSize", arch, r, e);
	if (!(*cubin = malloc(*size ? *size : 1))) {
		api.link_destroy(&h);
		return qx_fail(e, "nvJitLink: out of memory for a cubin of %zu bytes", *size);
	}
	r = api.link_cubin(h, *cubin);
	if (r != NVJITLINK_SUCCESS) {
		free(*cubin);
		*cubin = NULL;
		return link_fail(&h, "nvJitLinkGetLinkedCubin", arch, r, e);
	}
	api.link_destroy(&h);
	return 0;
}

/* Compiles then links, timing each step (the times of a failed step are not reported). */
int gpujit_build_opts(const char *src, int arch, const void *kernels_fatbin, size_t fatbin_size,
                      const struct gpujit_opts *o, void **cubin, size_t *size,
                      struct gpujit_times *t, struct qx_err *e)
{
	static const struct gpujit_opts none = {0, NULL, 0};
	char *ir;
	size_t irn;
	struct gpujit_times tt = {.cached = 0};
	if (!o)
		o = &none;
	if (o->nkernels < 0 || (o->nkernels > 0 && !o->kernels))
		return qx_fail(e, "gpujit: a kernel count without kernel names");
	if (!src || arch < 10 || arch > 9999)
		return qx_fail(e,
		               "gpujit: no source, or arch %d is not a compute capability (90 "
		               "for sm_90)",
		               arch);
	if (load_api(e))
		return -1;
	double t0 = qx_now_ms();
	if (compile_ltoir(src, arch, o->flags, &ir, &irn, e))
		return -1;
	double t1 = qx_now_ms();
	int rc = link_cubin(ir, irn, kernels_fatbin, fatbin_size, arch, o, cubin, size, e);
	free(ir);
	tt.compile_ms = t1 - t0;
	tt.link_ms = qx_now_ms() - t1;
	if (t)
		*t = tt;
	return rc;
}

/* Builds with no options. */
int gpujit_build(const char *src, int arch, const void *kernels_fatbin, size_t fatbin_size,
                 void **cubin, size_t *size, struct gpujit_times *t, struct qx_err *e)
{
	return gpujit_build_opts(src, arch, kernels_fatbin, fatbin_size, NULL, cubin, size, t, e);
}

/* One kernel of a loaded entry, resolved on the first request for its name. */
struct jit_kernel {
	char *name;
	void *kernel;
};

/* One cubin of the cache and, once loaded, its library and kernels. */
struct jit_entry {
	char *key;
	int arch;
	unsigned flags;
	char *used; /* the kernels kept, joined by newlines; "" for all */
	void *cubin;
	size_t size;
	void *lib; /* NULL until a request with kernels loads it */
	struct jit_kernel *kernels;
	int nkernels;
	double built[2]; /* NVRTC's and nvJitLink's milliseconds when it was built */
	struct jit_entry *next;
};

struct gpujit_cache {
	pthread_mutex_t lock;
	struct jit_entry *head;
};

/* Allocates an empty cache with its lock. */
struct gpujit_cache *gpujit_cache_new(void)
{
	struct gpujit_cache *c = calloc(1, sizeof *c);
	if (c)
		pthread_mutex_init(&c->lock, NULL);
	return c;
}

/* Unloads each entry's library, then frees the entries and the cache. */
void gpujit_cache_free(struct gpujit_cache *c)
{
	if (!c)
		return;
	for (struct jit_entry *x = c->head, *next; x; x = next) {
		next = x->next;
		gpujit_lib_unload(x->lib);
		for (int i = 0; i < x->nkernels; i++)
			free(x->kernels[i].name);
		free(x->kernels);
		free(x->cubin);
		free(x->used);
		free(x->key);
		free(x);
	}
	pthread_mutex_destroy(&c->lock);
	free(c);
}

/* Counts the entries and their cubins' bytes (zeros for NULL). */
void gpujit_cache_stats(struct gpujit_cache *c, int *count, size_t *bytes)
{
	*count = 0;
	*bytes = 0;
	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	for (const struct jit_entry *x = c->head; x; x = x->next) {
		(*count)++;
		*bytes += x->size;
	}
	pthread_mutex_unlock(&c->lock);
}

/* Returns names[0..n) joined by newlines ("" for none) in a malloc'd string, or NULL when out
 * of memory. */
static char *join_names(const char *const *names, int n)
{
	size_t len = 1;
	for (int i = 0; i < n; i++)
		len += strlen(names[i]) + 1;
	char *s = malloc(len), *p = s;
	for (int i = 0; s && i < n; i++)
		p += sprintf(p, "%s%s", i ? "\n" : "", names[i]);
	if (s)
		*p = '\0';
	return s;
}

/* Returns the entry of c built for key, arch, flags and the kernels used, or NULL. */
static struct jit_entry *find_entry(struct gpujit_cache *c, const char *key, int arch,
                                    unsigned flags, const char *used)
{
	for (struct jit_entry *x = c->head; x; x = x->next)
		if (x->arch == arch && x->flags == flags && strcmp(x->key, key) == 0 &&
		    strcmp(x->used, used) == 0)
			return x;
	return NULL;
}

/* Builds the cubin of key, arch, flags and the kernels names[0..n) (all when n = 0) into a new
 * entry outside any cache, taking used (their joined names); returns it, or NULL with e (used
 * freed). Called without the cache's lock, so that builds run side by side. */
static struct jit_entry *build_entry(const char *key, const char *src, int arch, const void *fatbin,
                                     size_t fatbin_size, unsigned flags, const char *const *names,
                                     int n, char *used, struct gpujit_times *t, struct qx_err *e)
{
	const struct gpujit_opts o = {flags, names, n};
	struct jit_entry *x = calloc(1, sizeof *x);
	if (!x || !(x->key = strdup(key))) {
		free(x);
		free(used);
		qx_fail(e, "gpujit: out of memory");
		return NULL;
	}
	if (gpujit_build_opts(src, arch, fatbin, fatbin_size, &o, &x->cubin, &x->size, t, e)) {
		free(x->key);
		free(x);
		free(used);
		return NULL;
	}
	x->arch = arch;
	x->flags = flags;
	x->used = used;
	x->built[0] = t->compile_ms;
	x->built[1] = t->link_ms;
	return x;
}

/* Frees an entry that no cache holds (never loaded). */
static void drop_entry(struct jit_entry *x)
{
	free(x->cubin);
	free(x->used);
	free(x->key);
	free(x);
}

/* Puts the kernel name of the loaded entry x into *kernel, resolving it on first use. */
static int entry_kernel(struct jit_entry *x, const char *name, void **kernel, struct qx_err *e)
{
	for (int i = 0; i < x->nkernels; i++)
		if (strcmp(x->kernels[i].name, name) == 0) {
			*kernel = x->kernels[i].kernel;
			return 0;
		}
	void *k;
	if (gpujit_lib_kernel(x->lib, name, &k, e))
		return -1;
	struct jit_kernel *more = realloc(x->kernels, (size_t)(x->nkernels + 1) * sizeof *more);
	char *copy = strdup(name);
	if (more)
		x->kernels = more;
	if (!more || !copy) {
		free(copy);
		return qx_fail(e, "gpujit: out of memory");
	}
	x->kernels[x->nkernels].name = copy;
	x->kernels[x->nkernels++].kernel = k;
	*kernel = k;
	return 0;
}

/* Finds the entry under the cache's lock, or builds it without the lock (two threads may then
 * build different entries at once; of two builds of one entry the first kept wins), then loads
 * it and resolves the kernels when asked for any; a failed load keeps the cubin, so a retry
 * compiles nothing. */
int gpujit_get_flags(struct gpujit_cache *c, const char *key, const char *src, int arch,
                     const void *kernels_fatbin, size_t fatbin_size, unsigned flags,
                     const char *const *names, int n, void **kernels, struct gpujit_times *t,
                     struct qx_err *e)
{
	struct gpujit_times tt = {.cached = 1};
	int rc = 0;
	if (!c || !key || n < 0 || (n > 0 && !names))
		return qx_fail(e, "gpujit: no cache, no key, or no kernel names");
	char *used = join_names(names, n);
	if (!used)
		return qx_fail(e, "gpujit: out of memory");
	pthread_mutex_lock(&c->lock);
	struct jit_entry *x = find_entry(c, key, arch, flags, used);
	pthread_mutex_unlock(&c->lock);
	if (x) {
		free(used);
	} else {
		struct jit_entry *built = build_entry(key, src, arch, kernels_fatbin, fatbin_size,
		                                      flags, names, n, used, &tt, e);
		tt.cached = 0;
		if (!built) {
			if (t)
				*t = tt;
			return -1;
		}
		pthread_mutex_lock(&c->lock);
		if ((x = find_entry(c, key, arch, flags, built->used))) {
			drop_entry(built);
		} else {
			built->next = c->head;
			c->head = x = built;
		}
		pthread_mutex_unlock(&c->lock);
	}
	tt.built_compile_ms = x->built[0];
	tt.built_link_ms = x->built[1];
	if (t)
		*t = tt;
	if (n == 0 || !kernels)
		return 0;
	pthread_mutex_lock(&c->lock);
	if (!x->lib && gpujit_lib_load(x->cubin, x->size, &x->lib, e)) {
		x->lib = NULL;
		rc = -1;
		goto out;
	}
	for (int i = 0; i < n && rc == 0; i++)
		rc = entry_kernel(x, names[i], &kernels[i], e);
out:
	pthread_mutex_unlock(&c->lock);
	return rc;
}

/* Gets with no build flags. */
int gpujit_get(struct gpujit_cache *c, const char *key, const char *src, int arch,
               const void *kernels_fatbin, size_t fatbin_size, const char *const *names, int n,
               void **kernels, struct gpujit_times *t, struct qx_err *e)
{
	return gpujit_get_flags(c, key, src, arch, kernels_fatbin, fatbin_size, 0, names, n,
	                        kernels, t, e);
}
