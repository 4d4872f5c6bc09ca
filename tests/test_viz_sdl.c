/* test_viz_sdl.c — the SDL backend: fonts through fontconfig with a per-glyph
 * fallback, display lists rendered offscreen, screenshots saved atomically. */
#include "test_sdl_common.h"

#include <SDL.h>
#include <SDL_image.h>
#include <SDL_ttf.h>
#include <dirent.h>
#include <libgen.h>
#include <fontconfig/fontconfig.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "viz.h"
#include "viz_sdl.h"

#define W 200
#define H 100

static viz_fonts *g_fonts;

static const viz_rgba WHITE = {255, 255, 255, 255};
static const viz_rgba BLACK = {0, 0, 0, 255};
static const viz_rgba RED = {200, 30, 40, 255};
static const viz_rgba BLUE = {10, 20, 200, 255};
static const viz_rgba GREEN = {20, 180, 60, 255};
static const viz_rgba YELLOW = {240, 220, 0, 255};
static const viz_rgba PURPLE = {120, 40, 160, 255};
static const viz_rgba DARK = {30, 30, 30, 255};

static int group_setup(void **state) {
    (void)state;
    g_fonts = test_fonts_open();
    return g_fonts ? 0 : -1;
}

static int group_teardown(void **state) {
    (void)state;
    test_fonts_close(g_fonts);
    return 0;
}

/* ---- helpers ---- */

static float measure(const char *s, float px) {
    viz_measure m = viz_fonts_measure(g_fonts);
    return m.width(m.ctx, s, strlen(s), px);
}

/* fontconfig's file for family, opened by SDL_ttf at px (the test's own look-up,
 * independent of the code under test). */
static TTF_Font *open_family(const char *family, int px) {
    FcPattern *pat = FcNameParse((const FcChar8 *)family);
    FcResult res;
    FcChar8 *file = NULL;
    int index = 0;
    TTF_Font *font = NULL;
    FcConfigSubstitute(NULL, pat, FcMatchPattern);
    FcDefaultSubstitute(pat);
    FcPattern *match = FcFontMatch(NULL, pat, &res);
    if (match && FcPatternGetString(match, FC_FILE, 0, &file) == FcResultMatch) {
        FcPatternGetInteger(match, FC_INDEX, 0, &index);
        font = TTF_OpenFontIndex((const char *)file, px, index);
    }
    if (match) FcPatternDestroy(match);
    FcPatternDestroy(pat);
    return font;
}

static char *family_file(const char *family) {
    FcPattern *pat = FcNameParse((const FcChar8 *)family);
    FcResult res;
    FcChar8 *file = NULL;
    char *out = NULL;
    FcConfigSubstitute(NULL, pat, FcMatchPattern);
    FcDefaultSubstitute(pat);
    FcPattern *match = FcFontMatch(NULL, pat, &res);
    if (match && FcPatternGetString(match, FC_FILE, 0, &file) == FcResultMatch) out = strdup((const char *)file);
    if (match) FcPatternDestroy(match);
    FcPatternDestroy(pat);
    return out;
}

static viz_rgba pixel(const SDL_Surface *s, int x, int y) {
    Uint32 p = ((const Uint32 *)((const Uint8 *)s->pixels + y * s->pitch))[x];
    viz_rgba c;
    SDL_GetRGBA(p, s->format, &c.r, &c.g, &c.b, &c.a);
    return c;
}

static bool same(viz_rgba a, viz_rgba b) {
    return a.r == b.r && a.g == b.g && a.b == b.b && a.a == b.a;
}

#define assert_pixel(s, x, y, want) \
    do { \
        viz_rgba got_ = pixel((s), (x), (y)), want_ = (want); \
        if (!same(got_, want_)) \
            fail_msg("pixel (%d, %d) is %d,%d,%d,%d, expected %d,%d,%d,%d", (x), (y), got_.r, got_.g, \
                     got_.b, got_.a, want_.r, want_.g, want_.b, want_.a); \
    } while (0)

