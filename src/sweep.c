/* sweep.c - sweeps: value ranges and lists, planning and checking every configuration,
 * running them with warm-up and repeats, and best selection. Prints nothing: output.c does. */
#include "sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

_Static_assert(SWEEP_WORD == PARAM_SPEC_WORD, "a sweep's words are a spec's");

/* Parses a range or a list of words (param_spec_parse), each value a word. */
int sweep_parse_values(const char *spec, char (*words)[SWEEP_WORD], int max, struct qx_err *e)
{
	struct param_spec ps;
	if (param_spec_parse(spec, max, &ps, e) < 0)
		return -1;
	for (long long k = 0; k < ps.n; k++)
		param_spec_word(&ps, k, words[k], SWEEP_WORD);
	return (int)ps.n;
}

/* Fills axis with every choice of an enum axis that the backends allow (variants: those
 * implemented on each backend of the plan). */
static void axis_all_choices(const struct session *s, const struct param_def *def,
                             unsigned backends, struct sweep_axis *axis)
{
	const int is_variant = strcmp(def->name, "variant") == 0;
	for (int i = 0; def->choices[i] && axis->nvalues < SWEEP_MAX_VALUES; i++)
		if (!is_variant || (s->prob->variants[i].backends & backends) == backends)
			snprintf(axis->values[axis->nvalues++], SWEEP_WORD, "%s", def->choices[i]);
}

/* Writes the `set` words of configuration k of plan into argv (2 per axis). */
static void config_words(struct sweep *plan, size_t k, char **argv)
{
	size_t rest = k;
	for (int a = plan->naxes - 1; a >= 0; a--) {
		struct sweep_axis *axis = &plan->axes[a];
		argv[2 * a] = axis->name;
		argv[2 * a + 1] = axis->values[rest % (size_t)axis->nvalues];
		rest /= (size_t)axis->nvalues;
	}
}

/* Number of configurations of plan. */
static size_t config_count(const struct sweep *plan)
{
	size_t n = 1;
	for (int a = 0; a < plan->naxes; a++)
		n *= (size_t)plan->axes[a].nvalues;
	return n;
}

/* Checks every configuration of plan with `set`'s rules on a scratch copy of s, and that its
 * variant exists on each backend of the plan. Returns 0 or -1 with e naming the configuration. */
static int plan_check(const struct session *s, struct sweep *plan, struct qx_err *e)
{
	const size_t n = config_count(plan);
	if (n > SWEEP_MAX_CONFIGS)
		return qx_fail(e, "sweep: %zu configurations; at most %d in one sweep", n,
		               SWEEP_MAX_CONFIGS);
	for (size_t k = 0; k < n; k++) {
		struct session tmp = *s; /* shallow: session_set only changes values (a new text
		                          * goes to the store s and the copy share) */
		char *argv[2 * SWEEP_MAX_AXES];
		struct qx_err why;
		config_words(plan, k, argv);
		if (session_set(&tmp, 2 * plan->naxes, argv, &why))
			return qx_fail(e, "sweep: %s", why.msg);
		int gpus = 1;
		if ((plan->backends & QX_ON_GPU) && session_gpus(&tmp, &gpus, &why))
			return qx_fail(e, "sweep: %s", why.msg);
		if (gpus > 1 && !s->prob->multi_gpu)
			return qx_fail(
			    e,
			    "sweep: %s runs on one GPU so far: a sweep of it takes gpus 1 "
			    "(help gpus says which problems divide their work)",
			    s->prob->name);
		const struct variant_def *v =
		    &s->prob->variants[(int)session_setting(&tmp, S_VARIANT)];
		for (int b = QX_CPU; b <= QX_GPU; b++)
			if ((plan->backends & (1u << b)) && !(v->backends & (1u << b)))
				return qx_fail(
				    e,
				    "sweep: variant %s has no %s implementation (see help "
				    "variants, or sweep ... on %s)",
				    v->name, qx_backend_name((enum qx_backend)b),
				    b == QX_GPU ? "cpu" : "gpu");
	}
	return 0;
}

