/* param.c - parsing and formatting of typed parameter values. */
#include "param.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parses a whole word as a finite double (no trailing characters); returns 0 or -1. */
int parse_real(const char *word, double *out)
{
	char *end;
	double v;
	if (!word || !*word || strlen(word) > 64)
		return -1;
	/* strtod accepts "nan", "inf", hex floats and leading spaces: refuse them all. */
	if (strpbrk(word, "nNiIxX \t"))
		return -1;
	errno = 0;
	v = strtod(word, &end);
	if (*end || end == word || !isfinite(v))
		return -1;
	*out = v == 0 ? 0 : v; /* -0 is 0: shown as 0, never as "-0" */
	return 0;
}

/* Writes v with the fewest digits (15, else 17) that read back to the same double. */
void format_real(double v, char *buf, size_t len)
{
	double back;
	snprintf(buf, len, "%.15g", v);
	if (sscanf(buf, "%lf", &back) != 1 || back != v)
		snprintf(buf, len, "%.17g", v);
}

/* Writes the allowed values of def into buf. */
void param_describe_range(const struct param_def *def, char *buf, size_t len)
{
	size_t used = 0;
	switch (def->type) {
	case PARAM_INT:
		for (size_t i = 0; def->choices && def->choices[i]; i++)
			used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s|",
			                         def->choices[i]);
		snprintf(buf + (used < len ? used : len - 1), used < len ? len - used : 1,
		         "an integer in %.0f..%.0f", def->min, def->max);
		break;
	case PARAM_REAL:
		for (size_t i = 0; def->choices && def->choices[i]; i++)
			used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s|",
			                         def->choices[i]);
		snprintf(buf + (used < len ? used : len - 1), used < len ? len - used : 1,
		         "a number in %s%g, %g%s", def->min_open & PARAM_MIN_OPEN ? "(" : "[",
		         def->min, def->max, def->min_open & PARAM_MAX_OPEN ? ")" : "]");
		break;
	case PARAM_PATH:
		snprintf(buf, len, "a file name (printable, up to %d bytes) or none",
		         PARAM_PATH_MAX);
		break;
	case PARAM_EXPR:
		buf[0] = '\0';
		for (size_t i = 0; def->choices[i]; i++)
			used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s|",
			                         def->choices[i]);
		snprintf(buf + (used < len ? used : len - 1), used < len ? len - used : 1,
		         "an expression (up to %d bytes; see help expressions)", PARAM_EXPR_MAX);
		break;
	case PARAM_RANGE:
		snprintf(buf, len, "LO:HI or a number, with %g %s LO <= HI %s %g", def->min,
		         def->min_open & PARAM_MIN_OPEN ? "<" : "<=",
		         def->min_open & PARAM_MAX_OPEN ? "<" : "<=", def->max);
		break;
	case PARAM_ENUM:
		buf[0] = '\0';
		for (size_t i = 0; def->choices[i]; i++)
			used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s",
			                         i ? "|" : "", def->choices[i]);
		break;
	}
}

/* The file names PARAM_PATH values name: a fixed table of PARAM_PATH_SLOTS names, the least
 * recently used one given up for a new name, so that memory and the search stay bounded however
 * many names a session (or a fuzzer) gives. A value is slot + 1 + PARAM_PATH_SLOTS * generation;
 * a slot's generation grows each time it is given to a new name, so a value whose name was given
 * up reads as no file rather than as another file. */
struct param_path_slot {
	char *name;               /* NULL while the slot is free */
	unsigned long generation; /* how many names the slot has held before this one */
	unsigned long long used;  /* the use counter's value at the last use */
};
static struct param_path_slot param_slots[PARAM_PATH_SLOTS];
static unsigned long long param_path_clock;

/* The value naming path, added when new (over the least recently used name when the table is
 * full); 0 when out of memory. */
