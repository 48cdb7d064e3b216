/* lto_embed.S - embeds one fatbin of LTO-IR, the file QX_LTO_FILE, as the read-only bytes
 * QX_LTO_NAME .. QX_LTO_NAME_end (both global), for nvJitLink to link with a user's integrand
 * at run time. The Makefile assembles it once per NAME.lto.cu with the two macros defined. */
#define QX_CAT_(a, b) a##b
#define QX_CAT(a, b) QX_CAT_(a, b)
#define QX_LTO_END QX_CAT(QX_LTO_NAME, _end)

	.section .rodata.qx_lto, "a", @progbits
	.balign 16
	.globl QX_LTO_NAME
	.type QX_LTO_NAME, @object
QX_LTO_NAME:
	.incbin QX_LTO_FILE
	.globl QX_LTO_END
	.type QX_LTO_END, @object
QX_LTO_END:
	.size QX_LTO_NAME, QX_LTO_END - QX_LTO_NAME
	.size QX_LTO_END, 0

	.section .note.GNU-stack, "", @progbits
