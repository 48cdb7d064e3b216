/* commands.c - quadx's command table and its handlers: one exec function a command, small,
 * beside the table that lists them, and the shell's entry points, which run the interpreter
 * (interp.c) and the script reader (script.c) on this table. The help pages are help.c's. */
#include "commands.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmdhistory.h"
#include "device.h"
#include "export.h"
#include "fault.h"
#include "help.h"
#include "messages.h"
#include "output.h"
#include "plot.h"
#include "plot_conv.h"
#include "promptline.h"
#include "run.h"
#include "script.h"
#include "sweep.h"

static const char *const show_words[] = {"params", "device", "last", NULL};
static const char *const run_words[] = {"cpu", "gpu", "both", NULL};
static const char *const format_words[] = {"text", "json", "csv", NULL};
static const char *const export_words[] = {"last", "values", NULL};
static const char *const plot_words[] = {"convergence", NULL};

/* Returns the index of word in the NULL-terminated list words (unique prefix allowed), or -1
 * with e naming the allowed words. */
static int word_index(const char *what, const char *const *words, const char *word,
                      struct qx_err *e)
{
	int hit = -1;
	char list[128] = "";
	for (int i = 0; words[i]; i++) {
		if (strcmp(words[i], word) == 0)
			return i;
		if (*word && strncmp(words[i], word, strlen(word)) == 0)
			hit = hit == -1 ? i : -2;
		strncat(list, i ? "|" : "", sizeof list - strlen(list) - 1);
		strncat(list, words[i], sizeof list - strlen(list) - 1);
	}
	if (hit >= 0)
		return hit;
	return qx_fail(e, "bad %s '%.64s': expected %s", what, word, list);
}

/* use PROBLEM */
static int cmd_use(struct shell *sh, int argc, char **argv, struct qx_err *e)
{
	(void)argc;
	return session_use(&sh->s, argv[1], e);
}

/* set NAME VALUE [NAME VALUE...]; `block best` and `block auto` become the block of the last
 * sweep's best run and the occupancy API's suggestion. */
static int cmd_set(struct shell *sh, int argc, char **argv, struct qx_err *e)
{
	char *words[QX_MAX_ARGS];
	char block_word[16];
	memcpy(words, argv + 1, (size_t)(argc - 1) * sizeof *words);
	for (int i = 0; i + 1 < argc - 1; i += 2) {
		const int best = strcmp(words[i + 1], "best") == 0;
		int block;
		if (strcmp(words[i], "block") || (!best && strcmp(words[i + 1], "auto")))
			continue;
		if (best ? sweep_best_block(&sh->s, &block, e)
		         : sweep_auto_block(&sh->s, &block, e))
			return -1;
		snprintf(block_word, sizeof block_word, "%d", block);
		words[i + 1] = block_word;
	}
	return session_set(&sh->s, argc - 1, words, e);
}

/* Returns the record field of parameter or setting d with value v: a number for an integer or
 * real, else the text param_format writes into text (len bytes). */
static struct kv param_kv(const struct param_def *d, struct param_value v, char *text, size_t len)
{
	if (param_is_number(d, v))
		return (struct kv){d->name, NULL, v.num};
	param_format(d, v, text, len);
	return (struct kv){d->name, text, 0};
}

