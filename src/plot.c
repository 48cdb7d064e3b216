/* plot.c - the last sweep as a gnuplot script and data, rendered by gnuplot when installed. */
#include "plot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "export.h"
#include "fault.h"

/* The axis drawn along x (plot.h). */
int plot_x_axis(const struct sweep *sw)
{
	for (int a = 0; a < sw->naxes; a++) {
		double v;
		if (parse_real(sw->axes[a].values[0], &v) == 0)
			return a;
	}
	return -1;
}

/* Position along x of row r: its numeric value, or the index of its word on axis 0. */
static double x_of(const struct sweep *sw, const struct sweep_row *r, int xa)
{
	double v = 0;
	if (xa >= 0) {
		parse_real(r->values[xa], &v);
		return v;
	}
	for (int i = 0; i < sw->axes[0].nvalues; i++)
		if (strcmp(sw->axes[0].values[i], r->values[0]) == 0)
			return i;
	return 0;
}

/* Writes the series name of row r ("variant=fast gpu") into buf. */
static void series_name(const struct sweep *sw, const struct sweep_row *r, int xa, char *buf,
                        size_t len)
{
	const int other = xa > 0 ? 0 : 1; /* with no numeric axis, axis 0 is along x */
	if (other < sw->naxes)
		snprintf(buf, len, "%s=%s %s", sw->axes[other].name, r->values[other],
		         qx_backend_name(r->summary.backend));
	else
		snprintf(buf, len, "%s", qx_backend_name(r->summary.backend));
}

/* Writes one number column (NaN as gnuplot's missing value "NaN"). */
static void data_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, " %.9g", v);
	else
		fprintf(f, " NaN");
}

/* Collects the distinct series names of the successful rows in order of appearance into
 * names, pointed to by titles; returns how many. */
static int series_titles(const struct sweep *sw, char (*names)[96], const char **titles)
{
	const int xa = plot_x_axis(sw);
	int n = 0;
	for (size_t i = 0; i < sw->nrows && n < 2 * SWEEP_MAX_VALUES; i++) {
		char name[96];
		int known = 0;
		if (!sw->rows[i].ok)
			continue;
		series_name(sw, &sw->rows[i], xa, name, sizeof name);
		for (int k = 0; k < n; k++)
			known |= strcmp(names[k], name) == 0;
		if (!known) {
			snprintf(names[n], 96, "%s", name);
			titles[n] = names[n];
			n++;
		}
	}
	return n;
}

/* The scaling axis of sw into *gpus: a gpus axis (*gpus 1), else a block axis (*gpus 0);
 * -1 when it has neither. */
static int scale_axis(const struct sweep *sw, int *gpus)
{
	const int ga = sweep_gpus_axis(sw);
	*gpus = ga >= 0;
	return ga >= 0 ? ga : sweep_block_axis(sw);
}

/* Row k's speedup and *efficiency on the scaling axis (sweep_gpus_speedup or
 * sweep_block_speedup); *base gets the GPU count the speedup is against (0 for block). */
static double scale_speedup(const struct sweep *sw, size_t k, int gpus, double *eff, int *base)
{
	*base = 0;
	return gpus ? sweep_gpus_speedup(sw, k, eff, base) : sweep_block_speedup(sw, k, eff);
}

/* Whether row r starts a series of the scaling axis a (its first value; a gpus sweep's GPU
 * rows only, the CPU having no GPU count). */
static int series_start(const struct sweep *sw, const struct sweep_row *r, int a, int gpus)
{
	return !strcmp(r->values[a], sw->axes[a].values[0]) &&
	       (!gpus || r->summary.backend == QX_GPU);
}

/* A sweep over block or gpus: after the series, one more block per series of the other axis
 * with x = the block (GPU count), its speedup against the smallest block (the fewest GPUs) and
 * its efficiency (speedup / block; speedup x fewest / GPUs); returns how many. */
