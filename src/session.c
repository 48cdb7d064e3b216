/* session.c - session state: problems, parameters, settings, runs and the reference cache. */
#include "session.h"

#include "device.h"
#include "fault.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define MIB (1024.0 * 1024.0)

static const char *const precision_names[] = {"float", "double", NULL};
static const char *const gpus_words[] = {"all", NULL}; /* "all" is stored as QX_GPUS_ALL */

// clang-format off
const struct param_def settings_defs[S_COUNT] = {
    [S_PRECISION] = {.name = "precision", .type = PARAM_ENUM, .def = QX_FLOAT,
                     .choices = precision_names,
                     .help = "float or double, for the CPU and the GPU alike"},
    [S_BLOCK] = {.name = "block", .type = PARAM_INT, .min = 1, .max = 1024, .def = 256,
                 .backends = QX_ON_GPU, .help = "GPU threads per block"},
    [S_THREADS] = {.name = "threads", .type = PARAM_INT, .min = 1, .max = 1024, .def = 1,
                   .backends = QX_ON_CPU,
                   .help = "CPU threads (OpenMP); 1 is the seeds' serial baseline"},
    [S_VARIANT] = {.name = "variant", .type = PARAM_ENUM,
                   .help = "which implementation runs (see help variants); the first is the best"},
    [S_THRESHOLD] = {.name = "threshold", .type = PARAM_REAL, .min = 0, .max = 1,
                     .min_open = PARAM_MIN_OPEN, .def = 1e-5,
                     .help = "relative error above which a point is flagged"},
    [S_REPEAT] = {.name = "repeat", .type = PARAM_INT, .min = 1, .max = QX_MAX_REPEAT, .def = 5,
                  .help = "timed runs per run command; the median is reported"},
    [S_WARMUP] = {.name = "warmup", .type = PARAM_INT, .min = 0, .max = 100, .def = 1,
                  .help = "untimed runs before the timed ones"},
    [S_GPUS] = {.name = "gpus", .type = PARAM_INT, .min = 1, .max = QX_MAX_GPUS, .def = 1,
                .choices = gpus_words, .backends = QX_ON_GPU,
                .help = "GPUs a GPU run divides its work over; 1 is what the seeds' tables "
                        "measure"},
};
// clang-format on

/* Fills names[] with the variant names of p, NULL-terminated. */
static void variant_names(const struct problem *p, const char **names)
{
	size_t i;
	for (i = 0; i < p->nvariants && i < QX_MAX_VARIANTS; i++)
		names[i] = p->variants[i].name;
	names[i] = NULL;
}

/* Fills def with the setting's definition; for variant, names receives the choices. */
void session_setting_def(const struct session *s, enum setting which, struct param_def *def,
                         const char **names)
{
	*def = settings_defs[which];
	if (which == S_THREADS) /* more threads than QX_THREADS_PER_CPU per processor only spin */
		def->max = fmin(def->max, (double)QX_THREADS_PER_CPU * omp_get_num_procs());
	if (which == S_VARIANT) {
		variant_names(s->prob, names);
		def->choices = names;
	}
}

/* Returns a setting's value (the per-problem variant for S_VARIANT). */
double session_setting(const struct session *s, enum setting which)
{
	if (which == S_VARIANT)
		return s->variant[s->prob_index];
	return s->settings[which].num;
}

/* Sets every parameter and setting to its default, selects the first problem. */
void session_init(struct session *s)
{
	memset(s, 0, sizeof *s);
	for (int i = 0; qx_problems[i] && i < QX_MAX_PROBLEMS; i++) {
		for (size_t k = 0; k < qx_problems[i]->nparams; k++)
			s->params[i][k] = param_default(&qx_problems[i]->params[k]);
		for (size_t k = 0; k < qx_problems[i]->nsettings; k++)
			s->psettings[i][k] = param_default(&qx_problems[i]->settings[k]);
	}
	for (int k = 0; k < S_COUNT; k++)
		s->settings[k] = param_default(&settings_defs[k]);
	s->prob = qx_problems[0];
	s->cpu_serial.total_ms = s->cpu_threads.total_ms = NAN;
	user_defs_init(&s->user);
	s->texts = param_store_new(); /* NULL when out of memory: set then refuses a text */
	s->states = calloc(QX_MAX_PROBLEMS, sizeof *s->states);
}

