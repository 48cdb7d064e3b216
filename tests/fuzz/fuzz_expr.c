/* fuzz_expr.c - libFuzzer harness of the expression parser, the canonical printer and the
 * emitter (nothing is compiled). The first byte picks the scope (dim 1..9, with or without
 * parameters and an extra variable), the rest is the text. Any input must be accepted or
 * refused with a message; an accepted one must print a canonical text that parses back to the
 * same canonical text (and fits a small buffer exactly when it is short enough), and must give
 * C and CUDA source in both precisions. Else it aborts. */
#include "common.h"

#include <stdio.h>
#include <string.h>

#include "../../src/expr/expr.h"

/* Aborts with a message naming the input when cond is false. */
static void check(int cond, const char *what, const char *text)
{
	if (cond)
		return;
	fprintf(stderr, "fuzz_expr: %s for '%s'\n", what, text);
	abort();
}

/* Emits x in every language and precision; the source must come back and name the function. */
static void check_emit(const struct expr *x, const char *text)
{
	for (int lang = EXPR_C; lang <= EXPR_CUDA; lang++)
		for (int prec = QX_FLOAT; prec <= QX_DOUBLE; prec++) {
			char *src = expr_emit(x, (enum expr_lang)lang, (enum qx_precision)prec,
			                      "integrand");
			check(src && strstr(src, " integrand(const "), "no source", text);
			/* CUDA: no #include in the function (reduced_math.h's text before it keeps
			 * its own behind #ifndef __CUDACC_RTC__, which NVRTC defines) */
			const char *fn = lang == EXPR_CUDA ? strstr(src, "extern \"C\"") : NULL;
			check(lang == EXPR_C || (fn && !strstr(fn, "#include")), "#include in CUDA",
			      text);
			free(src);
		}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const params[] = {"k", "w", "j"}; /* j: also a canonical index name */
	static const char *const extra[] = {"lambda"};
	struct expr_scope sc = {1, params, 0, extra, 0};
	struct expr *x = NULL, *y = NULL;
	struct qx_err e = {""};
	char *text, *canon, *again, small[16];
	if (size == 0)
		return 0;
	sc.dim = 1 + data[0] % 9;
	sc.nparams = (data[0] / 9) % 2 ? 3 : 0;
	sc.nextra = (data[0] / 18) % 2;
	text = fuzz_string(data + 1, size - 1);
	if (expr_parse(text, &sc, &x, &e)) {
		check(x == NULL && e.msg[0] != '\0', "refused without a message", text);
		free(text);
		return 0;
	}
	canon = expr_canonical_dup(x);
	check(canon != NULL, "no canonical text", text);
	check(expr_canonical(x, small, sizeof small) == (strlen(canon) < sizeof small ? 0 : -1) &&
	          strcmp(small, strlen(canon) < sizeof small ? canon : "") == 0,
	      "canonical text into a small buffer", text);
	if (expr_parse(canon, &sc, &y, &e) == 0) {
		again = expr_canonical_dup(y);
		check(again && strcmp(canon, again) == 0, "canonical text reads back differently",
		      text);
		free(again);
		expr_free(y);
	} else {
		/* Only a canonical text longer than the input (x is x1, 1e9 is 1000000000) may be
		 * refused, and only for its length. */
		check(strlen(canon) > EXPR_MAX_LEN && strstr(e.msg, "too long"),
		      "canonical text refused", text);
	}
	for (int j = 0; j < sc.nparams; j++)
		check(!expr_uses_param(x, j) || strstr(canon, params[j]),
		      "parameter used but not printed", text);
	check_emit(x, text);
	free(canon);
	expr_free(x);
	free(text);
	return 0;
}
