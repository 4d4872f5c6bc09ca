/* attn_math.h — exp, log, pow, sin and cos computed by attnviz itself.
 *
 * Why: the C library's exp, log, pow, sin and cos differ in their last bits
 * between libraries (glibc, musl, emscripten's) and, within glibc, between
 * CPUs (it picks FMA or non-FMA code at run time). Training runs these
 * functions hundreds of thousands of times and every step feeds the next, so
 * one differing bit becomes a different model file (issue 22). These
 * functions use only IEEE-754 double +, −, ×, ÷ (each correctly rounded, the
 * same everywhere), comparisons and integer operations on the bits, so they
 * return the same double on every C library and CPU — provided the compiler
 * neither fuses a multiply and an add (CMakeLists.txt passes
 * -ffp-contract=off) nor evaluates in a wider type (attn_math.c refuses to
 * compile unless FLT_EVAL_METHOD is 0).
 *
 * Accuracy, in ulp of the exact result: the bounds below are what
 * tests/test_math.c asserts against the C library's long double functions
 * over millions of arguments each; the maxima it measured when written were
 * exp 0.94, log 0.50, pow 1.09 (|y·log x| ≤ 700), sin and cos 0.78.
 *   attn_exp   ≤ 1 ulp for every finite x (subnormal results: ≤ 1 ulp of the
 *              subnormal spacing). x > 709.79 gives +inf, x < -745.14 gives 0,
 *              exp(-inf) = 0 exactly (the softmax's masked entries rely on it),
 *              exp(+inf) = +inf.
 *   attn_log   ≤ 1 ulp for every finite x > 0 (subnormals included);
 *              log(0) = -inf, log(x < 0) = NaN, log(+inf) = +inf.
 *   attn_pow   exp(y·log x) with log x carried in double-double and y·log x
 *              as a double-double product: ≤ 1.5 ulp while |y·log x| ≤ 64
 *              (10000^(-2i/d): |y·log x| ≤ 9.3; AdamW's β^t: |t·log β| stays
 *              below 64 for β = 0.9 until t = 607, for β = 0.999 until
 *              t = 63 968), and ≤ 1.5 + |y·log x|·2^-59 ulp above.
 *              Specials as C99 Annex F: pow(x, ±0) = 1, pow(1, y) = 1,
 *              pow(±0, y<0) = +inf, pow(x<0, non-integer y) = NaN, pow of a
 *              negative x and an integer y takes the sign of (-1)^y.
 *   attn_sin,  ≤ 1 ulp for |x| ≤ ATTN_TRIG_MAX = 2^20 (1 048 576): positions
 *   attn_cos   reach 4096 (and a rotary encoding 4096 + 256) with frequencies
 *              ≤ 1, far inside. Range reduction by π/2 in four exact parts is
 *              exact enough there for the closest approach of a double to a
 *              multiple of π/2 (≥ 2^-61). Beyond ATTN_TRIG_MAX, and for ±inf,
 *              the result is NaN: a silent loss of accuracy would be worse than
 *              a visible refusal, and nothing in attnviz gets there.
 * NaN arguments give NaN in every function (except pow(NaN, 0) = 1). */
#ifndef ATTN_MATH_H
#define ATTN_MATH_H

#define ATTN_TRIG_MAX 1048576.0 /* 2^20: the largest |x| attn_sin/attn_cos accept */

/* e^x. */
double attn_exp(double x);
/* The natural logarithm of x. */
double attn_log(double x);
/* x^y. */
double attn_pow(double x, double y);
/* sin x, x in radians; NaN for |x| > ATTN_TRIG_MAX. */
double attn_sin(double x);
/* cos x, x in radians; NaN for |x| > ATTN_TRIG_MAX. */
double attn_cos(double x);

#endif
