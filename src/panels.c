/* panels.c - the dashboard's panels and their table; ncurses drawing only. */
#include "panels.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum color_pair { PAIR_TITLE = 1, PAIR_CPU, PAIR_GPU, PAIR_PHASE, PAIR_GOOD, PAIR_BAD, PAIR_BIG };

/* Sets up the colour pairs on the terminal's default background. */
void panels_init_colors(void)
{
	use_default_colors();
	init_pair(PAIR_TITLE, COLOR_CYAN, -1);
	init_pair(PAIR_CPU, COLOR_YELLOW, -1);
	init_pair(PAIR_GPU, COLOR_GREEN, -1);
	init_pair(PAIR_PHASE, COLOR_BLUE, -1);
	init_pair(PAIR_GOOD, COLOR_GREEN, -1);
	init_pair(PAIR_BAD, COLOR_RED, -1);
	init_pair(PAIR_BIG, COLOR_MAGENTA, -1);
}

/* Turns colour pair on (on = 1) or off in w when the dashboard uses colours. */
static void color(WINDOW *w, const struct panel_ctx *c, int pair, int on)
{
	if (!c->color)
		return;
	if (on)
		wattron(w, COLOR_PAIR(pair));
	else
		wattroff(w, COLOR_PAIR(pair));
}

/* Writes s at (y, x) of w, cut one cell before the window's right border (counting UTF-8 characters
 * as one cell each); rows outside the inside of the border are skipped. */
static void put(WINDOW *w, int y, int x, const char *s)
{
	const int rows = getmaxy(w), avail = getmaxx(w) - 2 - x;
	int cells = 0, bytes = 0;
	if (y < 1 || y >= rows - 1 || avail <= 0)
		return;
	for (; s[bytes]; bytes++) {
		if (((unsigned char)s[bytes] & 0xC0) != 0x80 && cells++ == avail)
			break;
	}
	mvwaddnstr(w, y, x, s, bytes);
}

/* Writes at most max rows of text (fmt_wrap to the inside width) from row y on; returns the next
 * row. */
static int put_rows(WINDOW *w, int y, const char *text, int max)
{
	struct wrap_piece piece[DASH_LINE];
	char line[DASH_LINE];
	const int n = fmt_wrap(text, getmaxx(w) - 4, piece, DASH_LINE);
	for (int r = 0; r < n && r < max; r++) {
		snprintf(line, sizeof line, "%.*s", piece[r].len, text + piece[r].start);
		put(w, y++, 2, line);
	}
	return y;
}

/* Writes text from row y on, wrapped to the inside width; returns the next row. */
static int put_wrapped(WINDOW *w, int y, const char *text)
{
	return put_rows(w, y, text, DASH_LINE);
}

/* Clears w, draws its border and the title: the panel's name and a note (NULL for none). */
static void frame(WINDOW *w, const struct panel_ctx *c, const char *name, const char *note)
{
	char title[DASH_LINE];
	snprintf(title, sizeof title, note ? "%s (%s)" : "%s", name, note);
	werase(w);
	if (c->utf8) /* ncursesw maps these to Unicode box drawing in a UTF-8 locale */
		wborder_set(w, WACS_VLINE, WACS_VLINE, WACS_HLINE, WACS_HLINE, WACS_ULCORNER,
		            WACS_URCORNER, WACS_LLCORNER, WACS_LRCORNER);
	else /* no UTF-8: plain ASCII, which every terminal shows (as the bars do) */
		wborder(w, '|', '|', '-', '-', '+', '+', '+', '+');
	color(w, c, PAIR_TITLE, 1);
	wattron(w, A_BOLD);
	mvwprintw(w, 0, 2, " %.*s ", getmaxx(w) > 6 ? getmaxx(w) - 6 : 0, title);
	wattroff(w, A_BOLD);
	color(w, c, PAIR_TITLE, 0);
}

/* Problem: the problem, the settings, then its parameters; the settings give up their last rows
 * when the panel is short, so that at least one row of parameters shows. */