static int plot_block_data(const struct sweep *sw, FILE *f, int nseries)
{
	int gpus;
	const int ba = scale_axis(sw, &gpus), other = ba == 0 ? 1 : 0;
	int n = 0;
	if (ba < 0)
		return 0;
	for (size_t i = 0; i < sw->nrows; i++) {
		const struct sweep_row *r = &sw->rows[i];
		if (!series_start(sw, r, ba, gpus))
			continue;
		fprintf(f, "%s# %s=%s %s by %s\n# %s label speedup efficiency\n",
		        n + nseries ? "\n\n" : "", other < sw->naxes ? sw->axes[other].name : "",
		        other < sw->naxes ? r->values[other] : "",
		        qx_backend_name(r->summary.backend), sw->axes[ba].name, sw->axes[ba].name);
		for (size_t k = 0; k < sw->nrows; k++) {
			const struct sweep_row *q = &sw->rows[k];
			double eff, sp;
			int base;
			if (!q->ok || q->summary.backend != r->summary.backend ||
			    (other < sw->naxes && strcmp(q->values[other], r->values[other])))
				continue;
			sp = scale_speedup(sw, k, gpus, &eff, &base);
			if (gpus)
				fprintf(f, "%d \"%s\"",
				        q->summary.gpus > 0 ? q->summary.gpus : atoi(q->values[ba]),
				        q->values[ba]);
			else
				fprintf(f, "%s \"%s\"", q->values[ba], q->values[ba]);
			data_num(f, sp);
			data_num(f, eff);
			fputc('\n', f);
		}
		n++;
	}
	return n;
}

/* One block per series, in order of appearance. */
int plot_write_data(const struct sweep *sw, FILE *f)
{
	const int xa = plot_x_axis(sw);
	char names[2 * SWEEP_MAX_VALUES][96];
	const char *titles[2 * SWEEP_MAX_VALUES];
	const int nseries = series_titles(sw, names, titles);
	for (int k = 0; k < nseries; k++) {
		double base_ms = NAN, base_x = NAN;
		fprintf(f, "%s# %s\n# x label median_ms min_ms max_ms speedup efficiency\n",
		        k ? "\n\n" : "", names[k]);
		for (size_t i = 0; i < sw->nrows; i++) {
			const struct sweep_row *r = &sw->rows[i];
			char name[96];
			if (!r->ok)
				continue;
			series_name(sw, r, xa, name, sizeof name);
			if (strcmp(name, names[k]) != 0)
				continue;
			const double x = x_of(sw, r, xa);
			if (isnan(base_ms)) {
				base_ms = r->summary.med.total;
				base_x = x;
			}
			fprintf(f, "%.9g \"%s\"", x, r->values[xa < 0 ? 0 : xa]);
			data_num(f, r->summary.med.total);
			data_num(f, r->summary.min.total);
			data_num(f, r->summary.max.total);
			data_num(f, r->speedup);
			/* parallel efficiency against the first point, for a threads axis */
			data_num(f, xa >= 0 && !strcmp(sw->axes[xa].name, "threads")
			                ? base_ms * base_x / (r->summary.med.total * x)
			                : NAN);
			fputc('\n', f);
		}
	}
	plot_block_data(sw, f, nseries);
	return nseries;
}

/* Whether every value of the axis is a positive power of two (drawn on a log2 scale). */
static int powers_of_two(const struct sweep_axis *axis)
{
	for (int i = 0; i < axis->nvalues; i++) {
		double v;
		if (parse_real(axis->values[i], &v) || v <= 0 || v != ldexp(1, (int)round(log2(v))))
			return 0;
	}
	return axis->nvalues > 1;
}

/* Whether every value of the axis is positive and they span at least two decades, as
 * tolerances do (drawn on a log10 scale from the first value to the last, ticks in
 * e-notation). */
static int spans_decades(const struct sweep_axis *axis)
{
	double lo = INFINITY, hi = 0;
	for (int i = 0; i < axis->nvalues; i++) {
		double v;
		if (parse_real(axis->values[i], &v) || v <= 0)
			return 0;
		lo = fmin(lo, v);
		hi = fmax(hi, v);
	}
	return axis->nvalues > 1 && hi >= 100 * lo;
}

/* Writes `plot` with one element per series whose keep is 1 (all when keep is NULL): column
 * ycol (and bars from columns 4:5). */
