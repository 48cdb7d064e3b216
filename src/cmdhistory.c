/* cmdhistory.c - the history command and the history file appended line by line. */
#include "cmdhistory.h"

#include <errno.h>
#include <fcntl.h>
#include <readline/history.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault.h"
#include "output.h"

/* The absolute number (history_base + history_length) of the list's end as last written. */
static int written_to;

/* Prints the last N entries of the list with their numbers. */
int cmd_history(struct shell *sh, int argc, char **argv, struct qx_err *e)
{
	static const struct param_def n_def = {.name = "N",
	                                       .type = PARAM_INT,
	                                       .min = 1,
	                                       .max = QX_HISTORY_LINES,
	                                       .def = 20,
	                                       .help = ""};
	struct param_value n = param_default(&n_def);
	if (argc > 1 && param_parse(&n_def, argv[1], &n, e))
		return -1;
	if (history_length == 0)
		return qx_fail(e, "history: no line typed at the prompt yet (scripts keep none)");
	for (int i = history_length > (int)n.num ? history_length - (int)n.num : 0;
	     i < history_length; i++) {
		const HIST_ENTRY *h = history_get(history_base + i);
		if (h) { /* a damaged file's bytes shown as \xHH, never sent to the terminal */
			fprintf(sh->io.out, "%5d  ", history_base + i);
			output_visible_text(sh->io.out, h->line);
			fputc('\n', sh->io.out);
		}
	}
	return 0;
}

/* Reads path into the list, creating the file when missing. */
int history_open(const char *path, struct qx_err *e)
{
	int fd;
	stifle_history(QX_HISTORY_LINES);
	read_history(path);
	written_to = history_base + history_length;
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600); /* append_history needs the file */
	if (fd < 0)
		return qx_fail(e, "cannot open the history file %s: %s", path, strerror(errno));
	close(fd);
	return 0;
}

/* Opens path and takes an exclusive flock on it, waiting for another quadx that holds it;
 * returns the descriptor (closing it releases the lock), or -1 with errno set. Trimming replaces
 * the file with a new one (readline writes a copy and renames it), so the lock is taken again
 * when path no longer names the file locked. */
static int history_lock(const char *path)
{
	for (;;) {
		struct stat locked, named;
		int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600), err;
		if (fd < 0)
			return -1;
		while ((err = flock(fd, LOCK_EX)) && errno == EINTR)
			;
		if (err || fstat(fd, &locked)) {
			err = errno;
			close(fd);
			errno = err;
			return -1;
		}
		if (stat(path, &named) == 0 && named.st_dev == locked.st_dev &&
		    named.st_ino == locked.st_ino)
			return fd;
		close(fd); /* replaced while we waited: lock the file that path names now */
	}
}

/* Appends the new entries to path and trims it, holding the file's lock throughout, so that
 * quadx sessions sharing the file neither lose nor repeat each other's lines. */
int history_append(const char *path, struct qx_err *e)
{
	int n = history_base + history_length - written_to, err, lock;
	if (n <= 0)
		return 0;
	if (n > history_length)
		n = history_length;
	lock = history_lock(path);
	if (lock < 0)
		err = errno;
	else
		err = qx_fault("write") ? EIO : append_history(n, path);
	if (!err)
		err = history_truncate_file(path, QX_HISTORY_LINES);
	if (lock >= 0)
		close(lock);
	written_to = history_base + history_length;
	if (err)
		return qx_fail(e,
		               "could not append to the history file %s: %s (the lines are kept "
		               "for this session)",
		               path, strerror(err));
	return 0;
}
