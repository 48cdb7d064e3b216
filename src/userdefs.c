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

/* Adds or updates name = value. */
int user_param_define(struct user_defs *u, const char *name, const char *value,
                      int (*taken)(const char *name, const void *arg), const void *arg,
                      struct qx_err *e)
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
	if (parse_real(value, &v))
		return qx_fail(e, "bad value '%.64s' for parameter %s: expected a finite number",
		               value, name);
	int j = user_param_find(u, name);
	if (j < 0) {
		if (u->nparams == USER_MAX_PARAMS)
			return qx_fail(e, "too many parameters: at most %d", USER_MAX_PARAMS);
		j = u->nparams++;
		snprintf(u->param_name[j], sizeof u->param_name[j], "%s", name);
	}
	u->param_value[j] = v;
	return 0;
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

/* A finite number, or none. */
int user_exact_parse(struct user_defs *u, const char *word, struct qx_err *e)
{
	double v;
	if (!strcmp(word, "none")) {
		u->exact = NAN;
		return 0;
	}
	if (parse_real(word, &v))
		return qx_fail(e, "bad value '%.64s' for exact: expected a finite number or none",
		               word);
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
		format_real(u->param_value[j], num, sizeof num);
		used += (size_t)snprintf(buf + used, len - used, "%s=%s ", u->param_name[j], num);
	}
	user_bounds_format(u, bounds, sizeof bounds);
	format_real(u->exact, num, sizeof num);
	if (used < len)
		snprintf(buf + used, len - used, "bounds=%s exact=%s", bounds,
		         isnan(u->exact) ? "none" : num);
}
