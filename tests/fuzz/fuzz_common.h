/* fuzz_common.h — shared by the libFuzzer harnesses and their replay driver. */
#ifndef ATTN_FUZZ_COMMON_H
#define ATTN_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The libFuzzer entry point each harness defines. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An invariant the code under test must keep. abort() (not assert) so it
 * fires in every build type and libFuzzer saves the input as a crash. */
#define FUZZ_CHECK(cond) \
    do { \
        if (!(cond)) { \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
            abort(); \
        } \
    } while (0)

#endif
