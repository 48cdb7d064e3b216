/* test_stats.c - medians, phase summaries, error statistics and the worst points, and the
 * JSON/CSV rendering of a run result. */
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
#include "timing_fixture.h"

/* Medians of odd and even counts, unsorted input left as it was. */
static void test_median(void **state)
{
	double v[] = {5, 1, 4, 2, 3};
	(void)state;
	assert_true(stats_median(v, 5) == 3);
	assert_true(v[0] == 5);
	assert_true(stats_median(v, 4) == 3); /* 1 2 4 5 */
	assert_true(isnan(stats_median(v, 0)));
}

/* Each phase gets its own median, min and max. */
static void test_phases(void **state)
{
	struct qx_timing s[3] = {fixture_timing(1, 0, 10, 5, 1, 20, 1),
	                         fixture_timing(3, 0, 30, 4, 1, 40, 1),
	                         fixture_timing(2, 0, 20, 6, 1, 30, 1)};
	struct qx_timing med, lo, hi;
	(void)state;
	phases_summarize(s, 3, &med, &lo, &hi);
	assert_true(qx_timing_ms(&med, "alloc") == 2 && qx_timing_ms(&med, "kernel") == 20 &&
	            qx_timing_ms(&med, "d2h") == 5 && med.total == 30);
	assert_true(qx_timing_ms(&lo, "kernel") == 10 && qx_timing_ms(&hi, "kernel") == 30 &&
	            hi.total == 40);
	assert_int_equal(qx_timing_overlapped(&med), 1);
}

/* Error statistics the coursework's way, NaN values counted as over the threshold. */
static void test_err_stats(void **state)
{
	const double ref[] = {1, 2, 4, 8};
	const float vals[] = {1, 2.002f, 4, NAN};
	const double dvals[] = {1, 2.002, 4, 8.0000008};
	struct err_stats st;
	size_t idx[3];
	(void)state;
	err_stats_compute(ref, dvals, QX_DOUBLE, 4, 1e-5, &st);
	assert_int_equal(st.over, 1);
	assert_int_equal(st.worst, 1);
	assert_true(fabs(st.max_rel - 0.001) < 1e-12);
	assert_true(fabs(st.max_abs - 0.002) < 1e-12);
	assert_true(fabs(st.mean_rel - (0.001 + 1e-7) / 4) < 1e-12);
	assert_true(fabs(st.mean_abs - (0.002 + 8e-7) / 4) < 1e-12);
	err_stats_compute(ref, vals, QX_FLOAT, 4, 1e-5, &st);
	assert_int_equal(st.over, 2);
	assert_true(isinf(st.max_rel));
	assert_int_equal(st.worst, 3);
	assert_int_equal(err_worst(ref, dvals, QX_DOUBLE, 4, 3, idx), 3);
	assert_int_equal(idx[0], 1);
	assert_int_equal(idx[1], 3);
	assert_int_equal(err_worst(ref, dvals, QX_DOUBLE, 2, 3, idx), 2);
}

