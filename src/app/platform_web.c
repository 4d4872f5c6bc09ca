/* platform_web.c — the browser's side of platform.h (Emscripten): one
 * canvas, no threads, settings in the page's localStorage, files offered
 * as downloads. Built by emcc only (CMakeLists.txt); web/attnviz-page.js
 * is the page around it (Module.canvas, Module.attnvizStep from the link,
 * Module.attnvizShowCopy, attnvizFirstFrame, attnvizQuit). */
#include "platform.h"
#include "safetensors.h"

#include <emscripten.h>
#include <emscripten/html5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wasm_simd128.h>

#define MAX_JOBS 4 /* the training and the lab, with room to spare */

int plat_init(void) {
    return 0;
}

void plat_quit(void) {
}

int plat_exit_status(int status) {
    EM_ASM(if (Module['attnvizExit']) Module['attnvizExit']($0);, status);
    return status;
}

/* ---- the loop ---- */

static plat_frame_fn loop_frame;
static void *loop_ctx;

static void browser_frame(void *unused) {
    (void)unused;
    if (!loop_frame(loop_ctx)) {
        emscripten_cancel_main_loop();
        EM_ASM(if (Module.attnvizQuit) Module.attnvizQuit(););
    }
}

void plat_run(plat_frame_fn frame, void *ctx) {
    loop_frame = frame;
    loop_ctx = ctx;
    // 0: on the browser's animation frames; 1: never returns (the C stack,
    // with what ctx points to, is kept, not unwound)
    emscripten_set_main_loop_arg(browser_frame, NULL, 0, 1);
}

int plat_wait_event(SDL_Event *e, int timeout_ms) {
    (void)timeout_ms; // the next animation frame comes by itself
    return SDL_PollEvent(e);
}

/* ---- the frame ---- */

/* The canvas's copy of the frame: w×h pixels as ImageData wants them, bytes
 * R, G, B, A (the frame's memory order is B, G, R, x). Only the damaged
 * rectangles are converted, in wasm, four pixels an instruction; the page
 * reads them in place from the heap: no JavaScript touches a pixel (its
 * loop over every pixel of the frame took 10-40 ms at 2560×1600). */
static uint32_t *rgba;
static int rgba_w, rgba_h;
static size_t rgba_cap; /* bytes at rgba: kept when the frame shrinks and grows back (a resize) */

/* 0: the copy is w×h already; 1: resized (holding nothing yet); -1: no memory. */
static int rgba_size(int w, int h) {
    if (rgba && rgba_w == w && rgba_h == h) return 0;
    size_t need = (size_t)w * (size_t)h * 4;
    if (need > rgba_cap) {
        free(rgba);
        rgba = malloc(need);
        rgba_cap = rgba ? need : 0;
    }
    rgba_w = rgba ? w : 0;
    rgba_h = rgba ? h : 0;
    return rgba ? 1 : -1;
}

static void rgba_convert(const SDL_Surface *frame, const SDL_Rect *r) {
    const v128_t opaque = wasm_i32x4_splat((int32_t)0xff000000u);
    for (int y = r->y; y < r->y + r->h; y++) {
        const uint32_t *src = (const uint32_t *)((const uint8_t *)frame->pixels + (size_t)y * frame->pitch) + r->x;
        uint32_t *dst = rgba + (size_t)y * (size_t)rgba_w + r->x;
        int x = 0;
        // four pixels at a time: bytes B, G, R, x become R, G, B, 255 (clang
        // 14 leaves the plain loop below scalar: measured 4-8 ns a pixel)
        for (; x + 4 <= r->w; x += 4) {
            v128_t v = wasm_v128_load(src + x);
            v = wasm_i8x16_shuffle(v, v, 2, 1, 0, 3, 6, 5, 4, 7, 10, 9, 8, 11, 14, 13, 12, 15);
            wasm_v128_store(dst + x, wasm_v128_or(v, opaque));
        }
        for (; x < r->w; x++) {
            uint32_t v = src[x]; // 0xXXRRGGBB: the canvas wants bytes R, G, B, A, 0xAABBGGRR
            dst[x] = 0xff000000u | (v & 0xffu) << 16 | (v & 0xff00u) | (v >> 16 & 0xffu);
        }
    }
}