/* Pixels in [x0, x1) × [y0, y1) that differ from bg; their bounding box in *box. */
static int ink(const SDL_Surface *s, int x0, int y0, int x1, int y1, viz_rgba bg, SDL_Rect *box) {
    int n = 0, minx = x1, miny = y1, maxx = -1, maxy = -1;
    for (int y = y0; y < y1; y++) {
        for (int x = x0; x < x1; x++) {
            if (same(pixel(s, x, y), bg)) continue;
            n++;
            if (x < minx) minx = x;
            if (x > maxx) maxx = x;
            if (y < miny) miny = y;
            if (y > maxy) maxy = y;
        }
    }
    if (box) *box = (SDL_Rect){minx, miny, maxx - minx + 1, maxy - miny + 1};
    return n;
}

static bool surfaces_equal(const SDL_Surface *a, const SDL_Surface *b) {
    if (a->w != b->w || a->h != b->h) return false;
    for (int y = 0; y < a->h; y++)
        if (memcmp((const Uint8 *)a->pixels + y * a->pitch, (const Uint8 *)b->pixels + y * b->pitch,
                   (size_t)a->w * 4) != 0)
            return false;
    return true;
}

static SDL_Surface *render(const viz_list *l) {
    SDL_Surface *s = viz_sdl_render_surface(g_fonts, l, W, H, WHITE);
    if (!s) fail_msg("render failed: %s", SDL_GetError());
    return s;
}

/* FILL, a 2×2 GRID, a thick LINE and TEXT, plus a HIT region that draws nothing. */
static void sample_list(viz_list *l) {
    viz_fill(l, 10, 10, 40, 30, RED);
    viz_rgba *cells = viz_grid(l, 60, 10, 40, 40, 2, 2);
    cells[0] = BLUE;
    cells[1] = GREEN;
    cells[2] = YELLOW;
    cells[3] = PURPLE;
    viz_line(l, 110, 20, 190, 20, 4, DARK);
    viz_text(l, 10, 55, 180, 40, "它 QKᵀ/√dₖ", 20, VIZ_LEFT | VIZ_MIDDLE, BLACK);
    viz_hit_region(l, 0, 0, W, H, (viz_hit){.kind = VIZ_HIT_PANEL, .panel = 1});
}

/* A directory with exactly one entry? */
static int dir_entries(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) n++;
    closedir(d);
    return n;
}

/* ---- fonts ---- */

static void fonts_open_via_fontconfig(void **state) {
    (void)state;
    char err[512] = "";
    viz_fonts *f = viz_fonts_open(NULL, err, sizeof err);
    assert_non_null(f);
    assert_string_equal(err, "");
    viz_fonts_close(f);
    viz_fonts_close(NULL); // no-op
}

static void measure_basics(void **state) {
    (void)state;
    assert_true(measure("它", 20) > 0);
    assert_true(measure("ab", 20) < measure("abcd", 20));
    assert_true(measure("abcd", 14) < measure("abcd", 40));
    assert_true(measure("", 20) == 0);
    // sizes round to whole pixels
    assert_true(measure("abcd", 20.2f) == measure("abcd", 20));
    // only len bytes count
    viz_measure m = viz_fonts_measure(g_fonts);
    assert_true(m.width(m.ctx, "abcd", 2, 20) == measure("ab", 20));
}

/* ᵀ and ₖ come from the fallback: the primary lacks them, and the width of
 * "QKᵀ" is exactly the primary's "QK" plus the fallback's "ᵀ". */
static void measure_uses_fallback_glyphs(void **state) {
    (void)state;
    TTF_Font *wqy = open_family("WenQuanYi Micro Hei", 20);
    TTF_Font *dejavu = open_family("DejaVu Sans", 20);
    assert_non_null(wqy);
    assert_non_null(dejavu);
    assert_false(TTF_GlyphIsProvided32(wqy, 0x1D40)); // ᵀ
    assert_false(TTF_GlyphIsProvided32(wqy, 0x2096)); // ₖ
    assert_true(TTF_GlyphIsProvided32(dejavu, 0x1D40));
    assert_true(TTF_GlyphIsProvided32(dejavu, 0x2096));
    int sup = 0, sub = 0;
    assert_int_equal(TTF_SizeUTF8(dejavu, "ᵀ", &sup, NULL), 0);
    assert_int_equal(TTF_SizeUTF8(dejavu, "ₖ", &sub, NULL), 0);
    assert_true(sup > 0 && sub > 0);
    assert_true(measure("QKᵀ", 20) > measure("QK", 20));
    assert_true(measure("QKᵀ", 20) == measure("QK", 20) + (float)sup);
    assert_true(measure("dₖ", 20) == measure("d", 20) + (float)sub);
    TTF_CloseFont(wqy);
    TTF_CloseFont(dejavu);
}