/* The slot of p in s->states. */
void **session_state(const struct session *s, const struct problem *p)
{
	for (int i = 0; s->states && qx_problems[i] && i < QX_MAX_PROBLEMS; i++)
		if (qx_problems[i] == p)
			return &s->states[i];
	return NULL;
}

/* Releases the session's buffers, its store of texts last. */
void session_free(struct session *s)
{
	for (size_t i = 0; i < s->nruns; i++) {
		free(s->runs[i]->samples);
		free(s->runs[i]->chart);
		free(s->runs[i]->conv);
		free(s->runs[i]->gpu_med);
		free(s->runs[i]);
	}
	free(s->runs);
	free(s->sweep); /* one block with its rows (sweep_run) */
	free(s->cpu_values[0]);
	free(s->cpu_values[1]);
	free(s->estimates);
	free(s->ref);
	problem_jit_free(s->jit);
	s->jit = NULL;
	for (int i = 0; s->states && qx_problems[i] && i < QX_MAX_PROBLEMS; i++)
		if (s->states[i] && qx_problems[i]->state_free)
			qx_problems[i]->state_free(s->states[i]);
	free(s->states);
	s->states = NULL;
	s->runs = NULL;
	s->nruns = s->runs_cap = 0;
	s->sweep = NULL;
	s->last = NULL;
	s->cpu_values[0] = s->cpu_values[1] = s->ref = s->estimates = NULL;
	param_store_free(s->texts);
	s->texts = NULL;
}

/* Switches problem. */
int session_use(struct session *s, const char *name, struct qx_err *e)
{
	const struct problem *p = problem_find(name);
	if (!p) {
		char list[256] = "";
		for (int i = 0; qx_problems[i]; i++) {
			strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
			strncat(list, qx_problems[i]->name, sizeof list - strlen(list) - 1);
		}
		return qx_fail(e, "unknown problem '%.64s': problems are %s", name, list);
	}
	for (int i = 0; qx_problems[i]; i++)
		if (qx_problems[i] == p)
			s->prob_index = i;
	s->prob = p;
	return 0;
}

/* Writes "n=10 m=10 ..." for the parameters v of p. */
void session_params_string(const struct problem *p, const struct param_value *v, char *buf,
                           size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < p->nparams && used < len; k++) {
		char val[PARAM_TEXT_LEN];
		if (p->param_unused && p->param_unused(v, k))
			continue; /* what the run does not use is not said */
		param_format(&p->params[k], v[k], val, sizeof val);
		used += (size_t)snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "",
		                         p->params[k].name, val);
	}
}

/* Finds name among the problem's parameters, its settings and the session's settings. */
int session_find_name(const struct session *s, const char *name, struct param_def *def,
                      const char **names)
{
	const struct problem *p = s->prob;
	int k = param_find(p->params, p->nparams, name);
	if (k >= 0) {
		*def = p->params[k];
		return 1;
	}
	k = param_find(p->settings, p->nsettings, name);
	if (k >= 0) {
		*def = p->settings[k];
		return 1;
	}
	k = param_find(settings_defs, S_COUNT, name);
	if (k >= 0) {
		session_setting_def(s, (enum setting)k, def, names);
		return 1;
	}
	k = user_param_find(&s->user, name);
	if (k < 0)
		return 0;
	*def = (struct param_def){.name = s->user.param_name[k],
	                          .type = PARAM_REAL,
	                          .min = -1e300,
	                          .max = 1e300,
	                          .help = "a parameter of your integrand (set param)"};
	return 1;
}

/* Whether name is taken for a user's parameter: a name set already accepts (but the user's own
 * parameters) or one of the expression language's. */
static int session_name_taken(const char *name, const void *arg)
{
	const struct session *s = arg;
	struct param_def def;
	const char *names[QX_MAX_VARIANTS + 1];
	static const char *const words[] = {"param", "bounds", "exact", NULL};
	for (int i = 0; words[i]; i++)
		if (!strcmp(name, words[i]))
			return 1;
	if (user_param_find(&s->user, name) < 0 && session_find_name(s, name, &def, names))
		return 1;
	return problem_name_reserved(name);
}