/* Puts the rectangles r[0..n) (x, y, w, h ints, inside the w×h frame) of
 * the RGBA copy at pixels on the canvas, one putImageData each. A canvas
 * of another size than the frame is set to it (the caller then sends the
 * whole frame). Returns -1 without a canvas, 1 when it was resized. */
// JavaScript, not C: clang-format would split its === and !==
// clang-format off
EM_JS(int, web_canvas_size, (int w, int h), {
    var canvas = Module['canvas'];
    if (!canvas) return -1;
    var ctx = Module['attnvizCtx'];
    if (!ctx || Module['attnvizCtxCanvas'] !== canvas) {
        ctx = Module['attnvizCtx'] = canvas.getContext('2d');
        Module['attnvizCtxCanvas'] = canvas;
        if (!ctx) return -1;
    }
    if (canvas.width !== w || canvas.height !== h) {
        canvas.width = w; // clears it: drawn whole
        canvas.height = h;
        return 1;
    }
    return 0;
});

EM_JS(void, web_put_rects, (const void *pixels, int w, int h, const int *rects, int n), {
    var ctx = Module['attnvizCtx'];
    // a view on the heap, made anew each time: a grown heap is another buffer
    var img = new ImageData(new Uint8ClampedArray(HEAPU8.buffer, pixels, w * h * 4), w, h);
    for (var i = 0; i < n; i++) {
        var rx = HEAP32[(rects >> 2) + 4 * i], ry = HEAP32[(rects >> 2) + 4 * i + 1];
        var rw = HEAP32[(rects >> 2) + 4 * i + 2], rh = HEAP32[(rects >> 2) + 4 * i + 3];
        ctx.putImageData(img, 0, 0, rx, ry, rw, rh);
        Module['attnvizPutPixels'] = (Module['attnvizPutPixels'] || 0) + rw * rh; // for the tests
    }
    if (!Module['attnvizShown']) { // the page hides its loading note
        Module['attnvizShown'] = true;
        if (Module['attnvizFirstFrame']) Module['attnvizFirstFrame']();
    }
});
// clang-format on

int plat_present(SDL_Window *win, SDL_Surface *frame, bool frame_in_window, const SDL_Rect *r, int n, bool whole,
                 const void **shown) {
    (void)win;
    (void)frame_in_window; // the window surface is never the frame here (its format is ABGR)
    if (!frame) return -1;
    whole = whole || *shown != frame;
    if (!whole && n <= 0) return -1;
    int sized = web_canvas_size(frame->w, frame->h), fresh = sized < 0 ? -1 : rgba_size(frame->w, frame->h);
    if (sized < 0 || fresh < 0) return -1;
    SDL_Rect all = {0, 0, frame->w, frame->h}, *clipped = malloc(sizeof *clipped * (size_t)(n > 0 ? n : 1));
    if (!clipped) return -1;
    int k = 0;
    if (whole || sized || fresh) {
        clipped[k++] = all;
    } else {
        for (int i = 0; i < n; i++)
            if (SDL_IntersectRect(&r[i], &all, &clipped[k])) k++;
    }
    for (int i = 0; i < k; i++) rgba_convert(frame, &clipped[i]);
    web_put_rects(rgba, frame->w, frame->h, (const int *)clipped, k);
    free(clipped);
    *shown = frame;
    return 0;
}

void plat_window_icon(SDL_Window *win) {
    (void)win; // the page's favicon
}

bool plat_idle_warms(void) {
    return true;
}

bool plat_keeps_keys(void) {
    return true;
}

/* ---- files and text ---- */

bool plat_program_dir(char *out, size_t cap) {
    if (cap < 1) return false;
    out[0] = '\0'; // the data bundle is mounted at the root: /assets, /lessons
    return true;
}

#define SETTINGS_KEY "attnviz.settings"

// JavaScript inside, not C: clang-format would split its ===
// clang-format off
void plat_settings_fetch(const char *path) {
    EM_ASM({
        var text = null;
        try {
            text = window.localStorage.getItem(UTF8ToString($1));
        } catch (e) {} // storage off: defaults
        if (text === null) return;
        var path = UTF8ToString($0);
        try {
            FS.mkdirTree(path.substring(0, path.lastIndexOf('/')));
            FS.writeFile(path, text);
        } catch (e) {}
    },
           path, SETTINGS_KEY);
}
// clang-format on

