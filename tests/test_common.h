/* test_common.h — helpers shared by the cmocka tests. */
#ifndef ATTN_TEST_COMMON_H
#define ATTN_TEST_COMMON_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

/* |a - b| <= tol * max(1, |b|), the project's agreement rule. */
#define assert_close_tol(a, b, tol) do { \
        double a_ = (a), b_ = (b); \
        double lim_ = (tol) * (fabs(b_) > 1.0 ? fabs(b_) : 1.0); \
        if (!(fabs(a_ - b_) <= lim_)) \
            fail_msg("%s = %.17g, expected %.17g (tolerance %g)", #a, a_, b_, lim_); \
    } while (0)
#define assert_close(a, b) assert_close_tol(a, b, 1e-12)

#endif
