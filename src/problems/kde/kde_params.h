/* kde_params.h - problem kde's parameters: the enum that every part of kde.c reads them by,
 * the limits their definitions (kde_params.c) set, and those definitions. */
#ifndef QX_KDE_PARAMS_H
#define QX_KDE_PARAMS_H

#include "../../param.h"

/* Largest grid per axis: the GPU binned convolution costs G times min(G, 16 h / spacing). */
#define KDE_G_MAX 65536
/* Largest n: beyond, memory refuses first on any machine quadx runs on. */
#define KDE_N_MAX 17179869184.0 /* 2^34 */
/* The first `data` column read, at most. */
#define KDE_COLUMN_MAX 64

enum { P_N, P_DIST, P_SEED, P_DATA, P_COLUMN, P_AT, P_G, P_H, P_DIM, P_SHARE, P_COUNT };
enum { AT_SAMPLES, AT_GRID };

/* The parameters' definitions, in the enum's order. */
extern const struct param_def kde_params_def[P_COUNT];

/* The arguments of eval: X, Y and Z, a point's coordinates. */
#define KDE_NEVAL_ARGS 3
extern const struct param_def kde_eval_args[KDE_NEVAL_ARGS];

#endif