/* Marks in plan->size_axes each axis whose values change the problem's count of values (the
 * other axes at their first values); the configurations passed plan_check. */
static void plan_size_axes(const struct session *s, struct sweep *plan)
{
	for (int a = 0; a < plan->naxes; a++) {
		size_t base = 0;
		for (int v = 0; v < plan->axes[a].nvalues; v++) {
			struct session tmp = *s; /* shallow, as in plan_check */
			char *argv[2 * SWEEP_MAX_AXES];
			struct qx_err ignore;
			for (int b = 0; b < plan->naxes; b++) {
				argv[2 * b] = plan->axes[b].name;
				argv[2 * b + 1] = plan->axes[b].values[b == a ? v : 0];
			}
			if (session_set(&tmp, 2 * plan->naxes, argv, &ignore))
				continue;
			const size_t count = s->prob->count(
			    tmp.params[tmp.prob_index], session_state(&tmp, tmp.prob), &tmp.user);
			if (v == 0)
				base = count;
			else if (count != base)
				plan->size_axes |= 1u << a;
		}
	}
}

/* Parses "on cpu|gpu|both" at argv[i]; returns the backend mask, or 0 with e filled. */
static unsigned parse_on(int argc, char **argv, int i, struct qx_err *e)
{
	static const char *const words[] = {"cpu", "gpu", "both"};
	static const unsigned masks[] = {QX_ON_CPU, QX_ON_GPU, QX_ON_CPU | QX_ON_GPU};
	if (i + 2 != argc) {
		qx_fail(e, "sweep: 'on' takes one word, cpu, gpu or both, and ends the command");
		return 0;
	}
	for (int k = 0; k < 3; k++)
		if (strcmp(argv[i + 1], words[k]) == 0)
			return masks[k];
	qx_fail(e, "sweep: bad backend '%.64s': expected cpu, gpu or both", argv[i + 1]);
	return 0;
}

/* Fills a gpus axis with every count 1..N of the GPUs the host has (`sweep gpus all`, or no
 * values): the scaling table. Returns 0, or -1 with e (no GPU, and why). */
static int gpus_all(const struct session *s, struct sweep_axis *axis, struct qx_err *e)
{
	struct session tmp = *s; /* shallow: only the gpus setting changes */
	struct qx_err why;
	int n = 0;
	tmp.settings[S_GPUS].num = QX_GPUS_ALL;
	if (session_gpus(&tmp, &n, &why))
		return qx_fail(e, "sweep: %s", why.msg);
	for (axis->nvalues = 0; axis->nvalues < n && axis->nvalues < SWEEP_MAX_VALUES;
	     axis->nvalues++)
		snprintf(axis->values[axis->nvalues], SWEEP_WORD, "%d", axis->nvalues + 1);
	return 0;
}

/* Refuses an axis that is one of the user's batch parameters (set param k RANGE): a sweep sets
 * one value, which would end the batch. Returns 0, or -1 with e saying what to do instead. */
static int batch_axis(const struct session *s, const char *name, struct qx_err *e)
{
	const int j = user_param_find(&s->user, name);
	const int b = j >= 0 ? user_batch_slot(&s->user, j) : -1;
	if (b < 0)
		return 0;
	return qx_fail(e,
	               "sweep: %s is a batch parameter (%lld values): set param %s VALUE to sweep "
	               "it, or run the batch",
	               name, s->user.batch[b].spec.n, name);
}

