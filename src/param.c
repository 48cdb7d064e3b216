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

/* A block of a store's text bytes; blocks are only added, so a kept text never moves. */
struct param_store_block {
	struct param_store_block *next; /* the block filled before this one */
	size_t used, size;              /* bytes of bytes[] in use, and in all */
	char bytes[];
};

/* One slot of a store's index: a kept text (NULL: the slot is free), its hash and its index
 * (the order in which the texts came, from 0). */
struct param_store_slot {
	const char *text;
	size_t hash, index;
};

/* The texts of a session's values: their bytes in blocks, and an open-addressing hash index
 * (linear probing, at most half full) that finds a text already kept, so that a text given
 * again adds nothing and gets the value it had. */
struct param_store {
	struct param_store_block *blocks; /* the newest first */
	struct param_store_slot *slots;
	size_t nslots; /* a power of 2, or 0 before the first text */
	size_t count;  /* distinct texts kept */
};

#define PARAM_STORE_BLOCK 16384 /* bytes of a block (a longer text gets a block of its own) */

/* A new, empty store, or NULL when out of memory. */
struct param_store *param_store_new(void)
{
	return calloc(1, sizeof(struct param_store));
}

/* Frees store's blocks, its index and itself. */
void param_store_free(struct param_store *store)
{
	if (!store)
		return;
	for (struct param_store_block *b = store->blocks, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(store->slots);
	free(store);
}

/* How many distinct texts store keeps. */
size_t param_store_count(const struct param_store *store)
{
	return store ? store->count : 0;
}

/* The FNV-1a hash of text. */
static size_t param_text_hash(const char *text)
{
	unsigned long long h = 14695981039346656037ULL;
	for (const unsigned char *c = (const unsigned char *)text; *c; c++)
		h = (h ^ *c) * 1099511628211ULL;
	return (size_t)h;
}

/* Doubles store's index (64 slots the first time), placing every kept text again; returns 0,
 * or -1 when out of memory (the index is then as it was). */
static int param_store_grow(struct param_store *store)
{
	const size_t nslots = store->nslots ? 2 * store->nslots : 64;
	struct param_store_slot *slots = calloc(nslots, sizeof *slots);
	if (!slots)
		return -1;
	for (size_t i = 0; i < store->nslots; i++) {
		const struct param_store_slot *old = &store->slots[i];
		size_t j = old->hash & (nslots - 1);
		if (!old->text)
			continue;
		while (slots[j].text)
			j = (j + 1) & (nslots - 1);
		slots[j] = *old;
	}
	free(store->slots);
	store->slots = slots;
	store->nslots = nslots;
	return 0;
}

/* A copy of text's len + 1 bytes in store's blocks (a new block when the newest is full), or
 * NULL when out of memory. */
static const char *param_store_copy(struct param_store *store, const char *text, size_t len)
{
	struct param_store_block *b = store->blocks;
	if (!b || b->size - b->used < len + 1) {
		const size_t size = len + 1 > PARAM_STORE_BLOCK ? len + 1 : PARAM_STORE_BLOCK;
		if (!(b = malloc(sizeof *b + size)))
			return NULL;
		b->next = store->blocks;
		b->used = 0;
		b->size = size;
		store->blocks = b;
	}
	char *copy = memcpy(b->bytes + b->used, text, len + 1);
	b->used += len + 1;
	return copy;
}

/* The slot of store's index that holds text (of hash hash), else the free slot where it
 * goes; the index has a free slot. */
static struct param_store_slot *param_store_slot(const struct param_store *store, const char *text,
                                                 size_t hash)
{
	size_t j = hash & (store->nslots - 1);
	while (store->slots[j].text &&
	       (store->slots[j].hash != hash || strcmp(store->slots[j].text, text)))
		j = (j + 1) & (store->nslots - 1);
	return &store->slots[j];
}

/* Finds text in store, keeping a copy when it is new: the kept text into *kept and its index
 * (from 0, in the order the texts came) into *index. Returns 0, or -1 when out of memory. */
static int param_store_intern(struct param_store *store, const char *text, const char **kept,
                              size_t *index)
{
	const size_t hash = param_text_hash(text);
	struct param_store_slot *slot;
	if (!store->nslots && param_store_grow(store))
		return -1;
	slot = param_store_slot(store, text, hash);
	if (!slot->text) { /* new: the index stays at most half full */
		if (2 * (store->count + 1) > store->nslots) {
			if (param_store_grow(store))
				return -1;
			slot = param_store_slot(store, text, hash);
		}
		const char *copy = param_store_copy(store, text, strlen(text));
		if (!copy)
			return -1;
		*slot = (struct param_store_slot){copy, hash, store->count++};
	}
	*kept = slot->text;
	*index = slot->index;
	return 0;
}

/* The file name of a PARAM_PATH value, or NULL for none. */
const char *param_path(struct param_value v)
{
	return v.kind == PARAM_KIND_TEXT && v.num > 0 ? v.text : NULL;
}

/* The expression of a PARAM_EXPR value, or NULL for a choice. */
const char *param_expr(struct param_value v)
{
	return v.kind == PARAM_KIND_TEXT && v.num < 0 ? v.text : NULL;
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

/* Keeps text in store (param.h). */
const char *param_store_keep(struct param_store *store, const char *text)
{
	const char *kept;
	size_t index;
	return store && !param_store_intern(store, text, &kept, &index) ? kept : NULL;
}

/* Keeps text (a value of def) in store, making *v a PARAM_KIND_TEXT value: num 1 + its index
 * for a file name, -1 - its index for an expression. Returns 0, or -1 with e when there is no
 * store or no memory. */
static int param_keep(struct param_store *store, const struct param_def *def, const char *text,
                      struct param_value *v, struct qx_err *e)
{
	const char *what = def->type == PARAM_PATH ? "file name" : "expression";
	size_t index;
	if (!store)
		return qx_fail(e, "no store for the %s of %s", what, def->name);
	if (param_store_intern(store, text, &v->text, &index))
		return qx_fail(e, "out of memory for the %s of %s", what, def->name);
	v->kind = PARAM_KIND_TEXT;
	v->num = def->type == PARAM_PATH ? 1.0 + (double)index : -1.0 - (double)index;
	return 0;
}

/* Parses word into *out according to def's type and bounds, its text into store. */
int param_parse_in(struct param_store *store, const struct param_def *def, const char *word,
                   struct param_value *out, struct qx_err *e)
{
	struct param_value v = {.kind = PARAM_KIND_NUMBER};
	const char *colon;
	char lo[80];

	switch (def->type) {
	case PARAM_ENUM:
		for (size_t i = 0; def->choices[i]; i++)
			if (strcmp(word, def->choices[i]) == 0) {
				*out =
				    (struct param_value){.num = (double)i, .kind = PARAM_KIND_WORD};
				return 0;
			}
		return param_reject(def, word, e);
	case PARAM_EXPR:
		for (size_t i = 0; def->choices[i]; i++)
			if (strcmp(word, def->choices[i]) == 0) {
				*out =
				    (struct param_value){.num = (double)i, .kind = PARAM_KIND_WORD};
				return 0;
			}
		if (strlen(word) > PARAM_EXPR_MAX)
			return qx_fail(e, "the expression for %s is %zu bytes long: at most %d",
			               def->name, strlen(word), PARAM_EXPR_MAX);
		if (param_keep(store, def, word, &v, e))
			return -1;
		break;
	case PARAM_INT:
		for (size_t i = 0; def->choices && def->choices[i]; i++)
			if (strcmp(word, def->choices[i]) == 0) {
				*out = (struct param_value){.num = -1.0 - (double)i,
				                            .kind = PARAM_KIND_WORD};
				return 0;
			}
		if (parse_real(word, &v.num) || v.num != floor(v.num) ||
		    param_in_bounds(def, v.num))
			return param_reject(def, word, e);
		break;
	case PARAM_REAL:
		for (size_t i = 0; def->choices && def->choices[i]; i++)
			if (strcmp(word, def->choices[i]) == 0) {
				*out = (struct param_value){.num = -1.0 - (double)i,
				                            .kind = PARAM_KIND_WORD};
				return 0;
			}
		if (parse_real(word, &v.num) || param_in_bounds(def, v.num))
			return param_reject(def, word, e);
		break;
	case PARAM_PATH:
		if (!strcmp(word, "none")) {
			v.kind = PARAM_KIND_WORD;
			break;
		}
		for (const char *c = word; *c || c == word; c++) /* an empty name too */
			if (!*c || iscntrl((unsigned char)*c) || c - word >= PARAM_PATH_MAX) {
				char range[128];
				param_describe_range(def, range, sizeof range);
				return qx_fail(e, "bad file name for %s (%zu bytes): expected %s",
				               def->name, strlen(word), range);
			}
		if (param_keep(store, def, word, &v, e))
			return -1;
		break;
	case PARAM_RANGE:
		v.kind = PARAM_KIND_RANGE;
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

/* Parses word into *out with no store for a text. */
int param_parse(const struct param_def *def, const char *word, struct param_value *out,
                struct qx_err *e)
{
	return param_parse_in(NULL, def, word, out, e);
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

/* Returns def's default value: a range for RANGE, a word for ENUM, EXPR, PATH (none) and the
 * words of INT and REAL (def < 0), else a number. */
struct param_value param_default(const struct param_def *def)
{
	struct param_value v = {.num = def->def, .kind = PARAM_KIND_WORD};
	if (def->type == PARAM_RANGE) {
		v.hi = def->def_hi;
		v.kind = PARAM_KIND_RANGE;
	} else if ((def->type == PARAM_INT || def->type == PARAM_REAL) &&
	           !(def->choices && def->def < 0)) {
		v.kind = PARAM_KIND_NUMBER;
	}
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

/* A range's value k before it is written out. */
static double param_spec_raw(const struct param_spec *s, long long k)
{
	switch (s->kind) {
	case PARAM_SPEC_POW2:
		return ldexp(s->step, (int)k);
	case PARAM_SPEC_FACTOR:
		return s->lo * pow(s->step, (double)k);
	default:
		return s->lo + s->step * (double)k;
	}
}

/* Parses the range "A..B[:STEP|:xFACTOR]" (dots points at ".."), counting its values. */
static long long param_spec_range(const char *spec, const char *dots, long long max,
                                  struct param_spec *out, struct qx_err *e)
{
	char lo_word[64], hi_word[64], step_word[64] = "";
	const char *colon = strchr(dots + 2, ':');
	double lo, hi, step = 0;
	int geometric = 0;
	snprintf(lo_word, sizeof lo_word, "%.*s", (int)(dots - spec), spec);
	snprintf(hi_word, sizeof hi_word, "%.*s", (int)(colon ? colon - dots - 2 : 63), dots + 2);
	if (colon) {
		geometric = colon[1] == 'x';
		snprintf(step_word, sizeof step_word, "%s", colon + 1 + geometric);
	}
	if (parse_real(lo_word, &lo) || parse_real(hi_word, &hi) ||
	    (colon && parse_real(step_word, &step)))
		return qx_fail(e, "bad range '%.64s': A, B and the step must be numbers (%s)", spec,
		               PARAM_SPEC_HELP);
	if (lo > hi)
		return qx_fail(e, "bad range '%.64s': A = %g is above B = %g", spec, lo, hi);
	if (colon && !geometric && !(step > 0))
		return qx_fail(e, "bad range '%.64s': the step must be above 0", spec);
	if (geometric && (!(step > 1) || !(lo > 0)))
		return qx_fail(e, "bad range '%.64s': xFACTOR needs a factor above 1 and A above 0",
		               spec);
	*out = (struct param_spec){.lo = lo, .hi = hi, .step = step, .text = spec};
	if (!colon) {
		out->kind = PARAM_SPEC_POW2;
		for (double p = 1; p <= hi; p *= 2)
			if (p >= lo) {
				if (out->n == 0)
					out->step = p;
				if (++out->n > max)
					goto too_many;
			}
		if (out->n == 0)
			return qx_fail(e, "bad range '%.64s': no power of two lies in %g..%g", spec,
			               lo, hi);
		return out->n;
	}
	out->kind = geometric ? PARAM_SPEC_FACTOR : PARAM_SPEC_STEP;
	for (long long k = 0;; k++) {
		if (param_spec_raw(out, k) > hi * (1 + 1e-12))
			break;
		if (++out->n > max)
			goto too_many;
	}
	return out->n;
too_many:
	return qx_fail(e, "range '%.64s' has more than %lld values", spec, max);
}

/* Parses a range or a list of words. */
long long param_spec_parse(const char *spec, long long max, struct param_spec *out,
                           struct qx_err *e)
{
	const char *dots = strstr(spec, "..");
	if (dots)
		return param_spec_range(spec, dots, max, out, e);
	*out = (struct param_spec){.kind = PARAM_SPEC_LIST, .text = spec};
	for (const char *p = spec;;) {
		const size_t len = strcspn(p, ",");
		if (len == 0)
			return qx_fail(e, "bad list '%.64s': an empty value (%s)", spec,
			               PARAM_SPEC_HELP);
		if (len >= PARAM_SPEC_WORD)
			return qx_fail(e, "bad list '%.64s': a value longer than %d characters",
			               spec, PARAM_SPEC_WORD - 1);
		if (out->n == max)
			return qx_fail(e, "list '%.64s' has more than %lld values", spec, max);
		out->n++;
		if (!p[len])
			return out->n;
		p += len + 1;
	}
}

/* Word k of a list, or a range's number with 15 digits. */
void param_spec_word(const struct param_spec *s, long long k, char *buf, size_t len)
{
	if (s->kind != PARAM_SPEC_LIST) {
		snprintf(buf, len, "%.15g", param_spec_raw(s, k));
		return;
	}
	const char *p = s->text;
	for (; k > 0; k--)
		p += strcspn(p, ",") + 1;
	snprintf(buf, len, "%.*s", (int)strcspn(p, ","), p);
}

/* A range's value k as its word reads (integers as they are, without the round trip). */
static double param_spec_number(const struct param_spec *s, long long k)
{
	const double v = param_spec_raw(s, k);
	char word[PARAM_SPEC_WORD];
	if (v == nearbyint(v) && fabs(v) < 1e15)
		return v;
	snprintf(word, sizeof word, "%.15g", v);
	return strtod(word, NULL);
}

/* Value k as a number. */
double param_spec_value(const struct param_spec *s, long long k)
{
	char word[PARAM_SPEC_WORD];
	double v;
	if (s->kind != PARAM_SPEC_LIST)
		return param_spec_number(s, k);
	param_spec_word(s, k, word, sizeof word);
	return parse_real(word, &v) ? NAN : v;
}

/* Every value, a list's words read in one pass. */
void param_spec_values(const struct param_spec *s, double *out)
{
	const char *p = s->text;
	for (long long k = 0; k < s->n; k++) {
		char word[PARAM_SPEC_WORD];
		double v;
		if (s->kind != PARAM_SPEC_LIST) {
			out[k] = param_spec_number(s, k);
			continue;
		}
		const size_t len = strcspn(p, ",");
		snprintf(word, sizeof word, "%.*s", (int)len, p);
		out[k] = parse_real(word, &v) ? NAN : v;
		p += len + (p[len] != '\0');
	}
}
