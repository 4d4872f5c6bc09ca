/* app_script.c — parses attnviz input scripts (format and ownership in app_script.h). */
#include "app_script.h"
#include "model_run.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "attn.h"
#include "numparse.h"
#include "utf8.h"

#define MAX_WORDS 8 /* more than any command takes; the rest are only counted */
#define CLIP 40     /* bytes of the learner's text quoted back in a message */
#define CLIP_BUF (CLIP + 4)

typedef struct {
    const char *file; /* for "FILE:LINE: " */
    int line;
    const char *cmd; /* command word being parsed, for messages */
    attn_err *err;
} ctx;

typedef attn_status (*handler)(const ctx *c, app_script_cmd *cmd, char *args);

/* How a form is written, without the command word: for messages. */
typedef struct {
    const char *args, *example;
} form;

static const form F_TOKEN = {"token N", "token 2"};
static const form F_STEP = {"step N", "step 3"};
static const form F_CELL = {"cell STAGE HEAD ROW COL", "cell weights 0 2 3"};
static const form F_CONTROL = {"control NAME [N]", "control train_layers 1"};

/* ---- messages ---------------------------------------------------------- */

/* vsnprintf may cut a long message inside a code point; drop that partial tail
 * so the message stays valid UTF-8. */
static void drop_partial_tail(char *s) {
    size_t n = strlen(s), i = n;
    while (i > 0 && n - i < 3 && ((unsigned char)s[i - 1] & 0xC0) == 0x80) i--;
    if (i == 0 || (unsigned char)s[i - 1] < 0x80) return;
    uint32_t cp;
    if (utf8_decode(s + i - 1, n - i + 1, &cp) == 0) s[i - 1] = '\0';
}

