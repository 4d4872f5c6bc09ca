/* test_export.c — exports for course notes: SVG and CSV against goldens byte
 * for byte, PNG against a golden within a tolerance, LaTeX escaping, pixel
 * scale, determinism, the handout and index, and batches that fail (a test
 * hook, a full and a read-only tmpfs under `unshare -m`) leaving nothing.
 *
 * Goldens live in tests/golden/export/. After an intended change, regenerate
 * them with   ATTNVIZ_UPDATE_GOLDEN=1 build/tests/test_export   and review
 * the diff. PNG tolerance: at most 1% of the pixels may differ by more than 8
 * in a channel (another FreeType build may anti-alias a little differently).
 * Fonts are pinned through fontconfig: WenQuanYi Micro Hei + DejaVu Sans. */
#define _GNU_SOURCE /* unshare, mount */
#include "test_sdl_common.h"

#include <SDL.h>
#include <SDL_image.h>
#include <SDL_ttf.h>
#include <dirent.h>
#include <math.h>
#include <errno.h>
#include <fontconfig/fontconfig.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <zlib.h>

#include "attn_settings.h"
#include "export.h"
#include "export_internal.h" /* ex_num */
#include "fileio.h"
#include "sha256.h"
#include "model_file.h"
#include "page.h"

#define GOLDEN ATTN_SOURCE_DIR "/tests/golden/export/"
#define GW 480 /* golden figure size */
#define GH 300

static viz_fonts *g_fonts;
static viz_strings g_ui;

static int group_setup(void **state) {
    (void)state;
    attn_err err;
    g_fonts = test_fonts_open();
    if (!g_fonts || !(IMG_Init(IMG_INIT_PNG) & IMG_INIT_PNG)) return -1;
    if (viz_strings_load(&g_ui, ATTN_SOURCE_DIR "/assets/ui_strings.tsv", &err) != ATTN_OK) {
        print_error("%s\n", err.msg);
        return -1;
    }
    return 0;
}

static int group_teardown(void **state) {
    (void)state;
    viz_strings_free(&g_ui);
    IMG_Quit();
    test_fonts_close(g_fonts);
    return 0;
}

/* ---- helpers ---- */

static void trace_of(attn_trace *t, const char *sentence, int d_model, int d_k, int heads, const char *mask) {
    attn_config c;
    attn_err err;
    attn_config_default(&c);
    c.d_model = d_model;
    c.d_k = d_k;
    c.heads = heads;
    assert_int_equal(attn_mask_parse(&c.mask, mask, &err), ATTN_OK);
    memset(t, 0, sizeof *t);
    if (attn_trace_run(t, sentence, strlen(sentence), &c, NULL, NULL, &err) != ATTN_OK) fail_msg("%s", err.msg);
}

static void small_opts(export_opts *o, const char *dir, const char *formats) {
    attn_err err;
    export_opts_default(o);
    o->dir = dir;
    o->width = GW;
    o->height = GH;
    assert_int_equal(export_parse_formats(&o->formats, formats, &err), ATTN_OK);
    o->command_prefix = "attnviz --headless --sentence 'a b c' --d-model 4 --d-k 2 --heads 1";
}

static char *temp_dir(void) {
    const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char *p = malloc(strlen(base) + 32);
    sprintf(p, "%s/attnviz-export-XXXXXX", base);
    assert_non_null(mkdtemp(p));
    return p;
}

static char *path_in(const char *dir, const char *name) {
    char *p = malloc(strlen(dir) + strlen(name) + 2);
    sprintf(p, "%s/%s", dir, name);
    return p;
}

static void rm_rf(const char *path) {
    struct stat sb;
    if (lstat(path, &sb) != 0) return;
    if (S_ISDIR(sb.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            char *p = path_in(path, e->d_name);
            rm_rf(p);
            free(p);
        }
        if (d) closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

static char *slurp(const char *path, size_t *len) {
    char *data = NULL;
    size_t n = 0;
    attn_err err;
    if (attn_read_file(path, 64u << 20, &data, &n, &err) != ATTN_OK) return NULL;
    if (len) *len = n;
    return data;
}

static void write_file(const char *path, const char *text) {
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
}

/* Entries of dir (without . and ..); *staging counts .attnviz-staging-*. */
static int entries(const char *dir, int *staging) {
    int n = 0;
    if (staging) *staging = 0;
    DIR *d = opendir(dir);
    if (!d) return -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        n++;
        if (staging && strncmp(e->d_name, ".attnviz-staging-", 17) == 0) (*staging)++;
    }
    closedir(d);
    return n;
}

static bool has_file(const char *dir, const char *name) {
    char *p = path_in(dir, name);
    struct stat sb;
    bool ok = stat(p, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0;
    free(p);
    return ok;
}

static bool update_golden(void) {
    const char *u = getenv("ATTNVIZ_UPDATE_GOLDEN");
    return u && *u && strcmp(u, "0") != 0;
}

/* dir/name must equal the golden byte for byte (or becomes it when updating). */
static void assert_golden(const char *dir, const char *name) {
    char *p = path_in(dir, name), *g = path_in(GOLDEN, name);
    size_t n = 0, gn = 0;
    char *got = slurp(p, &n);
    assert_non_null(got);
    if (update_golden()) {
        attn_err err;
        assert_int_equal(attn_write_file(g, got, n, NULL, &err), ATTN_OK);
    }
    char *want = slurp(g, &gn);
    if (!want) fail_msg("missing golden %s (run with ATTNVIZ_UPDATE_GOLDEN=1)", g);
    if (n != gn || memcmp(got, want, n) != 0) {
        size_t i = 0;
        while (i < n && i < gn && got[i] == want[i]) i++;
        fail_msg("%s differs from %s at byte %zu (sizes %zu, %zu)", p, g, i, n, gn);
    }
    free(got);
    free(want);
    free(p);
    free(g);
}

static bool have_tool(const char *name) {
    char cmd[128];
    snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", name);
    return system(cmd) == 0;
}

static SDL_Surface *load_png(const char *dir, const char *name) {
    char *p = path_in(dir, name);
    SDL_Surface *raw = IMG_Load(p);
    free(p);
    if (!raw) fail_msg("cannot load %s: %s", name, IMG_GetError());
    SDL_Surface *s = SDL_ConvertSurfaceFormat(raw, SDL_PIXELFORMAT_ARGB8888, 0);
    SDL_FreeSurface(raw);
    assert_non_null(s);
    return s;
}

static Uint32 px(const SDL_Surface *s, int x, int y) {
    return ((const Uint32 *)((const Uint8 *)s->pixels + (size_t)y * s->pitch))[x];
}

static int chan_diff(Uint32 a, Uint32 b) {
    int d = 0;
    for (int k = 0; k < 32; k += 8) {
        int x = abs((int)((a >> k) & 255) - (int)((b >> k) & 255));
        if (x > d) d = x;
    }
    return d;
}

/* ---- flag parsers ---- */

static void parse_formats(void **state) {
    (void)state;
    unsigned f = 0;
    attn_err err;
    assert_int_equal(export_parse_formats(&f, "png,svg", &err), ATTN_OK);
    assert_int_equal(f, EXPORT_PNG | EXPORT_SVG);
    assert_int_equal(export_parse_formats(&f, " csv , md ", &err), ATTN_OK);
    assert_int_equal(f, EXPORT_CSV | EXPORT_MD);
    assert_int_equal(export_parse_formats(&f, "all", &err), ATTN_OK);
    assert_int_equal(f, EXPORT_ALL_FORMATS);
    assert_int_equal(export_parse_formats(&f, "png,gif", &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "\"gif\""));
    assert_non_null(strstr(err.msg, "--format"));
    assert_int_equal(export_parse_formats(&f, "", &err), ATTN_ERR_RANGE);
    assert_int_equal(export_parse_formats(&f, "png,,svg", &err), ATTN_ERR_RANGE);
}

static void parse_steps_size_theme_view(void **state) {
    (void)state;
    unsigned s = 0;
    int w, h;
    viz_theme_id th;
    export_view v;
    attn_err err;
    assert_int_equal(export_parse_steps(&s, "all", &err), ATTN_OK);
    assert_int_equal(s, EXPORT_ALL_STEPS | EXPORT_STEP_READOUT);
    assert_int_equal(export_parse_steps(&s, "3,6", &err), ATTN_OK);
    assert_int_equal(s, (1u << ATTN_STEP_SCORES) | (1u << ATTN_STEP_SOFTMAX)); // keys, not positions
    assert_int_equal(export_parse_steps(&s, "2b,3", &err), ATTN_OK);           // RoPE's sub-step
    assert_int_equal(s, (1u << ATTN_STEP_ROPE) | (1u << ATTN_STEP_SCORES));
    assert_int_equal(export_parse_steps(&s, "0", &err), ATTN_ERR_RANGE);
    assert_non_null(strstr(err.msg, "--steps"));
    assert_int_equal(export_parse_steps(&s, "9", &err), ATTN_OK); // a model's readout
    assert_int_equal(s, EXPORT_STEP_READOUT);
    assert_int_equal(export_parse_steps(&s, "10", &err), ATTN_ERR_RANGE);
    assert_int_equal(export_parse_steps(&s, "3x", &err), ATTN_ERR_RANGE);
    assert_int_equal(export_parse_size(&w, &h, "1280x800", &err), ATTN_OK);
    assert_true(w == 1280 && h == 800);
    assert_int_equal(export_parse_size(&w, &h, "12x800", &err), ATTN_ERR_RANGE);
    assert_int_equal(export_parse_size(&w, &h, "1280x", &err), ATTN_ERR_RANGE);
    assert_int_equal(export_parse_theme(&th, "high-contrast", &err), ATTN_OK);
    assert_int_equal(th, VIZ_THEME_CONTRAST);
    assert_int_equal(export_parse_theme(&th, "pink", &err), ATTN_ERR_RANGE);
    assert_int_equal(export_parse_view(&v, "window", &err), ATTN_OK);
    assert_int_equal(v, EXPORT_VIEW_WINDOW);
    assert_int_equal(export_parse_view(&v, "page", &err), ATTN_ERR_RANGE);
}

/* The command line minus the export flags, quoted for a shell. */
static void command_prefix(void **state) {
    (void)state;
    char *argv[] = {"attnviz", "--headless", "--sentence", "it's 它", "--export-dir", "out dir", "--format", "png",
                    "--d-k", "2", "--caption", "--steps", "3", "--lesson", "a.lesson", "--lang", "zh", NULL};
    char *p = export_command_prefix(17, argv);
    assert_string_equal(p, "attnviz --headless --sentence 'it'\\''s 它' --d-k 2 --lesson a.lesson");
    free(p);
}

/* ---- SVG ---- */

/* RoPE's step 2b: 02b-rope between 02 and 03 (SVG, CSV and TeX against
 * goldens), the scores' operands q_rot and k_rot; without RoPE no 2b. */
static void rope_golden(void **state) {
    (void)state;
    attn_config c;
    attn_err err;
    attn_config_default(&c);
    c.d_model = 4, c.d_k = 2, c.heads = 1, c.rope = true, c.pos_offset = 5;
    attn_trace t = {0};
    assert_int_equal(attn_trace_run(&t, "a b c", 5, &c, NULL, NULL, &err), ATTN_OK);
    export_opts o;
    char *dir = temp_dir();
    small_opts(&o, dir, "svg,csv,tex");
    assert_int_equal(export_parse_steps(&o.steps, "2,2b,3", &err), ATTN_OK);
    if (export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err) != ATTN_OK) fail_msg("%s", err.msg);
    assert_golden(dir, "02b-rope.svg");
    assert_golden(dir, "02b-rope-q_rot-head1.csv");
    assert_golden(dir, "02b-rope.tex");
    assert_true(has_file(dir, "02-qkv.svg") && has_file(dir, "03-scores-k_rot-head1.csv"));
    assert_false(has_file(dir, "03-scores-K-head1.csv")); // the scores read the rotated k
    attn_trace_free(&t);
    rm_rf(dir);
    free(dir);
    c.rope = false; // without RoPE, "all" has no 2b
    assert_int_equal(attn_trace_run(&t, "a b c", 5, &c, NULL, NULL, &err), ATTN_OK);
    dir = temp_dir();
    small_opts(&o, dir, "csv");
    if (export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err) != ATTN_OK) fail_msg("%s", err.msg);
    assert_true(has_file(dir, "03-scores-K-head1.csv"));
    assert_false(has_file(dir, "02b-rope-q_rot-head1.csv"));
    attn_trace_free(&t);
    rm_rf(dir);
    free(dir);
}

/* Step 2b's hint names the run's own base (--rope-base), in both languages:
 * the handout's text for base 500 says 500^(−2i/dₖ), never 10000. */