/* Writes the names `set` accepts: parameters, the problem's settings, the session's. */
void session_names(const struct session *s, char *buf, size_t len)
{
	const struct problem *p = s->prob;
	size_t used = 0;
	buf[0] = '\0';
	for (size_t j = 0; j < p->nparams && used < len; j++)
		used += (size_t)snprintf(buf + used, len - used, "%s, ", p->params[j].name);
	for (size_t j = 0; j < p->nsettings && used < len; j++)
		used += (size_t)snprintf(buf + used, len - used, "%s, ", p->settings[j].name);
	if (p->user_integrand && used < len)
		used += (size_t)snprintf(buf + used, len - used, "param, bounds, exact, ");
	for (int j = 0; j < s->user.nparams && used < len; j++)
		used += (size_t)snprintf(buf + used, len - used, "%s, ", s->user.param_name[j]);
	for (int j = 0; j < S_COUNT && used < len; j++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", settings_defs[j].name,
		                         j + 1 < S_COUNT ? ", " : "");
}

/* Resolves gpus value v (1..QX_MAX_GPUS or QX_GPUS_ALL) against the visible devices into *n;
 * returns 0, or -1 with e: no GPU (and why), or more asked for than there are. */
static int gpus_resolve(double v, int *n, struct qx_err *e)
{
	int have = 0;
	struct qx_err why;
	char word[16];
	if (v == 1) {
		*n = 1;
		return 0;
	}
	snprintf(word, sizeof word, v == QX_GPUS_ALL ? "all" : "%d", (int)v);
	if (gpu_count(&have, &why))
		return qx_fail(e, "gpus %s refused: there is no GPU to divide the work over (%s)",
		               word, why.msg);
	if (v == QX_GPUS_ALL) {
		*n = have < QX_MAX_GPUS ? have : QX_MAX_GPUS;
		return 0;
	}
	if ((int)v > have)
		return qx_fail(e,
		               "gpus %d refused: this host has %d GPU%s (CUDA_VISIBLE_DEVICES "
		               "limits what quadx sees): expected 1..%d or all",
		               (int)v, have, have == 1 ? "" : "s", have);
	*n = (int)v;
	return 0;
}

/* The GPUs a GPU run uses now (see session.h). */
int session_gpus(const struct session *s, int *n, struct qx_err *e)
{
	return gpus_resolve(s->settings[S_GPUS].num, n, e);
}