static void script_plot(FILE *f, const char *data, const char **titles, int nseries,
                        const int *keep, int ycol, int bars, int numeric)
{
	int first = 1;
	fprintf(f, "plot ");
	for (int k = 0; k < nseries; k++) {
		if (keep && !keep[k])
			continue;
		fprintf(f, "%s%s index %d using 1:%d%s%s with %s title \"%s\"",
		        first ? "" : ", \\\n     ", data, k, ycol, bars ? ":4:5" : "",
		        numeric ? "" : ":xtic(2)", bars ? "yerrorlines" : "linespoints", titles[k]);
		first = 0;
	}
	fputc('\n', f);
}

/* Sets has_speedup[k] when a row of series k has a speedup. */
static void series_with_speedup(const struct sweep *sw, char (*names)[96], int nseries,
                                int *has_speedup)
{
	const int xa = plot_x_axis(sw);
	for (size_t i = 0; i < sw->nrows; i++) {
		char name[96];
		if (!sw->rows[i].ok || !isfinite(sw->rows[i].speedup))
			continue;
		series_name(sw, &sw->rows[i], xa, name, sizeof name);
		for (int k = 0; k < nseries; k++)
			has_speedup[k] |= strcmp(names[k], name) == 0;
	}
}

/* The largest count a gpus sweep's speedups are against: 1 with a 1-GPU row, else the fewest
 * GPUs swept (0 when no row has a speedup). */
static int gpus_base(const struct sweep *sw)
{
	int base = 0;
	for (size_t i = 0; i < sw->nrows; i++) {
		double eff;
		int b;
		sweep_gpus_speedup(sw, i, &eff, &b);
		base = b > base ? b : base;
	}
	return base;
}

/* The two panels of a block (gpus) sweep: speedup against the smallest block (the fewest GPUs)
 * and efficiency, x = block (log2) or GPUs, one line per series of the other axis (the data
 * blocks after the nseries). */
static void script_block_panels(const struct sweep *sw, const char *data, int nseries, FILE *f)
{
	int gpus;
	const int ba = scale_axis(sw, &gpus), other = ba == 0 ? 1 : 0;
	const int base = gpus ? gpus_base(sw) : 0;
	char what[2][2][96] = {{"speedup against the smallest block", "speedup (x)"},
	                       {"efficiency = speedup / block width", "efficiency"}};
	if (gpus && base <= 1) {
		snprintf(what[0][0], sizeof what[0][0], "speedup against 1 GPU");
		snprintf(what[1][0], sizeof what[1][0], "efficiency = speedup / GPUs");
	} else if (gpus) {
		snprintf(what[0][0], sizeof what[0][0], "speedup against %d GPUs (no 1-GPU run)",
		         base);
		snprintf(what[1][0], sizeof what[1][0], "efficiency = speedup x %d / GPUs", base);
	}
	for (int p = 0; p < 2; p++) {
		int k = 0;
		fprintf(f, "set title '%s: %s'\nset ylabel '%s'\nset xlabel '%s'\n", sw->prob->name,
		        what[p][0], what[p][1], gpus ? "GPUs" : "block");
		fprintf(f, "unset logscale\n%sset yrange [0:*]\nplot ",
		        gpus ? "set xtics 1\n" : "set logscale x 2\n");
		for (size_t i = 0; i < sw->nrows; i++) {
			const struct sweep_row *r = &sw->rows[i];
			if (!series_start(sw, r, ba, gpus))
				continue;
			fprintf(f, "%s%s index %d using 1:%d with linespoints title \"%s=%s %s\"",
			        k ? ", \\\n     " : "", data, nseries + k, 3 + p,
			        other < sw->naxes ? sw->axes[other].name : "",
			        other < sw->naxes ? r->values[other] : "",
			        qx_backend_name(r->summary.backend));
			k++;
		}
		fputc('\n', f);
	}
}

/* Writes the script for gnuplot terminal kind (PLOT_PNG, PLOT_SVG, or PLOT_DUMB of cols x rows
 * characters a panel): terminal, titles, scales, then one to five panels. */
