/* test_reference.c - the reference kinds a problem may declare, driven through session_run with
 * fake problems of this file (none is registered): an exact sample of K outputs (QX_REF_SAMPLE),
 * with and without per-value error estimates, and the GPU double run (QX_REF_GPU) in a build or
 * on a machine that cannot give it. The run output names the reference ("against") and how many
 * values were compared; the error figures and the estimates cover exactly the sampled outputs. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "../../src/output.h"
#include "../../src/run.h"

#define FAKE_MAX 1000
#define FAKE_SAMPLES 10
#define FAKE_THRESHOLD 5e-6
#define FAKE_SLOT (QX_MAX_PROBLEMS - 1) /* a session slot no registered problem uses */

/* The indices the last reference() call was asked for, and how many calls there were. */
static size_t asked[FAKE_MAX];
static size_t nasked;
static int reference_calls;

/* The exact value of output i. */
static double fake_exact(size_t i)
{
	return 1.0 + (double)i;
}

/* The relative error the fake run puts into output i: 1e-7 (i + 1), so later outputs are worse. */
static double fake_rel_error(size_t i)
{
	return 1e-7 * (double)(i + 1);
}

/* The error estimate the fake run gives for output i: half the true error (too small) when i
 * is a multiple of 3, twice it (honest) otherwise. */
static double fake_estimate(size_t i)
{
	return fake_exact(i) * fake_rel_error(i) * (i % 3 == 0 ? 0.5 : 2.0);
}

static const struct param_def fake_params[] = {
    {"size", PARAM_INT, 1, FAKE_MAX, 0, 100, 0, NULL, "outputs", 0},
};

static const struct variant_def fake_variants[] = {
    {"only", QX_ON_CPU | QX_ON_GPU, "the one implementation", 0},
};

/* Always valid. */
static int fake_check(const struct param_value *p, void **state, struct qx_err *e)
{
	(void)state;
	(void)p;
	(void)e;
	return 0;
}

/* size outputs. */
static size_t fake_count(const struct param_value *p, void **state, const struct user_defs *u)
{
	(void)state;
	(void)u;
	return (size_t)p[0].num;
}

/* No memory besides the results. */
static size_t fake_bytes(const struct run_request *rq)
{
	(void)rq;
	return 0;
}

/* One coordinate, i. */
static int fake_point(const struct param_value *p, void **state, const struct user_defs *u,
                      size_t i, const char **names, double *vals, int cap)
{
	(void)p;
	(void)u;
	(void)state;
	if (cap < 1)
		return 0;
	names[0] = "i";
	vals[0] = (double)i;
	return 1;
}

/* Every output with its relative error fake_rel_error(i), and its estimate when asked for;
 * work: two units per output. */
static int fake_run(const struct run_request *rq, struct run_output *o, struct qx_err *e)
{
	const size_t count = fake_count(rq->params, rq->state, rq->user);
	(void)e;
	for (size_t i = 0; i < count; i++) {
		const double v = fake_exact(i) * (1 + fake_rel_error(i));
		if (rq->prec == QX_DOUBLE)
			((double *)o->values)[i] = v;
		else
			((float *)o->values)[i] = (float)v;
		if (o->estimates)
			o->estimates[i] = fake_estimate(i);
	}
	o->work = 2.0 * (double)count;
	return 0;
}

/* The exact values at idx[0..n) (every value when idx is NULL); records what was asked. */
static int fake_reference(const struct param_value *p, void **state, const struct user_defs *u,
                          int threads, const size_t *idx, size_t n, double *ref, struct qx_err *e)
{
	(void)p;
	(void)state;
	(void)u;
	(void)threads;
	(void)e;
	reference_calls++;
	nasked = 0;
	for (size_t i = 0; i < n; i++) {
		const size_t k = idx ? idx[i] : i;
		if (nasked < FAKE_MAX)
			asked[nasked++] = k;
		ref[k] = fake_exact(k);
	}
	return 0;
}

/* No run of the fake problems is the reference. */
static int fake_is_reference(enum qx_backend b, enum qx_precision prec, int variant)
{
	(void)b;
	(void)prec;
	(void)variant;
	return 0;
}

