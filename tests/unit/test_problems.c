/* test_problems.c - the problem contract, checked on every registered problem: its defaults
 * pass check, a tiny CPU run of every CPU variant matches the reference, the run that is the
 * reference is a double run, no parameter or own setting is named like a session setting,
 * point() stays within its capacity, and every variant has a paragraph on its help page. A
 * new problem that breaks the contract fails here. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/session.h"

/* Sets the parameter named name of p in v to the smallest allowed value not below want. */
static void shrink(const struct problem *p, struct param_value *v, size_t k, double want)
{
	const struct param_def *d = &p->params[k];
	if (d->type == PARAM_INT && v[k].num > want && want >= d->min)
		v[k].num = want;
}

/* Fills v with p's defaults, every integer parameter that sets the size cut to at most 4
 * (state: p's slot). */
static size_t tiny_params(const struct problem *p, struct param_value *v, void **state)
{
	for (size_t k = 0; k < p->nparams; k++)
		v[k] = param_default(&p->params[k]);
	for (size_t k = 0; k < p->nparams; k++) {
		const size_t before = p->count(v, state, NULL);
		struct param_value keep = v[k];
		shrink(p, v, k, 4);
		if (p->count(v, state, NULL) >= before ||
		    (p->check && p->check(v, state, &(struct qx_err){0})))
			v[k] = keep; /* not a size parameter, or a relation needs it */
	}
	return p->count(v, state, NULL);
}

/* Frees p's state in slot (state_free), checking that a problem without state_free made
 * none there, which nothing would free. */
static void state_done(const struct problem *p, void *slot)
{
	if (!p->state_free && slot)
		fail_msg("%s: made a state in the session's slot but has no state_free", p->name);
	if (p->state_free)
		p->state_free(slot);
}

/* The usage of eval: the optional arguments nested in brackets, and a long run of them
 * (cubature's X2..X16) as one range, not sixteen brackets. */
static void test_eval_usage(void **state)
{
	char buf[256];
	(void)state;
	problem_eval_usage(problem_find("kde"), buf, sizeof buf);
	assert_string_equal(buf, " X [Y [Z]]");
	problem_eval_usage(problem_find("cubature"), buf, sizeof buf);
	assert_string_equal(buf, " X1 [X2 ... X16]");
	problem_eval_usage(problem_find("expint"), buf, sizeof buf);
	assert_string_equal(buf, " N X");
}

/* The defaults pass check, no parameter or own setting shares a session setting's name, and
 * variant names are unique within the problem (other problems may reuse them). */
static void test_names_and_defaults(void **state)
{
	(void)state;
	for (int i = 0; qx_problems[i]; i++) {
		const struct problem *p = qx_problems[i];
		struct param_value v[QX_MAX_PARAMS];
		struct qx_err e = {""};
		void *slot = NULL;
		assert_true(p->nparams <= QX_MAX_PARAMS);
		assert_true(p->nsettings <= QX_MAX_PROBLEM_SETTINGS);
		assert_true(p->neval_args <= QX_MAX_EVAL_ARGS);
		assert_non_null(p->work_unit);
		assert_non_null(p->ref_name);
		for (size_t k = 0; k < p->nparams; k++)
			v[k] = param_default(&p->params[k]);
		if (p->check && p->check(v, &slot, &e))
			fail_msg("%s: the defaults fail check: %s", p->name, e.msg);
		state_done(p, slot);
		for (int s = 0; s < S_COUNT; s++) {
			if (param_find(p->params, p->nparams, settings_defs[s].name) >= 0 ||
			    param_find(p->settings, p->nsettings, settings_defs[s].name) >= 0)
				fail_msg("%s: '%s' is also a session setting", p->name,
				         settings_defs[s].name);
		}
		for (size_t k = 0; k < p->nsettings; k++)
			if (param_find(p->params, p->nparams, p->settings[k].name) >= 0)
				fail_msg("%s: '%s' is a parameter and a setting", p->name,
				         p->settings[k].name);
		for (size_t a = 0; a < p->nvariants; a++)
			for (size_t b = 0; b < a; b++)
				if (strcmp(p->variants[a].name, p->variants[b].name) == 0)
					fail_msg("%s: two variants named '%s'", p->name,
					         p->variants[a].name);
	}
}

