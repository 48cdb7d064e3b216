/* test_gpudriver.c - a machine without an NVIDIA driver is told from its device directory:
 * no nvidia* or dxg entry means no driver (the message "no NVIDIA driver found"), any of them
 * means a driver, whose errors CUDA then names itself. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../src/gpudriver.h"

/* Creates the file name in dir. */
static void touch(const char *dir, const char *name)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
}

/* Removes the file name in dir. */
static void remove_file(const char *dir, const char *name)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	assert_int_equal(unlink(path), 0);
}

static void test_device_files(void **state)
{
	char dir[] = "/tmp/quadx-dev-XXXXXX";
	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(gpu_driver_present(dir), 0); /* empty */
	touch(dir, "null");
	touch(dir, "nvme0");
	assert_int_equal(gpu_driver_present(dir), 0); /* other devices only */
	touch(dir, "nvidiactl");
	assert_int_equal(gpu_driver_present(dir), 1);
	remove_file(dir, "nvidiactl");
	touch(dir, "nvidia0");
	assert_int_equal(gpu_driver_present(dir), 1);
	remove_file(dir, "nvidia0");
	touch(dir, "dxg");
	assert_int_equal(gpu_driver_present(dir), 1); /* WSL 2 */
	remove_file(dir, "dxg");
	assert_int_equal(gpu_driver_present(dir), 0);
	remove_file(dir, "null");
	remove_file(dir, "nvme0");
	assert_int_equal(rmdir(dir), 0);
	assert_int_equal(gpu_driver_present(dir), 0); /* no such directory */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_device_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