static void rope_hint_base(void **state) {
    (void)state;
    attn_config c;
    attn_err err;
    attn_config_default(&c);
    c.d_model = 4, c.d_k = 2, c.heads = 1, c.rope = true, c.rope_base = 500;
    attn_trace t = {0};
    assert_int_equal(attn_trace_run(&t, "a b c", 5, &c, NULL, NULL, &err), ATTN_OK);
    for (int lang = 0; lang < VIZ_LANG_COUNT; lang++) {
        export_opts o;
        char *dir = temp_dir();
        small_opts(&o, dir, "md");
        o.lang = (viz_lang)lang;
        assert_int_equal(export_parse_steps(&o.steps, "2b", &err), ATTN_OK);
        if (export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err) != ATTN_OK) fail_msg("%s", err.msg);
        char *p = path_in(dir, "handout.md"), *md = slurp(p, NULL);
        assert_non_null(md);
        assert_non_null(strstr(md, "θᵢ = 500^(−2i/dₖ)"));
        assert_null(strstr(md, "10000"));
        assert_null(strstr(md, "%s"));
        free(md);
        free(p);
        rm_rf(dir);
        free(dir);
    }
    attn_trace_free(&t);
}

/* Issue 24: a compare title never shows a raw key=value. For every setting
 * of the settings table, a second configuration differing in it alone is
 * worded in both languages (the rope page's "pos_offset=1000" reads
 * "First token at position 1000"), and two at once are both named. */
static void config_words_every_setting(void **state) {
    (void)state;
    static const char *const values[ATTN_SETTING_COUNT] = {
        [ATTN_SET_D_MODEL] = "12",
        [ATTN_SET_D_K] = "2",
        [ATTN_SET_HEADS] = "4",
        [ATTN_SET_SEED] = "7",
        [ATTN_SET_MASK] = "causal",
        [ATTN_SET_SCALE] = "off",
        [ATTN_SET_POS_ENC] = "on",
        [ATTN_SET_BIAS] = "on",
        [ATTN_SET_POS_DIMS] = "0-3",
        [ATTN_SET_KV_HEADS] = "1",
        [ATTN_SET_POS] = "rope",
        [ATTN_SET_ROPE_BASE] = "500",
        [ATTN_SET_POS_OFFSET] = "1000",
    };
    char out[256];
    attn_config a;
    attn_config_default(&a);
    a.heads = 2;
    for (int id = 0; id < ATTN_SETTING_COUNT; id++) {
        attn_config b = a;
        assert_non_null(values[id]);
        assert_int_equal(attn_setting_parse(id, values[id], strlen(values[id]), &b, NULL), ATTN_SETTING_OK);
        if (id == ATTN_SET_POS_DIMS) b.pos_enc = a.pos_enc = true; // the columns of an encoding that is on
        for (int lang = 0; lang < VIZ_LANG_COUNT; lang++) {
            viz_config_words(out, sizeof out, g_ui.s[lang], (viz_lang)lang, &a, &b);
            if (out[0] == '\0' || strchr(out, '=')) fail_msg("setting %d (%s) in language %d: \"%s\"", id, values[id], lang, out);
        }
        a.pos_enc = false;
    }
    attn_config b = a;
    b.mask.kind = ATTN_MASK_CAUSAL, b.pos_offset = 1000; // a control's setting beside one without: both said
    viz_config_words(out, sizeof out, g_ui.s[VIZ_LANG_EN], VIZ_LANG_EN, &a, &b);
    assert_string_equal(out, "Mask causal, First token at position 1000");
    viz_config_words(out, sizeof out, g_ui.s[VIZ_LANG_ZH], VIZ_LANG_ZH, &a, &b);
    assert_string_equal(out, "掩码 因果，第一个词元在位置 1000");
}

static void svg_golden(void **state) {
    (void)state;
    attn_trace t;
    export_opts o;
    attn_err err;
    char *dir = temp_dir();
    trace_of(&t, "a b c", 4, 2, 1, "none");
    small_opts(&o, dir, "svg");
    if (export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err) != ATTN_OK) fail_msg("%s", err.msg);
    assert_golden(dir, "03-scores.svg");
    assert_golden(dir, "06-softmax.svg");
    if (have_tool("xmllint")) { // every figure is well-formed XML
        char cmd[512];
        snprintf(cmd, sizeof cmd, "xmllint --noout %s/*.svg", dir);
        assert_int_equal(system(cmd), 0);
    }
    attn_trace_free(&t);
    rm_rf(dir);
    free(dir);
}

static cJSON *page_data(const char *page);

/* dir/name's bytes, NUL-terminated (owned); fails the test when it is missing. */
static char *read_in(const char *dir, const char *name) {
    char *p = path_in(dir, name), *text = slurp(p, NULL);
    if (!text) fail_msg("%s is missing", p);
    free(p);
    return text;
}

/* The decode view of "a b c" (d_model 4, 2 heads of d_k 2, causal: one cache
 * row more per token), only the softmax step besides, exported as formats with
 * query q into a fresh folder (returned, owned); *t and *d are the caller's
 * to free (decode_done). */
static char *decode_exported(const char *formats, int q, attn_trace *t, attn_decode *d) {
    export_opts o;
    attn_err err;
    char *dir = temp_dir();
    trace_of(t, "a b c", 4, 2, 2, "causal");
    assert_int_equal(attn_decode_run(d, t, &err), ATTN_OK);
    small_opts(&o, dir, formats);
    o.steps = 1u << ATTN_STEP_SOFTMAX;
    if (export_sentence_decode(&o, t, d, 0, q, &g_ui, g_fonts, &err) != ATTN_OK) fail_msg("%s", err.msg);
    return dir;
}

static void decode_done(char *dir, attn_trace *t, attn_decode *d) {
    attn_decode_free(d);
    attn_trace_free(t);
    rm_rf(dir);
    free(dir);
}

/* Issue 24: --decode's view after the steps: 09-decode.png, .svg and its
 * per-token record as CSV (hand-counted). */
static void decode_export(void **state) {
    (void)state;
    attn_trace t;
    attn_decode d = {0};
    char *dir = decode_exported("png,svg,csv", -1, &t, &d);
    free(read_in(dir, "09-decode.png"));
    char *csv = read_in(dir, "09-decode.csv");
    // token 1: q 2·4·2 = 16, k and v 2·2·4·2 = 32, scores 2·2·2 = 8, scale 4, softmax 4, z 8, output 2·2·4 = 16
    assert_non_null(strstr(csv, "token,word,cache_len,cells,cells_read,macs,"));
    assert_non_null(strstr(csv, "\n1,b,2,2,1,88,"));
    assert_non_null(strstr(csv, ",192,393216\n")); // 2·1 layer·2 kv-heads·2·3 tokens·8; Llama 3 8B: 2·32·8·128·3·2
    free(csv);
    char *index = read_in(dir, "index.md");
    assert_non_null(strstr(index, "## 09-decode"));
    free(index);
    decode_done(dir, &t, &d);
}

/* Issue 24: the decode view as LaTeX and HTML, like the steps: the per-token
 * record as a table (the same hand-counted row as the CSV), the narrative of
 * the token shown, Z_decode in the document and the drawing in the page. */
static void decode_export_tex_html(void **state) {
    (void)state;
    attn_trace t;
    attn_decode d = {0};
    char *dir = decode_exported("tex,html", 1, &t, &d);
    char *tex = read_in(dir, "09-decode.tex");
    assert_non_null(strstr(tex, "\\bfseries 2 & \\mbox{b} & 2 & 2 & 1 & 88 & ")); // token 2, the one shown
    assert_non_null(strstr(tex, "Z_{\\mathrm{decode}}"));
    assert_non_null(strstr(tex, "1 new key, 1 read from the cache"));
    assert_non_null(strstr(tex, "\\end{document}"));
    free(tex);
    char *html = read_in(dir, "09-decode.html");
    assert_non_null(strstr(html, "<tr class=\"attnviz-now\" aria-current=\"true\"><td>2</td><td>b</td><td>2</td>"
                                 "<td>2</td><td>1</td><td>88</td>"));
    assert_non_null(strstr(html, "<svg"));
    assert_non_null(strstr(html, "1 new key, 1 read from the cache"));
    // the figure is interactive like the steps' pages: its cells carry the window's arithmetic
    assert_non_null(strstr(html, "data-step=\"decode\""));
    assert_non_null(strstr(html, "aria-label=\"Decoding with a KV cache\""));
    assert_non_null(strstr(html, "data-cell=\"k:0:1:1\""));
    assert_non_null(strstr(html, "data-cell=\"scores:0:1:0\""));
    assert_null(strstr(html, "data-cell=\"k:0:2:0\"")); // token 3 is not generated yet
    cJSON *data = page_data(html);
    assert_non_null(data);
    // token 2 of 3, d_k 2: K and V rows 1–2 (4 cells each), 2 scores, 2 weights, 2 of z
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(data, "c")), 4 + 4 + 2 + 2 + 2);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(data, "v")), 3); // a view per token
    const cJSON *lines = cJSON_GetObjectItem(data, "l");
    bool denominator = false;
    for (int i = 0; i < cJSON_GetArraySize(lines); i++)
        denominator = denominator || strstr(cJSON_GetArrayItem(lines, i)->valuestring, "denominator = ");
    assert_true(denominator); // a weight's softmax arithmetic
    cJSON_Delete(data);
    free(html);
    html = read_in(dir, "handout.html");
    assert_non_null(strstr(html, "attnviz-decode-table"));
    free(html);
    char *index = read_in(dir, "index.md");
    assert_non_null(strstr(index, "`09-decode.tex`"));
    assert_non_null(strstr(index, "`09-decode.html`"));
    free(index);
    decode_done(dir, &t, &d);
}

/* Issue 24: each step of the tiles view as LaTeX and HTML, like the decode
 * view: "a b c" under the causal mask in blocks of 2 is 4 steps, the second
 * (rows 1–2 against keys 3) skipped. The first step's first row sees only
 * its own key: m before −∞, α 0, ℓ before 0, Σ = e^0 = 1 = ℓ after; its m
 * after is the row's scaled score. */
static void tiles_export_tex_html(void **state) {
    (void)state;
    attn_trace t;
    attn_tiles tl = {0};
    export_opts o;
    attn_err err;
    char *dir = temp_dir();
    trace_of(&t, "a b c", 4, 2, 1, "causal");
    assert_int_equal(attn_tiles_of_head(&tl, &t, 0, 2, &err), ATTN_OK);
    assert_int_equal(tl.count, 4);
    assert_true(tl.steps[1].skipped);
    small_opts(&o, dir, "tex,html");
    o.steps = 1u << ATTN_STEP_SOFTMAX;
    if (export_sentence_tiles(&o, &t, 0, -1, &tl, &g_ui, g_fonts, &err) != ATTN_OK) fail_msg("%s", err.msg);
    char *p = path_in(dir, "09-tiles-b2-step01.tex"), *tex = slurp(p, NULL), want[160];
    free(p);
    assert_non_null(tex);
    double s00 = t.head[0].scaled[0];
    snprintf(want, sizeof want, "1 & \\mbox{a} & $-\\infty$ & $%s%lld.%02lld$ & $0.00$ & $0.00$ & $1.00$ & $1.00$ \\\\",
             s00 < 0 ? "-" : "", llabs(llround(s00 * 100)) / 100, llabs(llround(s00 * 100)) % 100);
    assert_non_null(strstr(tex, want));
    assert_non_null(strstr(tex, "S_{\\mathrm{block}}"));
    assert_non_null(strstr(tex, "Step 1 of 4: query rows 1–2 against key columns 1–2"));
    assert_null(strstr(tex, "Z_{\\mathrm{tiled}}")); // not the last key block yet
    assert_non_null(strstr(tex, "\\end{document}"));
    free(tex);
    p = path_in(dir, "10-tiles-b2-step02.tex"), tex = slurp(p, NULL);
    free(p);
    assert_non_null(strstr(tex, "skipped: the mask hides the whole block"));
    assert_null(strstr(tex, "\\begin{tabular}")); // nothing computed, no rows
    free(tex);
    p = path_in(dir, "12-tiles-b2-step04.tex"), tex = slurp(p, NULL);
    free(p);
    assert_non_null(strstr(tex, "Z_{\\mathrm{tiled}}")); // the last key block: z = O'/ℓ'
    assert_non_null(strstr(tex, "\\text{c} & "));        // the block's row is token 3, not token 1
    free(tex);
    p = path_in(dir, "09-tiles-b2-step01.html");
    char *html = slurp(p, NULL);
    free(p);
    assert_non_null(html);
    assert_non_null(strstr(html, "<svg"));
    assert_non_null(strstr(html, "attnviz-tiles-table"));
    assert_non_null(strstr(html, "<tr><td>1</td><td>a</td><td>−∞</td>"));
    free(html);
    p = path_in(dir, "index.md");
    char *index = slurp(p, NULL);
    free(p);
    assert_non_null(strstr(index, "`11-tiles-b2-step03.tex`"));
    assert_non_null(strstr(index, "`11-tiles-b2-step03.html`"));
    free(index);
    p = path_in(dir, "handout.html");
    html = slurp(p, NULL);
    free(p);
    assert_non_null(strstr(html, "attnviz-tiles-table"));
    free(html);
    attn_tiles_free(&tl);
    attn_trace_free(&t);
    rm_rf(dir);
    free(dir);
}

