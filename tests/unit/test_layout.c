/* test_layout.c - the dashboard's geometry over many terminal sizes: every panel inside the
 * screen, at least its minimum size, no two overlapping, the body covered with no gap; too
 * small sizes refused with the minimum named; two columns when wide, one when narrow; a hidden
 * panel (the Sweep panel before the first sweep) takes no room; an optional one (the Chart
 * panel) is left out where it does not fit, so it never makes a terminal too small. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/layout.h"
#include "../../src/panels.h"

/* Hints of the dashboard's own panel table. */
static int table_hints(struct panel_hint *h)
{
	for (int i = 0; i < panel_count; i++)
		h[i] = panel_table[i].hint;
	return panel_count;
}

/* The index of the table's panel called name; fails the test when there is none. */
static int panel_index(const char *name)
{
	for (int i = 0; i < panel_count; i++)
		if (!strcmp(panel_table[i].name, name))
			return i;
	fail_msg("no panel %s", name);
	return -1;
}

/* Checks one computed layout cell by cell: each body cell is covered exactly once, panels
 * keep their minimum sizes, the status and command lines hold the first and last rows. */
static void check_layout(int rows, int cols, const struct panel_hint *h, int n,
                         const struct layout *l)
{
	static unsigned char cover[200][300];
	memset(cover, 0, sizeof cover);
	assert_int_equal(l->status.y, 0);
	assert_int_equal(l->status.h, 1);
	assert_int_equal(l->cmdline.y, rows - 1);
	assert_int_equal(l->cmdline.w, cols);
	for (int i = 0; i < n; i++) {
		const struct rect *r = &l->panel[i];
		assert_true(!(l->dropped & 1u << i) || h[i].optional);
		if (h[i].hidden || l->dropped & 1u << i) {
			assert_true(r->h == 0 && r->w == 0);
			continue;
		}
		assert_true(r->h >= h[i].min_h);
		assert_true(r->w >= h[i].min_w);
		assert_true(r->y >= 1 && r->y + r->h <= rows - 1);
		assert_true(r->x >= 0 && r->x + r->w <= cols);
		for (int y = r->y; y < r->y + r->h; y++)
			for (int x = r->x; x < r->x + r->w; x++)
				cover[y][x]++;
	}
	for (int y = 1; y < rows - 1; y++)
		for (int x = 0; x < cols; x++)
			if (cover[y][x] != 1)
				fail_msg("%dx%d: cell (%d,%d) covered %d times", cols, rows, y, x,
				         cover[y][x]);
}

/* Every size from 1x1 to 250x80, with the Sweep and Chart panels each shown and hidden: laid
 * out and checked, or refused below the minimum, which the Chart panel never raises: every
 * size laid out without it is laid out with it (the Chart left out where it does not fit). */
static void test_many_sizes(void **state)
{
	struct panel_hint h[LAYOUT_MAX_PANELS];
	struct layout l;
	const int n = table_hints(h), chart = panel_index("Chart");
	static int fits[2][81][251]; /* without the Chart panel: [sweep hidden][rows][cols] */
	int laid = 0, refused = 0, charted = 0, dropped = 0;
	(void)state;
	for (int cell = 0; cell < 4 * 80 * 250; cell++) {
		const int hide = cell / (80 * 250) % 2, hide_chart = cell / (2 * 80 * 250) == 0,
		          rows = 1 + cell / 250 % 80, cols = 1 + cell % 250;
		if (cols > 90 && (cols - 90) % 7) /* every column to 90, then every 7th */
			continue;
		h[panel_index("Sweep")].hidden = hide;
		h[chart].hidden = hide_chart;
		const int rc = layout_compute(rows, cols, h, n, &l);
		assert_true(l.min_rows > 2 && l.min_cols > 0);
		if (hide_chart)
			fits[hide][rows][cols] = rc == 0;
		else if (fits[hide][rows][cols] != (rc == 0))
			fail_msg("%dx%d: the Chart panel changes whether the layout fits", cols,
			         rows);
		if (rc) {
			assert_true(rows < l.min_rows || cols < l.min_cols);
			refused++;
			continue;
		}
		assert_true((rows >= l.min_rows && cols >= l.min_cols) ||
		            (l.narrow_rows && rows >= l.narrow_rows && cols >= l.narrow_cols));
		check_layout(rows, cols, h, n, &l);
		laid++;
		if (!hide_chart) {
			charted += l.panel[chart].h > 0;
			dropped += (l.dropped & 1u << chart) != 0;
		}
	}
	assert_true(laid > 4000 && refused > 4000 && charted > 1000 && dropped > 100);
}

/* 80x24 fits in two columns; 60 columns is one column and needs more rows; 10x5 is refused. */
static void test_columns_and_minimum(void **state)
{
	struct panel_hint h[LAYOUT_MAX_PANELS];
	struct layout l;
	const int n = table_hints(h);
	(void)state;
	assert_int_equal(layout_compute(24, 80, h, n, &l), 0);
	assert_int_equal(l.columns, 2);
	const int two_col_rows = l.min_rows;
	assert_int_equal(layout_compute(100, 60, h, n, &l), 0);
	assert_int_equal(l.columns, 1);
	assert_int_equal(l.min_rows, two_col_rows); /* the minimum does not follow the size */
	assert_true(l.narrow_rows > two_col_rows && l.narrow_cols < l.min_cols);
	for (int i = 0; i < n; i++)
		assert_int_equal(l.panel[i].w, 60);
	assert_int_equal(layout_compute(5, 10, h, n, &l), -1);
	assert_int_equal(l.columns, 1);
	assert_int_equal(l.cmdline.y, 4);
}

