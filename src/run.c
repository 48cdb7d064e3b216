/* run.c - one `run` of the current problem: memory checks, warm-up and timed repetitions,
 * error against the reference, and speedup against the CPU timings measured so far. */
#include "run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "device.h"
#include "fault.h"

#define MIB (1024.0 * 1024.0)

/* One run as the session's settings make it, read once: the problem's request, the backend,
 * and the timing loop's and the comparison's settings. */
struct run_plan {
	struct run_request rq;
	enum qx_backend backend;
	int warmup, repeat; /* untimed runs, then timed ones */
	double threshold;   /* the relative error a value is bad over, unless the problem has a
	                     * tolerance of its own */
};

/* Checks that the variant exists on backend b and that the GPU is usable; fills info. */
static int run_check_backend(const struct session *s, enum qx_backend b, int variant, int block,
                             struct gpu_info *info, struct qx_err *e)
{
	const struct problem *p = s->prob;
	const struct variant_def *v = &p->variants[variant];
	char others[256] = "";
	if (!(v->backends & (1u << b))) {
		for (size_t i = 0; i < p->nvariants; i++)
			if (p->variants[i].backends & (1u << b)) {
				strncat(others, *others ? ", " : "",
				        sizeof others - strlen(others) - 1);
				strncat(others, p->variants[i].name,
				        sizeof others - strlen(others) - 1);
			}
		return qx_fail(e, "variant %s has no %s implementation (%s variants: %s)", v->name,
		               qx_backend_name(b), qx_backend_name(b), others);
	}
	if (b != QX_GPU)
		return 0;
	if (!p->run_gpu)
		return qx_fail(e, "no GPU backend: this quadx was built without CUDA (nvcc was not "
		                  "found at build time)");
	if (gpu_init(info, e))
		return -1;
	if (block > info->max_threads_per_block)
		return qx_fail(e, "block %d is over this GPU's limit of %d threads per block",
		               block, info->max_threads_per_block);
	return 0;
}

/* Refuses a run whose host or device memory does not fit, naming both figures. */
static int run_check_memory(struct session *s, const struct run_request *rq, enum qx_backend b,
                            struct qx_err *e)
{
	const struct problem *p = s->prob;
	const size_t count = p->count(rq->params, rq->state, rq->user);
	size_t host = count * qx_precision_size(rq->prec) + p->host_bytes(rq);
	size_t avail = qx_host_mem_available();
	if (!p->is_reference(b, rq->prec, rq->variant) &&
	    !session_reference_cached(s, p, rq->params))
		host += count * sizeof(double);
	char needs[32], has[32];
	format_mib(host / MIB, needs, sizeof needs);
	format_mib(avail / MIB, has, sizeof has);
	if (count > (size_t)1 << 40 || (avail && host > avail))
		return qx_fail(e, "run refused: it needs %s of host memory and %s is available",
		               needs, has);
	if (b == QX_GPU) {
		struct gpu_info info;
		size_t dev = p->device_bytes(rq);
		if (gpu_init(&info, e))
			return -1;
		format_mib(dev / MIB, needs, sizeof needs);
		format_mib(info.mem_free / MIB, has, sizeof has);
		if (dev > info.mem_free)
			return qx_fail(e, "run refused: it needs %s of GPU memory and %s is free",
			               needs, has);
	}
	return 0;
}

/* Returns a host buffer for the run's values: pinned for the GPU; for the CPU the reused
 * malloc that does not hold the last result's values, which a failed run leaves intact. */
static void *run_buffer(struct session *s, enum qx_backend b, size_t bytes, struct qx_err *e)
{
	const int k = s->cpu_values[0] && s->last_values == s->cpu_values[0];
	if (b == QX_GPU)
		return gpu_host_buffer(bytes, e);
	if (bytes > s->cpu_values_bytes[k]) {
		free(s->cpu_values[k]);
		s->cpu_values[k] = qx_fault("malloc") ? NULL : malloc(bytes ? bytes : 1);
		s->cpu_values_bytes[k] = s->cpu_values[k] ? bytes : 0;
		if (!s->cpu_values[k]) {
			qx_fail(e, "cannot allocate %.1f MiB for the results", bytes / MIB);
			return NULL;
		}
	}
	return s->cpu_values[k];
}

/* Returns the reused buffer of count per-value error estimates, or NULL with e filled. */
static double *run_estimates(struct session *s, size_t count, struct qx_err *e)
{
	if (count > s->estimates_count) {
		free(s->estimates);
		s->estimates =
		    qx_fault("malloc") ? NULL : malloc((count ? count : 1) * sizeof(double));
		s->estimates_count = s->estimates ? count : 0;
		if (!s->estimates) {
			qx_fail(e, "cannot allocate %.1f MiB for the error estimates",
			        count * 8 / MIB);
			return NULL;
		}
	}
	return s->estimates;
}

