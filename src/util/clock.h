/* clock.h — the one clock attnviz times things with. */
#ifndef ATTN_CLOCK_H
#define ATTN_CLOCK_H

/* Seconds on the monotonic clock (CLOCK_MONOTONIC): only differences mean
 * anything; it never jumps when the wall clock is set. */
double attn_clock_s(void);

#endif
