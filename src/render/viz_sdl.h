/* viz_sdl.h — the SDL backend: fonts found through fontconfig, and display
 * lists rasterised into 32-bit SDL surfaces by attnviz's own software
 * rasteriser (viz_raster.c). The window, screenshots and PNG exports all come
 * from it, so they agree to the pixel; a window only presents the surface. */
#ifndef VIZ_SDL_H
#define VIZ_SDL_H

#include <SDL.h>
#include <stddef.h>

#include "attn_err.h"
#include "viz.h"
#include "viz_damage.h"

typedef struct viz_fonts viz_fonts;

/* Opens the UI fonts. override_path (--font FILE) is used as the primary font
 * when non-NULL; otherwise fontconfig finds WenQuanYi Micro Hei (Latin + CJK).
 * A fallback font (fontconfig's match for DejaVu Sans) draws glyphs the primary
 * lacks (ᵀ, ₖ, ₙ ...), chosen per glyph; Symbola (fonts-symbola), when
 * installed, draws emoji last. Code (VIZ_FONT_MONO) is set in WenQuanYi Micro
 * Hei Mono (face 1 of wqy-microhei.ttc), then DejaVu Sans Mono, then the UI's
 * faces; a missing fallback is skipped. Returns NULL and writes a learner-
 * readable message into err (cap bytes) when no CJK font is found — the message
 * names the Debian package fonts-wqy-microhei. TTF_Init must have been called. */
viz_fonts *viz_fonts_open(const char *override_path, char *err, size_t cap);

/* Whether the face of family ("WenQuanYi Micro Hei Mono", "DejaVu Sans Mono",
 * "Symbola", …) was found: code and emoji use the ones that are. */
bool viz_fonts_has_face(const viz_fonts *f, const char *family);

/* true once after a face came late (the browser fetches Symbola the first
 * time a glyph is missing from every bundled face): the text already laid
 * out and drawn is stale, measure and draw it again. false on the desktop. */
bool viz_fonts_changed(viz_fonts *f);

/* Warming (on): text measured or drawn for a frame nobody sees (the
 * window's idle warming of the steps likely next). A glyph missing from
 * every face then fetches no late face (the browser's Symbola comes only
 * for a frame shown), and a width or line of text that needed one is not
 * cached (drawing it fails), so a frame shown later still asks for the
 * face. Everything else is cached as usual. NULL is a no-op. */
void viz_fonts_warming(viz_fonts *f, bool on);

/* Frees the fonts and every cached line of text. NULL is a no-op. */
void viz_fonts_close(viz_fonts *f);

/* Measurement for the layout code (same fonts as drawing). */
viz_measure viz_fonts_measure(viz_fonts *f);

/* Rasterises l into dst, a surface of format ARGB8888 or RGB888, touching only
 * the pixels inside area (NULL: all of dst): they are first set to bg (made
 * opaque), then every command is drawn over them in order, clipped to area.
 * Drawing the same list into any set of areas that covers dst gives exactly
 * the pixels of one whole drawing, which is what lets the window redraw only
 * what changed. Text lines are cached in f across calls. Returns 0, or -1 with
 * SDL_GetError set (every command is still tried: a partial frame beats none). */
int viz_sdl_draw(SDL_Surface *dst, viz_fonts *f, const viz_list *l, const SDL_Rect *area, viz_rgba bg);

/* viz_sdl_draw over n areas at once (NULL: all of dst), possibly
 * overlapping: each text is placed once, and a large job is drawn by two
 * threads, each owning a band of rows (the pixels are those of one thread). */
int viz_sdl_draw_areas(SDL_Surface *dst, viz_fonts *f, const viz_list *l, const SDL_Rect *areas, int n,
                       viz_rgba bg);

/* The signature of l for viz_damage: what each drawn command is and the
 * pixels it may touch, with text measured by f unless prev (the last frame's,
 * or NULL) had it. false when out of memory. */
bool viz_sdl_signature(viz_sig *out, const viz_sig *prev, viz_fonts *f, const viz_list *l, int w, int h);

/* Renders l into a new w×h ARGB8888 surface (opaque, bg first): no window or
 * display needed. The caller frees the surface. NULL on failure (SDL_GetError). */
SDL_Surface *viz_sdl_render_surface(viz_fonts *f, const viz_list *l, int w, int h, viz_rgba bg);

/* Where the rasteriser puts TEXT command c of l: the pen's start and the
 * baseline, in whole pixels (so another renderer can put the text on the
 * same pixels). Returns 0, or -1 (no fonts, empty text, a font error). */
int viz_sdl_text_origin(viz_fonts *f, const viz_list *l, const viz_cmd *c, int *x, int *baseline);

/* Saves s as PNG at path through the one file writer (util/fileio.h; shown
 * names the file in messages, NULL: the path). Returns ATTN_OK or
 * ATTN_ERR_IO with "Cannot write NAME: reason.". */
attn_status viz_save_png(SDL_Surface *s, const char *path, const char *shown, attn_err *err);

#endif
