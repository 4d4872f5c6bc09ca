/* attn_math.c — exp, log, pow, sin, cos from IEEE double +, −, ×, ÷ alone.
 *
 * Written for attnviz (issue 22); see attn_math.h for the why and the bounds.
 * The methods are the textbook ones (Cody & Waite's range reduction with
 * split constants, Dekker's exact products, polynomials in the reduced
 * argument); the constants were computed with exact rational arithmetic
 * (π by Machin's formula, ln 2 by Σ 1/(k·2^k), both to 400 bits) and are
 * written in hexadecimal so that no decimal conversion can move a bit.
 *
 * Every step is an IEEE operation on doubles, rounded to nearest, in the
 * order written: no library call, no fused multiply-add (-ffp-contract=off),
 * no wider intermediate type (checked below). */
#include "attn_math.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "attn_math.c needs double arithmetic evaluated in double (FLT_EVAL_METHOD 0, e.g. SSE2, not x87)"
#endif

/* Rounds a double to an integer-valued double: adding 1.5·2^52 pushes every
 * fraction bit out of the significand (rounding to nearest, ties to even) for
 * |v| < 2^51; subtracting it again leaves the integer. */
#define SHIFTER 0x1.8p52

/* ln 2 = LN2_HI + LN2_LO, LN2_HI with 32 significant bits: k·LN2_HI is exact
 * for |k| < 2^21, so x − k·LN2_HI loses nothing to rounding. */
#define LN2_HI 0x1.62e42fee00000p-1
#define LN2_LO 0x1.a39ef35793c76p-33
#define LOG2E 0x1.71547652b82fep+0 /* 1/ln 2, only to pick k */
/* ln 2 = LN2_A + LN2_B to about 2^-150: LN2_A has 42 significant bits, so
 * e·LN2_A is exact for the binary exponents e of doubles (|e| < 2^11). */
#define LN2_A 0x1.62e42fefa3800p-1
#define LN2_B 0x1.ef35793c76730p-45
/* π/2 = PIO2_1 + PIO2_2 + PIO2_3 + PIO2_4 to about 2^-150. The first three
 * have 33 significant bits each, so k·PIO2_i is exact for k < 2^20. */
#define PIO2_1 0x1.921fb54400000p+0
#define PIO2_2 0x1.0b4611a600000p-34
#define PIO2_3 0x1.3198a2e000000p-69
#define PIO2_4 0x1.b839a252049c1p-104
#define TWO_OVER_PI 0x1.45f306dc9c883p-1 /* only to pick k */
#define SQRT2 0x1.6a09e667f3bcdp+0
#define TWO_THIRDS_HI 0x1.5555555555555p-1 /* 2/3 = HI + LO */
#define TWO_THIRDS_LO 0x1.5555555555555p-55

/* ---- bits and exact arithmetic ----------------------------------------- */