static int count(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

/* Text is real <text>, escaped; the n×n weights are n² rects; no bitmaps. */
static void svg_text_cells_escaped(void **state) {
    (void)state;
    attn_trace t;
    export_opts o;
    attn_err err;
    char *dir = temp_dir();
    trace_of(&t, "<a> & \"b\"", 4, 2, 1, "none");
    small_opts(&o, dir, "svg");
    o.width = 1280;
    o.height = 800;
    o.steps = 1u << ATTN_STEP_SOFTMAX;
    if (export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err) != ATTN_OK) fail_msg("%s", err.msg);
    char *p = path_in(dir, "06-softmax.svg"), *svg = slurp(p, NULL);
    assert_non_null(svg);
    // tokens < a > & " b " label the rows, escaped; the repeated " gets its position
    assert_non_null(strstr(svg, ">&lt;</text>"));
    assert_non_null(strstr(svg, ">&gt;</text>"));
    assert_non_null(strstr(svg, ">&amp;</text>"));
    assert_non_null(strstr(svg, ">5:&quot;</text>"));
    assert_non_null(strstr(svg, "Attention from &quot;&lt;&quot;"));
    assert_null(strstr(svg, "<image"));
    assert_non_null(strstr(svg, "WenQuanYi Micro Hei"));
    assert_non_null(strstr(svg, "Noto Sans CJK SC"));
    assert_int_equal(count(svg, "<text"), count(svg, "</text>"));
    // the grid of A: 7 tokens → 49 cell rects in one crisp group
    const char *g = strstr(svg, "<g shape-rendering=\"crispEdges\">");
    assert_non_null(g);
    const char *end = strstr(g, "</g>");
    int cells = 0;
    for (const char *r = strstr(g, "<rect"); r && r < end; r = strstr(r + 1, "<rect")) cells++;
    assert_int_equal(cells, 49);
    free(svg);
    free(p);
    attn_trace_free(&t);
    rm_rf(dir);
    free(dir);
}

/* The backend on a hand-made list: anchors, baselines, clip, hit ignored. */
static void svg_primitives(void **state) {
    (void)state;
    viz_list l = {0};
    viz_rgba ink = {10, 20, 30, 255}, half = {255, 0, 0, 128};
    viz_fill(&l, 0, 0, 100, 50, ink);
    viz_clip(&l, 10, 10, 80, 30);
    viz_text(&l, 0, 0, 100, 20, "L", 10, VIZ_LEFT | VIZ_TOP, ink);
    viz_text(&l, 0, 0, 100, 20, "C", 10, VIZ_CENTER | VIZ_MIDDLE, ink);
    viz_text(&l, 0, 0, 100, 20, "R", 10, VIZ_RIGHT | VIZ_BOTTOM, half);
    viz_clip(&l, 0, 0, 0, 0);
    viz_hit_region(&l, 0, 0, 10, 10, (viz_hit){.kind = VIZ_HIT_TOKEN, .token = 1});
    viz_line(&l, 0, 0, 10, 10, 2.5f, half);
    viz_stroke(&l, 5, 5, 20, 20, 2, ink);
    viz_rgba *c = viz_grid(&l, 0, 0, 30, 20, 2, 3);
    for (int i = 0; i < 6; i++) c[i] = ink;
    char *svg = export_svg(&l, 100, 50);
    assert_non_null(svg);
    // baselines: top + 0.94 em; middle: centre + 0.35 em; bottom: bottom − 0.24 em
    assert_non_null(strstr(svg, "<text x=\"0\" y=\"9.4\" font-size=\"10\" fill=\"#0a141e\">L</text>"));
    assert_non_null(strstr(svg, "<text x=\"50\" y=\"13.5\" font-size=\"10\" text-anchor=\"middle\" fill=\"#0a141e\">C</text>"));
    assert_non_null(strstr(svg, "<text x=\"100\" y=\"17.6\" font-size=\"10\" text-anchor=\"end\" fill=\"#ff0000\" "
                                "fill-opacity=\"0.5\">R</text>"));
    assert_non_null(strstr(svg, "<clipPath id=\"clip1\"><rect x=\"10\" y=\"10\" width=\"80\" height=\"30\"/></clipPath>"));
    assert_non_null(strstr(svg, "<line x1=\"0\" y1=\"0\" x2=\"10\" y2=\"10\" stroke=\"#ff0000\" stroke-opacity=\"0.5\" "
                                "stroke-width=\"2.5\"/>"));
    // a stroke lies inside its box: centred t/2 in
    assert_non_null(strstr(svg, "<rect x=\"6\" y=\"6\" width=\"18\" height=\"18\" fill=\"none\" stroke=\"#0a141e\" "
                                "stroke-width=\"2\"/>"));
    assert_int_equal(count(svg, "<rect x=\"20\" y=\"10\" width=\"10\" height=\"10\""), 1); // last grid cell
    assert_int_equal(count(svg, "<g clip-path"), 1);
    assert_int_equal(count(svg, "<g"), count(svg, "</g>"));
    free(svg);
    viz_free(&l);
}

/* ---- CSV ---- */

/* Splits one RFC 4180 record at *p (advanced past its CRLF) into fields. */
static int csv_record(const char **p, char fields[][64], int cap) {
    int n = 0;
    const char *s = *p;
    while (n < cap) {
        char *f = fields[n++];
        size_t k = 0;
        if (*s == '"') {
            for (s++; *s && !(*s == '"' && s[1] != '"'); s++) {
                if (*s == '"') s++; // a doubled quote
                if (k < 63) f[k++] = *s;
            }
            if (*s == '"') s++;
        } else {
            while (*s && *s != ',' && *s != '\r') {
                if (k < 63) f[k++] = *s;
                s++;
            }
        }
        f[k] = '\0';
        if (*s != ',') break;
        s++;
    }
    if (s[0] == '\r' && s[1] == '\n') s += 2;
    *p = s;
    return n;
}

static void csv_golden_quoting(void **state) {
    (void)state;
    attn_trace t;
    export_opts o;
    attn_err err;
    char *dir = temp_dir();
    trace_of(&t, "a , \" b", 4, 2, 1, "causal");
    small_opts(&o, dir, "csv");
    assert_int_equal(export_parse_steps(&o.steps, "1,3,5", &err), ATTN_OK);
    if (export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err) != ATTN_OK) fail_msg("%s", err.msg);
    assert_golden(dir, "01-embeddings-X.csv");
    assert_golden(dir, "03-scores-S-head1.csv");
    assert_golden(dir, "05-mask-S_masked-head1.csv");
    assert_true(has_file(dir, "03-scores-Q-head1.csv") && has_file(dir, "03-scores-K-head1.csv"));
    char *p = path_in(dir, "05-mask-S_masked-head1.csv"), *csv = slurp(p, NULL);
    const char *q = csv;
    char f[8][64];
    assert_int_equal(csv_record(&q, f, 8), 5);
    assert_string_equal(f[0], "S_masked");
    assert_string_equal(f[1], "a");
    assert_string_equal(f[2], ",");
    assert_string_equal(f[3], "\"");
    assert_string_equal(f[4], "b");
    assert_int_equal(csv_record(&q, f, 8), 5); // row "a": it sees only itself
    assert_string_equal(f[0], "a");
    assert_string_equal(f[2], "-inf");
    assert_string_equal(f[4], "-inf");
    assert_int_equal(csv_record(&q, f, 8), 5);
    assert_string_equal(f[0], ",");
    free(csv);
    free(p);
    attn_trace_free(&t);
    rm_rf(dir);
    free(dir);
}

/* ---- LaTeX ---- */

static void tex_escaping(void **state) {
    (void)state;
    attn_strbuf b;
    attn_sb_init(&b);
    export_tex_escape(&b, "# $ % & _ { } ~ ^ \\ 它");
    assert_string_equal(b.data, "\\# \\$ \\% \\& \\_ \\{ \\} \\textasciitilde{} \\textasciicircum{} \\textbackslash{} 它");
    attn_sb_free(&b);
    attn_sb_init(&b);
    export_tex_escape(&b, "Scores QKᵀ ÷√dₖ");
    assert_string_equal(b.data, "Scores QK$^{\\top}$ $\\div$$\\surd$d$_k$");
    attn_sb_free(&b);
    attn_trace t;
    trace_of(&t, "50% & $x_1 {它}", 4, 2, 1, "causal");
    export_item it = {.trace = &t, .step = ATTN_STEP_MASK, .head = 0};
    char *doc = export_tex_document(&it, "Mask #5", &g_ui, VIZ_LANG_EN);
    assert_non_null(doc);
    assert_non_null(strstr(doc, "\\usepackage[UTF8]{ctex}"));
    assert_non_null(strstr(doc, "\\section*{Mask \\#5}"));
    assert_non_null(strstr(doc, "Sentence: 50\\% \\& \\$x\\_1 \\{它\\}"));
    assert_non_null(strstr(doc, "\\multicolumn{1}{c}{\\text{\\%}}")); // a column's label, escaped
    assert_non_null(strstr(doc, "-\\infty"));
    int depth = 0; // braces balance outside escapes
    for (const char *p = doc; *p; p++) {
        if (*p == '\\' && p[1]) p++;
        else if (*p == '{') depth++;
        else if (*p == '}') assert_true(--depth >= 0);
    }
    assert_int_equal(depth, 0);
    assert_int_equal(count(doc, "\\begin{array}"), 2);
    assert_int_equal(count(doc, "\\begin{"), count(doc, "\\end{"));
    free(doc);
    attn_trace_free(&t);
}

/* Issue 25: "Q = X W_Q_Q" (a double subscript) stopped every projection
 * file; with biases, "+ b_Q". */
static void tex_projection_compiles(void **state) {
    (void)state;
    attn_trace t;
    trace_of(&t, "a b c", 4, 2, 1, "none");
    export_item it = {.trace = &t, .step = ATTN_STEP_QKV, .head = 0};
    char *doc = export_tex_document(&it, "QKV", &g_ui, VIZ_LANG_EN);
    assert_non_null(strstr(doc, "\\[ Q = X W_Q,\\; K = X W_K,\\; V = X W_V\\qquad"));
    assert_null(strstr(doc, "W_Q_"));
    free(doc);
    attn_trace_free(&t);
    attn_config c;
    attn_config_default(&c);
    c.bias = true;
    assert_int_equal(attn_trace_run(&t, "a b c", 5, &c, NULL, NULL, NULL), ATTN_OK);
    doc = export_tex_document(&it, "QKV", &g_ui, VIZ_LANG_EN);
    assert_non_null(strstr(doc, "\\[ Q = X W_Q + b_Q,\\; K = X W_K + b_K,\\; V = X W_V + b_V\\qquad"));
    free(doc);
    attn_trace_free(&t);
}

/* Issue 25: a zh document had English boilerplate. */
static void tex_words_in_the_language(void **state) {
    (void)state;
    attn_trace t;
    trace_of(&t, "它 飞", 4, 2, 1, "causal");
    export_item it = {.trace = &t, .step = ATTN_STEP_MASK, .head = 0};
    char *doc = export_tex_document(&it, "掩码", &g_ui, VIZ_LANG_ZH);
    static const char *const english[] = {"Sentence:", "Tokens", "Configuration:", "otherwise", "mask:", "query"};
    for (size_t i = 0; i < sizeof english / sizeof *english; i++)
        if (strstr(doc, english[i])) fail_msg("the zh document says \"%s\"", english[i]);
    assert_non_null(strstr(doc, "句子： 它 飞"));
    assert_non_null(strstr(doc, "配置： \\texttt{"));
    assert_non_null(strstr(doc, "\\text{若查询 $i$ 可以看到键 $j$}"));
    assert_non_null(strstr(doc, "\\text{否则}"));
    assert_non_null(strstr(doc, "\\text{掩码：causal}"));
    free(doc);
    attn_trace_free(&t);
}

/* Issue 25: a 39-column matrix ran 346 pt off the landscape page, its
 * columns unlabelled. Now it is split into labelled blocks of columns, each
 * estimated to fit; every column is labelled once. */
