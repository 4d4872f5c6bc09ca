/* clock.c — the monotonic clock. */
#include "clock.h"

#include <time.h>

double attn_clock_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
