/* app_bench.c — timing the app loop on a fixed classroom session. */
#include "app_bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "app_sdl.h"
#include "clock.h"
#include "export.h"

#define MAX_SAMPLES 65536

typedef struct {
    double ms[MAX_SAMPLES]; /* one duration per frame or edit */
    int n;
    /* where frame time went, [0] frames that redrew part of the window, [1] all of it */
    double phase[2][APP_T_COUNT + 1]; /* summed ms per phase; the last: the event and the app's state */
    double share[2];                  /* summed share of the window's pixels redrawn */
    int frames[2];
} samples;

static void add(samples *s, double ms) {
    if (s->n < MAX_SAMPLES) s->ms[s->n++] = ms;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The q-quantile (0..1) of s, sorting it in place. */
static double quantile(samples *s, double q) {
    if (s->n == 0) return 0;
    qsort(s->ms, (size_t)s->n, sizeof(double), cmp_double);
    int i = (int)(q * (s->n - 1) + 0.5);
    return s->ms[i];
}

/* One input event, then the frame it causes: the time a person waits. */
/* Adds the phases of the frame just timed (total ms) to s. */
static void add_phases(samples *s, const app_ui *u, double total) {
    const app_frame_stats *fs = u->stats;
    int whole = u->frame && fs->drawn_px >= (long)u->frame->w * u->frame->h;
    double rest = total;
    for (int p = 0; p < APP_T_COUNT; p++) {
        s->phase[whole][p] += fs->phase_ms[p];
        rest -= fs->phase_ms[p];
    }
    s->phase[whole][APP_T_COUNT] += rest;
    s->share[whole] += u->frame ? (double)fs->drawn_px / ((double)u->frame->w * u->frame->h) : 0;
    s->frames[whole]++;
}

/* Every frame that redrew something, by how much: [0] part of the window, [1] all of it. */
static samples g_by_redraw[2];

static void frame(app_ui *u, SDL_Event *e, samples *frames, samples *edits) {
    memset(u->stats, 0, sizeof *u->stats);
    double t0 = attn_clock_s();
    if (e) app_ui_event(u, e);
    double t1 = attn_clock_s();
    app_ui_frame(u);
    double t2 = attn_clock_s();
    add(frames, (t2 - t0) * 1000.0);
    add_phases(frames, u, (t2 - t0) * 1000.0);
    if (u->frame && u->stats->drawn_px > 0)
        add(&g_by_redraw[u->stats->drawn_px >= (long)u->frame->w * u->frame->h], (t2 - t0) * 1000.0);
    if (edits && e && e->type == SDL_TEXTINPUT) add(edits, (t1 - t0) * 1000.0);
}

static void key(app_ui *u, SDL_Keycode sym, Uint16 mod, samples *f) {
    SDL_Event e = {0};
    e.type = SDL_KEYDOWN;
    e.key.keysym.sym = sym;
    e.key.keysym.mod = mod;
    frame(u, &e, f, NULL);
}

static void text(app_ui *u, const char *s, samples *f, samples *edits) {
    for (; *s; s++) { // ASCII only here: one event per character, as typed
        SDL_Event e = {0};
        e.type = SDL_TEXTINPUT;
        e.text.text[0] = *s;
        frame(u, &e, f, edits);
    }
}

static void mouse(app_ui *u, Uint32 type, float x, float y, samples *f) {
    SDL_Event e = {0};
    e.type = type;
    if (type == SDL_MOUSEMOTION) {
        e.motion.x = (int)x;
        e.motion.y = (int)y;
    } else {
        e.button.button = SDL_BUTTON_LEFT;
        e.button.x = (int)x;
        e.button.y = (int)y;
    }
    frame(u, &e, f, NULL);
}

/* Hovers every weights cell and clicks every token chip on screen. */
static void hover_and_click(app_ui *u, samples *f) {
    app_ui_layout(u);
    int n = u->list.count, k = 0;
    float(*pts)[3] = malloc(sizeof *pts * (size_t)(n > 0 ? n : 1));
    for (int i = 0; pts && i < n; i++) {
        const viz_cmd *c = &u->list.cmds[i];
        bool cell = c->kind == VIZ_HIT && c->hit.kind == VIZ_HIT_CELL && c->hit.stage == ATTN_ST_WEIGHTS;
        bool token = c->kind == VIZ_HIT && c->hit.kind == VIZ_HIT_TOKEN;
        if (cell || token) {
            pts[k][0] = c->x + c->w / 2;
            pts[k][1] = c->y + c->h / 2;
            pts[k++][2] = token;
        }
    }
    for (int i = 0; i < k; i++)
        mouse(u, pts[i][2] ? SDL_MOUSEBUTTONDOWN : SDL_MOUSEMOTION, pts[i][0], pts[i][1], f);
    free(pts);
}

/* The classroom session: steps, hovers, clicks, controls, compare, and a
 * resize to the smallest window and back to w×h. */
static void session(app_ui *u, samples *f, int w, int h) {
    key(u, SDLK_HOME, 0, f);
    for (int s = 0; s < 8; s++) key(u, SDLK_PAGEDOWN, 0, f);
    key(u, SDLK_6, 0, f);
    hover_and_click(u, f);
    static const SDL_Keycode toggles[] = {SDLK_h, SDLK_s, SDLK_s, SDLK_m, SDLK_m, SDLK_m, SDLK_m, SDLK_c, SDLK_c,
                                          SDLK_c, SDLK_v, SDLK_v};
    for (size_t i = 0; i < sizeof toggles / sizeof *toggles; i++) key(u, toggles[i], 0, f);
    key(u, SDLK_h, KMOD_LSHIFT, f);
    SDL_SetWindowSize(u->win, 1024, 640);
    SDL_Event e = {0};
    e.type = SDL_WINDOWEVENT;
    e.window.event = SDL_WINDOWEVENT_SIZE_CHANGED;
    frame(u, &e, f, NULL);
    SDL_SetWindowSize(u->win, w, h);
    frame(u, &e, f, NULL);
}

/* Types the 64-token sentence into the sentence bar, one character a frame. */
static void type_long_sentence(app_ui *u, samples *f, samples *edits) {
    key(u, SDLK_e, 0, f);
    u->skip_text = false; // no text event follows a synthesised key
    size_t len = strlen(u->st.src.sentence);
    for (size_t i = 0; i < len; i++) key(u, SDLK_BACKSPACE, 0, f); // more than enough
    char word[16];
    for (int i = 0; i < 64; i++) {
        snprintf(word, sizeof word, i ? " w%d" : "w%d", i);
        text(u, word, f, edits);
    }
    key(u, SDLK_RETURN, 0, f);
}

/* The training view (F3) training referent-zh with --train's defaults, three
 * times over, while the window draws as its loop does (a look every 15 ms;
 * the heatmaps follow the published model at most every APP_TRAIN_REFRESH_MS).
 * Each frame that drew something is timed from the look to the pixels. */
typedef struct {
    double rate, eval_share, train_s; /* heatmap updates a second, evaluation's time against the steps' (%), seconds per training */
} training_figures;

static void training_phase(app_ui *u, samples *f, training_figures *out) {
    app_train *t = &u->train;
    app_train_key(t, SDLK_F3, 0);
    app_ui_frame(u);
    double busy = 0;
    for (int run = 0; run < 3; run++) {
        if (run) app_train_key(t, SDLK_r, 0);
        app_train_key(t, SDLK_SPACE, 0);
        double start = attn_clock_s();
        while (app_train_busy(t)) {
            double t0 = attn_clock_s();
            long drawn = u->frames;
            app_train_poll(t);
            app_ui_frame(u);
            if (u->frames != drawn) add(f, (attn_clock_s() - t0) * 1000.0);
            SDL_Delay(15);
        }
        busy += attn_clock_s() - start;
    }
    char *rate = app_train_value(t, "train_update_rate"), *share = app_train_value(t, "train_eval_share");
    out->rate = rate ? atof(rate) : 0;
    out->eval_share = share ? atof(share) : 0;
    out->train_s = busy / 3;
    free(rate);
    free(share);
    app_train_key(t, SDLK_ESCAPE, 0);
    app_ui_frame(u);
}

/* Removes the files of a flat folder, then the folder (the export's output). */
static void remove_tree(const char *dir) {
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "attnviz: could not remove %s\n", dir);
}

