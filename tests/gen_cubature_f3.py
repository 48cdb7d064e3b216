#!/usr/bin/env python3
"""High-precision reference values of

    I_d = int_{[0,1]^d} sin( prod_{i=1}^d i*asin(x_i^i) ) dx ,   d = 1..D

using only mpmath (Debian python3-mpmath).

Method (density convolution in log space)
-----------------------------------------
With y_i = i*asin(x_i^i) (x_i uniform on [0,1]) the y_i are independent with density
    f_i(y) = sin(y/i)^(1/i-1) cos(y/i) / i^2      on (0, c_i],  c_i = i*pi/2.
In v = log y the density is  g_i(v) = f_i(e^v) e^v = (z/i) cos(z) sin(z)^(1/i-1), z = e^v/i,
supported on (-inf, W_i], W_i = log c_i.  Y = prod y_i, so log Y has density
    g_{1..d} = g_1 * g_2 * ... * g_d      (ordinary convolutions),
and   I_d = E[sin Y] = int g_{1..d}(w) sin(e^w) dw.
Every g_{1..k} is analytic on (-inf, T_k], T_k = sum_{j<=k} W_j (near the top it behaves like
(T_k-w)^(2k-1) * analytic; its nearest singularity is at T_k + log 2), and decays like
exp(w/k) for w -> -inf.  So each g_{1..k} is tabulated as a piecewise Chebyshev interpolant
(panels graded towards the top, adaptively bisected until the trailing Chebyshev coefficients
are below tol), and the next one is obtained by
    g_{1..k}(w) = int g_{1..k-1}(u) g_k(w-u) du ,
where the u-interval is cut at the panel breaks of both factors, so that the integrand is a
product of two polynomials on each piece and Gauss-Legendre with n+1 nodes is exact.  The cost
does not depend on the size of Y_max = prod c_i (which is 1.1e4 for d=6): only the very last
1-D integral is oscillatory.  It is split as
    A: w in [w_low, 0]  (y <= 1): Gauss-Legendre in w, non-oscillatory;  the part w < w_low is
       below exp(w_low) and is dropped;
    B: y in [1, Y_max]: h(y) = g(log y)/y is analytic in C minus (-inf,0] and |y| >= 2 Y_max,
       so panels [Y/2^(j+1), Y/2^j] and a Chebyshev interpolant of h on each are accurate;
       int p(y) sin(y) dy is then done exactly by repeated integration by parts (finite for a
       polynomial) on wide panels and by Gauss-Legendre on narrow ones.
The inner loops (Clenshaw evaluations of the interpolants, Gauss-Legendre sums) run in
fixed-point Python integers with P = 3.33*dps + 24 bits (all quantities are O(1) and only
absolute accuracy is needed); transcendental functions use mpmath.

The whole computation is done twice, at dps 20 and dps 30 with different Chebyshev degrees,
tolerances and cut-offs, in two processes.  The script prints both sets of values and exits
with status 1 if any I_d (d >= 2) differs by more than 1e-17 relatively (or if I_1 != 1/2).

Usage:  nice python3 tests/gen_cubature_f3.py [--dmax 8] [--check]   (about 2 min; 5 with --check)
        (--check adds independent checks: nested mp.quad for d=2,3 and the characteristic-function
         chain with Chebyshev-tabulated G_2, G_3 for d=4, all at dps 20)

tests/gen_cubature_ref.py imports compute_all and CONFIGS for the f3 rows of dims 4..8 of
src/problems/cubature/cubature_ref.h (compute_all reports its progress on stderr).
"""
import argparse
import bisect
import multiprocessing
import sys
import time

import mpmath
from mpmath import mp, mpf

# ----------------------------------------------------------------------------------------------
# fixed-point helpers (set by set_precision)
P = 0      # number of fractional bits


def set_precision(dps):
    """Set mpmath's working precision to dps digits and the fixed-point scale to match."""
    global P
    mp.dps = dps
    P = int(dps * 3.33) + 24