static void script_write(const struct sweep *sw, const char *data, const char *image, int kind,
                         int cols, int rows, FILE *f)
{
	const int xa = plot_x_axis(sw);
	char names[2 * SWEEP_MAX_VALUES][96];
	const char *titles[2 * SWEEP_MAX_VALUES];
	const int nseries = series_titles(sw, names, titles);
	int speedup = 0, efficiency = xa >= 0 && !strcmp(sw->axes[xa].name, "threads");
	double lo = INFINITY, hi = 0;
	for (size_t i = 0; i < sw->nrows; i++)
		if (sw->rows[i].ok) {
			speedup |= isfinite(sw->rows[i].speedup);
			lo = fmin(lo, sw->rows[i].summary.min.total);
			hi = fmax(hi, sw->rows[i].summary.max.total);
		}
	int gpus;
	const int ba = scale_axis(sw, &gpus);
	const int panels = 1 + speedup + efficiency + (ba >= 0 ? 2 : 0);
	if (kind == PLOT_DUMB)
		fprintf(f, "set terminal dumb nofeed size %d,%d\n", cols, rows * panels);
	else
		fprintf(f, "set terminal %s size 900,%d\n", kind == PLOT_SVG ? "svg" : "pngcairo",
		        420 * panels);
	fprintf(f, "set output '%s'\n", image);
	fprintf(f, "set grid\nset key outside right top\nset datafile missing 'NaN'\n");
	if (panels > 1)
		fprintf(f, "set multiplot layout %d,1\n", panels);
	fprintf(f, "set xlabel '%s'\n", xa >= 0 ? sw->axes[xa].name : sw->axes[0].name);
	if (xa >= 0 && powers_of_two(&sw->axes[xa]))
		fprintf(f, "set logscale x 2\n");
	else if (xa >= 0 && spans_decades(&sw->axes[xa]))
		fprintf(f, "set logscale x 10\nset format x '%%.0e'\nset autoscale xfix\n");
	if (xa < 0)
		fprintf(f, "set xrange [-0.5:%d.5]\n", sw->axes[0].nvalues - 1);
	else /* room beside the first and last x: their min..max bars clear of the frame */
		fprintf(f, "set offsets graph 0.04, graph 0.04, 0, 0\n");
	if (lo > 0 && hi / lo > 20)
		fprintf(f, "set logscale y\n");
	fprintf(f, "set title '%s: total time (median, bars min..max)%s%s'\n", sw->prob->name,
	        *sw->device ? ", " : "", sw->device);
	fprintf(f, "set ylabel 'ms'\n");
	script_plot(f, data, titles, nseries, NULL, 3, 1, xa >= 0);
	fprintf(f, "unset logscale y\n");
	if (speedup) {
		fprintf(f,
		        "set title 'GPU speedup against the CPU run of the same configuration'\n");
		fprintf(f, "set ylabel 'speedup (x)'\n");
		int has_speedup[2 * SWEEP_MAX_VALUES] = {0};
		series_with_speedup(sw, names, nseries, has_speedup);
		script_plot(f, data, titles, nseries, has_speedup, 6, 0, xa >= 0);
	}
	if (efficiency) {
		fprintf(f, "set title 'parallel efficiency T(p0) p0 / (T(p) p)'\n");
		fprintf(f, "set ylabel 'efficiency'\nset yrange [0:*]\n");
		script_plot(f, data, titles, nseries, NULL, 7, 0, 1);
	}
	if (ba >= 0)
		script_block_panels(sw, data, nseries, f);
	if (panels > 1)
		fprintf(f, "unset multiplot\n");
	fprintf(f, "unset output\n");
}

/* The script for an image: PNG, or SVG when svg is 1. */
void plot_write_script(const struct sweep *sw, const char *data, const char *image, int svg,
                       FILE *f)
{
	script_write(sw, data, image, svg ? PLOT_SVG : PLOT_PNG, 0, 0, f);
}

/* Whether path names an SVG image (else PNG). */
static int is_svg(const char *path)
{
	const size_t n = strlen(path);
	return n > 4 && strcmp(path + n - 4, ".svg") == 0;
}

/* Returns 1 when an executable gnuplot is on the PATH. */
static int have_gnuplot(void)
{
	const char *path = getenv("PATH");
	char dir[PATH_MAX];
	while (path && *path) {
		const size_t len = strcspn(path, ":");
		snprintf(dir, sizeof dir, "%.*s/gnuplot", (int)len, path);
		if (len && access(dir, X_OK) == 0)
			return 1;
		path += len + (path[len] == ':');
	}
	return 0;
}

/* Runs gnuplot on the data and script of sw for terminal kind (cols x rows for PLOT_DUMB)
 * with its output into the file tmp; returns 0 or -1 with e naming what failed. */
