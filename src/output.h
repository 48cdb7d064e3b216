/* output.h - every row quadx prints or exports (runs, samples, evaluations, worst points,
 * records, sweeps) as text, JSON Lines (cJSON) or CSV; one serialiser per format and kind of
 * row; free of terminal handling. */
#ifndef QX_OUTPUT_H
#define QX_OUTPUT_H

#include "output_ctx.h"
#include "session.h"
#include "sweep.h"

struct cJSON; /* <cjson/cJSON.h> */

/* Prints one run result in the session's format. */
void output_run(struct output_ctx *io, const struct run_result *r);

/* Writes JSON text to out with each byte outside well-formed UTF-8 as the text \\xHH. */
void output_json_text(FILE *out, const char *text);

/* Writes text to out with control bytes and bytes outside UTF-8 as the text \\xHH. */
void output_visible_text(FILE *out, const char *text);

/* Prints obj as one JSON line on the session's output and deletes it. */
void output_print_json(struct output_ctx *io, struct cJSON *obj);

/* Prints header (once, until it changes) and row as CSV lines on the session's output. */
void output_print_csv(struct output_ctx *io, const char *header, const char *row);

/* Adds word to a cJSON object as a number when all of it is one (a parameter's value), else
 * as a string: numbers stay numbers in sweep rows, runs and exports. */
void output_json_word(struct cJSON *obj, const char *name, const char *word);

/* Adds number v to a cJSON object, or null when it is not finite. */
void output_json_num(struct cJSON *obj, const char *name, double v);

/* Appends field to a CSV line (len bytes), after a comma unless first, quoted per RFC 4180
 * when it holds a comma, a double quote or a line break. The one CSV field writer. */
void output_csv_field(char *line, size_t len, const char *field, int first);

/* Appends the number v as a CSV field (empty when not finite). */
void output_csv_num(char *line, size_t len, double v);

/* The phase times of t as a cJSON object: each phase by name, then total. */
struct cJSON *output_timing_json(const struct qx_timing *t);

/* The JSON object of a run result (cJSON; the caller deletes it). */
struct cJSON *output_run_json(const struct run_result *r);

/* Writes the CSV header and row of a run result into header and row (len bytes each): its
 * problem's declared phases (and any other it has) as NAME_ms, NAME_min_ms and NAME_max_ms,
 * empty for a CPU run; its figures last. */
void output_run_csv(const struct run_result *r, char *header, char *row, size_t len);

/* Prints every timed sample of r (show last). */
void output_samples(struct output_ctx *io, const struct run_result *r);

/* The JSON object of one evaluation (cJSON; the caller deletes it); a value that is not
 * finite is null. */
struct cJSON *output_eval_json(const struct problem *p, const double *args, size_t nargs,
                               enum qx_backend b, enum qx_precision prec,
                               const struct eval_result *v);

/* Prints one evaluation of problem p at args on backend b in precision prec. */
void output_eval(struct output_ctx *io, const struct problem *p, const double *args, size_t nargs,
                 enum qx_backend b, enum qx_precision prec, const struct eval_result *v);

/* Prints the k worst points of the last result (indices idx, largest error first; state: its
 * problem's slot, session_state, for the coordinates). */
void output_worst(struct output_ctx *io, const struct run_result *r, void **state,
                  const double *ref, const void *vals, const size_t *idx, size_t k);

/* The JSON object of value i of the last run r (state: its problem's slot, session_state; type
 * value: index, coordinates, value, error_estimate when est, reference when ref; cJSON, the
 * caller deletes it). */
struct cJSON *output_value_json(const struct run_result *r, void **state, const void *vals,
                                const double *est, const double *ref, size_t i);

/* Writes values first..first+n of the last run r (state: its problem's slot, session_state; its
 * values vals, estimates est or NULL, reference ref or NULL) to out as format f: one JSON
 * object of type value per value, CSV (a header, then a row each) or text rows; each has the
 * value's index and coordinates. */
void output_values(FILE *out, enum out_format f, const struct run_result *r, void **state,
                   const void *vals, const double *est, const double *ref, size_t first, size_t n);

/* Prints a list of name/value pairs as one record (show params, show device). */
struct kv {
	const char *name;
	const char *text; /* the value as text, or NULL for a number */
	double num;
};
void output_record(struct output_ctx *io, const char *kind, const struct kv *kv, size_t n);

/* The JSON object of one sweep row (cJSON; the caller deletes it). */
struct cJSON *output_sweep_row_json(const struct sweep *sw, const struct sweep_row *r);

/* Writes the CSV header line and row of sweep row r into header and row (len bytes each). */
void output_sweep_row_csv(const struct sweep *sw, const struct sweep_row *r, char *header,
                          char *row, size_t len);

/* Prints the sweep as an aligned text table, the best row marked with '*', then the median,
 * min and max of every phase of the rows that have phases; columns that are all "-" are left
 * out, and a table wider than cols characters (0: no limit) is printed in blocks of whole
 * columns, each with the axis columns first. A size sweep names no best. */
void output_sweep_table(const struct sweep *sw, FILE *out, int cols);

/* Prints the sweep in the session's format (text: the table; json: one object per row; csv:
 * a header and one line per row). */
void output_sweep(struct output_ctx *io, const struct sweep *sw);

/* A sweep_progress_fn: one line per finished row on stderr ("sweep 3/9: block=64 gpu 1.2 ms"). */
void output_sweep_progress(const struct sweep *sw, size_t config, const struct sweep_row *row);

/* Prints values with the fewest digits that round-trip (up to 17 significant). */
void output_number(char *buf, size_t len, double v);

#endif