def to_fix(x):
    """Return the fixed-point integer round(x * 2^P) of an mpf."""
    return int(mpmath.nint(mp.ldexp(x, P)))


def from_fix(i):
    """Return the mpf value of a fixed-point integer."""
    return mp.ldexp(mpf(i), -P)


# ----------------------------------------------------------------------------------------------
def gauss_legendre(m):
    """Return (nodes, weights) of the m-point Gauss-Legendre rule on [-1,1] as mpf lists."""
    nodes, weights = [], []
    with mp.extradps(20):
        for i in range(m):
            x = mp.cos(mp.pi * (i + mpf(3) / 4) / (m + mpf(1) / 2))
            for _ in range(100):
                p0, p1 = mpf(1), x
                for k in range(2, m + 1):
                    p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
                dp = m * (x * p1 - p0) / (x * x - 1)
                dx = p1 / dp
                x -= dx
                if abs(dx) < mpf(10) ** (-mp.dps):
                    break
            p0, p1 = mpf(1), x
            for k in range(2, m + 1):
                p0, p1 = p1, ((2 * k - 1) * x * p1 - (k - 1) * p0) / k
            dp = m * (x * p1 - p0) / (x * x - 1)
            nodes.append(+x)
            weights.append(2 / ((1 - x * x) * dp * dp))
    return [+x for x in nodes], [+w for w in weights]


def cheb_points(n):
    """Return the n+1 Chebyshev points of the first kind cos(pi(j+1/2)/(n+1)) on [-1,1]."""
    return [mp.cos(mp.pi * (j + mpf(1) / 2) / (n + 1)) for j in range(n + 1)]


def cheb_coeffs(vals):
    """Return Chebyshev coefficients c_0..c_n of the interpolant through values at cheb_points."""
    n = len(vals) - 1
    coef = []
    for k in range(n + 1):
        s = mp.fsum(vals[j] * mp.cos(mp.pi * k * (j + mpf(1) / 2) / (n + 1)) for j in range(n + 1))
        coef.append(s * 2 / (n + 1))
    coef[0] /= 2
    return coef


def clenshaw_fix(coef, t):
    """Evaluate sum_k coef[k] T_k(t) in fixed point (coef and t are fixed-point integers)."""
    b1 = b2 = 0
    t2 = t << 1
    for k in range(len(coef) - 1, 0, -1):
        b1, b2 = ((t2 * b1) >> P) - b2 + coef[k], b1
    return ((t * b1) >> P) - b2 + coef[0]


def clenshaw_mp(coef, t):
    """Evaluate sum_k coef[k] T_k(t) for mpf coefficients and argument."""
    b1 = b2 = mpf(0)
    for k in range(len(coef) - 1, 0, -1):
        b1, b2 = 2 * t * b1 - b2 + coef[k], b1
    return t * b1 - b2 + coef[0]


