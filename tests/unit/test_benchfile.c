/* test_benchfile.c - the results file of `make bench`: a section's heading names the device,
 * date and commit; a bench replaces its problems' sections in place and keeps every other
 * (another problem's, the fuzzing figures), or appends a section the file lacks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../src/bench/benchfile.h"

/* The heading: the section's name, then where, when and of what commit. */
static void test_header(void **state)
{
	char buf[256];
	(void)state;
	bench_header(buf, sizeof buf, "kde", "NVIDIA H100 80GB HBM3", "2026-11-25", "b9697a1");
	assert_string_equal(buf, "## kde\n\nMeasured by make bench on NVIDIA H100 80GB HBM3, "
	                         "2026-11-25, commit b9697a1.\n\n");
}

/* A section in the middle is replaced up to the next heading; the others stay as they were;
 * a name that is a prefix of another (kde, kde2) is not confused with it. */
static void test_replace(void **state)
{
	const char *doc = "# quadx performance\n\nintro\n\n## expint\n\nold expint\n| a |\n\n"
	                  "## kde2\n\nkeep kde2\n\n## kde\n\nold kde\n\n## Fuzzing\n\nfuzz\n";
	char *out;
	(void)state;
	out = bench_replace_section(doc, "expint", "## expint\n\nnew expint\n");
	assert_non_null(out);
	assert_string_equal(out,
	                    "# quadx performance\n\nintro\n\n## expint\n\nnew expint\n\n"
	                    "## kde2\n\nkeep kde2\n\n## kde\n\nold kde\n\n## Fuzzing\n\nfuzz\n");
	free(out);
	out = bench_replace_section(doc, "kde", "## kde\n\nnew kde\n\n");
	assert_non_null(out);
	assert_non_null(
	    strstr(out, "## kde2\n\nkeep kde2\n\n## kde\n\nnew kde\n\n## Fuzzing\n\nfuzz\n"));
	assert_null(strstr(out, "old kde"));
	free(out);
	/* the last section: replaced to the end */
	out = bench_replace_section(doc, "Fuzzing", "## Fuzzing\n\nnew fuzz\n");
	assert_non_null(strstr(out, "old kde\n\n## Fuzzing\n\nnew fuzz\n"));
	free(out);
}

/* A section the file lacks is appended after a blank line; no file at all is just it. */
static void test_append(void **state)
{
	char *out;
	(void)state;
	out = bench_replace_section("## expint\n\nx\n", "longman", "## longman\n\ny\n");
	assert_string_equal(out, "## expint\n\nx\n\n## longman\n\ny\n");
	free(out);
	out = bench_replace_section(NULL, "longman", "## longman\n\ny\n");
	assert_string_equal(out, "## longman\n\ny\n");
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_header),
	    cmocka_unit_test(test_replace),
	    cmocka_unit_test(test_append),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