/* Prints the current problem's parameters and the settings. */
static int show_params(struct shell *sh)
{
	struct session *s = &sh->s;
	const struct problem *p = s->prob;
	struct kv kv[QX_MAX_PARAMS + QX_MAX_PROBLEM_SETTINGS + S_COUNT + USER_MAX_PARAMS + 5];
	char text[QX_MAX_PARAMS + QX_MAX_PROBLEM_SETTINGS + S_COUNT + 1][PARAM_TEXT_LEN];
	char bounds[USER_MAX_AXES * 64];
	size_t n = 0;
	kv[n++] = (struct kv){"problem", p->name, 0};
	for (size_t k = 0; k < p->nparams; k++) {
		if (p->param_unused && p->param_unused(s->params[s->prob_index], k))
			continue; /* what a run does not use is not shown */
		kv[n] =
		    param_kv(&p->params[k], s->params[s->prob_index][k], text[n], sizeof text[n]);
		n++;
	}
	char as_expr[PARAM_TEXT_LEN];
	if (p->as_expression &&
	    !p->as_expression(s->params[s->prob_index], as_expr, sizeof as_expr))
		kv[n++] = (struct kv){"as_expression", as_expr, 0};
	if (p->user_integrand) { /* the user's definitions: the box, the exact value, parameters */
		user_bounds_format(&s->user, bounds, sizeof bounds);
		kv[n++] = (struct kv){"bounds", bounds, 0};
		kv[n++] = isnan(s->user.exact) ? (struct kv){"exact", "none", 0}
		                               : (struct kv){"exact", NULL, s->user.exact};
		if (s->user.exact_expr)
			kv[n - 1] = (struct kv){"exact", s->user.exact_expr, 0};
		for (int j = 0; j < s->user.nparams; j++) {
			const int b = user_batch_slot(&s->user, j);
			kv[n++] =
			    b >= 0
			        ? (struct kv){s->user.param_name[j], s->user.batch[b].spec.text, 0}
			        : (struct kv){s->user.param_name[j], NULL, s->user.param_value[j]};
		}
		/* how many integrals a run does: the problem's count over the batch's grid */
		kv[n++] = (struct kv){
		    "integrals", NULL,
		    (double)p->count(s->params[s->prob_index], session_state(s, p), &s->user)};
	}
	for (size_t k = 0; k < p->nsettings; k++, n++)
		kv[n] = param_kv(&p->settings[k], s->psettings[s->prob_index][k], text[n],
		                 sizeof text[n]);
	for (int k = 0; k < S_COUNT; k++, n++) {
		struct param_def def;
		const char *names[QX_MAX_VARIANTS + 1];
		struct param_value v = {.num = session_setting(s, (enum setting)k)};
		session_setting_def(s, (enum setting)k, &def, names);
		kv[n] = param_kv(&def, v, text[n], sizeof text[n]);
	}
	output_record(&sh->io, "params", kv, n);
	return 0;
}

/* Prints one record of GPU index i's facts: all of them for device 0 (with how many GPUs
 * there are, n), the name, memory and SMs for the others. */
static void device_record(struct shell *sh, int i, int n, const struct gpu_info *g)
{
	char cc[16], mem[32], freemem[32];
	snprintf(cc, sizeof cc, "%d.%d", g->cc_major, g->cc_minor);
	snprintf(mem, sizeof mem, "%.0f MiB", g->mem_total / 1048576.0);
	snprintf(freemem, sizeof freemem, "%.0f MiB", g->mem_free / 1048576.0);
	struct kv kv[] = {
	    {"gpu", g->name, 0},
	    {"index", NULL, i},
	    {"compute_capability", cc, 0},
	    {"sms", NULL, g->sms},
	    {"memory", mem, 0},
	    {"memory_free", freemem, 0},
	    {"gpus", NULL, n},
	    {"sm_clock_mhz", NULL, g->sm_clock_mhz},
	    {"mem_clock_mhz", NULL, g->mem_clock_mhz},
	    {"mem_bus_bits", NULL, g->mem_bus_bits},
	    {"max_threads_per_block", NULL, g->max_threads_per_block},
	    {"driver_version", NULL, g->driver_version},
	    {"runtime_version", NULL, g->runtime_version},
	    {"context_ms", NULL, g->context_ms},
	};
	output_record(&sh->io, "device", kv, i == 0 ? sizeof kv / sizeof kv[0] : 6);
}

/* Prints what quadx knows about every GPU (one record each, device 0's first), or why there
 * is none. */