static int plot_gnuplot(const struct plot_src *sw, const char *tmp, int kind, int cols, int rows,
                        struct qx_err *e)
{
	FILE *gp = popen("gnuplot", "w");
	int status;
	if (!gp)
		return qx_fail(e, "plot: cannot start gnuplot: %s", strerror(errno));
	fprintf(gp, "$sweep << EOD\n");
	sw->data(sw->arg, gp);
	fprintf(gp, "EOD\n");
	sw->script(sw->arg, "$sweep", tmp, kind, cols, rows, gp);
	status = pclose(gp);
	if (status != 0)
		return qx_fail(e, "plot: gnuplot failed (%s %d)",
		               WIFEXITED(status) ? "exit status" : "signal",
		               WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	return 0;
}

/* Checks that the image gnuplot wrote into tmp is whole and on disk: gnuplot exits 0 even when
 * its writes fail (a full disk), leaving an empty or cut file. A PNG must end with its IEND
 * chunk, an SVG with </svg>; the file is then flushed with fsync. Returns 0, or -1 with e
 * naming path. */
static int plot_image_check(const char *tmp, const char *path, int kind, struct qx_err *e)
{
	static const unsigned char iend[12] = {0,   0,   0,    0,    'I',  'E',
	                                       'N', 'D', 0xAE, 0x42, 0x60, 0x82};
	unsigned char tail[16];
	struct stat st = {0};
	ssize_t got = -1;
	int fd = open(tmp, O_RDWR | O_CLOEXEC), whole = 0;
	if (fd < 0)
		return qx_fail(e, "plot: cannot read back the image for %.200s: %s", path,
		               strerror(errno));
	if (qx_fault("write") && fstat(fd, &st) == 0) /* a disk that filled up under gnuplot */
		(void)!ftruncate(fd, st.st_size / 2);
	if (fstat(fd, &st) == 0 && st.st_size >= (off_t)sizeof tail)
		got = pread(fd, tail, sizeof tail, st.st_size - (off_t)sizeof tail);
	if (got == (ssize_t)sizeof tail && kind == PLOT_PNG)
		whole = !memcmp(tail + 4, iend, sizeof iend);
	else if (got == (ssize_t)sizeof tail) {
		size_t n = sizeof tail;
		while (n && (tail[n - 1] == '\n' || tail[n - 1] == ' '))
			n--;
		whole = n >= 6 && !memcmp(tail + n - 6, "</svg>", 6);
	}
	if (!whole) {
		close(fd);
		return qx_fail(e,
		               "plot: gnuplot wrote an incomplete image (%lld bytes; is the disk "
		               "full?); %.200s is unchanged",
		               (long long)st.st_size, path);
	}
	if ((qx_fault("fsync") ? (errno = EIO, -1) : fsync(fd))) {
		const int err = errno;
		close(fd);
		return qx_fail(e, "plot: cannot write %.200s: %s (it is unchanged)", path,
		               strerror(err));
	}
	close(fd);
	return 0;
}

/* Renders through gnuplot into a temporary image beside path, checked whole, then renamed
 * into place; on any failure the old file is unchanged. */
static int plot_render(const struct plot_src *sw, const char *path, struct qx_err *e)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	const int dir_len = slash ? (int)(slash - path) : 1;
	int fd; /* kept open until the rename: its flock marks the temporary file as in use */
	const mode_t mask = umask(0);
	umask(mask);
	snprintf(dir, sizeof dir, "%.*s", dir_len, slash ? path : ".");
	fd = export_temp_file(dir, slash ? slash + 1 : path, tmp);
	if (fd < 0)
		return qx_fail(e, "plot: cannot create a temporary file beside %.200s: %s", path,
		               strerror(errno));
	if (plot_gnuplot(sw, tmp, is_svg(path) ? PLOT_SVG : PLOT_PNG, 0, 0, e)) {
		const struct qx_err why = *e;
		unlink(tmp);
		close(fd);
		return qx_fail(e, "%s; nothing was written to %.200s", why.msg, path);
	}
	if (plot_image_check(tmp, path, is_svg(path) ? PLOT_SVG : PLOT_PNG, e)) {
		unlink(tmp);
		close(fd);
		return -1;
	}
	if (chmod(tmp, 0666 & ~mask) ||
	    (qx_fault("rename") ? (errno = EIO, -1) : rename(tmp, path))) {
		const int err = errno;
		unlink(tmp);
		close(fd);
		return qx_fail(e, "plot: cannot write %.200s: %s", path, strerror(err));
	}
	close(fd);
	return 0;
}

