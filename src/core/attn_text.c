/* attn_text.c — equations with shapes, shared by the CLI, the GUI and exports. */
#include "attn.h"

#include <stdio.h>

size_t attn_stage_equation(const attn_trace *t, attn_stage s, char *out, size_t cap) {
    int n = t->n, dm = t->cfg.d_model, dk = t->cfg.d_k, h = t->cfg.heads, hk = h * dk;
    char mask[32];
    attn_mask_format(mask, sizeof mask, t->cfg.mask);
    int r = 0;
    switch (s) {
    case ATTN_ST_X:
        r = snprintf(out, cap, t->cfg.pos_enc && !t->x_given ? "X = embed + PE   %d×%d" : "X   %d×%d", n, dm);
        break;
    case ATTN_ST_Q:
    case ATTN_ST_K:
    case ATTN_ST_V: {
        const char *m = s == ATTN_ST_Q ? "Q" : s == ATTN_ST_K ? "K"
                                                              : "V";
        r = snprintf(out, cap, "%s = X·W_%s%s%s   (%d×%d)·(%d×%d) → %d×%d", m, m,
                     t->cfg.bias ? " + b_" : "", t->cfg.bias ? m : "", n, dm, dm, dk, n, dk);
        break;
    }
    case ATTN_ST_Q_ROT:
    case ATTN_ST_K_ROT:
        r = snprintf(out, cap, "%s = rotate(%s, m·%.0f^(−2i/%d)), m = %d … %d   %d×%d", s == ATTN_ST_Q_ROT ? "q_rot" : "k_rot",
                     s == ATTN_ST_Q_ROT ? "Q" : "K", t->cfg.rope_base, dk, t->cfg.pos_offset, t->cfg.pos_offset + n - 1, n, dk);
        break;
    case ATTN_ST_SCORES:
        if (t->cfg.rope) r = snprintf(out, cap, "S = q_rot·k_rotᵀ   (%d×%d)·(%d×%d) → %d×%d", n, dk, dk, n, n, n);
        else r = snprintf(out, cap, "S = Q·Kᵀ   (%d×%d)·(%d×%d) → %d×%d", n, dk, dk, n, n, n);
        break;
    case ATTN_ST_SCALED:
        if (t->cfg.scale) r = snprintf(out, cap, "S / √dₖ = S / √%d   %d×%d", dk, n, n);
        else r = snprintf(out, cap, "S ÷ 1 = S   %d×%d", n, n);
        break;
    case ATTN_ST_MASKED:
        r = snprintf(out, cap, "mask(S), mask = %s   %d×%d", mask, n, n);
        break;
    case ATTN_ST_WEIGHTS:
        r = snprintf(out, cap, "A = softmax(%s)   %d×%d", t->cfg.scale ? "QKᵀ/√dₖ" : "QKᵀ", n, n);
        break;
    case ATTN_ST_Z:
        r = snprintf(out, cap, "Z = A·V   (%d×%d)·(%d×%d) → %d×%d", n, n, n, dk, n, dk);
        break;
    case ATTN_ST_CONCAT:
        r = snprintf(out, cap, "concat(Z_1 … Z_%d)   %d × (%d·%d) → %d×%d", h, n, h, dk, n, hk);
        break;
    case ATTN_ST_OUTPUT:
        r = snprintf(out, cap, "out = concat·W_O%s   (%d×%d)·(%d×%d) → %d×%d",
                     t->cfg.bias ? " + b_O" : "", n, hk, hk, dm, n, dm);
        break;
    default:
        r = snprintf(out, cap, "?");
        break;
    }
    return r < 0 ? 0 : (size_t)r;
}