static int show_device(struct shell *sh, struct qx_err *e)
{
	struct gpu_info g;
	struct qx_err why;
	int n = 0;
	if (!gpu_compiled()) {
		struct kv kv[] = {
		    {"gpu", "none", 0},
		    {"reason", "CPU-only build: nvcc was not found at build time", 0}};
		output_record(&sh->io, "device", kv, 2);
		return 0;
	}
	if (gpu_init(&g, &why) || gpu_count(&n, &why)) {
		struct kv kv[] = {{"gpu", "none", 0}, {"reason", why.msg, 0}};
		output_record(&sh->io, "device", kv, 2);
		return 0;
	}
	device_record(sh, 0, n, &g);
	for (int i = 1; i < n; i++) {
		if (gpu_device_info(i, &g, e))
			return -1;
		device_record(sh, i, n, &g);
	}
	return 0;
}

/* show [params|device|last] */
static int cmd_show(struct shell *sh, int argc, char **argv, struct qx_err *e)
{
	int what = argc > 1 ? word_index("show topic", show_words, argv[1], e) : 0;
	switch (what) {
	case 0:
		return show_params(sh);
	case 1:
		return show_device(sh, e);
	case 2:
		if (!sh->s.last)
			return qx_fail(e, "show last: no run yet (try: run cpu)");
		output_run(&sh->io, sh->s.last);
		output_samples(&sh->io, sh->s.last);
		return 0;
	default:
		return -1;
	}
}

/* Whether the current problem can run on a GPU here; when not, why into why. */
static int gpu_usable(const struct session *s, struct qx_err *why)
{
	struct gpu_info g;
	if (!s->prob->run_gpu)
		return qx_fail(why, "no GPU backend: this quadx was built without CUDA") + 1;
	return gpu_init(&g, why) == 0;
}

/* run [cpu|gpu|both]: the CPU first, so the GPU result can show its speedup. A plain `run`
 * where no GPU is usable runs the CPU and says why the GPU did not run; `run gpu` and `run
 * both` ask for the GPU, so there it is an error. */
static int cmd_run(struct shell *sh, int argc, char **argv, struct qx_err *e)
{
	int which = argc > 1 ? word_index("backend", run_words, argv[1], e) : 2;
	struct qx_err why;
	if (which < 0)
		return -1;
	for (int b = QX_CPU; b <= QX_GPU; b++) {
		if (which != 2 && which != b)
			continue;
		if (b == QX_GPU && argc == 1 && !gpu_usable(&sh->s, &why)) {
			struct kv kv[] = {{"backend", "gpu", 0}, {"note", why.msg, 0}};
			promptline_clear();
			if (sh->io.format == FORMAT_TEXT)
				fprintf(sh->io.out, "gpu: not run: %s (run gpu asks for it)\n",
				        why.msg);
			else
				output_record(&sh->io, "not_run", kv, 2);
			fflush(sh->io.out);
			continue;
		}
		if (session_run(&sh->s, (enum qx_backend)b, e))
			return -1;
		promptline_clear();
		output_run(&sh->io, sh->s.last);
	}
	return 0;
}

/* A sweep_progress_fn: output_sweep_progress's line, in place of the progress line. */
static void sweep_progress(const struct sweep *sw, size_t config, const struct sweep_row *row)
{
	promptline_clear();
	output_sweep_progress(sw, config, row);
}

/* sweep AXIS [VALUES] [AXIS [VALUES]] [on cpu|gpu|both]: runs every configuration and prints
 * the table; a progress line per configuration goes to stderr, except in the dashboard, whose
 * observer draws the rows as they come. */
static int cmd_sweep(struct shell *sh, int argc, char **argv, struct qx_err *e)
{
	struct sweep plan;
	const struct sweep *before = sh->s.sweep;
	int rc;
	if (sweep_plan(&sh->s, argc, argv, &plan, e))
		return -1;
	rc = sweep_run(&sh->s, &plan, sh->io.dashboard ? NULL : sweep_progress, e);
	promptline_clear(); /* a cancelled run's progress line goes before the table */
	if (sh->s.sweep && sh->s.sweep != before)
		output_sweep(&sh->io, sh->s.sweep);
	return rc;
}

