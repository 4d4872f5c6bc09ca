/* app_actions.h — floor 4 of src/app: the actions input is routed to. Each
 * changes the state through the floors below (the lesson, the model, the
 * compute pipeline); none knows where the input came from, so the SDL
 * layer, a script or a test drives them alike. */
#ifndef APP_ACTIONS_H
#define APP_ACTIONS_H

#include "app_lesson.h"

/* A model folder opened in the running window (the browser's file picker,
 * web/attnviz-page.js): what --hf DIR opens at start (app_hf_open, with the
 * same default sentences when sentence is NULL), after the trained model and
 * the lesson step aside (a real model has no lesson pages); its first run is
 * computed on the worker (app_hf_open without waiting). On error the view
 * before stays (a trained model closed) and err says why. */
attn_status app_open_hf_folder(app_state *st, const char *dir, const char *sentence, const char *bpe_default,
                               const char *wordpiece_default, attn_err *err);

/* ---- steps, selection, hover ---- */
void app_step(app_state *st, int delta); /* previous/next step, clamped; with a model across layers */
void app_goto_step(app_state *st, int step);
void app_select_query(app_state *st, int token);         /* during a question: the guess */
void app_move_cursor(app_state *st, int drow, int dcol); /* keyboard cell cursor in the canvas */
void app_toggle_focus(app_state *st);
void app_click_step(app_state *st, int step);     /* a step of the rail clicked: it, and the rail's focus */
void app_click_cell(app_state *st, viz_hit cell); /* a cell clicked: it, and the canvas's focus */
/* Clicker keys: the next step, and at the ends of the steps the next page. */
void app_clicker(app_state *st, int delta);

/* ---- controls ---- */
/* A control changed by delta (-1, +1) or toggled (0): heads, d_k, ... */
void app_widget(app_state *st, viz_widget w, int delta);
void app_reset(app_state *st); /* R: the lesson's or the default view */
void app_toggle_help(app_state *st);
void app_toggle_figure(app_state *st); /* F: the figure alone in the whole window, and back */
/* A page control clicked (VIZ_PW_*): ‹ › turn the page by delta, the page
 * button shows or hides the page list, an entry of it (delta: the page's
 * index) goes there. */
void app_page_control(app_state *st, int widget, int delta);
void app_toggle_lines_all(app_state *st); /* A: the attention lines of every head */
/* F2: shows or hides the complexity lab; true when it is now shown (the
 * caller starts the measurement). */
bool app_toggle_lab(app_state *st);
/* F5: the decode view on or off; d: the token it shows moves by d (the query). */
void app_toggle_decode(app_state *st);
void app_decode_token(app_state *st, int d);
/* J / Shift+J: the next smaller / larger divisor of heads as the number of kv-heads. */
void app_kv_heads_step(app_state *st, int dir);

/* Issue 24 part 4. F4: shows or hides the tiles view (the shown head's
 * online softmax, block by block; B starts at 4, clipped to n). */
void app_toggle_tiles(app_state *st);
/* In the tiles view: the step delta away (clamped; INT_MIN / INT_MAX: the
 * first / the last), and B changed by delta (1 … n; back to the first step). */
void app_tiles_step(app_state *st, int delta);
void app_tiles_block(app_state *st, int delta);
/* The lab's measurements once done (owned by the caller), else NULL, and
 * how long it has run. */
void app_lab_progress(app_state *st, const attn_cx_result *lab, float elapsed);

/* A file dropped on the window: a model file (it names the format
 * "attnviz-model") goes into the walkthrough, a .lesson file opens, anything
 * else is read as a weights file. The status line says what happened; on
 * error the view stays. */
void app_open_dropped(app_state *st, const char *path);

/* ---- the window ---- */
void app_set_zoom(app_state *st, float zoom);          /* UI zoom, clamped to 0.5–3 */
void app_set_fullscreen(app_state *st, bool on);       /* the caller then sets the window's mode */
void app_resize(app_state *st, int width, int height); /* the window's size in pixels */
void app_set_dpi_scale(app_state *st, float scale);    /* the display's density (or --ui-scale) */
void app_repaint(app_state *st);                       /* draw the next frame again */
void app_quit(app_state *st);                          /* leave the main loop */
/* Mouse wheel by notches (positive: away from the user) over the narrative
 * (scroll_max: how far its text scrolls), over the cell arithmetic, with
 * Ctrl over the canvas (zoom), else over the canvas (pan; sideways with
 * Shift). */
void app_wheel_narrative(app_state *st, int notches, int scroll_max, int shown); /* shown: the scroll as drawn */
void app_wheel_detail(app_state *st, int notches);
void app_wheel_zoom(app_state *st, int notches);
void app_wheel_pan(app_state *st, int notches, bool sideways);

/* ---- editing ---- */
void app_edit_begin(app_state *st);
/* Edits text in place of the sentence with the same keys: each change is
 * given to check (with ctx), Enter keeps the last text it took, Esc gives it
 * text again. The sentence bar does not show it. */
void app_edit_begin_other(app_state *st, const char *text, app_edit_check check, void *ctx);
/* Shift+E in a two-sentence compare: edits the second sentence in the
 * sentence bar; each edit the model can read is the second view at once,
 * Enter keeps it, Esc brings back the one from before. False (nothing
 * begun) without a model, another compare, or while editing. The app
 * itself owns that edit (edit.ctx is st), so the sentence bar shows it. */
bool app_edit_pair(app_state *st);
/* Stops editing a text ctx owns, nothing given back (its owner goes). */
void app_edit_drop(app_state *st, void *ctx);
void app_edit_insert(app_state *st, const char *utf8); /* typed or committed text */
void app_edit_word(app_state *st, int i);              /* the model's word i, at the cursor (a space before it when the sentence has spaces) */
void app_edit_compose(app_state *st, const char *preedit);
void app_edit_backspace(app_state *st);
void app_edit_delete(app_state *st);
void app_edit_move(app_state *st, int delta); /* by code points; INT_MIN/INT_MAX for Home/End */
void app_edit_commit(app_state *st);          /* Enter */
void app_edit_cancel(app_state *st);          /* Esc: restore the sentence */
void app_edit_select_all(app_state *st);      /* Ctrl+A: typing replaces it, Backspace removes it */

#endif
