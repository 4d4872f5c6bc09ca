/* viz_fonts.c — fonts found through fontconfig, opened per pixel size, with a
 * per-glyph fallback, plus the cache of rendered lines of text (coverage). */
#include "viz_fonts_internal.h"

#include <SDL_ttf.h>
#include <errno.h>
#include <fcntl.h>
#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#else
#include <fontconfig/fontconfig.h>
#endif
#include <limits.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "utf8.h"

#define PRIMARY_FAMILY "WenQuanYi Micro Hei"
#define FALLBACK_FAMILY "DejaVu Sans"
#define MONO_FAMILY "WenQuanYi Micro Hei Mono" /* face 1 of wqy-microhei.ttc */
#define MONO_FALLBACK_FAMILY "DejaVu Sans Mono"
#define SYMBOLS_FAMILY "Symbola"          /* fonts-symbola: monochrome emoji SDL_ttf can scale (the colour font is a fixed bitmap) */
#define LATE_URL "fonts/Symbola_hint.ttf" /* the browser's: beside index.html, fetched when first needed */
#define LATE_FILE "/fonts/Symbola_hint.ttf"
#define CJK_PROBE 0x5B83u /* 它: any font that has it covers the lessons */
#define MIN_PX 1
#define MAX_PX 512
#define CHECK_PX 16                    /* size opened at start to prove the files load */
#define MAX_SIZES 16                   /* pixel sizes open at once (a presenter's window uses about 12); each holds FreeType caches */
#define CACHE_MAX 4096                 /* cached lines of text */
#define CACHE_BUDGET ((size_t)4 << 20) /* coverage bytes across them: bounded memory (a 4K window's text fits) */
#define MEASURE_SLOTS 8192             /* direct-mapped cache of text widths (layout measures a lot) */
#define MEASURE_TEXT 120               /* longer strings are measured every time */
#define CACHE_BUCKETS 4096             /* power of two */

/* The font files, each found on its own; a face that is missing is skipped. */
typedef enum { FACE_SANS,
               FACE_SANS_FALLBACK,
               FACE_MONO,
               FACE_MONO_FALLBACK,
               FACE_SYMBOLS,
               FACE_COUNT } face_id;

/* Where a style looks for a glyph, in order (FACE_COUNT ends the list); the
 * first face of the list that exists sets the line's height and baseline. */
static const face_id chains[VIZ_FONT_COUNT][FACE_COUNT + 1] = {
    [VIZ_FONT_SANS] = {FACE_SANS, FACE_SANS_FALLBACK, FACE_SYMBOLS, FACE_COUNT},
    [VIZ_FONT_MONO] = {FACE_MONO, FACE_MONO_FALLBACK, FACE_SANS, FACE_SANS_FALLBACK, FACE_SYMBOLS, FACE_COUNT},
};

/* Every face opened at one pixel size, each on first use. */
typedef struct {
    int px;                     /* 0: slot unused */
    TTF_Font *font[FACE_COUNT]; /* NULL until opened, or when its file is missing or unreadable */
    bool tried[FACE_COUNT];     /* opening it was attempted */
    unsigned long used;         /* tick of last use, for eviction */
} sized_fonts;

/* One cached line of text as coverage; key is (text, px, font): colour is
 * applied when drawing, so one entry serves every colour. */
typedef struct text_entry {
    struct text_entry *chain;         /* next in the hash bucket */
    struct text_entry *newer, *older; /* LRU list */
    uint32_t hash;                    /* text_hash(text, strlen(text), px, font) */
    int px;                           /* font size in whole pixels */
    viz_font font;                    /* its style */
    unsigned long held;               /* the hold (viz_fonts_hold) it was last used in */
    uint8_t *cov;                     /* w×h coverage bytes (owned); NULL: nothing visible */
    viz_text_img img;                 /* what viz_fonts_text returns */
    size_t bytes;                     /* size of cov */
    char text[];                      /* the key's text, NUL-terminated */
} text_entry;

/* A font file mapped read-only: FreeType then reads glyphs from memory instead
 * of seeking in a stdio stream for each one (CJK text loads many). */
typedef struct {
    void *data; /* NULL: not mapped, open the file by name */
    size_t size;
} font_map;

/* A font file and where it lives in memory. */
typedef struct {
    char *path;   /* NULL: not found (skipped) */
    int index;    /* face index inside a .ttc */
    font_map map; /* the file mapped into memory, shared by every size */
} face;