/* export [last|values] FILE.csv|FILE.json: every run, the last sweep or the last run's
 * values. */
static int cmd_export(struct shell *sh, int argc, char **argv, struct qx_err *e)
{
	const int values = argc == 3 && strcmp(argv[1], "values") == 0;
	fflush(sh->io.out); /* what was printed comes first on a device such as /dev/stdout */
	if (argc == 3 && strcmp(argv[1], "last") != 0 && !values)
		return qx_fail(e,
		               "export: bad word '%.64s' (usage: export [last|values] "
		               "FILE.csv|FILE.json)",
		               argv[1]);
	if (values ? export_values(&sh->s, sh->io.format, argv[2], e)
	           : export_session(&sh->s, sh->io.format, argv[argc - 1], argc == 3, e))
		return -1;
	if (sh->io.format == FORMAT_TEXT)
		fprintf(sh->io.out, "wrote %s\n", argv[argc - 1]);
	return 0;
}

/* plot convergence [FILE.png|FILE.svg|-]: error against evaluations of the last sweep or run. */
static int plot_convergence_print(struct shell *sh, int argc, char **argv, struct qx_err *e)
{
	const char *path = argc > 2 ? argv[2] : "-";
	const int rc =
	    plot_convergence(&sh->s, path, sh->io.cols - 1, sh->io.rows - 1, sh->io.out, e);
	if (rc == 0 && strcmp(path, "-") && sh->io.format == FORMAT_TEXT)
		fprintf(sh->io.out, "plotted the convergence into %s\n", path);
	return rc < 0 ? -1 : 0;
}

/* plot FILE.png|FILE.svg: draws the last sweep; plot or plot -: in the terminal, as text. */
static int plot_print(struct shell *sh, int argc, char **argv, struct qx_err *e)
{
	const struct run_result *last = sh->s.last;
	if (argc > 1 && strcmp(argv[1], "convergence") == 0)
		return plot_convergence_print(sh, argc, argv, e);
	if (argc > 2)
		return qx_fail(e,
		               "plot: bad word '%.64s' (usage: plot [convergence] "
		               "[FILE.png|FILE.svg|-])",
		               argv[1]);
	if (last && last->user.nbatch == 1 && last->prob->point) { /* the last run's batch */
		const char *path = argc == 1 ? "-" : argv[1];
		const char *names[QX_MAX_COORDS];
		double *x = malloc((last->evals ? last->evals : 1) * sizeof *x), c[QX_MAX_COORDS];
		if (!x)
			return qx_fail(e, "plot: out of memory for %zu integrals", last->evals);
		for (size_t i = 0; i < last->evals; i++)
			x[i] = last->prob->point(last->params, session_state(&sh->s, last->prob),
			                         &last->user, i, names, c, QX_MAX_COORDS) > 0
			           ? c[0]
			           : NAN;
		const struct plot_batch b = {.prob = last->prob->name,
		                             .param =
		                                 last->user.param_name[last->user.batch[0].param],
		                             .n = last->evals,
		                             .x = x,
		                             .values = sh->s.last_values,
		                             .est = last->has_estimates ? sh->s.estimates : NULL,
		                             .prec = last->summary.prec};
		const int rc =
		    plot_batch(&b, path, sh->io.cols - 1, sh->io.rows - 1, sh->io.out, e);
		free(x);
		if (rc == 0 && strcmp(path, "-") && sh->io.format == FORMAT_TEXT)
			fprintf(sh->io.out, "plotted the last run's %zu integrals into %s\n", b.n,
			        path);
		return rc < 0 ? -1 : 0;
	}
	if (!sh->s.sweep)
		return qx_fail(e, "plot: no sweep yet (try: sweep block 32..1024)");
	if (argc == 1 || strcmp(argv[1], "-") == 0)
		return plot_terminal(sh->s.sweep, sh->io.cols - 1, sh->io.rows - 1, sh->io.out, e);
	const int rc = plot_sweep(sh->s.sweep, argv[1], sh->io.out, e);
	if (rc < 0)
		return -1;
	if (rc == 0 && sh->io.format == FORMAT_TEXT)
		fprintf(sh->io.out, "plotted the last sweep into %s\n", argv[1]);
	return 0;
}

