/* viz_sdl.c — display lists rendered offscreen into new surfaces, and
 * screenshots saved as PNG. Drawing: viz_raster.c; fonts: viz_fonts.c. */
#include "viz_fonts_internal.h"

#include <png.h>
#include <setjmp.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

SDL_Surface *viz_sdl_render_surface(viz_fonts *f, const viz_list *l, int w, int h, viz_rgba bg) {
    if (w <= 0 || h <= 0) {
        SDL_SetError("Cannot render a %d×%d image.", w, h);
        return NULL;
    }
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888);
    if (s && viz_sdl_draw(s, f, l, NULL, bg) != 0) {
        SDL_FreeSurface(s);
        s = NULL;
    }
    return s;
}

/* "Cannot save the screenshot to PATH: reason." with reason's own final period dropped. */
static void save_error(char *err, size_t cap, const char *path, const char *reason) {
    if (!err || cap == 0) return;
    size_t n = strlen(reason);
    while (n > 0 && (reason[n - 1] == '.' || reason[n - 1] == '\n')) n--;
    snprintf(err, cap, "Cannot save the screenshot to %s: %.*s.", path, (int)n, reason);
}

/* Writes beside the target, then renames: path holds the old file or the whole
 * new one, and a failure leaves nothing behind. */
/* libpng reports errors by longjmp; the message goes here first. */
static void png_error_fn(png_structp png, png_const_charp msg) {
    char *buf = png_get_error_ptr(png);
    int e = errno; // libpng's "Write Error" follows a failed fwrite, whose errno says why (a full disk)
    snprintf(buf, 256, "%s", strcmp(msg, "Write Error") == 0 && e ? strerror(e) : msg);
    png_longjmp(png, 1);
}

/* Writes s (opaque, 32-bit) as an 8-bit RGB PNG to fp, row by row straight
 * from the surface (libpng drops the fourth byte and orders the channels), so
 * no converted copy of a large export is held. Fast settings: figures are
 * flat colour and text, which compress well at level 1 with the Sub filter,
 * ten times faster than the defaults that IMG_SavePNG uses. */
static int write_png_rgb(FILE *fp, SDL_Surface *s, char *why) {
    Uint32 fmt = s->format->format;
    if (fmt != SDL_PIXELFORMAT_ARGB8888 && fmt != SDL_PIXELFORMAT_RGB888) {
        snprintf(why, 256, "unexpected pixel format %s", SDL_GetPixelFormatName(fmt));
        return -1;
    }
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, why, png_error_fn, NULL);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    int rc = -1;
    if (!png || !info) {
        snprintf(why, 256, "not enough memory");
        goto cleanup;
    }
    if (setjmp(png_jmpbuf(png))) goto cleanup;
    png_init_io(png, fp);
    png_set_IHDR(png, info, (png_uint_32)s->w, (png_uint_32)s->h, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_set_compression_level(png, 1);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
    png_write_info(png, info);
#if SDL_BYTEORDER == SDL_LIL_ENDIAN
    png_set_bgr(png); // 0xAARRGGBB sits in memory as B, G, R, A
    png_set_filler(png, 0, PNG_FILLER_AFTER);
#else
    png_set_filler(png, 0, PNG_FILLER_BEFORE); // A, R, G, B
#endif
    for (int y = 0; y < s->h; y++) png_write_row(png, (png_const_bytep)s->pixels + (size_t)y * s->pitch);
    png_write_end(png, NULL);
    rc = 0;
cleanup:
    png_destroy_write_struct(&png, &info);
    return rc;
}

int viz_save_png(SDL_Surface *s, const char *path, char *err, size_t cap) {
    if (!s || !path) {
        save_error(err, cap, path ? path : "(no path)", "nothing to save");
        return -1;
    }
    size_t n = strlen(path) + sizeof ".tmp-XXXXXX";
    char *tmp = malloc(n);
    bool made = false;
    int rc = -1;
    if (!tmp) {
        save_error(err, cap, path, "not enough memory");
        goto cleanup;
    }
    snprintf(tmp, n, "%s.tmp-XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        save_error(err, cap, path, strerror(errno));
        goto cleanup;
    }
    made = true;
    fchmod(fd, 0644); // mkstemp's 0600 would make screenshots private
    FILE *fp = fdopen(fd, "wb");
    char why[256] = "";
    if (!fp) {
        close(fd);
        save_error(err, cap, path, strerror(errno));
        goto cleanup;
    }
    int wrc = write_png_rgb(fp, s, why);
    if (fclose(fp) != 0 && wrc == 0) {
        wrc = -1;
        snprintf(why, sizeof why, "%s", strerror(errno));
    }
    if (wrc != 0) {
        save_error(err, cap, path, why);
        goto cleanup;
    }
    if (rename(tmp, path) != 0) {
        save_error(err, cap, path, strerror(errno));
        goto cleanup;
    }
    rc = 0;
cleanup:
    if (rc != 0 && made) unlink(tmp);
    free(tmp);
    return rc;
}
