/* reduced_math_text.S - embeds the text of reduced_math.h, NUL-terminated, as the read-only
 * bytes qx_reduced_math_text: the emitter puts it before the source of an integrand that calls
 * its functions, for the compilers quadx runs. Assembled from the repository's root. */
	.section .rodata.qx_reduced_math, "a", @progbits
	.globl qx_reduced_math_text
	.type qx_reduced_math_text, @object
qx_reduced_math_text:
	.incbin "src/expr/reduced_math.h"
	.byte 0
	.size qx_reduced_math_text, . - qx_reduced_math_text

	.section .note.GNU-stack, "", @progbits