/* Whether precision prec represents every argument of args; when not, e names the first
 * that it does not. */
static int eval_args_representable(const struct problem *p, const double *args, size_t nargs,
                                   enum qx_precision prec, struct qx_err *e)
{
	for (size_t i = 0; i < nargs; i++)
		if (!messages_representable(prec, args[i])) {
			qx_fail(e, "%s = %.17g is outside the range of %s (%g .. %g)",
			        p->eval_args[i].name, args[i], qx_precision_name(prec),
			        FLT_TRUE_MIN, FLT_MAX);
			return 0;
		}
	return 1;
}

/* plot: plot_print, whose words (gnuplot missing) are one object in format json. */
static int cmd_plot(struct shell *sh, int argc, char **argv, struct qx_err *e)
{
	return messages_text(sh, "plot", argc > 1 ? argv[argc - 1] : "-", plot_print, argc, argv,
	                     e);
}

/* eval ARGS...: one instance on every backend and precision there is; a precision that cannot
 * represent an argument or the result gets a row saying so, and the command goes on. */
static int cmd_eval(struct shell *sh, int argc, char **argv, struct qx_err *e)
{
	struct session *s = &sh->s;
	const struct problem *p = s->prob;
	double args[QX_MAX_EVAL_ARGS];
	struct gpu_info g;
	struct qx_err why;
	const size_t nargs = (size_t)(argc - 1),
	             least = p->neval_min ? p->neval_min : p->neval_args;
	if (nargs < least || nargs > p->neval_args || p->neval_args > QX_MAX_EVAL_ARGS) {
		char usage[256], count[32];
		problem_eval_usage(p, usage, sizeof usage);
		if (least < p->neval_args)
			snprintf(count, sizeof count, "%zu to %zu", least, p->neval_args);
		else
			snprintf(count, sizeof count, "%zu", least);
		return qx_fail(e, "eval for %s takes %s arguments:%s", p->name, count, usage);
	}
	for (size_t i = 0; i < p->neval_args; i++) {
		struct param_value v = {.num = NAN};
		if (i < nargs && param_parse(&p->eval_args[i], argv[i + 1], &v, e))
			return -1;
		args[i] = v.num;
	}
	/* why the GPU rows are missing: gpu_init's reason (in a CPU-only build: no CUDA) */
	int have_gpu = gpu_init(&g, &why) == 0;
	if (have_gpu && !p->run_gpu) {
		qx_fail(&why, "%s has no GPU implementation", p->name);
		have_gpu = 0;
	}
	for (int b = QX_CPU; b <= QX_GPU; b++) {
		if (b == QX_GPU && !have_gpu) {
			messages_eval_missing(&sh->io, p, args, nargs, QX_GPU, -1, "unavailable",
			                      why.msg);
			continue;
		}
		for (int prec = QX_DOUBLE; prec >= QX_FLOAT; prec--) {
			struct eval_result r = {0};
			int rc = eval_args_representable(p, args, nargs, (enum qx_precision)prec, e)
			             ? p->eval(args, s->params[s->prob_index], session_state(s, p),
			                       &s->user, (enum qx_backend)b,
			                       (enum qx_precision)prec, &r, e)
			             : QX_EVAL_UNREPRESENTABLE;
			/* the CPU's rows are out already: a GPU that cannot compile or run the
			 * evaluation gets a row with the reason, as a missing GPU does */
			if (rc < 0 && b == QX_GPU) {
				messages_eval_missing(&sh->io, p, args, nargs, QX_GPU, prec,
				                      "unavailable", e->msg);
				continue;
			}
			if (rc < 0)
				return -1;
			if (rc == QX_EVAL_UNREPRESENTABLE)
				messages_eval_missing(&sh->io, p, args, nargs, (enum qx_backend)b,
				                      prec, "not representable", e->msg);
			if (rc == 0)
				output_eval(&sh->io, p, args, nargs, (enum qx_backend)b,
				            (enum qx_precision)prec, &r);
		}
	}
	return 0;
}

