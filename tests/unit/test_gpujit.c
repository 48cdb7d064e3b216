/* test_gpujit.c - the run-time GPU compiler (src/gpujit): an integrand's source through NVRTC
 * to LTO-IR and through nvJitLink with the test kernel's embedded fatbin
 * (gpujit_kernel.lto.cu) to a cubin for sm_90 and sm_80, which needs no GPU; the kernels kept
 * and the fma flag; NVRTC's and nvJitLink's errors; the missing-library message; the cache;
 * and, with a GPU, the kernels launched against the host's values of the same function. The GPU
 * part skips without a GPU unless QUADX_REQUIRE_GPU is set. In a build without CUDA: the API's
 * error. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <elf.h>

#include "../../src/device.h"
#include "../../src/gpujit/gpujit.h"

#ifdef QX_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "gpu_fixture.h"

GPUJIT_FATBIN_DECLARE(gpujit_kernel);

/* The test integrand, written once: the host evaluates it as C, NVRTC compiles its text. */
#define TEST_F(x, p) (exp(-(p)[0] * (x)[0] * (x)[0]) * sin((x)[1]) + sqrt(1.0 + (x)[0] * (x)[1]))
#define STR_(a) #a
#define STR(a) STR_(a)
#define TEST_F_SIG "extern \"C\" __device__ double qx_test_f(const double *x, const double *p)"

static const char good_src[] = TEST_F_SIG "\n{\n\treturn " STR(TEST_F(x, p)) ";\n}\n";
static const char syntax_src[] = TEST_F_SIG "\n{\n\treturn x[0] +* ;\n}\n";
/* An integrand of +, *, / and sqrt only: built with GPUJIT_NO_FMAD the GPU gives the host's
 * bits, since each operation is correctly rounded on both. */
#define EXACT_F(x, p) (((x)[0] * (x)[1] + (p)[0]) / sqrt(1.0 + (x)[0] * (x)[0]))
static const char exact_src[] = TEST_F_SIG "\n{\n\treturn " STR(EXACT_F(x, p)) ";\n}\n";
static const char other_src[] =
    "extern \"C\" __device__ double qx_other_f(const double *x)\n{\n\treturn x[0];\n}\n";

/* The host's value of the test integrand. */
static double host_f(const double *x, const double *p)
{
	return TEST_F(x, p);
}

/* The host's value of the exact integrand, each product rounded on its own (volatile: no
 * contraction into an fma, whatever the host compiler's flags). */
static double host_exact_f(const double *x, const double *p)
{
	volatile double xy = x[0] * x[1], xx = x[0] * x[0];
	return (xy + p[0]) / sqrt(1.0 + xx);
}

/* Builds src for arch with the test kernels; returns gpujit_build's status. */
static int build(const char *src, int arch, void **cubin, size_t *size, struct gpujit_times *t,
                 struct qx_err *e)
{
	return gpujit_build(src, arch, GPUJIT_FATBIN(gpujit_kernel),
	                    GPUJIT_FATBIN_SIZE(gpujit_kernel), cubin, size, t, e);
}

/* In a child process with the environment variable env set to path, returns the message of
 * gpujit_available's failure (empty when it succeeded) in msg[len]. A child keeps the
 * libraries this process may have loaded out of the test. */
