/* fuzz_script.c — the --script parser on arbitrary bytes. A parsed script is
 * what the GUI driver runs without further checks, so every command must be
 * complete: lines increasing, text never NULL and valid UTF-8, numbers in
 * their documented ranges, names and modifiers only where they belong. A
 * refused script leaves nothing behind and says where, in valid UTF-8. */
#include <string.h>

#include "app_script.h"
#include "attn.h"
#include "fuzz_common.h"
#include "model_run.h"
#include "utf8.h"

#define FILENAME "fuzz.script"

static bool valid_utf8(const char *s) {
    return utf8_find_invalid(s, strlen(s)) == (size_t)-1;
}

static void check_cmd(const app_script_cmd *c) {
    FUZZ_CHECK(c->kind >= APP_SC_SIZE && c->kind <= APP_SC_AWAIT);
    FUZZ_CHECK(strcmp(app_script_kind_name(c->kind), "?") != 0);
    FUZZ_CHECK(c->text != NULL && valid_utf8(c->text));
    FUZZ_CHECK(memchr(c->name, '\0', sizeof c->name) != NULL);
    FUZZ_CHECK((c->kind == APP_SC_EXPECT || c->kind == APP_SC_SAVE || c->kind == APP_SC_AWAIT) == (c->name[0] != '\0'));
    FUZZ_CHECK(c->kind == APP_SC_KEY || c->mods == 0);
    FUZZ_CHECK((c->mods & ~(APP_MOD_CTRL | APP_MOD_SHIFT | APP_MOD_ALT)) == 0);
    FUZZ_CHECK(c->kind == APP_SC_WHEEL || !c->has_xy);
    FUZZ_CHECK(c->kind == APP_SC_CLICK || c->kind == APP_SC_HOVER || c->target == APP_SC_AT_XY);
    switch (c->kind) {
    case APP_SC_SIZE:
        FUZZ_CHECK(c->v[0] >= 320 && c->v[0] <= 7680 && c->v[1] >= 240 && c->v[1] <= 4320);
        break;
    case APP_SC_TYPE:
    case APP_SC_COMMIT:
        FUZZ_CHECK(c->text[0] != '\0');
        break;
    case APP_SC_KEY:
        FUZZ_CHECK(c->text[0] != '\0' && !strchr(c->text, ' ') && !strchr(c->text, '\t'));
        break;
    case APP_SC_CLICK:
    case APP_SC_HOVER:
        switch (c->target) {
        case APP_SC_AT_XY:
        case APP_SC_AT_TOKEN:
            FUZZ_CHECK(c->v[0] >= 0 && c->v[1] >= 0);
            break;
        case APP_SC_AT_STEP:
            FUZZ_CHECK(c->kind == APP_SC_CLICK && c->v[0] >= 1 && c->v[0] <= 8);
            break;
        case APP_SC_AT_CONTROL:
            FUZZ_CHECK(c->text[0] != '\0' && c->v[0] >= -1000 && c->v[0] <= 1000);
            break;
        case APP_SC_AT_CELL:
            // a model's stages (residual … avg) follow the core's: the runner checks a model is open
            FUZZ_CHECK(c->v[0] >= 0 && c->v[0] < MODEL_STAGE_COUNT);
            FUZZ_CHECK(c->v[1] >= 0 && c->v[2] >= 0 && c->v[3] >= 0);
            break;
        default:
            FUZZ_CHECK(!"a click or hover target out of range");
        }
        break;
    case APP_SC_WHEEL:
        if (c->has_xy) FUZZ_CHECK(c->v[1] >= 0 && c->v[2] >= 0);
        else FUZZ_CHECK(c->v[1] == -1 && c->v[2] == -1);
        break;
    case APP_SC_WAIT:
        FUZZ_CHECK(c->v[0] >= 0 && c->v[0] <= 60000);
        break;
    case APP_SC_SHOT:
    case APP_SC_SAVE:
    case APP_SC_DROP:
        FUZZ_CHECK(c->text[0] != '\0');
        break;
    case APP_SC_EXPECT:
    case APP_SC_AWAIT:
        FUZZ_CHECK(c->text[0] != '\0' && strlen(c->name) < sizeof c->name);
        for (const char *n = c->name; *n; n++) FUZZ_CHECK((*n >= 'a' && *n <= 'z') || *n == '_');
        break;
    default: // COMPOSE may be empty; QUIT has nothing
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static app_script_cmd sentinel;
    app_script s = {&sentinel, -1}; // app_script_parse must set *out in every case
    attn_err err;
    attn_err_clear(&err);
    attn_status st = app_script_parse(&s, (const char *)data, size, FILENAME, &err);
    if (st != ATTN_OK) {
        FUZZ_CHECK(s.cmds == NULL && s.count == 0);
        FUZZ_CHECK(err.code == st && (st == ATTN_ERR_PARSE || st == ATTN_ERR_NOMEM));
        FUZZ_CHECK(memchr(err.msg, '\0', sizeof err.msg) != NULL && valid_utf8(err.msg));
        FUZZ_CHECK(strncmp(err.msg, FILENAME ":", strlen(FILENAME ":")) == 0);
        return 0;
    }
    FUZZ_CHECK(s.count >= 0 && (s.count == 0) == (s.cmds == NULL));
    int line = 0;
    for (int i = 0; i < s.count; i++) {
        check_cmd(&s.cmds[i]);
        FUZZ_CHECK(s.cmds[i].line > line); // one command per line, in order
        line = s.cmds[i].line;
    }
    FUZZ_CHECK(s.count <= line && (size_t)line <= size); // a line holds at least its command word
    app_script_free(&s);
    FUZZ_CHECK(s.cmds == NULL && s.count == 0);
    app_script_free(&s); // a second free is a no-op
    app_script_free(NULL);
    return 0;
}