/* errors [K]: the K worst points of the last run against the reference. */
static int cmd_errors(struct shell *sh, int argc, char **argv, struct qx_err *e)
{
	static const struct param_def k_def = {
	    .name = "K", .type = PARAM_INT, .min = 1, .max = 1000, .def = 10, .help = ""};
	struct session *s = &sh->s;
	struct param_value k = param_default(&k_def);
	const double *ref;
	size_t idx[1000], got;
	if (argc > 1 && param_parse(&k_def, argv[1], &k, e))
		return -1;
	if (!s->last)
		return qx_fail(e, "errors: no run yet (try: run cpu)");
	if (s->last->is_reference)
		return qx_fail(e,
		               "errors: the last run is the reference itself (%s); run another "
		               "backend or precision",
		               s->last->ref_name);
	ref = session_reference(s, s->last->prob, s->last->params, e);
	if (!ref)
		return -1;
	got = err_worst(ref, s->last_values, s->last->summary.prec, s->last->evals, (size_t)k.num,
	                idx);
	promptline_clear();
	if (got == 0) { /* no value has an exact or reference value to compare with */
		char note[160];
		snprintf(note, sizeof note, "no %s for these parameters: no error to list%s",
		         s->last->ref_name,
		         s->last->has_answer && isfinite(s->last->estimate)
		             ? "; the run's own estimate is all there is"
		             : "");
		struct kv kv[] = {{"compared", NULL, 0}, {"note", note, 0}};
		output_record(&sh->io, "errors", kv, 2);
		return 0;
	}
	output_worst(&sh->io, s->last, session_state(s, s->last->prob), ref, s->last_values, idx,
	             got);
	return 0;
}

/* The last run's reference values when they are at hand (cached), else NULL. */
static const double *last_reference(struct session *s)
{
	struct qx_err ignore;
	if (s->last->is_reference)
		return NULL; /* its values are the reference */
	return session_reference(s, s->last->prob, s->last->params, &ignore);
}

/* values [N [FIRST]]: N of the last run's values (default 10) from index FIRST (default 0), with
 * their coordinates, error estimates and reference values. */
static int cmd_values(struct shell *sh, int argc, char **argv, struct qx_err *e)
{
	static const struct param_def n_def = {
	    .name = "N", .type = PARAM_INT, .min = 1, .max = 1e9, .def = 10, .help = ""};
	static const struct param_def first_def = {
	    .name = "FIRST", .type = PARAM_INT, .min = 0, .max = 1e15, .def = 0, .help = ""};
	struct session *s = &sh->s;
	struct param_value n = param_default(&n_def), first = param_default(&first_def);
	if ((argc > 1 && param_parse(&n_def, argv[1], &n, e)) ||
	    (argc > 2 && param_parse(&first_def, argv[2], &first, e)))
		return -1;
	if (!s->last)
		return qx_fail(e, "values: no run yet (try: run cpu)");
	if ((size_t)first.num >= s->last->evals)
		return qx_fail(e, "values: FIRST %.0f is past the last run's %zu values (0..%zu)",
		               first.num, s->last->evals, s->last->evals - 1);
	const double *ref = last_reference(s);
	promptline_clear();
	output_values(sh->io.out, sh->io.format, s->last, session_state(s, s->last->prob),
	              s->last_values, s->last->has_estimates ? s->estimates : NULL, ref,
	              (size_t)first.num, (size_t)n.num);
	fflush(sh->io.out);
	return 0;
}