/* Parses the command's words into plan. */
int sweep_plan(const struct session *s, int argc, char **argv, struct sweep *plan, struct qx_err *e)
{
	const char *specs[SWEEP_MAX_AXES] = {NULL, NULL};
	struct param_def defs[SWEEP_MAX_AXES];
	const char *names[SWEEP_MAX_AXES][QX_MAX_VARIANTS + 1];
	unsigned only = 0; /* the backends marks of the axes that only one backend uses */
	memset(plan, 0, sizeof *plan);
	plan->prob = s->prob;
	plan->best = -1;
	for (int i = 1; i < argc; i++) {
		struct param_def def;
		const char *choices[QX_MAX_VARIANTS + 1];
		if (strcmp(argv[i], "on") == 0) {
			plan->backends = parse_on(argc, argv, i, e);
			if (!plan->backends)
				return -1;
			break;
		}
		if (strcmp(argv[i], "size") == 0 && i + 1 < argc)
			i++; /* `sweep size n ...` reads as `sweep n ...` */
		if (!session_find_name(s, argv[i], &def, choices)) {
			char list[512];
			session_names(s, list, sizeof list);
			return qx_fail(e, "sweep: unknown axis '%.64s' for %s: axes are %s",
			               argv[i], s->prob->name, list);
		}
		if (batch_axis(s, def.name, e))
			return -1;
		if (plan->naxes == SWEEP_MAX_AXES)
			return qx_fail(e, "sweep: at most %d axes (got a third, '%.64s')",
			               SWEEP_MAX_AXES, argv[i]);
		for (int a = 0; a < plan->naxes; a++)
			if (strcmp(plan->axes[a].name, def.name) == 0)
				return qx_fail(e, "sweep: axis '%s' given twice", def.name);
		const int a = plan->naxes++;
		only |= def.backends;
		snprintf(plan->axes[a].name, SWEEP_WORD, "%s", def.name);
		defs[a] = def;
		memcpy(names[a], choices, sizeof choices);
		if (def.choices == choices)
			defs[a].choices = names[a];
		struct param_def next;
		const char *ignore[QX_MAX_VARIANTS + 1];
		if (i + 1 < argc && strcmp(argv[i + 1], "on") != 0 &&
		    !session_find_name(s, argv[i + 1], &next, ignore))
			specs[a] = argv[++i];
	}
	if (plan->naxes == 0)
		return qx_fail(e, "sweep: name an axis (usage: sweep AXIS [VALUES] [AXIS [VALUES]] "
		                  "[on cpu|gpu|both])");
	if (!plan->backends && only == (QX_ON_CPU | QX_ON_GPU))
		return qx_fail(e, "sweep: %s and %s change runs of different backends: add on both",
		               plan->axes[0].name, plan->axes[1].name);
	if (!plan->backends) /* no `on`: where the axes matter, else the GPU */
		plan->backends = only ? only : QX_ON_GPU;
	for (int a = 0; a < plan->naxes; a++) {
		struct sweep_axis *axis = &plan->axes[a];
		if (defs[a].backends == QX_ON_GPU && plan->backends == QX_ON_CPU)
			return qx_fail(e,
			               "sweep: %s only changes GPU runs: sweep it on gpu or both",
			               axis->name);
		if (defs[a].backends == QX_ON_CPU && plan->backends == QX_ON_GPU)
			return qx_fail(e,
			               "sweep: %s only changes CPU runs: sweep it on cpu or both",
			               axis->name);
		if (!strcmp(axis->name, "gpus") && (!specs[a] || !strcmp(specs[a], "all"))) {
			if (gpus_all(s, axis, e))
				return -1;
		} else if (specs[a]) {
			axis->nvalues =
			    sweep_parse_values(specs[a], axis->values, SWEEP_MAX_VALUES, e);
			if (axis->nvalues < 0)
				return -1;
		} else if (defs[a].type == PARAM_ENUM || defs[a].type == PARAM_EXPR) {
			axis_all_choices(s, &defs[a], plan->backends, axis);
		} else {
			return qx_fail(e, "sweep: axis '%s' needs values: %s", axis->name,
			               PARAM_SPEC_HELP);
		}
		if (axis->nvalues == 0)
			return qx_fail(e,
			               "sweep: no value of %s runs on every backend of the sweep",
			               axis->name);
	}
	if (plan_check(s, plan, e))
		return -1;
	plan_size_axes(s, plan);
	return 0;
}

