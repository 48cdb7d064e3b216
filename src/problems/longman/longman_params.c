/* longman_params.c - problem longman's parameters: what `set` accepts for each, its default
 * and its help, and the arguments of eval. */
#include "longman_params.h"

#include "longman_math.h"

#include <stddef.h>

/* The smallest omega: the last zero, (N + 1.5) pi / omega, and the values, up to 1 / omega,
 * stay far inside the float range (x_{N+1} <= 3.3e9 at N = 1024). */
#define LM_OMEGA_MIN 1e-6

static const char *const spread_names[] = {"grid", "random", NULL};
const char *const longman_integrand_names[] = {"cos", "sin", "j0", NULL};
static const char *const trig_names[] = {"cos", "sin", "j0", NULL};
static const char *const method_names[] = {"euler", "direct", "auto", NULL};
static const char *const math_names[] = {"fast", "precise", NULL};

// clang-format off
const struct param_def longman_params_def[P_COUNT] = {
    [P_M] = {.name = "M", .type = PARAM_INT, .min = 1, .max = 1e9, .def = 50000,
             .help = "number of integrals"},
    [P_N] = {.name = "N", .type = PARAM_INT, .min = 2, .max = LM_NMAX, .def = 16,
             .help = "half-cycle areas V_0..V_{N-1} after the first part"},
    [P_G] = {.name = "g", .type = PARAM_INT, .min = 1, .max = LM_GMAX, .def = 10,
             .help = "Gauss-Legendre order per area"},
    [P_LAMBDA] = {.name = "lambda", .type = PARAM_RANGE, .min = 0, .max = 1e6, .def = 0.05,
                  .def_hi = 0.5, .help = "decay rates lambda, spread over the integrals"},
    [P_OMEGA] = {.name = "omega", .type = PARAM_RANGE, .min = LM_OMEGA_MIN, .max = 1e6, .def = 5,
                 .def_hi = 15, .help = "frequencies omega, spread over the integrals"},
    [P_SPREAD] = {.name = "spread", .type = PARAM_ENUM, .def = LM_GRID, .choices = spread_names,
                  .help = "grid: (lambda, omega) on a grid; random: uniform from seed"},
    [P_SEED] = {.name = "seed", .type = PARAM_INT, .min = 0, .max = 9007199254740991.0, .def = 1,
                .help = "seed of spread random"},
    [P_A] = {.name = "a", .type = PARAM_REAL, .min = -1e6, .max = 1e6, .def = 0,
             .help = "lower limit of the integrals"},
    [P_INTEGRAND] = {.name = "integrand", .type = PARAM_EXPR, .def = LM_COS,
                     .choices = longman_integrand_names,
                     .help = "e^{-lambda x} times cos(omega x), sin(omega x) or J0(omega x); or an "
                             "expression, the amplitude g(x) in x and lambda, times trig(omega x)"},
    [P_TRIG] = {.name = "trig", .type = PARAM_ENUM, .def = LM_COS, .choices = trig_names,
                .help = "the oscillator of an expression amplitude: cos, sin or J0 of omega x"},
    [P_METHOD] = {.name = "method", .type = PARAM_ENUM, .def = LM_AUTO, .choices = method_names,
                  .help = "euler transform, direct partial sum, or auto (euler when q > 1/3)"},
    [P_MATH] = {.name = "math", .type = PARAM_ENUM, .def = LM_PRECISE, .choices = math_names,
                .help = "GPU float: fast intrinsics (__expf, __cosf) or precise functions"},
    [P_LANES] = {.name = "lanes", .type = PARAM_INT, .min = 0, .max = 32, .def = 0,
                 .help = "GPU packed: lanes per integral, 1 2 4 8 16 32, or 0 = chosen for M"},
};

const struct param_def longman_eval_args[LONGMAN_NEVAL_ARGS] = {
    {.name = "LAMBDA", .type = PARAM_REAL, .min = 0, .max = 1e6, .def = 0,
     .help = "decay rate lambda >= 0"},
    {.name = "OMEGA", .type = PARAM_REAL, .min = LM_OMEGA_MIN, .max = 1e6, .def = 0,
     .help = "frequency omega"},
};
// clang-format on