/* Runs plan's warmup + repeat times into r->samples (malloc'd), the last run's output into o;
 * returns 0 or -1 (cancelled or failed). */
static int run_timed(struct session *s, const struct run_plan *plan, struct run_output *o,
                     struct run_result *r, struct qx_err *e)
{
	const struct run_request *rq = &plan->rq;
	const enum qx_backend b = plan->backend;
	const int warmup = plan->warmup, repeat = plan->repeat;
	void *values = o->values;
	double *estimates = o->estimates;
	const int ngpus = b == QX_GPU && rq->gpus > 1 ? rq->gpus : 0;
	struct qx_timing *per_gpu = NULL; /* ngpus x repeat: GPU g's samples at g * repeat */
	r->samples = qx_fault("malloc") ? NULL : malloc((size_t)repeat * sizeof *r->samples);
	if (!r->samples)
		return qx_fail(e, "out of memory for %d timing samples", repeat);
	if (ngpus && !(per_gpu = malloc((size_t)ngpus * repeat * sizeof *per_gpu)))
		return qx_fail(e, "out of memory for %d GPUs' timing samples", ngpus);
	if (ngpus && !(r->gpu_med = malloc((size_t)ngpus * sizeof *r->gpu_med))) {
		free(per_gpu);
		return qx_fail(e, "out of memory for %d GPUs' timings", ngpus);
	}
	qx_progress_start((long long)(warmup + repeat) *
	                      (long long)s->prob->count(rq->params, rq->state, rq->user),
	                  qx_backend_name(b));
	for (int i = 0; i < warmup + repeat; i++) {
		if (qx_cancelled()) {
			free(per_gpu);
			return qx_fail(e, "run cancelled");
		}
		*o = (struct run_output){.values = values, .estimates = estimates};
		if (b == QX_GPU) {
			if (s->prob->run_gpu(rq, o, e)) {
				free(per_gpu);
				return -1;
			}
			for (int g = 0; g < ngpus && i >= warmup; g++)
				per_gpu[(size_t)g * repeat + r->summary.nsamples] = o->gpu_time[g];
		} else {
			const double t0 = qx_now_ms();
			if (s->prob->run_cpu(rq, o, e))
				return -1;
			o->time.total = qx_now_ms() - t0 - o->untimed_ms;
		}
		if (i >= warmup)
			r->samples[r->summary.nsamples++] = o->time;
	}
	phases_summarize(r->samples, r->summary.nsamples, &r->summary.med, &r->summary.min,
	                 &r->summary.max);
	for (int g = 0; g < ngpus; g++) {
		struct qx_timing lo, hi;
		phases_summarize(per_gpu + (size_t)g * repeat, r->summary.nsamples, &r->gpu_med[g],
		                 &lo, &hi);
	}
	free(per_gpu);
	return 0;
}

/* Counts into r the values over the threshold whose error is within the problem's rounding
 * bound (the precision's rounding times their condition), with the largest condition among
 * them; nothing when the problem has no bound or no value is over. */
static void run_rounding(const struct problem *p, const struct run_request *rq, const double *ref,
                         const void *vals, struct run_result *r)
{
	if (!p->rounding_bound || r->err.over == 0)
		return;
	r->has_rounding = 1;
	for (size_t i = 0; i < r->evals; i++) {
		if (isnan(ref[i]) || ref[i] == 0)
			continue;
		const double v = value_at(vals, rq->prec, i);
		if (rel_error(ref[i], v) <= r->err.threshold)
			continue;
		double condition = 0;
		const double bound = p->rounding_bound(rq->params, rq->prec, i, &condition);
		if (fabs(v - ref[i]) <= bound) {
			r->over_rounding++;
			r->condition_max = fmax(r->condition_max, condition);
		}
	}
}

/* Fills the error figures of r from the run's output o against ref: the statistics, how
 * many values were compared, how many exceed their own estimate, and the problem's figures. */
static void run_error(const struct session *s, const struct run_plan *plan, const double *ref,
                      struct run_output *o, struct run_result *r)
{
	const struct problem *p = s->prob;
	const struct run_request *rq = &plan->rq;
	double threshold = plan->threshold;
	if (p->tolerance) {
		r->tolerance = p->tolerance(
		    rq->params, isnan(ref[0]) ? value_at(o->values, rq->prec, 0) : ref[0]);
		threshold = r->tolerance;
	}
	err_stats_compute(ref, o->values, rq->prec, r->evals, threshold, &r->err);
	r->has_error = 1;
	r->ref_compared = r->err.count;
	run_rounding(p, rq, ref, o->values, r);
	if (o->estimates) {
		r->has_estimates = 1;
		for (size_t i = 0; i < r->evals; i++)
			if (!isnan(ref[i]) &&
			    !(fabs(value_at(o->values, rq->prec, i) - ref[i]) <= o->estimates[i]))
				r->est_under++;
	}
	if (p->add_figures)
		p->add_figures(rq, ref, o);
}