/* Removes dir and the plain files in it. */
static void remove_flat_dir(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d));) {
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

/* viz_fonts_open(NULL) in a child whose fontconfig only knows the DejaVu folder
 * (no CJK font at all); returns what it wrote in err. */
static void open_without_cjk(const char *conf, char *out, size_t cap) {
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char err[512] = "";
        setenv("FONTCONFIG_FILE", conf, 1);
        FcInitReinitialize();
        viz_fonts *f = viz_fonts_open(NULL, err, sizeof err);
        const char *msg = f ? "OPENED" : err;
        ssize_t n = write(fds[1], msg, strlen(msg));
        _exit(n < 0);
    }
    close(fds[1]);
    ssize_t n = read(fds[0], out, cap - 1);
    out[n > 0 ? n : 0] = '\0';
    close(fds[0]);
    waitpid(pid, NULL, 0);
}

/* A fontconfig configuration that knows only the folder of family's file:
 * dir ("/tmp/attnviz-fc-XXXXXX") is made, conf and cache (256 bytes each)
 * name its fonts.conf and cache folder. remove_config takes it away. */
static void config_with_only(const char *family, char *dir, char *conf, char *cache) {
    char *file = family_file(family);
    assert_non_null(file);
    assert_non_null(mkdtemp(dir));
    snprintf(conf, 256, "%s/fonts.conf", dir);
    snprintf(cache, 256, "%s/cache", dir);
    FILE *fp = fopen(conf, "w");
    assert_non_null(fp);
    fprintf(fp, "<?xml version=\"1.0\"?>\n<fontconfig><dir>%s</dir><cachedir>%s</cachedir></fontconfig>\n",
            dirname(file), cache);
    fclose(fp);
    free(file);
}

static void remove_config(const char *dir, const char *conf, const char *cache) {
    remove_flat_dir(cache);
    unlink(conf);
    rmdir(dir);
}

static void no_cjk_font_names_the_package(void **state) {
    (void)state;
    char tmp[] = "/tmp/attnviz-fc-XXXXXX", conf[256], cache[256];
    config_with_only("DejaVu Sans", tmp, conf, cache);
    char msg[512];
    open_without_cjk(conf, msg, sizeof msg);
    assert_non_null(strstr(msg, "No Chinese font found"));
    assert_non_null(strstr(msg, "fonts-wqy-microhei"));
    assert_non_null(strstr(msg, "--font FILE"));
    remove_config(tmp, conf, cache);
}

/* With only WenQuanYi Micro Hei's folder (no DejaVu, no Symbola) the fonts
 * still open and draw UI text, code and an emoji: a missing fallback is
 * skipped, never an error. Run in a child: fontconfig's configuration is global. */
static void missing_fallbacks_are_skipped(void **state) {
    (void)state;
    char tmp[] = "/tmp/attnviz-fc-XXXXXX", conf[256], cache[256];
    config_with_only("WenQuanYi Micro Hei", tmp, conf, cache);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char err[512] = "", out[600];
        setenv("FONTCONFIG_FILE", conf, 1);
        FcInitReinitialize();
        viz_fonts *f = viz_fonts_open(NULL, err, sizeof err);
        viz_list l = {0};
        viz_text(&l, 0, 0, 100, 30, "它 QKᵀ 😀", 16, VIZ_LEFT, BLACK);
        viz_text_font(&l, 0, 40, 100, 30, "x = 1  # 注释", 16, VIZ_LEFT, BLACK, VIZ_FONT_MONO);
        SDL_Surface *s = f ? viz_sdl_render_surface(f, &l, 200, 80, WHITE) : NULL;
        snprintf(out, sizeof out, "%s symbola=%d dejavu=%d", s ? "DRAWN" : err, viz_fonts_has_face(f, "Symbola"),
                 viz_fonts_has_face(f, "DejaVu Sans Mono"));
        ssize_t n = write(fds[1], out, strlen(out));
        _exit(n < 0);
    }
    close(fds[1]);
    char msg[700];
    ssize_t n = read(fds[0], msg, sizeof msg - 1);
    msg[n > 0 ? n : 0] = '\0';
    close(fds[0]);
    waitpid(pid, NULL, 0);
    if (strcmp(msg, "DRAWN symbola=0 dejavu=0") != 0) fail_msg("%s", msg);
    remove_config(tmp, conf, cache);
}