/* Applies NAME VALUE pairs to copies, checks them together, then commits. */
int session_set(struct session *s, int argc, char **argv, struct qx_err *e)
{
	const struct problem *p = s->prob;
	struct param_value params[QX_MAX_PARAMS], settings[S_COUNT];
	struct param_value psettings[QX_MAX_PROBLEM_SETTINGS];
	int variant = s->variant[s->prob_index];
	struct user_defs user = s->user;
	/* an exact value belongs to one integral: a change of what defines it (the integrand, its
	 * box, dim or parameters) forgets it unless the same command gives a new one */
	static const char *const defining[] = {"integrand", "dim", "a", "b", NULL};
	int integral_changed = 0, exact_given = 0;

	memcpy(params, s->params[s->prob_index], sizeof params);
	memcpy(psettings, s->psettings[s->prob_index], sizeof psettings);
	memcpy(settings, s->settings, sizeof settings);
	for (int i = 0; i < argc; i += 2) {
		const char *name = argv[i], *word = i + 1 < argc ? argv[i + 1] : NULL;
		for (int d = 0; defining[d]; d++)
			integral_changed |= !strcmp(name, defining[d]);
		integral_changed |= !strcmp(name, "bounds") || !strcmp(name, "param") ||
		                    user_param_find(&user, name) >= 0;
		exact_given |= !strcmp(name, "exact");
		if (p->user_integrand && !strcmp(name, "bounds")) {
			int n = 0; /* the LO:HI words that follow */
			while (i + 1 + n < argc && strchr(argv[i + 1 + n], ':'))
				n++;
			if (user_bounds_parse(&user, n, argv + i + 1, e))
				return -1;
			i += n - 1;
			continue;
		}
		if (!word)
			return qx_fail(
			    e, "set: '%.64s' has no value (usage: set NAME VALUE [NAME VALUE...])",
			    name);
		if (p->user_integrand && !strcmp(name, "param")) {
			if (i + 2 >= argc)
				return qx_fail(e, "usage: set param NAME VALUE");
			if (user_param_define(&user, s->texts, argv[i + 1], argv[i + 2],
			                      session_name_taken, s, e))
				return -1;
			i++;
			continue;
		}
		if (p->user_integrand && !strcmp(name, "exact")) {
			if (user_exact_parse(&user, s->texts, word, e))
				return -1;
			continue;
		}
		int k = user_param_find(&user, name);
		if (k >= 0) {
			if (parse_real(word, &user.param_value[k]))
				return qx_fail(
				    e,
				    "bad value '%.64s' for parameter %s: expected a finite "
				    "number (many values: set param %s VALUES)",
				    word, name, name);
			user_param_single(&user, k);
			continue;
		}
		k = param_find(p->params, p->nparams, name);
		if (k >= 0) {
			if (param_parse_in(s->texts, &p->params[k], word, &params[k], e))
				return -1;
			continue;
		}
		k = param_find(p->settings, p->nsettings, name);
		if (k >= 0) {
			if (param_parse_in(s->texts, &p->settings[k], word, &psettings[k], e))
				return -1;
			continue;
		}
		k = param_find(settings_defs, S_COUNT, name);
		if (k < 0) {
			char names[512];
			session_names(s, names, sizeof names);
			return qx_fail(e, "unknown parameter '%.64s' for %s: names are %s", name,
			               p->name, names);
		}
		struct param_def def;
		const char *vnames[QX_MAX_VARIANTS + 1];
		session_setting_def(s, (enum setting)k, &def, vnames);
		struct param_value v;
		if (param_parse_in(s->texts, &def, word, &v, e))
			return -1;
		int ngpus;
		if (k == S_GPUS && gpus_resolve(v.num, &ngpus, e))
			return -1;
		if (k == S_VARIANT)
			variant = (int)v.num;
		else
			settings[k] = v;
	}
	if (integral_changed && !exact_given)
		user.exact = NAN;
	for (int i = 0; i < argc && p->param_unused; i += 2) { /* what has no effect is refused */
		const int k = param_find(p->params, p->nparams, argv[i]);
		const char *why = k >= 0 ? p->param_unused(params, (size_t)k) : NULL;
		if (why)
			return qx_fail(e, "set: %s has no effect: %s", p->params[k].name, why);
	}
	void **state = session_state(s, p);
	if (p->check && p->check(params, state, e))
		return -1;
	if (p->user_integrand && p->user_integrand(params, &user, e))
		return -1;
	if (p->gpu_block) {
		const struct run_request rq = {.params = params,
		                               .settings = psettings,
		                               .prec = (enum qx_precision)settings[S_PRECISION].num,
		                               .variant = variant,
		                               .block = (int)settings[S_BLOCK].num,
		                               .threads = (int)settings[S_THREADS].num,
		                               .state = state};
		if (p->gpu_block(&rq, e) < 0)
			return -1;
	}
	memcpy(s->params[s->prob_index], params, sizeof params);
	memcpy(s->psettings[s->prob_index], psettings, sizeof psettings);
	memcpy(s->settings, settings, sizeof settings);
	s->variant[s->prob_index] = variant;
	s->user = user;
	return 0;
}

/* session_set on the words of a string. */
int session_set_words(struct session *s, const char *words, struct qx_err *e)
{
	char buf[512], *argv[32], *save = NULL;
	int argc = 0;
	if (strlen(words) >= sizeof buf)
		return qx_fail(e, "set: %zu bytes of words, at most %zu", strlen(words),
		               sizeof buf - 1);
	snprintf(buf, sizeof buf, "%s", words);
	for (char *w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (argc == 32)
			return qx_fail(e, "set: more than 32 words");
		argv[argc++] = w;
	}
	return session_set(s, argc, argv, e);
}