# ----------------------------------------------------------------------------------------------
class ChebTable:
    """Piecewise Chebyshev interpolant (degree n per panel) of a function on [lo, hi].

    Panels start from `breaks` and are bisected until the three trailing coefficients of every
    panel are below `tol` (absolute).  Data are kept as fixed-point integers for fast evaluation.
    """

    def __init__(self, func_batch, breaks, n, tol, min_width=mpf('1e-3')):
        """Build the table; func_batch maps a list of mpf abscissae to a list of mpf values."""
        xs = cheb_points(n)
        todo = [(breaks[i], breaks[i + 1]) for i in range(len(breaks) - 1)]
        done = []
        self.max_tail = mpf(0)
        while todo:
            a, b = todo.pop()
            pts = [(a + b) / 2 + (b - a) / 2 * x for x in xs]
            coef = cheb_coeffs(func_batch(pts))
            tail = max(abs(c) for c in coef[-3:])
            if tail > tol and b - a > min_width:
                m = (a + b) / 2
                todo += [(a, m), (m, b)]
                continue
            self.max_tail = max(self.max_tail, tail)
            done.append((a, b, coef))
        done.sort(key=lambda p: p[0])
        self.lo, self.hi = done[0][0], done[-1][1]
        self.breaks = [p[0] for p in done] + [self.hi]
        self.bfix = [to_fix(x) for x in self.breaks]
        self.lof, self.hif = self.bfix[0], self.bfix[-1]
        self.coef = [[to_fix(c) for c in p[2]] for p in done]
        self.sumf = [self.bfix[i] + self.bfix[i + 1] for i in range(len(done))]
        self.invf = [to_fix(1 / (self.breaks[i + 1] - self.breaks[i])) for i in range(len(done))]

    def panel(self, xf):
        """Return the index of the panel containing the fixed-point abscissa xf."""
        i = bisect.bisect_right(self.bfix, xf) - 1
        return min(max(i, 0), len(self.coef) - 1)

    def eval_fix(self, xf, i=None):
        """Evaluate at fixed-point xf (panel i if known); returns a fixed-point integer."""
        if i is None:
            i = self.panel(xf)
        t = ((2 * xf - self.sumf[i]) * self.invf[i]) >> P
        return clenshaw_fix(self.coef[i], t)

    def __call__(self, x):
        """Evaluate at an mpf abscissa (0 outside [lo, hi]); returns an mpf."""
        if x < self.lo or x > self.hi:
            return mpf(0)
        return from_fix(self.eval_fix(to_fix(x)))


def graded_breaks(lo, top, h0, ratio, hmax):
    """Breakpoints from lo to top with widths h0, h0*ratio, ... (capped at hmax) from the top."""
    br = [top]
    h = h0
    while br[-1] - h > lo + h / 4:
        br.append(br[-1] - h)
        h = min(h * ratio, hmax)
    br.append(lo)
    return br[::-1]


# ----------------------------------------------------------------------------------------------
def g_elem(k, v):
    """Density of log(y_k), y_k = k*asin(x^k): (z/k) cos z sin(z)^(1/k-1), z = e^v/k."""
    z = mp.exp(v) / k
    if k == 1:
        return z * mp.cos(z)
    return z / k * mp.cos(z) * mp.exp((mpf(1) / k - 1) * mp.log(mp.sin(z)))


def convolve_at(wf, F, G, gl_fix):
    """Return (fixed point) int F(u) G(w-u) du for tables F, G at fixed-point w, exactly for
    the interpolants: the u-range is cut at all panel breaks of F and of w - G."""
    a = max(F.lof, wf - G.hif)
    b = min(F.hif, wf - G.lof)
    if a >= b:
        return 0
    cuts = {a, b}
    for x in F.bfix:
        if a < x < b:
            cuts.add(x)
    for x in G.bfix:
        y = wf - x
        if a < y < b:
            cuts.add(y)
    cuts = sorted(cuts)
    total = 0
    for p, q in zip(cuts[:-1], cuts[1:]):
        mid = (p + q) >> 1
        half = (q - p) >> 1
        if half == 0:
            continue
        i = F.panel(mid)
        j = G.panel(wf - mid)
        cf, sf, inf_ = F.coef[i], F.sumf[i], F.invf[i]
        cg, sg, ing = G.coef[j], G.sumf[j], G.invf[j]
        s = 0
        for xi, wi in gl_fix:
            u = mid + ((half * xi) >> P)
            fu = clenshaw_fix(cf, ((2 * u - sf) * inf_) >> P)
            gv = clenshaw_fix(cg, ((2 * (wf - u) - sg) * ing) >> P)
            s += wi * ((fu * gv) >> P)
        total += ((s >> P) * half) >> P
    return total