void plat_settings_keep(const char *path) {
    EM_ASM({
        try {
            window.localStorage.setItem(UTF8ToString($1), FS.readFile(UTF8ToString($0), {encoding : 'utf8'}));
        } catch (e) {} // private browsing or storage full: the settings last as long as the page
    },
           path, SETTINGS_KEY);
}

void plat_file_written(const char *path) {
    EM_ASM({
        var path = UTF8ToString($0);
        var data;
        try {
            data = FS.readFile(path);
        } catch (e) { return; }
        var type = path.endsWith('.png') ? 'image/png' : path.endsWith('.json') ? 'application/json'
                                                                                : 'application/octet-stream';
        var url = URL.createObjectURL(new Blob([data], {type: type }));
        var a = document.createElement('a');
        a.href = url;
        a.download = path.substring(path.lastIndexOf('/') + 1);
        document.body.appendChild(a);
        a.click();
        a.remove();
        setTimeout(
            function() { URL.revokeObjectURL(url); }, 10000);
    },
           path);
}

void plat_folder_written(const char *dir) {
    EM_ASM(if (Module['attnvizDownloadFolder']) Module['attnvizDownloadFolder'](UTF8ToString($0));, dir);
}

char *plat_view_link(const char *query) {
    return (char *)(intptr_t)EM_ASM_INT(return allocateUTF8(location.origin + location.pathname + '?' + UTF8ToString($0));
                                        , query);
}

int plat_clipboard_set(const char *text) {
    return EM_ASM_INT({
        var text = UTF8ToString($0);
        Module['attnvizClipboard'] = text; // Ctrl+V in the page gets it back
        if (navigator.clipboard && window.isSecureContext) {
            navigator.clipboard.writeText(text).catch(function(e) {
                if (Module['attnvizShowCopy']) Module['attnvizShowCopy'](text);
            });
        } else if (Module['attnvizShowCopy']) {
            Module['attnvizShowCopy'](text); // no clipboard here (plain http): the page shows the text
        }
        return 0;
    },
                      text);
}

char *plat_clipboard_get(void) {
    char *t = (char *)(intptr_t)EM_ASM_INT({
        var text = Module['attnvizClipboard'];
        return text ? allocateUTF8(text) : 0;
    });
    if (t && !*t) {
        free(t);
        return NULL;
    }
    return t;
}

/* The page's paste event (attnviz-page.js: the browser's own Ctrl+V, which
 * SDL would cancel) put the text where plat_clipboard_get finds it; the app
 * gets the Ctrl+V it handles (pasting into the sentence being edited). */
EMSCRIPTEN_KEEPALIVE void attnviz_paste(void) {
    SDL_Event e = {0};
    e.type = SDL_KEYDOWN;
    e.key.state = SDL_PRESSED;
    e.key.keysym.sym = SDLK_v;
    e.key.keysym.scancode = SDL_SCANCODE_V;
    e.key.keysym.mod = KMOD_LCTRL;
    SDL_PushEvent(&e);
}

/* What an input method composes (attnviz-page.js forwards the hidden text
 * field's compositionupdate): shown inline in the sentence being edited,
 * as SDL's desktop backends report it. "" ends the composition. */
EMSCRIPTEN_KEEPALIVE void attnviz_compose(const char *utf8) {
    SDL_Event e = {0};
    e.type = SDL_TEXTEDITING_EXT;
    e.editExt.text = SDL_strdup(utf8); // freed by whoever takes the event (app_sdl.c)
    e.editExt.length = (Sint32)SDL_strlen(utf8);
    if (e.editExt.text && SDL_PushEvent(&e) != 1) SDL_free(e.editExt.text);
}

/* What an input method commits (compositionend): typed, one code point per
 * event as a keyboard sends them. */
EMSCRIPTEN_KEEPALIVE void attnviz_commit(const char *utf8) {
    attnviz_compose("");
    for (size_t i = 0, n = strlen(utf8); i < n;) {
        size_t k = 1;
        while (i + k < n && ((unsigned char)utf8[i + k] & 0xC0) == 0x80) k++; // the code point's continuation bytes
        SDL_Event e = {0};
        e.type = SDL_TEXTINPUT;
        memcpy(e.text.text, utf8 + i, k < sizeof e.text.text ? k : sizeof e.text.text - 1);
        SDL_PushEvent(&e);
        i += k;
    }
}

int plat_link_step(void) {
    return EM_ASM_INT(return Module['attnvizStep'] | 0;);
}

