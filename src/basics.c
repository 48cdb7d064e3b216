/* basics.c - qx.h's plain helpers, which hold no state: an error's message (qx_fail), the
 * names and sizes of precisions and backends, a run's phase timings, the monotonic clock and
 * the host memory available. The state of the run in progress (cancel, progress) is in
 * progress.c. */
#include "qx.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* Adds ms to the phase named name, appending it when new. */
void qx_timing_add(struct qx_timing *t, const char *name, double ms, int overlapped)
{
	int k = qx_timing_find(t, name);
	if (k < 0) {
		if (t->nphases == QX_MAX_PHASES)
			return;
		k = t->nphases++;
		t->phase[k] = (struct qx_phase){name, 0, 0, 0};
	}
	t->phase[k].ms += ms;
	t->phase[k].count++;
	t->phase[k].overlapped |= overlapped;
}

/* Returns the index of the phase named name, or -1. */
int qx_timing_find(const struct qx_timing *t, const char *name)
{
	for (int k = 0; k < t->nphases; k++)
		if (strcmp(t->phase[k].name, name) == 0)
			return k;
	return -1;
}

/* The time of the phase named name, 0 when absent. */
double qx_timing_ms(const struct qx_timing *t, const char *name)
{
	const int k = qx_timing_find(t, name);
	return k >= 0 ? t->phase[k].ms : 0;
}

/* Whether a phase of t ran concurrently with others. */
int qx_timing_overlapped(const struct qx_timing *t)
{
	for (int k = 0; k < t->nphases; k++)
		if (t->phase[k].overlapped)
			return 1;
	return 0;
}

/* Formats the message into e with control bytes (which the words it quotes may hold) written
 * as \xNN, so that printing it cannot move the cursor or break the line; returns -1. */
int qx_fail(struct qx_err *e, const char *fmt, ...)
{
	char raw[QX_ERR_LEN];
	size_t w = 0;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof raw, fmt, ap);
	va_end(ap);
	for (const unsigned char *r = (const unsigned char *)raw; *r && w + 5 < sizeof e->msg; r++)
		if (*r < 0x20 || *r == 0x7f)
			w += (size_t)snprintf(e->msg + w, sizeof e->msg - w, "\\x%02x", *r);
		else
			e->msg[w++] = (char)*r;
	e->msg[w] = '\0';
	return -1;
}

/* Returns "float" or "double". */
const char *qx_precision_name(enum qx_precision p)
{
	return p == QX_DOUBLE ? "double" : "float";
}

/* Returns "cpu" or "gpu". */
const char *qx_backend_name(enum qx_backend b)
{
	return b == QX_GPU ? "gpu" : "cpu";
}

/* Returns the size in bytes of one value of precision p. */
size_t qx_precision_size(enum qx_precision p)
{
	return p == QX_DOUBLE ? sizeof(double) : sizeof(float);
}

/* Returns CLOCK_MONOTONIC in milliseconds. */
double qx_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* The bytes this process may still map under its address-space limit (RLIMIT_AS, ulimit -v):
 * the limit less the current size from /proc/self/statm; SIZE_MAX when unlimited or unknown. */
static size_t qx_address_space_left(void)
{
	struct rlimit lim;
	unsigned long long pages = 0;
	FILE *f;
	if (getrlimit(RLIMIT_AS, &lim) || lim.rlim_cur == RLIM_INFINITY)
		return SIZE_MAX;
	f = fopen("/proc/self/statm", "r");
	if (!f)
		return SIZE_MAX;
	if (fscanf(f, "%llu", &pages) != 1)
		pages = 0;
	fclose(f);
	pages *= (unsigned long long)sysconf(_SC_PAGESIZE);
	return pages < lim.rlim_cur ? (size_t)(lim.rlim_cur - pages) : 1;
}

/* Reads MemAvailable from /proc/meminfo, lowered to what the address-space limit leaves;
 * returns bytes, or 0 when neither can be read. */
size_t qx_host_mem_available(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	size_t kib = 0, left = qx_address_space_left();
	if (f) {
		while (fgets(line, sizeof line, f))
			if (sscanf(line, "MemAvailable: %zu kB", &kib) == 1)
				break;
		fclose(f);
	}
	if (kib == 0)
		return left == SIZE_MAX ? 0 : left;
	return kib * 1024 < left ? kib * 1024 : left;
}
