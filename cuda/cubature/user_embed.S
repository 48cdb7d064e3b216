/* user_embed.S - the LTO-IR fatbins of problem cubature's user-integrand kernels, built by the
 * Makefile (user_PREC_KERNEL.fatbin, found through the assembler's -I), as read-only data:
 * qx_lto_cub_NAME .. qx_lto_cub_NAME_end for each (src/problems/cubature/cubature_user.c lists them). */
.macro embed name
	.section .rodata
	.balign 16
	.global qx_lto_cub_\name
qx_lto_cub_\name:
	.incbin "user_\name\().fatbin"
	.global qx_lto_cub_\name\()_end
qx_lto_cub_\name\()_end:
.endm

embed d_0
embed d_4
embed d_5
embed d_6
embed d_7
embed d_8
embed d_p2
embed f_0
embed f_4
embed f_5
embed f_6
embed f_7
embed f_8
embed f_p2

.section .note.GNU-stack, "", @progbits