static void (*leave_fn)(void *ctx);
static void *leave_ctx;

static const char *on_beforeunload(int type, const void *reserved, void *data) {
    (void)type, (void)reserved, (void)data;
    if (leave_fn) leave_fn(leave_ctx);
    return NULL; // no "leave this page?" question
}

static EM_BOOL on_visibility(int type, const EmscriptenVisibilityChangeEvent *e, void *data) {
    (void)type, (void)data;
    if (e->hidden && leave_fn) leave_fn(leave_ctx); // a tab put away may never come back
    return EM_FALSE;
}

void plat_on_leave(void (*leave)(void *ctx), void *ctx) {
    leave_fn = leave;
    leave_ctx = ctx;
    emscripten_set_beforeunload_callback(NULL, on_beforeunload);
    emscripten_set_visibilitychange_callback(NULL, EM_FALSE, on_visibility);
}

static plat_inspector inspector;

void plat_expose(const plat_inspector *in) {
    inspector = *in;
}

/* For the page (Module._attnviz_holds via ccall): 1 when the expectation
 * holds, 0 when not, -1 before the app runs. */
EMSCRIPTEN_KEEPALIVE int attnviz_holds(const char *name, const char *value) {
    return inspector.holds ? inspector.holds(inspector.ctx, name, value) : -1;
}

/* The trace as --dump-json writes it (malloc'd: the page frees it), or NULL. */
EMSCRIPTEN_KEEPALIVE char *attnviz_trace(void) {
    return inspector.trace_json ? inspector.trace_json(inspector.ctx) : NULL;
}

/* A model folder picked in the page (attnviz-page.js, attnvizOpenModel):
 * the page wrote config.json and the tokenizer's files under dir in the
 * file system, and read model.safetensors in slices straight into bytes
 * (malloc'd with Module._malloc; owned from here on): the reader takes them
 * as that file's contents (st_file_provide), so the weights are held once,
 * in the wasm heap, never also in the file system. Then the window opens dir
 * as --hf DIR [--sentence S] does (sentence "" or NULL: the default; the
 * page passes its link's sentence=). 1 when it did; 0 when not (the status
 * line says why), -1 before the app runs. */
EMSCRIPTEN_KEEPALIVE int attnviz_open_hf(const char *dir, unsigned char *bytes, size_t size, const char *sentence) {
    char path[1024];
    snprintf(path, sizeof path, "%s/model.safetensors", dir); // hf_model_open's own name for it
    st_file_provide(path, bytes, size);
    if (!inspector.open_hf) {
        st_file_provide(NULL, NULL, 0);
        return -1;
    }
    int ok = inspector.open_hf(inspector.ctx, dir, sentence && *sentence ? sentence : NULL) ? 1 : 0;
    st_file_provide(NULL, NULL, 0); // not taken (the folder was refused before the weights): freed
    return ok;
}

/* ---- background work: slices ---- */

struct plat_job {
    plat_job_def def;
    bool done;
};

static plat_job *jobs[MAX_JOBS];

plat_job *plat_job_start(const plat_job_def *def) {
    if (!def->slice) {
        SDL_SetError("%s cannot run in slices", def->name);
        return NULL;
    }
    for (int i = 0; i < MAX_JOBS; i++) {
        if (jobs[i]) continue;
        if (!(jobs[i] = calloc(1, sizeof *jobs[i]))) {
            SDL_OutOfMemory();
            return NULL;
        }
        jobs[i]->def = *def;
        return jobs[i];
    }
    SDL_SetError("Too many background jobs at once.");
    return NULL;
}

void plat_job_wait(plat_job *j) {
    if (!j) return;
    for (int i = 0; i < MAX_JOBS; i++)
        if (jobs[i] == j) jobs[i] = NULL;
    free(j);
}

bool plat_jobs_advance(double budget_ms) {
    double end = emscripten_get_now() + budget_ms;
    bool more = true;
    while (more && emscripten_get_now() < end) { // each job a slice in turn, while any has work
        more = false;
        for (int i = 0; i < MAX_JOBS; i++) {
            plat_job *j = jobs[i];
            if (!j || j->done) continue;
            plat_slice s = j->def.slice(j->def.ctx);
            if (s == PLAT_SLICE_DONE) j->done = true;
            more |= s == PLAT_SLICE_MORE;
        }
    }
    return more;
}
