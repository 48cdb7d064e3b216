/* cubature_params.c - problem cubature's table of parameters (cubature_params.h). */
#include "cubature_params.h"

#include "cubature_integrands.h"
#include "cubature_math.h"

static const char *const rule_names[] = {"7", "9", NULL};

// clang-format off
const struct param_def cub_params_def[P_COUNT] = {
    [P_INTEGRAND] = {.name = "integrand", .type = PARAM_EXPR, .def = CUB_F5,
                     .choices = cub_integrand_names,
                     .help = "f1..f5 (the study's Table I; f1p2: f1 with the paper's exponent -2), "
                             "a Genz family, or your own expression in x1..xdim (help "
                             "expressions)"},
    [P_DIM] = {.name = "dim", .type = PARAM_INT, .min = 1, .max = CUB_FN_MAX_DIM, .def = 5,
               .help = "dimensions, 1..16 for the rules (1: Gauss-Kronrod 7/15; rules 7 and 9 "
                       "from 2), 1..64 for vegas and qmc"},
    [P_REL] = {.name = "rel", .type = PARAM_REAL, .min = 0, .max = 1,
               .min_open = PARAM_MIN_OPEN | PARAM_MAX_OPEN, .def = 1e-6,
               .help = "relative tolerance, 0 < rel < 1: stop when error <= max(abs, rel |I|)"},
    [P_ABS] = {.name = "abs", .type = PARAM_REAL, .min = 0, .max = 1e300,
               .help = "absolute tolerance (0: none)"},
    [P_MAXEVAL] = {.name = "maxeval", .type = PARAM_INT, .min = 1, .max = 1e15, .def = 1e8,
                   .help = "largest number of integrand evaluations"},
    [P_BUDGET] = {.name = "budget", .type = PARAM_REAL, .min = 0, .max = 1e9,
                  .help = "MiB for the region list (0: half the free GPU memory, a quarter of "
                          "the host's on the CPU)"},
    [P_RULE] = {.name = "rule", .type = PARAM_ENUM, .def = RULE_9, .choices = rule_names,
                .help = "7: Genz-Malik degree 7/5 (hcubature); 9: degree 9 with null rules "
                        "(CUHRE)"},
    [P_INIT] = {.name = "init", .type = PARAM_INT, .min = 0, .max = 64, .backends = QX_ON_GPU,
                .help = "breadth on the GPU: pieces per axis of the first partition, init^dim "
                        "regions (0: 2, or 1 where that does not fit)"},
    [P_D] = {.name = "d", .type = PARAM_INT, .min = 2, .max = 16, .def = 2, .backends = QX_ON_GPU,
             .help = "twophase: pieces a bad region is split into in phase 1"},
    [P_LMAX] = {.name = "lmax", .type = PARAM_INT, .min = 1, .max = 1 << 24, .def = 32768,
                .backends = QX_ON_GPU,
                .help = "twophase: regions phase 1 builds before phase 2 (the study: 32768)"},
    [P_CALLS] = {.name = "calls", .type = PARAM_INT, .min = 2, .max = 1e12, .def = 10000,
                 .help = "vegas: samples an iteration"},
    [P_ITERS] = {.name = "iters", .type = PARAM_INT, .min = 1, .max = 1000000, .def = 5,
                 .help = "vegas: least iterations in the result before it may stop"},
    [P_ADAPT] = {.name = "adapt", .type = PARAM_INT, .min = 0, .max = 1000000, .def = 5,
                 .help = "vegas: warm-up iterations that only adapt the grid"},
    [P_SHIFTS] = {.name = "shifts", .type = PARAM_INT, .min = 2, .max = 1024, .def = 16,
                  .help = "qmc: independent random shifts of the lattice"},
    [P_SEED] = {.name = "seed", .type = PARAM_INT, .min = 0, .max = 9007199254740991.0, .def = 1,
                .help = "seed of Genz's difficulty and shift vectors and of the random numbers of "
                     "vegas and qmc"},
    [P_A] = {.name = "a", .type = PARAM_REAL, .min = -1e6, .max = 1e6,
             .help = "lower limit on every axis"},
    [P_B] = {.name = "b", .type = PARAM_REAL, .min = -1e6, .max = 1e6, .def = 1,
             .help = "upper limit on every axis"},
};
// clang-format on
