/* kde_data.h - `set data FILE` of problem kde: samples read from a text file, one number per
 * line or chosen columns of a CSV. */
#ifndef QX_KDE_DATA_H
#define QX_KDE_DATA_H

#include "kde_math.h"

/* Reads samples of dimension ncols (1..KDE_DMAX) from path: sample j is line j's fields
 * cols[0..ncols) (1-based, fields split at commas, blanks around a field and one pair of
 * double quotes ignored; a file of one number per line is column 1). Blank lines and lines
 * starting with '#' are skipped; line 1 may be a header when its chosen fields are words
 * (start with a letter). Every chosen field must be a finite number: anything else (NaN,
 * inf, garbage, a missing column) fails with the file, the line number and what was found.
 * The file is read twice: first to check every line and count the samples, refused (before
 * allocating) when more than max_n or more than the host memory available; then into out.
 * cols[0] == 0 asks for `column auto`: cols become ncols consecutive columns from the first
 * column that is not a row id (a header naming it id, index, idx, row, rownum or row_id, or
 * the row numbers 0.. or 1.. on every line), column 1 when the file has no more than ncols
 * columns; refused (naming them) when every choice holds an id.
 * Returns 0, or -1 with e (unreadable, empty, a bad line, too large, no memory). */
int kde_data_load(const char *path, int *cols, int ncols, size_t max_n, struct kde_points *out,
                  struct qx_err *e);

/* Columns `column auto` looks at, at most. */
#define KDE_AUTO_MAX 64

#endif