/* Exports every step of the seed sentence as PNG at pixel scale 2; its time in ms. */
static double time_export(const viz_strings *ui, viz_fonts *fonts) {
    attn_config cfg;
    attn_config_default(&cfg);
    attn_trace t = {0};
    const char *s = "这只动物没看见那只鸟，因为它飞得太快了。";
    char dir[] = "/tmp/attnviz-bench-XXXXXX";
    if (!mkdtemp(dir)) return -1;
    double t0 = attn_clock_s();
    attn_err err;
    export_opts o;
    export_opts_default(&o);
    o.dir = dir;
    o.formats = EXPORT_PNG;
    o.pixel_scale = 2;
    attn_status rc = attn_trace_run(&t, s, strlen(s), &cfg, NULL, NULL, &err);
    if (rc == ATTN_OK) rc = export_sentence(&o, &t, 0, -1, ui, fonts, &err);
    double ms = (attn_clock_s() - t0) * 1000.0;
    if (rc != ATTN_OK) fprintf(stderr, "attnviz: bench export: %s\n", err.msg);
    attn_trace_free(&t);
    remove_tree(dir);
    return rc == ATTN_OK ? ms : -1;
}

static void report(const char *what, samples *s) {
    double p50 = quantile(s, 0.5), p99 = quantile(s, 0.99), mx = s->n ? s->ms[s->n - 1] : 0;
    printf("%-44s %5d frames  p50 %6.2f ms  p99 %6.2f ms  max %6.2f ms\n", what, s->n, p50, p99, mx);
}

