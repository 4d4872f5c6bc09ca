/* hash.h — FNV-1a (Fowler, Noll, Vo), the one non-cryptographic hash of
 * attnviz: token-derived embeddings, the damage signatures of display lists
 * and the font caches' keys. 64-bit; callers that need fewer bits fold it. */
#ifndef ATTN_HASH_H
#define ATTN_HASH_H

#include <stddef.h>
#include <stdint.h>

#define ATTN_FNV_OFFSET 0xCBF29CE484222325ull /* the hash of no bytes */

/* h extended by n bytes at p: start from ATTN_FNV_OFFSET, chain calls to hash
 * several fields as one. */
static inline uint64_t attn_fnv1a(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001B3ull;
    return h;
}

#endif