/* One remembered width: text (len bytes) at px in font is w pixels wide. */
typedef struct {
    int px; /* 0: empty */
    int w;
    uint8_t len;
    uint8_t font;
    char text[MEASURE_TEXT];
} measure_slot;

struct viz_fonts {
    face faces[FACE_COUNT]; /* the files; FACE_SANS is always found */
    measure_slot *measures; /* MEASURE_SLOTS widths; NULL if it could not be allocated */
    sized_fonts sizes[MAX_SIZES];
    uint8_t slot_of[MAX_PX + 1]; /* the slot of sizes holding pixel size px, plus one; 0: none */
    unsigned long tick;
    text_entry *bucket[CACHE_BUCKETS]; /* hash chains of cached lines */
    text_entry *newest, *oldest;       /* LRU order */
    unsigned long hold;                /* lines used since the last viz_fonts_hold are never evicted */
    int count;                         /* cached lines */
    size_t bytes;                      /* coverage bytes across them */
    char *scratch;                     /* NUL-terminated copy of a run for SDL_ttf */
    size_t scratch_cap;
    bool changed; /* a face came late (the browser's Symbola): viz_fonts_changed says so once */
    bool warming; /* viz_fonts_warming: a missing glyph fetches nothing and what needed it is not kept */
    bool missed;  /* while warming: a glyph was missing from every face since this was cleared */
};

static void cache_remove(viz_fonts *f, struct text_entry *e);
static void map_font(font_map *m, const char *path);

