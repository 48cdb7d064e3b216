/* fault.c - the fault points and the QUADX_FAULT parser of test builds (see fault.h). */
#include "fault.h"

#ifdef QX_FAULT_INJECTION

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FAULTS 8

/* Every operation that can be made to fail; a new fault point is one line here and one call
 * qx_fault("name") where the operation happens. */
static const char *const fault_points[] = {
    "malloc",     /* host buffers for results and reference values (src/run.c) */
    "fopen",      /* files quadx reads (source, -f, help pages) and the temporary file
                     beside an export or plot target (src/export.c, src/plot.c) */
    "write",      /* the history file (src/repl.c) and the data of export and plot */
    "fsync",      /* flushing the temporary file of export and plot to disk */
    "rename",     /* the temporary file of export and plot renamed over the target */
    "cudaMalloc", /* device allocations (GPU_TRY in cuda/gpu_util.cuh) */
    "cudaFree",   /* device frees */
    "cudaMemcpy", /* host/device copies and uploads of tables */
    "cudaStream", /* stream creation, waits and synchronization */
    "cudaEvent",  /* timing events */
    "launch",     /* kernel launches (GPU_LAUNCH in cuda/gpu_util.cuh) */
    NULL,
};

/* One armed fault: the operation's name, which call fails, and the calls seen so far. */
struct fault {
	char op[32];
	long nth, seen;
};

static struct fault faults[MAX_FAULTS];
static int nfaults = -1; /* -1: QUADX_FAULT not read yet */

/* Returns 1 when name is one of fault_points. */
static int fault_point_known(const char *name)
{
	for (int i = 0; fault_points[i]; i++)
		if (strcmp(fault_points[i], name) == 0)
			return 1;
	return 0;
}

/* Parses QUADX_FAULT into faults[]; an unknown name or a bad count is reported on stderr. */
static void fault_read_env(void)
{
	const char *env = getenv("QUADX_FAULT");
	char spec[256], *save = NULL;
	nfaults = 0;
	if (!env || !*env)
		return;
	snprintf(spec, sizeof spec, "%s", env);
	for (char *tok = strtok_r(spec, ",", &save); tok && nfaults < MAX_FAULTS;
	     tok = strtok_r(NULL, ",", &save)) {
		struct fault *f = &faults[nfaults];
		char *colon = strchr(tok, ':'), *end = NULL;
		f->nth = 1;
		if (colon) {
			*colon = '\0';
			f->nth = strtol(colon + 1, &end, 10);
		}
		if (!fault_point_known(tok) || (colon && (*end || f->nth < 1))) {
			fprintf(stderr, "quadx: QUADX_FAULT: ignoring '%s' (fault points:", tok);
			for (int i = 0; fault_points[i]; i++)
				fprintf(stderr, " %s", fault_points[i]);
			fprintf(stderr, "; OP or OP:N with N >= 1)\n");
			continue;
		}
		snprintf(f->op, sizeof f->op, "%s", tok);
		f->seen = 0;
		nfaults++;
	}
}

/* Guards the faults' counts: the GPU wrappers of a run over several GPUs call qx_fault from
 * a host thread per GPU, and the N-th call must fail exactly once. */
static pthread_mutex_t fault_lock = PTHREAD_MUTEX_INITIALIZER;

/* Counts a call of op against each armed fault whose name prefixes it (after any '(' of a
 * parenthesized call); returns 1 on the call that fault names, which disarms it. */
int qx_fault(const char *op)
{
	int hit = 0;
	pthread_mutex_lock(&fault_lock);
	if (nfaults < 0)
		fault_read_env();
	op += strspn(op, "( ");
	for (int i = 0; i < nfaults && !hit; i++) {
		struct fault *f = &faults[i];
		if (f->seen > f->nth || strncmp(op, f->op, strlen(f->op)) != 0)
			continue;
		hit = ++f->seen == f->nth;
	}
	pthread_mutex_unlock(&fault_lock);
	return hit;
}

#else

/* Release builds: no operation ever fails on purpose. */
int qx_fault(const char *op)
{
	(void)op;
	return 0;
}

#endif
