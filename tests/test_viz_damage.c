/* test_viz_damage.c — what the window redraws: signatures of display lists,
 * the damage between two, and the invariant that makes partial redraws safe:
 * drawing only the damage over the last frame gives exactly the new frame. */
#include "test_sdl_common.h"

#include <string.h>

#include "app_actions.h"
#include "app_view.h"
#include "viz.h"
#include "viz_damage.h"
#include "viz_sdl.h"
#include "viz_strings.h"

#define W 320
#define H 200

static viz_fonts *g_fonts;
static viz_strings g_ui;

static const viz_rgba WHITE = {255, 255, 255, 255};
static const viz_rgba RED = {200, 30, 40, 255};
static const viz_rgba BLUE = {10, 20, 200, 255};

static int group_setup(void **state) {
    (void)state;
    attn_err err;
    if (viz_strings_load(&g_ui, ATTN_SOURCE_DIR "/assets/ui_strings.tsv", &err) != ATTN_OK) return -1;
    g_fonts = test_fonts_open();
    return g_fonts ? 0 : -1;
}

static int group_teardown(void **state) {
    (void)state;
    test_fonts_close(g_fonts);
    viz_strings_free(&g_ui);
    return 0;
}

/* ---- helpers ---- */

/* Text boxes for the pure tests: the command's own box. */
static bool box_of_text(void *ctx, const viz_list *l, const viz_cmd *c, viz_irect *box) {
    (void)ctx;
    (void)l;
    *box = viz_box_pixels(c->x, c->y, c->w, c->h);
    return true;
}

/* The damage from a to b on a W×H canvas, using the stub text boxes. */
static int damage(const viz_list *a, const viz_list *b, viz_irect *out) {
    viz_sig sa = {0}, sb = {0};
    assert_true(viz_sig_build(&sa, a, W, H, box_of_text, NULL));
    assert_true(viz_sig_build(&sb, b, W, H, box_of_text, NULL));
    int n = viz_damage(&sa, &sb, out, VIZ_DAMAGE_MAX);
    viz_sig_free(&sa);
    viz_sig_free(&sb);
    return n;
}

static bool covers(const viz_irect *r, int n, viz_irect want) {
    for (int y = want.y; y < want.y + want.h; y++)
        for (int x = want.x; x < want.x + want.w; x++) {
            bool in = false;
            for (int i = 0; i < n && !in; i++)
                in = x >= r[i].x && x < r[i].x + r[i].w && y >= r[i].y && y < r[i].y + r[i].h;
            if (!in) return false;
        }
    return true;
}

static long area_of(const viz_irect *r, int n) {
    long a = 0;
    for (int i = 0; i < n; i++) a += (long)r[i].w * r[i].h;
    return a;
}

#define assert_rect(r, X, Y, W_, H_) \
    do { \
        viz_irect r_ = (r); \
        if (r_.x != (X) || r_.y != (Y) || r_.w != (W_) || r_.h != (H_)) \
            fail_msg("rect %d,%d %dx%d, expected %d,%d %dx%d", r_.x, r_.y, r_.w, r_.h, (X), (Y), (W_), (H_)); \
    } while (0)

/* A base list: background, a few panels, text, a grid and a line. */
static void base(viz_list *l) {
    viz_clear(l);
    viz_fill(l, 0, 0, W, H, WHITE);
    viz_fill(l, 10, 10, 40, 30, RED);
    viz_fill(l, 100, 10, 40, 30, BLUE);
    viz_text(l, 10, 60, 100, 20, "它 QKᵀ", 16, VIZ_LEFT, RED);
    viz_rgba *c = viz_grid(l, 200, 100, 40, 40, 2, 2);
    c[0] = RED, c[1] = BLUE, c[2] = BLUE, c[3] = RED;
    viz_line(l, 10, 190, 300, 150, 2, BLUE);
    viz_hit_region(l, 0, 0, W, H, (viz_hit){.kind = VIZ_HIT_PANEL, .panel = 1});
}

/* ---- the pure matcher ---- */