/* Reports "FILE:LINE: message" as ATTN_ERR_PARSE. */
static attn_status fail(const ctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static attn_status fail(const ctx *c, const char *fmt, ...) {
    char msg[sizeof((attn_err *)0)->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    drop_partial_tail(msg);
    attn_fail(c->err, ATTN_ERR_PARSE, "%s:%d: %s", c->file, c->line, msg);
    if (c->err) drop_partial_tail(c->err->msg);
    return ATTN_ERR_PARSE;
}

static attn_status nomem(const ctx *c) {
    return attn_fail(c->err, ATTN_ERR_NOMEM, "%s:%d: out of memory while reading the script.",
                     c->file, c->line);
}

/* Copies at most CLIP bytes of s[0..n) (valid UTF-8) into out without
 * splitting a code point, adding "..." when cut, so a 60 KiB word cannot
 * crowd out the rest of a message. */
static const char *clip(char out[CLIP_BUF], const char *s, size_t n) {
    size_t k = n;
    if (k > CLIP) {
        k = CLIP;
        while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80) k--;
    }
    memcpy(out, s, k);
    strcpy(out + k, k < n ? "..." : "");
    return out;
}

/* Checks the argument count n against [lo, hi]; w holds the first words. */
static attn_status arity(const ctx *c, const form *f, char **w, int n, int lo, int hi) {
    char q[CLIP_BUF];
    if (n < lo)
        return fail(c, "missing arguments for %s: write %s %s, e.g. %s %s.", c->cmd, c->cmd, f->args,
                    c->cmd, f->example);
    if (n <= hi) return ATTN_OK;
    clip(q, w[hi], strlen(w[hi]));
    if (!f->args[0]) return fail(c, "extra argument \"%s\": %s takes no arguments.", q, c->cmd);
    return fail(c, "extra argument \"%s\" for %s: write %s %s, e.g. %s %s.", q, c->cmd, c->cmd,
                f->args, c->cmd, f->example);
}

/* ---- words, numbers, text ---------------------------------------------- */

static int is_blank(char ch) { return ch == ' ' || ch == '\t'; }

/* Splits s in place at runs of spaces/tabs; keeps the first MAX_WORDS words in
 * w and returns how many there are in all. */
static int split_words(char *s, char *w[MAX_WORDS]) {
    int n = 0;
    for (;;) {
        while (is_blank(*s)) s++;
        if (!*s) return n;
        if (n < MAX_WORDS) w[n] = s;
        n++;
        while (*s && !is_blank(*s)) s++;
        if (*s) *s++ = '\0';
    }
}

static int looks_numeric(const char *w) {
    if (*w == '-' || *w == '+') w++;
    return *w >= '0' && *w <= '9';
}

/* Reads the whole number w into *out within [lo, hi]; what names it in
 * messages ("X" reads as "click X"). */
static attn_status num(const ctx *c, int *out, const char *w, const char *what, long long lo,
                       long long hi) {
    char q[CLIP_BUF];
    clip(q, w, strlen(w));
    long long v = 0;
    attn_int_result got = *w == '+' ? ATTN_INT_NOT_WHOLE : attn_parse_int(w, strlen(w), lo, hi, &v);
    if (got == ATTN_INT_NOT_WHOLE) return fail(c, "%s %s must be a whole number, not \"%s\".", c->cmd, what, q);
    if (got == ATTN_INT_OK) {
        *out = (int)v;
        return ATTN_OK;
    }
    if (hi == INT_MAX && lo >= 0) /* open-ended: "0 or more" reads better than a range */
        return w[0] == '-' ? fail(c, "%s %s must be %lld or more (it is %s).", c->cmd, what, lo, q)
                           : fail(c, "%s %s is too large: at most %lld (it is %s).", c->cmd, what, hi, q);
    return fail(c, "%s %s must be between %lld and %lld (it is %s).", c->cmd, what, lo, hi, q);
}

/* Decodes the escapes \n, \t and \\ of s into a new string in *out. */
static attn_status unescape(const ctx *c, const char *s, char **out) {
    char *d = malloc(strlen(s) + 1), q[CLIP_BUF];
    if (!d) return nomem(c);
    size_t j = 0;
    for (const char *p = s; *p; p++) {
        if (*p != '\\') {
            d[j++] = *p;
            continue;
        }
        p++;
        if (*p == 'n' || *p == 't' || *p == '\\') {
            d[j++] = *p == 'n' ? '\n' : *p == 't' ? '\t'
                                                  : '\\';
            continue;
        }
        free(d);
        if (!*p)
            return fail(c, "%s text ends with a lone \\; write \\\\ for a backslash.", c->cmd);
        uint32_t cp;
        int n = utf8_decode(p, strlen(p), &cp);
        return fail(c, "unknown escape \\%s in %s text; use \\n (new line), \\t (tab) or \\\\ (backslash).",
                    clip(q, p, n > 0 ? (size_t)n : 1), c->cmd);
    }
    d[j] = '\0';
    *out = d;
    return ATTN_OK;
}

static attn_status dup_into(const ctx *c, const char *s, char **out) {
    size_t n = strlen(s) + 1;
    *out = malloc(n);
    if (!*out) return nomem(c);
    memcpy(*out, s, n);
    return ATTN_OK;
}

/* ---- one handler per command -------------------------------------------- */

static attn_status parse_size(const ctx *c, app_script_cmd *cmd, char *args) {
    static const form f = {"W H", "1280 800"};
    char *w[MAX_WORDS];
    int n = split_words(args, w);
    attn_status st = arity(c, &f, w, n, 2, 2);
    if (st == ATTN_OK) st = num(c, &cmd->v[0], w[0], "W", 320, 7680);
    if (st == ATTN_OK) st = num(c, &cmd->v[1], w[1], "H", 240, 4320);
    return st;
}

/* type, compose, commit: the rest of the line, escapes decoded. */
static attn_status parse_text(const ctx *c, app_script_cmd *cmd, char *args) {
    static const form f = {"TEXT", "the cat sat"};
    if (!*args && cmd->kind != APP_SC_COMPOSE) return arity(c, &f, NULL, 0, 1, 1);
    return unescape(c, args, &cmd->text);
}

static unsigned modifier(const char *s, size_t n) {
    static const struct {
        const char *name;
        unsigned bit;
    } mods[] = {
        {"ctrl", APP_MOD_CTRL}, {"shift", APP_MOD_SHIFT}, {"alt", APP_MOD_ALT}};
    for (size_t m = 0; m < sizeof mods / sizeof mods[0]; m++) {
        size_t i = 0;
        if (strlen(mods[m].name) != n) continue;
        while (i < n && (s[i] | 0x20) == mods[m].name[i]) i++; /* ASCII case-insensitive */
        if (i == n) return mods[m].bit;
    }
    return 0;
}

/* Splits "ctrl+shift+c" into flags and the key name. A '+' right at the start
 * of what is left is the key itself, so "ctrl++" is Ctrl with '+'. */
static attn_status parse_key(const ctx *c, app_script_cmd *cmd, char *args) {
    static const form f = {"CHORD", "ctrl+shift+c"};
    char *w[MAX_WORDS], q[CLIP_BUF], whole[CLIP_BUF];
    int n = split_words(args, w);
    attn_status st = arity(c, &f, w, n, 1, 1);
    if (st != ATTN_OK) return st;
    char *k = w[0], *plus;
    clip(whole, k, strlen(k));
    while ((plus = strchr(k, '+')) != NULL && plus != k) {
        unsigned m = modifier(k, (size_t)(plus - k));
        if (!m)
            return fail(c, "unknown modifier \"%s\" in key %s; modifiers are ctrl+, shift+ and alt+ "
                           "(e.g. ctrl+shift+c).",
                        clip(q, k, (size_t)(plus - k)), whole);
        if (!plus[1])
            return fail(c, "key %s has modifiers but no key; put the key after the last +, e.g. ctrl+c.",
                        whole);
        if (cmd->mods & m) return fail(c, "key %s names the same modifier twice.", whole);
        cmd->mods |= m;
        k = plus + 1;
    }
    return dup_into(c, k, &cmd->text);
}

/* click/hover token N, click step N, click/hover cell STAGE HEAD ROW COL. */
static attn_status parse_target(const ctx *c, app_script_cmd *cmd, char **w, int n) {
    char q[CLIP_BUF];
    attn_status st;
    if (strcmp(w[0], "token") == 0) {
        cmd->target = APP_SC_AT_TOKEN;
        st = arity(c, &F_TOKEN, w, n, 2, 2);
        return st != ATTN_OK ? st : num(c, &cmd->v[0], w[1], "token N", 0, INT_MAX);
    }
    if (strcmp(w[0], "control") == 0) { // the name is looked up by the runner, which knows the controls
        cmd->target = APP_SC_AT_CONTROL;
        st = arity(c, &F_CONTROL, w, n, 2, 3);
        if (st != ATTN_OK) return st;
        for (const char *p = w[1]; *p; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
                return fail(c, "control NAME must be lowercase letters, digits and _ (like train_start), not \"%s\".",
                            clip(q, w[1], strlen(w[1])));
        if (n == 3) st = num(c, &cmd->v[0], w[2], "control N", -1000, 1000);
        return st != ATTN_OK ? st : dup_into(c, w[1], &cmd->text);
    }
    if (strcmp(w[0], "step") == 0) {
        if (cmd->kind == APP_SC_HOVER)
            return fail(c, "hover cannot point at a rail step; write click step N (N from 1 to 8).");
        cmd->target = APP_SC_AT_STEP;
        st = arity(c, &F_STEP, w, n, 2, 2);
        return st != ATTN_OK ? st : num(c, &cmd->v[0], w[1], "step N", 1, 8);
    }
    cmd->target = APP_SC_AT_CELL;
    st = arity(c, &F_CELL, w, n, 5, 5);
    if (st != ATTN_OK) return st;
    cmd->v[0] = model_stage_from_name(w[1]);
    if (cmd->v[0] < 0)
        return fail(c, "unknown stage \"%s\"; use x, q, k, v, scores, scaled, masked, weights, z, "
                       "concat or output (with a model also residual, logits, probs, d_weights, d_scaled or avg).",
                    clip(q, w[1], strlen(w[1])));
    st = num(c, &cmd->v[1], w[2], "cell HEAD", 0, INT_MAX);
    if (st == ATTN_OK) st = num(c, &cmd->v[2], w[3], "cell ROW", 0, INT_MAX);
    if (st == ATTN_OK) st = num(c, &cmd->v[3], w[4], "cell COL", 0, INT_MAX);
    return st;
}

static attn_status parse_pointer(const ctx *c, app_script_cmd *cmd, char *args) {
    static const form f = {"X Y", "120 45"};
    char *w[MAX_WORDS], q[CLIP_BUF];
    int n = split_words(args, w);
    if (n == 0) return arity(c, &f, w, n, 2, 2);
    if (strcmp(w[0], "token") == 0 || strcmp(w[0], "step") == 0 || strcmp(w[0], "cell") == 0 ||
        strcmp(w[0], "control") == 0)
        return parse_target(c, cmd, w, n);
    if (!looks_numeric(w[0]))
        return fail(c, "%s needs X Y, token N, %scontrol NAME [N] or cell STAGE HEAD ROW COL, not \"%s\".", c->cmd,
                    cmd->kind == APP_SC_CLICK ? "step N, " : "", clip(q, w[0], strlen(w[0])));
    cmd->target = APP_SC_AT_XY;
    attn_status st = arity(c, &f, w, n, 2, 2);
    if (st == ATTN_OK) st = num(c, &cmd->v[0], w[0], "X", 0, INT_MAX);
    if (st == ATTN_OK) st = num(c, &cmd->v[1], w[1], "Y", 0, INT_MAX);
    return st;
}

static attn_status parse_wheel(const ctx *c, app_script_cmd *cmd, char *args) {
    static const form f = {"DY X Y", "-3 400 300"};
    char *w[MAX_WORDS];
    int n = split_words(args, w);
    if (n == 2)
        return fail(c, "missing arguments for wheel: give both X and Y or neither, "
                       "e.g. wheel -3 or wheel -3 400 300.");
    attn_status st = arity(c, &f, w, n, 1, 3);
    if (st == ATTN_OK) st = num(c, &cmd->v[0], w[0], "DY", INT_MIN, INT_MAX);
    cmd->v[1] = cmd->v[2] = -1;
    if (st != ATTN_OK || n == 1) return st;
    cmd->has_xy = true;
    st = num(c, &cmd->v[1], w[1], "X", 0, INT_MAX);
    if (st == ATTN_OK) st = num(c, &cmd->v[2], w[2], "Y", 0, INT_MAX);
    return st;
}

static attn_status parse_wait(const ctx *c, app_script_cmd *cmd, char *args) {
    static const form f = {"MS", "500"};
    char *w[MAX_WORDS];
    int n = split_words(args, w);
    attn_status st = arity(c, &f, w, n, 1, 1);
    return st != ATTN_OK ? st : num(c, &cmd->v[0], w[0], "MS", 0, 60000);
}

/* The path is taken as is: no escapes, inner spaces kept (shot, drop). */
static attn_status parse_shot(const ctx *c, app_script_cmd *cmd, char *args) {
    static const form f = {"PATH", "out/step3.png"};
    if (!*args) return arity(c, &f, NULL, 0, 1, 1);
    return dup_into(c, args, &cmd->text);
}

/* NAME then the rest of the line: expect NAME VALUE, save NAME PATH. */
static attn_status parse_named(const ctx *c, app_script_cmd *cmd, char *args, const form *f) {
    char q[CLIP_BUF];
    while (is_blank(*args)) args++;
    char *sep = args + strcspn(args, " \t");
    if (!*sep) return arity(c, f, NULL, 0, 2, 2);
    *sep = '\0';
    size_t n = strlen(args);
    if (n >= sizeof cmd->name)
        return fail(c, "%s NAME \"%s\" is too long (at most %zu letters).", c->cmd, clip(q, args, n),
                    sizeof cmd->name - 1);
    for (size_t i = 0; i < n; i++)
        if (!((args[i] >= 'a' && args[i] <= 'z') || args[i] == '_'))
            return fail(c, "%s NAME must be lowercase letters and _ only (like step or "
                           "sentence), not \"%s\".",
                        c->cmd, clip(q, args, n));
    memcpy(cmd->name, args, n + 1);
    return dup_into(c, sep + 1, &cmd->text);
}

static attn_status parse_expect(const ctx *c, app_script_cmd *cmd, char *args) {
    static const form f = {"NAME VALUE", "step 3"};
    return parse_named(c, cmd, args, &f);
}

static attn_status parse_await(const ctx *c, app_script_cmd *cmd, char *args) {
    static const form f = {"NAME VALUE", "train_state done"};
    return parse_named(c, cmd, args, &f);
}

/* save NAME PATH: the name as for expect, the path the rest of the line. */
static attn_status parse_save(const ctx *c, app_script_cmd *cmd, char *args) {
    static const form f = {"NAME PATH", "clipboard out/matrix.tsv"};
    return parse_named(c, cmd, args, &f);
}

static attn_status parse_quit(const ctx *c, app_script_cmd *cmd, char *args) {
    static const form f = {"", ""};
    char *w[MAX_WORDS];
    (void)cmd;
    return arity(c, &f, w, split_words(args, w), 0, 0);
}

/* Indexed by app_script_kind. */
static const struct {
    const char *name;
    handler parse;
} commands[] = {
    {"size", parse_size},
    {"type", parse_text},
    {"compose", parse_text},
    {"commit", parse_text},
    {"key", parse_key},
    {"click", parse_pointer},
    {"hover", parse_pointer},
    {"wheel", parse_wheel},
    {"wait", parse_wait},
    {"shot", parse_shot},
    {"expect", parse_expect},
    {"quit", parse_quit},
    {"save", parse_save},
    {"drop", parse_shot},
    {"await", parse_await},
};
#define N_COMMANDS ((int)(sizeof commands / sizeof commands[0]))

const char *app_script_kind_name(app_script_kind k) {
    return (int)k >= 0 && (int)k < N_COMMANDS ? commands[k].name : "?";
}

/* ---- lines -------------------------------------------------------------- */

/* Rejects what must never reach the command parser: over-long lines, NUL
 * bytes (they would end the C string early) and malformed UTF-8. */
static attn_status check_line(const ctx *c, const char *s, size_t n) {
    if (n > APP_SCRIPT_MAX_LINE)
        return fail(c, "this line is %zu bytes long; a line may be at most %d bytes (64 KiB).", n,
                    APP_SCRIPT_MAX_LINE);
    size_t bad = utf8_find_invalid(s, n);
    const char *nul = memchr(s, '\0', n);
    if (nul && (size_t)(nul - s) < bad)
        return fail(c, "this line contains a NUL byte at byte %zu (counting from 1); scripts are "
                       "plain text.",
                    (size_t)(nul - s) + 1);
    if (bad != (size_t)-1)
        return fail(c, "this line is not valid UTF-8: at byte %zu (counting from 1) there is %s.",
                    bad + 1, utf8_problem(s, n, bad));
    return ATTN_OK;
}

static char *trim(char *s) {
    while (is_blank(*s)) s++;
    size_t n = strlen(s);
    while (n > 0 && (is_blank(s[n - 1]) || s[n - 1] == '\r')) n--; /* \r: CRLF files */
    s[n] = '\0';
    return s;
}

/* Moves *cmd (and its text) to the end of s. */
static attn_status push(const ctx *c, app_script *s, int *cap, app_script_cmd *cmd) {
    if (!cmd->text && dup_into(c, "", &cmd->text) != ATTN_OK) return ATTN_ERR_NOMEM;
    if (s->count == *cap) {
        if (*cap > INT_MAX / 2) return nomem(c);
        int nc = *cap ? *cap * 2 : 16;
        app_script_cmd *p = realloc(s->cmds, (size_t)nc * sizeof *p);
        if (!p) return nomem(c);
        s->cmds = p;
        *cap = nc;
    }
    s->cmds[s->count++] = *cmd;
    return ATTN_OK;
}

/* Parses one line (NUL-terminated, checked) and appends its command, if any. */
static attn_status parse_line(ctx *c, char *line, app_script *s, int *cap) {
    char q[CLIP_BUF];
    char *p = trim(line);
    if (!*p || *p == '#') return ATTN_OK;
    size_t wl = strcspn(p, " \t");
    char *args = p + wl + (p[wl] ? 1 : 0); /* after exactly one separator */
    p[wl] = '\0';
    int k = 0;
    while (k < N_COMMANDS && strcmp(p, commands[k].name) != 0) k++;
    if (k == N_COMMANDS)
        return fail(c, "unknown command \"%s\"; commands are: size, type, compose, commit, key, "
                       "click, hover, wheel, wait, shot, save, drop, expect, await, quit.",
                    clip(q, p, wl));
    app_script_cmd cmd;
    memset(&cmd, 0, sizeof cmd);
    cmd.kind = (app_script_kind)k;
    cmd.line = c->line;
    c->cmd = commands[k].name;
    attn_status st = commands[k].parse(c, &cmd, args);
    if (st == ATTN_OK) st = push(c, s, cap, &cmd);
    if (st != ATTN_OK) free(cmd.text);
    return st;
}

attn_status app_script_parse(app_script *out, const char *text, size_t len, const char *filename,
                             attn_err *err) {
    app_script s = {NULL, 0};
    int cap = 0;
    ctx c = {filename ? filename : "script", 0, "", err};
    attn_status st = ATTN_OK;
    char *line = malloc(APP_SCRIPT_MAX_LINE + 1);
    out->cmds = NULL;
    out->count = 0;
    if (!line) {
        st = nomem(&c);
        goto cleanup;
    }
    if (!text) len = 0;
    size_t pos = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0; /* editors' BOM */
    while (pos < len) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;
        if (c.line == INT_MAX) {
            st = fail(&c, "the script has too many lines.");
            goto cleanup;
        }
        c.line++;
        st = check_line(&c, text + pos, n);
        if (st != ATTN_OK) goto cleanup;
        memcpy(line, text + pos, n);
        line[n] = '\0';
        st = parse_line(&c, line, &s, &cap);
        if (st != ATTN_OK) goto cleanup;
        pos += n + (nl ? 1 : 0);
    }
    *out = s;
    s.cmds = NULL;
    s.count = 0;
cleanup:
    free(line);
    app_script_free(&s);
    return st;
}

void app_script_free(app_script *s) {
    if (!s) return;
    for (int i = 0; i < s->count; i++) free(s->cmds[i].text);
    free(s->cmds);
    s->cmds = NULL;
    s->count = 0;
}
