/* export.h - the session's runs and the last sweep as CSV or JSON files (cJSON), written
 * atomically: a temporary file beside the target, fsync, then rename. */
#ifndef QX_EXPORT_H
#define QX_EXPORT_H

#include <stddef.h>

#include "output_ctx.h"
#include "session.h"
#include "sweep.h"

/* Writes len bytes of data to path atomically: into a temporary file in the same directory,
 * flushed with fsync, then renamed over path, so a failure (no space, no permission) leaves no
 * partial file and an existing file whole. A path that exists and is not a regular file (a
 * device such as /dev/stdout) is written directly; a symbolic link stays, its target written.
 * Returns 0 or -1 with e naming the path and the system's reason. */
int export_write_file(const char *path, const char *data, size_t len, struct qx_err *e);

/* Seconds a temporary file of quadx's pattern must be untouched, and not locked, before an
 * export or plot into its directory removes it as left by a writer that was killed. */
#define QX_STALE_TEMP_S 60

/* Removes from dir the temporary files (.NAME.EXT.tmpXXXXXX, EXT one of quadx's outputs) that
 * a killed export or plot left: those unlocked and older than QX_STALE_TEMP_S seconds. */
void export_clean_stale(const char *dir);

/* Creates dir/.BASE.tmpXXXXXX (its name into tmp, PATH_MAX bytes), locked with flock until
 * its descriptor is closed, after export_clean_stale(dir). Returns the descriptor, or -1 with
 * errno set. */
int export_temp_file(const char *dir, const char *base, char *tmp);

/* Writes every run of s (when last is 0) or the rows of the last sweep (last 1) to path,
 * as CSV or JSON by its extension (.csv, .json). Returns 0 or -1 with e filled. */
int export_session(const struct session *s, enum out_format format, const char *path, int last,
                   struct qx_err *e);

/* Writes every value of the session's last run, with its coordinates, error estimate and
 * reference, to path (.csv or .json); returns 0 or -1 with e filled. */
int export_values(struct session *s, enum out_format format, const char *path, struct qx_err *e);

#endif