/* Whether row a beats row b (b < 0: none yet): the faster, for runs of one value (answers),
 * else the higher throughput. */
static int row_beats(const struct sweep_row *rows, size_t a, int b, int answers)
{
	if (b < 0)
		return 1;
	return answers ? rows[a].summary.med.total < rows[b].summary.med.total
	               : rows[a].summary.work_per_s > rows[b].summary.work_per_s;
}

/* Marks the row with the highest throughput that succeeded (first among those with no point
 * over the threshold); of runs of one value the fastest (first among those that converged). */
int sweep_pick_best(struct sweep_row *rows, size_t n)
{
	int best = -1, answers = 0, others = 0;
	for (size_t i = 0; i < n; i++)
		if (rows[i].ok) {
			answers += rows[i].has_answer && rows[i].integrals == 0;
			others += !rows[i].has_answer || rows[i].integrals > 0;
		}
	answers = answers > 0 && others == 0;
	for (int pass = 0; pass < 2 && best < 0; pass++)
		for (size_t i = 0; i < n; i++) {
			const struct sweep_row *r = &rows[i];
			if (!r->ok || (pass == 0 && r->has_error && r->over > 0) ||
			    (pass == 0 && answers && r->converged == 0))
				continue;
			if (row_beats(rows, i, best, answers))
				best = (int)i;
		}
	for (size_t i = 0; i < n; i++)
		rows[i].best = (int)i == best;
	return best;
}

/* Whether a successful row has an answer. */
int sweep_has_answers(const struct sweep *sw)
{
	for (size_t i = 0; i < sw->nrows; i++)
		if (sw->rows[i].ok && sw->rows[i].has_answer)
			return 1;
	return 0;
}

/* Whether a successful row ran a batch. */
int sweep_has_batches(const struct sweep *sw)
{
	for (size_t i = 0; i < sw->nrows; i++)
		if (sw->rows[i].ok && sw->rows[i].integrals > 0)
			return 1;
	return 0;
}

/* Fills row's batch figures from the figures of run r: integrals (0 when r has none), those
 * converged and the worst estimate; a batch's row converged only when all of them did (its
 * "converged" figure is a count). */
static void row_batch(const struct run_result *r, struct sweep_row *row)
{
	double n = 0, conv = 0;
	row->worst_estimate = NAN;
	for (size_t i = 0; i < r->nfigures; i++) {
		const struct qx_figure *f = &r->figure[i];
		if (!strcmp(f->name, "integrals"))
			n = f->value;
		else if (!strcmp(f->name, "converged"))
			conv = f->value;
		else if (!strcmp(f->name, "worst_error_estimate"))
			row->worst_estimate = f->value;
	}
	row->integrals = n > 0 ? (long long)n : 0;
	row->integrals_converged = row->integrals ? (long long)conv : 0;
	if (row->integrals > 0)
		row->converged = row->integrals_converged == row->integrals;
}

/* Fills row from the session's last run (backend b). */
static void row_from_run(struct session *s, enum qx_backend b, struct sweep_row *row)
{
	const struct run_result *r = s->last;
	row->ok = 1;
	row->summary = r->summary; /* the run's, as the run's own output has it */
	row->speedup = isfinite(r->speedup_threads) ? r->speedup_threads : r->speedup_serial;
	row->speedup_threads = isfinite(r->speedup_threads) ? r->threads_ref : 1;
	row->has_error = r->has_error && r->err.count > 0;
	row->no_exact = !r->is_reference && !row->has_error;
	row->max_rel = r->err.max_rel;
	row->over = r->err.over;
	row->note = r->note;
	row->has_answer = r->has_answer;
	row->value = r->value;
	row->estimate = r->estimate;
	row->exact = r->exact;
	row->work = r->work;
	if (r->conv)
		row->conv = *r->conv;
	row->converged = -1;
	for (size_t i = 0; i < r->nfigures; i++)
		if (!strcmp(r->figure[i].name, "converged"))
			row->converged = r->figure[i].value != 0;
	row_batch(r, row);
	if (b == QX_GPU && s->prob->occupancy) {
		const struct run_request rq = session_request(s);
		struct qx_err ignore;
		row->has_occupancy = s->prob->occupancy(&rq, &row->occ, &ignore) == 0;
	}
}

