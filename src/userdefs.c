/* userdefs.c - a user's parameters, bounds and exact value (userdefs.h). */
#include "userdefs.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "param.h"

/* Clears u. */
void user_defs_init(struct user_defs *u)
{
	memset(u, 0, sizeof *u);
	u->exact = NAN;
}

/* Index of name, or -1. */
int user_param_find(const struct user_defs *u, const char *name)
{
	for (int j = 0; j < u->nparams; j++)
		if (!strcmp(u->param_name[j], name))
			return j;
	return -1;
}

/* 1 when name is a letter or '_' followed by letters, digits or '_', within USER_NAME_MAX. */
static int user_is_identifier(const char *name)
{
	if (!(isalpha((unsigned char)name[0]) || name[0] == '_') || strlen(name) > USER_NAME_MAX)
		return 0;
	for (const char *c = name; *c; c++)
		if (!(isalnum((unsigned char)*c) || *c == '_'))
			return 0;
	return 1;
}

/* The product of the counts of u's batch, in double (no overflow). */
static double user_batch_product(const struct user_defs *u)
{
	double n = 1;
	for (int b = 0; b < u->nbatch; b++)
		n *= (double)u->batch[b].spec.n;
	return n;
}

/* Makes name a batch parameter of spec (j its index, -1 for a new one) in a copy, checked. */
static int user_param_batch(struct user_defs *u, struct param_store *store, int j, const char *name,
                            const char *value, struct qx_err *e)
{
	struct user_defs v = *u;
	struct param_spec spec;
	struct qx_err why;
	const char *kept = param_store_keep(store, value);
	if (!kept)
		return qx_fail(e, "out of memory for the values of parameter %s", name);
	if (param_spec_parse(kept, USER_BATCH_MAX, &spec, &why) < 0)
		return qx_fail(e, "bad values for parameter %s: %s", name, why.msg);
	for (int k = 0; k < spec.n; k++)
		if (isnan(param_spec_value(&spec, k))) {
			char word[PARAM_SPEC_WORD];
			param_spec_word(&spec, k, word, sizeof word);
			return qx_fail(e,
			               "bad value '%s' in the list for parameter %s: expected "
			               "finite numbers",
			               word, name);
		}
	if (j < 0) {
		if (v.nparams == USER_MAX_PARAMS)
			return qx_fail(e, "too many parameters: at most %d", USER_MAX_PARAMS);
		j = v.nparams++;
		snprintf(v.param_name[j], sizeof v.param_name[j], "%s", name);
	}
	int b = user_batch_slot(&v, j);
	if (b < 0) {
		if (v.nbatch == USER_BATCH_PARAMS)
			return qx_fail(
			    e,
			    "set param %s: at most %d batch parameters (parameters of "
			    "many values); make one a single value first (set param NAME "
			    "VALUE)",
			    name, USER_BATCH_PARAMS);
		b = v.nbatch++;
	}
	v.batch[b] = (struct user_batch){.param = j, .spec = spec};
	v.param_value[j] = param_spec_value(&spec, 0);
	const double n = user_batch_product(&v);
	if (n > (double)USER_BATCH_MAX)
		return qx_fail(e,
		               "set param %s: the batch would be %.6g integrals, at most %lld: "
		               "fewer values",
		               name, n, USER_BATCH_MAX);
	*u = v;
	return 0;
}

/* Adds or updates name = value, or makes it a batch parameter. */
int user_param_define(struct user_defs *u, struct param_store *store, const char *name,
                      const char *value, int (*taken)(const char *name, const void *arg),
                      const void *arg, struct qx_err *e)
{
	double v;
	if (!user_is_identifier(name))
		return qx_fail(
		    e,
		    "bad parameter name '%.64s': expected a letter or '_', then letters, "
		    "digits or '_' (up to %d)",
		    name, USER_NAME_MAX);
	if (taken && taken(name, arg))
		return qx_fail(e,
		               "'%s' is taken (a setting, a variable or a function): choose "
		               "another name",
		               name);
	int j = user_param_find(u, name);
	if (parse_real(value, &v)) {
		if (strstr(value, "..") || strchr(value, ','))
			return user_param_batch(u, store, j, name, value, e);
		return qx_fail(e,
		               "bad value '%.64s' for parameter %s: expected a finite number, or "
		               "many values: %s",
		               value, name, PARAM_SPEC_HELP);
	}
	if (j < 0) {
		if (u->nparams == USER_MAX_PARAMS)
			return qx_fail(e, "too many parameters: at most %d", USER_MAX_PARAMS);
		j = u->nparams++;
		snprintf(u->param_name[j], sizeof u->param_name[j], "%s", name);
	}
	u->param_value[j] = v;
	user_param_single(u, j);
	return 0;
}

/* Drops j's batch slot, the others keeping their order. */
void user_param_single(struct user_defs *u, int j)
{
	const int b = user_batch_slot(u, j);
	if (b < 0)
		return;
	memmove(&u->batch[b], &u->batch[b + 1], (size_t)(u->nbatch - b - 1) * sizeof *u->batch);
	u->nbatch--;
}

/* j's slot in the batch, or -1. */
int user_batch_slot(const struct user_defs *u, int j)
{
	for (int b = 0; b < u->nbatch; b++)
		if (u->batch[b].param == j)
			return b;
	return -1;
}

/* The grid's size. */
long long user_batch_count(const struct user_defs *u)
{
	return (long long)user_batch_product(u);
}