static void draw_problem(WINDOW *w, const struct panel *self, const struct panel_ctx *c)
{
	const struct dash_data *d = c->data;
	const int inside = getmaxy(w) - 2;
	frame(w, c, self->name, NULL);
	wattron(w, A_BOLD);
	put(w, 1, 2, d->problem);
	wattroff(w, A_BOLD);
	put_wrapped(w, put_rows(w, 2, d->settings, inside > 3 ? inside - 2 : 1), d->params);
}

/* Cells of a timing bar in window w: from column 13 (after the label) to one blank before
 * the 12-cell figure, which ends one blank before the border. */
#define TIMING_BAR(w) (getmaxx(w) - 28)

/* Draws one timing row: label, bar on the shared scale, figure; returns the next row. */
static int timing_row(WINDOW *w, const struct panel_ctx *c, int y, const char *label, double ms,
                      double scale, int pair)
{
	char bar[4 * 256], fig[32];
	const int width = TIMING_BAR(w);
	put(w, y, 2, label);
	color(w, c, pair, 1);
	fmt_bar(bar, sizeof bar, ms, scale, width < 256 ? width : 256, c->utf8);
	put(w, y, 13, bar);
	color(w, c, pair, 0);
	fmt_ms(fig, sizeof fig, ms);
	put(w, y, getmaxx(w) - 14, fig);
	return y + 1;
}

/* Lists each GPU of slot t's run over several GPUs (dash_gpu_timing_line: its total and
 * longest phases, the slowest marked '>') from row y while rows remain above the scale, the
 * slowest always among them; returns the next row (y when t is no such run). */
static int gpu_rows(WINDOW *w, int y, const struct dash_timing *t)
{
	int idx[QX_MAX_GPUS];
	char line[DASH_LINE];
	const int n = dash_gpu_visible(t, getmaxy(w) - 2 - y, idx), slow = dash_gpu_slowest(t);
	for (int i = 0; i < n; i++) {
		dash_gpu_timing_line(line, sizeof line, t, idx[i], getmaxx(w) - 6);
		if (idx[i] == slow)
			wattron(w, A_BOLD);
		put(w, y++, 4, line);
		wattroff(w, A_BOLD);
	}
	return y;
}

/* Timing: every backend's total, the GPU's phases as the run reported them, all bars on one
 * shared scale; the phases that overlapped marked '~' (their sum can exceed the total). A run
 * over several GPUs lists each GPU's total and longest phases under its total (the slowest's,
 * whose phases the bars below show), as many GPUs as rows allow. */
static void draw_timing(WINDOW *w, const struct panel *self, const struct panel_ctx *c)
{
	const struct dash_data *d = c->data;
	const struct dash_timing *t = d->timing;
	char label[32], line[DASH_LINE];
	double max = 0;
	int y = 1;
	const int overlap = t[SLOT_GPU].valid && qx_timing_overlapped(&t[SLOT_GPU].med);
	const int multi = dash_gpu_slowest(&t[SLOT_GPU]) >= 0;
	frame(w, c, self->name,
	      multi     ? "median; *: other params; >: slowest GPU"
	      : overlap ? "median; *: other params; ~: overlap"
	                : "median; *: other params");
	for (int k = 0; k < SLOT_COUNT; k++)
		if (t[k].valid && t[k].med.total > max)
			max = t[k].med.total;
	const double scale = fmt_nice_max(max);
	for (int k = SLOT_CPU_SERIAL; k <= SLOT_CPU_THREADS; k++) {
		if (!t[k].valid) {
			put(w, y++, 2,
			    k == SLOT_CPU_SERIAL ? "cpu 1 thr  (set threads 1; run cpu)"
			                         : "cpu N thr  (set threads N; run cpu)");
			continue;
		}
		snprintf(label, sizeof label, "cpu %d thr%s", t[k].threads_or_block,
		         dash_timing_other(d, (enum dash_slot)k) ? "*" : "");
		y = timing_row(w, c, y, label, t[k].med.total, scale, PAIR_CPU);
	}
	if (!t[SLOT_GPU].valid) {
		put(w, y++, 2, "gpu        (no GPU run yet)");
	} else {
		const struct qx_timing *p = &t[SLOT_GPU].med;
		snprintf(label, sizeof label, "gpu b%d%s", t[SLOT_GPU].threads_or_block,
		         dash_timing_other(d, SLOT_GPU) ? "*" : "");
		y = timing_row(w, c, y, label, p->total, scale, PAIR_GPU);
		y = gpu_rows(w, y, &t[SLOT_GPU]);
		for (int k = 0; k < p->nphases && y < getmaxy(w) - 2; k++) {
			snprintf(label, sizeof label, "  %.8s%s", p->phase[k].name,
			         p->phase[k].overlapped ? "~" : "");
			y = timing_row(w, c, y, label, p->phase[k].ms, scale, PAIR_PHASE);
		}
	}
	if (d->compile[0] && y < getmaxy(w) - 2) /* its own phase, outside the totals above */
		put(w, y++, 2, d->compile);
	fmt_scale(line, sizeof line, scale, TIMING_BAR(w));
	put(w, getmaxy(w) - 2 > y ? getmaxy(w) - 2 : y, 13, line);
}

