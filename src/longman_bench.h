/* longman_bench.h - the `make bench` section of problem longman (the seed's experiments). */
#ifndef QX_LONGMAN_BENCH_H
#define QX_LONGMAN_BENCH_H

#include "../cuda/quadx_cuda.h"
#include "session.h"

/* Prints the longman tables (time vs M, N sweep, float/double and fast/precise, the work
 * split and other costs) as Markdown on stdout, progress on stderr, running them in session
 * s on the GPU described by g; returns 0, or -1 with e filled when a run or a floor fails. */
int longman_bench(struct session *s, const struct gpu_info *g, struct qx_err *e);

#endif
