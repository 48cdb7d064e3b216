/* param.h - typed, range-checked parameters: the tables that problems and settings declare. */
#ifndef QX_PARAM_H
#define QX_PARAM_H

#include "qx.h"

enum param_type {
	PARAM_INT,   /* an integer; words like 2e4 are accepted when exact */
	PARAM_REAL,  /* a finite real number */
	PARAM_ENUM,  /* one word of choices[] */
	PARAM_RANGE, /* LO:HI reals (a single number means LO = HI) */
	PARAM_PATH,  /* a file name (param_path), or none */
	PARAM_EXPR   /* one word of choices[] (num: its index), or an expression the problem checks
	              * (param_expr) */
};

/* What a value holds (param_value.kind). */
enum param_kind {
	PARAM_KIND_NUMBER, /* num: an INT or REAL number */
	PARAM_KIND_WORD,   /* num: one word of the definition's choices (ENUM, EXPR: its index;
	                    * INT, REAL: -1 - its index), or a PATH's none (num 0) */
	PARAM_KIND_TEXT,   /* text: a PATH's file name or an EXPR's expression; num tells the texts
	                    * of one store apart (a file name: 1 + its index there, > 0; an
	                    * expression: -1 - its index, < 0) */
	PARAM_KIND_RANGE   /* num..hi: a RANGE's LO:HI */
};

#define PARAM_PATH_MAX 255  /* longest file name of a PARAM_PATH */
#define PARAM_EXPR_MAX 4096 /* longest text of a PARAM_EXPR */
#define PARAM_TEXT_LEN 4104 /* bytes param_format may write (a PARAM_EXPR is the longest) */

#define PARAM_MIN_OPEN 1 /* bits of param_def.min_open */
#define PARAM_MAX_OPEN 2

/* One parameter: its name, type, allowed values, default and one-line help. */
struct param_def {
	const char *name;
	enum param_type type;
	double min, max;            /* inclusive bounds (INT, REAL, both ends of RANGE) */
	int min_open;               /* PARAM_MIN_OPEN: min itself is not allowed; | PARAM_MAX_OPEN:
	                             * nor max (REAL, RANGE) */
	double def, def_hi;         /* default (ENUM: index into choices; RANGE: def..def_hi) */
	const char *const *choices; /* ENUM: NULL-terminated list of words; INT, REAL: words
	                             * also allowed besides a number, word i stored as -1 - i (so
	                             * min must be >= 0) */
	const char *help;
	unsigned backends; /* 0: every run; QX_ON_GPU (QX_ON_CPU): only GPU (CPU) runs use it */
};

/* The value of one parameter: num (ENUM: choice index); hi only for RANGE; text only for a
 * file name or an expression, kept by the param_store it was parsed into (the session's), so
 * that a copy of the value is valid as long as that store. Built by hand, a value names its
 * fields ({.num = 3}): kind and text are then a number's. */
struct param_value {
	double num, hi;
	enum param_kind kind;
	const char *text; /* PARAM_KIND_TEXT: the text, in the store; else NULL */
};

/* The texts (file names, expressions) that a session's values hold: each distinct text once,
 * kept until param_store_free, where no kept text ever moves; any number of them, as memory
 * allows. A session owns one (session.h); a store is used by one thread at a time, while the
 * texts already kept may be read from any thread. */
struct param_store;

/* A new, empty store, or NULL when out of memory. */
struct param_store *param_store_new(void);

/* Frees store and every text it kept (NULL: nothing); the values pointing into it are then
 * invalid. */
void param_store_free(struct param_store *store);

/* How many distinct texts store keeps (0 for NULL). */
size_t param_store_count(const struct param_store *store);

/* Keeps text in store (once, as a value's text is kept) and returns the kept copy, valid
 * until param_store_free; NULL without a store or memory. */
const char *param_store_keep(struct param_store *store, const char *text);

/* Parses word as a value of def into *out; on failure fills e naming the word and the range. A
 * file name or an expression is kept in store (its value points there); with store NULL it is
 * refused, so param_parse serves the definitions whose values hold no text. */
int param_parse_in(struct param_store *store, const struct param_def *def, const char *word,
                   struct param_value *out, struct qx_err *e);

/* param_parse_in with no store: numbers, words and ranges. */
int param_parse(const struct param_def *def, const char *word, struct param_value *out,
                struct qx_err *e);

/* Writes the allowed values of def ("an integer in 1..1000000", "float|double") into buf. */
void param_describe_range(const struct param_def *def, char *buf, size_t len);

/* Writes v as def would accept it back ("5000", "0.5", "float", "0.05:0.5") into buf. */
void param_format(const struct param_def *def, struct param_value v, char *buf, size_t len);

/* The file name a PARAM_PATH value stands for (in its store), or NULL for none. */
const char *param_path(struct param_value v);

/* The expression a PARAM_EXPR value stands for (in its store), or NULL when it is one of the
 * choices. */
const char *param_expr(struct param_value v);

/* 1 when v of def is a number as shown (INT, or REAL other than one of its words), else 0:
 * it is then a word as param_format writes it. */
int param_is_number(const struct param_def *def, struct param_value v);

/* Returns the default value of def. */
struct param_value param_default(const struct param_def *def);

/* Returns the index of the entry named name in defs[0..n), or -1. Exact match only. */
int param_find(const struct param_def *defs, size_t n, const char *name);

/* Parses a whole word as a finite double; returns 0, or -1 if it is not a number. */
int parse_real(const char *word, double *out);

/* Writes v with the fewest digits (15, else 17) that read back to the same double. */
void format_real(double v, char *buf, size_t len);

/* A value spec as `sweep` and `set param` take it: "A..B" the powers of two in [A, B];
 * "A..B:S" A, A+S, A+2S ... up to B; "A..B:xF" A, A*F, A*F^2 ... up to B; "a,b,c" the words
 * as given (each shorter than PARAM_SPEC_WORD). A range is kept as its numbers, a list as its
 * text (text, which the spec points to: it must outlive the spec), so that a spec of many
 * values costs no memory until they are asked for. */
#define PARAM_SPEC_WORD 32
#define PARAM_SPEC_HELP "a list a,b,c or a range A..B (powers of two), A..B:STEP or A..B:xFACTOR"

enum param_spec_kind { PARAM_SPEC_LIST, PARAM_SPEC_POW2, PARAM_SPEC_STEP, PARAM_SPEC_FACTOR };

struct param_spec {
	enum param_spec_kind kind;
	double lo, hi, step; /* POW2: step is the first power of two in [lo, hi] */
	long long n;         /* how many values */
	const char *text;    /* the spec as given */
};

/* Parses spec (kept by the caller while out is used) into out: at most max values, at least
 * one. Returns the count, or -1 with e naming the spec and what is allowed. */
long long param_spec_parse(const char *spec, long long max, struct param_spec *out,
                           struct qx_err *e);

/* Writes value k (0-based, k < s->n) of s as a word into buf: a list's word as given, a
 * range's number with 15 significant digits (so that steps like 0.1 do not show their
 * rounding). */
void param_spec_word(const struct param_spec *s, long long k, char *buf, size_t len);

/* Value k of s as a number (what its word reads as); NaN for a word that is not a number. */
double param_spec_value(const struct param_spec *s, long long k);

/* Every value of s as numbers into out (s->n of them), in one pass. */
void param_spec_values(const struct param_spec *s, double *out);

#endif
