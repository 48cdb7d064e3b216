/* fault.h - fault injection for the tests. In a test build (compiled with -DQX_FAULT_INJECTION)
 * QUADX_FAULT=OP[:N][,OP[:N]...] makes the N-th (default first) operation named OP fail once;
 * OP is one of the fault points listed in fault.c (malloc, fopen, write, fsync, rename, and
 * the CUDA calls of the GPU wrappers, matched by prefix: cudaMalloc also matches
 * cudaMallocAsync). In other builds the environment is never read and no operation fails. */
#ifndef QX_FAULT_H
#define QX_FAULT_H

#ifdef __cplusplus
extern "C" {
#endif

/* Returns 1 when the operation op (a fault point's name, or the text of a CUDA call) must
 * fail now, 0 otherwise; always 0 outside test builds. */
int qx_fault(const char *op);

#ifdef __cplusplus
}
#endif

#endif