static void font_override_missing_file(void **state) {
    (void)state;
    char err[512] = "";
    const char *path = "/nonexistent-attnviz/none.ttf";
    assert_null(viz_fonts_open(path, err, sizeof err));
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "--font"));
}

static void font_override_not_a_font(void **state) {
    (void)state;
    char path[] = "/tmp/attnviz-notfont-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "not a font\n", 11), 11);
    close(fd);
    char err[512] = "";
    assert_null(viz_fonts_open(path, err, sizeof err));
    assert_non_null(strstr(err, path));
    unlink(path);
}

static void font_override_used_as_primary(void **state) {
    (void)state;
    char *path = family_file("DejaVu Sans");
    assert_non_null(path);
    char err[512] = "";
    viz_fonts *f = viz_fonts_open(path, err, sizeof err);
    assert_non_null(f);
    TTF_Font *dejavu = open_family("DejaVu Sans", 20);
    int w = 0;
    TTF_SizeUTF8(dejavu, "QKᵀ", &w, NULL);
    viz_measure m = viz_fonts_measure(f);
    assert_true(m.width(m.ctx, "QKᵀ", strlen("QKᵀ"), 20) == (float)w);
    TTF_CloseFont(dejavu);
    viz_fonts_close(f);
    free(path);
}

/* Code is set in WenQuanYi Micro Hei Mono (face 1 of wqy-microhei.ttc, found
 * through fontconfig): every Latin character one advance, as in DejaVu Sans
 * Mono, and unlike the UI's face. */
static void mono_face_for_code(void **state) {
    (void)state;
    assert_true(viz_fonts_has_face(g_fonts, "WenQuanYi Micro Hei Mono"));
    assert_true(viz_fonts_has_face(g_fonts, "DejaVu Sans Mono"));
    viz_measure m = viz_fonts_measure(g_fonts);
    assert_non_null(m.mono);
    float i4 = m.mono(m.ctx, "iiii", 4, 16), w4 = m.mono(m.ctx, "WWWW", 4, 16);
    assert_true(i4 > 0 && i4 == w4);
    assert_true(m.width(m.ctx, "iiii", 4, 16) < m.width(m.ctx, "WWWW", 4, 16)); // the UI's face is proportional
    TTF_Font *wqy_mono = NULL;
    FcPattern *pat = FcNameParse((const FcChar8 *)"WenQuanYi Micro Hei Mono");
    FcResult res;
    FcChar8 *file = NULL;
    int index = -1;
    FcConfigSubstitute(NULL, pat, FcMatchPattern);
    FcDefaultSubstitute(pat);
    FcPattern *match = FcFontMatch(NULL, pat, &res);
    assert_non_null(match);
    assert_int_equal(FcPatternGetString(match, FC_FILE, 0, &file), FcResultMatch);
    assert_int_equal(FcPatternGetInteger(match, FC_INDEX, 0, &index), FcResultMatch);
    assert_int_equal(index, 1); // the .ttc's second face
    wqy_mono = TTF_OpenFontIndex((const char *)file, 16, index);
    assert_non_null(wqy_mono);
    int w = 0;
    TTF_SizeUTF8(wqy_mono, "它 = x", &w, NULL);
    assert_true(m.mono(m.ctx, "它 = x", strlen("它 = x"), 16) == (float)w); // measured in that face
    TTF_CloseFont(wqy_mono);
    FcPatternDestroy(match);
    FcPatternDestroy(pat);
}

/* Emoji draw in Symbola (fonts-symbola, installed by scripts/install-deps.sh):
 * ink, and not the empty box a code point that no font has gets. */
