/* cubature.cu - problem cubature on the GPU, the part of its C interface (cubature_gpu.h) that
 * every variant's driver shares: the bytes a region takes and the default budget (the drivers:
 * breadth.cu, twophase.cu; several GPUs: breadth_multi.cu). The rule's points and weights are
 * uploaded once per run; the region lists (centre and half-widths, structure of arrays) stay
 * on the device; the rule is evaluated with one warp (while regions are few, 4, 8 or 16) per
 * region, the threads sharing the points (rule_kernel.cuh). */
#include "../../src/problems/cubature/cubature_gpu.h"
#include "../gpu_util.cuh"
#include "common.cuh"

/* Bytes one region needs on the device, the larger of the variants': breadth's two lists of
 * centre, half-widths, est, err and axis, its parent estimate, scratch and position, and
 * running ahead's parent estimate and position (twophase's two lists of centre and
 * half-widths, est, err, parent estimate, retired est and err, axis, flag and position fit in
 * it). */
extern "C" size_t cub_gpu_region_bytes(int dim, enum qx_precision prec)
{
	return 4 * (size_t)dim * qx_precision_size(prec) + 7 * sizeof(double) + 5 * sizeof(int);
}

/* Half the free device memory (its pool's kept blocks counted free: the lists come from the
 * pool), 0 when it cannot be read. */
extern "C" size_t cub_gpu_default_budget(void)
{
	size_t free_b = 0, total = 0;
	if (gpu_mem_info_pooled(&free_b, &total) != cudaSuccess)
		return 0;
	return free_b / 2;
}