# ----------------------------------------------------------------------------------------------
def ibp_oscillatory(coef, omega):
    """Return int_{-1}^{1} p(u) e^{i omega u} du exactly for p = sum coef[k] T_k, by repeated
    integration by parts: sum_k (-1)^k [p^(k)(1) e^{i w} - p^(k)(-1) e^{-i w}] / (i w)^(k+1)."""
    n = len(coef) - 1
    # T_j^(k)(1) = prod_{l<k} (j^2 - l^2)/(2l+1);  T_j^(k)(-1) = (-1)^(j+k) T_j^(k)(1)
    tk = [mpf(1)] * (n + 1)
    e_p, e_m = mp.expj(omega), mp.expj(-omega)
    iw = mpmath.mpc(0, omega)
    total = mpmath.mpc(0)
    fac = 1 / iw
    for k in range(n + 1):
        dp = mp.fsum(coef[j] * tk[j] for j in range(k, n + 1))
        dm = mp.fsum(coef[j] * tk[j] * (-1) ** (j + k) for j in range(k, n + 1))
        total += (-1) ** k * (dp * e_p - dm * e_m) * fac
        fac /= iw
        for j in range(n + 1):
            tk[j] = tk[j] * (j * j - k * k) / (2 * k + 1)
    return total


def final_integral(Gt, top, cfg, plain_gl=False):
    """Return (int g(w) sin(e^w) dw, largest trailing y-Chebyshev coefficient) for the tabulated
    density Gt of log Y (top = log Y_max).  plain_gl=True: part B by plain Gauss-Legendre on
    pieces of length <= 8 instead (independent check of the interpolation + IBP route)."""
    w_low = cfg['w_low']
    # Part A: w in [w_low, 0], panels of Gt cut to width <= 2, Gauss-Legendre (non-oscillatory)
    xs, ws = cfg['glA']
    br = sorted({x for x in Gt.breaks if w_low < x < 0} | {mpf(w_low), mpf(0)})
    part_a = mpf(0)
    for a, b in zip(br[:-1], br[1:]):
        m = int(mp.ceil((b - a) / 2))
        for s in range(m):
            p, q = a + (b - a) * s / m, a + (b - a) * (s + 1) / m
            c, h = (p + q) / 2, (q - p) / 2
            part_a += h * mp.fsum(wi * Gt(c + h * xi) * mp.sin(mp.exp(c + h * xi))
                                  for xi, wi in zip(xs, ws))
    # Part B: y in [1, Y_max], panels [Y/2^(j+1), Y/2^j], Chebyshev interpolant of h(y)=g(log y)/y
    ymax = mp.exp(top)
    ybr = [ymax]
    while ybr[-1] / 2 > 2:
        ybr.append(ybr[-1] / 2)
    ybr.append(mpf(1))
    ybr = ybr[::-1]
    ny = cfg['ny']
    xs_c = cheb_points(ny)
    part_b = mpf(0)
    max_tail = mpf(0)
    with mp.extradps(10):
        for a, b in zip(ybr[:-1], ybr[1:]):
            c, h = (a + b) / 2, (b - a) / 2
            if plain_gl:
                m = int(mp.ceil(h / 4))
                gx, gw = cfg['glA']
                for s in range(m):
                    cs = a + (2 * s + 1) * h / m
                    hs = h / m
                    part_b += hs * mp.fsum(wi * Gt(mp.log(cs + hs * xi)) / (cs + hs * xi)
                                           * mp.sin(cs + hs * xi) for xi, wi in zip(gx, gw))
            elif h <= cfg['omega0']:
                m = ny + int(h) + 10
                gx, gw = gauss_legendre(m)
                part_b += h * mp.fsum(wi * Gt(mp.log(c + h * xi)) / (c + h * xi) * mp.sin(c + h * xi)
                                      for xi, wi in zip(gx, gw))
            else:
                coef = cheb_coeffs([Gt(mp.log(c + h * x)) / (c + h * x) for x in xs_c])
                max_tail = max(max_tail, max(abs(cc) for cc in coef[-3:]) * h)
                part_b += h * (mp.expj(c) * ibp_oscillatory(coef, h)).imag
    return part_a + part_b, max_tail