static void tex_wide_matrix_in_labelled_blocks(void **state) {
    (void)state;
    char sentence[200] = "";
    for (int i = 0; i < 39; i++) strcat(sentence, i ? " tok" : "tok"); // 39 tokens: scores are 39 × 39
    attn_trace t;
    trace_of(&t, sentence, 4, 2, 1, "none");
    export_item it = {.trace = &t, .step = ATTN_STEP_SOFTMAX, .head = 0};
    char *doc = export_tex_document(&it, "Softmax", &g_ui, VIZ_LANG_EN);
    int blocks = count(doc, "\\begin{array}");
    assert_true(blocks >= 2);
    assert_non_null(strstr(doc, "columns 1–"));
    assert_non_null(strstr(doc, "of 39\n"));
    assert_int_equal(count(doc, "\\multicolumn{1}{c}{\\text{"), 39); // every column labelled once
    assert_int_equal(count(doc, "\\multicolumn{1}{c}{}"), blocks);   // the corner of each block
    assert_null(strstr(doc, "\\tiny"));
    free(doc);
    attn_trace_free(&t);
}

/* Issue 25: each matrix also as a snippet to \input in any document: a
 * bmatrix up to 10 columns (amsmath), an array beyond (no MaxMatrixCols). */
static void tex_snippets(void **state) {
    (void)state;
    static const double v[33] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, -INFINITY};
    export_matrix narrow = {"S", "S", v, 4, 2, 0, EXPORT_AXIS_TOKENS, EXPORT_AXIS_DIMS, false, NULL};
    export_matrix wide = {"A", "A", v, 3, 11, 0, EXPORT_AXIS_TOKENS, EXPORT_AXIS_TOKENS, false, NULL};
    char *a = export_tex_snippet(&narrow), *b = export_tex_snippet(&wide);
    assert_non_null(strstr(a, "needs amsmath.\n\\begin{bmatrix}\n  1.00 & 2.00 \\\\\n"));
    assert_non_null(strstr(a, "7.00 & 8.00\n\\end{bmatrix}\n"));
    assert_null(strstr(a, "\\documentclass"));
    assert_non_null(strstr(b, "no package needed.\n\\left[\\begin{array}{*{11}{r}}\n  1.00 & 2.00"));
    assert_non_null(strstr(b, "-\\infty"));
    assert_non_null(strstr(b, "\\end{array}\\right]\n"));
    assert_null(strstr(b, "bmatrix"));
    free(a);
    free(b);
}

/* Every writer shows every value the core accepts (up to ±1e18): LaTeX had
 * typeset 1e16 as 0.00. */
static void every_value_shows(void **state) {
    (void)state;
    static const double v[] = {1e16, 2.5e15, -1e17, 1e18, -1e18, 999999.99, 1234567.0, 0.125, -0.004, -INFINITY};
    export_matrix m = {"X", "X", v, 2, 5, -1, EXPORT_AXIS_DIMS, EXPORT_AXIS_DIMS, false, NULL};
    attn_strbuf b;
    attn_sb_init(&b);
    export_tex_bmatrix(&b, &m);
    static const char *const tex[] = {"1.00\\times10^{16}", "2.50\\times10^{15}", "-1.00\\times10^{17}",
                                      "1.00\\times10^{18}", "-1.00\\times10^{18}", "999999.99",
                                      "1.23\\times10^{6}", "0.13", "0.00", "-\\infty"};
    for (size_t i = 0; i < sizeof tex / sizeof *tex; i++)
        if (!strstr(b.data, tex[i])) fail_msg("LaTeX lacks %s: %s", tex[i], b.data);
    attn_sb_free(&b);
    attn_trace t;
    trace_of(&t, "a b c d e", 4, 2, 1, "none");
    char *csv = export_csv(&t, &m, NULL);
    static const char *const exact[] = {",1e+16,", ",2.5e+15,", ",-1e+17,", ",1e+18,", ",-1e+18\r\n", ",999999.99,",
                                        ",0.125,", ",-0.004,", ",-inf\r\n"};
    for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
        if (!strstr(csv, exact[i])) fail_msg("CSV lacks %s: %s", exact[i], csv);
    free(csv);
    attn_trace_free(&t);
    // SVG numbers (coordinates) beyond 2 decimals' reach are written whole, not clamped
    attn_sb_init(&b);
    ex_num(&b, 2.5e15);
    assert_string_equal(b.data, "2.5e+15");
    attn_sb_free(&b);
}

/* ---- PNG ---- */

static void png_golden(void **state) {
    (void)state;
    attn_trace t;
    export_opts o;
    attn_err err;
    char *dir = temp_dir();
    trace_of(&t, "a b c", 4, 2, 1, "none");
    small_opts(&o, dir, "png");
    o.steps = 1u << ATTN_STEP_SOFTMAX;
    if (export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err) != ATTN_OK) fail_msg("%s", err.msg);
    if (update_golden()) assert_golden(dir, "06-softmax.png");
    SDL_Surface *got = load_png(dir, "06-softmax.png"), *want = load_png(GOLDEN, "06-softmax.png");
    assert_int_equal(got->w, GW);
    assert_int_equal(got->h, GH);
    assert_true(want->w == GW && want->h == GH);
    int off = 0;
    for (int y = 0; y < GH; y++)
        for (int x = 0; x < GW; x++) off += chan_diff(px(got, x, y), px(want, x, y)) > 8;
    if (off * 100 > GW * GH) fail_msg("%d of %d pixels differ by more than 8 (more than 1%%)", off, GW * GH);
    SDL_FreeSurface(got);
    SDL_FreeSurface(want);
    attn_trace_free(&t);
    rm_rf(dir);
    free(dir);
}

static bool in_set(const Uint32 *set, int n, Uint32 c) {
    for (int i = 0; i < n; i++)
        if (set[i] == c) return true;
    return false;
}

/* Distinct colours of s (at most cap) into set; returns how many. */
static int colours(const SDL_Surface *s, Uint32 *set, int cap) {
    int n = 0;
    for (int y = 0; y < s->h; y++)
        for (int x = 0; x < s->w; x++)
            if (n < cap && !in_set(set, n, px(s, x, y))) set[n++] = px(s, x, y);
    return n;
}

/* Scale 2 is twice the size and drawn at that size: an upscaled bitmap would
 * have uniform 2×2 blocks and no colour the 1× image lacks. */
static void png_pixel_scale_2(void **state) {
    (void)state;
    attn_trace t;
    export_opts o;
    attn_err err;
    char *d1 = temp_dir(), *d2 = temp_dir();
    trace_of(&t, "a b c", 4, 2, 1, "none");
    small_opts(&o, d1, "png");
    o.steps = 1u << ATTN_STEP_SCORES;
    assert_int_equal(export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err), ATTN_OK);
    o.dir = d2;
    o.pixel_scale = 2;
    assert_int_equal(export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err), ATTN_OK);
    SDL_Surface *a = load_png(d1, "03-scores.png"), *b = load_png(d2, "03-scores.png");
    assert_true(b->w == 2 * a->w && b->h == 2 * a->h);
    int mixed = 0, blocks = 0;
    for (int y = 0; y + 1 < b->h; y += 2)
        for (int x = 0; x + 1 < b->w; x += 2, blocks++) {
            Uint32 c = px(b, x, y);
            mixed += px(b, x + 1, y) != c || px(b, x, y + 1) != c || px(b, x + 1, y + 1) != c;
        }
    assert_true(mixed * 200 > blocks); // > 0.5% of the blocks hold an edge inside
    static Uint32 ca[4096], cb[4096];
    int na = colours(a, ca, 4096), nb = colours(b, cb, 4096), fresh = 0;
    for (int i = 0; i < nb; i++) fresh += !in_set(ca, na, cb[i]);
    assert_true(fresh * 10 > nb); // anti-aliasing at the new size makes new shades
    // the same layout as UI scale 2 on a twice larger figure, pixel for pixel
    char *d3 = temp_dir();
    o.dir = d3;
    o.pixel_scale = 1;
    o.ui_scale = 2.0f;
    o.width = 2 * GW;
    o.height = 2 * GH;
    assert_int_equal(export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err), ATTN_OK);
    char *p2 = path_in(d2, "03-scores.png"), *p3 = path_in(d3, "03-scores.png");
    size_t n2 = 0, n3 = 0;
    char *x2 = slurp(p2, &n2), *x3 = slurp(p3, &n3);
    assert_true(x2 && x3 && n2 == n3 && memcmp(x2, x3, n2) == 0);
    free(x2);
    free(x3);
    free(p2);
    free(p3);
    SDL_FreeSurface(a);
    SDL_FreeSurface(b);
    attn_trace_free(&t);
    rm_rf(d1);
    rm_rf(d2);
    rm_rf(d3);
    free(d1);
    free(d2);
    free(d3);
}

/* ---- the batch ---- */

/* Compares every file of a with the same file of b. Returns how many. */
static int same_files(const char *a, const char *b) {
    int n = 0;
    DIR *d = opendir(a);
    struct dirent *e;
    assert_non_null(d);
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char *p1 = path_in(a, e->d_name), *p2 = path_in(b, e->d_name);
        size_t l1 = 0, l2 = 0;
        char *x = slurp(p1, &l1), *y = slurp(p2, &l2);
        if (!x || !y || l1 != l2 || memcmp(x, y, l1) != 0) fail_msg("%s differs between two exports", e->d_name);
        n++;
        free(x);
        free(y);
        free(p1);
        free(p2);
    }
    closedir(d);
    return n;
}

/* Same input twice → the same files, byte for byte (no times anywhere). */
static void deterministic(void **state) {
    (void)state;
    attn_trace t;
    export_opts o;
    attn_err err;
    char *base = temp_dir(), *d1 = path_in(base, "out"), *keep = path_in(base, "first");
    trace_of(&t, "这只 动物 a , \"", 4, 2, 2, "causal");
    small_opts(&o, d1, "all");
    o.caption = true;
    o.lang = VIZ_LANG_ZH;
    assert_int_equal(export_parse_steps(&o.steps, "2,6,8", &err), ATTN_OK);
    assert_int_equal(export_sentence(&o, &t, 1, -1, &g_ui, g_fonts, &err), ATTN_OK);
    assert_int_equal(rename(d1, keep), 0);
    assert_int_equal(export_sentence(&o, &t, 1, -1, &g_ui, g_fonts, &err), ATTN_OK);
    int n = same_files(keep, d1);
    assert_true(n > 10);
    assert_int_equal(entries(d1, NULL), n + 1); // and the manifest
    attn_trace_free(&t);
    rm_rf(base);
    free(base);
    free(d1);
    free(keep);
}

/* The handout has every page with its figure; the index every file with a
 * command, the version, and the SHA-256 of the weights file. */