static void emoji_draw_in_symbola(void **state) {
    (void)state;
    if (!viz_fonts_has_face(g_fonts, "Symbola")) fail_msg("Symbola is missing: install fonts-symbola");
    viz_list l = {0};
    viz_text(&l, 10, 10, 60, 40, "😀", 30, VIZ_LEFT | VIZ_TOP, BLACK);
    viz_text(&l, 110, 10, 60, 40, "\xf4\x8f\xbf\xbd", 30, VIZ_LEFT | VIZ_TOP, BLACK); // U+10FFFD: in no font
    SDL_Surface *s = render(&l);
    SDL_Rect a, b;
    int na = ink(s, 0, 0, 100, H, WHITE, &a), nb = ink(s, 100, 0, 200, H, WHITE, &b);
    assert_true(na > 50);
    // the same glyph would give the same count of inked pixels; a face gives another shape
    assert_true(na != nb);
    viz_measure m = viz_fonts_measure(g_fonts);
    assert_true(m.width(m.ctx, "😀", strlen("😀"), 30) > 15);
    SDL_FreeSurface(s);
    viz_free(&l);
}

/* ---- rendering ---- */

static void render_primitives(void **state) {
    (void)state;
    viz_list l = {0};
    sample_list(&l);
    SDL_Surface *s = render(&l);
    assert_int_equal(s->w, W);
    assert_int_equal(s->h, H);
    assert_int_equal(s->format->format, SDL_PIXELFORMAT_ARGB8888);
    // fill: inside, edges, and just outside
    assert_pixel(s, 30, 25, RED);
    assert_pixel(s, 10, 10, RED);
    assert_pixel(s, 49, 39, RED);
    assert_pixel(s, 9, 9, WHITE);
    assert_pixel(s, 50, 40, WHITE);
    // grid: cell centres and both sides of the cell borders (20 px cells)
    assert_pixel(s, 70, 20, BLUE);
    assert_pixel(s, 90, 20, GREEN);
    assert_pixel(s, 70, 40, YELLOW);
    assert_pixel(s, 90, 40, PURPLE);
    assert_pixel(s, 79, 29, BLUE);
    assert_pixel(s, 80, 29, GREEN);
    assert_pixel(s, 79, 30, YELLOW);
    assert_pixel(s, 80, 30, PURPLE);
    assert_pixel(s, 100, 20, WHITE);
    // line: 4 px thick around y = 20
    assert_pixel(s, 150, 19, DARK);
    assert_pixel(s, 150, 20, DARK);
    assert_pixel(s, 150, 15, WHITE);
    assert_pixel(s, 150, 25, WHITE);
    // text: something drawn in its box, nothing below it
    assert_true(ink(s, 10, 55, 190, 95, WHITE, NULL) > 50);
    assert_int_equal(ink(s, 0, 96, W, H, WHITE, NULL), 0);
    SDL_FreeSurface(s);
    viz_free(&l);
}

static void render_is_deterministic(void **state) {
    (void)state;
    viz_list l = {0};
    sample_list(&l);
    SDL_Surface *a = render(&l), *b = render(&l);
    assert_true(surfaces_equal(a, b));
    SDL_FreeSurface(a);
    SDL_FreeSurface(b);
    viz_free(&l);
}

static SDL_Rect text_ink(const char *text, float x, float y, float w, float h, int align) {
    viz_list l = {0};
    viz_text(&l, x, y, w, h, text, 20, align, BLACK);
    SDL_Surface *s = render(&l);
    SDL_Rect box;
    assert_true(ink(s, 0, 0, W, H, WHITE, &box) > 0);
    SDL_FreeSurface(s);
    viz_free(&l);
    return box;
}

static void render_text_alignment(void **state) {
    (void)state;
    SDL_Rect tl = text_ink("Hab", 0, 0, W, H, VIZ_LEFT | VIZ_TOP);
    assert_true(tl.x <= 4 && tl.y <= 10);
    SDL_Rect br = text_ink("Hab", 0, 0, W, H, VIZ_RIGHT | VIZ_BOTTOM);
    assert_true(br.x + br.w >= W - 4 && br.x + br.w <= W);
    assert_true(br.y + br.h >= H - 10 && br.y + br.h <= H);
    SDL_Rect mid = text_ink("Hab", 0, 0, W, H, VIZ_CENTER | VIZ_MIDDLE);
    assert_true(abs(mid.x + mid.w / 2 - W / 2) <= 4);
    assert_true(abs(mid.y + mid.h / 2 - H / 2) <= 6);
}

