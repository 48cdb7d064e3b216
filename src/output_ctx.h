/* output_ctx.h - where and how the shell prints: the stream, its format, the size text is
 * fitted to. The shell owns one (struct shell's io); every printer takes it, so the session
 * (the model) holds no part of the view. */
#ifndef QX_OUTPUT_CTX_H
#define QX_OUTPUT_CTX_H

#include <stdio.h>

enum out_format { FORMAT_TEXT, FORMAT_JSON, FORMAT_CSV };

struct output_ctx {
	FILE *out;
	enum out_format format;
	int cols, rows; /* the size text output fits: the terminal's, else 80 x 24 */
	int dashboard;  /* 1 while a dashboard shows the output: its Log wraps lines itself */
	char csv_header[1024]; /* the last CSV header printed, so it is printed once */
};

/* The output context of a stream: text, 80 x 24. */
static inline struct output_ctx output_ctx_of(FILE *out)
{
	return (struct output_ctx){.out = out, .format = FORMAT_TEXT, .cols = 80, .rows = 24};
}

/* The width text output is fitted to: io->cols, or 0 (no limit) under a dashboard. */
static inline int output_cols(const struct output_ctx *io)
{
	return io->dashboard ? 0 : io->cols;
}

#endif