/* Integral i's coordinates on the grid, the first parameter fastest. */
void user_batch_point(const struct user_defs *u, long long i, double *values)
{
	for (int b = 0; b < u->nbatch; b++) {
		const long long n = u->batch[b].spec.n;
		values[b] = param_spec_value(&u->batch[b].spec, i % n);
		i /= n;
	}
}

/* One bound: a number, -inf or inf; 0 or -1. */
static int user_bound_parse(const char *word, double *out)
{
	if (!strcmp(word, "inf") || !strcmp(word, "+inf")) {
		*out = INFINITY;
		return 0;
	}
	if (!strcmp(word, "-inf")) {
		*out = -INFINITY;
		return 0;
	}
	return parse_real(word, out);
}

/* Parses the LO:HI words into a copy, then commits. */
int user_bounds_parse(struct user_defs *u, int argc, char *const *argv, struct qx_err *e)
{
	double lo[USER_MAX_AXES], hi[USER_MAX_AXES];
	if (argc < 1 || argc > USER_MAX_AXES)
		return qx_fail(e,
		               "set bounds takes 1..%d LO:HI pairs (one for every axis, or one an "
		               "axis); got %d",
		               USER_MAX_AXES, argc);
	for (int i = 0; i < argc; i++) {
		char word[80];
		const char *colon = strchr(argv[i], ':');
		if (!colon || strlen(argv[i]) >= sizeof word)
			return qx_fail(
			    e,
			    "bad bounds '%.64s' for axis %d: expected LO:HI, each a number, "
			    "-inf or inf",
			    argv[i], i + 1);
		snprintf(word, sizeof word, "%s", argv[i]);
		word[colon - argv[i]] = '\0';
		if (user_bound_parse(word, &lo[i]) || user_bound_parse(colon + 1, &hi[i]))
			return qx_fail(
			    e,
			    "bad bounds '%.64s' for axis %d: expected LO:HI, each a number, "
			    "-inf or inf",
			    argv[i], i + 1);
		if (!(lo[i] < hi[i]))
			return qx_fail(e, "bad bounds '%.64s' for axis %d: LO must be below HI",
			               argv[i], i + 1);
	}
	u->nbounds = argc;
	memcpy(u->lo, lo, (size_t)argc * sizeof *lo);
	memcpy(u->hi, hi, (size_t)argc * sizeof *hi);
	return 0;
}

/* One bound as set bounds takes it. */
static void user_bound_format(double v, char *buf, size_t len)
{
	if (isinf(v))
		snprintf(buf, len, "%s", v < 0 ? "-inf" : "inf");
	else
		format_real(v, buf, len);
}

/* "LO:HI ..." of the bounds set, or "a:b". */
void user_bounds_format(const struct user_defs *u, char *buf, size_t len)
{
	size_t used = 0;
	snprintf(buf, len, "%s", u->nbounds ? "" : "a:b");
	for (int i = 0; i < u->nbounds && used < len; i++) {
		char lo[32], hi[32];
		user_bound_format(u->lo[i], lo, sizeof lo);
		user_bound_format(u->hi[i], hi, sizeof hi);
		used += (size_t)snprintf(buf + used, len - used, "%s%s:%s", i ? " " : "", lo, hi);
	}
}

/* A finite number, none, or an expression kept in store. */
int user_exact_parse(struct user_defs *u, struct param_store *store, const char *word,
                     struct qx_err *e)
{
	double v;
	u->exact_expr = NULL;
	if (!strcmp(word, "none")) {
		u->exact = NAN;
		return 0;
	}
	if (parse_real(word, &v)) {
		if (!*word)
			return qx_fail(e, "bad value '' for exact: expected a finite number, none "
			                  "or an expression in the parameters");
		if (!(u->exact_expr = param_store_keep(store, word)))
			return qx_fail(e, "out of memory for the exact value's expression");
		u->exact = NAN;
		return 0;
	}
	u->exact = v;
	return 0;
}

/* Axis i's bounds: its own pair, the one pair for all, or [a, b]. */
void user_axis_bounds(const struct user_defs *u, int i, double a, double b, double *lo, double *hi)
{
	const int k = u->nbounds == 1 ? 0 : i;
	if (u->nbounds && k < u->nbounds) {
		*lo = u->lo[k];
		*hi = u->hi[k];
	} else {
		*lo = a;
		*hi = b;
	}
}

/* Parameters, bounds and exact value as words. */
void user_defs_string(const struct user_defs *u, char *buf, size_t len)
{
	char num[32], bounds[USER_MAX_AXES * 64];
	size_t used = 0;
	buf[0] = '\0';
	for (int j = 0; j < u->nparams && used < len; j++) {
		const int b = user_batch_slot(u, j);
		format_real(u->param_value[j], num, sizeof num);
		used += (size_t)snprintf(buf + used, len - used, "%s=%s ", u->param_name[j],
		                         b >= 0 ? u->batch[b].spec.text : num);
	}
	for (int b = 0; b < u->nbatch && used < len; b++) /* the grid's order */
		used += (size_t)snprintf(buf + used, len - used, "%sbatch=%s", b ? "," : "",
		                         u->param_name[u->batch[b].param]);
	if (u->nbatch && used < len)
		used += (size_t)snprintf(buf + used, len - used, " ");
	user_bounds_format(u, bounds, sizeof bounds);
	format_real(u->exact, num, sizeof num);
	if (used < len)
		snprintf(buf + used, len - used, "bounds=%s exact=%s", bounds,
		         u->exact_expr     ? u->exact_expr
		         : isnan(u->exact) ? "none"
		                           : num);
}