/* The minimum is one size whatever the terminal's: at 60x15 (one column, too few rows) and
 * 80x20 (two columns) alike, with or without room for the optional Chart panel; the panels fit
 * at exactly that size and not one row or column less (in two columns), and in one column at
 * the narrow minimum. */
static void test_one_minimum(void **state)
{
	struct panel_hint h[LAYOUT_MAX_PANELS];
	struct layout l;
	const int n = table_hints(h);
	const int sizes[][2] = {{15, 60}, {20, 80}, {5, 10}, {100, 60}, {24, 80}, {60, 250}};
	int rows = 0, cols = 0;
	(void)state;
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		layout_compute(sizes[k][0], sizes[k][1], h, n, &l);
		if (k == 0) {
			rows = l.min_rows;
			cols = l.min_cols;
		}
		assert_int_equal(l.min_rows, rows);
		assert_int_equal(l.min_cols, cols);
	}
	assert_int_equal(layout_compute(rows, cols, h, n, &l), 0);
	assert_int_equal(l.columns, 2);
	assert_int_equal(layout_compute(rows - 1, cols, h, n, &l), -1);
	assert_int_equal(layout_compute(rows, cols - 1, h, n, &l), -1);
	assert_int_equal(layout_compute(l.narrow_rows, l.narrow_cols, h, n, &l), 0);
	assert_int_equal(l.columns, 1);
	assert_int_equal(layout_compute(l.narrow_rows - 1, l.narrow_cols, h, n, &l), -1);
}

/* Preferred heights are used when there is room, and the fill panel takes the rest. */
static void test_preferred_and_fill(void **state)
{
	const struct panel_hint h[3] = {
	    {3, 6, 20, 0, 0, 0}, {3, 4, 20, 0, 0, 0}, {2, 2, 20, 1, 0, 0}};
	struct layout l;
	(void)state;
	assert_int_equal(layout_compute(40, 100, h, 3, &l), 0);
	assert_int_equal(l.columns, 2);
	assert_int_equal(l.panel[0].h, 6); /* left column */
	assert_int_equal(l.panel[1].x, 50);
	assert_int_equal(l.panel[1].h, 6); /* the last of its column stretches to the column */
	assert_int_equal(l.panel[2].y, 7);
	assert_int_equal(l.panel[2].h, 40 - 2 - 6);
	assert_int_equal(layout_compute(9, 100, h, 3, &l), 0); /* 7 body rows: 5 + 2 */
	assert_int_equal(l.panel[0].h, 5);
	assert_int_equal(l.panel[2].h, 2);
	assert_int_equal(layout_compute(6, 100, h, 3, &l), -1);
	assert_int_equal(l.min_rows, 7);
}

/* A new panel (a sweep panel, say) is one more hint and lands in the shorter column. */
static void test_one_more_panel(void **state)
{
	struct panel_hint h[LAYOUT_MAX_PANELS];
	struct layout before, after;
	int n = table_hints(h);
	(void)state;
	assert_int_equal(layout_compute(60, 160, h, n, &before), 0);
	h[n++] = (struct panel_hint){5, 8, 38, 0, 0, 0};
	assert_int_equal(layout_compute(60, 160, h, n, &after), 0);
	check_layout(60, 160, h, n, &after);
	assert_true(after.panel[n - 1].h >= 5);
}

/* A hidden panel takes no room: the Sweep panel shares the leftover rows with the Log when
 * shown, and the Log has them all when it is hidden. */
static void test_hidden_panel(void **state)
{
	struct panel_hint h[LAYOUT_MAX_PANELS];
	struct layout shown, hidden;
	const int n = table_hints(h), sweep = panel_index("Sweep"), log = panel_index("Log");
	(void)state;
	h[panel_index("Chart")].hidden = 1;
	h[sweep].hidden = 0;
	assert_int_equal(layout_compute(40, 120, h, n, &shown), 0);
	check_layout(40, 120, h, n, &shown);
	assert_true(shown.panel[sweep].h >= h[sweep].min_h && shown.panel[sweep].w == 120);
	h[sweep].hidden = 1;
	assert_int_equal(layout_compute(40, 120, h, n, &hidden), 0);
	check_layout(40, 120, h, n, &hidden);
	assert_int_equal(hidden.panel[sweep].h, 0);
	assert_int_equal(hidden.panel[log].h, shown.panel[log].h + shown.panel[sweep].h);
	assert_int_equal(hidden.min_rows, shown.min_rows - h[sweep].min_h);
	for (int i = 0; i < n; i++)
		if (i != sweep && i != log)
			assert_memory_equal(&hidden.panel[i], &shown.panel[i],
			                    sizeof shown.panel[i]);
}