static void set_err(char *err, size_t cap, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void set_err(char *err, size_t cap, const char *fmt, ...) {
    if (!err || cap == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
}

/* ---- fontconfig ---- */

typedef enum {
    FC_ANY,  /* whatever fontconfig answers (the Latin fallback: any font draws ᵀ better than none) */
    FC_CJK,  /* the family, or any font with 它 (fontconfig always answers, often with a Latin font) */
    FC_EXACT /* the family itself, else nothing: a missing fallback is skipped, never replaced */
} fc_want;

#ifdef __EMSCRIPTEN__
/* The browser has no fontconfig: the site's data bundle carries the fonts
 * in /fonts (scripts/build-web.sh copies them from Debian's font packages).
 * A family is its file there, or missing (then skipped, as a fallback that
 * is not installed on the desktop). */
static char *fc_find(const char *family, fc_want want, int *index) {
    static const struct {
        const char *family, *file;
        int index;
    } bundle[] = {
        {PRIMARY_FAMILY, "/fonts/wqy-microhei.ttc", 0},
        {MONO_FAMILY, "/fonts/wqy-microhei.ttc", 1},
        {FALLBACK_FAMILY, "/fonts/DejaVuSans.ttf", 0},
        {MONO_FALLBACK_FAMILY, "/fonts/DejaVuSansMono.ttf", 0},
        {SYMBOLS_FAMILY, LATE_FILE, 0}, // there once fetched (late_fetch)
    };
    (void)want;
    for (size_t i = 0; i < sizeof bundle / sizeof *bundle; i++)
        if (strcmp(bundle[i].family, family) == 0 && access(bundle[i].file, R_OK) == 0) {
            *index = bundle[i].index;
            return strdup(bundle[i].file);
        }
    return NULL;
}

/* Symbola (3 MB, for emoji and rare symbols) is not in the data bundle the
 * first frame waits for: the site carries it as fonts/Symbola_hint.ttf
 * (scripts/build-web.sh), fetched the first time a glyph is missing from
 * every bundled face, written where fc_find looks and then opened as the
 * others. Until it arrives such glyphs show as boxes; viz_fonts_changed
 * then has the window measure and draw again. One fetch per page. */
#define LATE_OWNERS 8
static viz_fonts *late_owners[LATE_OWNERS]; /* the fonts open now: the late face goes to each */
static bool late_asked;

/* The late face is in LATE_FILE: every size opens it on next use, and the
 * lines of text and widths measured without it are forgotten. */
static void late_arrived(viz_fonts *f) {
    face *fc = &f->faces[FACE_SYMBOLS];
    if (fc->path || !(fc->path = strdup(LATE_FILE))) return;
    fc->index = 0;
    map_font(&fc->map, fc->path);
    for (int i = 0; i < MAX_SIZES; i++) f->sizes[i].tried[FACE_SYMBOLS] = false;
    while (f->newest) cache_remove(f, f->newest); // called between frames: no line is held
    if (f->measures) memset(f->measures, 0, MEASURE_SLOTS * sizeof *f->measures);
    f->changed = true;
}

static void late_loaded(void *arg, void *data, int size) {
    (void)arg;
    FILE *fp = fopen(LATE_FILE, "wb");
    bool ok = fp && size > 0 && fwrite(data, 1, (size_t)size, fp) == (size_t)size;
    if (fp && fclose(fp) != 0) ok = false;
    if (!ok) remove(LATE_FILE); // never half a font
    for (int i = 0; ok && i < LATE_OWNERS; i++)
        if (late_owners[i]) late_arrived(late_owners[i]);
}

static void late_failed(void *arg) {
    (void)arg; // offline before it came: the glyphs stay boxes
}

/* A glyph is missing from every face there is: fetches the late one. */
static void late_fetch(void) {
    if (late_asked) return;
    late_asked = true;
    emscripten_async_wget_data(LATE_URL, NULL, late_loaded, late_failed);
}
#else
static bool fc_is_family(FcPattern *match, const char *family) {
    FcChar8 *name = NULL;
    for (int i = 0; FcPatternGetString(match, FC_FAMILY, i, &name) == FcResultMatch; i++)
        if (FcStrCmpIgnoreCase(name, (const FcChar8 *)family) == 0) return true;
    return false;
}

static bool fc_has_char(FcPattern *match, FcChar32 cp) {
    FcCharSet *cs = NULL;
    return FcPatternGetCharSet(match, FC_CHARSET, 0, &cs) == FcResultMatch && FcCharSetHasChar(cs, cp);
}

/* fontconfig's best scalable match for family: a malloc'd file path and its
 * face index, or NULL when the match is not what want asks for. */
static char *fc_find(const char *family, fc_want want, int *index) {
    char *path = NULL;
    FcPattern *match = NULL;
    FcChar8 *file = NULL;
    FcResult res;
    FcPattern *pat = FcPatternCreate();
    if (!pat) return NULL;
    FcPatternAddString(pat, FC_FAMILY, (const FcChar8 *)family);
    FcPatternAddBool(pat, FC_SCALABLE, FcTrue);
    // if the family is missing, prefer any Chinese font over a Latin one
    if (want == FC_CJK) FcPatternAddString(pat, FC_LANG, (const FcChar8 *)"zh-cn");
    if (!FcConfigSubstitute(NULL, pat, FcMatchPattern)) goto cleanup;
    FcDefaultSubstitute(pat);
    match = FcFontMatch(NULL, pat, &res);
    if (!match || FcPatternGetString(match, FC_FILE, 0, &file) != FcResultMatch) goto cleanup;
    if (want == FC_CJK && !fc_is_family(match, family) && !fc_has_char(match, CJK_PROBE)) goto cleanup;
    if (want == FC_EXACT && !fc_is_family(match, family)) goto cleanup;
    if (FcPatternGetInteger(match, FC_INDEX, 0, index) != FcResultMatch) *index = 0;
    path = strdup((const char *)file);
cleanup:
    if (match) FcPatternDestroy(match);
    FcPatternDestroy(pat);
    return path;
}
#endif

/* ---- fonts per size ---- */

static int px_of(float size) {
    if (!(size >= MIN_PX)) return MIN_PX; // also catches NaN
    if (size >= MAX_PX) return MAX_PX;
    return (int)lroundf(size);
}

static void close_sized(sized_fonts *s) {
    for (int i = 0; i < FACE_COUNT; i++)
        if (s->font[i]) TTF_CloseFont(s->font[i]);
    memset(s, 0, sizeof *s);
}

/* The slot to (re)use for a new size: a free one, else the least recently used. */
static sized_fonts *victim_slot(viz_fonts *f) {
    sized_fonts *v = &f->sizes[0];
    for (int i = 0; i < MAX_SIZES; i++) {
        sized_fonts *s = &f->sizes[i];
        if (s->px == 0) return s;
        if (s->used < v->used) v = s;
    }
    return v;
}

static void map_font(font_map *m, const char *path) {
    m->data = NULL;
    int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    struct stat st;
    if (fd < 0) return;
    if (fstat(fd, &st) == 0 && st.st_size > 0 && st.st_size <= INT_MAX) { // SDL_RWops sizes are ints
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED) {
            posix_madvise(p, (size_t)st.st_size, POSIX_MADV_RANDOM); // glyphs are read here and there, not in order
            m->data = p;
            m->size = (size_t)st.st_size;
        }
    }
    close(fd);
}

static void unmap_font(font_map *m) {
    if (m->data) munmap(m->data, m->size);
    m->data = NULL;
}

static TTF_Font *open_face(const face *fc, int px) {
    if (!fc->path) return NULL;
    if (!fc->map.data) return TTF_OpenFontIndex(fc->path, px, fc->index);
    SDL_RWops *rw = SDL_RWFromConstMem(fc->map.data, (int)fc->map.size);
    return rw ? TTF_OpenFontIndexRW(rw, 1, px, fc->index) : NULL; // closing the font closes rw, not the map
}

/* Face i at the slot's size, opened on first use; NULL when it is missing
 * (a fallback that fails to open only costs its glyphs, not the text). */
static TTF_Font *face_at(const viz_fonts *f, sized_fonts *s, face_id i) {
    if (!s->tried[i]) {
        s->tried[i] = true;
        s->font[i] = open_face(&f->faces[i], s->px);
    }
    return s->font[i];
}

/* The fonts at px (the primary opened at once). NULL with SDL_GetError set. */
static sized_fonts *fonts_at(viz_fonts *f, int px) {
    f->tick++;
    if (f->slot_of[px]) { // every text asks: found without a search
        sized_fonts *s = &f->sizes[f->slot_of[px] - 1];
        s->used = f->tick;
        return s;
    }
    TTF_Font *prim = open_face(&f->faces[FACE_SANS], px);
    if (!prim) return NULL;
    sized_fonts *s = victim_slot(f);
    if (s->px) f->slot_of[s->px] = 0;
    f->slot_of[px] = (uint8_t)(s - f->sizes + 1);
    close_sized(s);
    s->px = px;
    s->font[FACE_SANS] = prim;
    s->tried[FACE_SANS] = true;
    s->used = f->tick;
    return s;
}

/* The first face of style's chain that exists at this size: its line metrics are the line's. */
static TTF_Font *lead_font(const viz_fonts *f, sized_fonts *s, viz_font style) {
    for (const face_id *c = chains[style]; *c != FACE_COUNT; c++) {
        TTF_Font *font = face_at(f, s, *c);
        if (font) return font;
    }
    return s->font[FACE_SANS];
}

/* ---- runs: maximal spans drawn by one font ---- */

/* The font for cp in style: the first of its chain that has the glyph, else its lead. */
static TTF_Font *font_for(viz_fonts *f, sized_fonts *s, viz_font style, uint32_t cp) {
    for (const face_id *c = chains[style]; *c != FACE_COUNT; c++) {
        TTF_Font *font = face_at(f, s, *c);
        if (font && TTF_GlyphIsProvided32(font, cp)) return font;
    }
    if (f->warming) {
        f->missed = true; // the text is not kept: a frame shown still asks for the face
        return lead_font(f, s, style);
    }
#ifdef __EMSCRIPTEN__
    if (!f->faces[FACE_SYMBOLS].path) late_fetch();
#endif
    return lead_font(f, s, style);
}

/* Bytes in the run that starts s[0..len), and its font in *font. */
static size_t next_run(viz_fonts *f, sized_fonts *s, viz_font style, const char *text, size_t len,
                       TTF_Font **font) {
    size_t pos = 0;
    *font = NULL;
    while (pos < len) {
        uint32_t cp = 0xFFFD;
        int n = utf8_decode(text + pos, len - pos, &cp);
        if (n <= 0) n = 1; // SDL_ttf shows a bad byte as U+FFFD; keep it in the run
        // combining marks and variation selectors stay with their base character
        TTF_Font *want = *font && utf8_cp_width(cp) == 0 ? *font : font_for(f, s, style, cp);
        if (*font && want != *font) break;
        *font = want;
        pos += (size_t)n;
    }
    return pos;
}

/* A NUL-terminated copy of n bytes, in f's scratch buffer. NULL if out of memory. */
static const char *run_cstr(viz_fonts *f, const char *s, size_t n) {
    if (n + 1 > f->scratch_cap) {
        size_t cap = n + 1 > 256 ? n + 1 : 256;
        char *p = realloc(f->scratch, cap);
        if (!p) {
            SDL_OutOfMemory();
            return NULL;
        }
        f->scratch = p;
        f->scratch_cap = cap;
    }
    memcpy(f->scratch, s, n);
    f->scratch[n] = '\0';
    return f->scratch;
}

/* Width of len bytes of text in style: the sum of its runs, exactly as drawn. */
static int text_width(viz_fonts *f, sized_fonts *s, viz_font style, const char *text, size_t len) {
    int total = 0;
    while (len > 0) {
        TTF_Font *font;
        size_t n = next_run(f, s, style, text, len, &font);
        const char *run = run_cstr(f, text, n);
        int w = 0;
        if (run && TTF_SizeUTF8(font, run, &w, NULL) == 0) total += w;
        text += n;
        len -= n;
    }
    return total;
}

/* FNV-1a over the text, the size and the style: the key of both caches (widths, lines). */
static uint32_t text_hash(const char *text, size_t len, int px, viz_font style) {
    int key[2] = {px, (int)style};
    uint64_t h = attn_fnv1a(ATTN_FNV_OFFSET, key, sizeof key);
    h = attn_fnv1a(h, text, len);
    return (uint32_t)(h ^ (h >> 32)); // fold: both halves reach the bucket index
}

static float measure_in(viz_fonts *f, viz_font style, const char *text, size_t len, float px) {
    if (!f) return 0.0f;
    int ipx = px_of(px);
    measure_slot *slot = NULL;
    if (len <= MEASURE_TEXT && f->measures) { // the layout asks for the same labels over and over
        slot = &f->measures[text_hash(text, len, ipx, style) & (MEASURE_SLOTS - 1)];
        if (slot->px == ipx && slot->font == style && slot->len == len && memcmp(slot->text, text, len) == 0)
            return (float)slot->w;
    }
    sized_fonts *s = fonts_at(f, ipx);
    bool missed = f->missed;
    f->missed = false;
    int w = s ? text_width(f, s, style, text, len) : 0;
    if (f->missed) slot = NULL; // warming without a face it needs: not remembered
    f->missed |= missed;
    if (slot && s) {
        slot->px = ipx;
        slot->font = (uint8_t)style;
        slot->len = (uint8_t)len;
        memcpy(slot->text, text, len);
        slot->w = w;
    }
    return (float)w;
}

static float measure_sans(void *ctx, const char *text, size_t len, float px) {
    return measure_in(ctx, VIZ_FONT_SANS, text, len, px);
}

static float measure_mono(void *ctx, const char *text, size_t len, float px) {
    return measure_in(ctx, VIZ_FONT_MONO, text, len, px);
}

void viz_fonts_warming(viz_fonts *f, bool on) {
    if (!f) return;
    f->warming = on;
    f->missed = false;
}

viz_measure viz_fonts_measure(viz_fonts *f) {
    viz_measure m = {measure_sans, f, measure_mono};
    return m;
}

int viz_fonts_line(viz_fonts *f, float px, viz_font style, int *height, int *ascent) {
    sized_fonts *s = fonts_at(f, px_of(px));
    if (!s) return -1;
    TTF_Font *lead = lead_font(f, s, style);
    *height = TTF_FontHeight(lead);
    *ascent = TTF_FontAscent(lead);
    return 0;
}

/* ---- rendering a line ---- */

/* Where the baseline lies in SDL_ttf's surface for run: the ascent, pushed
 * down when a glyph rises above it (SDL_ttf then grows the surface upwards). */
static int run_baseline(TTF_Font *font, const char *run) {
    int asc = TTF_FontAscent(font), over = 0;
    size_t len = strlen(run);
    for (size_t pos = 0; pos < len;) {
        uint32_t cp = 0xFFFD;
        int n = utf8_decode(run + pos, len - pos, &cp);
        int maxy = 0;
        if (TTF_GlyphMetrics32(font, cp, NULL, NULL, NULL, &maxy, NULL) == 0 && maxy - asc > over)
            over = maxy - asc;
        pos += n > 0 ? (size_t)n : 1;
    }
    return asc + over;
}

/* Size of the composed line: total width, and the tallest extents above and
 * below the baseline over all runs. */
static int line_extent(viz_fonts *f, sized_fonts *s, viz_font style, const char *text, int *w, int *above,
                       int *below) {
    *w = *above = *below = 0;
    for (size_t len = strlen(text); len > 0;) {
        TTF_Font *font;
        size_t n = next_run(f, s, style, text, len, &font);
        const char *run = run_cstr(f, text, n);
        int rw = 0, rh = 0;
        if (!run || TTF_SizeUTF8(font, run, &rw, &rh) != 0) return -1;
        int base = run_baseline(font, run);
        *w += rw;
        if (base > *above) *above = base;
        if (rh - base > *below) *below = rh - base;
        text += n;
        len -= n;
    }
    return 0;
}

/* Renders one run into line at x, baseline at base. Adds its width to *x. */
static int blit_run(viz_fonts *f, TTF_Font *font, const char *text, size_t n, SDL_Color fg,
                    SDL_Surface *line, int base, int *x) {
    const char *run = run_cstr(f, text, n);
    int w = 0;
    if (!run || TTF_SizeUTF8(font, run, &w, NULL) != 0) return -1;
    if (w == 0) return 0; // only zero-width characters: SDL_ttf refuses to render them
    int top = base - run_baseline(font, run);
    SDL_Surface *img = TTF_RenderUTF8_Blended(font, run, fg);
    if (!img) return -1;
    // runs sit side by side without overlap, so a plain copy keeps exact alpha
    SDL_SetSurfaceBlendMode(img, SDL_BLENDMODE_NONE);
    SDL_Rect dst = {*x, top, img->w, img->h};
    int rc = SDL_BlitSurface(img, NULL, line, &dst);
    SDL_FreeSurface(img);
    *x += w;
    return rc;
}

/* A line drawn by one font (most are): SDL_ttf's own surface is the line,
 * its size and baseline measured once. Returns 1 when text is not one run. */
static int render_one_run(viz_fonts *f, sized_fonts *s, viz_font style, const char *text, SDL_Surface **out,
                          int *w, int *h, int *asc) {
    TTF_Font *font;
    size_t len = strlen(text);
    if (next_run(f, s, style, text, len, &font) != len) return 1;
    if (TTF_SizeUTF8(font, text, w, h) != 0) return -1;
    *asc = run_baseline(font, text);
    if (*w <= 0 || *h <= 0) return 0; // only zero-width characters: SDL_ttf refuses to render them
    SDL_Color fg = {255, 255, 255, 255};
    *out = TTF_RenderUTF8_Blended(font, text, fg);
    return *out ? 0 : -1;
}

/* The whole line as one ARGB surface whose alpha is the glyphs' coverage,
 * w×h of it (the rest is empty) with the baseline asc below its top. *out
 * NULL when the text has no width. */
static int render_line(viz_fonts *f, sized_fonts *s, viz_font style, const char *text, SDL_Surface **out,
                       int *lw, int *lh, int *asc) {
    int w, above, below, x = 0, rc = -1;
    SDL_Surface *line = NULL;
    *out = NULL;
    if ((rc = render_one_run(f, s, style, text, out, lw, lh, asc)) != 1) return rc;
    rc = -1;
    if (line_extent(f, s, style, text, &w, &above, &below) != 0) goto cleanup;
    rc = 0;
    if (w <= 0 || above + below <= 0) goto cleanup;
    rc = -1;
    line = SDL_CreateRGBSurfaceWithFormat(0, w, above + below, 32, SDL_PIXELFORMAT_ARGB8888);
    if (!line) goto cleanup;
    SDL_FillRect(line, NULL, 0);
    SDL_Color fg = {255, 255, 255, 255};
    for (size_t len = strlen(text); len > 0;) {
        TTF_Font *font;
        size_t n = next_run(f, s, style, text, len, &font);
        if (blit_run(f, font, text, n, fg, line, above, &x) != 0) goto cleanup;
        text += n;
        len -= n;
    }
    *out = line;
    *asc = above;
    *lw = w;
    *lh = above + below;
    line = NULL;
    rc = 0;
cleanup:
    SDL_FreeSurface(line);
    return rc;
}

/* ---- text coverage cache ---- */

static text_entry *cache_find(viz_fonts *f, const char *text, int px, viz_font style, uint32_t h) {
    for (text_entry *e = f->bucket[h & (CACHE_BUCKETS - 1)]; e; e = e->chain)
        if (e->hash == h && e->px == px && e->font == style && strcmp(e->text, text) == 0) return e;
    return NULL;
}

static void lru_unlink(viz_fonts *f, text_entry *e) {
    if (e->newer) e->newer->older = e->older;
    else f->newest = e->older;
    if (e->older) e->older->newer = e->newer;
    else f->oldest = e->newer;
    e->newer = e->older = NULL;
}

static void lru_push_front(viz_fonts *f, text_entry *e) {
    e->older = f->newest;
    e->newer = NULL;
    if (f->newest) f->newest->newer = e;
    f->newest = e;
    if (!f->oldest) f->oldest = e;
}

static void cache_remove(viz_fonts *f, text_entry *e) {
    text_entry **pp = &f->bucket[e->hash & (CACHE_BUCKETS - 1)];
    while (*pp != e) pp = &(*pp)->chain;
    *pp = e->chain;
    lru_unlink(f, e);
    f->count--;
    f->bytes -= e->bytes;
    free(e->cov);
    free(e);
}

/* Evicts the least recently used entries, never keep nor one used since the
 * last hold (the newest are the held ones), until under both caps. */
static void cache_trim(viz_fonts *f, const text_entry *keep) {
    while ((f->count > CACHE_MAX || f->bytes > CACHE_BUDGET) && f->oldest && f->oldest != keep &&
           f->oldest->held != f->hold)
        cache_remove(f, f->oldest);
}

void viz_fonts_hold(viz_fonts *f) {
    f->hold++;
}

/* Renders e->text and keeps its alpha channel: the coverage of every pixel. */
static int entry_render(viz_fonts *f, text_entry *e) {
    SDL_Surface *line = NULL;
    int rc = -1, asc = 0, w = 0, h = 0;
    sized_fonts *s = fonts_at(f, e->px);
    if (!s || render_line(f, s, e->font, e->text, &line, &w, &h, &asc) != 0) goto cleanup;
    rc = 0;
    if (!line) goto cleanup; // nothing visible: cache the empty result too
    e->cov = calloc((size_t)w * (size_t)h, 1);
    if (!e->cov) {
        rc = SDL_OutOfMemory();
        goto cleanup;
    }
    for (int y = 0; y < h && y < line->h; y++) {
        const Uint32 *row = (const Uint32 *)((const Uint8 *)line->pixels + (size_t)y * (size_t)line->pitch);
        for (int x = 0; x < w && x < line->w; x++) e->cov[(size_t)y * w + x] = (uint8_t)(row[x] >> 24);
    }
    e->img = (viz_text_img){e->cov, w, h, asc};
    e->bytes = (size_t)w * (size_t)h;
cleanup:
    SDL_FreeSurface(line);
    return rc;
}

int viz_fonts_text(viz_fonts *f, const char *text, float px, viz_font style, viz_text_img *out) {
    int ipx = px_of(px);
    uint32_t h = text_hash(text, strlen(text), ipx, style);
    text_entry *e = cache_find(f, text, ipx, style, h);
    if (e) {
        lru_unlink(f, e);
        lru_push_front(f, e);
        e->held = f->hold;
        *out = e->img;
        return 0;
    }
    size_t len = strlen(text);
    e = calloc(1, sizeof *e + len + 1);
    if (!e) return SDL_OutOfMemory();
    *e = (text_entry){.hash = h, .px = ipx, .font = style, .held = f->hold};
    memcpy(e->text, text, len + 1);
    bool missed = f->missed;
    f->missed = false;
    int rc = entry_render(f, e);
    if (rc == 0 && f->missed) { // warming without a face it needs: not kept, so a frame shown asks for the face
        free(e->cov);
        rc = SDL_SetError("a glyph of \"%s\" is in no face yet", text);
    }
    f->missed |= missed;
    if (rc != 0) {
        free(e);
        return -1;
    }
    e->chain = f->bucket[h & (CACHE_BUCKETS - 1)];
    f->bucket[h & (CACHE_BUCKETS - 1)] = e;
    lru_push_front(f, e);
    f->count++;
    f->bytes += e->bytes;
    cache_trim(f, e);
    *out = e->img;
    return 0;
}

/* ---- opening and closing ---- */

/* Takes --font FILE as the primary font, after checking it can be read. */
static int use_override(viz_fonts *f, const char *path, char *err, size_t cap) {
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        set_err(err, cap, "Cannot open the font %s (--font): %s.", path, strerror(errno));
        return -1;
    }
    fclose(fp);
    f->faces[FACE_SANS].path = strdup(path);
    f->faces[FACE_SANS].index = 0;
    if (!f->faces[FACE_SANS].path) {
        set_err(err, cap, "Not enough memory to open the fonts.");
        return -1;
    }
    return 0;
}

