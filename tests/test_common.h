/* test_common.h — helpers shared by the cmocka tests. */
#ifndef ATTN_TEST_COMMON_H
#define ATTN_TEST_COMMON_H

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

/* |a - b| <= tol * max(1, |b|), the project's agreement rule. */
#define assert_close_tol(a, b, tol) \
    do { \
        double a_ = (a), b_ = (b); \
        double lim_ = (tol) * (fabs(b_) > 1.0 ? fabs(b_) : 1.0); \
        if (!(fabs(a_ - b_) <= lim_)) \
            fail_msg("%s = %.17g, expected %.17g (tolerance %g)", #a, a_, b_, lim_); \
    } while (0)
#define assert_close(a, b) assert_close_tol(a, b, 1e-12)

/* How many pages a lesson file has, counted from its "=== page:" lines
 * (independently of the parser), or -1 when it cannot be read. */
static inline int test_lesson_pages(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[4096];
    int n = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "=== page:", 9) == 0) n++;
    fclose(f);
    return n;
}

#endif