/* Speedup: the headline speedup in big digits, the others, and the history of GPU runs. */
static void draw_speedup(WINDOW *w, const struct panel *self, const struct panel_ctx *c)
{
	const struct dash_data *d = c->data;
	char big[32], row[160], line[DASH_LINE], a[32], b[32], s[32];
	const char *what;
	double x;
	frame(w, c, self->name, NULL);
	if (!isnan(d->speedup_threads)) {
		x = d->speedup_threads;
		snprintf(line, sizeof line, "gpu vs cpu %d threads", d->threads_ref);
		what = line;
	} else if (!isnan(d->speedup_serial)) {
		x = d->speedup_serial;
		what = "gpu vs cpu serial";
	} else if (!isnan(d->cpu_scaling)) {
		x = d->cpu_scaling;
		snprintf(line, sizeof line, "cpu %d threads vs serial (no GPU run)",
		         d->cpu_scaling_threads);
		what = line;
	} else {
		x = NAN;
		what = "run cpu and gpu on one configuration (F5)";
	}
	put(w, 1, 2, what);
	fmt_speedup(big, sizeof big, x);
	color(w, c, PAIR_BIG, 1);
	wattron(w, A_BOLD);
	for (int r = 0; r < 3 && !isnan(x); r++) { /* no figure: no big "-" (a bare '_') */
		fmt_big_row(row, sizeof row, big, r);
		put(w, 2 + r, 2, row);
	}
	wattroff(w, A_BOLD);
	color(w, c, PAIR_BIG, 0);
	fmt_speedup(a, sizeof a, d->speedup_serial);
	fmt_speedup(b, sizeof b, d->speedup_threads);
	fmt_speedup(s, sizeof s, d->cpu_scaling);
	snprintf(line, sizeof line, "gpu vs serial %s  vs threads %s", a, b);
	put(w, 5, 2, line);
	snprintf(line, sizeof line, "cpu threads vs serial %s", s);
	put(w, 6, 2, line);
	fmt_spark(row, sizeof row, d->history, d->nhistory, c->utf8);
	snprintf(line, sizeof line, "history %s", d->nhistory ? row : "(no GPU run yet)");
	put(w, 7, 2, line);
}

/* Error: statistics of the last run against the reference, the problem's own figures of the
 * run (a remainder bound...) and the log10 histogram. */
