/* user_fixture.h - what the tests of user integrands share (include after cmocka.h): building
 * an integrand's CUDA source with one kernel fatbin into a cubin, as a GPU run would. */
#ifndef QX_USER_FIXTURE_H
#define QX_USER_FIXTURE_H

#include "../../src/gpujit/gpujit.h"
#include "../../src/problems/user_integrand.h"

#ifdef QX_HAVE_CUDA
/* Builds ui's CUDA source in prec with the kernel fatbin (size bytes) into a cubin for sm_90;
 * returns the cubin's size, failing the test on an error. Needs NVRTC and nvJitLink, not a
 * GPU. */
static inline size_t user_fixture_build(const struct user_integrand *ui, enum qx_precision prec,
                                        const void *fatbin, size_t size)
{
	struct qx_err e;
	struct gpujit_times t;
	void *cubin = NULL;
	size_t n = 0;
	char *src = user_integrand_source(ui, EXPR_CUDA, prec);
	assert_non_null(src);
	if (gpujit_build(src, 90, fatbin, size, &cubin, &n, &t, &e))
		fail_msg("%s\n%s", e.msg, src);
	print_message("NVRTC %.1f ms, nvJitLink %.1f ms, cubin %zu bytes\n", t.compile_ms,
	              t.link_ms, n);
	assert_true(n > 64 && !memcmp(cubin, "\177ELF", 4));
	free(cubin);
	free(src);
	return n;
}
#endif

#endif