/* Right-aligned text ends exactly where left-aligned text of the measured width
 * would: drawing and measuring agree to the pixel. */
static void render_text_width_matches_measure(void **state) {
    (void)state;
    const char *text = "它 QKᵀ/√dₖ ab";
    float w = measure(text, 20);
    viz_list a = {0}, b = {0};
    viz_text(&a, 0, 0, 190, 40, text, 20, VIZ_RIGHT, BLACK);
    viz_text(&b, 190 - w, 0, w, 40, text, 20, VIZ_LEFT, BLACK);
    SDL_Surface *sa = render(&a), *sb = render(&b);
    assert_true(ink(sa, 0, 0, W, H, WHITE, NULL) > 0);
    assert_true(surfaces_equal(sa, sb));
    SDL_FreeSurface(sa);
    SDL_FreeSurface(sb);
    viz_free(&a);
    viz_free(&b);
}

/* Ink box of last in prefix + last, drawn at the top-left at 40 px. */
static SDL_Rect trailing_ink(const char *prefix, const char *last) {
    char text[64];
    snprintf(text, sizeof text, "%s%s", prefix, last);
    viz_list l = {0};
    viz_text(&l, 0, 0, W, H, text, 40, VIZ_LEFT | VIZ_TOP, BLACK);
    SDL_Surface *s = render(&l);
    SDL_Rect box;
    assert_true(ink(s, (int)measure(prefix, 40) + 1, 0, (int)measure(text, 40), H, WHITE, &box) > 0);
    SDL_FreeSurface(s);
    viz_free(&l);
    return box;
}

static void assert_same_rows(SDL_Rect a, SDL_Rect b) {
    assert_int_equal(a.y, b.y);
    assert_int_equal(a.h, b.h);
}

/* Runs share one baseline: "x" (primary) sits at the same height after a
 * fallback glyph, and "ᵀ" (fallback) at the same height whether its run also
 * holds Ṏ, a glyph taller than the ascent that makes SDL_ttf grow the run's
 * surface upwards, or not. */
static void render_text_baseline_shared(void **state) {
    (void)state;
    assert_same_rows(trailing_ink("ᵀ", "x"), trailing_ink("a", "x"));
    assert_same_rows(trailing_ink("Ṏ", "x"), trailing_ink("a", "x"));
    assert_same_rows(trailing_ink("Ṏ", "ᵀ"), trailing_ink("a", "ᵀ"));
}

static void render_text_not_clipped_to_box(void **state) {
    (void)state;
    SDL_Rect box = text_ink("abcdef", 0, 0, 10, 30, VIZ_LEFT);
    assert_true(box.x + box.w > 30);
}

static void render_clip(void **state) {
    (void)state;
    viz_list l = {0};
    viz_clip(&l, 0, 0, 100, 100);
    viz_fill(&l, 0, 0, W, H, RED);
    viz_text(&l, 90, 0, 100, 40, "abcdef", 30, VIZ_LEFT, BLACK);
    viz_clip(&l, 0, 0, 0, 0);
    viz_fill(&l, 0, 90, W, 10, BLUE);
    SDL_Surface *s = render(&l);
    assert_pixel(s, 50, 50, RED);
    assert_pixel(s, 99, 50, RED);
    assert_pixel(s, 100, 50, WHITE);
    assert_int_equal(ink(s, 100, 0, W, 90, WHITE, NULL), 0);
    assert_pixel(s, 150, 95, BLUE);
    SDL_FreeSurface(s);
    viz_free(&l);
}