static void draw_error(WINDOW *w, const struct panel *self, const struct panel_ctx *c)
{
	const struct dash_data *d = c->data;
	const struct err_stats *e = &d->err;
	char line[DASH_LINE + 64], row[160];
	int y = 2;
	frame(w, c, self->name, "relative");
	if (!d->error_of[0]) {
		put(w, 1, 2, "no run yet");
		return;
	}
	put(w, 1, 2, d->error_of);
	if (d->is_reference)
		put(w, y++, 2, "this run is the reference itself: no error");
	if (d->is_reference || !d->has_error) {
		put_wrapped(w, y, d->extras);
		return;
	}
	snprintf(line, sizeof line, "max rel %.3g  mean rel %.3g", e->max_rel, e->mean_rel);
	put(w, y++, 2, line);
	color(w, c, e->over ? PAIR_BAD : PAIR_GOOD, 1);
	snprintf(line, sizeof line, "over %g: %zu of %zu", e->threshold, e->over, e->count);
	if (d->hist.bad)
		snprintf(line + strlen(line), sizeof line - strlen(line), "  (%zu not a number)",
		         d->hist.bad);
	put(w, y++, 2, line);
	color(w, c, e->over ? PAIR_BAD : PAIR_GOOD, 0);
	snprintf(line, sizeof line, "worst at %s", d->worst_at);
	put(w, y++, 2, line);
	snprintf(line, sizeof line, "  %s", d->worst_value);
	put(w, y++, 2, line);
	y = put_wrapped(w, y, d->extras);
	const int height = getmaxy(w) - 2 - y;
	for (int r = 0; r < height; r++) {
		fmt_hist_row(row, sizeof row, &d->hist, r, height, c->utf8);
		color(w, c, PAIR_PHASE, 1);
		put(w, y + r, 2, row);
		color(w, c, PAIR_PHASE, 0);
	}
	if (height > 0) {
		fmt_hist_axis(row, sizeof row);
		snprintf(line, sizeof line, "%s log10", row);
		put(w, y + height, 2, line);
	}
}

/* Device: the GPU, or why there is none. A host of several GPUs: each GPU's index and name
 * (with the last run's time on it when that run used several, the slowest marked '>'), then
 * device 0's facts in the rows left. */
static void draw_device(WINDOW *w, const struct panel *self, const struct panel_ctx *c)
{
	const struct dash_data *d = c->data;
	const int multi = dash_gpu_slowest(&d->timing[SLOT_GPU]) >= 0;
	char line[DASH_LINE];
	int y = 1;
	frame(w, c, self->name,
	      d->ngpus > 1 ? (multi ? "last run per GPU; >: slowest" : "GPUs") : NULL);
	if (!d->ndevice)
		put(w, 1, 2, "(checking the GPU...)");
	for (int g = 0; d->ngpus > 1 && g < d->ngpus && y < getmaxy(w) - 1; g++) {
		int idx = g;
		const int slow = dash_gpu_slowest(&d->timing[SLOT_GPU]);
		if (y == getmaxy(w) - 2 && g + 1 < d->ngpus && slow > g)
			idx = slow; /* the last row: the slowest, when it is not listed yet */
		dash_gpu_device_line(line, sizeof line, d, idx, getmaxx(w) - 4);
		if (idx == slow)
			wattron(w, A_BOLD);
		put(w, y++, 2, line);
		wattroff(w, A_BOLD);
	}
	for (int k = d->ngpus > 1; k < d->ndevice && y < getmaxy(w) - 1; k++)
		y = put_wrapped(w, y, d->device[k]);
}

/* Log: the newest rows that fit, or older ones when scrolled back; long lines wrapped to the
 * panel's width, an error's rows all in the error colour. */
