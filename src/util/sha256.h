/* sha256.h — SHA-256 (FIPS 180-4), so an author can check a file attnviz
 * names with `sha256sum` (no new dependency): the weights and lesson files an
 * export was made from, and the files an export wrote (its manifest). */
#ifndef ATTN_SHA256_H
#define ATTN_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define ATTN_SHA256_HEX 65 /* 64 lowercase hex digits and a NUL */

/* A hash in progress: init, update with the bytes in order, then final. */
typedef struct {
    uint32_t h[8];
    uint64_t len;          /* bytes so far */
    unsigned char buf[64]; /* a block not yet full */
    size_t used;
} attn_sha256;

void attn_sha256_init(attn_sha256 *s);
void attn_sha256_update(attn_sha256 *s, const void *data, size_t len);
/* Writes the hex digest into out; s is spent (init it again to reuse). */
void attn_sha256_final_hex(attn_sha256 *s, char out[ATTN_SHA256_HEX]);

/* The hex digest of len bytes in one call. */
void attn_sha256_hex(const void *data, size_t len, char out[ATTN_SHA256_HEX]);

#endif
