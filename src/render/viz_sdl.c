/* viz_sdl.c — display lists rendered offscreen into new surfaces, and
 * screenshots saved as PNG. Drawing: viz_raster.c; fonts: viz_fonts.c. */
#include "viz_sdl.h"

#include "fileio.h"

#include <png.h>
#include <setjmp.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

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

attn_status viz_save_png(SDL_Surface *s, const char *path, const char *shown, attn_err *err) {
    if (!s) return attn_fail(err, ATTN_ERR_IO, "Cannot write %s: nothing has been drawn yet.", shown ? shown : path);
    attn_out out;
    attn_status st = attn_out_open(&out, path, shown, err);
    if (st != ATTN_OK) return st;
    char why[256] = "";
    if (write_png_rgb(out.fp, s, why) != 0) {
        st = attn_fail(err, ATTN_ERR_IO, "Cannot write %s: %s.", out.shown, why);
        attn_out_abort(&out);
        return st;
    }
    return attn_out_close(&out, err);
}