/* Zoomed (F8), the Log fills every row between the status and command lines at full width,
 * at 80x24 and wherever the Log alone fits, the Sweep panel shown or not; a panel that is not a
 * fill panel zooms the same way. */
static void test_zoom(void **state)
{
	struct panel_hint h[LAYOUT_MAX_PANELS];
	struct layout l;
	const int n = table_hints(h), log = panel_index("Log"), timing = panel_index("Timing");
	(void)state;
	layout_zoom(h, n, log);
	assert_int_equal(layout_compute(24, 80, h, n, &l), 0);
	check_layout(24, 80, h, n, &l);
	assert_memory_equal(&l.panel[log], (&(struct rect){1, 0, 22, 80}), sizeof(struct rect));
	for (int i = 0; i < n; i++)
		assert_true(i == log || (h[i].hidden && l.panel[i].h == 0));
	assert_int_equal(layout_compute(10, 45, h, n, &l), 0); /* too small unzoomed */
	assert_memory_equal(&l.panel[log], (&(struct rect){1, 0, 8, 45}), sizeof(struct rect));
	table_hints(h);
	assert_int_equal(layout_compute(10, 45, h, n, &l), -1);
	layout_zoom(h, n, timing);
	assert_int_equal(layout_compute(24, 80, h, n, &l), 0);
	check_layout(24, 80, h, n, &l);
	assert_memory_equal(&l.panel[timing], (&(struct rect){1, 0, 22, 80}), sizeof(struct rect));
}

/* The Chart panel (optional, a fill panel of minimum 5 rows) at 80x24: with the Sweep panel
 * hidden it has its 5 rows at full width between the top panels (at their minimum heights) and
 * the Log; with the Sweep panel it does not fit and is left out, the others laid out exactly
 * as when it is hidden, so 80x24 still fits; 40 rows fit all three. At 120x40 each fill panel
 * gets its minimum and an equal share of the rows left. Zoomed (F9) it has the whole body,
 * also where it would be left out. */
static void test_chart_panel(void **state)
{
	struct panel_hint h[LAYOUT_MAX_PANELS];
	struct layout with, without;
	const int n = table_hints(h), chart = panel_index("Chart"), sweep = panel_index("Sweep"),
	          log = panel_index("Log");
	(void)state;
	h[sweep].hidden = 1;
	assert_int_equal(layout_compute(24, 80, h, n, &with), 0);
	check_layout(24, 80, h, n, &with);
	assert_int_equal(with.dropped, 0);
	assert_memory_equal(&with.panel[chart], (&(struct rect){14, 0, 5, 80}),
	                    sizeof(struct rect));
	assert_memory_equal(&with.panel[log], (&(struct rect){19, 0, 4, 80}), sizeof(struct rect));
	for (int i = 0; i < n; i++) /* 13 rows: the columns' minimums (13, and 12 + 1) */
		if (!h[i].fill)
			assert_true(with.panel[i].h <= h[i].min_h + (i == panel_index("Timing")));
	h[sweep].hidden = 0;
	assert_int_equal(layout_compute(24, 80, h, n, &with), 0);
	check_layout(24, 80, h, n, &with);
	assert_int_equal(with.dropped, 1u << chart);
	h[chart].hidden = 1;
	assert_int_equal(layout_compute(24, 80, h, n, &without), 0);
	assert_memory_equal(with.panel, without.panel, sizeof with.panel);
	assert_int_equal(with.min_rows, without.min_rows);
	h[chart].hidden = 0;
	assert_int_equal(layout_compute(40, 80, h, n, &with), 0);
	check_layout(40, 80, h, n, &with);
	assert_true(with.dropped == 0 && with.panel[chart].h >= 5);
	assert_true(with.panel[sweep].y < with.panel[chart].y &&
	            with.panel[chart].y < with.panel[log].y);
	h[sweep].hidden = 1;
	assert_int_equal(layout_compute(40, 120, h, n, &with), 0); /* 16 rows: 5 + 3 and 4 + 4 */
	check_layout(40, 120, h, n, &with);
	assert_int_equal(with.panel[chart].h, 8);
	assert_int_equal(with.panel[log].h, 8);
	layout_zoom(h, n, chart);
	assert_false(h[chart].optional);
	assert_int_equal(layout_compute(24, 80, h, n, &with), 0);
	check_layout(24, 80, h, n, &with);
	assert_memory_equal(&with.panel[chart], (&(struct rect){1, 0, 22, 80}),
	                    sizeof(struct rect));
	assert_int_equal(layout_compute(10, 45, h, n, &with), 0);
	assert_memory_equal(&with.panel[chart], (&(struct rect){1, 0, 8, 45}), sizeof(struct rect));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_many_sizes),     cmocka_unit_test(test_columns_and_minimum),
	    cmocka_unit_test(test_one_minimum),    cmocka_unit_test(test_preferred_and_fill),
	    cmocka_unit_test(test_one_more_panel), cmocka_unit_test(test_hidden_panel),
	    cmocka_unit_test(test_zoom),           cmocka_unit_test(test_chart_panel),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