/* format text|json|csv */
static int cmd_format(struct shell *sh, int argc, char **argv, struct qx_err *e)
{
	int f = word_index("format", format_words, argv[1], e);
	(void)argc;
	if (f < 0)
		return -1;
	sh->io.format = (enum out_format)f;
	sh->io.csv_header[0] = '\0';
	return 0;
}

/* help [TOPIC]: help_print's page, which lists this table's commands. */
static int help_page(struct shell *sh, int argc, char **argv, struct qx_err *e)
{
	return help_print(sh, cmd_table, argc, argv, e);
}

/* help: help_page's text, as one object in format json. */
static int cmd_help(struct shell *sh, int argc, char **argv, struct qx_err *e)
{
	return messages_text(sh, "help", argc > 1 ? argv[argc - 1] : "", help_page, argc, argv, e);
}

/* source FILE: runs the commands of a file; its first error fails this command. */
static int cmd_source(struct shell *sh, int argc, char **argv, struct qx_err *e)
{
	FILE *f;
	struct stat st;
	int failed;
	(void)argc;
	if (sh->depth >= 8)
		return qx_fail(e, "source: nested too deeply (more than 8 levels)");
	f = qx_fault("fopen") ? (errno = EIO, NULL) : fopen(argv[1], "r");
	if (!f)
		return qx_fail(e, "source: cannot open %.200s: %s", argv[1], strerror(errno));
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		return qx_fail(e, "source: %.200s is a directory, not a script", argv[1]);
	}
	sh->depth++;
	failed = shell_run_stream(sh, f, argv[1], 0);
	sh->depth--;
	fclose(f);
	return failed ? qx_fail(e, "source: %.200s stopped at its first error", argv[1]) : 0;
}

/* The dashboard's entry point, registered by the program that has one (main.c: tui_run). */
static int (*dashboard_run)(struct shell *sh, int standalone, struct qx_err *e);

/* Registers run as the `dashboard` command's entry point. */
void cmd_register_dashboard(int (*run)(struct shell *sh, int standalone, struct qx_err *e))
{
	dashboard_run = run;
}

/* dashboard: the full-screen dashboard until quit, F10 or Ctrl-D (src/tui.c). */
static int cmd_dashboard(struct shell *sh, int argc, char **argv, struct qx_err *e)
{
	(void)argc;
	(void)argv;
	if (!dashboard_run)
		return qx_fail(e, "dashboard: this program has no dashboard");
	return dashboard_run(sh, 0, e);
}

/* quit */
static int cmd_quit(struct shell *sh, int argc, char **argv, struct qx_err *e)
{
	(void)argc;
	(void)argv;
	(void)e;
	sh->quit = 1;
	return 0;
}