static uint64_t bits_of(double x) {
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static double from_bits(uint64_t u) {
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* 2^n for -1022 ≤ n ≤ 1023, by writing the exponent field. */
static double pow2i(int n) {
    return from_bits((uint64_t)(n + 1023) << 52);
}

/* a + b = *s + *e exactly (Knuth's TwoSum: no condition on a and b). */
static void two_sum(double a, double b, double *s, double *e) {
    double sum = a + b, bb = sum - a;
    *s = sum;
    *e = (a - (sum - bb)) + (b - bb);
}

/* a + b = *s + *e exactly when |a| ≥ |b| (or a = 0): three operations. */
static void fast_two_sum(double a, double b, double *s, double *e) {
    double sum = a + b;
    *s = sum;
    *e = b - (sum - a);
}

/* a·b = *p + *e exactly (Dekker): each factor is split into two halves of at
 * most 26 bits, whose four products are exact in a double. Needs |a|, |b| <
 * 2^996 (the split multiplies by 2^27 + 1). */
static void split(double a, double *hi, double *lo) {
    double c = 134217729.0 * a; // 2^27 + 1
    *hi = c - (c - a);
    *lo = a - *hi;
}

static void two_prod(double a, double b, double *p, double *e) {
    double ah, al, bh, bl;
    split(a, &ah, &al);
    split(b, &bh, &bl);
    *p = a * b;
    *e = ((ah * bh - *p) + ah * bl + al * bh) + al * bl;
}

/* ---- exp ----------------------------------------------------------------- */

/* e^(h + l) for finite h, |l| ≤ ulp(h): the argument of exp in attn_pow is
 * a double-double, so that the product y·log x keeps the bits that a single
 * double would round away (at y·log x = 700 those are 2^-43 — 200 ulp). */
static double exp_dd(double h, double l) {
    if (h > 710.0) return INFINITY; // e^710 > DBL_MAX
    if (h < -746.0) return 0.0;     // e^-746 < 2^-1076, half the least subnormal
    // 1. h + l = k·ln 2 + r, |r| ≤ ln2/2 (+ a little when k was rounded the other
    //    way): r_hi = h − k·LN2_HI is exact (Sterbenz), the rest is carried
    //    as rh + rl.
    double kd = (h * LOG2E + SHIFTER) - SHIFTER;
    int k = (int)kd;
    double rh, rl;
    two_sum(h - kd * LN2_HI, -kd * LN2_LO, &rh, &rl);
    rl += l;
    // 2. e^rh − 1 = rh + rh²·(1/2! + rh/3! + … + rh^11/13!): Taylor to rh^13;
    //    the first omitted term is < 5e-18 relative for |rh| ≤ 0.35. Keeping
    //    "− 1" apart makes the last step 1 + (a small number), whose rounding is
    //    the only one at the result's own scale.
    double q = 1.0 / 6227020800.0;
    q = q * rh + 1.0 / 479001600.0;
    q = q * rh + 1.0 / 39916800.0;
    q = q * rh + 1.0 / 3628800.0;
    q = q * rh + 1.0 / 362880.0;
    q = q * rh + 1.0 / 40320.0;
    q = q * rh + 1.0 / 5040.0;
    q = q * rh + 1.0 / 720.0;
    q = q * rh + 1.0 / 120.0;
    q = q * rh + 1.0 / 24.0;
    q = q * rh + 1.0 / 6.0;
    q = q * rh + 0.5;
    double em1 = rh + rh * rh * q;
    // e^(rh + rl) = e^rh·(1 + rl + …): rl·e^rh is added to the small part
    double p = 1.0 + (em1 + rl * (1.0 + em1));
    // 3. p·2^k, p in [0.70, 1.42]. 2^k is written into the exponent bits; where
    //    2^k is not a normal double it is applied in two factors, the first
    //    exact, so that a subnormal result is rounded once.
    if (k > 1023) return p * pow2i(1023) * 2.0;               // overflows to +inf when it must
    if (k < -1021) return p * pow2i(k + 1000) * pow2i(-1000); // subnormal or 0
    return p * pow2i(k);
}

double attn_exp(double x) {
    if (x != x) return x + x; // NaN in, NaN out
    return exp_dd(x, 0.0);    // ±inf fall into the overflow and underflow branches
}

/* ---- log ----------------------------------------------------------------- */

/* ln x = *hi + *lo to about 2^-64 relative, for finite x > 0.
 *   1. x = 2^e·m with m in [√½, √2): e·ln 2 is exact in e·LN2_A + e·LN2_B,
 *      and f = m − 1 is exact (Sterbenz).
 *   2. ln m = ln((1 + s)/(1 − s)) = 2·atanh s = 2s + 2s³/3 + 2s⁵/5 + …, with
 *      s = f/(2 + f), |s| ≤ 0.1716: the series converges by s² ≤ 0.0295 a
 *      term, and every term but 2s is below 1 % of the sum, so only 2s and
 *      2s³/3 need more than a double: s is found as sh + sl (one division,
 *      corrected by its exact residual), 2s³/3 as a double-double product. */
static void log_dd(double x, double *hi, double *lo) {
    int e = 0;
    if (x < 0x1p-1022) { // subnormal: scale into the normal range first
        x *= 0x1p54;
        e = -54;
    }
    uint64_t u = bits_of(x);
    e += (int)(u >> 52) - 1023;
    double m = from_bits((u & 0x000fffffffffffffull) | 0x3ff0000000000000ull); // [1, 2)
    if (m >= SQRT2) {
        m *= 0.5; // exact
        e += 1;
    }
    double f = m - 1.0;
    // s = f/(2 + f) = sh + sl: 2 + f = d + dl exactly; sl from the residual
    // f − sh·(d + dl), whose product sh·d is exact by two_prod
    double d, dl, sh, ph, pl;
    fast_two_sum(2.0, f, &d, &dl);
    sh = f / d;
    two_prod(sh, d, &ph, &pl);
    double sl = (((f - ph) - pl) - sh * dl) / d;
    // 2s³/3 = (2/3)·sh³ (double-double) + 2sh²·sl (first order in sl)
    double zh, zl, ch, cl, th, tl;
    two_prod(sh, sh, &zh, &zl);
    two_prod(zh, sh, &ch, &cl);
    cl += zl * sh;
    two_prod(ch, TWO_THIRDS_HI, &th, &tl);
    tl += cl * TWO_THIRDS_HI + ch * TWO_THIRDS_LO;
    // the rest, 2s⁵/5 + … + 2s^25/25: below 2^-12.5 of ln m, so a double is
    // plenty; the first omitted term is below 2^-60 of it
    double r = 2.0 / 25.0;
    r = r * zh + 2.0 / 23.0;
    r = r * zh + 2.0 / 21.0;
    r = r * zh + 2.0 / 19.0;
    r = r * zh + 2.0 / 17.0;
    r = r * zh + 2.0 / 15.0;
    r = r * zh + 2.0 / 13.0;
    r = r * zh + 2.0 / 11.0;
    r = r * zh + 2.0 / 9.0;
    r = r * zh + 2.0 / 7.0;
    r = r * zh + 2.0 / 5.0;
    double rest = ch * zh * r;
    // sum the big parts exactly, the small ones in a double
    double ed = (double)e, h1, l1, h2, l2;
    two_sum(ed * LN2_A, 2.0 * sh, &h1, &l1);
    two_sum(h1, th, &h2, &l2);
    double small = l1 + l2 + (ed * LN2_B + (2.0 * sl + (tl + (2.0 * zh * sl + rest))));
    two_sum(h2, small, hi, lo);
}

double attn_log(double x) {
    if (x != x) return x + x;
    if (x < 0.0) return NAN;
    if (x == 0.0) return -INFINITY;
    if (x == INFINITY) return x;
    double hi, lo;
    log_dd(x, &hi, &lo);
    return hi;
}

/* ---- pow ----------------------------------------------------------------- */

/* Whether y (finite) is an odd integer: ±1, ±3, … (all doubles ≥ 2^53 are even). */
static int is_odd_integer(double y) {
    double a = y < 0.0 ? -y : y;
    if (a >= 0x1p53) return 0;
    int64_t i = (int64_t)a;
    return (double)i == a && (i & 1);
}

static int is_integer(double y) {
    double a = y < 0.0 ? -y : y;
    return a >= 0x1p53 || (double)(int64_t)a == a;
}

/* x^y for finite x > 0 and finite y: e^(y·ln x) with ln x and the product
 * in double-double. */
static double pow_positive(double x, double y) {
    double lh, ll;
    log_dd(x, &lh, &ll);
    double t = y * lh; // clearly out of range: answer before two_prod could overflow
    if (t > 1000.0) return INFINITY;
    if (t < -1000.0) return 0.0;
    double ph, pl;
    two_prod(y, lh, &ph, &pl);
    pl += y * ll;
    fast_two_sum(ph, pl, &ph, &pl);
    return exp_dd(ph, pl);
}

double attn_pow(double x, double y) {
    if (y == 0.0 || x == 1.0) return 1.0;
    if (x != x || y != y) return x + y;
    double ax = x < 0.0 ? -x : x, ay = y < 0.0 ? -y : y;
    if (ay == INFINITY) { // |x| < 1 shrinks, |x| > 1 grows, |x| = 1 stays
        if (ax == 1.0) return 1.0;
        return (ax < 1.0) == (y < 0.0) ? INFINITY : 0.0;
    }
    int odd = is_odd_integer(y);
    if (x == 0.0 || ax == INFINITY) { // 0^y and inf^y: 0 or inf, sign from an odd y
        double mag = (x == 0.0) == (y < 0.0) ? INFINITY : 0.0;
        return (x < 0.0 || (x == 0.0 && 1.0 / x < 0.0)) && odd ? -mag : mag;
    }
    if (x < 0.0) {
        if (!is_integer(y)) return NAN;
        double r = pow_positive(ax, y);
        return odd ? -r : r;
    }
    return pow_positive(x, y);
}

/* ---- sin and cos ----------------------------------------------------------- */

/* x = k·π/2 + (*rh + *rl), |rh| ≤ π/4 (a little more when k was rounded the
 * other way); returns k mod 4. For 1 ≤ k < 2^20, x − k·PIO2_1 is exact
 * (Sterbenz) and so is each k·PIO2_i with i ≤ 3; two_sum keeps the rounding
 * error of each subtraction, so r is known to about 2^-106·|r| + 2^-130. The
 * closest a double |x| ≤ 2^20 comes to a multiple of π/2 is above 2^-61 (a
 * bound from the continued fraction of π/2), so r keeps full precision. */
static int reduce_pio2(double x, double *rh, double *rl) {
    double kd = (x * TWO_OVER_PI + SHIFTER) - SHIFTER;
    double s1, e1, s2, e2;
    two_sum(x - kd * PIO2_1, -kd * PIO2_2, &s1, &e1);
    two_sum(s1, -kd * PIO2_3, &s2, &e2);
    two_sum(s2, (e1 + e2) - kd * PIO2_4, rh, rl);
    return (int)((int64_t)kd & 3);
}

/* sin(rh + rl), |rh| ≤ 0.79, |rl| ≤ ulp(rh): Taylor to rh^17 (the first
 * omitted term is 1e-19 of the result), evaluated as rh + (small) so that the
 * last rounding is at the result's scale; rl enters as rl·cos rh. */
static double sin_kernel(double rh, double rl) {
    double z = rh * rh;
    double p = 1.0 / 355687428096000.0; // 1/17!
    p = p * z - 1.0 / 1307674368000.0;
    p = p * z + 1.0 / 6227020800.0;
    p = p * z - 1.0 / 39916800.0;
    p = p * z + 1.0 / 362880.0;
    p = p * z - 1.0 / 5040.0;
    p = p * z + 1.0 / 120.0;
    p = p * z - 1.0 / 6.0;
    return rh + (rh * (z * p) + rl * (1.0 - 0.5 * z));
}

/* cos(rh + rl), same range: 1 − z/2 + z²·(1/4! − z/6! + … + z^7/18!) with
 * z = rh² exact as zh + zl, and the rounding error of 1 − zh/2 recovered, so
 * that again only the last addition rounds at the result's scale; rl enters
 * as −rl·sin rh. */
static double cos_kernel(double rh, double rl) {
    double zh, zl;
    two_prod(rh, rh, &zh, &zl);
    double c = -1.0 / 6402373705728000.0; // −1/18!
    c = c * zh + 1.0 / 20922789888000.0;
    c = c * zh - 1.0 / 87178291200.0;
    c = c * zh + 1.0 / 479001600.0;
    c = c * zh - 1.0 / 3628800.0;
    c = c * zh + 1.0 / 40320.0;
    c = c * zh - 1.0 / 720.0;
    c = c * zh + 1.0 / 24.0;
    double hz = 0.5 * zh, w = 1.0 - hz;
    double corr = ((1.0 - w) - hz) - 0.5 * zl; // 1 − z/2 = w + corr
    return w + (corr + (zh * zh * c - rh * rl * (1.0 - zh / 6.0)));
}

/* sin (want_cos = 0) or cos (want_cos = 1) of x: the quadrant k picks the
 * kernel and the sign, since sin(r + kπ/2) cycles sin, cos, −sin, −cos. */
static double sin_or_cos(double x, int want_cos) {
    if (x != x) return x + x;
    double ax = x < 0.0 ? -x : x;
    if (ax > ATTN_TRIG_MAX) return NAN; // also ±inf
    // below 2^-27, x³/6 and x²/2 are under half an ulp: sin x = x (keeping −0's
    // sign, which the sum below would lose), cos x = 1
    if (ax < 0x1p-27) return want_cos ? 1.0 : x;
    double rh = x, rl = 0.0;
    int k = ax <= 0x1.921fb54442d18p-1 ? 0 : reduce_pio2(x, &rh, &rl); // π/4
    k = (k + want_cos) & 3;
    double v = (k & 1) ? cos_kernel(rh, rl) : sin_kernel(rh, rl);
    return (k & 2) ? -v : v;
}

double attn_sin(double x) {
    return sin_or_cos(x, 0);
}

double attn_cos(double x) {
    return sin_or_cos(x, 1);
}
