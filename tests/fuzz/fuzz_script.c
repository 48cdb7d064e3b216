/* fuzz_script.c - libFuzzer harness: the input is a whole script (any bytes: NULs, no final
 * newline, over-long lines) read by shell_run_stream on a fresh session with --keep-going. */
#include "common.h"

#include <stdio.h>

/* Runs the input as a script from a memory stream. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct shell *sh = fuzz_shell_new();
	FILE *f = fmemopen((void *)data, size, "r");
	if (size && !f)
		abort();
	if (f) {
		shell_run_stream(sh, f, "fuzz", 1);
		fclose(f);
	}
	fuzz_shell_free(sh);
	return 0;
}