static void handout_and_index(void **state) {
    (void)state;
    attn_trace t1, t2;
    export_opts o;
    attn_err err;
    char *dir = temp_dir(), *wpath = path_in(dir, "w.json");
    char *out = path_in(dir, "out");
    write_file(wpath, "changed since it was read"); // the index hashes what was read, never the file again
    trace_of(&t1, "a b c", 4, 2, 1, "none");
    trace_of(&t2, "它 飞 得", 4, 2, 1, "causal");
    small_opts(&o, out, "md,csv");
    o.weights_path = wpath;
    o.weights_sha256 = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"; // SHA-256("abc")
    o.title = "Lesson: attention";
    export_item items[2] = {
        {.trace = &t1, .step = ATTN_STEP_SCORES, .id = "intro", .title = "First page", .text = "Look at *row 1*.", .query = -1, .remake_flags = "--page intro"},
        {.trace = &t2, .step = ATTN_STEP_SOFTMAX, .id = "it-looks", .title = "它 looks back", .query = -1},
    };
    if (export_run(&o, items, 2, &g_ui, g_fonts, &err) != ATTN_OK) fail_msg("%s", err.msg);
    assert_true(has_file(out, "01-intro.png") && has_file(out, "02-it-looks.png")); // md brings its figures
    assert_true(has_file(out, "01-intro-S-head1.csv") && has_file(out, "02-it-looks-A-head1.csv"));
    char *p = path_in(out, "handout.md"), *md = slurp(p, NULL);
    assert_non_null(md);
    assert_non_null(strstr(md, "# Lesson: attention\n"));
    assert_non_null(strstr(md, "## Page 1 · First page\n")); // a page, not step 1
    assert_non_null(strstr(md, "Look at *row 1*.\n"));
    assert_non_null(strstr(md, "![First page](01-intro.png)"));
    assert_non_null(strstr(md, "## Page 2 · 它 looks back\n"));
    assert_non_null(strstr(md, "![它 looks back](02-it-looks.png)"));
    free(md);
    free(p);
    p = path_in(out, "index.md");
    char *ix = slurp(p, NULL);
    assert_non_null(ix);
    assert_non_null(strstr(ix, "attnviz " ATTN_VERSION));
    assert_non_null(strstr(ix, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")); // SHA-256("abc")
    assert_non_null(strstr(ix, "`01-intro.png` (480×300 px):"));
    assert_non_null(strstr(ix, "--format png --page intro --pixel-scale 1 --size 480x300 --theme light --view figure"));
    assert_non_null(strstr(ix, "`01-intro-Q-head1.csv`, `01-intro-K-head1.csv`, `01-intro-S-head1.csv`"));
    assert_non_null(strstr(ix, "mask=causal"));
    assert_non_null(strstr(ix, "- Seed: 1\n"));
    assert_non_null(strstr(ix, "--format md"));
    free(ix);
    free(p);
    attn_trace_free(&t1);
    attn_trace_free(&t2);
    rm_rf(dir);
    free(dir);
    free(wpath);
    free(out);
}

/* The small lesson of lessons/README.md. */
static const char TINY_LESSON[] =
    "# lesson: tiny\ntitle: A tiny lesson\nlang: en\n\n"
    "@config: d_k=2 heads=1\n@sentence: the cat saw a bird\n\n"
    "@vocab\n      noun animate can-fly verb\nthe:  0 0 0 0\ncat:  1 1 0 0\nsaw:  0 0 0 1\na:    0 0 0 0\n"
    "bird: 1 1 1 0\n@end\n\n"
    "@weights head 0 W_Q\nnoun:    0 0\nanimate: 0 0\ncan-fly: 0 0\nverb:    2 2\n@end\n\n"
    "@weights head 0 W_K\nnoun:    0 0\nanimate: 1 0\ncan-fly: 0 1\nverb:    0 0\n@end\n\n"
    "@weights head 0 W_V\nnoun:    1 0\nanimate: 0 1\ncan-fly: 0 0\nverb:    0 0\n@end\n\n"
    "@weights W_O\n1 0 0 0\n0 1 0 0\n@end\n\n"
    "=== page: look\ntitle: Who does \"saw\" look at?\n@step: softmax\n@highlight: row saw\n"
    "@predict: query=saw head=0 answer=bird\n\n"
    "The verb *saw* was built to look for something alive that can fly:\n- its query is (2, 2);\n"
    "- the key of `bird` is (1, 1), the key of `cat` is (1, 0).\n\nClick the word you think *saw* attends to most.\n\n"
    "=== page: intro\ntitle: Plain\n\nNo step here: d_k and 2\\*3.\n\n"
    "=== page: x\ntitle: Features\n@step: tokens\n\nX's columns are the vocabulary's features.\n";

/* Four pages that differ only in what they highlight; their figures must
 * differ too (a row, a column, a cell and a token each look different), and
 * the handout computes the {references} and keeps the answer after @reveal. */
static const char MARKS_LESSON[] =
    "# lesson: marks\ntitle: Marks\nlang: en\n\n@config: d_k=2 heads=1\n@sentence: the cat saw a bird\n\n"
    "=== page: row\ntitle: Row\n@step: softmax\n@highlight: row saw\n\nA row.\n\n"
    "=== page: column\ntitle: Column\n@step: softmax\n@highlight: column bird\n\nA column.\n\n"
    "=== page: cell\ntitle: Cell\n@step: softmax\n@highlight: cell saw bird\n\nA cell.\n\n"
    "=== page: token\ntitle: Token\n@step: softmax\n@highlight: token bird\n\nA token.\n\n"
    "=== page: ask\ntitle: Ask\n@step: softmax\n@predict: query=saw head=0\n\n"
    "Where does *saw* look? Its weight on bird is {weights saw bird}, {step softmax}.\n\n@reveal\n\n"
    "The answer: {rest saw bird} goes elsewhere; {n} tokens, {macs scores} multiply-adds.\n";

static void highlight_variants_differ(void **state) {
    (void)state;
    lesson *l = NULL;
    export_opts o;
    attn_err err;
    char *dir = temp_dir();
    if (lesson_parse(&l, MARKS_LESSON, sizeof MARKS_LESSON - 1, "marks.lesson", &err) != ATTN_OK) fail_msg("%s", err.msg);
    small_opts(&o, dir, "png,md");
    if (export_lesson(&o, l, NULL, &g_ui, g_fonts, &err) != ATTN_OK) fail_msg("%s", err.msg);
    const char *names[] = {"01-row.png", "02-column.png", "03-cell.png", "04-token.png"};
    char *png[4];
    size_t len[4];
    for (int i = 0; i < 4; i++) {
        char *p = path_in(dir, names[i]);
        png[i] = slurp(p, &len[i]);
        assert_non_null(png[i]);
        free(p);
    }
    for (int i = 0; i < 4; i++)
        for (int j = i + 1; j < 4; j++)
            if (len[i] == len[j] && memcmp(png[i], png[j], len[i]) == 0) fail_msg("%s equals %s", names[i], names[j]);
    for (int i = 0; i < 4; i++) free(png[i]);
    // the references are the trace's numbers; the answer comes after the figure
    attn_trace t = {0};
    assert_int_equal(lesson_page_trace(&t, l, 4, NULL, 0, &err), ATTN_OK);
    const double *a = attn_trace_stage(&t, ATTN_ST_WEIGHTS, 0);
    char want[160];
    snprintf(want, sizeof want, "Its weight on bird is %.2f, 6 · Softmax.", a[2 * 5 + 4]);
    char *p = path_in(dir, "handout.md"), *md = slurp(p, NULL);
    assert_non_null(strstr(md, want));
    snprintf(want, sizeof want, "The answer: %.2f goes elsewhere; 5 tokens, %lld multiply-adds.", 1 - a[2 * 5 + 4],
             t.macs[ATTN_ST_SCORES]); // n²·d_k = 50
    char *answer = strstr(md, want), *figure = strstr(md, "](05-ask.png)");
    assert_non_null(answer);
    assert_true(figure && figure < answer); // the question, the figure, then the answer
    free(md);
    free(p);
    attn_trace_free(&t);
    lesson_free(l);
    rm_rf(dir);
    free(dir);
}

/* A lesson: one figure per page named NN-<id>, its text in the handout as
 * Markdown, a page without a step showing the step before it. */
static void lesson_export(void **state) {
    (void)state;
    lesson *l = NULL;
    export_opts o;
    attn_err err;
    char *dir = temp_dir();
    if (lesson_parse(&l, TINY_LESSON, sizeof TINY_LESSON - 1, "tiny.lesson", &err) != ATTN_OK) fail_msg("%s", err.msg);
    small_opts(&o, dir, "svg,csv,md");
    o.command_prefix = "attnviz --headless --lesson tiny.lesson";
    if (export_lesson(&o, l, NULL, &g_ui, g_fonts, &err) != ATTN_OK) fail_msg("%s", err.msg);
    assert_true(has_file(dir, "01-look.svg") && has_file(dir, "02-intro.svg") && !has_file(dir, "01-look.png"));
    assert_true(has_file(dir, "01-look-A-head1.csv") && has_file(dir, "02-intro-A-head1.csv"));
    char *xp = path_in(dir, "03-x-X.csv"), *xcsv = slurp(xp, NULL); // the vocabulary names X's columns
    assert_non_null(xcsv);
    const char want[] = "X,noun,animate,can-fly,verb\r\nthe,0,0,0,0\r\ncat,1,1,0,0\r\n";
    assert_memory_equal(xcsv, want, sizeof want - 1);
    free(xcsv);
    free(xp);
    char *p = path_in(dir, "handout.md"), *md = slurp(p, NULL);
    assert_non_null(md);
    assert_non_null(strstr(md, "# A tiny lesson\n"));
    assert_non_null(strstr(md, "## Page 1 · Who does \"saw\" look at?\n"));
    assert_non_null(strstr(md, "The verb *saw* was built")); // Markdown emphasis: pandoc keeps it in DOCX and PDF
    assert_null(strstr(md, "<em>"));
    // a static handout asks, shows the figure, then answers in words: no "click" under a figure showing the answer
    assert_null(strstr(md, "Click"));
    char *fig = strstr(md, "![Who does \"saw\" look at?](01-look.svg)"), *ans = strstr(md, "### Answer\n\n");
    assert_true(fig && ans && fig < ans);
    assert_non_null(strstr(ans, "\"saw\" attends most to \"bird\" ("));
    assert_non_null(strstr(md, "- the key of `bird` is (1, 1), the key of `cat` is (1, 0).\n\n![Who"));
    assert_non_null(strstr(md, "No step here: d\\_k and 2\\*3.\n"));
    assert_non_null(strstr(md, "![Plain](02-intro.svg)")); // no PNG asked for: the SVG
    free(md);
    free(p);
    p = path_in(dir, "01-look.svg");
    char *svg = slurp(p, NULL);
    assert_non_null(strstr(svg, "hand-designed (lesson)"));
    assert_non_null(strstr(svg, "Attention from &quot;saw&quot;")); // the page's query
    free(svg);
    free(p);
    p = path_in(dir, "index.md");
    char *ix = slurp(p, NULL);
    assert_non_null(strstr(ix, "attnviz --headless --lesson tiny.lesson --export-dir"));
    assert_non_null(strstr(ix, "--format svg --page look"));
    free(ix);
    free(p);
    // one page alone keeps its number and name
    rm_rf(dir);
    if (export_lesson(&o, l, "intro", &g_ui, g_fonts, &err) != ATTN_OK) fail_msg("%s", err.msg);
    assert_true(has_file(dir, "02-intro.svg") && !has_file(dir, "01-look.svg"));
    p = path_in(dir, "index.md");
    ix = slurp(p, NULL);
    assert_non_null(strstr(ix, "attnviz --headless --lesson tiny.lesson --page intro --export-dir"));
    assert_null(strstr(ix, "--page intro --page"));
    free(ix);
    free(p);
    assert_int_equal(export_lesson(&o, l, "nope", &g_ui, g_fonts, &err), ATTN_ERR_RANGE);
    lesson_free(l);
    rm_rf(dir);
    free(dir);
}

/* Issue 23: a page that compares writes both views, as the window shows
 * it — the scale page scaled and not, the cost page with and without its
 * mask, the multi-head page's two heads (its A was missing). */
static void lesson_compare_pages_export_both_views(void **state) {
    (void)state;
    static const struct {
        const char *page, *file, *first, *second;
    } pages[] = {
        {"scale", "06-scale.svg", "scaled by √dₖ", "not scaled"},
        {"cost", "12-cost.svg", "Mask window, Window W 2", "Mask none"}, // the window's words
        {"multi-head", "11-multi-head.svg", "head 1", "head 2"},
    };
    lesson *l = NULL;
    attn_err err;
    if (page_lesson_load(&l, ATTN_SOURCE_DIR "/lessons/en/self-attention.lesson", &err) != ATTN_OK) fail_msg("%s", err.msg);
    for (size_t i = 0; i < sizeof pages / sizeof *pages; i++) {
        char *dir = temp_dir();
        export_opts o;
        small_opts(&o, dir, "svg");
        o.width = 1280, o.height = 800;
        o.command_prefix = "attnviz --headless --lesson self-attention.lesson";
        if (export_lesson(&o, l, pages[i].page, &g_ui, g_fonts, &err) != ATTN_OK) fail_msg("%s", err.msg);
        char *p = path_in(dir, pages[i].file), *svg = slurp(p, NULL);
        if (!svg) fail_msg("%s was not written", pages[i].file);
        if (!strstr(svg, pages[i].first) || !strstr(svg, pages[i].second))
            fail_msg("page %s: the figure lacks a view (\"%s\", \"%s\")", pages[i].page, pages[i].first, pages[i].second);
        free(svg);
        free(p);
        rm_rf(dir);
        free(dir);
    }
    lesson_free(l);
}

/* Issue 25: lesson text reaches Markdown as text. A title with <script> or
 * <img onerror=…> landed raw in handout.md and index.md, and MkDocs ran it. */
static const char HOSTILE_LESSON[] =
    "# lesson: hostile\ntitle: Notes <script>alert(1)</script>\nlang: en\n\n"
    "@config: d_k=2 heads=1\n@sentence: the cat saw a bird\n\n"
    "=== page: one\ntitle: <img src=x onerror=alert(2)> & more\n@step: softmax\n\n"
    "Plain <b>bold</b> & <script>alert(3)</script> text, *emphasis*.\n\n"
    "- an item with [a link](javascript:alert(4))\n\n"
    "Guess first: click the word you think it is. Then read on. 先猜一猜：点一下你的答案。\n\n"
    "Decide, then click the key you think it is. Press E, then read on. 想好了，再点一下你认为的那个键。看第 1 层，点一下“，”就懂了。\n";

static void markdown_escapes_html(void **state) {
    (void)state;
    lesson *l = NULL;
    export_opts o;
    attn_err err;
    char *dir = temp_dir();
    if (lesson_parse(&l, HOSTILE_LESSON, sizeof HOSTILE_LESSON - 1, "hostile.lesson", &err) != ATTN_OK) fail_msg("%s", err.msg);
    small_opts(&o, dir, "svg,md");
    if (export_lesson(&o, l, NULL, &g_ui, g_fonts, &err) != ATTN_OK) fail_msg("%s", err.msg);
    const char *files[] = {"handout.md", "index.md"};
    for (int i = 0; i < 2; i++) {
        char *p = path_in(dir, files[i]), *md = slurp(p, NULL);
        assert_non_null(md);
        if (strstr(md, "<script") || strstr(md, "<img") || strstr(md, "<b>")) fail_msg("%s passes HTML through:\n%s", files[i], md);
        assert_non_null(strstr(md, "# Notes &lt;script&gt;alert(1)&lt;/script&gt;\n"));
        assert_non_null(strstr(md, "&lt;img src=x onerror=alert(2)&gt; &amp; more"));
        free(md);
        free(p);
    }
    char *p = path_in(dir, "handout.md"), *md = slurp(p, NULL);
    assert_non_null(strstr(md, "Plain &lt;b&gt;bold&lt;/b&gt; &amp; &lt;script&gt;alert(3)&lt;/script&gt; text, *emphasis*."));
    assert_non_null(strstr(md, "- an item with \\[a link\\](javascript:alert(4))\n"));                       // no link
    assert_non_null(strstr(md, "\nGuess first. Then read on. 先猜一猜。\n"));                                // on paper there is nothing to click
    assert_non_null(strstr(md, "\nDecide. Press E, then read on. 想好了。看第 1 层，点一下“，”就懂了。\n")); // nor "then click" (the guesses of modern-attention)
    free(md);
    free(p);
    lesson_free(l);
    rm_rf(dir);
    free(dir);
}

/* ex_md_text by hand: what every Markdown reader would take as markup. */
static void markdown_text_escaping(void **state) {
    (void)state;
    const struct {
        const char *in;
        bool start;
        const char *out;
    } cases[] = {
        {"a<b>&c", false, "a&lt;b&gt;&amp;c"},
        {"*x* _y_ `z` [l](u) #h !i \\", false, "\\*x\\* \\_y\\_ \\`z\\` \\[l\\](u) \\#h \\!i \\\\"},
        {"- item", true, "\\- item"},
        {"- mid", false, "- mid"},
        {"12. list", true, "12\\. list"},
        {"two\nlines", false, "two lines"},
        {"它：“鸟”", false, "它：“鸟”"},
        {"$5 or $^^5cinput{/etc/hostname}$", false, "&#36;5 or &#36;^^5cinput{/etc/hostname}&#36;"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        attn_strbuf b;
        attn_sb_init(&b);
        ex_md_text(&b, cases[i].in, strlen(cases[i].in), cases[i].start);
        assert_string_equal(b.data, cases[i].out);
        attn_sb_free(&b);
    }
}

/* Issue 25: CSV headers name the dimensions as the figure does, and a text
 * cell a spreadsheet would run as a formula is neutralised (OWASP). */
static const char NAMED_LESSON[] =
    "# lesson: named\ntitle: Named\nlang: en\n\n@config: d_k=2 heads=1\n@sentence: the cat saw a bird\n\n"
    "@vocab\n      noun animate can-fly verb\nthe:  0 0 0 0\ncat:  1 1 0 0\nsaw:  0 0 0 1\na:    0 0 0 0\n"
    "bird: 1 1 1 0\n@end\n\n"
    "@weights head 0 W_Q\n         wants-animate wants-can-fly\nnoun:    0 0\nanimate: 0 0\ncan-fly: 0 0\nverb:    2 2\n@end\n\n"
    "@weights head 0 W_K\n         animate can-fly\nnoun:    0 0\nanimate: 1 0\ncan-fly: 0 1\nverb:    0 0\n@end\n\n"
    "@weights head 0 W_V\n         noun animate\nnoun:    1 0\nanimate: 0 1\ncan-fly: 0 0\nverb:    0 0\n@end\n\n"
    "@weights W_O\n1 0 0 0\n0 1 0 0\n@end\n\n"
    "=== page: qkv\ntitle: Q K V\n@step: qkv\n\nThe projections.\n\n"
    "=== page: sum\ntitle: Sum\n@step: sum\n\nZ.\n\n"
    "=== page: out\ntitle: Out\n@step: heads\n\nBack.\n";

static void csv_names_and_formulas(void **state) {
    (void)state;
    lesson *l = NULL;
    export_opts o;
    attn_err err;
    char *dir = temp_dir();
    if (lesson_parse(&l, NAMED_LESSON, sizeof NAMED_LESSON - 1, "named.lesson", &err) != ATTN_OK) fail_msg("%s", err.msg);
    small_opts(&o, dir, "csv");
    if (export_lesson(&o, l, NULL, &g_ui, g_fonts, &err) != ATTN_OK) fail_msg("%s", err.msg);
    const struct { const char *file, *head; } want[] = {
        {"01-qkv-W_Q-head1.csv", "W_Q,wants-animate,wants-can-fly\r\nnoun,"},
        {"01-qkv-Q-head1.csv", "Q,wants-animate,wants-can-fly\r\nthe,"},
        {"01-qkv-K-head1.csv", "K,animate,can-fly\r\n"},
        {"02-sum-Z-head1.csv", "Z,noun,animate\r\n"},
        {"03-out-W_O.csv", "W_O,noun,animate,can-fly,verb\r\nh1.0,"},
        {"03-out-out.csv", "out,noun,animate,can-fly,verb\r\n"},
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        char *p = path_in(dir, want[i].file), *csv = slurp(p, NULL);
        if (!csv || strncmp(csv, want[i].head, strlen(want[i].head)) != 0)
            fail_msg("%s starts \"%.60s\", not \"%s\"", want[i].file, csv ? csv : "(missing)", want[i].head);
        free(csv);
        free(p);
    }
    const struct { const char *in, *out; } cells[] = {
        {"=HYPERLINK(\"http://x\")", "\"'=HYPERLINK(\"\"http://x\"\")\""},
        {"+cmd|' /C calc'!A0", "\"'+cmd|' /C calc'!A0\""},
        {"@SUM(1)", "\"'@SUM(1)\""},
        {"-2+3", "\"'-2+3\""},
        {"\tx", "\"'\tx\""},
        {"-3", "-3"},
        {"+1.5", "+1.5"},
        {"a=b", "a=b"},
        {"a,b", "\"a,b\""},
        {"它", "它"},
    };
    for (size_t i = 0; i < sizeof cells / sizeof *cells; i++) {
        attn_strbuf b;
        attn_sb_init(&b);
        export_csv_field(&b, cells[i].in);
        assert_string_equal(b.data, cells[i].out);
        attn_sb_free(&b);
    }
    lesson_free(l);
    rm_rf(dir);
    free(dir);
}

/* Issue 25: a handout past its budget shows each page in a lazy iframe (a
 * 4-layer × 8-head model at 64 tokens made a 96.6 MB handout.html). */
static void html_handout_budget(void **state) {
    (void)state;
    attn_trace t;
    export_opts o;
    attn_err err;
    char *dir = temp_dir();
    trace_of(&t, "a b c", 4, 2, 1, "none");
    small_opts(&o, dir, "html");
    o.steps = 1u << ATTN_STEP_SOFTMAX | 1u << ATTN_STEP_QKV;
    size_t keep = ex_handout_budget;
    ex_handout_budget = 1000; // the two pages are far more
    attn_status st = export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err);
    ex_handout_budget = keep;
    if (st != ATTN_OK) fail_msg("%s", err.msg);
    char *p = path_in(dir, "handout.html"), *page = slurp(p, NULL);
    assert_non_null(strstr(page, "<iframe class=\"attnviz-frame\" src=\"02-qkv.html\""));
    assert_non_null(strstr(page, "src=\"06-softmax.html\""));
    assert_non_null(strstr(page, "loading=\"lazy\""));
    assert_null(strstr(page, "data-attnviz=")); // no figure inline
    assert_true(strlen(page) < 20000);
    free(page);
    free(p);
    p = path_in(dir, "index.md");
    page = slurp(p, NULL);
    assert_non_null(strstr(page, "each page in an iframe"));
    free(page);
    free(p);
    rm_rf(dir);
    if (export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err) != ATTN_OK) fail_msg("%s", err.msg);
    p = path_in(dir, "handout.html");
    page = slurp(p, NULL);
    assert_null(strstr(page, "<iframe")); // under the budget: the figures themselves
    assert_non_null(strstr(page, "data-attnviz="));
    free(page);
    free(p);
    rm_rf(dir);
    free(dir);
    attn_trace_free(&t);
}

/* Issue 25: the model's step-6 backward view shows ∂L/∂A, and its hint said
 * "Hover a cell of ∂L/∂T"; steps 4 and 5 show ∂L/∂T and keep theirs. */
static void model_backward_hints(void **state) {
    (void)state;
    model m = {0};
    model_result r = {0};
    attn_err err;
    size_t len = 0;
    char *text = slurp(ATTN_SOURCE_DIR "/assets/models/referent-en.json", &len), *dir = temp_dir();
    assert_non_null(text);
    if (model_file_parse(&m, text, len, "referent-en.json", &err) != ATTN_OK) fail_msg("%s", err.msg);
    const char *s = "The animal didn't cross the street because it was too tired.";
    model_target_spec target = {7, "animal"}; // "it" points to the animal: the backward pass has a loss
    if (model_run(&r, &m, s, strlen(s), &target, 1, &err) != ATTN_OK) fail_msg("%s", err.msg);
    export_item items[EXPORT_MAX_MODEL_ITEMS];
    int n = export_items_for_model(items, EXPORT_MAX_MODEL_ITEMS, &m, &r, VIZ_TARGET_GIVEN,
                                   1u << ATTN_STEP_SCALE | 1u << ATTN_STEP_SOFTMAX, 0, -1, (viz_origin){0});
    export_opts o;
    small_opts(&o, dir, "md");
    if (export_run(&o, items, n, &g_ui, g_fonts, &err) != ATTN_OK) fail_msg("%s", err.msg);
    char *p = path_in(dir, "handout.md"), *md = slurp(p, NULL);
    int pages = 0;
    for (char *sec = strstr(md, "\n## "); sec; sec = strstr(sec + 1, "\n## ")) { // each page on its own
        char *end = strstr(sec + 1, "\n## ");
        if (end) *end = '\0';
        bool soft = strstr(sec, "softmax-backward.png") != NULL, scale = strstr(sec, "scale-backward.png") != NULL;
        if (soft) assert_non_null(strstr(sec, "Hover a cell of ∂L/∂A"));
        if (soft) assert_null(strstr(sec, "∂L/∂T"));
        if (scale) assert_non_null(strstr(sec, "Hover a cell of ∂L/∂T"));
        pages += soft || scale;
        if (end) *end = '\n';
    }
    if (pages != 2 * m.cfg.layers) fail_msg("%d backward pages in:\n%.3000s", pages, md); // steps 4 and 6 of each layer
    free(md);
    free(p);
    model_result_free(&r);
    model_free(&m);
    free(text);
    rm_rf(dir);
    free(dir);
}

/* Issue 25: a vocabulary word with a backtick closed index.md's code span
 * ("`1:p`q`": pandoc shows "1:p" as code, then "q`" as text). The target is
 * fenced by more backticks than any run in it. */
static void markdown_target_backtick(void **state) {
    (void)state;
    model m = {0};
    model_result r = {0};
    attn_err err;
    size_t len = 0;
    char *text = slurp(ATTN_SOURCE_DIR "/assets/models/induction.json", &len), *dir = temp_dir();
    assert_non_null(text);
    char *p_word = strstr(strstr(text, "\"vocab\""), "\"p\""); // the last word, in no probe sentence
    assert_non_null(p_word);
    attn_strbuf b;
    attn_sb_init(&b);
    attn_sb_append(&b, text, (size_t)(p_word - text));
    attn_sb_puts(&b, "\"p`q\"");
    attn_sb_puts(&b, p_word + 3);
    if (model_file_parse(&m, b.data, b.len, "induction.json", &err) != ATTN_OK) fail_msg("%s", err.msg);
    const char *s = "a b c d a b c";
    model_target_spec target = {1, "p`q"};
    if (model_run(&r, &m, s, strlen(s), &target, 1, &err) != ATTN_OK) fail_msg("%s", err.msg);
    export_item items[EXPORT_MAX_MODEL_ITEMS];
    int n = export_items_for_model(items, EXPORT_MAX_MODEL_ITEMS, &m, &r, VIZ_TARGET_GIVEN, 1u << ATTN_STEP_SOFTMAX, 0,
                                   -1, (viz_origin){0});
    export_opts o;
    small_opts(&o, dir, "md");
    if (export_run(&o, items, n, &g_ui, g_fonts, &err) != ATTN_OK) fail_msg("%s", err.msg);
    char *path = path_in(dir, "index.md"), *md = slurp(path, NULL);
    assert_non_null(md);
    if (!strstr(md, "- Targets: ``1:p`q`` (given with --target)\n")) fail_msg("the target's code span:\n%.2000s", md);
    assert_null(strstr(md, " `1:p`q`"));
    free(md);
    free(path);
    attn_sb_free(&b);
    model_result_free(&r);
    model_free(&m);
    free(text);
    rm_rf(dir);
    free(dir);
}

/* A batch that fails at its k-th file, for every k: the files of the last
 * export are intact, nothing new appears, and no staging folder is left. */
static void failure_leaves_nothing(void **state) {
    (void)state;
    attn_trace t, t2;
    export_opts o;
    attn_err err;
    char *dir = temp_dir(), *old = path_in(dir, "03-scores.png"), *note = path_in(dir, "notes.txt");
    trace_of(&t, "a b c", 4, 2, 1, "none");
    trace_of(&t2, "a b c d", 4, 2, 1, "none");
    small_opts(&o, dir, "png,svg,csv,tex,md");
    o.width = 320;
    o.height = 200;
    assert_int_equal(export_parse_steps(&o.steps, "3,6", &err), ATTN_OK);
    write_file(note, "the user's own");
    if (export_sentence(&o, &t2, 0, -1, &g_ui, g_fonts, &err) != ATTN_OK) fail_msg("%s", err.msg);
    const int files = 2 + 2 + 4 + 2 + 4 + 2;         // png, svg, csv, tex, tex snippets, handout + index
    assert_int_equal(entries(dir, NULL), files + 2); // and notes.txt, and the manifest
    size_t before_len = 0;
    char *before = slurp(old, &before_len);
    for (int k = 1; k <= files + 1; k++) { // the manifest is the last file written
        export_test_fail_at_file = k;
        attn_status st = export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err);
        if (st != ATTN_ERR_IO) fail_msg("failing file %d: status %d (%s)", k, st, err.msg);
        assert_non_null(strstr(err.msg, "No space left on device"));
        int staging;
        assert_int_equal(entries(dir, &staging), files + 2);
        assert_int_equal(staging, 0);
        size_t now_len = 0;
        char *now = slurp(old, &now_len);
        assert_true(now_len == before_len && memcmp(now, before, now_len) == 0);
        free(now);
    }
    free(before);
    export_test_fail_at_file = 0;
    assert_int_equal(export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err), ATTN_OK); // then it works, replacing it
    assert_int_equal(entries(dir, NULL), files + 2);
    char *kept = slurp(note, NULL);
    assert_string_equal(kept, "the user's own");
    free(kept);
    free(note);
    attn_trace_free(&t2);
    SDL_Surface *s = load_png(dir, "03-scores.png");
    SDL_FreeSurface(s);
    attn_trace_free(&t);
    rm_rf(dir);
    free(dir);
    free(old);
}