static void draw_log(WINDOW *w, const struct panel *self, const struct panel_ctx *c)
{
	const int rows = getmaxy(w) - 2;
	struct dash_log_row view[DASH_LOG_LINES];
	char note[64], line[DASH_LOG_WIDTH];
	if (c->log_scroll)
		snprintf(note, sizeof note, "%d row%s back; PgDn", c->log_scroll,
		         c->log_scroll == 1 ? "" : "s");
	else
		snprintf(note, sizeof note, "PgUp/PgDn scroll%s",
		         c->zoomed == self ? "; F8 unzooms" : "");
	frame(w, c, self->name, note);
	const int n = dash_log_view(c->log, getmaxx(w) - 4, c->log_scroll,
	                            rows < DASH_LOG_LINES ? rows : DASH_LOG_LINES, view);
	for (int r = 0; r < n; r++) {
		const struct dash_log_row *v = &view[r];
		snprintf(line, sizeof line, "%*s%.*s", v->piece.indent, "", v->piece.len,
		         v->line + v->piece.start);
		if (!strncmp(v->line, "error: ", 7))
			color(w, c, PAIR_BAD, 1);
		put(w, 1 + r, 2, line);
		color(w, c, PAIR_BAD, 0);
	}
}

/* Log keys: PgUp/PgDn scroll by a page of wrapped rows; returns 1 when key was one of them. */
static int log_key(struct panel_ctx *c, int key, int rows, int cols)
{
	const int page = rows > 3 ? rows - 3 : 1;
	const int total = dash_log_rows(c->log, cols - 4);
	const int max = total > rows - 2 ? total - (rows - 2) : 0;
	if (key == KEY_PPAGE)
		c->log_scroll = c->log_scroll + page > max ? max : c->log_scroll + page;
	else if (key == KEY_NPAGE)
		c->log_scroll = c->log_scroll > page ? c->log_scroll - page : 0;
	else
		return 0;
	return 1;
}

/* Sweep: the last sweep as a bar chart of throughput, growing as configurations finish, the
 * newest rows when they do not all fit (the best row kept), the best marked with '*' and
 * highlighted. */
static void draw_sweep(WINDOW *w, const struct panel *self, const struct panel_ctx *c)
{
	const struct dash_sweep *sw = &c->data->sweep;
	const int rows = getmaxy(w) - 3;
	char line[4 * DASH_LINE], note[64];
	snprintf(note, sizeof note, sw->running ? "running; %s/s" : "%s/s; *: best",
	         sw->present ? sw->unit : "work");
	frame(w, c, self->name, note);
	dash_sweep_header(line, sizeof line, sw);
	put(w, 1, 2, line);
	int idx[DASH_SWEEP_ROWS];
	const int n = dash_sweep_visible(sw, rows, idx);
	for (int k = 0; k < n; k++) {
		const int i = idx[k];
		const struct dash_sweep_row *r = &sw->rows[i];
		const int pair = !r->ok ? PAIR_BAD : r->best ? PAIR_GOOD : PAIR_PHASE;
		dash_sweep_line(line, sizeof line, sw, i, getmaxx(w) - 4, c->utf8);
		color(w, c, pair, 1);
		if (r->best)
			wattron(w, A_BOLD | A_REVERSE);
		put(w, 2 + k, 2, line);
		wattroff(w, A_BOLD | A_REVERSE);
		color(w, c, pair, 0);
	}
}

/* The Sweep panel has a place once the session has a sweep. */
static int sweep_shown(const struct dash_data *d)
{
	return d->sweep.present;
}

/* The colour pair of chart series s (the legend's and the plot's). */
static int chart_pair(int s)
{
	return s == 0 ? PAIR_PHASE : PAIR_BIG;
}

/* Draws the legend of chart ch on row y: each series' mark in its colour, then its name. */
static void chart_legend(WINDOW *w, const struct panel_ctx *c, int y, const struct qx_chart *ch)
{
	int x = 2;
	for (int s = 0; s < ch->nseries && s < QX_CHART_SERIES && x < getmaxx(w) - 2; s++) {
		color(w, c, chart_pair(s), 1);
		put(w, y, x, chart_mark(ch->series[s].kind, c->utf8));
		color(w, c, chart_pair(s), 0);
		put(w, y, x + 2, ch->series[s].name);
		x += 2 + (int)strlen(ch->series[s].name) + 2;
	}
}

