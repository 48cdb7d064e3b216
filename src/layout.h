/* layout.h - the dashboard's geometry: where each panel, the status line and the command line
 * go for a terminal of a given size. Pure (no ncurses), unit-tested over many sizes. */
#ifndef QX_LAYOUT_H
#define QX_LAYOUT_H

#define LAYOUT_MAX_PANELS 16

/* A rectangle of character cells: top row y, left column x, h rows, w columns. */
struct rect {
	int y, x, h, w;
};

/* What a panel asks for: its minimum and preferred height, its minimum width, whether it
 * fills the rows left over (full width, below the others, sharing them with the other fill
 * panels; the Log panel), whether it is hidden (no place, the others take its room), and
 * whether it is optional: left out, as if hidden, where the terminal is too small for it
 * (the Chart panel), so that it never makes the terminal too small for the others. */
struct panel_hint {
	int min_h, pref_h, min_w;
	int fill;
	int hidden;
	int optional;
};

/* The computed geometry. columns is 1 or 2; min_rows x min_cols is the smallest terminal the
 * panels fit (the optional ones left out) in two columns, whatever the terminal's size: the
 * one size the too-small message names; narrow_rows x narrow_cols the smallest in one column
 * where that is narrower (more rows), else 0 x 0; dropped has bit i set for each optional
 * panel i left out for want of room. */
struct layout {
	struct rect status, cmdline;
	struct rect panel[LAYOUT_MAX_PANELS];
	int columns;
	int min_rows, min_cols;
	int narrow_rows, narrow_cols;
	unsigned dropped;
};

/* Lays out n panels (n <= LAYOUT_MAX_PANELS) on a rows x cols terminal: the status line on
 * top, the command line at the bottom, the other panels in two columns when the terminal is
 * wide enough (one otherwise), each column filled in table order by the shorter column first,
 * then the fill panels at full width, each its minimum height and an equal share of the rows
 * left; hidden panels get an empty rectangle, and so do optional ones, the last first, until
 * the others fit. Returns 0, or -1 when the panels do not fit (neither in two columns, at least
 * out->min_rows x out->min_cols, nor in one, at least out->narrow_rows x out->narrow_cols;
 * all four are set in either case). */
int layout_compute(int rows, int cols, const struct panel_hint *hints, int n, struct layout *out);

/* Zooms panel keep of the n hints to the whole body: hides every other panel and makes keep a
 * fill panel that is not optional (layout_compute then gives it every row between the status
 * and command lines, at full width). */
void layout_zoom(struct panel_hint *hints, int n, int keep);

#endif