/* The key of the CPU work of the current configuration (parameters, precision, variant,
 * threads, the problem's settings that CPU runs use): a `both` sweep runs the CPU once per
 * key. */
static void cpu_key(const struct session *s, char *buf, size_t len)
{
	const struct problem *p = s->prob;
	char params[PARAM_TEXT_LEN + 400];
	size_t used;
	session_params_string(p, s->params[s->prob_index], params, sizeof params);
	used = (size_t)snprintf(
	    buf, len, "%s %d %d %d", params, (int)session_setting(s, S_PRECISION),
	    (int)session_setting(s, S_VARIANT), (int)session_setting(s, S_THREADS));
	for (size_t k = 0; k < p->nsettings && used < len; k++)
		if (p->settings[k].backends != QX_ON_GPU)
			used += (size_t)snprintf(buf + used, len - used, " %.17g",
			                         s->psettings[s->prob_index][k].num);
	if (p->user_integrand && used < len) /* the user's parameters and bounds */
		user_defs_string(&s->user, buf + used, len - used);
}

/* Shows the sweep to the session's observer, if any. */
static void sweep_notify(const struct session *s, const struct sweep *sw)
{
	if (s->sweep_observer)
		s->sweep_observer(s->sweep_observer_arg, sw);
}

/* Runs the configurations of sweep plan into its rows, counting configs_done and keeping the
 * best row marked as they finish (the observer sees each); stops early when cancelled. */
static int sweep_configs(struct session *s, struct sweep *plan, sweep_progress_fn progress,
                         struct qx_err *e)
{
	const size_t n = config_count(plan);
	char last_cpu[PARAM_TEXT_LEN + 2048] = "";
	for (size_t k = 0; k < n && !plan->cancelled; k++) {
		char *argv[2 * SWEEP_MAX_AXES];
		config_words(plan, k, argv);
		if (session_set(s, 2 * plan->naxes, argv, e))
			return -1; /* checked by plan_check: cannot happen */
		for (int b = QX_CPU; b <= QX_GPU; b++) {
			struct sweep_row *row = &plan->rows[plan->nrows];
			struct qx_err why;
			char key[PARAM_TEXT_LEN + 2048];
			if (!(plan->backends & (1u << b)))
				continue;
			cpu_key(s, key, sizeof key);
			if (b == QX_CPU && strcmp(key, last_cpu) == 0)
				continue;
			if (qx_cancelled()) {
				plan->cancelled = 1;
				break;
			}
			memset(row, 0, sizeof *row);
			for (int a = 0; a < plan->naxes; a++)
				snprintf(row->values[a], SWEEP_WORD, "%s", argv[2 * a + 1]);
			row->summary.backend = (enum qx_backend)b;
			row->speedup = row->value = row->estimate = row->exact = NAN;
			row->worst_estimate = NAN;
			row->converged = -1;
			if (session_run(s, (enum qx_backend)b, &why)) {
				if (qx_cancelled()) {
					plan->cancelled = 1;
					break;
				}
				snprintf(row->error, sizeof row->error, "%s", why.msg);
			} else {
				row_from_run(s, (enum qx_backend)b, row);
			}
			if (b == QX_CPU)
				snprintf(last_cpu, sizeof last_cpu, "%s", key);
			plan->nrows++;
			if (!plan->size_axes)
				plan->best = sweep_pick_best(plan->rows, plan->nrows);
			sweep_notify(s, plan);
			if (progress)
				progress(plan, k, row);
		}
		if (!plan->cancelled) {
			plan->configs_done++;
			sweep_notify(s, plan);
		}
	}
	if (qx_cancelled()) /* a cancel during the tail of the last run still counts */
		plan->cancelled = 1;
	return 0;
}