/* A fake problem with reference kind kind, K samples, estimates or not, and no GPU run. */
#define FAKE_PROBLEM(kind, samples, ref, estimates)                                                \
	{                                                                                          \
		.name = "fake", .summary = "a test problem", .work_unit = "units",                 \
		.params = fake_params, .nparams = 1, .variants = fake_variants, .nvariants = 1,    \
		.ref_kind = kind, .ref_samples = samples, .ref_name = ref,                         \
		.has_estimates = estimates, .check = fake_check, .count = fake_count,              \
		.host_bytes = fake_bytes, .device_bytes = fake_bytes, .point = fake_point,         \
		.run_cpu = fake_run, .reference = fake_reference,                                  \
		.is_reference = fake_is_reference,                                                 \
	}

static const struct problem fake_sample =
    FAKE_PROBLEM(QX_REF_SAMPLE, FAKE_SAMPLES, "cpu double, sample of 10", 0);
static const struct problem fake_sample_estimates =
    FAKE_PROBLEM(QX_REF_SAMPLE, FAKE_SAMPLES, "cpu double, sample of 10", 1);
static const struct problem fake_gpu = FAKE_PROBLEM(QX_REF_GPU, 0, "gpu double", 0);

/* A session on a fake problem, printing into a memory buffer. */
struct fake {
	struct session s;
	struct output_ctx io; /* into buf */
	char *buf;
	size_t len;
};

/* Starts f on problem p (in a session slot no registered problem uses) with size outputs,
 * double precision, one timed run and no warm-up; then, with run, runs it on the CPU. */
static void fake_start(struct fake *f, const struct problem *p, size_t size, int run)
{
	struct qx_err e = {""};
	FILE *out;
	f->buf = NULL;
	f->len = 0;
	out = open_memstream(&f->buf, &f->len);
	assert_non_null(out);
	session_init(&f->s);
	f->io = output_ctx_of(out);
	f->s.prob = p;
	f->s.prob_index = FAKE_SLOT;
	f->s.params[FAKE_SLOT][0].num = (double)size;
	f->s.settings[S_PRECISION].num = QX_DOUBLE;
	f->s.settings[S_REPEAT].num = 1;
	f->s.settings[S_WARMUP].num = 0;
	f->s.settings[S_THRESHOLD].num = FAKE_THRESHOLD;
	reference_calls = 0;
	nasked = 0;
	if (run && session_run(&f->s, QX_CPU, &e))
		fail_msg("run: %s", e.msg);
}

/* Ends f's session and frees its output. */
static void fake_end(struct fake *f)
{
	fclose(f->io.out);
	free(f->buf);
	session_free(&f->s);
}

/* Prints f's last run as text; fails unless the text holds want. */
static void assert_text_has(struct fake *f, const char *want)
{
	f->io.format = FORMAT_TEXT;
	output_run(&f->io, f->s.last);
	fflush(f->io.out);
	if (!strstr(f->buf, want))
		fail_msg("no '%s' in:\n%s", want, f->buf);
}

/* The error statistics over the indices asked for, as the run must report them. */
struct expected {
	double max_rel, mean_rel;
	size_t over, under_estimate;
};

/* Computes what the run must report from the indices the reference was asked for. */
static struct expected expected_over_asked(void)
{
	struct expected x = {0, 0, 0, 0};
	for (size_t j = 0; j < nasked; j++) {
		const double rel = fake_rel_error(asked[j]);
		x.max_rel = rel > x.max_rel ? rel : x.max_rel;
		x.mean_rel += rel / (double)nasked;
		x.over += rel > FAKE_THRESHOLD;
		x.under_estimate += asked[j] % 3 == 0;
	}
	return x;
}

/* Whether a and b agree to 1e-9 relative. */
static int close_to(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fabs(b);
}

/* The last run's JSON object, parsed back from output_run in format json. */
static cJSON *run_json(struct session *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	cJSON *obj;
	assert_non_null(out);
	struct output_ctx io = output_ctx_of(out);
	io.format = FORMAT_JSON;
	output_run(&io, s->last);
	fclose(out);
	obj = cJSON_Parse(buf);
	free(buf);
	assert_non_null(obj);
	return obj;
}