static void render_stroke_inside(void **state) {
    (void)state;
    viz_list l = {0};
    viz_stroke(&l, 10, 10, 20, 20, 2, RED);
    viz_stroke(&l, 50, 10, 20, 20, 1.4f, BLUE); // rounds to 1 px
    SDL_Surface *s = render(&l);
    assert_pixel(s, 10, 10, RED);
    assert_pixel(s, 11, 11, RED);
    assert_pixel(s, 12, 12, WHITE);
    assert_pixel(s, 29, 29, RED);
    assert_pixel(s, 28, 28, RED);
    assert_pixel(s, 27, 27, WHITE);
    assert_pixel(s, 20, 10, RED);
    assert_pixel(s, 10, 20, RED);
    assert_pixel(s, 20, 20, WHITE);
    assert_pixel(s, 9, 9, WHITE);
    assert_pixel(s, 30, 30, WHITE);
    assert_pixel(s, 50, 20, BLUE);
    assert_pixel(s, 51, 20, WHITE);
    assert_pixel(s, 69, 20, BLUE);
    SDL_FreeSurface(s);
    viz_free(&l);
}

static void render_alpha_blends(void **state) {
    (void)state;
    viz_list l = {0};
    viz_fill(&l, 0, 0, 50, 50, (viz_rgba){0, 0, 0, 128});
    viz_line(&l, 60, 10, 190, 10, 6, (viz_rgba){0, 0, 0, 128});
    SDL_Surface *s = render(&l);
    viz_rgba f = pixel(s, 25, 25), ln = pixel(s, 120, 10);
    assert_true(f.r >= 125 && f.r <= 129 && f.r == f.g && f.g == f.b && f.a == 255);
    assert_true(ln.r >= 125 && ln.r <= 129 && ln.a == 255);
    SDL_FreeSurface(s);
    viz_free(&l);
}

/* Grids drawn into one surface over two frames each show their own colours. */
static void render_grids_across_frames(void **state) {
    (void)state;
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, W, H, 32, SDL_PIXELFORMAT_ARGB8888);
    viz_list l = {0};
    const viz_rgba pal[4] = {RED, BLUE, GREEN, YELLOW};
    for (int frame = 0; frame < 2; frame++) {
        viz_clear(&l);
        for (int g = 0; g < 3; g++) {
            viz_rgba *c = viz_grid(&l, (float)(g * 50), 0, 40, 40, 1, 2);
            c[0] = pal[(g + frame) % 4];
            c[1] = pal[(g + frame + 1) % 4];
        }
        assert_int_equal(viz_sdl_draw(s, g_fonts, &l, NULL, WHITE), 0);
        for (int g = 0; g < 3; g++) {
            assert_pixel(s, g * 50 + 10, 20, pal[(g + frame) % 4]);
            assert_pixel(s, g * 50 + 30, 20, pal[(g + frame + 1) % 4]);
        }
    }
    SDL_FreeSurface(s);
    viz_free(&l);
}

/* More distinct strings than the text cache holds, drawn twice: eviction
 * works and nothing fails. */
static void render_text_cache_eviction(void **state) {
    (void)state;
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, W, H, 32, SDL_PIXELFORMAT_ARGB8888);
    viz_list l = {0};
    for (int i = 0; i < 4200; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "%d", i);
        viz_text(&l, (float)(i % 180), (float)(i % 90), 20, 10, buf, 10, VIZ_LEFT, BLACK);
    }
    assert_int_equal(viz_sdl_draw(s, g_fonts, &l, NULL, WHITE), 0);
    assert_int_equal(viz_sdl_draw(s, g_fonts, &l, NULL, WHITE), 0);
    SDL_FreeSurface(s);
    viz_free(&l);
}

/* Warming (the window's idle drawing of the steps likely next): a text with
 * a glyph missing from every face fails to draw and is not cached, so a
 * frame shown later still asks for the face (the browser's late Symbola);
 * the rest warms as usual, and a frame drawn after warming in bands has
 * the pixels of one drawn cold. U+10FFFD is in no font. */
