/* output.h - results as text, JSON Lines (cJSON) or CSV; free of terminal handling. */
#ifndef QX_OUTPUT_H
#define QX_OUTPUT_H

#include "session.h"

struct cJSON; /* <cjson/cJSON.h> */

/* Prints one run result in the session's format. */
void output_run(struct session *s, const struct run_result *r);

/* Prints obj as one JSON line on the session's output and deletes it. */
void output_print_json(struct session *s, struct cJSON *obj);

/* Prints header (once, until it changes) and row as CSV lines on the session's output. */
void output_print_csv(struct session *s, const char *header, const char *row);

/* Adds number v to a cJSON object, or null when it is not finite. */
void output_json_num(struct cJSON *obj, const char *name, double v);

/* The phase times of t as a cJSON object (the CPU: only total), and the same added to obj. */
struct cJSON *output_phases_json(const struct qx_phases *t, enum qx_backend b);
void output_json_phases(struct cJSON *obj, const char *name, const struct qx_phases *t,
                        enum qx_backend b);

/* The JSON object of a run result (cJSON; the caller deletes it). */
struct cJSON *output_run_json(const struct run_result *r);

/* Writes the CSV header and row of a run result into header[1024] and row[2048]. */
void output_run_csv(const struct run_result *r, char *header, char *row);

/* Appends the columns NAME_min_ms and NAME_max_ms of every GPU phase (alloc, h2d, kernel,
 * d2h, free) to the CSV header (hlen bytes) and their values in min and max to row (rlen
 * bytes); empty fields when min and max are NULL (a CPU run). */
void output_phase_spread_csv(char *header, size_t hlen, char *row, size_t rlen,
                             const struct qx_phases *min, const struct qx_phases *max);

/* Prints every timed sample of r (show last). */
void output_samples(struct session *s, const struct run_result *r);

/* The JSON object of one evaluation (cJSON; the caller deletes it); a value that is not
 * finite is null. */
struct cJSON *output_eval_json(const struct problem *p, const double *args, size_t nargs,
                               enum qx_backend b, enum qx_precision prec,
                               const struct eval_result *v);

/* Prints one evaluation of problem p at args on backend b in precision prec. */
void output_eval(struct session *s, const struct problem *p, const double *args, size_t nargs,
                 enum qx_backend b, enum qx_precision prec, const struct eval_result *v);

/* Prints the k worst points of the last result (indices idx, largest error first). */
void output_worst(struct session *s, const struct run_result *r, const double *ref,
                  const void *vals, const size_t *idx, size_t k);

/* Prints a list of name/value pairs as one record (show params, show device). */
struct kv {
	const char *name;
	const char *text; /* the value as text, or NULL for a number */
	double num;
};
void output_record(struct session *s, const char *kind, const struct kv *kv, size_t n);

/* Prints values with the fewest digits that round-trip (up to 17 significant). */
void output_number(char *buf, size_t len, double v);

#endif