/* A sampled reference: reference() is asked for K distinct indices spread over all the outputs,
 * the error figures are over exactly those (the other outputs are worse and must not count),
 * and JSON, CSV and text say what the errors are against and how many values were compared. */
static void test_sample_reference(void **state)
{
	struct fake f;
	char header[4096], row[4096], line[128];
	size_t worst[3];
	struct expected x;
	cJSON *obj;
	(void)state;
	fake_start(&f, &fake_sample, 100, 1);
	const struct run_result *r = f.s.last;
	assert_int_equal(reference_calls, 1);
	assert_int_equal(nasked, FAKE_SAMPLES);
	for (size_t j = 0; j < nasked; j++) {
		assert_true(asked[j] < 100);
		assert_true(j == 0 || asked[j] > asked[j - 1]); /* distinct, in order */
	}
	assert_true(asked[FAKE_SAMPLES - 1] - asked[0] >= 80); /* spread over the outputs */
	x = expected_over_asked();
	assert_true(x.over > 0 && x.over < FAKE_SAMPLES); /* the threshold splits the sample */
	assert_non_null(r);
	assert_true(r->has_error);
	assert_int_equal(r->ref_compared, FAKE_SAMPLES);
	assert_int_equal(r->err.count, FAKE_SAMPLES);
	assert_int_equal(r->err.over, x.over);
	assert_true(close_to(r->err.max_rel, x.max_rel));
	assert_true(close_to(r->err.mean_rel, x.mean_rel));
	assert_true(r->err.max_rel < fake_rel_error(99)); /* output 99 is not in the sample */
	assert_false(r->has_estimates);
	assert_true(r->work == 200); /* the run's own work count, not the outputs' */
	assert_true(isnan(r->summary.evals_per_s) ||
	            close_to(r->summary.work_per_s, 2 * r->summary.evals_per_s));

	/* The worst points are sampled ones. */
	assert_int_equal(err_worst(f.s.ref, f.s.last_values, QX_DOUBLE, 100, 3, worst), 3);
	assert_int_equal(worst[0], asked[FAKE_SAMPLES - 1]);

	obj = run_json(&f.s);
	assert_string_equal(cJSON_GetObjectItem(obj, "against")->valuestring,
	                    "cpu double, sample of 10");
	assert_true(cJSON_GetObjectItem(obj, "compared")->valuedouble == FAKE_SAMPLES);
	assert_null(cJSON_GetObjectItem(obj, "over_estimate"));
	assert_true(
	    cJSON_GetObjectItem(cJSON_GetObjectItem(obj, "error"), "over_threshold")->valuedouble ==
	    (double)x.over);
	assert_string_equal(cJSON_GetObjectItem(obj, "work_unit")->valuestring, "units");
	cJSON_Delete(obj);

	output_run_csv(r, header, row, sizeof row);
	assert_non_null(strstr(header, ",against,compared"));
	assert_non_null(strstr(row, ",\"cpu double, sample of 10\",10"));

	snprintf(line, sizeof line, ": %zu of 10 vs cpu double, sample of 10", x.over);
	assert_text_has(&f, line);
	fake_end(&f);
}

/* A sampled reference with per-value estimates: the estimates reach the run, and only the
 * sampled outputs whose error exceeds their estimate are counted (over_estimate). */
