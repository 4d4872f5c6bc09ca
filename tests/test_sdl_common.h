/* test_sdl_common.h — what the tests that draw share: SDL without a display
 * (the dummy video driver), SDL_ttf and the UI fonts found through fontconfig. */
#ifndef ATTN_TEST_SDL_COMMON_H
#define ATTN_TEST_SDL_COMMON_H

#include <SDL.h>
#include <SDL_ttf.h>
#include <fontconfig/fontconfig.h>
#include <stdlib.h>

#include "test_common.h"
#include "viz_sdl.h"

/* Starts SDL and SDL_ttf and opens the fonts; NULL (with the reason printed)
 * when any of it fails. */
static inline viz_fonts *test_fonts_open(void) {
    setenv("SDL_VIDEODRIVER", "dummy", 1);
    if (SDL_Init(SDL_INIT_VIDEO) != 0 || TTF_Init() != 0) {
        print_error("%s\n", SDL_GetError());
        return NULL;
    }
    char err[512] = "";
    viz_fonts *f = viz_fonts_open(NULL, err, sizeof err);
    if (!f) print_error("%s\n", err);
    return f;
}

/* Closes f and everything test_fonts_open started. */
static inline void test_fonts_close(viz_fonts *f) {
    viz_fonts_close(f);
    TTF_Quit();
    SDL_Quit();
    FcFini(); // releases fontconfig's global configuration for the leak checker
}

#endif
