/* viz_theme.c — themes, colour maps and the names of the UI strings. */
#include <math.h>

#include "viz_internal.h"

#define RGB(r, g, b) \
    { r, g, b, 255 }

static const viz_theme themes[VIZ_THEME_COUNT] = {
    [VIZ_THEME_LIGHT] = {
        .bg = RGB(0xf3, 0xf4, 0xf7),
        .panel = RGB(0xff, 0xff, 0xff),
        .panel2 = RGB(0xe9, 0xec, 0xf1),
        .text = RGB(0x1d, 0x23, 0x30),
        .muted = RGB(0x55, 0x5f, 0x6e),
        .accent = RGB(0x2a, 0x63, 0xd4),
        .accent_text = RGB(0xff, 0xff, 0xff),
        .line = RGB(0xcf, 0xd4, 0xdc),
        .highlight = RGB(0xd1, 0x1d, 0x7a),
        .hover = RGB(0x00, 0x00, 0x00),
        .operand = RGB(0xd1, 0x1d, 0x7a),
        .error = RGB(0xc0, 0x1c, 0x28),
        .masked = RGB(0x8e, 0x93, 0x9c),
        .masked_hatch = RGB(0x5c, 0x62, 0x6c),
        .body_px = 15,
    },
    [VIZ_THEME_DARK] = {
        .bg = RGB(0x14, 0x16, 0x1b),
        .panel = RGB(0x1e, 0x21, 0x28),
        .panel2 = RGB(0x2a, 0x2e, 0x37),
        .text = RGB(0xe9, 0xeb, 0xf0),
        .muted = RGB(0xa0, 0xa8, 0xb6),
        .accent = RGB(0x5b, 0x9b, 0xff),
        .accent_text = RGB(0x0b, 0x0d, 0x12),
        .line = RGB(0x3b, 0x40, 0x4c),
        .highlight = RGB(0xff, 0x5c, 0xa8),
        .hover = RGB(0xff, 0xff, 0xff),
        .operand = RGB(0xff, 0x5c, 0xa8),
        .error = RGB(0xff, 0x6b, 0x6b),
        .masked = RGB(0x4f, 0x54, 0x5e),
        .masked_hatch = RGB(0x80, 0x86, 0x91),
        .body_px = 15,
    },
    [VIZ_THEME_PRESENTER] = {
        .bg = RGB(0xfa, 0xfa, 0xfa),
        .panel = RGB(0xff, 0xff, 0xff),
        .panel2 = RGB(0xe6, 0xe9, 0xef),
        .text = RGB(0x0c, 0x10, 0x18),
        .muted = RGB(0x3c, 0x44, 0x52),
        .accent = RGB(0x1f, 0x55, 0xc4),
        .accent_text = RGB(0xff, 0xff, 0xff),
        .line = RGB(0xb8, 0xbf, 0xca),
        .highlight = RGB(0xc2, 0x0a, 0x6a),
        .hover = RGB(0x00, 0x00, 0x00),
        .operand = RGB(0xc2, 0x0a, 0x6a),
        .error = RGB(0xb0, 0x10, 0x20),
        .masked = RGB(0x8e, 0x93, 0x9c),
        .masked_hatch = RGB(0x50, 0x56, 0x60),
        .body_px = 28,
        .value_px = 16,
    },
    [VIZ_THEME_CONTRAST] = {
        .bg = RGB(0x00, 0x00, 0x00),
        .panel = RGB(0x00, 0x00, 0x00),
        .panel2 = RGB(0x1a, 0x1a, 0x1a),
        .text = RGB(0xff, 0xff, 0xff),
        .muted = RGB(0xe0, 0xe0, 0xe0),
        .accent = RGB(0xff, 0xd4, 0x00),
        .accent_text = RGB(0x00, 0x00, 0x00),
        .line = RGB(0xff, 0xff, 0xff),
        .highlight = RGB(0x00, 0xe5, 0xff),
        .hover = RGB(0xff, 0xd4, 0x00),
        .operand = RGB(0x00, 0xe5, 0xff),
        .error = RGB(0xff, 0x70, 0x70),
        .masked = RGB(0x40, 0x40, 0x40),
        .masked_hatch = RGB(0xc0, 0xc0, 0xc0),
        .body_px = 16,
    },
};

static const char *const theme_names[VIZ_THEME_COUNT] = {"light", "dark", "presenter", "high-contrast"};

const viz_theme *viz_theme_get(viz_theme_id id) {
    return &themes[(id >= 0 && id < VIZ_THEME_COUNT) ? id : 0];
}

const char *viz_theme_name(viz_theme_id id) {
    return theme_names[(id >= 0 && id < VIZ_THEME_COUNT) ? id : 0];
}

/* Piecewise-linear interpolation through n evenly spaced stops, t in [0, 1]. */
static viz_rgba ramp(const viz_rgba *stops, int n, double t) {
    if (!(t > 0.0)) t = 0.0; // also catches NaN
    if (t > 1.0) t = 1.0;
    double pos = t * (n - 1);
    int i = (int)pos;
    if (i >= n - 1) return stops[n - 1];
    return viz_mix(stops[i], stops[i + 1], (float)(pos - i));
}

viz_rgba viz_diverging(double t) {
    // ColorBrewer PuOr-like blue–white–orange: distinguishable with every common
    // colour-vision deficiency, and 0 is the neutral centre
    static const viz_rgba stops[] = {
        RGB(0x21, 0x66, 0xac),
        RGB(0x92, 0xc5, 0xde),
        RGB(0xf7, 0xf7, 0xf7),
        RGB(0xfd, 0xb8, 0x63),
        RGB(0xb3, 0x58, 0x06),
    };
    return ramp(stops, 5, (t + 1.0) / 2.0);
}

viz_rgba viz_sequential(double t) {
    // ColorBrewer YlGnBu: monotone in lightness, so order reads without hue
    static const viz_rgba stops[] = {
        RGB(0xff, 0xff, 0xd9),
        RGB(0xed, 0xf8, 0xb1),
        RGB(0xc7, 0xe9, 0xb4),
        RGB(0x7f, 0xcd, 0xbb),
        RGB(0x41, 0xb6, 0xc4),
        RGB(0x1d, 0x91, 0xc0),
        RGB(0x22, 0x5e, 0xa8),
        RGB(0x25, 0x34, 0x94),
        RGB(0x08, 0x1d, 0x58),
    };
    return ramp(stops, 9, t);
}

viz_rgba viz_mix(viz_rgba a, viz_rgba b, float t) {
    viz_rgba c;
    c.r = (uint8_t)lroundf(a.r + (b.r - a.r) * t);
    c.g = (uint8_t)lroundf(a.g + (b.g - a.g) * t);
    c.b = (uint8_t)lroundf(a.b + (b.b - a.b) * t);
    c.a = (uint8_t)lroundf(a.a + (b.a - a.a) * t);
    return c;
}

viz_rgba viz_alpha(viz_rgba c, uint8_t a) {
    c.a = a;
    return c;
}

viz_rgba viz_text_on(viz_rgba bg) {
    // relative luminance (sRGB weights, no gamma: enough to pick black or white)
    double lum = 0.2126 * bg.r + 0.7152 * bg.g + 0.0722 * bg.b;
    viz_rgba black = RGB(0x10, 0x10, 0x10), white = RGB(0xff, 0xff, 0xff);
    return lum > 140.0 ? black : white;
}