/* A missing folder is created; when the batch fails it is removed again. */
static void missing_dir(void **state) {
    (void)state;
    attn_trace t;
    export_opts o;
    attn_err err;
    char *base = temp_dir(), *top = path_in(base, "new"), *dir = path_in(top, "sub");
    trace_of(&t, "a b c", 4, 2, 1, "none");
    small_opts(&o, dir, "csv");
    export_test_fail_at_file = 2;
    assert_int_equal(export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err), ATTN_ERR_IO);
    export_test_fail_at_file = 0;
    assert_int_equal(entries(base, NULL), 0);
    assert_int_equal(export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err), ATTN_OK);
    assert_true(has_file(dir, "index.md") && has_file(dir, "08-multi-head-out.csv"));
    attn_trace_free(&t);
    rm_rf(base);
    free(base);
    free(top);
    free(dir);
}

/* A path through a regular file, or a folder where a file must go. */
static void bad_targets(void **state) {
    (void)state;
    attn_trace t;
    export_opts o;
    attn_err err;
    char *base = temp_dir(), *file = path_in(base, "notes.txt"), *dir = path_in(file, "figs");
    trace_of(&t, "a b c", 4, 2, 1, "none");
    write_file(file, "x");
    small_opts(&o, dir, "csv");
    assert_int_equal(export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err), ATTN_ERR_IO);
    assert_non_null(strstr(err.msg, "is a file, not a folder"));
    assert_non_null(strstr(err.msg, file));
    assert_int_equal(entries(base, NULL), 1);
    // index.md is a folder: refused before any file is moved into place
    char *idx = path_in(base, "index.md");
    assert_int_equal(mkdir(idx, 0755), 0);
    o.dir = base;
    assert_int_equal(export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err), ATTN_ERR_IO);
    assert_non_null(strstr(err.msg, "index.md"));
    int staging;
    assert_int_equal(entries(base, &staging), 2);
    assert_int_equal(staging, 0);
    o.dir = NULL;
    assert_int_equal(export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err), ATTN_ERR_RANGE);
    attn_trace_free(&t);
    rm_rf(base);
    free(base);
    free(file);
    free(dir);
    free(idx);
}