# ----------------------------------------------------------------------------------------------
def compute_all(cfg):
    """Compute I_1..I_dmax with the parameters in cfg; returns a dict of results and timings."""
    set_precision(cfg['dps'])
    t0 = time.time()
    dmax, n, tol = cfg['dmax'], cfg['n'], mpf(cfg['tol'])
    w_low = mpf(cfg['w_low'])
    cfg['glA'] = gauss_legendre(n + 20)
    gx, gw = gauss_legendre(n + 1)
    gl_fix = [(to_fix(x), to_fix(w)) for x, w in zip(gx, gw)]
    W = [None] + [mp.log(k * mp.pi / 2) for k in range(1, dmax + 1)]
    T = [mpf(0)] * (dmax + 1)
    for k in range(1, dmax + 1):
        T[k] = T[k - 1] + W[k]
    # lower ends: L_dmax = w_low, L_{k-1} = L_k - W_k
    L = [None] * (dmax + 1)
    L[dmax] = w_low
    for k in range(dmax, 1, -1):
        L[k - 1] = L[k] - W[k]
    gb = cfg['grading']
    res = {'dps': cfg['dps'], 'n': n, 'tol': cfg['tol'], 'w_low': cfg['w_low'], 'I': {},
           'time': {}, 'tails': {}, 'panels': {}, 'gl_check': {}}
    conv = None
    for k in range(1, dmax + 1):
        tk = time.time()
        lo_e = L[k] - T[k - 1] if k > 1 else L[1]
        Ek = ChebTable(lambda vs, k=k: [g_elem(k, v) for v in vs],
                       graded_breaks(lo_e, W[k], *gb), n, tol)
        if k == 1:
            conv = Ek
        else:
            prev = conv
            conv = ChebTable(lambda ws: [from_fix(convolve_at(to_fix(w), prev, Ek, gl_fix))
                                         for w in ws],
                             graded_breaks(L[k], T[k], *gb), n, tol)
        val, tail_b = final_integral(conv, T[k], cfg)
        res['I'][k] = val
        if k <= cfg.get('gl_check_dmax', 0):
            val_gl, _ = final_integral(conv, T[k], cfg, plain_gl=True)
            res['gl_check'][k] = mp.nstr(abs(val_gl - val) / abs(val), 3)
        res['time'][k] = time.time() - tk
        res['tails'][k] = (mp.nstr(Ek.max_tail, 3), mp.nstr(conv.max_tail, 3), mp.nstr(tail_b, 3))
        res['panels'][k] = len(conv.coef)
        res['converged'] = (res.get('converged', True)
                            and max(Ek.max_tail, conv.max_tail, tail_b) <= tol)
        print('  [dps %d] d=%d  I=%s  (%.1f s, %d panels, tails %s)'
              % (cfg['dps'], k, mp.nstr(val, cfg['dps']), res['time'][k], len(conv.coef),
                 res['tails'][k]), file=sys.stderr, flush=True)
    res['total_time'] = time.time() - t0
    res['I'] = {k: mp.nstr(v, cfg['dps']) for k, v in res['I'].items()}
    return res


CONFIGS = [
    dict(dps=20, n=30, tol='1e-19', w_low=-48, ny=40, omega0=80, grading=(mpf('0.4'), 1.6, 6),
         gl_check_dmax=7),
    dict(dps=30, n=44, tol='1e-29', w_low=-72, ny=56, omega0=110, grading=(mpf('0.3'), 1.5, 5)),
]


def g1_closed(t):
    """G_1(t) = int_0^1 exp(i t asin x) dx = (e^{i pi t/2} - i t)/(1 - t^2), evaluated with 30
    extra digits against the cancellation near t = 1 (exact limit pi/4 + i/2 at t = 1)."""
    if t == 1:
        return mpmath.mpc(mp.pi / 4, mpf(1) / 2)
    with mp.extradps(30):
        v = (mp.expj(mp.pi * t / 2) - mpmath.mpc(0, t)) / (1 - t * t)
    return +v