/* A tiny CPU run of each CPU variant in double matches the reference (to 1e-6 relative, an
 * approximate variant to 1e-2); the run that is the reference is a double one; point() gives
 * at most its capacity. */
static void test_tiny_runs(void **state)
{
	(void)state;
	for (int i = 0; qx_problems[i]; i++) {
		const struct problem *p = qx_problems[i];
		struct param_value v[QX_MAX_PARAMS], set[QX_MAX_PROBLEM_SETTINGS];
		void *slot = NULL;
		const size_t count = tiny_params(p, v, &slot);
		double *ref = calloc(count, sizeof *ref), *out = calloc(count, sizeof *out);
		size_t *idx = calloc(count, sizeof *idx);
		struct qx_err e = {""};
		assert_true(count > 0 && count <= 4096);
		assert_non_null(ref);
		assert_non_null(out);
		assert_non_null(idx);
		for (size_t k = 0; k < p->nsettings; k++)
			set[k] = param_default(&p->settings[k]);
		for (size_t k = 0; k < count; k++)
			idx[k] = k;
		if (p->ref_kind != QX_REF_GPU &&
		    p->reference(v, &slot, NULL, 1, idx, count, ref, &e))
			fail_msg("%s: reference: %s", p->name, e.msg);
		for (size_t n = 0; n < p->nvariants; n++) {
			const struct variant_def *var = &p->variants[n];
			struct run_request rq = {.params = v,
			                         .settings = set,
			                         .prec = QX_DOUBLE,
			                         .variant = (int)n,
			                         .block = 256,
			                         .threads = 1,
			                         .gpus = 1,
			                         .state = &slot};
			struct run_output o = {.values = out};
			for (int b = QX_CPU; b <= QX_GPU; b++)
				for (int prec = QX_FLOAT; prec <= QX_DOUBLE; prec++)
					if (p->is_reference((enum qx_backend)b,
					                    (enum qx_precision)prec, (int)n) &&
					    prec != QX_DOUBLE)
						fail_msg("%s: a %s run of %s is the reference",
						         p->name,
						         qx_precision_name((enum qx_precision)prec),
						         var->name);
			if (!(var->backends & QX_ON_CPU) || p->ref_kind == QX_REF_GPU)
				continue;
			if (p->run_cpu(&rq, &o, &e))
				fail_msg("%s %s: run: %s", p->name, var->name, e.msg);
			const double tol = var->approximate ? 1e-2 : 1e-6;
			for (size_t k = 0; k < count; k++)
				if (!(fabs(out[k] - ref[k]) <= tol * (fabs(ref[k]) + 1e-300)))
					fail_msg("%s %s: value %zu is %.17g, the reference %.17g",
					         p->name, var->name, k, out[k], ref[k]);
		}
		for (size_t k = 0; k < count; k++) {
			const char *names[QX_MAX_COORDS + 1] = {NULL};
			double c[QX_MAX_COORDS + 1];
			const int cap = p->point(v, &slot, NULL, k, names, c, QX_MAX_COORDS);
			assert_true(cap >= 1 && cap <= QX_MAX_COORDS);
			assert_null(names[QX_MAX_COORDS]); /* nothing past the capacity */
			assert_true(p->point(v, &slot, NULL, k, names, c, cap - 1) <= cap - 1);
		}
		state_done(p, slot);
		free(ref);
		free(out);
		free(idx);
	}
}

/* Fills v with p's defaults, the parameters that set the size halved until at most max
 * values (state: p's slot); returns the count. */
static size_t scaled_params(const struct problem *p, struct param_value *v, size_t max,
                            void **state)
{
	for (size_t k = 0; k < p->nparams; k++)
		v[k] = param_default(&p->params[k]);
	for (size_t k = 0; k < p->nparams && p->count(v, state, NULL) > max; k++) {
		for (;;) {
			const size_t before = p->count(v, state, NULL);
			struct param_value keep = v[k];
			shrink(p, v, k, floor(v[k].num / 2));
			if (p->count(v, state, NULL) >= before ||
			    (p->check && p->check(v, state, &(struct qx_err){0}))) {
				v[k] = keep;
				break;
			}
			if (p->count(v, state, NULL) <= max)
				break;
		}
	}
	return p->count(v, state, NULL);
}

