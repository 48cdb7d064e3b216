#!/usr/bin/env python3
"""GPU tests of problem longman with the user's own amplitude: the expression compiled by NVRTC
and linked by nvJitLink into longman's packed kernel for user amplitudes. 1/(1+x^2) with cos
for a batch of omega (true value (pi/2) e^{-omega}) within its estimates against GSL's QAWF
in double and float, the GPU agreeing with the CPU; e^{-lambda x} written out agrees with the
built-in kernels; every lanes split; the compiled kernel cached in the session (a second run
and a new parameter value compile nothing) with its compile and link times as figures.

Run from the repository root: `python3 tests/longman_user_gpu_test.py`. Without a usable GPU
every test is skipped, unless QUADX_REQUIRE_GPU=1, which makes that a failure."""
import unittest

import qxtest

GPU = qxtest.gpu_or_exit("longman_user_gpu_test")

BATCH = "M 60 lambda 0 omega 0.3:12 repeat 1 warmup 0"


def runs(cmds, timeout=600):
    """The run records of quadx --json -e 'use longman; CMDS' (which must succeed)."""
    rc, out, err = qxtest.json_commands("use longman; " + cmds, timeout=timeout)
    assert rc == 0, err
    return [o for o in out if o.get("type") == "run"]


@unittest.skipIf(GPU is None, "no usable GPU")
class LongmanUserGpuTest(unittest.TestCase):
    def test_known_value_batch(self):
        """1/(1+x^2) cos, 60 omegas: on the GPU in double and float no integral over its
        estimate (plus rounding) against QAWF; double agrees with the CPU's largest error to
        1e-13."""
        r = runs(f'set {BATCH} integrand "1/(1+x^2)" precision double; run cpu; run gpu; '
                 'set precision float; run gpu')
        self.assertEqual(len(r), 3)
        for x in r:
            what = (x["backend"], x["precision"])
            self.assertEqual(x["against"], "GSL QAWF", what)
            self.assertEqual(x["compared"], 60, what)
            self.assertEqual(x["error"]["over_bound"], 0, (what, x["error"]))
            self.assertLess(x["error"]["max_abs"], x["error"]["bound_max"], what)
        self.assertLess(abs(r[0]["error"]["max_abs"] - r[1]["error"]["max_abs"]), 1e-13)

    def test_exponential_matches_builtin(self):
        """exp(-lambda*x) with trig cos and sin on the GPU in double: its largest error
        against QAWF equals the built-in kernel's against the closed form to 1e-12, with
        method euler on both (auto is euler for an expression)."""
        for f in ("cos", "sin"):
            common = "set M 2000 lambda 0.05:0.5 omega 5:15 a 0.4 method euler precision double"
            b = runs(f"{common} integrand {f}; run gpu")[0]
            u = runs(f'{common} integrand "exp(-lambda*x)" trig {f}; run gpu')[0]
            self.assertLess(abs(b["error"]["max_abs"] - u["error"]["max_abs"]), 1e-12, f)
            self.assertEqual(u["error"]["over_bound"], 0, f)

    def test_lanes(self):
        """Every lanes split (1..32) gives the CPU's largest error to 1e-13 in double."""
        common = f'set {BATCH} integrand "1/(1+x^2)" N 12 g 13 precision double'
        cpu = runs(f"{common}; run cpu")[0]["error"]["max_abs"]
        for lanes in (1, 2, 4, 8, 16, 32):
            r = runs(f"{common} lanes {lanes}; run gpu")[0]
            self.assertLess(abs(r["error"]["max_abs"] - cpu), 1e-13, lanes)
            self.assertEqual(r["error"]["over_bound"], 0, lanes)

    def test_cache_and_compile_figures(self):
        """The first GPU run compiles and links (its times as figures), the second finds the
        kernel, a new value of a parameter compiles nothing and changes the values, and each
        precision is its own kernel."""
        r = runs('set param k 1; set M 1 lambda 0 omega 1.5 precision double repeat 1 '
                 'warmup 0 integrand "k/(k^2+x^2)"; run gpu; run gpu; set k 2; run gpu; '
                 'set precision float; run gpu')
        self.assertEqual([x["error"]["compile_cached"] for x in r], [0, 1, 1, 0])
        self.assertGreater(r[0]["error"]["compile_ms"], 0)
        self.assertGreater(r[0]["error"]["link_ms"], 0)
        print(f"\n  NVRTC {r[0]['error']['compile_ms']:.1f} ms, "
              f"nvJitLink {r[0]['error']['link_ms']:.1f} ms", end="")
        self.assertNotEqual(r[1]["value"], r[2]["value"])
        for x in r:
            self.assertLess(abs(x["value"] - x["exact"]), x["error"]["bound_max"] + 1e-6)


if __name__ == "__main__":
    unittest.main(verbosity=2)