/* The request for a run of the current problem with the current settings. */
struct run_request session_request(const struct session *s)
{
	const struct run_request rq = {
	    .params = s->params[s->prob_index],
	    .settings = s->psettings[s->prob_index],
	    .prec = (enum qx_precision)session_setting(s, S_PRECISION),
	    .variant = (int)session_setting(s, S_VARIANT),
	    .block = (int)session_setting(s, S_BLOCK),
	    .threads = (int)session_setting(s, S_THREADS),
	    .user = &s->user,
	    .jit = (void **)&s->jit,
	    .state = session_state(s, s->prob),
	};
	return rq;
}

/* The key of p's configuration v: params_key, and for a problem that takes the user's
 * integrand the user's definitions u (their parameters, bounds and exact value change the
 * integral, its reference and its time; NULL: none), then tail. A key too long for buf ends in
 * a hash of the whole, so that two configurations never share one. */
static void config_key(const struct problem *p, const struct param_value *v,
                       const struct user_defs *u, const char *tail, char *buf, size_t len)
{
	char params[PARAM_TEXT_LEN + 400], user[1024];
	session_params_string(p, v, params, sizeof params);
	user[0] = '\0';
	if (p->user_integrand && u)
		user_defs_string(u, user, sizeof user);
	const int n = snprintf(buf, len, "%s %s %s%s", p->name, params, user, tail);
	if (n >= 0 && (size_t)n >= len && len > 24) {
		unsigned long long h = 1469598103934665603ull; /* FNV-1a of the whole key */
		const char *const parts[] = {p->name, params, user, tail};
		for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++)
			for (const char *t = parts[k]; *t; t++)
				h = (h ^ (unsigned char)*t) * 1099511628211ull;
		snprintf(buf + len - 24, 24, " #%016llx", h);
	}
}

/* The key of the reference of p at v in session s. */
static void ref_key(const struct session *s, const struct problem *p, const struct param_value *v,
                    char *buf, size_t len)
{
	config_key(p, v, &s->user, "", buf, len);
}

/* The configuration's key, then precision and variant. */
void session_timing_key(const struct problem *p, const struct param_value *v,
                        const struct user_defs *u, enum qx_precision prec, int variant, char *buf,
                        size_t len)
{
	char tail[96];
	snprintf(tail, sizeof tail, " %s %s", qx_precision_name(prec), p->variants[variant].name);
	config_key(p, v, u, tail, buf, len);
}

/* The first variant of p with a GPU implementation (the GPU double reference's). */
static int gpu_reference_variant(const struct problem *p)
{
	for (size_t i = 0; i < p->nvariants; i++)
		if (p->variants[i].backends & QX_ON_GPU)
			return (int)i;
	return 0;
}

/* The reference kind of p at params, with its sample size and name (p->ref_choice, else
 * p's fixed ones). */
enum qx_ref_kind session_reference_kind(const struct problem *p, const struct param_value *params,
                                        void **state, size_t *samples, const char **name)
{
	*samples = p->ref_samples;
	*name = p->ref_name;
	return p->ref_choice ? p->ref_choice(params, state, samples, name) : p->ref_kind;
}

/* Computes the reference of p at params into ref (count doubles) by the problem's kind: every
 * value on the CPU, the GPU double run, or ref_samples values spread evenly over the outputs
 * (NaN elsewhere); returns 0 or -1. */