static void identical_lists_have_no_damage(void **state) {
    (void)state;
    viz_list a = {0}, b = {0};
    base(&a);
    base(&b);
    viz_irect r[VIZ_DAMAGE_MAX];
    assert_int_equal(damage(&a, &b, r), 0);
    viz_hit_region(&b, 5, 5, 10, 10, (viz_hit){.kind = VIZ_HIT_TOKEN, .token = 3}); // hits draw nothing
    viz_fill(&b, 50, 50, 0, 10, RED);                                               // nor do empty boxes
    viz_fill(&b, 500, 500, 10, 10, RED);                                            // nor boxes off the canvas
    assert_int_equal(damage(&a, &b, r), 0);
    viz_free(&a);
    viz_free(&b);
}

static void changed_colour_damages_its_box(void **state) {
    (void)state;
    viz_list a = {0}, b = {0};
    base(&a);
    base(&b);
    b.cmds[2].color = RED; // the blue panel turns red
    viz_irect r[VIZ_DAMAGE_MAX];
    assert_int_equal(damage(&a, &b, r), 1);
    assert_rect(r[0], 100, 10, 40, 30);
    viz_free(&a);
    viz_free(&b);
}

static void inserted_and_removed_commands(void **state) {
    (void)state;
    viz_list a = {0}, b = {0};
    base(&a);
    viz_clear(&b); // base with an outline inserted after the first panel
    viz_fill(&b, 0, 0, W, H, WHITE);
    viz_fill(&b, 10, 10, 40, 30, RED);
    viz_stroke(&b, 60, 60, 20, 20, 2, BLUE);
    viz_fill(&b, 100, 10, 40, 30, BLUE);
    viz_text(&b, 10, 60, 100, 20, "它 QKᵀ", 16, VIZ_LEFT, RED);
    viz_rgba *c = viz_grid(&b, 200, 100, 40, 40, 2, 2);
    c[0] = RED, c[1] = BLUE, c[2] = BLUE, c[3] = RED;
    viz_line(&b, 10, 190, 300, 150, 2, BLUE);
    viz_irect r[VIZ_DAMAGE_MAX];
    assert_int_equal(damage(&a, &b, r), 1);
    assert_rect(r[0], 60, 60, 20, 20);
    assert_int_equal(damage(&b, &a, r), 1); // and taken away again
    assert_rect(r[0], 60, 60, 20, 20);
    viz_free(&a);
    viz_free(&b);
}

static void text_and_cells_are_compared_by_content(void **state) {
    (void)state;
    viz_list a = {0}, b = {0};
    base(&a);
    base(&b);
    char *s = b.strings + b.cmds[3].str;
    s[0] = 'X'; // same box, other text
    viz_irect r[VIZ_DAMAGE_MAX];
    assert_int_equal(damage(&a, &b, r), 1);
    assert_rect(r[0], 10, 60, 100, 20);
    base(&b);
    b.cells[b.cmds[4].cells + 3] = BLUE; // one cell of the grid
    assert_int_equal(damage(&a, &b, r), 1);
    assert_rect(r[0], 200, 100, 40, 40);
    viz_free(&a);
    viz_free(&b);
}

static void clip_is_part_of_what_is_drawn(void **state) {
    (void)state;
    viz_list a = {0}, b = {0};
    viz_fill(&a, 0, 0, W, H, WHITE);
    viz_clip(&a, 0, 0, 100, 100);
    viz_fill(&a, 20, 20, 200, 20, RED);
    viz_clip(&a, 0, 0, 0, 0);
    viz_fill(&b, 0, 0, W, H, WHITE);
    viz_clip(&b, 0, 0, 150, 100);
    viz_fill(&b, 20, 20, 200, 20, RED);
    viz_clip(&b, 0, 0, 0, 0);
    viz_irect r[VIZ_DAMAGE_MAX];
    assert_int_equal(damage(&a, &b, r), 1); // the fill shows 50 px more: both clipped boxes
    assert_true(covers(r, 1, (viz_irect){20, 20, 130, 20}));
    assert_true(area_of(r, 1) <= 130 * 20);
    viz_free(&a);
    viz_free(&b);
}

