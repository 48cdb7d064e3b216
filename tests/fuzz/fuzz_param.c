/* fuzz_param.c - libFuzzer harness: the input is one word parsed as a value of every
 * parameter, setting and eval argument of every problem. An accepted value must lie within
 * its definition's bounds and read back to itself through param_format; else it aborts. */
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Aborts with a message when cond is false. */
static void check(int cond, const char *what, const struct param_def *d, const char *word)
{
	if (cond)
		return;
	fprintf(stderr, "fuzz_param: %s for %s and '%s'\n", what, d->name, word);
	abort();
}

/* Parses word as a value of d, its text into texts, and checks what it accepted. */
static void fuzz_def(struct param_store *texts, const struct param_def *d, const char *word)
{
	struct param_value v, back;
	struct qx_err e = {""};
	char text[PARAM_TEXT_LEN];
	size_t nchoices = 0;
	if (param_parse_in(texts, d, word, &v, &e)) {
		check(e.msg[0] != '\0', "rejected without a message", d, word);
		return;
	}
	while (d->choices && d->choices[nchoices])
		nchoices++;
	if (d->type == PARAM_ENUM) {
		check(v.num >= 0 && v.num < (double)nchoices, "choice out of the list", d, word);
	} else if (d->type == PARAM_PATH) {
		const char *path = param_path(v);
		check(!path || (*path && strlen(path) <= PARAM_PATH_MAX), "file name out of bounds",
		      d, word);
	} else if (d->type == PARAM_EXPR) {
		/* a choice, or the text itself kept (the problem's check parses it) */
		check(v.num < 0 ? param_expr(v) && !strcmp(param_expr(v), word)
		                : v.num < (double)nchoices && v.num == floor(v.num),
		      "expression or choice not kept", d, word);
		check(strlen(word) <= PARAM_EXPR_MAX, "expression over its limit", d, word);
	} else if ((d->type == PARAM_REAL || d->type == PARAM_INT) && d->choices && v.num < 0) {
		check(-1 - v.num < (double)nchoices, "word out of the list", d, word);
	} else {
		check(isfinite(v.num) && v.num >= d->min && v.num <= d->max, "value out of bounds",
		      d, word);
		check(!(d->min_open & PARAM_MIN_OPEN) || v.num > d->min, "open bound accepted", d,
		      word);
		check(!(d->min_open & PARAM_MAX_OPEN) ||
		          (v.num < d->max && (d->type != PARAM_RANGE || v.hi < d->max)),
		      "open upper bound accepted", d, word);
		check(d->type != PARAM_INT || v.num == floor(v.num), "integer not whole", d, word);
		check(d->type != PARAM_RANGE || (v.num <= v.hi && v.hi <= d->max),
		      "range out of order", d, word);
	}
	param_format(d, v, text, sizeof text);
	check(param_parse_in(texts, d, text, &back, &e) == 0, "formatted value rejected", d, word);
	check(back.num == v.num && (d->type != PARAM_RANGE || back.hi == v.hi),
	      "formatted value reads back differently", d, word);
}

/* Parses the input against every definition there is. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *word = fuzz_string(data, size);
	struct shell *sh = fuzz_shell_new();
	double real;
	for (int k = 0; k < S_COUNT; k++) {
		struct param_def def;
		const char *names[QX_MAX_VARIANTS + 1];
		session_setting_def(&sh->s, (enum setting)k, &def, names);
		fuzz_def(sh->s.texts, &def, word);
	}
	for (int i = 0; qx_problems[i]; i++) {
		const struct problem *p = qx_problems[i];
		for (size_t k = 0; k < p->nparams; k++)
			fuzz_def(sh->s.texts, &p->params[k], word);
		for (size_t k = 0; k < p->neval_args; k++)
			fuzz_def(sh->s.texts, &p->eval_args[k], word);
	}
	if (parse_real(word, &real) == 0 && !isfinite(real))
		abort();
	fuzz_shell_free(sh);
	free(word);
	return 0;
}