static double param_path_intern(const char *path)
{
	size_t pick = PARAM_PATH_SLOTS; /* the first free slot, else the least recently used */
	char *copy;
	for (size_t i = 0; i < PARAM_PATH_SLOTS; i++) {
		struct param_path_slot *slot = &param_slots[i];
		if (slot->name && !strcmp(slot->name, path)) {
			slot->used = ++param_path_clock;
			return (double)(i + 1) +
			       (double)PARAM_PATH_SLOTS * (double)slot->generation;
		}
		if (pick == PARAM_PATH_SLOTS ||
		    (param_slots[pick].name &&
		     (!slot->name || slot->used < param_slots[pick].used)))
			pick = i;
	}
	if (!(copy = strdup(path)))
		return 0;
	if (param_slots[pick].name) {
		free(param_slots[pick].name);
		param_slots[pick].generation++;
	}
	param_slots[pick].name = copy;
	param_slots[pick].used = ++param_path_clock;
	return (double)(pick + 1) + (double)PARAM_PATH_SLOTS * (double)param_slots[pick].generation;
}

/* The file name a PARAM_PATH value stands for, or NULL for none (or a name given up since). */
const char *param_path(struct param_value v)
{
	double slot, generation;
	if (!(v.num >= 1) || v.num > 9007199254740992.0)
		return NULL;
	generation = floor((v.num - 1) / PARAM_PATH_SLOTS);
	slot = v.num - 1 - generation * PARAM_PATH_SLOTS;
	if (!param_slots[(size_t)slot].name ||
	    (double)param_slots[(size_t)slot].generation != generation)
		return NULL;
	param_slots[(size_t)slot].used = ++param_path_clock;
	return param_slots[(size_t)slot].name;
}

/* The texts PARAM_EXPR values have named, each once, kept for the process's life: at most
 * PARAM_EXPR_COUNT of them, so that a script (or a fuzzer) cannot grow the table without bound,
 * and a search stays short. */
static char *param_exprs[PARAM_EXPR_COUNT];
static size_t param_nexprs;

/* The index of text in the texts seen, added when new; -1 when the table is full or memory is
 * out. */
static long param_expr_intern(const char *text)
{
	for (size_t i = 0; i < param_nexprs; i++)
		if (!strcmp(param_exprs[i], text))
			return (long)i;
	if (param_nexprs == PARAM_EXPR_COUNT || !(param_exprs[param_nexprs] = strdup(text)))
		return -1;
	return (long)param_nexprs++;
}

/* The expression of a PARAM_EXPR value, or NULL for a choice. */
const char *param_expr(struct param_value v)
{
	const double i = -1 - v.num;
	return v.num < 0 && i < (double)param_nexprs ? param_exprs[(size_t)i] : NULL;
}

/* 1 when v of def shows as a number. */
int param_is_number(const struct param_def *def, struct param_value v)
{
	return (def->type == PARAM_INT || def->type == PARAM_REAL) && !(def->choices && v.num < 0);
}

/* Checks one number against def's bounds; returns 0 or -1. */
static int param_in_bounds(const struct param_def *def, double v)
{
	if (v < def->min || v > def->max)
		return -1;
	if ((def->min_open & PARAM_MIN_OPEN && v == def->min) ||
	    (def->min_open & PARAM_MAX_OPEN && v == def->max))
		return -1;
	return 0;
}

/* Fills e with "bad value WORD for NAME: expected RANGE" and returns -1. */
static int param_reject(const struct param_def *def, const char *word, struct qx_err *e)
{
	char range[256];
	param_describe_range(def, range, sizeof range);
	return qx_fail(e, "bad value '%.64s' for %s: expected %s", word, def->name, range);
}

/* Parses word into *out according to def's type and bounds. */
int param_parse(const struct param_def *def, const char *word, struct param_value *out,
                struct qx_err *e)
{
	struct param_value v = {0, 0};
	const char *colon;
	char lo[80];