/* Fills the answer of a run of one value: its value, its own estimate and the exact value
 * (ref, NULL when the run is the reference). */
static void run_answer(const struct run_output *o, enum qx_precision prec, const double *ref,
                       struct run_result *r)
{
	if (r->evals != 1)
		return;
	r->has_answer = 1;
	r->value = value_at(o->values, prec, 0);
	r->estimate = o->estimates ? o->estimates[0] : NAN;
	r->exact = ref ? ref[0] : NAN;
}

/* Fills the speedup fields of a GPU result, or records a CPU result's timing. */
static void run_speedup(struct session *s, struct run_result *r)
{
	const char *key = r->timing_key;
	r->speedup_serial = r->speedup_threads = NAN;
	if (r->summary.backend == QX_CPU) {
		struct cpu_timing *slot =
		    r->summary.threads == 1 ? &s->cpu_serial : &s->cpu_threads;
		snprintf(slot->key, sizeof slot->key, "%s", key);
		slot->total_ms = r->summary.med.total;
		slot->threads = r->summary.threads;
		return;
	}
	if (!strcmp(key, s->cpu_serial.key))
		r->speedup_serial = s->cpu_serial.total_ms / r->summary.med.total;
	if (!strcmp(key, s->cpu_threads.key)) {
		r->speedup_threads = s->cpu_threads.total_ms / r->summary.med.total;
		r->threads_ref = s->cpu_threads.threads;
	}
}

/* Drops a failed run r. A failed CPU run wrote into the buffer the last result does not hold,
 * so the last result stays. The GPU's buffer is one: the last result on the GPU may hold
 * partial values then, so it stops being the last (it stays in the session's list of runs,
 * whose timings are still valid). Returns -1. */
static int run_discard(struct session *s, enum qx_backend b, struct run_result *r)
{
	if (s->last && b == QX_GPU && s->last->summary.backend == QX_GPU)
		s->last = NULL;
	free(r->samples);
	free(r->chart);
	free(r->conv);
	free(r->gpu_med);
	free(r);
	return -1;
}

/* Appends r to the session's list of runs, which takes it; returns 0 or -1 when out of memory. */
static int run_keep(struct session *s, struct run_result *r, struct qx_err *e)
{
	if (s->nruns == s->runs_cap) {
		const size_t cap = s->runs_cap ? 2 * s->runs_cap : 16;
		struct run_result **runs = realloc(s->runs, cap * sizeof *runs);
		if (!runs)
			return qx_fail(e, "out of memory for the list of runs (%zu kept)",
			               s->nruns);
		s->runs = runs;
		s->runs_cap = cap;
	}
	s->runs[s->nruns++] = r;
	return 0;
}

/* Resolves the gpus setting for a GPU run of the current problem into rq->gpus, checked again
 * now (the devices visible may have changed since `set`); refuses more than one GPU for a
 * problem that runs on one. Returns 0 or -1 with e. */
static int run_gpus(const struct session *s, struct run_request *rq, struct qx_err *e)
{
	int n = 1;
	if (session_gpus(s, &n, e))
		return -1;
	if (n > 1 && !s->prob->multi_gpu)
		return qx_fail(e,
		               "run gpu: %s runs on one GPU so far (gpus is %d): set gpus 1 "
		               "(help gpus says which problems divide their work)",
		               s->prob->name, n);
	rq->gpus = n;
	return 0;
}

/* Runs the current problem on backend b and makes the result the session's last. A pending
 * cancel request fails it: the command that starts runs clears the request once, so a cancel
 * that lands between two runs of one command (a sweep) is not lost. */
