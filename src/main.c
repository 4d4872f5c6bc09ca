/* main.c — the one place that decides exit codes (and, later, starts SDL). */
#include <stdio.h>

#include "cli_args.h"
#include "cli_run.h"

int main(int argc, char **argv) {
    cli_opts opts;
    attn_err err;
    attn_err_clear(&err);
    if (cli_parse(&opts, argc, argv, &err) != ATTN_OK) {
        fprintf(stderr, "attnviz: %s\n", err.msg);
        return 2;
    }
    switch (opts.mode) {
    case CLI_MODE_HELP:
        fputs(cli_help_text(), stdout);
        return 0;
    case CLI_MODE_VERSION:
        printf("attnviz %s\n", ATTN_VERSION);
        return 0;
    case CLI_MODE_HEADLESS:
        return cli_run_headless(&opts, stdout, stderr);
    case CLI_MODE_GUI:
        break;
    }
    puts("attnviz: the window (GUI) is not built yet; use attnviz --headless --print for now.");
    return 0;
}
