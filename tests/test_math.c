/* test_math.c — attn_exp, attn_log, attn_pow, attn_sin, attn_cos (issue 22)
 * against the C library's long double functions (64-bit significands on
 * x86-64: their own error is about 1/1000 ulp of a double) over millions of
 * arguments, the special values, monotonicity, round trips, and a checksum of
 * their bits that must be the same on every platform. */
#include <float.h>
#include <stdlib.h>

#include "test_common.h"
#include "attn_math.h"

/* The header's bounds, in ulp of the exact result. */
#define EXP_BOUND 1.0
#define LOG_BOUND 1.0
#define POW_BOUND 1.5 /* while |y·log x| ≤ 64 */
#define TRIG_BOUND 1.0

#if LDBL_MANT_DIG >= 64
#define REF_SLACK 0.0 /* the long double reference is exact enough */
#else
#define REF_SLACK 0.6 /* long double is double here: the reference itself may be 0.52 ulp off */
#endif

/* ---- helpers ---- */

static uint64_t rng_state;

static uint64_t next_u64(void) { // splitmix64
    uint64_t x = (rng_state += 0x9E3779B97F4A7C15ull);
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

static double uniform(double lo, double hi) {
    double u = (double)(next_u64() >> 11) * 0x1p-53;
    return lo + (hi - lo) * u;
}

/* A positive double with uniformly random bits: every binade equally likely. */
static double random_positive(void) {
    for (;;) {
        uint64_t b = next_u64() & 0x7fffffffffffffffull;
        double x;
        memcpy(&x, &b, sizeof x);
        if (x > 0.0 && x <= DBL_MAX) return x;
    }
}

/* |got − ref| in units of the spacing of doubles at ref. */
static double ulp_error(double got, long double ref) {
    if (isinf(ref) || isinf(got)) return (double)got == (double)ref ? 0.0 : INFINITY;
    int e;
    frexpl(ref, &e); // |ref| in [2^(e-1), 2^e): doubles there are 2^(e-53) apart
    if (e - 53 < -1074) e = -1074 + 53;
    long double ulp = ldexpl(1.0L, e - 53);
    return (double)(fabsl((long double)got - ref) / ulp);
}

typedef struct {
    double max_err, worst_x, worst_y;
    long count;
} err_stats;

static void record(err_stats *s, double err, double x, double y) {
    s->count++;
    if (err > s->max_err || isnan(err)) {
        s->max_err = isnan(err) ? INFINITY : err;
        s->worst_x = x;
        s->worst_y = y;
    }
}

static void report_and_check(const char *what, const err_stats *s, double bound) {
    printf("  %-44s %9ld points, max error %.3f ulp (at %.17g, %.17g)\n", what, s->count, s->max_err,
           s->worst_x, s->worst_y);
    if (!(s->max_err <= bound + REF_SLACK))
        fail_msg("%s: %.3f ulp at x = %a (y = %a), bound %.1f", what, s->max_err, s->worst_x, s->worst_y, bound);
}

/* ---- exp ---- */

static void check_exp_at(err_stats *s, double x) {
    record(s, ulp_error(attn_exp(x), expl((long double)x)), x, 0.0);
}

static void test_exp_accuracy(void **state) {
    (void)state;
    rng_state = 1;
    err_stats all = {0}, small = {0}, sub = {0};
    for (int i = 0; i < 2000000; i++) check_exp_at(&all, uniform(-708.0, 709.78));
    for (int i = 0; i < 1000000; i++) check_exp_at(&small, uniform(-1.0, 1.0));
    for (int i = 0; i < 300000; i++) check_exp_at(&small, ldexp(uniform(-1.0, 1.0), -(int)(next_u64() % 60)));
    for (int i = 0; i < 300000; i++) check_exp_at(&sub, uniform(-745.13, -708.0)); // subnormal results
    for (int k = -1074; k <= 1023; k++) {                                          // exact multiples of ln 2 and their neighbours
        double x = (double)(k * 0.69314718055994530942L);
        check_exp_at(&all, x);
        check_exp_at(&all, nextafter(x, 0.0));
        check_exp_at(&all, nextafter(x, INFINITY));
    }
    check_exp_at(&all, 709.782712893384); // the largest finite result
    report_and_check("exp on [-708, 709.78]", &all, EXP_BOUND);
    report_and_check("exp on [-1, 1] and tiny |x|", &small, EXP_BOUND);
    report_and_check("exp with subnormal results", &sub, EXP_BOUND);
}

static void test_exp_specials(void **state) {
    (void)state;
    assert_true(attn_exp(-INFINITY) == 0.0 && !signbit(attn_exp(-INFINITY)));
    assert_true(attn_exp(INFINITY) == INFINITY);
    assert_true(isnan(attn_exp(NAN)));
    assert_true(attn_exp(0.0) == 1.0 && attn_exp(-0.0) == 1.0);
    assert_true(attn_exp(709.79) == INFINITY);
    assert_true(attn_exp(1e300) == INFINITY);
    assert_true(isfinite(attn_exp(709.782712893384)));
    assert_true(attn_exp(-745.2) == 0.0);
    assert_true(attn_exp(-1e300) == 0.0);
    assert_true(attn_exp(-745.1) == 0x1p-1074); // the least subnormal
    assert_true(attn_exp(-720.0) > 0.0 && attn_exp(-720.0) < DBL_MIN);
    assert_true(attn_exp(1.0) == 0x1.5bf0a8b145769p+1); // e, correctly rounded
}

/* ---- log ---- */

static void check_log_at(err_stats *s, double x) {
    record(s, ulp_error(attn_log(x), logl((long double)x)), x, 0.0);
}

static void test_log_accuracy(void **state) {
    (void)state;
    rng_state = 2;
    err_stats all = {0}, near1 = {0};
    for (int i = 0; i < 2000000; i++) check_log_at(&all, random_positive()); // subnormals included
    for (int i = 0; i < 1000000; i++) check_log_at(&near1, uniform(0.5, 2.0));
    for (int i = 0; i < 300000; i++) check_log_at(&near1, 1.0 + ldexp(uniform(-1.0, 1.0), -(int)(next_u64() % 52)));
    for (int e = -1074; e <= 1023; e++) check_log_at(&all, ldexp(1.0, e)); // powers of 2
    check_log_at(&all, DBL_MAX);
    check_log_at(&near1, nextafter(1.0, 0.0));
    check_log_at(&near1, nextafter(1.0, 2.0));
    report_and_check("log on all positive doubles", &all, LOG_BOUND);
    report_and_check("log on [0.5, 2] and near 1", &near1, LOG_BOUND);
}

static void test_log_specials(void **state) {
    (void)state;
    assert_true(attn_log(0.0) == -INFINITY && attn_log(-0.0) == -INFINITY);
    assert_true(isnan(attn_log(-1.0)) && isnan(attn_log(-INFINITY)) && isnan(attn_log(-0x1p-1074)));
    assert_true(isnan(attn_log(NAN)));
    assert_true(attn_log(INFINITY) == INFINITY);
    assert_true(attn_log(1.0) == 0.0 && !signbit(attn_log(1.0)));
    assert_true(attn_log(0x1p-1074) == -0x1.74385446d71c3p+9); // -1074·ln 2, correctly rounded
    assert_true(attn_log(2.0) == 0x1.62e42fefa39efp-1);        // ln 2
}

/* ---- pow ---- */

static void check_pow_at(err_stats *s, double x, double y) {
    record(s, ulp_error(attn_pow(x, y), powl((long double)x, (long double)y)), x, y);
}

static void test_pow_accuracy(void **state) {
    (void)state;
    rng_state = 3;
    err_stats gen = {0}, uses = {0}, far = {0};
    for (int i = 0; i < 1500000; i++) { // x over [1e-5, 1e5], y so that |y·ln x| ≤ 64
        double x = exp(uniform(-11.5, 11.5)), lx = log(x);
        double y = uniform(-64.0, 64.0) / (fabs(lx) > 1e-300 ? fabs(lx) : 1.0);
        check_pow_at(&gen, x, y);
    }
    for (int i = 0; i < 300000; i++) {
        double x = uniform(0.5, 2.0);
        check_pow_at(&gen, x, uniform(-64.0, 64.0));
    }
    // the callers: 10000^(pair/d) for every d and pair, AdamW's 0.9^t and 0.999^t
    for (int d = 1; d <= 512; d++)
        for (int pair = 0; pair < d; pair += 2) check_pow_at(&uses, 10000.0, (double)pair / d);
    for (int t = 1; t <= 100000; t++) {
        check_pow_at(&uses, 0.9, t);
        check_pow_at(&uses, 0.999, t);
    }
    // beyond |y·ln x| = 64 the stated bound grows: 1 + |y·ln x|·2^-59 ulp
    for (int i = 0; i < 300000; i++) {
        double x = exp(uniform(-11.5, 11.5)), lx = log(x);
        double y = uniform(-700.0, 700.0) / (fabs(lx) > 1e-300 ? fabs(lx) : 1.0);
        check_pow_at(&far, x, y);
    }
    report_and_check("pow, |y·ln x| <= 64", &gen, POW_BOUND);
    report_and_check("pow: 10000^(2i/d), 0.9^t, 0.999^t (t <= 1e5)", &uses, POW_BOUND);
    report_and_check("pow, |y·ln x| <= 700", &far, POW_BOUND + 700.0 * 0x1p-59 / 0x1p-53);
}

static void test_pow_specials(void **state) {
    (void)state;
    assert_true(attn_pow(NAN, 0.0) == 1.0 && attn_pow(-3.0, -0.0) == 1.0);
    assert_true(attn_pow(1.0, NAN) == 1.0 && attn_pow(1.0, INFINITY) == 1.0);
    assert_true(isnan(attn_pow(NAN, 2.0)) && isnan(attn_pow(2.0, NAN)));
    assert_true(isnan(attn_pow(-2.0, 0.5)));
    assert_true(attn_pow(-2.0, 3.0) == -8.0 && attn_pow(-2.0, 2.0) == 4.0);
    assert_true(attn_pow(0.0, 2.0) == 0.0 && attn_pow(0.0, -1.0) == INFINITY);
    assert_true(attn_pow(-0.0, 3.0) == 0.0 && signbit(attn_pow(-0.0, 3.0)));
    assert_true(attn_pow(-0.0, -3.0) == -INFINITY);
    assert_true(attn_pow(INFINITY, -1.0) == 0.0 && attn_pow(INFINITY, 0.5) == INFINITY);
    assert_true(attn_pow(0.5, INFINITY) == 0.0 && attn_pow(0.5, -INFINITY) == INFINITY);
    assert_true(attn_pow(2.0, INFINITY) == INFINITY && attn_pow(-1.0, INFINITY) == 1.0);
    assert_true(attn_pow(10.0, 400.0) == INFINITY && attn_pow(10.0, -400.0) == 0.0);
    assert_true(attn_pow(2.0, 10.0) == 1024.0 && attn_pow(10000.0, 0.5) == 100.0);
    assert_true(attn_pow(2.0, -1074.0) == 0x1p-1074);
    assert_true(attn_pow(1e-300, 1e300) == 0.0 && attn_pow(1e300, 1e300) == INFINITY);
}

/* ---- sin, cos ---- */

static void check_trig_at(err_stats *s, err_stats *c, double x) {
    record(s, ulp_error(attn_sin(x), sinl((long double)x)), x, 0.0);
    record(c, ulp_error(attn_cos(x), cosl((long double)x)), x, 0.0);
}

static void test_trig_accuracy(void **state) {
    (void)state;
    rng_state = 4;
    err_stats ws = {0}, wc = {0}, ss = {0}, sc = {0}, ps = {0}, pc = {0}, ns = {0}, nc = {0};
    for (int i = 0; i < 1500000; i++) check_trig_at(&ws, &wc, uniform(-ATTN_TRIG_MAX, ATTN_TRIG_MAX));
    for (int i = 0; i < 1000000; i++) check_trig_at(&ss, &sc, uniform(-8.0, 8.0));
    for (int i = 0; i < 200000; i++) check_trig_at(&ss, &sc, ldexp(uniform(-1.0, 1.0), -(int)(next_u64() % 80)));
    // the sinusoidal encoding's angles p·10000^(-2i/d), and a rotary one's
    // offsets up to 4096 + 256, for d = 8, 64, 512
    for (int d = 8; d <= 512; d *= 8)
        for (int p = 0; p <= 4352; p++)
            for (int pair = 0; pair < d; pair += 2)
                check_trig_at(&ps, &pc, p / pow(10000.0, (double)pair / d));
    // the hardest arguments: the doubles nearest k·π/2, where r = x − k·π/2 is
    // tiny and every lost bit of the reduction shows
    for (long k = 1; k <= 667544; k++) {
        double x = (double)(k * 1.5707963267948966192313216916397514L);
        check_trig_at(&ns, &nc, x);
        check_trig_at(&ns, &nc, -nextafter(x, 0.0));
    }
    report_and_check("sin on [-2^20, 2^20]", &ws, TRIG_BOUND);
    report_and_check("cos on [-2^20, 2^20]", &wc, TRIG_BOUND);
    report_and_check("sin on [-8, 8] and tiny |x|", &ss, TRIG_BOUND);
    report_and_check("cos on [-8, 8] and tiny |x|", &sc, TRIG_BOUND);
    report_and_check("sin of positional angles (p <= 4352)", &ps, TRIG_BOUND);
    report_and_check("cos of positional angles (p <= 4352)", &pc, TRIG_BOUND);
    report_and_check("sin nearest k·π/2, k <= 667544", &ns, TRIG_BOUND);
    report_and_check("cos nearest k·π/2, k <= 667544", &nc, TRIG_BOUND);
}

static void test_trig_specials(void **state) {
    (void)state;
    assert_true(attn_sin(0.0) == 0.0 && !signbit(attn_sin(0.0)));
    assert_true(attn_sin(-0.0) == 0.0 && signbit(attn_sin(-0.0)));
    assert_true(attn_cos(0.0) == 1.0 && attn_cos(-0.0) == 1.0);
    assert_true(attn_sin(0x1p-1074) == 0x1p-1074 && attn_sin(1e-30) == 1e-30);
    assert_true(isnan(attn_sin(NAN)) && isnan(attn_cos(NAN)));
    assert_true(isnan(attn_sin(INFINITY)) && isnan(attn_cos(-INFINITY)));
    // the domain's edge: 2^20 is inside, the next double is not
    assert_true(!isnan(attn_sin(ATTN_TRIG_MAX)) && !isnan(attn_cos(-ATTN_TRIG_MAX)));
    assert_true(isnan(attn_sin(nextafter(ATTN_TRIG_MAX, INFINITY))));
    assert_true(isnan(attn_cos(-nextafter(ATTN_TRIG_MAX, INFINITY))));
    // odd and even
    rng_state = 5;
    for (int i = 0; i < 10000; i++) {
        double x = uniform(0.0, 5000.0);
        assert_true(attn_sin(-x) == -attn_sin(x));
        assert_true(attn_cos(-x) == attn_cos(x));
    }
}

/* ---- monotonicity and round trips ---- */

static void test_monotonic(void **state) {
    (void)state;
    rng_state = 6;
    for (int i = 0; i < 200000; i++) {
        double x = uniform(-740.0, 709.0), x1 = nextafter(x, INFINITY);
        assert_true(attn_exp(x) <= attn_exp(x1));
        double y = random_positive(), y1 = nextafter(y, INFINITY);
        if (y1 <= DBL_MAX) assert_true(attn_log(y) <= attn_log(y1));
        double t = uniform(-1.5707963267948966, 1.5707963267948966), t1 = nextafter(t, INFINITY);
        assert_true(attn_sin(t) <= attn_sin(t1));
        double c = uniform(0.0, 3.1415926535897931), c1 = nextafter(c, INFINITY);
        assert_true(attn_cos(c) >= attn_cos(c1));
    }
    // β^t falls with t, 10000^a rises with a
    for (int t = 1; t < 20000; t++) assert_true(attn_pow(0.999, t + 1) <= attn_pow(0.999, t));
    for (int i = 0; i < 512; i++) assert_true(attn_pow(10000.0, i / 512.0) <= attn_pow(10000.0, (i + 1) / 512.0));
}

static void test_round_trips(void **state) {
    (void)state;
    rng_state = 7;
    for (int i = 0; i < 300000; i++) {
        // exp(log x) = x to the two roundings' worth: log x is rounded (half an
        // ulp of log x, amplified by |log x|·2^-53 relative in exp) and exp is
        double x = exp(uniform(-700.0, 700.0));
        double back = attn_exp(attn_log(x)), lx = fabs(log(x));
        double allowed = (EXP_BOUND + 1.0 + lx) * (nextafter(x, INFINITY) - x);
        if (!(fabs(back - x) <= allowed)) fail_msg("exp(log(%a)) = %a", x, back);
        double y = uniform(-700.0, 700.0);
        double again = attn_log(attn_exp(y));
        if (!(fabs(again - y) <= 2.0 * (nextafter(fabs(y), INFINITY) - fabs(y)) + 0x1p-52))
            fail_msg("log(exp(%a)) = %a", y, again);
        double a = uniform(-4096.0, 4096.0), s = attn_sin(a), c = attn_cos(a);
        assert_true(fabs(s * s + c * c - 1.0) <= 4 * DBL_EPSILON);
    }
}

/* ---- the same bits everywhere ---- */

/* FNV-1a over the bits of each function's results on fixed arguments. The
 * constant was recorded when these functions were written; if this fails on
 * another platform, that platform computes different numbers (a compiler
 * fusing multiply-adds, x87 precision…); if it fails after a change to
 * attn_math.c, the shipped models change too (scripts/make-models.sh). */
static void test_same_bits_everywhere(void **state) {
    (void)state;
    uint64_t h = 0xcbf29ce484222325ull;
    rng_state = 8;
    for (int i = 0; i < 100000; i++) {
        // one draw per statement: the order of evaluation inside an
        // initializer or an argument list differs between compilers
        double r[5], base;
        r[0] = attn_exp(uniform(-745.0, 709.0));
        r[1] = attn_log(random_positive());
        base = uniform(0.0, 100.0);
        r[2] = attn_pow(base, uniform(-100.0, 100.0));
        r[3] = attn_sin(uniform(-5000.0, 5000.0));
        r[4] = attn_cos(uniform(-5000.0, 5000.0));
        for (int j = 0; j < 5; j++) {
            uint64_t b;
            memcpy(&b, &r[j], sizeof b);
            for (int byte = 0; byte < 8; byte++) h = (h ^ ((b >> (8 * byte)) & 0xff)) * 0x100000001b3ull;
        }
    }
    printf("  checksum %016llx\n", (unsigned long long)h);
    assert_true(h == 0x3d1c71c890781766ull);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exp_accuracy),
        cmocka_unit_test(test_exp_specials),
        cmocka_unit_test(test_log_accuracy),
        cmocka_unit_test(test_log_specials),
        cmocka_unit_test(test_pow_accuracy),
        cmocka_unit_test(test_pow_specials),
        cmocka_unit_test(test_trig_accuracy),
        cmocka_unit_test(test_trig_specials),
        cmocka_unit_test(test_monotonic),
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_same_bits_everywhere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
