/* test_layout.c - the dashboard's geometry over many terminal sizes: every panel inside the
 * screen, at least its minimum size, no two overlapping, the body covered with no gap; too
 * small sizes refused with the minimum named; two columns when wide, one when narrow; a hidden
 * panel (the Sweep panel before the first sweep) takes no room. */
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
		if (h[i].hidden) {
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

/* Every size from 1x1 to 250x80, with the Sweep panel shown and hidden: laid out and checked,
 * or refused below the minimum. */
static void test_many_sizes(void **state)
{
	struct panel_hint h[LAYOUT_MAX_PANELS];
	struct layout l;
	const int n = table_hints(h);
	int laid = 0, refused = 0;
	(void)state;
	for (int cell = 0; cell < 2 * 80 * 250; cell++) {
		const int hide = cell / (80 * 250), rows = 1 + cell / 250 % 80,
		          cols = 1 + cell % 250;
		if (cols > 90 && (cols - 90) % 7) /* every column to 90, then every 7th */
			continue;
		h[panel_index("Sweep")].hidden = hide;
		const int rc = layout_compute(rows, cols, h, n, &l);
		assert_true(l.min_rows > 2 && l.min_cols > 0);
		if (rc) {
			assert_true(rows < l.min_rows || cols < l.min_cols);
			refused++;
			continue;
		}
		assert_true(rows >= l.min_rows && cols >= l.min_cols);
		check_layout(rows, cols, h, n, &l);
		laid++;
	}
	assert_true(laid > 2000 && refused > 2000);
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
	assert_true(l.min_rows > two_col_rows);
	for (int i = 0; i < n; i++)
		assert_int_equal(l.panel[i].w, 60);
	assert_int_equal(layout_compute(5, 10, h, n, &l), -1);
	assert_int_equal(l.columns, 1);
	assert_int_equal(l.cmdline.y, 4);
}

/* Preferred heights are used when there is room, and the fill panel takes the rest. */
static void test_preferred_and_fill(void **state)
{
	const struct panel_hint h[3] = {{3, 6, 20, 0, 0}, {3, 4, 20, 0, 0}, {2, 2, 20, 1, 0}};
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
	h[n++] = (struct panel_hint){5, 8, 38, 0, 0};
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_many_sizes),         cmocka_unit_test(test_columns_and_minimum),
	    cmocka_unit_test(test_preferred_and_fill), cmocka_unit_test(test_one_more_panel),
	    cmocka_unit_test(test_hidden_panel),       cmocka_unit_test(test_zoom),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