/* "NAME": "HEX" lines of DIR's manifest, checked against the files' real hashes. */
static int manifest_checked(const char *dir) {
    char *mp = path_in(dir, ".attnviz-export.json"), *m = slurp(mp, NULL);
    assert_non_null(m);
    int n = 0;
    for (const char *at = m; (at = strstr(at, "{\"name\": \"")) != NULL; n++) {
        at += strlen("{\"name\": \"");
        const char *q = strchr(at, '"'), *h = strstr(q, "\"sha256\": \"") + strlen("\"sha256\": \"");
        char name[128], hex[ATTN_SHA256_HEX];
        snprintf(name, sizeof name, "%.*s", (int)(q - at), at);
        char *fp = path_in(dir, name);
        size_t len = 0;
        char *data = slurp(fp, &len);
        if (!data) fail_msg("the manifest lists %s, which is not there", name);
        attn_sha256_hex(data, len, hex);
        if (strncmp(h, hex, 64) != 0) fail_msg("the manifest's hash of %s is not its hash", name);
        free(data);
        free(fp);
    }
    free(m);
    free(mp);
    return n;
}

/* A file the export would replace must be one an export wrote, unchanged:
 * a site's own index.md or an edited table stops it, naming the file, and
 * nothing lands. */
static void only_our_files_replaced(void **state) {
    (void)state;
    attn_trace t;
    export_opts o;
    attn_err err;
    char *dir = temp_dir(), *idx = path_in(dir, "index.md"), *csv = path_in(dir, "03-scores-S-head1.csv");
    trace_of(&t, "a b c", 4, 2, 1, "none");
    small_opts(&o, dir, "csv");
    write_file(idx, "# My course site\n");
    assert_int_equal(export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err), ATTN_ERR_IO);
    assert_non_null(strstr(err.msg, "index.md is already there, and no attnviz export wrote it"));
    assert_non_null(strstr(err.msg, dir));
    int staging;
    assert_int_equal(entries(dir, &staging), 1); // nothing written: no table, no manifest
    char *kept = slurp(idx, NULL);
    assert_string_equal(kept, "# My course site\n");
    free(kept);
    // into a folder of its own it works, and the manifest lists every file with its hash
    unlink(idx);
    assert_int_equal(export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err), ATTN_OK);
    int files = entries(dir, NULL);
    assert_int_equal(manifest_checked(dir), files - 1);
    // again over its own files: fine
    assert_int_equal(export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err), ATTN_OK);
    // an edited table is not replaced
    write_file(csv, "S,my,notes\r\n");
    assert_int_equal(export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err), ATTN_ERR_IO);
    assert_non_null(strstr(err.msg, "03-scores-S-head1.csv was changed since an attnviz export wrote it"));
    kept = slurp(csv, NULL);
    assert_string_equal(kept, "S,my,notes\r\n");
    free(kept);
    assert_int_equal(entries(dir, &staging), files);
    assert_int_equal(staging, 0);
    // one step alone keeps the other steps' entries, so they stay replaceable
    unlink(csv);
    assert_int_equal(export_parse_steps(&o.steps, "6", &err), ATTN_OK);
    assert_int_equal(export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err), ATTN_OK);
    assert_int_equal(manifest_checked(dir), entries(dir, NULL) - 1);
    o.steps = EXPORT_ALL_STEPS;
    assert_int_equal(export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err), ATTN_OK);
    // a manifest that is not one is not trusted
    char *mp = path_in(dir, ".attnviz-export.json");
    write_file(mp, "{\"files\": [{\"name\": \"../x\", \"sha256\": \"00\"}]}");
    assert_int_equal(export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err), ATTN_ERR_IO);
    assert_non_null(strstr(err.msg, ".attnviz-export.json is not a list of exported files attnviz can read"));
    attn_trace_free(&t);
    rm_rf(dir);
    free(dir), free(idx), free(csv), free(mp);
}

/* Staging folders that killed exports left are removed by the next export
 * into the folder; one of a process that still runs is left alone. */
static void stale_staging_removed(void **state) {
    (void)state;
    attn_trace t;
    export_opts o;
    attn_err err;
    char *dir = temp_dir(), name[96];
    pid_t gone = fork(); // a process id that is free once it has been waited for
    if (gone == 0) _exit(0);
    waitpid(gone, NULL, 0);
    const char *old_style = ".attnviz-staging-Ab12Cd";
    char dead[64], alive[64];
    snprintf(dead, sizeof dead, ".attnviz-staging-%ld-Xy34Zw", (long)gone);
    snprintf(alive, sizeof alive, ".attnviz-staging-%ld-Qr56St", (long)getppid());
    const char *names[] = {old_style, dead, alive};
    for (int i = 0; i < 3; i++) {
        char *p = path_in(dir, names[i]);
        assert_int_equal(mkdir(p, 0755), 0);
        snprintf(name, sizeof name, "%s/02-qkv.png", p);
        write_file(name, "half a PNG");
        free(p);
    }
    trace_of(&t, "a b c", 4, 2, 1, "none");
    small_opts(&o, dir, "csv");
    assert_int_equal(export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err), ATTN_OK);
    int staging;
    entries(dir, &staging);
    assert_int_equal(staging, 1);
    char *p = path_in(dir, alive);
    struct stat sb;
    assert_int_equal(stat(p, &sb), 0); // another export may still be writing there
    attn_trace_free(&t);
    rm_rf(dir);
    free(dir), free(p);
}

/* ---- real file systems: a full and a read-only tmpfs in a private mount
 * namespace (root ignores permission bits, not a full or read-only disk) ---- */

/* In a child: mounts a tmpfs with opts on dir and exports into it. Exit codes:
 * 0 the export failed cleanly, 1 it did not, 77 no mount namespace here. */
static int tmpfs_child(const char *dir, unsigned long flags, const char *opts) {
    if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) return 77;
    if (mount("tmpfs", dir, "tmpfs", 0, opts) != 0) return 77;
    char *old = path_in(dir, "notes.txt");
    write_file(old, "old contents");
    if (flags && mount(NULL, dir, NULL, MS_REMOUNT | flags, opts) != 0) return 77;
    attn_trace t;
    export_opts o;
    attn_err err;
    trace_of(&t, "这只动物没看见那只鸟，因为它飞得太快了。", 8, 4, 2, "none");
    small_opts(&o, dir, "png,svg,csv");
    o.pixel_scale = 2;
    attn_status st = export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err);
    int staging, n = entries(dir, &staging);
    char *now = slurp(old, NULL);
    bool ok = st == ATTN_ERR_IO && n == 1 && staging == 0 && now && strcmp(now, "old contents") == 0;
    if (!ok) fprintf(stderr, "tmpfs %s: status %d (%s), %d entries, %d staging\n", opts, st, err.msg, n, staging);
    else fprintf(stderr, "tmpfs %s: %s\n", opts, err.msg);
    return ok ? 0 : 1;
}

static void real_tmpfs(unsigned long flags, const char *opts) {
    char *dir = temp_dir();
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) _exit(tmpfs_child(dir, flags, opts));
    int status = 0;
    waitpid(pid, &status, 0);
    rm_rf(dir);
    free(dir);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) == 77) skip(); // not root, or no mount namespaces
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void full_disk(void **state) {
    (void)state;
    real_tmpfs(0, "size=96k");
}

static void read_only_folder(void **state) {
    (void)state;
    real_tmpfs(MS_RDONLY, "size=1m");
}


/* ---- --format html ---- */

/* view q of f's figure rebuilt from its markup: every slot's content swapped
 * for the fragments f->views names for q. */
