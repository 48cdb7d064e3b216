/* fuzz_exec.c - libFuzzer harness: the input (up to its first NUL, as a line arrives) is one
 * line given to shell_exec_line on a fresh session: splitting, quoting, ';', dispatch through
 * the command table and every handler's argument checks. */
#include "common.h"

/* Executes one input line; errors are expected, crashes and sanitizer reports are not. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct shell *sh = fuzz_shell_new();
	struct qx_err e = {""};
	char *line = fuzz_string(data, size);
	shell_exec_line(sh, line, &e);
	free(line);
	fuzz_shell_free(sh);
	return 0;
}