static void warming_keeps_missing_glyphs_out(void **state) {
    (void)state;
    char err[512] = "";
    viz_fonts *f = viz_fonts_open(NULL, err, sizeof err); // cold caches of its own
    assert_non_null(f);
    viz_list l = {0}, missing = {0};
    sample_list(&l);
    viz_text(&missing, 10, 10, 180, 40, "x\xF4\x8F\xBF\xBD", 20, VIZ_LEFT, BLACK);
    SDL_Surface *cold = render(&l), *s = SDL_CreateRGBSurfaceWithFormat(0, W, H, 32, SDL_PIXELFORMAT_ARGB8888);
    assert_non_null(s);
    viz_fonts_warming(f, true);
    assert_int_equal(viz_sdl_draw(s, f, &missing, NULL, WHITE), -1);
    assert_int_equal(viz_sdl_draw(s, f, &missing, NULL, WHITE), -1); // the first was not cached either
    for (int y = 0; y < H; y += 25) {                                // in bands, as the window warms
        SDL_Rect band = {0, y, W, 25};
        assert_int_equal(viz_sdl_draw(s, f, &l, &band, WHITE), 0);
    }
    viz_fonts_warming(f, false);
    assert_int_equal(viz_sdl_draw(s, f, &missing, NULL, WHITE), 0); // shown: drawn with the lead face's box
    assert_int_equal(viz_sdl_draw(s, f, &l, NULL, WHITE), 0);
    assert_true(surfaces_equal(s, cold));
    SDL_FreeSurface(cold);
    SDL_FreeSurface(s);
    viz_free(&l);
    viz_free(&missing);
    viz_fonts_close(f);
}

/* ---- screenshots ---- */

static void save_png_round_trip(void **state) {
    (void)state;
    char dir[] = "/tmp/attnviz-png-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/shot.png", dir);
    viz_list l = {0};
    sample_list(&l);
    SDL_Surface *s = render(&l);
    attn_err err;
    assert_int_equal(viz_save_png(s, path, NULL, &err), ATTN_OK);
    assert_int_equal(dir_entries(dir), 1); // no temporary file left
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644);
    SDL_Surface *back = IMG_Load(path);
    assert_non_null(back);
    assert_int_equal(back->w, W);
    assert_int_equal(back->h, H);
    SDL_Surface *conv = SDL_ConvertSurfaceFormat(back, SDL_PIXELFORMAT_ARGB8888, 0);
    assert_true(surfaces_equal(s, conv)); // PNG is lossless
    SDL_FreeSurface(conv);
    SDL_FreeSurface(back);
    SDL_FreeSurface(s);
    viz_free(&l);
    unlink(path);
    rmdir(dir);
}

static void save_png_missing_folder(void **state) {
    (void)state;
    const char *path = "/tmp/attnviz-no-such-folder-7d1c/shot.png";
    viz_list l = {0};
    viz_fill(&l, 0, 0, 10, 10, RED);
    SDL_Surface *s = render(&l);
    attn_err err;
    assert_int_equal(viz_save_png(s, path, NULL, &err), ATTN_ERR_IO);
    char want[300];
    snprintf(want, sizeof want, "Cannot write %s: No such file or directory.", path);
    assert_string_equal(err.msg, want);
    struct stat st;
    assert_int_not_equal(stat("/tmp/attnviz-no-such-folder-7d1c", &st), 0);
    SDL_FreeSurface(s);
    viz_free(&l);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fonts_open_via_fontconfig),
        cmocka_unit_test(measure_basics),
        cmocka_unit_test(measure_uses_fallback_glyphs),
        cmocka_unit_test(no_cjk_font_names_the_package),
        cmocka_unit_test(font_override_missing_file),
        cmocka_unit_test(font_override_not_a_font),
        cmocka_unit_test(font_override_used_as_primary),
        cmocka_unit_test(mono_face_for_code),
        cmocka_unit_test(emoji_draw_in_symbola),
        cmocka_unit_test(missing_fallbacks_are_skipped),
        cmocka_unit_test(render_primitives),
        cmocka_unit_test(render_is_deterministic),
        cmocka_unit_test(render_text_alignment),
        cmocka_unit_test(render_text_width_matches_measure),
        cmocka_unit_test(render_text_baseline_shared),
        cmocka_unit_test(render_text_not_clipped_to_box),
        cmocka_unit_test(render_clip),
        cmocka_unit_test(render_stroke_inside),
        cmocka_unit_test(render_alpha_blends),
        cmocka_unit_test(render_grids_across_frames),
        cmocka_unit_test(render_text_cache_eviction),
        cmocka_unit_test(warming_keeps_missing_glyphs_out),
        cmocka_unit_test(save_png_round_trip),
        cmocka_unit_test(save_png_missing_folder),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
