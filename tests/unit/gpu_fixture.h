/* gpu_fixture.h - the setup of the unit tests' GPU groups (test_kde_gpu.c, test_gpujit.c):
 * opens the GPU once; without one the group's tests skip, or the group fails when
 * QUADX_REQUIRE_GPU is set (make test-gpu). */
#ifndef QX_GPU_FIXTURE_H
#define QX_GPU_FIXTURE_H

#include <stdlib.h>

#include "../../src/device.h"

/* 1 once fixture_open_gpu has opened the GPU. */
static int fixture_have_gpu;

/* A cmocka group setup: opens the GPU and prints it, or says why its tests skip; returns -1
 * (the group fails) only without a GPU under QUADX_REQUIRE_GPU. */
static int fixture_open_gpu(void **state)
{
	struct gpu_info info;
	struct qx_err e;
	(void)state;
	fixture_have_gpu = gpu_init(&info, &e) == 0;
	if (fixture_have_gpu)
		print_message("GPU: %s, sm_%d%d, %d SMs\n", info.name, info.cc_major, info.cc_minor,
		              info.sms);
	else
		print_message("GPU tests skipped: %s\n", e.msg);
	return !fixture_have_gpu && getenv("QUADX_REQUIRE_GPU") ? -1 : 0;
}

#endif