static void moved_command_damages_both_places(void **state) {
    (void)state;
    viz_list a = {0}, b = {0};
    base(&a);
    base(&b);
    b.cmds[1].x = 250; // the red panel moves right
    viz_irect r[VIZ_DAMAGE_MAX];
    int n = damage(&a, &b, r);
    assert_true(n >= 1);
    assert_true(covers(r, n, (viz_irect){10, 10, 40, 30}));
    assert_true(covers(r, n, (viz_irect){250, 10, 40, 30}));
    assert_true(area_of(r, n) < W * H / 4);
    viz_free(&a);
    viz_free(&b);
}

static void whole_canvas_when_size_changes_or_nothing_was_drawn(void **state) {
    (void)state;
    viz_list a = {0};
    base(&a);
    viz_sig s1 = {0}, s2 = {0}, none = {0};
    assert_true(viz_sig_build(&s1, &a, W, H, box_of_text, NULL));
    assert_true(viz_sig_build(&s2, &a, W + 1, H, box_of_text, NULL));
    viz_irect r[VIZ_DAMAGE_MAX];
    assert_int_equal(viz_damage(&s1, &s2, r, VIZ_DAMAGE_MAX), 1);
    assert_rect(r[0], 0, 0, W + 1, H);
    assert_int_equal(viz_damage(&none, &s1, r, VIZ_DAMAGE_MAX), 1);
    assert_rect(r[0], 0, 0, W, H);
    assert_int_equal(viz_damage(NULL, &s1, r, VIZ_DAMAGE_MAX), 1);
    assert_rect(r[0], 0, 0, W, H);
    assert_int_equal(viz_damage(&s1, &s1, r, 1), 1); // too little room for the pieces: all of it
    assert_rect(r[0], 0, 0, W, H);
    assert_int_equal(viz_damage(&s1, &s1, r, 0), 0); // no room at all
    viz_sig_free(&s1);
    viz_sig_free(&s2);
    viz_sig_free(NULL); // no-op
    viz_free(&a);
}

/* Many scattered changes come out as at most VIZ_DAMAGE_MAX rectangles that
 * still cover every one; changing most of the canvas redraws all of it. */
static void many_changes_are_merged(void **state) {
    (void)state;
    viz_list a = {0}, b = {0};
    viz_fill(&a, 0, 0, W, H, WHITE);
    viz_fill(&b, 0, 0, W, H, WHITE);
    for (int i = 0; i < 60; i++) { // 60 small cells, 20 px apart: none near another
        float x = (float)(10 + (i % 12) * 25), y = (float)(10 + (i / 12) * 35);
        viz_fill(&a, x, y, 4, 4, RED);
        viz_fill(&b, x, y, 4, 4, BLUE);
    }
    viz_irect r[VIZ_DAMAGE_MAX];
    int n = damage(&a, &b, r);
    assert_true(n >= 1 && n <= VIZ_DAMAGE_MAX);
    for (int i = 0; i < 60; i++)
        assert_true(covers(r, n, (viz_irect){10 + (i % 12) * 25, 10 + (i / 12) * 35, 4, 4}));
    viz_clear(&b);
    viz_fill(&b, 0, 0, W, H, BLUE);
    assert_int_equal(damage(&a, &b, r), 1);
    assert_rect(r[0], 0, 0, W, H);
    viz_free(&a);
    viz_free(&b);
}

static void line_box_holds_its_width(void **state) {
    (void)state;
    viz_list l = {0};
    viz_line(&l, 50, 50, 150, 50, 6, RED);
    viz_irect b = viz_cmd_box(&l.cmds[0]);
    assert_true(b.x <= 47 && b.x + b.w >= 153 && b.y <= 47 && b.y + b.h >= 53);
    viz_free(&l);
}

/* ---- drawing: any areas give the pixels of one whole drawing ---- */

static SDL_Surface *surface(void) {
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, W, H, 32, SDL_PIXELFORMAT_ARGB8888);
    assert_non_null(s);
    return s;
}

static long differing(const SDL_Surface *a, const SDL_Surface *b) {
    long n = 0;
    for (int y = 0; y < a->h; y++)
        for (int x = 0; x < a->w; x++)
            n += ((const Uint32 *)((const Uint8 *)a->pixels + y * a->pitch))[x] !=
                 ((const Uint32 *)((const Uint8 *)b->pixels + y * b->pitch))[x];
    return n;
}