/* Without gnuplot: STEM.gp and STEM.dat, and how to render them. */
static int plot_files(const struct plot_src *sw, const char *path, FILE *out, struct qx_err *e)
{
	char stem[PATH_MAX - 8], gp_path[PATH_MAX], dat_path[PATH_MAX], data[PATH_MAX + 4];
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int rc;
	snprintf(stem, sizeof stem, "%.*s", (int)(strlen(path) - 4), path);
	snprintf(gp_path, sizeof gp_path, "%s.gp", stem);
	snprintf(dat_path, sizeof dat_path, "%s.dat", stem);
	snprintf(data, sizeof data, "'%s'", dat_path);
	f = open_memstream(&text, &len);
	if (!f)
		return qx_fail(e, "plot: out of memory");
	sw->data(sw->arg, f);
	fclose(f);
	rc = export_write_file(dat_path, text, len, e);
	free(text);
	if (rc)
		return -1;
	text = NULL;
	f = open_memstream(&text, &len);
	if (!f)
		return qx_fail(e, "plot: out of memory");
	sw->script(sw->arg, data, path, is_svg(path) ? PLOT_SVG : PLOT_PNG, 0, 0, f);
	fclose(f);
	rc = export_write_file(gp_path, text, len, e);
	free(text);
	if (rc)
		return -1;
	fprintf(out,
	        "plot: gnuplot is not installed; wrote %s and %s. Render them with: gnuplot %s "
	        "(Debian: apt-get install gnuplot-nox)\n",
	        gp_path, dat_path, gp_path);
	return 1;
}

/* Counts the rows of sw that succeeded; 0 fills e. */
static int plot_rows(const struct sweep *sw, struct qx_err *e)
{
	int ok_rows = 0;
	for (size_t i = 0; i < sw->nrows; i++)
		ok_rows += sw->rows[i].ok;
	if (ok_rows == 0)
		qx_fail(e, "plot: the last sweep has no successful run to draw");
	return ok_rows;
}

/* Draws src with gnuplot's dumb terminal into a temporary file, then copies it to out. */
static int plot_src_terminal(const struct plot_src *sw, int cols, int rows, FILE *out,
                             struct qx_err *e)
{
	char tmp[PATH_MAX], buf[4096];
	const char *dir = getenv("TMPDIR");
	size_t n;
	FILE *f;
	int fd;
	if (!have_gnuplot())
		return qx_fail(e, "plot: gnuplot is not installed, so the terminal gets no plot "
		                  "(Debian: apt-get install gnuplot-nox); plot FILE.png writes its "
		                  "script and data");
	snprintf(tmp, sizeof tmp, "%s/quadx-plot.XXXXXX", dir && *dir ? dir : "/tmp");
	fd = qx_fault("fopen") ? (errno = EIO, -1) : mkstemp(tmp);
	if (fd < 0)
		return qx_fail(e, "plot: cannot create a temporary file in %s: %s",
		               dir && *dir ? dir : "/tmp", strerror(errno));
	close(fd);
	if (plot_gnuplot(sw, tmp, PLOT_DUMB, cols, rows, e)) {
		unlink(tmp);
		return -1;
	}
	f = fopen(tmp, "r");
	if (!f) {
		const int err = errno;
		unlink(tmp);
		return qx_fail(e, "plot: cannot read gnuplot's drawing: %s", strerror(err));
	}
	int last = '\n';
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		for (size_t i = 0; i < n; i++)
			if (buf[i] != '\f') /* the form feed a multiplot page starts with */
				fputc(last = buf[i], out);
	if (last != '\n') /* gnuplot's dumb terminal ends without one: the prompt goes below */
		fputc('\n', out);
	fclose(f);
	unlink(tmp);
	return 0;
}

/* A sweep's data, as plot_src takes it. */
static void sweep_data(const void *arg, FILE *f)
{
	plot_write_data(arg, f);
}

