/* bench.c - `make bench`: the coursework's sizes on CPU and GPU in float and double, against
 * two floors measured in the same run (a pinned device-to-host copy of the result array and
 * a kernel that only writes it). Prints a Markdown table; progress goes to stderr. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cuda/quadx_cuda.h"
#include "longman_bench.h"
#include "session.h"

/* Sets NAME VALUE pairs (NULL-terminated varargs of strings); exits the benchmark on error. */
static void bench_set(struct session *s, const char *name, const char *value)
{
	struct qx_err e;
	char *argv[2] = {(char *)name, (char *)value};
	if (session_set(s, 2, argv, &e)) {
		fprintf(stderr, "bench: set %s %s: %s\n", name, value, e.msg);
		exit(1);
	}
}

/* Runs backend b and returns the result; exits the benchmark on error. */
static const struct run_result *bench_run(struct session *s, enum qx_backend b)
{
	struct qx_err e;
	if (session_run(s, b, &e)) {
		fprintf(stderr, "bench: run %s: %s\n", qx_backend_name(b), e.msg);
		exit(1);
	}
	return s->last;
}

int main(void)
{
	static const long sizes[] = {5000, 8192, 16384, 20000};
	static struct session s; /* large: results keep every sample */
	struct gpu_info g;
	struct qx_err e;
	char num[32], threads[16];
	const int nproc = omp_get_num_procs();

	session_init(&s, stderr);
	if (gpu_init(&g, &e)) {
		fprintf(stderr, "bench: %s\n", e.msg);
		return 1;
	}
	snprintf(threads, sizeof threads, "%d", nproc);
	printf("expint, fast variant, block 256; device: %s (%d SMs), %d CPU threads\n", g.name,
	       g.sms, nproc);
	printf("GPU: median of 10 runs after 2 warm-ups; CPU all threads: 1 run; CPU serial: one "
	       "run on m/50 samples per order, scaled by 50 (extrapolated).\n\n");
	printf("| n = m | prec | CPU serial s (extrap.) | CPU %d thr s | GPU alloc | kernel | "
	       "d2h | free | GPU total ms | copy floor ms | write floor ms | total / copy | "
	       "kernel / write | coursework total ms | speedup vs serial | vs %d thr | max rel "
	       "err |\n",
	       nproc, nproc);
	printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		for (int prec = QX_DOUBLE; prec >= QX_FLOAT; prec--) {
			const char *pname = qx_precision_name((enum qx_precision)prec);
			const size_t count = (size_t)sizes[i] * (size_t)sizes[i];
			double serial_s, threads_s, copy_ms, write_ms, cw_ms;
			const struct run_result *r;
			fprintf(stderr, "bench: n = m = %ld, %s\n", sizes[i], pname);
			snprintf(num, sizeof num, "%ld", sizes[i]);
			bench_set(&s, "n", num);
			snprintf(num, sizeof num, "%ld", sizes[i] / 50);
			bench_set(&s, "m", num);
			bench_set(&s, "precision", pname);
			bench_set(&s, "variant", "fast");
			bench_set(&s, "threads", "1");
			bench_set(&s, "repeat", "1");
			bench_set(&s, "warmup", "0");
			serial_s = bench_run(&s, QX_CPU)->med.total * 50 / 1e3;
			snprintf(num, sizeof num, "%ld", sizes[i]);
			bench_set(&s, "m", num);
			bench_set(&s, "threads", threads);
			threads_s = bench_run(&s, QX_CPU)->med.total / 1e3;
			bench_set(&s, "repeat", "10");
			bench_set(&s, "warmup", "2");
			bench_set(&s, "variant", "coursework");
			cw_ms = bench_run(&s, QX_GPU)->med.total;
			bench_set(&s, "variant", "fast");
			r = bench_run(&s, QX_GPU);
			if (gpu_floor_copy(count * qx_precision_size((enum qx_precision)prec), 10,
			                   &copy_ms, &e) ||
			    gpu_floor_write(count, (enum qx_precision)prec, 256, 10, &write_ms,
			                    &e)) {
				fprintf(stderr, "bench: floor: %s\n", e.msg);
				return 1;
			}
			printf(
			    "| %ld | %s | %.2f | %.3f | %.3f | %.3f | %.3f | %.3f | %.2f | %.2f | "
			    "%.3f | %.3f | %.2f | %.2f | %.0fx | %.0fx | %.2g |\n",
			    sizes[i], pname, serial_s, threads_s, r->med.alloc, r->med.kernel,
			    r->med.d2h, r->med.free, r->med.total, copy_ms, write_ms,
			    r->med.total / copy_ms, r->med.kernel / write_ms, cw_ms,
			    serial_s * 1e3 / r->med.total, threads_s * 1e3 / r->med.total,
			    r->err.max_rel);
			fflush(stdout);
		}
	}
	if (longman_bench(&s, &g, &e))
		fprintf(stderr, "bench: longman: %s\n", e.msg);
	session_free(&s);
	return 0;
}