static char *rebuild_view(const ex_html_fig *f, const cJSON *views, const cJSON *base, int q) {
    const cJSON *v = cJSON_GetArrayItem(views, q);
    int n = cJSON_GetArraySize(v), *want = malloc(sizeof(int) * (size_t)(f->n_slots + 1));
    for (int k = 0; k < f->n_slots; k++) want[k] = cJSON_GetArrayItem(base, k)->valueint;
    for (int i = 0; i + 1 < n; i += 2) want[cJSON_GetArrayItem(v, i)->valueint] = cJSON_GetArrayItem(v, i + 1)->valueint;
    attn_strbuf b;
    attn_sb_init(&b);
    const char *s = f->svg.data, *open = "<g data-s=\"\">";
    for (int k = 0; k < f->n_slots; k++) { // a fragment holds no </g>: no view changes a clip
        const char *at = strstr(s, open), *end = strstr(at, "</g>\n");
        attn_sb_append(&b, s, (size_t)(at - s));
        if (want[k] >= 0) attn_sb_puts(&b, f->frags.s[want[k]]);
        s = end + strlen("</g>\n");
    }
    attn_sb_puts(&b, s);
    free(want);
    return attn_sb_take(&b);
}

/* Every query's view, put together from the shared commands and its slots,
 * is byte for byte the SVG of the figure built for that query. */
static void html_views_rebuild_every_query(void **state) {
    (void)state;
    attn_trace t;
    export_opts o;
    trace_of(&t, "这只 猫 看见 了 它", 8, 4, 2, "causal");
    small_opts(&o, "/unused", "html");
    const attn_step steps[] = {ATTN_STEP_EMBED, ATTN_STEP_SCORES, ATTN_STEP_MASK, ATTN_STEP_SOFTMAX, ATTN_STEP_WEIGHTED,
                               ATTN_STEP_MULTIHEAD};
    for (size_t k = 0; k < sizeof steps / sizeof *steps; k++) {
        export_item it = {.trace = &t, .step = steps[k], .query = -1, .head = 1};
        ex_html_fig f = {.o = &o, .it = &it, .ui = &g_ui, .fonts = g_fonts, .n = t.n, .q0 = attn_trace_default_query(&t)};
        snprintf(f.ids, sizeof f.ids, "t-");
        assert_true(ex_html_views(&f));
        cJSON *views = cJSON_Parse(f.views.data), *base = cJSON_Parse(f.base_frags.data);
        assert_non_null(views);
        assert_int_equal(cJSON_GetArraySize(views), t.n);
        assert_int_equal(cJSON_GetArraySize(base), f.n_slots);
        for (int q = 0; q < t.n; q++) {
            export_item iq = it;
            iq.query = q;
            viz_list l = {0};
            ex_view v = {.hover.kind = VIZ_HIT_NONE};
            assert_true(ex_build_view(&l, &o, &iq, &g_ui, g_fonts, 1, &v));
            attn_strbuf want;
            attn_sb_init(&want);
            ex_svg w = {.b = &want, .ids = "t-", .hit = ex_html_hit, .fonts = g_fonts};
            for (int i = 0; i < l.count; i++) ex_svg_cmd(&w, &l, &l.cmds[i]);
            ex_svg_close(&w);
            char *got = rebuild_view(&f, views, base, q);
            if (strcmp(got, want.data) != 0) fail_msg("step %d, query %d: the page's view is not the figure", (int)steps[k], q);
            free(got);
            attn_sb_free(&want);
            viz_free(&l);
        }
        if (steps[k] == ATTN_STEP_SOFTMAX) {
            assert_true(f.n_slots > 0);                                   // a query changes the row, labels, lines
            assert_non_null(strstr(f.cells.data, "\"weights:1:0:0\":[")); // head 2's cells, as --explain names them
        }
        cJSON_Delete(views);
        cJSON_Delete(base);
        ex_html_fig_free(&f);
    }
    attn_trace_free(&t);
}

/* The data block of the first figure in page: base64, then zlib, then JSON. */
static cJSON *page_data(const char *page) {
    const char *at = strstr(page, "data-encoding=\"zlib+base64\">");
    assert_non_null(at);
    at = strchr(at, '>') + 1;
    const char *end = strstr(at, "</script>");
    unsigned char *bin = malloc((size_t)(end - at)), v[4];
    size_t n = 0;
    int k = 0;
    for (const char *p = at; p < end; p++) {
        const char *d = strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", *p);
        if (!d || !*p) continue;
        v[k++] = (unsigned char)(d - "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/");
        if (k == 4) {
            bin[n++] = (unsigned char)(v[0] << 2 | v[1] >> 4);
            bin[n++] = (unsigned char)(v[1] << 4 | v[2] >> 2);
            bin[n++] = (unsigned char)(v[2] << 6 | v[3]);
            k = 0;
        }
    }
    if (k >= 2) bin[n++] = (unsigned char)(v[0] << 2 | v[1] >> 4);
    if (k == 3) bin[n++] = (unsigned char)(v[1] << 4 | v[2] >> 2);
    uLongf len = 64u << 20;
    char *json = malloc(len + 1);
    assert_int_equal(uncompress((Bytef *)json, &len, bin, (uLong)n), Z_OK);
    json[len] = '\0';
    cJSON *d = cJSON_Parse(json);
    free(json);
    free(bin);
    return d;
}

/* A page is whole in itself: no address outside it, ids under its prefix, the
 * markup the issue names, the panel's lines in the page's language. */
static void html_pages(void **state) {
    (void)state;
    attn_trace t;
    export_opts o;
    attn_err err;
    char *dir = temp_dir();
    trace_of(&t, "a b c", 4, 2, 1, "none");
    small_opts(&o, dir, "html");
    o.steps = 1u << ATTN_STEP_SOFTMAX | 1u << ATTN_STEP_QKV;
    if (export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err) != ATTN_OK) fail_msg("%s", err.msg);
    assert_true(has_file(dir, "06-softmax.html") && has_file(dir, "02-qkv.html") && has_file(dir, "handout.html"));
    char *p = path_in(dir, "06-softmax.html"), *page = slurp(p, NULL);
    assert_non_null(page);
    assert_non_null(strstr(page, "<!DOCTYPE html>"));
    assert_non_null(strstr(page, "data-query=\"0\""));
    assert_non_null(strstr(page, "data-panel=\"explain\""));
    assert_non_null(strstr(page, "data-cell=\"weights:0:2:1\""));
    assert_non_null(strstr(page, "data-token=\"2\""));
    for (const char *s = page; (s = strstr(s, "http")) != NULL; s++) // nothing to fetch: only the SVG namespace
        assert_true(strncmp(s, "http://www.w3.org/2000/svg\"", 27) == 0);
    assert_null(strstr(page, "<link"));
    assert_null(strstr(page, " src="));
    assert_null(strstr(page, "url(http"));
    for (const char *s = page; (s = strstr(s, " id=\"")) != NULL; s++) assert_memory_equal(s + 5, "av-06-softmax-", 14);
    cJSON *d = page_data(page);
    assert_non_null(d);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(d, "c")), 9 + 0); // A's 3×3 cells
    const cJSON *lines = cJSON_GetObjectItem(d, "l");
    bool denominator = false;
    for (int i = 0; i < cJSON_GetArraySize(lines); i++)
        denominator = denominator || strstr(cJSON_GetArrayItem(lines, i)->valuestring, "denominator = ");
    assert_true(denominator);
    cJSON_Delete(d);
    free(page);
    free(p);
    char *dir2 = temp_dir(); // the same input, the same bytes
    o.dir = dir2;
    if (export_sentence(&o, &t, 0, -1, &g_ui, g_fonts, &err) != ATTN_OK) fail_msg("%s", err.msg);
    char *p1 = path_in(dir, "06-softmax.html"), *p2 = path_in(dir2, "06-softmax.html");
    size_t n1 = 0, n2 = 1;
    char *a1 = slurp(p1, &n1), *a2 = slurp(p2, &n2);
    assert_true(n1 == n2 && memcmp(a1, a2, n1) == 0);
    free(a1);
    free(a2);
    free(p1);
    free(p2);
    rm_rf(dir2);
    free(dir2);
    p = path_in(dir, "index.md");
    char *ix = slurp(p, NULL);
    assert_non_null(strstr(ix, "`06-softmax.html`"));
    assert_non_null(strstr(ix, "## handout.html"));
    assert_non_null(strstr(ix, "--format html --steps 6"));
    free(ix);
    free(p);
    rm_rf(dir);
    free(dir);
    attn_trace_free(&t);
}

/* A lesson's question: the figure as written has the answer hidden (no
 * weights cells, no values), the revealed figure waits in the data; the
 * handout holds every page, each figure under its own prefix. */
static void html_lesson_question(void **state) {
    (void)state;
    lesson *l = NULL;
    export_opts o;
    attn_err err;
    char *dir = temp_dir();
    if (lesson_parse(&l, TINY_LESSON, sizeof TINY_LESSON - 1, "tiny.lesson", &err) != ATTN_OK) fail_msg("%s", err.msg);
    small_opts(&o, dir, "html");
    if (export_lesson(&o, l, NULL, &g_ui, g_fonts, &err) != ATTN_OK) fail_msg("%s", err.msg);
    char *p = path_in(dir, "01-look.html"), *page = slurp(p, NULL);
    assert_non_null(page);
    char *data = strstr(page, "<script type=\"application/octet-stream\"");
    assert_non_null(data);
    *data = '\0'; // what the reader sees before answering
    assert_null(strstr(page, "data-cell=\"weights:"));
    assert_non_null(strstr(page, "Click your guess"));
    assert_non_null(strstr(page, "<em>saw</em>"));
    assert_non_null(strstr(page, "<code>bird</code>"));
    *data = '<';
    cJSON *d = page_data(page);
    const cJSON *g = cJSON_GetObjectItem(d, "g"), *r = cJSON_GetObjectItem(d, "r");
    assert_int_equal(cJSON_GetArraySize(g), 5);
    assert_non_null(strstr(cJSON_GetArrayItem(g, 4)->valuestring, "Right")); // bird
    assert_non_null(strstr(r->valuestring, "data-cell=\"weights:0:2:4\""));
    cJSON_Delete(d);
    free(page);
    free(p);
    p = path_in(dir, "handout.html");
    page = slurp(p, NULL);
    assert_non_null(strstr(page, "<h1>A tiny lesson</h1>"));
    assert_non_null(strstr(page, "id=\"av-01-look-"));
    assert_non_null(strstr(page, "id=\"av-03-x-"));
    free(page);
    free(p);
    rm_rf(dir);
    free(dir);
    lesson_free(l);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_formats),
        cmocka_unit_test(parse_steps_size_theme_view),
        cmocka_unit_test(command_prefix),
        cmocka_unit_test(svg_golden),
        cmocka_unit_test(decode_export),
        cmocka_unit_test(decode_export_tex_html),
        cmocka_unit_test(tiles_export_tex_html),
        cmocka_unit_test(rope_golden),
        cmocka_unit_test(rope_hint_base),
        cmocka_unit_test(config_words_every_setting),
        cmocka_unit_test(svg_text_cells_escaped),
        cmocka_unit_test(svg_primitives),
        cmocka_unit_test(csv_golden_quoting),
        cmocka_unit_test(tex_escaping),
        cmocka_unit_test(tex_projection_compiles),
        cmocka_unit_test(tex_words_in_the_language),
        cmocka_unit_test(tex_wide_matrix_in_labelled_blocks),
        cmocka_unit_test(tex_snippets),
        cmocka_unit_test(every_value_shows),
        cmocka_unit_test(png_golden),
        cmocka_unit_test(png_pixel_scale_2),
        cmocka_unit_test(deterministic),
        cmocka_unit_test(handout_and_index),
        cmocka_unit_test(lesson_export),
        cmocka_unit_test(lesson_compare_pages_export_both_views),
        cmocka_unit_test(highlight_variants_differ),
        cmocka_unit_test(markdown_escapes_html),
        cmocka_unit_test(markdown_text_escaping),
        cmocka_unit_test(csv_names_and_formulas),
        cmocka_unit_test(html_handout_budget),
        cmocka_unit_test(model_backward_hints),
        cmocka_unit_test(markdown_target_backtick),
        cmocka_unit_test(html_views_rebuild_every_query),
        cmocka_unit_test(html_pages),
        cmocka_unit_test(html_lesson_question),
        cmocka_unit_test(failure_leaves_nothing),
        cmocka_unit_test(missing_dir),
        cmocka_unit_test(bad_targets),
        cmocka_unit_test(only_our_files_replaced),
        cmocka_unit_test(stale_staging_removed),
        cmocka_unit_test(full_disk),
        cmocka_unit_test(read_only_folder),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