static float frand(unsigned *seed, float lo, float hi) {
    *seed = *seed * 1103515245u + 12345u;
    return lo + (hi - lo) * (float)((*seed >> 8) & 0xFFFF) / 65535.0f;
}

static viz_rgba crand(unsigned *seed, bool translucent) {
    viz_rgba c = {(uint8_t)frand(seed, 0, 255), (uint8_t)frand(seed, 0, 255), (uint8_t)frand(seed, 0, 255), 255};
    if (translucent) c.a = (uint8_t)frand(seed, 20, 235);
    return c;
}

/* Every primitive at fractional positions, translucent colours, lines at all
 * angles and widths, text overlapping its box, grids and clips, on a w×h canvas. */
static void random_list_in(viz_list *l, unsigned seed, float cw, float ch) {
    static const char *texts[] = {"它", "QKᵀ/√dₖ", "0.81", "softmax", "注意力", "−∞"};
    viz_clear(l);
    float k = cw / W; // sizes grow with the canvas
    for (int i = 0; i < 120; i++) {
        int kind = (int)frand(&seed, 0, 6.99f);
        float x = frand(&seed, -20, cw), y = frand(&seed, -20, ch), w = frand(&seed, 0, 90 * k), h = frand(&seed, 0, 60 * k);
        bool tr = frand(&seed, 0, 1) < 0.5f;
        switch (kind) {
        case 0: viz_fill(l, x, y, w, h, crand(&seed, tr)); break;
        case 1: viz_stroke(l, x, y, w, h, frand(&seed, 0.5f, 4), crand(&seed, tr)); break;
        case 2:
            viz_line(l, x, y, frand(&seed, -20, cw + 20), frand(&seed, -20, ch + 20), frand(&seed, 0.3f, 7),
                     crand(&seed, tr));
            break;
        case 3: viz_text(l, x, y, w, h, texts[i % 6], frand(&seed, 8, 30), (int)frand(&seed, 0, 2.99f) | ((int)frand(&seed, 0, 2.99f) * 4), crand(&seed, tr)); break;
        case 4: {
            int rows = 1 + (int)frand(&seed, 0, 6), cols = 1 + (int)frand(&seed, 0, 6);
            viz_rgba *c = viz_grid(l, x, y, w, h, rows, cols);
            for (int k = 0; k < rows * cols; k++) c[k] = crand(&seed, tr && k % 3 == 0);
            break;
        }
        case 5: viz_clip(l, x, y, w * 2, h * 2); break;
        default: viz_clip(l, 0, 0, 0, 0); break;
        }
    }
}

static void random_list(viz_list *l, unsigned seed) {
    random_list_in(l, seed, W, H);
}

/* Large drawings are shared by two threads, each owning a band of rows (any
 * split gives the pixels of one drawing): a whole threaded drawing, several
 * overlapping areas drawn at once, and small single-thread tiles all agree. */
