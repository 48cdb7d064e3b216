/* output_internal.h - the helpers output.c shares with output_rows.c and output_sweep.c: not
 * part of the output interface (output.h); no other file includes it. */
#ifndef QX_OUTPUT_INTERNAL_H
#define QX_OUTPUT_INTERNAL_H

#include "output.h"

/* Appends a text field to a CSV line (len bytes): output_csv_field after a comma. */
void output_csv_text(char *line, size_t len, const char *text);

/* Adds the problem's own settings of values v to obj as numbers. */
void output_json_settings(struct cJSON *obj, const struct problem *p, const struct param_value *v);

/* Adds what a run and a sweep's row share (their run_summary) to obj; see output.c. */
void output_summary_json(struct cJSON *obj, const struct problem *p, const struct run_summary *m);

/* The CSV columns of the phases of problem p and of t: p's declared phases, then any other
 * phase t has; fills names (cap) and returns how many. */
int output_phase_columns(const struct problem *p, const struct qx_timing *t, const char **names,
                         int cap);

/* Appends the columns NAME_SUFFIX of the phases named names to header and their times in t to
 * row (empty when t is NULL or lacks the phase). */
void output_csv_phases(char *header, char *row, size_t len, const char *const *names, int n,
                       const char *suffix, const struct qx_timing *t);

/* Appends NAME_min_ms and NAME_max_ms of each phase named names, from min and max (empty when
 * NULL). */
void output_csv_phase_spread(char *header, char *row, size_t len, const char *const *names, int n,
                             const struct qx_timing *min, const struct qx_timing *max);

/* Prints text wrapped to cols characters at its blanks, the rows after the first indented by
 * indent. */
void output_print_wrapped(FILE *out, const char *text, int cols, const char *indent);

#endif