/* The commands, in the order `help` lists them. */
// clang-format off
const struct cmd_entry cmd_table[] = {
    {.name = "use", .usage = "use PROBLEM", .help = "switch to a problem (its settings are kept)",
     .min_args = 1, .max_args = 1, .arg = ARG_PROBLEM, .exec = cmd_use},
    {.name = "set", .usage = "set NAME VALUE [NAME VALUE...]",
     .help = "set parameters and settings (all or nothing)", .min_args = 2,
     .max_args = QX_MAX_ARGS - 1, .arg = ARG_SET, .exec = cmd_set},
    {.name = "show", .usage = "show [params|device|last]",
     .help = "show parameters, the GPU, or the last run", .min_args = 0, .max_args = 1,
     .arg = ARG_WORDS, .words = show_words, .exec = cmd_show},
    {.name = "run", .usage = "run [cpu|gpu|both]",
     .help = "time the current problem (default both)", .min_args = 0, .max_args = 1,
     .arg = ARG_WORDS, .words = run_words, .exec = cmd_run},
    {.name = "sweep", .usage = "sweep AXIS [VALUES] [AXIS [VALUES]] [on cpu|gpu|both]",
     .help = "time the problem over a range of a parameter or setting", .min_args = 1,
     .max_args = 8, .arg = ARG_SET, .exec = cmd_sweep},
    {.name = "export", .usage = "export [last|values] FILE.csv|FILE.json",
     .help = "write every run (or the last sweep, or the last run's values) to a file",
     .min_args = 1, .max_args = 2, .arg = ARG_FILE, .words = export_words, .exec = cmd_export},
    {.name = "plot", .usage = "plot [convergence] [FILE.png|FILE.svg|-]",
     .help = "draw the last sweep with gnuplot (no file or -: in the terminal); plot "
             "convergence: error against evaluations",
     .min_args = 0, .max_args = 2, .arg = ARG_FILE, .words = plot_words, .exec = cmd_plot},
    {.name = "eval", .usage = "eval ARGS...",
     .help = "evaluate one instance on every backend and precision", .min_args = 0,
     .max_args = QX_MAX_EVAL_ARGS, .arg = ARG_NONE, .exec = cmd_eval},
    {.name = "errors", .usage = "errors [K]",
     .help = "list the K worst points of the last run (default 10)", .min_args = 0, .max_args = 1,
     .arg = ARG_NONE, .exec = cmd_errors},
    {.name = "values", .usage = "values [N [FIRST]]",
     .help = "list N values of the last run (default 10) from index FIRST, with their coordinates",
     .min_args = 0, .max_args = 2, .arg = ARG_NONE, .exec = cmd_values},
    {.name = "format", .usage = "format text|json|csv", .help = "choose how results are printed",
     .min_args = 1, .max_args = 1, .arg = ARG_WORDS, .words = format_words, .exec = cmd_format},
    {.name = "help", .usage = "help [TOPIC] | help variant NAME",
     .help = "this list, or the page of a command or problem", .min_args = 0, .max_args = 2,
     .arg = ARG_TOPIC, .exec = cmd_help},
    {.name = "source", .usage = "source FILE", .help = "run the commands in FILE", .min_args = 1,
     .max_args = 1, .arg = ARG_FILE, .exec = cmd_source},
    {.name = "dashboard", .usage = "dashboard",
     .help = "open the full-screen dashboard (F10 leaves)", .min_args = 0, .max_args = 0,
     .arg = ARG_NONE, .full_screen = 1, .exec = cmd_dashboard},
    {.name = "history", .usage = "history [N]",
     .help = "list the last N lines typed at the prompt (default 20)", .min_args = 0, .max_args = 1,
     .arg = ARG_NONE, .exec = cmd_history},
    {.name = "quit", .usage = "quit", .help = "leave quadx", .min_args = 0, .max_args = 0,
     .arg = ARG_NONE, .exec = cmd_quit},
    {.name = NULL},
};
// clang-format on

/* Finds a command of the table by exact name or unique prefix. */
const struct cmd_entry *cmd_find(const char *name, struct qx_err *e)
{
	return cmd_lookup(cmd_table, name, e);
}

/* Executes a line of the table's commands. */
int shell_exec_line(struct shell *sh, const char *line, struct qx_err *e)
{
	return interp_exec_line(sh, cmd_table, line, e);
}

/* Reads a stream of the table's commands. */
int shell_run_stream(struct shell *sh, FILE *f, const char *name, int keep_going)
{
	return script_run_stream(sh, cmd_table, f, name, keep_going);
}

/* Runs the table's commands of -e. */
int shell_run_commands(struct shell *sh, FILE *f, int keep_going)
{
	return script_run_commands(sh, cmd_table, f, keep_going);
}