int session_run(struct session *s, enum qx_backend b, struct qx_err *e)
{
	const struct problem *p = s->prob;
	struct run_result *r;
	struct gpu_info info;
	struct run_plan plan = {.rq = session_request(s),
	                        .backend = b,
	                        .warmup = (int)session_setting(s, S_WARMUP),
	                        .repeat = (int)session_setting(s, S_REPEAT),
	                        .threshold = session_setting(s, S_THRESHOLD)};
	struct run_request *const rq = &plan.rq;
	const size_t count = p->count(rq->params, rq->state, rq->user);
	int block = rq->block;
	size_t ref_samples;
	struct run_output o = {0};
	double *ref_buf = NULL; /* the reference's buffer, when it must be computed */

	if (b == QX_GPU && p->gpu_block && (block = p->gpu_block(rq, e)) < 0)
		return -1;
	if (run_check_backend(s, b, rq->variant, rq->block, &info, e) ||
	    run_check_memory(s, rq, b, e))
		return -1;
	if (b == QX_GPU && run_gpus(s, rq, e))
		return -1;
	r = calloc(1, sizeof *r);
	if (!r)
		return qx_fail(e, "out of memory for a run result");
	r->prob = p;
	memcpy(r->params, rq->params, sizeof r->params);
	if (rq->user)
		r->user = *rq->user;
	memcpy(r->summary.settings, rq->settings, sizeof r->summary.settings);
	r->summary.backend = b;
	r->summary.prec = rq->prec;
	r->summary.variant = rq->variant;
	session_timing_key(p, rq->params, &s->user, rq->prec, rq->variant, r->timing_key,
	                   sizeof r->timing_key);
	r->summary.block = block; /* the block the GPU run launches */
	r->summary.gpus = b == QX_GPU && rq->gpus > 1 ? rq->gpus : 1;
	r->summary.threads = rq->threads;
	r->summary.warmup = plan.warmup;
	r->evals = count;
	session_reference_kind(p, rq->params, rq->state, &ref_samples, &r->ref_name);

	/* Everything the run needs is allocated before it starts, the reference's buffer too:
	 * a long run must not end in "cannot allocate". */
	if (!p->is_reference(b, rq->prec, rq->variant) &&
	    !session_reference_cached(s, p, rq->params) &&
	    !(ref_buf = session_reference_buffer(count, e)))
		return run_discard(s, b, r);
	o.values = run_buffer(s, b, count * qx_precision_size(rq->prec), e);
	if (o.values && p->has_estimates)
		o.estimates = run_estimates(s, count, e);
	/* a reference still to compute (its buffer allocated above) is announced with the run:
	 * its time is not in the run's */
	qx_progress_then(ref_buf ? "the reference" : NULL);
	const int timed =
	    o.values && (!p->has_estimates || o.estimates) && run_timed(s, &plan, &o, r, e) == 0;
	qx_progress_then(NULL);
	if (!timed) {
		free(ref_buf);
		return run_discard(s, b, r);
	}
	for (size_t i = 0; i < count; i++)
		r->nonfinite += !isfinite(value_at(o.values, rq->prec, i));
	r->summary.evals_per_s =
	    r->summary.med.total > 0 ? count / (r->summary.med.total * 1e-3) : NAN;
	r->work = o.work > 0 ? o.work : (double)count;
	r->summary.work_per_s =
	    r->summary.med.total > 0 ? r->work / (r->summary.med.total * 1e-3) : NAN;
	r->is_reference = p->is_reference(b, rq->prec, rq->variant);
	r->tolerance = NAN;
	if (r->is_reference) {
		run_answer(&o, rq->prec, NULL, r);
		/* The reference itself: keep a copy so later runs need not recompute it. */
		session_reference_keep(s, p, rq->params, o.values, count);
	} else {
		const double *ref = session_reference_into(s, p, rq->params, ref_buf, e);
		if (!ref)
			return run_discard(s, b, r);
		run_error(s, &plan, ref, &o, r);
		run_answer(&o, rq->prec, ref, r);
	}
	r->nfigures = o.nfigures;
	memcpy(r->figure, o.figure, sizeof r->figure);
	r->note = o.note;
	r->error_kind = o.error_kind;
	if (o.note == o.note_text) { /* a line the run wrote: the result keeps its copy */
		snprintf(r->note_text, sizeof r->note_text, "%s", o.note_text);
		r->note = r->note_text;
	}
	if (o.chart.nseries > 0) {
		if (!(r->chart = malloc(sizeof *r->chart))) {
			qx_fail(e, "out of memory for the run's chart");
			return run_discard(s, b, r);
		}
		*r->chart = o.chart;
	}
	if (o.conv.n > 0) {
		if (!(r->conv = malloc(sizeof *r->conv))) {
			qx_fail(e, "out of memory for the run's convergence");
			return run_discard(s, b, r);
		}
		*r->conv = o.conv;
	}
	if (qx_cancelled()) { /* a Ctrl-C during the analysis: never a success */
		qx_fail(e, "run cancelled");
		return run_discard(s, b, r);
	}
	run_speedup(s, r);
	if (run_keep(s, r, e))
		return run_discard(s, b, r);
	s->last = r;
	s->last_values = o.values;
	return 0;
}
