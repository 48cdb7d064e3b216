/* timing_fixture.h - a GPU run's timing as the unit tests fabricate it (test_stats.c, and
 * the dashboard's tests through dash_fixture.h). */
#ifndef QX_TIMING_FIXTURE_H
#define QX_TIMING_FIXTURE_H

#include "../../src/qx.h"

/* A GPU run's timing: phases alloc, h2d, kernel, d2h and free (kernel and d2h marked
 * overlapped when overlapped) and the total, in ms. */
static struct qx_timing fixture_timing(double alloc, double h2d, double kernel, double d2h,
                                       double free_ms, double total, int overlapped)
{
	struct qx_timing t = {0};
	qx_timing_add(&t, "alloc", alloc, 0);
	qx_timing_add(&t, "h2d", h2d, 0);
	qx_timing_add(&t, "kernel", kernel, overlapped);
	qx_timing_add(&t, "d2h", d2h, overlapped);
	qx_timing_add(&t, "free", free_ms, 0);
	t.total = total;
	return t;
}

#endif