static void available_with(const char *env, const char *path, char *msg, size_t len)
{
	int fd[2];
	assert_int_equal(pipe(fd), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct qx_err e;
		close(fd[0]);
		setenv(env, path, 1);
		e.msg[0] = '\0';
		size_t n = gpujit_available(&e) ? strlen(e.msg) : 0;
		_exit(write(fd[1], e.msg, n) == (ssize_t)n ? 0 : 1);
	}
	close(fd[1]);
	size_t got = 0;
	ssize_t r;
	while (got + 1 < len && (r = read(fd[0], msg + got, len - 1 - got)) > 0)
		got += (size_t)r;
	msg[got] = '\0';
	close(fd[0]);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* A missing NVRTC or nvJitLink gives one message saying why and what to install. */
static void test_missing_library(void **state)
{
	char msg[QX_ERR_LEN + 1];
	(void)state;
	available_with("QUADX_NVRTC", "/nonexistent/libnvrtc.so", msg, sizeof msg);
	print_message("missing NVRTC: %s\n", msg);
	assert_non_null(strstr(msg, "GPU integrands are unavailable"));
	assert_non_null(strstr(msg, "NVRTC"));
	assert_non_null(strstr(msg, "/nonexistent/libnvrtc.so"));
	assert_non_null(strstr(msg, "install"));
	available_with("QUADX_NVJITLINK", "/nonexistent/libnvJitLink.so", msg, sizeof msg);
	print_message("missing nvJitLink: %s\n", msg);
	assert_non_null(strstr(msg, "GPU integrands are unavailable"));
	assert_non_null(strstr(msg, "nvJitLink"));
	assert_non_null(strstr(msg, "install"));
	/* A library that loads but is not NVRTC: its missing functions are named. */
	available_with("QUADX_NVRTC", "libm.so.6", msg, sizeof msg);
	assert_non_null(strstr(msg, "lacks nvrtc"));
}

/* The toolkit that built this binary has NVRTC and nvJitLink. */
static void test_available(void **state)
{
	struct qx_err e;
	(void)state;
	if (gpujit_available(&e))
		fail_msg("%s", e.msg);
}

/* Returns the ELF symbol type (STT_FUNC...) of the symbol name in the 64-bit ELF image
 * img[size], or -1 when its symbol tables lack it. */
static int symbol_type(const unsigned char *img, size_t size, const char *name)
{
	Elf64_Ehdr h;
	memcpy(&h, img, sizeof h);
	assert_true(h.e_shentsize == sizeof(Elf64_Shdr) &&
	            h.e_shoff + (size_t)h.e_shnum * sizeof(Elf64_Shdr) <= size);
	for (int i = 0; i < h.e_shnum; i++) {
		Elf64_Shdr sh, str;
		memcpy(&sh, img + h.e_shoff + (size_t)i * sizeof sh, sizeof sh);
		if (sh.sh_type != SHT_SYMTAB)
			continue;
		assert_true(sh.sh_link < h.e_shnum && sh.sh_offset + sh.sh_size <= size);
		memcpy(&str, img + h.e_shoff + (size_t)sh.sh_link * sizeof str, sizeof str);
		for (size_t k = 0; k + 1 <= sh.sh_size / sizeof(Elf64_Sym); k++) {
			Elf64_Sym sym;
			memcpy(&sym, img + sh.sh_offset + k * sizeof sym, sizeof sym);
			assert_true(sym.st_name < str.sh_size);
			if (strcmp((const char *)img + str.sh_offset + sym.st_name, name) == 0)
				return ELF64_ST_TYPE(sym.st_info);
		}
	}
	return -1;
}

/* The cubin is a 64-bit ELF for the CUDA machine and for sm_<arch> (the second byte of its
 * flags) whose function qx_test_kernel has the integrand inlined: LTO leaves no symbol
 * qx_test_f (its name stays only in the line information). */
static void check_cubin(const void *cubin, size_t size, int arch)
{
	const unsigned char *b = cubin;
	Elf64_Ehdr h;
	assert_true(size > 1024);
	assert_memory_equal(b, ELFMAG, SELFMAG);
	memcpy(&h, b, sizeof h);
	assert_int_equal(h.e_ident[EI_CLASS], ELFCLASS64);
	assert_int_equal(h.e_machine, EM_CUDA);
	assert_int_equal(h.e_flags >> 8 & 0xff, arch);
	assert_int_equal(symbol_type(b, size, "qx_test_kernel"), STT_FUNC);
	assert_int_equal(symbol_type(b, size, "qx_test_f"), -1);
}

/* The integrand compiles to LTO-IR and links with the kernels into a cubin for sm_90 and sm_80;
 * prints the times. */
static void test_build(void **state)
{
	static const int archs[] = {90, 80};
	const unsigned char *fatbin = GPUJIT_FATBIN(gpujit_kernel);
	struct qx_err e;
	(void)state;
	/* The embedded bytes are the whole fatbin: its magic, and the size its header gives. */
	assert_int_equal(fatbin[0] | fatbin[1] << 8 | fatbin[2] << 16 | (unsigned)fatbin[3] << 24,
	                 0xba55ed50u);
	uint16_t header;
	uint64_t body;
	memcpy(&header, fatbin + 6, sizeof header);
	memcpy(&body, fatbin + 8, sizeof body);
	assert_int_equal(GPUJIT_FATBIN_SIZE(gpujit_kernel), header + body);
	for (size_t i = 0; i < sizeof archs / sizeof *archs; i++) {
		void *cubin = NULL;
		size_t size = 0;
		struct gpujit_times t = {-1, -1, -1, -1, -1};
		if (build(good_src, archs[i], &cubin, &size, &t, &e))
			fail_msg("%s", e.msg);
		check_cubin(cubin, size, archs[i]);
		assert_int_equal(t.cached, 0);
		assert_true(t.compile_ms > 0 && t.link_ms > 0);
		print_message("sm_%d: NVRTC %.1f ms, nvJitLink %.1f ms, cubin %zu bytes\n",
		              archs[i], t.compile_ms, t.link_ms, size);
		free(cubin);
	}
}

/* Builds src for sm_90 with the test kernels and options o into a malloc'd cubin. */
static void *build_opts(const char *src, const struct gpujit_opts *o, size_t *size,
                        struct gpujit_times *t)
{
	struct qx_err e;
	void *cubin = NULL;
	if (gpujit_build_opts(src, 90, GPUJIT_FATBIN(gpujit_kernel),
	                      GPUJIT_FATBIN_SIZE(gpujit_kernel), o, &cubin, size, t, &e))
		fail_msg("%s", e.msg);
	return cubin;
}

/* Every kernel stays by default; -kernels-used keeps only those named. */
static void test_kernels_used(void **state)
{
	static const char *const one[] = {"qx_test_kernel"};
	const struct gpujit_opts o = {0, one, 1};
	struct gpujit_times t_all, t_one;
	size_t n_all, n_one;
	(void)state;
	unsigned char *all = build_opts(good_src, NULL, &n_all, &t_all);
	unsigned char *kept = build_opts(good_src, &o, &n_one, &t_one);
	print_message("both kernels: link %.1f ms; one: %.1f ms\n", t_all.link_ms, t_one.link_ms);
	assert_int_equal(symbol_type(all, n_all, "qx_test_kernel"), STT_FUNC);
	assert_int_equal(symbol_type(all, n_all, "qx_test_negated"), STT_FUNC);
	assert_int_equal(symbol_type(kept, n_one, "qx_test_kernel"), STT_FUNC);
	assert_int_equal(symbol_type(kept, n_one, "qx_test_negated"), -1);
	free(all);
	free(kept);
}

/* A build is repeatable to the byte, and GPUJIT_NO_FMAD changes the code of x0 * x1 + p0 (no
 * fused multiply-add). */
static void test_no_fmad(void **state)
{
	const struct gpujit_opts exact = {GPUJIT_NO_FMAD, NULL, 0};
	size_t n1, n2, n3;
	(void)state;
	unsigned char *a = build_opts(exact_src, NULL, &n1, NULL);
	unsigned char *b = build_opts(exact_src, NULL, &n2, NULL);
	unsigned char *c = build_opts(exact_src, &exact, &n3, NULL);
	assert_true(n1 == n2 && memcmp(a, b, n1) == 0);
	assert_true(n1 != n3 || memcmp(a, c, n1) != 0);
	free(a);
	free(b);
	free(c);
}

/* Building src for arch fails, leaves no cubin and says both want1 and want2. */
static void expect_build_error(const char *src, int arch, const char *want1, const char *want2)
{
	struct qx_err e;
	void *cubin = NULL;
	size_t size = 0;
	assert_int_equal(build(src, arch, &cubin, &size, NULL, &e), -1);
	print_message("error: %s\n", e.msg);
	assert_null(cubin);
	assert_non_null(strstr(e.msg, want1));
	assert_non_null(strstr(e.msg, want2));
}

/* A syntax error fails in NVRTC with its log's first lines; a source without the function the
 * kernels call fails in nvJitLink, which names it; an architecture that is not one fails
 * before any compiler runs. */
static void test_errors(void **state)
{
	(void)state;
	expect_build_error(syntax_src, 90, "NVRTC could not compile", "integrand.cu(3): error");
	expect_build_error(other_src, 90, "nvJitLink could not link", "qx_test_f");
	expect_build_error(good_src, 0, "gpujit:", "not a compute capability");
}

/* Asks c for key at arch with the test kernels and no kernel handles (no GPU needed). */
static int get(struct gpujit_cache *c, const char *key, const char *src, int arch,
               struct gpujit_times *t, struct qx_err *e)
{
	return gpujit_get(c, key, src, arch, GPUJIT_FATBIN(gpujit_kernel),
	                  GPUJIT_FATBIN_SIZE(gpujit_kernel), NULL, 0, NULL, t, e);
}

/* The second request of a key and arch compiles nothing; another key or arch builds; a failed
 * build is not kept. */
static void test_cache(void **state)
{
	struct gpujit_cache *c = gpujit_cache_new();
	struct gpujit_times t;
	struct qx_err e;
	int count;
	size_t bytes;
	(void)state;
	assert_non_null(c);
	if (get(c, "f dim 2 double", good_src, 90, &t, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(t.cached, 0);
	assert_true(t.compile_ms > 0 && t.link_ms > 0);
	print_message("first get: NVRTC %.1f ms, nvJitLink %.1f ms\n", t.compile_ms, t.link_ms);
	/* The key alone decides: the broken source is never compiled. */
	double t0 = qx_now_ms();
	if (get(c, "f dim 2 double", syntax_src, 90, &t, &e))
		fail_msg("%s", e.msg);
	double hit_ms = qx_now_ms() - t0;
	print_message("second get: %.3f ms\n", hit_ms);
	assert_int_equal(t.cached, 1);
	assert_true(t.compile_ms == 0 && t.link_ms == 0);
	assert_true(hit_ms < 5);
	gpujit_cache_stats(c, &count, &bytes);
	assert_int_equal(count, 1);
	assert_true(bytes > 1024);
	if (get(c, "f dim 2 double", good_src, 80, &t, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(t.cached, 0);
	if (get(c, "f dim 3 double", good_src, 90, &t, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(t.cached, 0);
	assert_int_equal(get(c, "broken", syntax_src, 90, &t, &e), -1);
	assert_int_equal(t.cached, 0);
	assert_non_null(strstr(e.msg, "NVRTC could not compile"));
	assert_int_equal(get(c, "broken", syntax_src, 90, &t, &e), -1);
	assert_int_equal(t.cached, 0);
	gpujit_cache_stats(c, &count, &bytes);
	assert_int_equal(count, 3);
	gpujit_cache_free(c);
}

/* Fails the test with the CUDA call's message when it did not succeed. */
#define CUDA_OK(call)                                                                              \
	do {                                                                                       \
		cudaError_t err_ = (call);                                                         \
		if (err_ != cudaSuccess)                                                           \
			fail_msg("%s: %s", #call, cudaGetErrorString(err_));                       \
	} while (0)

enum { NPTS = 7, DIM = 2 };

/* Points spread over [-1, 2.9]^2 (every 1 + x0 * x1 positive), and the parameter. */
static void points(double *x, double *p)
{
	for (int i = 0; i < NPTS * DIM; i++)
		x[i] = -1.0 + 0.3 * i;
	p[0] = 1.5;
}

/* Launches kernel (a cudaKernel_t from the cache) on the NPTS points x with parameter p and
 * copies its NPTS values into y. */
static void launch(void *kernel, const double *x, const double *p, double *y)
{
	double *dx, *dp, *dy;
	int n = NPTS, dim = DIM;
	CUDA_OK(cudaMalloc((void **)&dx, NPTS * DIM * sizeof *x));
	CUDA_OK(cudaMalloc((void **)&dp, sizeof *p));
	CUDA_OK(cudaMalloc((void **)&dy, NPTS * sizeof *y));
	CUDA_OK(cudaMemcpy(dx, x, NPTS * DIM * sizeof *x, cudaMemcpyHostToDevice));
	CUDA_OK(cudaMemcpy(dp, p, sizeof *p, cudaMemcpyHostToDevice));
	void *args[] = {&dx, &dp, &dy, &n, &dim};
	dim3 grid = {1, 1, 1}, block = {32, 1, 1};
	CUDA_OK(cudaLaunchKernel((const void *)kernel, grid, block, args, 0, 0));
	CUDA_OK(cudaMemcpy(y, dy, NPTS * sizeof *y, cudaMemcpyDeviceToHost));
	CUDA_OK(cudaFree(dx));
	CUDA_OK(cudaFree(dp));
	CUDA_OK(cudaFree(dy));
}

/* Gets the kernels names[0..n) of src with flags from c for this GPU; returns the call's
 * status, with the times in *t. */
static int get_kernels(struct gpujit_cache *c, const char *key, const char *src, unsigned flags,
                       const char *const *names, int n, void **kernels, struct gpujit_times *t,
                       struct qx_err *e)
{
	int arch;
	if (gpujit_device_arch(&arch, e))
		return -1;
	return gpujit_get_flags(c, key, src, arch, GPUJIT_FATBIN(gpujit_kernel),
	                        GPUJIT_FATBIN_SIZE(gpujit_kernel), flags, names, n, kernels, t, e);
}

/* Both linked kernels, loaded from the cache, compute the host's values (to rounding: the
 * GPU's exp and sin are not glibc's); the second get returns the same kernels without
 * compiling; a kernel the cubin lacks is an error that names it; without fmas the exact
 * integrand gives the host's bits. */
static void test_launch(void **state)
{
	static const char *const names[] = {"qx_test_kernel", "qx_test_negated"};
	static const char *const bad_names[] = {"no_such_kernel"};
	double x[NPTS * DIM], p[1], y[NPTS], yneg[NPTS];
	void *kernels[2], *again[2], *none;
	struct gpujit_times t;
	struct qx_err e;
	(void)state;
	if (!fixture_have_gpu)
		skip();
	struct gpujit_cache *c = gpujit_cache_new();
	assert_non_null(c);
	if (get_kernels(c, "test", good_src, 0, names, 2, kernels, &t, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(t.cached, 0);
	print_message("this GPU: NVRTC %.1f ms, nvJitLink %.1f ms\n", t.compile_ms, t.link_ms);
	points(x, p);
	launch(kernels[0], x, p, y);
	launch(kernels[1], x, p, yneg);
	for (int i = 0; i < NPTS; i++) {
		const double want = host_f(x + i * DIM, p);
		print_message("f(%g, %g) = %.17g (host %.17g)\n", x[i * DIM], x[i * DIM + 1], y[i],
		              want);
		assert_true(fabs(y[i] - want) <= 1e-14 * fabs(want));
		assert_true(yneg[i] == -y[i]);
	}
	if (get_kernels(c, "test", good_src, 0, names, 2, again, &t, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(t.cached, 1);
	assert_true(again[0] == kernels[0] && again[1] == kernels[1]);
	assert_int_equal(get_kernels(c, "test", good_src, 0, bad_names, 1, &none, &t, &e), -1);
	print_message("no such kernel: %s\n", e.msg);
	assert_non_null(strstr(e.msg, "no_such_kernel"));
	/* Built with GPUJIT_NO_FMAD, correctly rounded operations give the host's bits. */
	if (get_kernels(c, "exact", exact_src, GPUJIT_NO_FMAD, names, 1, kernels, NULL, &e))
		fail_msg("%s", e.msg);
	launch(kernels[0], x, p, y);
	for (int i = 0; i < NPTS; i++) {
		const double want = host_exact_f(x + i * DIM, p);
		print_message("exact f = %a (host %a)\n", y[i], want);
		assert_memory_equal(&y[i], &want, sizeof want);
	}
	gpujit_cache_free(c);
}

int main(void)
{
	/* test_missing_library first: its child processes must inherit no loaded library. */
	const struct CMUnitTest build_tests[] = {
	    cmocka_unit_test(test_missing_library), cmocka_unit_test(test_available),
	    cmocka_unit_test(test_build),           cmocka_unit_test(test_kernels_used),
	    cmocka_unit_test(test_no_fmad),         cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_cache),
	};
	const struct CMUnitTest gpu_tests[] = {
	    cmocka_unit_test(test_launch),
	};
	int rc = cmocka_run_group_tests_name("gpujit build", build_tests, NULL, NULL);
	rc |= cmocka_run_group_tests_name("gpujit gpu", gpu_tests, fixture_open_gpu, NULL);
	gpu_release();
	return rc;
}

#else

/* Without CUDA every call says that GPU integrands need a CUDA build; the cache still exists. */
static void test_no_cuda(void **state)
{
	struct qx_err e;
	struct gpujit_times t = {1, 1, 1, 1, 1};
	void *cubin = NULL, *kernel = NULL;
	size_t size = 0;
	int arch = 0, count = -1;
	(void)state;
	assert_int_equal(gpujit_available(&e), -1);
	assert_non_null(strstr(e.msg, "GPU integrands need a build with CUDA"));
	assert_int_equal(gpujit_build("", 90, NULL, 0, &cubin, &size, &t, &e), -1);
	assert_non_null(strstr(e.msg, "GPU integrands need a build with CUDA"));
	assert_int_equal(gpujit_device_arch(&arch, &e), -1);
	struct gpujit_cache *c = gpujit_cache_new();
	assert_non_null(c);
	const char *names[] = {"k"};
	assert_int_equal(gpujit_get(c, "k", "", 90, NULL, 0, names, 1, &kernel, &t, &e), -1);
	assert_non_null(strstr(e.msg, "GPU integrands need a build with CUDA"));
	assert_int_equal(
	    gpujit_get_flags(c, "k", "", 90, NULL, 0, GPUJIT_NO_FMAD, names, 1, &kernel, &t, &e),
	    -1);
	assert_int_equal(gpujit_build_opts("", 90, NULL, 0, NULL, &cubin, &size, &t, &e), -1);
	assert_non_null(strstr(e.msg, "GPU integrands need a build with CUDA"));
	assert_int_equal(t.cached, 0);
	gpujit_cache_stats(c, &count, &size);
	assert_int_equal(count, 0);
	gpujit_cache_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_no_cuda),
	};
	printf("test_gpujit: a build without CUDA: only its errors are tested\n");
	if (getenv("QUADX_REQUIRE_GPU"))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