/* A GPU run result as JSON has every field of the spec, and CSV has a header once. */
static void test_run_json_csv(void **state)
{
	static struct session s;
	static struct run_result r;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	cJSON *obj, *t;
	struct qx_err e;
	(void)state;
	session_init(&s);
	struct output_ctx io = output_ctx_of(f);
	assert_int_equal(session_use(&s, "expint", &e), 0);
	r.prob = s.prob;
	for (size_t k = 0; k < r.prob->nparams; k++)
		r.params[k] = param_default(&r.prob->params[k]);
	r.summary.backend = QX_GPU;
	r.summary.prec = QX_FLOAT;
	r.summary.block = 64;
	r.summary.threads = 2;
	r.summary.nsamples = 1;
	r.summary.med = fixture_timing(0.1, 0, 0.5, 0.25, 0.05, 0.9, 0);
	r.summary.min = fixture_timing(0, 0, 0.4, 0, 0, 0, 0);
	r.summary.max = fixture_timing(0, 0, 0.75, 0, 0, 0, 0);
	r.ref_name = s.prob->ref_name;
	r.summary.warmup = 2;
	r.evals = 100;
	r.summary.evals_per_s = 1e5;
	r.has_error = 1;
	r.err = (struct err_stats){1e-6, 1e-7, 1e-8, 2.5e-9, 1e-5, 0, 3, 100};
	r.speedup_serial = 12.5;
	r.speedup_threads = NAN;
	io.format = FORMAT_JSON;
	output_run(&io, &r);
	fflush(f);
	obj = cJSON_Parse(text);
	assert_non_null(obj);
	assert_string_equal(cJSON_GetObjectItem(obj, "backend")->valuestring, "gpu");
	assert_string_equal(cJSON_GetObjectItem(obj, "variant")->valuestring, "fast");
	assert_true(cJSON_GetObjectItem(cJSON_GetObjectItem(obj, "params"), "n")->valuedouble ==
	            10);
	t = cJSON_GetObjectItem(obj, "time_ms");
	assert_true(cJSON_GetObjectItem(t, "kernel")->valuedouble == 0.5);
	assert_true(cJSON_GetObjectItem(t, "total")->valuedouble == 0.9);
	assert_true(cJSON_GetObjectItem(cJSON_GetObjectItem(obj, "speedup"), "vs_cpu_serial")
	                ->valuedouble == 12.5);
	assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(obj, "speedup"), "vs_cpu_threads"));
	assert_int_equal(
	    cJSON_GetObjectItem(cJSON_GetObjectItem(obj, "error"), "over_threshold")->valueint, 0);
	assert_true(
	    cJSON_GetObjectItem(cJSON_GetObjectItem(obj, "error"), "mean_abs")->valuedouble ==
	    2.5e-9);
	cJSON_Delete(obj);
	rewind(f);
	len = 0;
	io.format = FORMAT_CSV;
	output_run(&io, &r);
	output_run(&io, &r);
	fflush(f);
	assert_int_equal(strncmp(text, "type,problem,backend", 20), 0);
	assert_non_null(
	    strstr(text, "\nrun,expint,gpu,float,2,64,fast,10,10,0,10,2000000000,0.1,"));
	assert_null(strstr(strchr(text, '\n') + 1, "type,"));
	assert_non_null(strstr(text, ",max_abs,mean_abs,over_threshold,"));
	assert_non_null(strstr(text, ",1e-08,2.5e-09,0,"));
	assert_non_null(strstr(text, ",threshold,warmup,alloc_min_ms,alloc_max_ms,h2d_min_ms,"));
	assert_non_null(strstr(text, ",1e-05,2,0,0,0,0,0.4,0.75,"));
	io.format = FORMAT_TEXT;
	rewind(f);
	io.cols = 200; /* no line is wrapped */
	output_run(&io, &r);
	fflush(f);
	assert_non_null(strstr(text, "max_abs 1e-08  mean_abs 2.5e-09  over 1e-05"));
	rewind(f);
	io.cols = 60; /* wrapped between items, the rest of a line indented under its values */
	output_run(&io, &r);
	fputc('\0', f);
	fflush(f);
	assert_non_null(strstr(text, "max_abs 1e-08\n             mean_abs 2.5e-09  over 1e-05"));
	for (const char *line = text; *line;
	     line += strcspn(line, "\n") + (line[strcspn(line, "\n")] != 0))
		assert_true(strcspn(line, "\n") <= 60);
	fclose(f);
	free(text);
}

/* Sizes in the largest unit they hold one of, one decimal. */
static void test_format_mib(void **state)
{
	char buf[32];
	(void)state;
	format_mib(13958643712.1 / 1048576.0, buf, sizeof buf);
	assert_string_equal(buf, "13.0 GiB");
	format_mib(1.47, buf, sizeof buf);
	assert_string_equal(buf, "1.5 MiB");
	format_mib(0.01709, buf, sizeof buf);
	assert_string_equal(buf, "17.5 KiB");
	format_mib(100.0 / 1048576.0, buf, sizeof buf);
	assert_string_equal(buf, "100 B");
	format_mib(0, buf, sizeof buf);
	assert_string_equal(buf, "0 B");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_median),     cmocka_unit_test(test_phases),
	    cmocka_unit_test(test_err_stats),  cmocka_unit_test(test_run_json_csv),
	    cmocka_unit_test(test_format_mib),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