/* Mean ms per phase, for frames that redrew part of the window and all of it. */
static void report_phases(const char *what, const samples *s) {
    static const char *const kind[2] = {"part", "all"};
    for (int w = 0; w < 2; w++) {
        int n = s->frames[w] ? s->frames[w] : 1;
        const double *ph = s->phase[w];
        printf("  %s, redrawing %-4s (%4d frames, %5.1f%% of the pixels): event %.3f  layout %.3f  damage %.3f"
               "  drawing %.3f  showing %.3f ms\n",
               what, kind[w], s->frames[w], 100.0 * s->share[w] / n, ph[APP_T_COUNT] / n,
               ph[APP_T_LAYOUT] / n, ph[APP_T_DAMAGE] / n, ph[APP_T_DRAW] / n, ph[APP_T_SHOW] / n);
    }
}

int app_bench_run(const viz_strings *ui, viz_fonts *fonts, double start_s, const app_bench_opts *o) {
    static samples seed, big, typing, edits, training; // large: not on the stack
    training_figures tf;
    int w = o && o->width > 0 ? o->width : 1280, h = o && o->height > 0 ? o->height : 800;
    app_state st;
    app_ui u;
    attn_config cfg;
    attn_config_default(&cfg);
    attn_err err;
    char msg[512];
    if (app_init(&st, NULL, &cfg, ui, &err) != ATTN_OK) {
        fprintf(stderr, "attnviz: %s\n", err.msg);
        return 1;
    }
    st.look.theme = o ? o->theme : VIZ_THEME_LIGHT;
    if (app_ui_open(&u, &st, fonts, w, h, 1.0f, msg, sizeof msg) != 0) {
        fprintf(stderr, "attnviz: %s\n", msg);
        app_free(&st);
        return 1;
    }
    app_frame_stats stats = {0}; // the window reports each frame's phases here
    u.stats = &stats;
    app_ui_frame(&u);
    double first_ms = (attn_clock_s() - start_s) * 1000.0;
    session(&u, &seed, w, h);
    training_phase(&u, &training, &tf);
    type_long_sentence(&u, &typing, &edits);
    for (int i = 0; i < 3; i++) key(&u, SDLK_d, 0, &typing); // d_model 8 -> 64
    for (int i = 0; i < 6; i++) key(&u, SDLK_h, 0, &typing); // 2 -> 8 heads
    const char *accel = SDL_GetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION);
    printf("attnviz %s bench: %dx%d, theme %s, video driver %s, software drawing (attnviz's rasteriser), "
           "framebuffer acceleration %s\n",
           ATTN_VERSION, u.st.look.width, u.st.look.height, viz_theme_name(u.st.look.theme), SDL_GetCurrentVideoDriver(),
           accel && *accel == '0' ? "off" : "on");
    printf("64-token run: %d tokens, d_model %d, d_k %d, %d heads\n", u.st.src.trace.n, u.st.src.cfg.d_model, u.st.src.cfg.d_k,
           u.st.src.cfg.heads);
    session(&u, &big, w, h);
    app_ui_close(&u);
    double export_ms = time_export(ui, fonts);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double rss_mb = ru.ru_maxrss / 1024.0;
    report("seed sentence (20 tokens, d_model 8, 2 heads)", &seed);
    report("64 tokens, d_model 64, 8 heads", &big);
    report("typing the 64-token sentence", &typing);
    report("training view, referent-zh (3 trainings)", &training);
    printf("  while training: %.1f heatmap updates a second, evaluation costing %.1f%% of the steps' time, %.2f s per "
           "training of 300 steps\n",
           tf.rate, tf.eval_share, tf.train_s);
    report("every frame redrawing part of the window", &g_by_redraw[0]);
    report("every frame redrawing all of it", &g_by_redraw[1]);
    printf("where the time goes (mean per frame):\n");
    report_phases("seed sentence", &seed);
    report_phases("64 tokens    ", &big);
    double e50 = quantile(&edits, 0.5), e99 = quantile(&edits, 0.99);
    printf("recompute per edit: p50 %.3f ms, p99 %.3f ms (%d edits)\n", e50, e99, edits.n);
    printf("first frame %.1f ms after start; export of 8 steps as PNG at pixel scale 2: %.1f ms; peak RSS %.1f MB\n",
           first_ms, export_ms, rss_mb);
    printf("bench: frame_p50_ms=%.2f frame_p99_ms=%.2f frame_max_ms=%.2f frame_p99_64tok_ms=%.2f "
           "frame_max_64tok_ms=%.2f frame_p99_partial_ms=%.2f frame_p99_full_ms=%.2f recompute_p99_ms=%.3f "
           "first_frame_ms=%.1f export_all_ms=%.1f peak_rss_mb=%.1f frame_p99_training_ms=%.2f\n",
           quantile(&seed, 0.5), quantile(&seed, 0.99), seed.ms[seed.n - 1], quantile(&big, 0.99), big.ms[big.n - 1],
           quantile(&g_by_redraw[0], 0.99), quantile(&g_by_redraw[1], 0.99), e99, first_ms, export_ms, rss_mb,
           quantile(&training, 0.99));
    return export_ms < 0 ? 1 : 0;
}