/* Draws plot row `row` of p at (y, x), each cell in its series' colour. */
static void chart_row(WINDOW *w, const struct panel_ctx *c, int y, int x,
                      const struct chart_plot *p, int row)
{
	char line[4 * CHART_MAX_WIDTH + 1], cell[8];
	signed char which[CHART_MAX_WIDTH];
	fmt_chart_row(line, sizeof line, p, row, c->utf8, which);
	for (int k = 0, at = 0; k < p->width && line[at]; k++) {
		int n = 1;
		while (((unsigned char)line[at + n] & 0xC0) == 0x80)
			n++;
		snprintf(cell, sizeof cell, "%.*s", n, line + at);
		at += n;
		if (which[k] < 0)
			continue;
		color(w, c, chart_pair(which[k]), 1);
		put(w, y, x + k, cell);
		color(w, c, chart_pair(which[k]), 0);
	}
}

/* Chart: an adaptive run's live convergence while it runs, else the last run's chart, when its
 * problem drew one: the legend (when there is room),
 * the plot with the top of its y range and 0 beside it, the x axis with its label under it; or
 * a line saying the last run has none (zoomed, F9). */
static void draw_chart(WINDOW *w, const struct panel *self, const struct panel_ctx *c)
{
	const struct dash_converge *live = &c->data->converge;
	const struct qx_chart *ch = live->active ? &live->chart : &c->data->chart;
	const int inside = getmaxy(w) - 2, legend = inside >= 4;
	const int height = inside - 1 - legend, xw = *ch->xlabel ? (int)strlen(ch->xlabel) + 1 : 0;
	struct chart_plot p;
	char top[32], line[CHART_MAX_WIDTH + 1];
	char note[sizeof ch->title + 16];
	snprintf(note, sizeof note, "%s%s", ch->nseries ? ch->title : "none",
	         c->zoomed == self ? "; F9 unzooms" : "");
	frame(w, c, self->name, note);
	if (!ch->nseries) {
		put(w, 1, 2, "(no chart for the last run)");
		return;
	}
	if (legend)
		chart_legend(w, c, 1, ch);
	const int gutter = snprintf(top, sizeof top, "%.3g", chart_ymax(ch)) + 1;
	const int x = 2 + gutter, width = getmaxx(w) - 4 - gutter - xw;
	if (height < 1 || width < 1 || !chart_fit(ch, width, height, &p)) {
		put(w, 1 + legend, 2, "(nothing to draw)");
		return;
	}
	put(w, 1 + legend, 2 + gutter - 1 - (int)strlen(top), top);
	put(w, legend + height, 2 + gutter - 2, "0");
	for (int r = 0; r < height; r++)
		chart_row(w, c, 1 + legend + r, x, &p, r);
	fmt_chart_axis(line, sizeof line, &p);
	put(w, getmaxy(w) - 2, x, line);
	put(w, getmaxy(w) - 2, x + p.width + 1, ch->xlabel);
}

/* The Chart panel has a place when the last run left a chart or an adaptive run reports. */
static int chart_shown(const struct dash_data *d)
{
	return d->chart.nseries > 0 || d->converge.active;
}

const struct panel panel_table[] = {
    {.name = "Problem",
     .hint = {.min_h = 5, .pref_h = 6, .min_w = 38, .fill = 0}, /* name, settings, params */
     .draw = draw_problem},
    {.name = "Timing",
     .hint = {.min_h = 6, .pref_h = 11, .min_w = 38, .fill = 0},
     .draw = draw_timing},
    {.name = "Speedup",
     .hint = {.min_h = 5, .pref_h = 9, .min_w = 38, .fill = 0},
     .draw = draw_speedup},
    {.name = "Error",
     .hint = {.min_h = 6, .pref_h = 11, .min_w = 38, .fill = 0},
     .draw = draw_error},
    {.name = "Device",
     .hint = {.min_h = 3, .pref_h = 7, .min_w = 38, .fill = 0},
     .draw = draw_device},
    {.name = "Sweep",
     .hint = {.min_h = 4, .pref_h = 4, .min_w = 40, .fill = 1},
     .draw = draw_sweep,
     .shown = sweep_shown},
    {.name = "Chart", /* plot rows: 2 at its minimum, the legend from 6 rows */
     .hint = {.min_h = 5, .pref_h = 5, .min_w = 40, .fill = 1, .optional = 1},
     .draw = draw_chart,
     .shown = chart_shown,
     .zoom_key = KEY_F(9)},
    {.name = "Log", /* the last entry (tests/unit/test_panels.c) */
     .hint = {.min_h = 4, .pref_h = 4, .min_w = 40, .fill = 1},
     .draw = draw_log,
     .on_key = log_key,
     .zoom_key = KEY_F(8)},
};
const int panel_count = sizeof panel_table / sizeof panel_table[0];

