#!/usr/bin/env python3
"""GPU tests of the user's own integrand (problem cubature): the known integrals of
user_integrand_test.py on breadth and twophase, double and float, each within its estimate;
f4 and f5 written as expressions against the built-in kernels (same evaluations within a few
percent, values within the estimates); the session's cache (the second run compiles nothing);
dim 1 on the GPU; the GPU's value of an expression against the CPU's.

Run from the repository root: `python3 tests/user_gpu_test.py`. Without a usable GPU every
test is skipped, unless QUADX_REQUIRE_GPU=1, which makes that a failure."""
import math
import unittest

import qxtest
from user_integrand_test import KNOWN


quadx = qxtest.gpu_quadx


GPU = qxtest.gpu_or_exit("user_gpu_test")


@unittest.skipIf(GPU is None, "no usable GPU")
class UserGpuTest(unittest.TestCase):
    def runs(self, cmds):
        return qxtest.run_objects(self, "use cubature; set repeat 1 warmup 0; " + cmds)

    def test_known_values(self):
        """Every known integral on breadth and twophase, double at 1e-6 and float at 1e-4:
        converged, the true error within the estimate."""
        for expr, dim, bounds, exact in KNOWN:
            for variant in ("breadth", "twophase"):
                for prec, rel in (("double", "1e-6"), ("float", "1e-4")):
                    what = (expr, variant, prec)
                    r = self.runs(f'set dim {dim} integrand "{expr}" bounds {bounds} '
                                  f'exact {exact!r} variant {variant} precision {prec} '
                                  f'rel {rel}; run gpu')[0]
                    print(f"\n  {expr:22} {variant:8} {prec:6} {r['value']:.12g} "
                          f"± {r['error_estimate']:.2g} (true {r['true_error']:.2g})",
                          end="")
                    self.assertEqual(r["error"]["converged"], 1, what)
                    self.assertLessEqual(abs(r["value"] - exact), r["error_estimate"], what)

    def test_builtins_as_expressions(self):
        """f4 dim 8 at 1e-3 and f5 dims 5 and 8: the expression's run takes the built-in's
        evaluations within 5% and agrees within both estimates."""
        f4 = "sin(prod(i, asin(x[i])))"
        f5 = "sum(i, cos(10*x[i])) / (0.2*sin(10))"
        for name, expr, dim, rel in (("f4", f4, 8, "1e-3"), ("f5", f5, 5, "1e-6"),
                                     ("f5", f5, 8, "1e-7")):
            b, u = self.runs(f"set precision double dim {dim} rel {rel} integrand {name}; "
                             f'run gpu; set integrand "{expr}"; run gpu')
            nb, nu = b["error"]["evaluations"], u["error"]["evaluations"]
            print(f"\n  {name} dim {dim} {rel}: built-in {b['time_ms']['total']:.2f} ms "
                  f"{nb:.4g} evals, expression {u['time_ms']['total']:.2f} ms {nu:.4g} "
                  f"evals", end="")
            self.assertLessEqual(abs(nu - nb), 0.05 * nb, name)
            self.assertLessEqual(abs(b["value"] - u["value"]),
                                 b["error_estimate"] + u["error_estimate"], name)

    def test_builtins_to_the_last_bit(self):
        """Where the arithmetic is the built-in's — f4 as sin(prod(asin)) and f5 as the sum of
        cosines times the built-in's own constant 0.5/beta, on [0, 1]^d whose map is exact — the
        expression's value is the built-in's bit for bit: the same reduced sin, cos and asin."""
        f5 = "sum(i, cos(10*x[i])) * (0.5/-0.054402111088936981340)"
        for name, expr, dim, rel in (("f4", "sin(prod(i, asin(x[i])))", 8, "1e-3"),
                                     ("f5", f5, 5, "1e-6")):
            b, u = self.runs(f"set precision double dim {dim} rel {rel} integrand {name}; "
                             f'run gpu; set integrand "{expr}"; run gpu')
            self.assertEqual(u["error"]["evaluations"], b["error"]["evaluations"], name)
            self.assertEqual(u["value"].hex(), b["value"].hex(), name)

    def test_cache(self):
        """The first run builds the kernels (NVRTC, nvJitLink); the next compiles nothing
        and reports the same build times; a new parameter value needs no build either."""
        r = self.runs('set param k 2; set dim 3 integrand "exp(-k*sum(i, x[i]^2))" '
                      'precision double; run gpu; run gpu; set k 3; run gpu')
        self.assertEqual(len(r), 3)
        self.assertGreater(r[0]["error"]["compile_ms"], 0)
        self.assertGreater(r[0]["error"]["link_ms"], 0)
        for later in r[1:]:
            self.assertEqual(later["error"]["compile_cached"], 1)
            self.assertEqual(later["error"]["link_ms"], r[0]["error"]["link_ms"])
        self.assertNotAlmostEqual(r[1]["value"], r[2]["value"], places=6)
        want = (math.sqrt(math.pi / 3) / 2 * math.erf(math.sqrt(3))) ** 3
        self.assertLessEqual(abs(r[2]["value"] - want), r[2]["error_estimate"])

    def test_cpu_agrees(self):
        """The GPU's and the CPU's runs of one expression agree within both estimates."""
        r = self.runs('set dim 4 integrand "if(x < 0.5, 1, 2) * exp(-y*z) * cos(x4)" '
                      'precision double rel 1e-6 threads 4; run cpu; run gpu')
        self.assertEqual(len(r), 2)
        self.assertLessEqual(abs(r[0]["value"] - r[1]["value"]),
                             r[0]["error_estimate"] + r[1]["error_estimate"])

    def test_gaussian_over_r6(self):
        """exp(-|x|^2) over R^6 is pi^3: breadth in double at 1e-6 and in float at 1e-4
        converge within their estimates; twophase at 1e-6 need not converge, but its estimate
        covers its true error either way."""
        exact = math.pi ** 3
        r = self.runs('set maxeval 1e10 dim 6 integrand "exp(-sum(i, x[i]^2))" '
                      f'bounds -inf:inf exact {exact!r}; set precision double rel 1e-6; '
                      'run gpu; set variant twophase; run gpu; '
                      'set variant breadth precision float rel 1e-4; run gpu')
        self.assertEqual(len(r), 3)
        for run in r:
            what = (run["variant"], run["precision"])
            print(f"\n  R^6 {what}: {run['value']!r} ± {run['error_estimate']:.2g} "
                  f"(true {run['true_error']:.2g}) converged {run['error']['converged']}",
                  end="")
            self.assertLessEqual(abs(run["value"] - exact), run["error_estimate"], what)
        self.assertEqual(r[0]["error"]["converged"], 1)
        self.assertEqual(r[2]["error"]["converged"], 1)

    def test_box_from_a_and_b(self):
        """With no bounds set the box is [a, b]^dim: x1*x2 over [0, 2]^2 is 4 on breadth and
        twophase."""
        r = self.runs('set dim 2 integrand "x1*x2" a 0 b 2 exact 4 precision double '
                      'rel 1e-8; run gpu; set variant twophase; run gpu')
        self.assertEqual(len(r), 2)
        for run in r:
            self.assertLessEqual(abs(run["value"] - 4), run["error_estimate"], run["variant"])
            self.assertLess(abs(run["value"] - 4), 1e-6, run["variant"])

    def test_eval_on_the_gpu(self):
        """eval compiles the user's integrand for the GPU too: every backend and precision
        gives a value, the GPU's agree with the CPU's (double within 1e-15, float within
        1e-6 relative) and with the formula computed here."""
        p = qxtest.commands('use cubature; set param k 3; set dim 3 '
                            'integrand "exp(-x^2)*cos(k*y) + asin(z)/(1 + x*y)"; '
                            'eval 0.25 0.5 0.75', "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        got = {(o["backend"], o["precision"]): o["value"]
               for o in qxtest.json_lines(p.stdout) if o.get("type") == "eval"}
        self.assertEqual(len(got), 4, got)
        want = math.exp(-0.0625) * math.cos(1.5) + math.asin(0.75) / 1.125
        for prec, tol in (("double", 1e-15), ("float", 1e-6)):
            cpu, gpu = got[("cpu", prec)], got[("gpu", prec)]
            self.assertIsNotNone(gpu, prec)
            self.assertLessEqual(abs(gpu - cpu), tol * abs(want), prec)
            self.assertLessEqual(abs(gpu - want), 10 * tol * abs(want), prec)


if __name__ == "__main__":
    unittest.main()
