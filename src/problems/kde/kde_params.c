/* kde_params.c - problem kde's parameters: what `set` accepts for each, its default and its
 * help, and the arguments of eval. */
#include "kde_params.h"

#include "kde_math.h"

#include <stddef.h>

static const char *const dist_names[] = {"normal",      "mixture", "uniform",
                                         "exponential", "student", NULL};
static const char *const at_names[] = {"samples", "grid", NULL};
static const char *const h_names[] = {"silverman", "scott", NULL}; /* enum kde_bw_rule order */
static const char *const column_names[] = {"auto", NULL};          /* column -1 */

// clang-format off
const struct param_def kde_params_def[P_COUNT] = {
    [P_N] = {.name = "n", .type = PARAM_INT, .min = 2, .max = KDE_N_MAX, .def = 4000,
             .help = "samples drawn from dist (with data FILE: the file's count instead)"},
    [P_DIST] = {.name = "dist", .type = PARAM_ENUM, .def = KDE_NORMAL, .choices = dist_names,
                .help = "normal, mixture (N(-2,1), N(2,1/4)), uniform, exponential, "
                        "student (t, 3 df)"},
    [P_SEED] = {.name = "seed", .type = PARAM_INT, .min = 0, .max = 9007199254740991.0, .def = 1,
                .help = "seed of the samples drawn from dist"},
    [P_DATA] = {.name = "data", .type = PARAM_PATH,
                .help = "samples read from FILE (one number per line, or CSV columns), or none"},
    [P_COLUMN] = {.name = "column", .type = PARAM_REAL, .min = 1, .max = KDE_COLUMN_MAX,
                  .def = -1, .choices = column_names,
                  .help = "data FILE: the first column read (dim columns from it), or auto: "
                          "the first that is not a row id"},
    [P_AT] = {.name = "at", .type = PARAM_ENUM, .def = AT_SAMPLES, .choices = at_names,
              .help = "evaluate at the samples (the seed) or at a grid of G points per axis"},
    [P_G] = {.name = "G", .type = PARAM_INT, .min = 2, .max = KDE_G_MAX, .def = 1024,
             .help = "grid points per axis, over the data's range padded by 3 h"},
    [P_H] = {.name = "h", .type = PARAM_REAL, .min = 0, .max = 1e300, .min_open = PARAM_MIN_OPEN,
             .def = -1, .choices = h_names,
             .help = "bandwidth: silverman or scott (per axis), or a number for every axis"},
    [P_DIM] = {.name = "dim", .type = PARAM_INT, .min = 1, .max = KDE_DMAX, .def = 1,
               .help = "dimension of the samples (2, 3: CPU tiled and GPU tiled only)"},
    [P_SHARE] = {.name = "share", .type = PARAM_REAL, .min = 0.125, .max = 0.375, .def = 0.375,
                 .backends = QX_ON_GPU,
                 .help = "GPU fast: share of its per-pair exponentials by a polynomial on the FMA "
                         "pipes (0.125, 0.25, 0.375)"},
};

const struct param_def kde_eval_args[KDE_NEVAL_ARGS] = {
    {.name = "X", .type = PARAM_REAL, .min = -1e300, .max = 1e300, .def = 0,
     .help = "first coordinate of the point"},
    {.name = "Y", .type = PARAM_REAL, .min = -1e300, .max = 1e300, .def = 0,
     .help = "second coordinate (dim 2, 3)"},
    {.name = "Z", .type = PARAM_REAL, .min = -1e300, .max = 1e300, .def = 0,
     .help = "third coordinate (dim 3)"},
};
// clang-format on