static int find_primary(viz_fonts *f, char *err, size_t cap) {
    f->faces[FACE_SANS].path = fc_find(PRIMARY_FAMILY, FC_CJK, &f->faces[FACE_SANS].index);
    if (f->faces[FACE_SANS].path) return 0;
    set_err(err, cap,
            "No Chinese font found: install the Debian package fonts-wqy-microhei "
            "(sudo apt-get install fonts-wqy-microhei), or pass --font FILE.");
    return -1;
}

/* The fallbacks, each found by its family alone: one that is not installed
 * is skipped (code is then set in the next face, an emoji as an empty box). */
static void find_fallbacks(viz_fonts *f) {
    static const struct {
        face_id face;
        const char *family;
        fc_want want;
    } fallbacks[] = {
        {FACE_SANS_FALLBACK, FALLBACK_FAMILY, FC_ANY},
        {FACE_MONO, MONO_FAMILY, FC_EXACT},
        {FACE_MONO_FALLBACK, MONO_FALLBACK_FAMILY, FC_EXACT},
        {FACE_SYMBOLS, SYMBOLS_FAMILY, FC_EXACT},
    };
    for (size_t i = 0; i < sizeof fallbacks / sizeof *fallbacks; i++) {
        face *fc = &f->faces[fallbacks[i].face];
        fc->path = fc_find(fallbacks[i].family, fallbacks[i].want, &fc->index);
    }
}