static void threaded_draws_equal_tiled_draws(void **state) {
    (void)state;
    enum { BW = 960,
           BH = 640 }; // above the two-thread threshold
    viz_list l = {0};
    SDL_Surface *whole = SDL_CreateRGBSurfaceWithFormat(0, BW, BH, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Surface *tiles = SDL_CreateRGBSurfaceWithFormat(0, BW, BH, 32, SDL_PIXELFORMAT_ARGB8888);
    SDL_Surface *areas = SDL_CreateRGBSurfaceWithFormat(0, BW, BH, 32, SDL_PIXELFORMAT_ARGB8888);
    for (unsigned seed = 1; seed <= 6; seed++) {
        random_list_in(&l, seed * 131, BW, BH);
        assert_int_equal(viz_sdl_draw(whole, g_fonts, &l, NULL, WHITE), 0);
        SDL_FillRect(tiles, NULL, 0xFF00FF00);
        for (int y = 0; y < BH; y += 160) // 160×160 tiles: one thread each
            for (int x = 0; x < BW; x += 160) {
                SDL_Rect r = {x, y, 160, 160};
                assert_int_equal(viz_sdl_draw(tiles, g_fonts, &l, &r, WHITE), 0);
            }
        long n = differing(whole, tiles);
        if (n) fail_msg("seed %u: %ld pixels differ between the threaded and the tiled drawing", seed, n);
        SDL_FillRect(areas, NULL, 0xFF00FF00);
        SDL_Rect r[3] = {{0, 0, BW, BH / 2 + 37}, {BW / 3, BH / 4, BW / 2, BH / 2}, {0, BH / 2 - 11, BW, BH / 2 + 11}};
        assert_int_equal(viz_sdl_draw_areas(areas, g_fonts, &l, r, 3, WHITE), 0); // overlapping, all at once
        n = differing(whole, areas);
        if (n) fail_msg("seed %u: %ld pixels differ between one drawing and three overlapping areas", seed, n);
    }
    SDL_FreeSurface(whole);
    SDL_FreeSurface(tiles);
    SDL_FreeSurface(areas);
    viz_free(&l);
}

static void partial_draws_equal_a_whole_draw(void **state) {
    (void)state;
    viz_list l = {0};
    SDL_Surface *whole = surface(), *parts = surface();
    for (unsigned seed = 1; seed <= 12; seed++) {
        random_list(&l, seed);
        assert_int_equal(viz_sdl_draw(whole, g_fonts, &l, NULL, WHITE), 0);
        SDL_FillRect(parts, NULL, 0xFF00FF00); // garbage the areas must overwrite
        unsigned s = seed * 77;
        int cx = (int)frand(&s, 1, W - 1), cy = (int)frand(&s, 1, H - 1); // four tiles around a random point
        SDL_Rect tiles[4] = {{0, 0, cx, cy}, {cx, 0, W - cx, cy}, {0, cy, cx, H - cy}, {cx, cy, W - cx, H - cy}};
        for (int t = 0; t < 4; t++) assert_int_equal(viz_sdl_draw(parts, g_fonts, &l, &tiles[t], WHITE), 0);
        for (int k = 0; k < 8; k++) { // and again over small random areas
            SDL_Rect r = {(int)frand(&s, -10, W), (int)frand(&s, -10, H), (int)frand(&s, 1, 60), (int)frand(&s, 1, 60)};
            assert_int_equal(viz_sdl_draw(parts, g_fonts, &l, &r, WHITE), 0);
        }
        long n = differing(whole, parts);
        if (n) fail_msg("seed %u: %ld pixels differ between the whole and the tiled drawing", seed, n);
    }
    SDL_FreeSurface(whole);
    SDL_FreeSurface(parts);
    viz_free(&l);
}

/* ---- real frames of the window ---- */

typedef struct {
    viz_list list;
    viz_sig sig[2];
    int cur;
    SDL_Surface *frame, *check;
    long drawn, frames;
} window;

/* What app_sdl.c does per frame: lay out, sign, draw the damage; then the
 * check that the frame equals a whole drawing of the same list. Returns the
 * pixels redrawn. */
static long next_frame(window *w, app_state *st) {
    viz_scene sc;
    char badge[320];
    app_scene(st, &sc, badge, sizeof badge);
    sc.width = W * 4, sc.height = H * 4;
    viz_build_window(&w->list, &sc, viz_fonts_measure(g_fonts));
    viz_sig *now = &w->sig[!w->cur];
    assert_true(viz_sdl_signature(now, &w->sig[w->cur], g_fonts, &w->list, sc.width, sc.height));
    viz_irect d[VIZ_DAMAGE_MAX];
    int n = viz_damage(&w->sig[w->cur], now, d, VIZ_DAMAGE_MAX);
    viz_rgba bg = viz_theme_get(st->look.theme)->bg;
    long drawn = 0;
    for (int i = 0; i < n; i++) {
        SDL_Rect r = {d[i].x, d[i].y, d[i].w, d[i].h};
        assert_int_equal(viz_sdl_draw(w->frame, g_fonts, &w->list, &r, bg), 0);
        drawn += (long)r.w * r.h;
    }
    w->cur = !w->cur;
    assert_int_equal(viz_sdl_draw(w->check, g_fonts, &w->list, NULL, bg), 0);
    long off = differing(w->frame, w->check);
    if (off) fail_msg("frame %ld: %ld pixels differ from a whole drawing (damage %d rects)", w->frames, off, n);
    w->frames++;
    w->drawn += drawn;
    return drawn;
}

/* The cells of stage on screen: their hit regions. */
static int cells_on_screen(const window *w, int stage, viz_hit *out, int cap) {
    int n = 0;
    for (int i = 0; i < w->list.count && n < cap; i++) {
        const viz_cmd *c = &w->list.cmds[i];
        if (c->kind == VIZ_HIT && c->hit.kind == VIZ_HIT_CELL && c->hit.stage == stage) out[n++] = c->hit;
    }
    return n;
}

/* A classroom session, frame by frame: every frame drawn from its damage alone
 * equals the whole frame, and hovering redraws only a small part. */
static void window_frames_from_damage_equal_whole_frames(void **state) {
    (void)state;
    window w = {0};
    w.frame = SDL_CreateRGBSurfaceWithFormat(0, W * 4, H * 4, 32, SDL_PIXELFORMAT_RGB888);
    w.check = SDL_CreateRGBSurfaceWithFormat(0, W * 4, H * 4, 32, SDL_PIXELFORMAT_RGB888);
    app_state st;
    attn_config cfg;
    attn_config_default(&cfg);
    attn_err err;
    if (app_init(&st, NULL, &cfg, &g_ui, &err) != ATTN_OK) fail_msg("%s", err.msg);
    assert_int_equal(next_frame(&w, &st), (long)W * 4 * H * 4); // the first frame is drawn whole
    assert_int_equal(next_frame(&w, &st), 0);                   // nothing changed: nothing drawn
    for (int step = 0; step < ATTN_STEP_COUNT; step++) {
        app_goto_step(&st, step);
        next_frame(&w, &st);
    }
    app_goto_step(&st, ATTN_STEP_SOFTMAX);
    next_frame(&w, &st);
    viz_hit cells[512];
    int n = cells_on_screen(&w, ATTN_ST_WEIGHTS, cells, 512);
    assert_true(n >= 400);
    long hover_px = 0;
    for (int i = 0; i < n; i += 7) {
        app_hover(&st, cells[i]);
        hover_px += next_frame(&w, &st);
    }
    long per_hover = hover_px / ((n + 6) / 7);
    if (per_hover * 10 > (long)W * 4 * H * 4) fail_msg("a hover redraws %ld pixels on average", per_hover);
    static const int tokens[] = {13, 9, 3, 0, 19};
    for (int i = 0; i < 5; i++) {
        app_select_query(&st, tokens[i]);
        next_frame(&w, &st);
    }
    static const viz_widget widgets[] = {VIZ_W_HEADS, VIZ_W_SCALE, VIZ_W_MASK, VIZ_W_MASK, VIZ_W_COMPARE,
                                         VIZ_W_COMPARE, VIZ_W_THEME, VIZ_W_LANG, VIZ_W_SHOW_HEAD};
    for (size_t i = 0; i < sizeof widgets / sizeof *widgets; i++) {
        app_widget(&st, widgets[i], 1);
        next_frame(&w, &st);
        app_hover(&st, cells[i * 31 % n]);
        next_frame(&w, &st);
    }
    app_toggle_help(&st);
    next_frame(&w, &st);
    app_toggle_help(&st);
    next_frame(&w, &st);
    app_free(&st);
    viz_sig_free(&w.sig[0]);
    viz_sig_free(&w.sig[1]);
    viz_free(&w.list);
    SDL_FreeSurface(w.frame);
    SDL_FreeSurface(w.check);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(identical_lists_have_no_damage),
        cmocka_unit_test(changed_colour_damages_its_box),
        cmocka_unit_test(inserted_and_removed_commands),
        cmocka_unit_test(text_and_cells_are_compared_by_content),
        cmocka_unit_test(clip_is_part_of_what_is_drawn),
        cmocka_unit_test(moved_command_damages_both_places),
        cmocka_unit_test(whole_canvas_when_size_changes_or_nothing_was_drawn),
        cmocka_unit_test(many_changes_are_merged),
        cmocka_unit_test(line_box_holds_its_width),
        cmocka_unit_test(partial_draws_equal_a_whole_draw),
        cmocka_unit_test(threaded_draws_equal_tiled_draws),
        cmocka_unit_test(window_frames_from_damage_equal_whole_frames),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
