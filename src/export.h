/* export.h - the session's runs and the last sweep as CSV or JSON files (cJSON), written
 * atomically: a temporary file beside the target, fsync, then rename. */
#ifndef QX_EXPORT_H
#define QX_EXPORT_H

#include <stddef.h>

#include "session.h"
#include "sweep.h"

/* Writes len bytes of data to path atomically: into a temporary file in the same directory,
 * flushed with fsync, then renamed over path, so a failure (no space, no permission) leaves no
 * partial file and an existing file whole. A path that exists and is not a regular file (a
 * device such as /dev/stdout) is written directly. Returns 0 or -1 with e naming the path and
 * the system's reason. */
int export_write_file(const char *path, const char *data, size_t len, struct qx_err *e);

/* Writes every run of s (when last is 0) or the rows of the last sweep (last 1) to path,
 * as CSV or JSON by its extension (.csv, .json). Returns 0 or -1 with e filled. */
int export_session(const struct session *s, const char *path, int last, struct qx_err *e);

/* Writes every value of the session's last run, with its coordinates, error estimate and
 * reference, to path (.csv or .json); returns 0 or -1 with e filled. */
int export_values(struct session *s, const char *path, struct qx_err *e);

#endif
