/* common.h - what the libFuzzer harnesses share: a fresh shell per input whose runs are tiny. */
#ifndef QX_FUZZ_COMMON_H
#define QX_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../src/commands.h"
#include "../../src/script.h"

/* The most values, and warm-up plus timed repetitions, a run may have under the fuzzers;
 * larger runs fail with an error instead of starting. */
#define FUZZ_MAX_VALUES 256
#define FUZZ_MAX_REPS 3

/* Returns a fresh shell whose output goes to /dev/null (the same object on every call). */
struct shell *fuzz_shell_new(void);

/* Frees what the shell of fuzz_shell_new() holds. */
void fuzz_shell_free(struct shell *sh);

/* Returns a malloc'd NUL-terminated copy of data[0..size); aborts when out of memory. */
char *fuzz_string(const uint8_t *data, size_t size);

#endif