viz_fonts *viz_fonts_open(const char *override_path, char *err, size_t cap) {
    viz_fonts *f = calloc(1, sizeof *f);
    if (!f) {
        set_err(err, cap, "Not enough memory to open the fonts.");
        return NULL;
    }
    f->measures = calloc(MEASURE_SLOTS, sizeof *f->measures); // optional: measuring works without it
    int rc = override_path ? use_override(f, override_path, err, cap) : find_primary(f, err, cap);
    if (rc != 0) goto fail;
    find_fallbacks(f);
    for (int i = 0; i < FACE_COUNT; i++) map_font(&f->faces[i].map, f->faces[i].path);
    if (!fonts_at(f, CHECK_PX)) {
        set_err(err, cap, "Cannot use the font %s%s: SDL_ttf cannot read it (%s).", f->faces[FACE_SANS].path,
                override_path ? " (--font)" : "", TTF_GetError());
        goto fail;
    }
#ifdef __EMSCRIPTEN__
    for (int i = 0; i < LATE_OWNERS; i++)
        if (!late_owners[i]) { // more fonts open at once than that only miss the late face
            late_owners[i] = f;
            break;
        }
#endif
    return f;
fail:
    viz_fonts_close(f);
    return NULL;
}

bool viz_fonts_has_face(const viz_fonts *f, const char *family) {
    static const char *const families[FACE_COUNT] = {PRIMARY_FAMILY, FALLBACK_FAMILY, MONO_FAMILY,
                                                     MONO_FALLBACK_FAMILY, SYMBOLS_FAMILY};
    for (int i = 0; f && i < FACE_COUNT; i++)
        if (strcmp(families[i], family) == 0) return f->faces[i].path != NULL;
    return false;
}

bool viz_fonts_changed(viz_fonts *f) {
    bool changed = f && f->changed;
    if (f) f->changed = false;
    return changed;
}

void viz_fonts_close(viz_fonts *f) {
    if (!f) return;
#ifdef __EMSCRIPTEN__
    for (int i = 0; i < LATE_OWNERS; i++)
        if (late_owners[i] == f) late_owners[i] = NULL; // a fetch still under way gives it no face
#endif
    while (f->newest) cache_remove(f, f->newest);
    for (int i = 0; i < MAX_SIZES; i++) close_sized(&f->sizes[i]);
    for (int i = 0; i < FACE_COUNT; i++) {
        unmap_font(&f->faces[i].map);
        free(f->faces[i].path);
    }
    free(f->scratch);
    free(f->measures);
    free(f);
}
