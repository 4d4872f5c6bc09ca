/* fuzz_cli_args.c — command-line parsing on arbitrary argument lists: the
 * input split on NUL bytes is argv[1..]. When the parsed options touch no
 * file and the configuration is small, the headless run follows (output to
 * /dev/null), so --print and --explain values reach the code that uses them. */
#include <string.h>

#include "cli_args.h"
#include "cli_run.h"
#include "fuzz_common.h"
#include "utf8.h"

#define MAX_ARGS 64

/* Flags that read or write nothing on disk; anything else (files, the GUI,
 * flags added later) keeps the harness to parsing only. */
static bool safe_flag(const char *a, bool *valued) {
    static const char *const with_value[] = {
        "--sentence",
        "--mask",
        "--seed",
        "--d-model",
        "--d-k",
        "--heads",
        "--explain",
    };
    static const char *const switches[] = {
        "--headless",
        "--no-scale",
        "--pos-enc",
        "--bias",
        "--print",
    };
    for (size_t i = 0; i < sizeof with_value / sizeof *with_value; i++)
        if (strcmp(a, with_value[i]) == 0) return *valued = true;
    *valued = false;
    for (size_t i = 0; i < sizeof switches / sizeof *switches; i++)
        if (strcmp(a, switches[i]) == 0) return true;
    return false;
}

static bool run_is_safe(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        bool valued;
        if (!safe_flag(argv[i], &valued)) return false;
        if (valued) i++;
        else if (strcmp(argv[i], "--print") == 0 && i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0)
            i++; // its optional stage name
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    // one heap copy with a NUL after the last argument, so each piece is a C string
    char *buf = malloc(size + 1);
    FUZZ_CHECK(buf != NULL);
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = "attnviz";
    for (size_t i = 0; i <= size && argc <= MAX_ARGS;) {
        argv[argc++] = buf + i;
        i += strlen(buf + i) + 1;
    }
    if (size == 0) argc = 1; // no input: no arguments at all
    argv[argc] = NULL;

    cli_opts o;
    attn_err err;
    attn_err_clear(&err);
    attn_status st = cli_parse(&o, argc, argv, &err);
    if (st != ATTN_OK) {
        FUZZ_CHECK(err.code == st && err.msg[0] != '\0' && memchr(err.msg, '\0', sizeof err.msg));
        // the message quotes what was typed: cut between characters, never inside one
        size_t n = strlen(err.msg);
        FUZZ_CHECK(utf8_drop_partial(err.msg, n) == n || utf8_find_invalid(err.msg, n) != (size_t)-1);
        free(buf);
        return 0;
    }
    FUZZ_CHECK(o.mode >= CLI_MODE_GUI && o.mode <= CLI_MODE_TASKS); // the first and the last of cli_mode
    FUZZ_CHECK(!(o.sentence && o.sentence_file));
    FUZZ_CHECK(o.print_stage >= -1 && o.print_stage < ATTN_STAGE_COUNT);
    if (o.explain) { // no wrapped number gets through: every part within the largest trace
        FUZZ_CHECK(o.explain_stage >= 0 && o.explain_stage < ATTN_STAGE_COUNT);
        FUZZ_CHECK(o.explain_head >= 0 && o.explain_head < ATTN_MAX_HEADS);
        FUZZ_CHECK(o.explain_row >= 0 && o.explain_row < ATTN_MAX_TOKENS);
        FUZZ_CHECK(o.explain_col >= 0 && o.explain_col < ATTN_MAX_HEADS * ATTN_MAX_D_K);
    }
    FUZZ_CHECK(o.width == 0 || (o.width >= 320 && o.width <= 7680 && o.height >= 240 && o.height <= 4320));
    FUZZ_CHECK(o.pixel_scale >= 0 && o.pixel_scale <= 3);
    FUZZ_CHECK(o.max_n == 0 || (o.max_n >= 16 && o.max_n <= 65536));
    int stdin_inputs = 0; // standard input is read once
    const char *inputs[] = {o.sentence_file, o.weights_path, o.lesson_path, o.check_lesson, o.script_path};
    for (int i = 0; i < 5; i++) stdin_inputs += inputs[i] && strcmp(inputs[i], "-") == 0;
    FUZZ_CHECK(stdin_inputs <= 1);
    FUZZ_CHECK(attn_config_check(&o.cfg, NULL) == ATTN_OK); // the parser checked every range
    FUZZ_CHECK(cli_help_text()[0] != '\0');

    long long cost = (long long)o.cfg.heads * o.cfg.d_model * o.cfg.d_k;
    if (o.mode == CLI_MODE_HEADLESS && cost <= 1024 && o.cfg.d_model <= 32 && run_is_safe(argc, argv)) {
        static FILE *sink;
        if (!sink) sink = fopen("/dev/null", "w");
        FUZZ_CHECK(sink != NULL);
        int rc = cli_run_headless(&o, sink, sink);
        FUZZ_CHECK(rc == 0 || rc == 1);
    }
    free(buf);
    return 0;
}