/* The first thing a user runs is clean: the default configuration (scaled to at most 20000
 * values), on the CPU in the default precision with the default variant and threshold, has no
 * value over the threshold that the problem's rounding_bound (rounding times condition) does not
 * account for, so `run cpu` never reports the precision's limits as a failure unexplained. */
static void test_default_run_is_clean(void **state)
{
	(void)state;
	for (int i = 0; qx_problems[i]; i++) {
		const struct problem *p = qx_problems[i];
		struct param_value v[QX_MAX_PARAMS], set[QX_MAX_PROBLEM_SETTINGS];
		void *slot = NULL;
		const size_t count = scaled_params(p, v, 20000, &slot);
		const enum qx_precision prec = (enum qx_precision)settings_defs[S_PRECISION].def;
		const double threshold = settings_defs[S_THRESHOLD].def;
		double *ref = calloc(count, sizeof *ref);
		void *out = calloc(count, sizeof(double));
		size_t *idx = calloc(count, sizeof *idx), over = 0, unexplained = 0;
		struct run_request rq = {v, set, prec, 0, 256, 1, NULL, NULL, 1, &slot};
		struct run_output o = {.values = out};
		struct qx_err e = {""};
		if (!(p->variants[0].backends & QX_ON_CPU) || p->ref_kind == QX_REF_GPU)
			continue;
		assert_true(ref && out && idx);
		for (size_t k = 0; k < p->nsettings; k++)
			set[k] = param_default(&p->settings[k]);
		for (size_t k = 0; k < count; k++)
			idx[k] = k;
		if (p->reference(v, &slot, NULL, 1, idx, count, ref, &e) || p->run_cpu(&rq, &o, &e))
			fail_msg("%s: %s", p->name, e.msg);
		for (size_t k = 0; k < count; k++) {
			const double x = value_at(out, prec, k);
			double condition = 0;
			if (rel_error(ref[k], x) <= threshold)
				continue;
			over++;
			unexplained +=
			    !p->rounding_bound ||
			    !(fabs(x - ref[k]) <= p->rounding_bound(v, prec, k, &condition));
		}
		if (unexplained)
			fail_msg(
			    "%s: the default run (%zu values, %s) has %zu over %g, %zu of them "
			    "not within its rounding_bound (rounding times condition)",
			    p->name, count, qx_precision_name(prec), over, threshold, unexplained);
		state_done(p, slot);
		free(ref);
		free(out);
		free(idx);
	}
}

/* Every variant of every problem has a paragraph on the problem's help page: a line that
 * starts with its name after the indentation. */
static void test_variant_help(void **state)
{
	(void)state;
	for (int i = 0; qx_problems[i]; i++) {
		const struct problem *p = qx_problems[i];
		char path[256], line[512];
		snprintf(path, sizeof path, "help/%s.txt", p->name);
		for (size_t n = 0; n < p->nvariants; n++) {
			FILE *f = fopen(path, "r");
			int found = 0;
			if (!f)
				fail_msg("%s: no help page %s", p->name, path);
			while (!found && fgets(line, sizeof line, f)) {
				const char *w = line + strspn(line, " ");
				const size_t len = strlen(p->variants[n].name);
				found = w != line && strncmp(w, p->variants[n].name, len) == 0 &&
				        (w[len] == ' ' || w[len] == '\n');
			}
			fclose(f);
			if (!found || !p->variants[n].help || !*p->variants[n].help)
				fail_msg("%s: variant %s has no help paragraph", p->name,
				         p->variants[n].name);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_names_and_defaults), cmocka_unit_test(test_eval_usage),
	    cmocka_unit_test(test_tiny_runs),          cmocka_unit_test(test_default_run_is_clean),
	    cmocka_unit_test(test_variant_help),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