/* Runs every configuration of the plan, then restores the session and keeps the sweep. */
int sweep_run(struct session *s, struct sweep *plan, sweep_progress_fn progress, struct qx_err *e)
{
	struct param_value params[QX_MAX_PARAMS], settings[S_COUNT];
	struct param_value psettings[QX_MAX_PROBLEM_SETTINGS];
	const int variant = s->variant[s->prob_index];
	const struct user_defs user = s->user; /* a user parameter axis changes it */
	const size_t n = config_count(plan);
	struct sweep *sw;
	struct gpu_info info;
	int rc;
	if ((plan->backends & QX_ON_GPU) && !s->prob->run_gpu)
		return qx_fail(e, "sweep: no GPU backend: this quadx was built without CUDA (try: "
		                  "sweep ... on cpu)");
	if ((plan->backends & QX_ON_GPU) && gpu_init(&info, e))
		return -1;
	sw = calloc(1, sizeof *sw + 2 * n * sizeof *sw->rows);
	if (!sw)
		return qx_fail(e, "out of memory for a sweep of %zu rows", 2 * n);
	*sw = *plan;
	sw->rows = (struct sweep_row *)(sw + 1);
	if (plan->backends & QX_ON_GPU)
		snprintf(sw->device, sizeof sw->device, "%s", info.name);
	sw->nconfigs = n;
	free(s->sweep); /* one allocation with its rows, as this one */
	s->sweep = sw;
	memcpy(params, s->params[s->prob_index], sizeof params);
	memcpy(sw->params, params, sizeof params);
	memcpy(settings, s->settings, sizeof settings);
	memcpy(psettings, s->psettings[s->prob_index], sizeof psettings);
	sw->running = 1;
	sweep_notify(s, sw);
	rc = sweep_configs(s, sw, progress, e);
	sw->running = 0;
	sw->runs_end = s->nruns;
	sweep_notify(s, sw);
	memcpy(s->params[s->prob_index], params, sizeof params);
	memcpy(s->settings, settings, sizeof settings);
	memcpy(s->psettings[s->prob_index], psettings, sizeof psettings);
	s->variant[s->prob_index] = variant;
	s->user = user;
	if (rc)
		return -1;
	if (sw->cancelled)
		return qx_fail(e,
		               "sweep cancelled after %zu runs; those are kept (plot, export last)",
		               sw->nrows);
	size_t ok = 0;
	for (size_t i = 0; i < sw->nrows; i++)
		ok += sw->rows[i].ok;
	if (ok == 0 && sw->nrows > 0)
		return qx_fail(e, "sweep: every one of the %zu runs failed (the first: %s)",
		               sw->nrows, sw->rows[0].error);
	return 0;
}

/* The index of sw's axis named name, or -1. */
static int axis_named(const struct sweep *sw, const char *name)
{
	for (int a = 0; a < sw->naxes; a++)
		if (!strcmp(sw->axes[a].name, name))
			return a;
	return -1;
}

/* The index of the axis named block, or -1. */
int sweep_block_axis(const struct sweep *sw)
{
	return axis_named(sw, "block");
}

/* The index of the axis named gpus, or -1. */
int sweep_gpus_axis(const struct sweep *sw)
{
	return axis_named(sw, "gpus");
}

/* Row r's value on scaling axis a into *v: the GPUs it ran on for a gpus axis (the word may be
 * "all"), else its number. Returns 0, or -1 when it has none. */