static void test_sample_reference_estimates(void **state)
{
	struct fake f;
	struct qx_err e = {""};
	char line[128];
	size_t all_under = 0;
	struct expected x;
	cJSON *obj;
	(void)state;
	fake_start(&f, &fake_sample_estimates, 100, 1);
	assert_int_equal(nasked, FAKE_SAMPLES);
	x = expected_over_asked();
	for (size_t i = 0; i < 100; i++)
		all_under += i % 3 == 0;
	assert_true(x.under_estimate > 0 && x.under_estimate < all_under);
	assert_true(f.s.last->has_estimates);
	assert_int_equal(f.s.last->est_under, x.under_estimate);
	assert_int_equal(f.s.last->ref_compared, FAKE_SAMPLES);
	for (size_t i = 0; i < 100; i++) /* the session keeps the run's estimates */
		assert_true(f.s.estimates[i] == fake_estimate(i));

	obj = run_json(&f.s);
	assert_true(cJSON_GetObjectItem(obj, "over_estimate")->valuedouble ==
	            (double)x.under_estimate);
	assert_true(cJSON_GetObjectItem(obj, "compared")->valuedouble == FAKE_SAMPLES);
	cJSON_Delete(obj);
	snprintf(line, sizeof line, "%zu values exceed their error estimate", x.under_estimate);
	assert_text_has(&f, line);

	/* A second run of the same configuration reuses the sampled reference. */
	if (session_run(&f.s, QX_CPU, &e))
		fail_msg("second run: %s", e.msg);
	assert_int_equal(reference_calls, 1);
	assert_int_equal(f.s.last->ref_compared, FAKE_SAMPLES);
	fake_end(&f);
}

/* No more outputs than samples: the whole reference, every value compared. */
static void test_sample_reference_small(void **state)
{
	struct fake f;
	(void)state;
	fake_start(&f, &fake_sample, 7, 1);
	assert_int_equal(nasked, 7);
	assert_int_equal(f.s.last->ref_compared, 7);
	assert_true(close_to(f.s.last->err.max_rel, fake_rel_error(6)));
	assert_text_has(&f, ": 0 of 7 vs cpu double, sample of 10");
	fake_end(&f);
}

/* A GPU double reference where there is no GPU run: one error naming the problem, no result. */
static void test_gpu_reference_without_gpu(void **state)
{
	struct fake f;
	struct qx_err e = {""};
	(void)state;
	fake_start(&f, &fake_gpu, 100, 0);
	assert_int_equal(session_run(&f.s, QX_CPU, &e), -1);
	assert_non_null(strstr(e.msg, "fake's reference is its GPU double run"));
	assert_null(f.s.last);
	assert_int_equal(reference_calls, 0);
	fake_end(&f);
}

/* The timing key of a configuration (what a GPU run's speedup is measured against) tells the
 * user's parameter values and long expressions apart: a CPU time at k = 1 is not the GPU
 * run's at k = 2, and two expressions of 4000 bytes that differ in their last character do
 * not share a key. */
static void test_timing_key_user_defs(void **state)
{
	struct session s;
	struct qx_err e = {""};
	char k1[512], k2[512], again[512], long1[512], long2[512], words[4200];
	(void)state;
	session_init(&s);
	assert_int_equal(session_use(&s, "cubature", &e), 0);
	assert_int_equal(session_set_words(&s, "param k 1", &e), 0);
	assert_int_equal(session_set_words(&s, "dim 2 integrand exp(k*x)", &e), 0);
	const struct param_value *v = s.params[s.prob_index];
	session_timing_key(s.prob, v, &s.user, QX_DOUBLE, 0, k1, sizeof k1);
	session_timing_key(s.prob, v, &s.user, QX_DOUBLE, 0, again, sizeof again);
	assert_string_equal(k1, again);
	assert_int_equal(session_set_words(&s, "k 2", &e), 0);
	session_timing_key(s.prob, v, &s.user, QX_DOUBLE, 0, k2, sizeof k2);
	assert_string_not_equal(k1, k2);
	for (int last = 0; last < 2; last++) {
		int n = snprintf(words, sizeof words, "x");
		while (n < 4000)
			n += snprintf(words + n, sizeof words - (size_t)n, "+x1*x2");
		snprintf(words + n, sizeof words - (size_t)n, "+%d", last + 1);
		char *argv[] = {"integrand", words};
		if (session_set(&s, 2, argv, &e))
			fail_msg("%s", e.msg);
		session_timing_key(s.prob, v, &s.user, QX_DOUBLE, 0, last ? long2 : long1,
		                   sizeof long1);
	}
	assert_string_not_equal(long1, long2);
	session_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_timing_key_user_defs),
	    cmocka_unit_test(test_sample_reference),
	    cmocka_unit_test(test_sample_reference_estimates),
	    cmocka_unit_test(test_sample_reference_small),
	    cmocka_unit_test(test_gpu_reference_without_gpu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