	switch (def->type) {
	case PARAM_ENUM:
		for (size_t i = 0; def->choices[i]; i++)
			if (strcmp(word, def->choices[i]) == 0) {
				v.num = (double)i;
				*out = v;
				return 0;
			}
		return param_reject(def, word, e);
	case PARAM_EXPR: {
		for (size_t i = 0; def->choices[i]; i++)
			if (strcmp(word, def->choices[i]) == 0) {
				*out = (struct param_value){(double)i, 0};
				return 0;
			}
		if (strlen(word) > PARAM_EXPR_MAX)
			return qx_fail(e, "the expression for %s is %zu bytes long: at most %d",
			               def->name, strlen(word), PARAM_EXPR_MAX);
		const long k = param_expr_intern(word);
		if (k < 0)
			return qx_fail(e,
			               "too many distinct expressions in this session (%d): reuse "
			               "one, or start quadx again",
			               PARAM_EXPR_COUNT);
		v.num = -1.0 - (double)k;
		break;
	}
	case PARAM_INT:
		for (size_t i = 0; def->choices && def->choices[i]; i++)
			if (strcmp(word, def->choices[i]) == 0) {
				*out = (struct param_value){-1.0 - (double)i, 0};
				return 0;
			}
		if (parse_real(word, &v.num) || v.num != floor(v.num) ||
		    param_in_bounds(def, v.num))
			return param_reject(def, word, e);
		break;
	case PARAM_REAL:
		for (size_t i = 0; def->choices && def->choices[i]; i++)
			if (strcmp(word, def->choices[i]) == 0) {
				*out = (struct param_value){-1.0 - (double)i, 0};
				return 0;
			}
		if (parse_real(word, &v.num) || param_in_bounds(def, v.num))
			return param_reject(def, word, e);
		break;
	case PARAM_PATH:
		if (!strcmp(word, "none"))
			break;
		for (const char *c = word; *c || c == word; c++) /* an empty name too */
			if (!*c || iscntrl((unsigned char)*c) || c - word >= PARAM_PATH_MAX) {
				char range[128];
				param_describe_range(def, range, sizeof range);
				return qx_fail(e, "bad file name for %s (%zu bytes): expected %s",
				               def->name, strlen(word), range);
			}
		if (!(v.num = param_path_intern(word)))
			return qx_fail(e, "out of memory for the file name of %s", def->name);
		break;
	case PARAM_RANGE:
		colon = strchr(word, ':');
		if (!colon) {
			if (parse_real(word, &v.num) || param_in_bounds(def, v.num))
				return param_reject(def, word, e);
			v.hi = v.num;
			break;
		}
		if ((size_t)(colon - word) >= sizeof lo)
			return param_reject(def, word, e);
		memcpy(lo, word, (size_t)(colon - word));
		lo[colon - word] = '\0';
		if (parse_real(lo, &v.num) || parse_real(colon + 1, &v.hi) ||
		    param_in_bounds(def, v.num) || param_in_bounds(def, v.hi))
			return param_reject(def, word, e);
		if (v.hi < v.num)
			return qx_fail(e,
			               "bad value '%.64s' for %s: the range is reversed (LO > HI)",
			               word, def->name);
		break;
	}
	*out = v;
	return 0;
}

/* Writes v in a form param_parse accepts back. */
void param_format(const struct param_def *def, struct param_value v, char *buf, size_t len)
{
	switch (def->type) {
	case PARAM_ENUM:
		snprintf(buf, len, "%s", def->choices[(int)v.num]);
		break;
	case PARAM_INT:
		if (def->choices && v.num < 0)
			snprintf(buf, len, "%s", def->choices[(int)(-1 - v.num)]);
		else
			snprintf(buf, len, "%.0f", v.num);
		break;
	case PARAM_REAL:
		if (def->choices && v.num < 0)
			snprintf(buf, len, "%s", def->choices[(int)(-1 - v.num)]);
		else
			format_real(v.num, buf, len);
		break;
	case PARAM_PATH:
		snprintf(buf, len, "%s", param_path(v) ? param_path(v) : "none");
		break;
	case PARAM_EXPR:
		if (v.num >= 0)
			snprintf(buf, len, "%s", def->choices[(int)v.num]);
		else
			snprintf(buf, len, "%s", param_expr(v) ? param_expr(v) : "?");
		break;
	case PARAM_RANGE: {
		char lo[32], hi[32];
		format_real(v.num, lo, sizeof lo);
		format_real(v.hi, hi, sizeof hi);
		if (v.num == v.hi)
			snprintf(buf, len, "%s", lo);
		else
			snprintf(buf, len, "%s:%s", lo, hi);
		break;
	}
	}
}

/* Returns def's default value. */
struct param_value param_default(const struct param_def *def)
{
	struct param_value v = {def->def, def->type == PARAM_RANGE ? def->def_hi : 0};
	return v;
}

/* Returns the index of name in defs, or -1. */
int param_find(const struct param_def *defs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(defs[i].name, name) == 0)
			return (int)i;
	return -1;
}