def s_quad(fun, k, phase, gl):
    """int_0^1 fun(k*asin(x^k)) dx for a function oscillating with total phase <= `phase` on
    the range.  With x^k = sin(th), th = s^k the integrand becomes the analytic
    fun(k s^k) (sin(s^k)/s^k)^(1/k-1) cos(s^k),  s in [0, (pi/2)^(1/k)],
    done by the Gauss-Legendre rule gl on uniform pieces of phase <= ~6."""
    smax = (mp.pi / 2) ** (mpf(1) / k)
    m = int(phase * k / 6) + 2
    xs, ws = gl
    h = smax / (2 * m)
    total = 0
    for j in range(m):
        c = smax * (2 * j + 1) / (2 * m)
        for x, w in zip(xs, ws):
            th = (c + h * x) ** k
            total += w * fun(k * th) * (mp.sin(th) / th) ** (mpf(1) / k - 1) * mp.cos(th)
    return total * h


def chain_check4():
    """Independent value of I_4 (dps 20) by the characteristic-function chain:
    G_k(t) = int_0^1 G_{k-1}(t k asin(x^k)) dx with G_1 closed form; G_2 and G_3 are tabulated
    as Chebyshev interpolants on [0, R_k] (R_2 = 3*4*(pi/2)^2, R_3 = 4*pi/2: the ranges of t), degree set by the
    bandwidth of G_k (G_k oscillates at most like exp(i t Ymax_k)); I_4 = Im G_4(1)."""
    set_precision(20)
    t0 = time.time()
    gl = gauss_legendre(30)

    def tabulate(G, k, T, bw_in):
        """Chebyshev interpolant on [0,T] of t -> int_0^1 G(t k asin(x^k)) dx, where G
        oscillates at most like exp(i bw_in s); the result has bandwidth bw_in*k*pi/2."""
        bw_out = bw_in * k * mp.pi / 2
        n = int(T * bw_out / 2 * 1.3) + 40
        xs = cheb_points(n)
        vals = [s_quad(lambda y: G(T / 2 * (1 + x) * y), k, T / 2 * (1 + x) * bw_out, gl)
                for x in xs]
        re = cheb_coeffs([v.real for v in vals])
        im = cheb_coeffs([v.imag for v in vals])
        return lambda t: mpmath.mpc(clenshaw_mp(re, 2 * t / T - 1), clenshaw_mp(im, 2 * t / T - 1))

    half_pi = mp.pi / 2
    G2 = tabulate(g1_closed, 2, 3 * 4 * half_pi ** 2, half_pi)
    G3 = tabulate(G2, 3, 4 * half_pi, 2 * half_pi ** 2)
    i4 = s_quad(G3, 4, 24 * half_pi ** 4, gl).imag
    return i4, time.time() - t0


def nested_check():
    """Independent check at dps 20: I_2 as a plain 2-D mp.quad, and I_2, I_3 with the x_1
    integral in closed form (G_1(t) = int_0^1 exp(i t asin x) dx = (e^{i pi t/2} - i t)/(1-t^2))
    and the remaining 1-D / 2-D integrals by nested mp.quad."""
    set_precision(20)

    out = {}
    t0 = time.time()
    out['I2_quad2d'] = mp.quad(lambda x1, x2: mp.sin(mp.asin(x1) * 2 * mp.asin(x2 ** 2)),
                               [0, 1], [0, 1])
    out['I2_closed+quad'] = mp.quad(lambda x2: g1_closed(2 * mp.asin(x2 ** 2)).imag, [0, 1])
    out['I3_closed+quad2d'] = mp.quad(
        lambda x2, x3: g1_closed(2 * mp.asin(x2 ** 2) * 3 * mp.asin(x3 ** 3)).imag,
        [0, mpf(1) / 2, 1], [0, mpf(1) / 2, 1])
    out['time'] = time.time() - t0
    return out