/* A sweep's script, as plot_src takes it. */
static void sweep_script(const void *arg, const char *data, const char *image, int kind, int cols,
                         int rows, FILE *f)
{
	script_write(arg, data, image, kind, cols, rows, f);
}

/* Draws the last sweep with gnuplot's dumb terminal. */
int plot_terminal(const struct sweep *sw, int cols, int rows, FILE *out, struct qx_err *e)
{
	const struct plot_src src = {sweep_data, sweep_script, sw};
	if (!plot_rows(sw, e))
		return -1;
	return plot_src_terminal(&src, cols, rows, out, e);
}

/* Checks the path of an image: .png or .svg after a name, no quote or newline. */
static int plot_path_check(const char *path, struct qx_err *e)
{
	const size_t n = strlen(path);
	const char *slash = strrchr(path, '/'), *file_part = slash ? slash + 1 : path;
	if (!strcmp(file_part, ".png") || !strcmp(file_part, ".svg"))
		return qx_fail(e, "plot: the file name before '%s' is empty (e.g. sweep%s)",
		               file_part, file_part);
	if (n < 5 || (strcmp(path + n - 4, ".png") && strcmp(path + n - 4, ".svg")))
		return qx_fail(e, "plot: '%.200s' must end in .png or .svg", path);
	if (strchr(path, '\'') || strchr(path, '\n'))
		return qx_fail(e, "plot: the file name may not hold a quote or a newline");
	return 0;
}

/* A batch's data: per integral its parameter, value and error estimate. */
static void batch_data(const void *arg, FILE *f)
{
	const struct plot_batch *b = arg;
	for (size_t i = 0; i < b->n; i++) {
		fprintf(f, "%.17g", b->x[i]);
		data_num(f, b->prec == QX_DOUBLE ? ((const double *)b->values)[i]
		                                 : (double)((const float *)b->values)[i]);
		data_num(f, b->est ? b->est[i] : NAN);
		fputc('\n', f);
	}
}

/* A batch's script: value against the parameter, the error estimates as bars. */
static void batch_script(const void *arg, const char *data, const char *image, int kind, int cols,
                         int rows, FILE *f)
{
	const struct plot_batch *b = arg;
	if (kind == PLOT_DUMB)
		fprintf(f, "set terminal dumb nofeed size %d,%d\n", cols, rows);
	else
		fprintf(f, "set terminal %s size 900,420\n", kind == PLOT_SVG ? "svg" : "pngcairo");
	fprintf(f, "set output '%s'\n", image);
	fprintf(f, "set grid\nset key outside right top\nset datafile missing 'NaN'\n");
	fprintf(f, "set title '%s: %zu integrals (bars: error estimate)'\n", b->prob, b->n);
	fprintf(f, "set xlabel '%s'\nset ylabel 'value'\n", b->param);
	fprintf(f,
	        "plot %s using 1:2:3 with yerrorbars title 'value', '' using 1:2 with lines "
	        "notitle\n",
	        data);
	fprintf(f, "unset output\n");
}

/* Draws src into path, or into out as text (path "-"). */
int plot_draw(const struct plot_src *src, const char *path, int cols, int rows, FILE *out,
              struct qx_err *e)
{
	if (!strcmp(path, "-"))
		return plot_src_terminal(src, cols, rows, out, e);
	if (plot_path_check(path, e))
		return -1;
	if (!have_gnuplot())
		return plot_files(src, path, out, e);
	return plot_render(src, path, e);
}

/* Draws a batch into path, or into out as text (path "-"). */
int plot_batch(const struct plot_batch *b, const char *path, int cols, int rows, FILE *out,
               struct qx_err *e)
{
	const struct plot_src src = {batch_data, batch_script, b};
	return plot_draw(&src, path, cols, rows, out, e);
}

/* Checks the path, then renders or writes the script and data. */
int plot_sweep(const struct sweep *sw, const char *path, FILE *out, struct qx_err *e)
{
	const struct plot_src src = {sweep_data, sweep_script, sw};
	if (plot_path_check(path, e))
		return -1;
	if (!plot_rows(sw, e))
		return -1;
	if (!have_gnuplot())
		return plot_files(&src, path, out, e);
	return plot_render(&src, path, e);
}