/* Fills the hints, hiding the panels not shown for d; returns the mask of those shown. */
unsigned panels_hints(const struct dash_data *d, struct panel_hint *hints)
{
	unsigned mask = 0;
	for (int i = 0; i < panel_count; i++) {
		hints[i] = panel_table[i].hint;
		hints[i].hidden = panel_table[i].shown && !panel_table[i].shown(d);
		mask |= hints[i].hidden ? 0u : 1u << i;
	}
	return mask;
}

/* Draws the status line. */
void panels_draw_status(WINDOW *w, const struct panel_ctx *c)
{
	const struct dash_live *l = c->live;
	char line[2 * DASH_LINE], sweep[64];
	werase(w);
	wattron(w, A_REVERSE);
	if (l->busy) {
		dash_sweep_progress(sweep, sizeof sweep, &c->data->sweep);
		const struct status_run run = {
		    l->line,        sweep,         l->prog.phase,    l->prog.done,
		    l->prog.total,  l->elapsed_ms, l->phase_ms,      l->prog.err,
		    l->prog.target, l->prog.unit,  l->prog.converged};
		fmt_status_run(line, sizeof line, getmaxx(w), &run, c->utf8);
	} else {
		fmt_status_keys(line, sizeof line, getmaxx(w), "quadx dashboard ", c->keys,
		                c->nkeys);
	}
	mvwhline(w, 0, 0, ' ', getmaxx(w));
	mvwaddstr(w, 0, 0, line);
	wattroff(w, A_REVERSE);
}

/* Draws the keys, one a row: the key, then what it does, wrapped in a column of its own. */
void panels_draw_keys(WINDOW *w, const struct panel_ctx *c)
{
	enum { KEY_COL = 13 }; /* 2 + the widest key name and a blank */
	struct wrap_piece piece[DASH_LINE];
	char line[DASH_LINE];
	int y = 1;
	frame(w, c, "Keys", "F1 closes");
	for (int i = 0; i < c->nkeys; i++) {
		const char *about = c->keys[i].about;
		const int n = fmt_wrap(about, getmaxx(w) - 2 - KEY_COL, piece, DASH_LINE);
		put(w, y, 2, c->keys[i].key);
		for (int r = 0; r < n && r < DASH_LINE; r++) {
			snprintf(line, sizeof line, "%.*s", piece[r].len, about + piece[r].start);
			put(w, y++, KEY_COL, line);
		}
	}
}

/* Draws the too-small message, wrapped, in the middle of w above the command line. */
void panels_draw_too_small(WINDOW *w, int rows, int cols, int min_rows, int min_cols)
{
	char text[160];
	struct wrap_piece piece[40];
	werase(w);
	fmt_too_small(text, sizeof text, rows, cols, min_rows, min_cols);
	const int n = fmt_wrap(text, cols, piece, 40), room = rows > 1 ? rows - 1 : 1;
	const int top = room > n ? (room - n) / 2 : 0;
	for (int r = 0; r < n && r < 40 && top + r < room; r++)
		mvwaddnstr(w, top + r, 0, text + piece[r].start, piece[r].len);
}