static int reference_compute(const struct session *s, const struct problem *p,
                             const struct param_value *params, double *ref, size_t count,
                             struct qx_err *e)
{
	size_t samples;
	const char *name;
	void **state = session_state(s, p);
	const enum qx_ref_kind kind = session_reference_kind(p, params, state, &samples, &name);
	if (kind == QX_REF_GPU) {
		struct gpu_info info;
		const struct run_request rq = {.params = params,
		                               .settings = s->psettings[s->prob_index],
		                               .prec = QX_DOUBLE,
		                               .variant = gpu_reference_variant(p),
		                               .block = (int)session_setting(s, S_BLOCK),
		                               .threads = omp_get_num_procs(),
		                               .state = state};
		struct run_output o = {.values = ref};
		if (!p->run_gpu)
			return qx_fail(e,
			               "%s's reference is its GPU double run, and this quadx has "
			               "no GPU backend",
			               p->name);
		return gpu_init(&info, e) || p->run_gpu(&rq, &o, e) ? -1 : 0;
	}
	if (kind == QX_REF_SAMPLE && samples < count) {
		const size_t k = samples;
		size_t *idx = malloc((k ? k : 1) * sizeof *idx);
		int rc;
		if (!idx)
			return qx_fail(e, "cannot allocate the reference's sample of %zu values",
			               k);
		for (size_t i = 0; i < count; i++)
			ref[i] = NAN;
		for (size_t i = 0; i < k; i++)
			idx[i] = (size_t)((double)i * (double)count / (double)k);
		rc = p->reference(params, state, &s->user, omp_get_num_procs(), idx, k, ref, e);
		free(idx);
		return rc;
	}
	return p->reference(params, state, &s->user, omp_get_num_procs(), NULL, count, ref, e);
}

/* The reference values of params into ref, computed; a Ctrl-C during the computation fails it
 * (the values may be cut short, so they are not kept). Returns 0 or -1 with e filled. */
static int reference_checked(struct session *s, const struct problem *p,
                             const struct param_value *params, double *ref, size_t count,
                             struct qx_err *e)
{
	if (reference_compute(s, p, params, ref, count, e))
		return -1;
	return qx_cancelled() ? qx_fail(e, "run cancelled (while computing the reference)") : 0;
}

/* 1 when the session holds the reference values of params. */
int session_reference_cached(const struct session *s, const struct problem *p,
                             const struct param_value *params)
{
	char key[512];
	ref_key(s, p, params, key, sizeof key);
	return s->ref && strcmp(key, s->ref_key) == 0;
}

/* Returns a buffer for count reference values, or NULL with e filled. */
double *session_reference_buffer(size_t count, struct qx_err *e)
{
	double *ref = qx_fault("malloc") ? NULL : malloc((count ? count : 1) * sizeof *ref);
	if (!ref)
		qx_fail(e, "cannot allocate %.1f MiB for the reference values", count * 8 / MIB);
	return ref;
}

/* The reference values for params: the cached ones (buf is then freed), else computed into buf
 * (malloc'd by the caller, which gives it up), or into a new buffer when buf is NULL. Returns
 * NULL with e filled when memory is short or the computation fails or is cancelled. */
const double *session_reference_into(struct session *s, const struct problem *p,
                                     const struct param_value *params, double *buf,
                                     struct qx_err *e)
{
	char key[512];
	const size_t count = p->count(params, session_state(s, p), &s->user);
	double *ref = buf;
	ref_key(s, p, params, key, sizeof key);
	if (s->ref && strcmp(key, s->ref_key) == 0) {
		free(buf);
		return s->ref;
	}
	free(s->ref);
	s->ref = NULL;
	if (!ref && !(ref = session_reference_buffer(count, e)))
		return NULL;
	qx_progress_start((long long)count, "reference");
	if (reference_checked(s, p, params, ref, count, e)) {
		free(ref);
		return NULL;
	}
	s->ref = ref;
	snprintf(s->ref_key, sizeof s->ref_key, "%s", key);
	return ref;
}

/* Returns the reference values for params, computing them when not cached. */
const double *session_reference(struct session *s, const struct problem *p,
                                const struct param_value *params, struct qx_err *e)
{
	return session_reference_into(s, p, params, NULL, e);
}

/* Keeps a copy of values (count of them, a run that is the reference of p at params) as the
 * session's reference, so that later runs need not compute it; without memory none is kept. */
void session_reference_keep(struct session *s, const struct problem *p,
                            const struct param_value *params, const void *values, size_t count)
{
	free(s->ref);
	s->ref = malloc(count * sizeof(double));
	if (s->ref) {
		memcpy(s->ref, values, count * sizeof(double));
		ref_key(s, p, params, s->ref_key, sizeof s->ref_key);
	}
}