static int scale_value(const struct sweep *sw, const struct sweep_row *r, int a, double *v)
{
	if (a == sweep_gpus_axis(sw) && r->ok && r->summary.gpus > 0) {
		*v = r->summary.gpus;
		return 0;
	}
	return parse_real(r->values[a], v);
}

/* The successful row of row i's series (same backend, same value of the other axis) with the
 * smallest value on axis a, that value into *base; NULL when there is none or row i failed,
 * has no value or no time. */
static const struct sweep_row *series_base(const struct sweep *sw, size_t i, int a, double *base)
{
	const int other = a == 0 ? 1 : 0;
	const struct sweep_row *r = &sw->rows[i], *first = NULL;
	double v, mine;
	*base = INFINITY;
	if (a < 0 || !r->ok || scale_value(sw, r, a, &mine) || !(r->summary.med.total > 0))
		return NULL;
	for (size_t k = 0; k < sw->nrows; k++) {
		const struct sweep_row *q = &sw->rows[k];
		if (q->ok && q->summary.backend == r->summary.backend &&
		    !scale_value(sw, q, a, &v) && v < *base &&
		    (other >= sw->naxes || !strcmp(q->values[other], r->values[other]))) {
			first = q;
			*base = v;
		}
	}
	return first;
}

/* Row i's speedup against the smallest successful block of its series, and its efficiency. */
double sweep_block_speedup(const struct sweep *sw, size_t i, double *efficiency)
{
	const int ba = sweep_block_axis(sw);
	double base, block;
	const struct sweep_row *first = series_base(sw, i, ba, &base);
	*efficiency = NAN;
	if (!first || parse_real(sw->rows[i].values[ba], &block))
		return NAN;
	const double speedup = first->summary.med.total / sw->rows[i].summary.med.total;
	*efficiency = speedup / block;
	return speedup;
}

/* GPU row i's speedup against the fewest GPUs of its series, the base count and efficiency. */
double sweep_gpus_speedup(const struct sweep *sw, size_t i, double *efficiency, int *base)
{
	const int ga = sweep_gpus_axis(sw);
	const struct sweep_row *r = &sw->rows[i];
	double fewest, gpus;
	const struct sweep_row *first =
	    r->summary.backend == QX_GPU ? series_base(sw, i, ga, &fewest) : NULL;
	*efficiency = NAN;
	*base = 0;
	if (!first || scale_value(sw, r, ga, &gpus) || !(gpus > 0))
		return NAN;
	const double speedup = first->summary.med.total / r->summary.med.total;
	*base = (int)fewest;
	*efficiency = speedup * fewest / gpus;
	return speedup;
}

/* The block of the last sweep's best row. */
int sweep_best_block(const struct session *s, int *block, struct qx_err *e)
{
	const struct sweep *sw = s->sweep;
	if (sw && sw->size_axes)
		return qx_fail(e,
		               "block best: the last sweep changed the problem's size, which names "
		               "no best (try: sweep block 32..1024)");
	if (!sw || sw->best < 0)
		return qx_fail(e, "block best: no sweep with a successful GPU run yet (try: sweep "
		                  "block 32..1024)");
	if (sw->rows[sw->best].summary.backend != QX_GPU)
		return qx_fail(e,
		               "block best: the best run of the last sweep was on the cpu, which "
		               "has no block (try: sweep block 32..1024)");
	*block = sw->rows[sw->best].summary.block;
	return 0;
}

/* The block cudaOccupancyMaxPotentialBlockSize suggests for the current configuration. */
int sweep_auto_block(const struct session *s, int *block, struct qx_err *e)
{
	const struct run_request rq = session_request(s);
	struct gpu_occupancy occ;
	struct gpu_info info;
	if (!s->prob->occupancy)
		return qx_fail(e,
		               "block auto: %s has no occupancy query in this build (a GPU build "
		               "is needed)",
		               s->prob->name);
	if (gpu_init(&info, e) || s->prob->occupancy(&rq, &occ, e))
		return -1;
	*block = occ.suggested_block;
	return 0;
}