def main():
    """Run both precisions in parallel, print the values and compare them."""
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--dmax', type=int, default=8)
    ap.add_argument('--check', action='store_true',
                    help='also independent checks: nested mp.quad (d=2,3), chain method (d=4)')
    args = ap.parse_args()
    cfgs = [dict(c, dmax=args.dmax) for c in CONFIGS]
    t0 = time.time()
    with multiprocessing.Pool(2) as pool:
        jobs = [pool.apply_async(compute_all, (c,)) for c in cfgs]
        chk = pool.apply_async(nested_check) if args.check else None
        chain = pool.apply_async(chain_check4) if args.check and args.dmax >= 4 else None
        r20, r30 = [j.get() for j in jobs]
        chk = chk.get() if chk else None
        chain = chain.get() if chain else None
    mp.dps = 40
    ok = True
    print('\nI_d = int_[0,1]^d sin(prod_i i*asin(x_i^i)) dx')
    print('%2s  %-34s %-34s %9s' % ('d', 'dps=20', 'dps=30', 'rel.diff'))
    for d in range(1, args.dmax + 1):
        a, b = mpf(r20['I'][d]), mpf(r30['I'][d])
        rel = abs(a - b) / abs(b)
        good = rel < mpf('1e-17')
        if d == 1:
            good = good and abs(b - mpf(1) / 2) < mpf('1e-25')
        ok = ok and good
        print('%2d  %-34s %-34s %9s %s' % (d, r20['I'][d], r30['I'][d], mp.nstr(rel, 2),
                                          '' if good else '  <-- DISAGREE'))
    for r in (r20, r30):
        if not r['converged']:
            ok = False
            print('dps=%d: some Chebyshev panel did not reach tol  <-- NOT CONVERGED' % r['dps'])
        print('dps=%d: n=%d tol=%s w_low=%s total %.1f s; per level %s' % (
            r['dps'], r['n'], r['tol'], r['w_low'], r['total_time'],
            ', '.join('d%d %.1fs' % (k, v) for k, v in r['time'].items())))
        print('   trailing Chebyshev coefficients (elem, conv, final y-panels):', r['tails'])
        if r['gl_check']:
            print('   part B by plain Gauss-Legendre instead of interpolation+IBP, rel. diff'
                  ' (0.0 = identical at this dps):',
                  r['gl_check'])
            if any(mpf(v) > mpf('1e-15') for v in r['gl_check'].values()):
                ok = False
                print('   the plain Gauss-Legendre part B differs  <-- DISAGREE')
    if chk:
        print('\nindependent nested mp.quad check (dps 20, %.1f s):' % chk['time'])
        for key in ('I2_quad2d', 'I2_closed+quad', 'I3_closed+quad2d'):
            d = 2 if key.startswith('I2') else 3
            ref = mpf(r30['I'][d])
            rel = abs(chk[key] - ref) / abs(ref)
            good = rel < mpf('1e-14')
            ok = ok and good
            print('  %-18s %s   rel.diff to dps=30 value %s%s' % (
                key, mp.nstr(chk[key], 20), mp.nstr(rel, 2), '' if good else '  <-- DISAGREE'))
    if chain:
        ref = mpf(r30['I'][4])
        rel = abs(chain[0] - ref) / abs(ref)
        good = rel < mpf('1e-14')
        ok = ok and good
        print('  %-18s %s   rel.diff to dps=30 value %s%s   (%.1f s)' % (
            'I4_chain', mp.nstr(chain[0], 20), mp.nstr(rel, 2), '' if good else '  <-- DISAGREE',
            chain[1]))
    print('\nwall time %.1f s; %s' % (time.time() - t0, 'OK' if ok else 'FAILED'))
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
