/* viz_sdl.h — the SDL backend: fonts found through fontconfig, and display
 * lists replayed into an SDL_Renderer (a window, or an offscreen surface with
 * the software renderer). */
#ifndef VIZ_SDL_H
#define VIZ_SDL_H

#include <SDL.h>
#include <stddef.h>

#include "viz.h"

typedef struct viz_fonts viz_fonts;

/* Opens the UI fonts. override_path (--font FILE) is used as the primary font
 * when non-NULL; otherwise fontconfig finds WenQuanYi Micro Hei (Latin + CJK).
 * A fallback font (fontconfig's match for DejaVu Sans) draws glyphs the primary
 * lacks (ᵀ, ₖ, ₙ ...), chosen per glyph. Returns NULL and writes a learner-
 * readable message into err (cap bytes) when no CJK font is found — the message
 * names the Debian package fonts-wqy-microhei. TTF_Init must have been called. */
viz_fonts *viz_fonts_open(const char *override_path, char *err, size_t cap);

/* Frees the fonts and every cached glyph texture. NULL is a no-op. */
void viz_fonts_close(viz_fonts *f);

/* Measurement for the layout code (same fonts as drawing). */
viz_measure viz_fonts_measure(viz_fonts *f);

/* Replays l into r. Text textures are cached per renderer (keyed by text, size
 * and colour) across frames. Returns 0, or -1 with SDL_GetError set. */
int viz_sdl_draw(SDL_Renderer *r, viz_fonts *f, const viz_list *l);

/* Forgets cached textures that belong to r (call before destroying r). */
void viz_fonts_forget_renderer(viz_fonts *f, SDL_Renderer *r);

/* Renders l offscreen into a new w×h 32-bit surface with SDL's software
 * renderer: no window or display needed. bg fills it first. The caller frees
 * the surface. NULL on failure (SDL_GetError). */
SDL_Surface *viz_sdl_render_surface(viz_fonts *f, const viz_list *l, int w, int h, viz_rgba bg);

/* Saves s as PNG through a temporary file and a rename. Returns 0, or -1 with
 * a message in err. */
int viz_save_png(SDL_Surface *s, const char *path, char *err, size_t cap);

#endif
