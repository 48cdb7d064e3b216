/* panels.h - the dashboard's panels: one const table of objects (name, size hint, draw, key
 * handler, when shown, zoom key). Layout reads the hints, the frame loop calls draw for each,
 * keys go to on_key; a panel's zoom key gives it the whole screen. Adding a panel is one more
 * entry. Only the UI thread calls these, holding the dashboard's lock. */
#ifndef QX_PANELS_H
#define QX_PANELS_H

#include <curses.h>

#include "dashdata.h"
#include "layout.h"

/* The state of the run in progress, as the UI thread sees it. */
struct dash_live {
	int busy;
	char line[DASH_LINE]; /* the command line being run */
	struct qx_progress prog;
	double elapsed_ms, phase_ms; /* since the command began; since the phase began */
};

struct panel;

/* What every panel draws from, and the UI's own view state. */
struct panel_ctx {
	const struct dash_data *data;
	const struct dash_log *log;
	const struct dash_live *live;
	int log_scroll; /* wrapped rows scrolled back from the newest */
	int utf8, color;
	const struct key_hint *keys; /* the dashboard's keys, for the status line and F1 */
	int nkeys;
	const struct panel *zoomed; /* the panel that fills the screen (its zoom key), or NULL */
};

struct panel {
	const char *name; /* its title */
	struct panel_hint hint;
	/* Draws the panel self into w (its own window, border included); calls no refresh. */
	void (*draw)(WINDOW *w, const struct panel *self, const struct panel_ctx *c);
	/* Handles key with the panel's window rows x cols; returns 1 when it used it. May be NULL.
	 */
	int (*on_key)(struct panel_ctx *c, int key, int rows, int cols);
	/* Returns 1 when the panel has a place on the screen for data d; NULL: always. */
	int (*shown)(const struct dash_data *d);
	int zoom_key; /* the key that zooms it to the whole screen and back (KEY_F(8)), or 0 */
};

/* The panels, in table order; panel_count of them. */
extern const struct panel panel_table[];
extern const int panel_count;

/* Fills hints[] with the table's hints, each hidden when its panel is not shown for d;
 * returns a bit mask of the shown panels (bit i: panel i), which changes when the layout must. */
unsigned panels_hints(const struct dash_data *d, struct panel_hint *hints);

/* Sets up the colour pairs the panels use (call after start_color). */
void panels_init_colors(void);

/* Draws the status line: the run in progress with its progress, or the keys. */
void panels_draw_status(WINDOW *w, const struct panel_ctx *c);

/* Draws the list of keys (F1) into w, border included. */
void panels_draw_keys(WINDOW *w, const struct panel_ctx *c);

/* Draws the message shown instead of the panels on a terminal below the minimum size. */
void panels_draw_too_small(WINDOW *w, int rows, int cols, int min_rows, int min_cols);

#endif
