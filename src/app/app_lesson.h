/* app_lesson.h — floor 3 of src/app: a lesson in the window (its pages, the
 * language pair, predict-before-reveal, reloading). Calls down only:
 * app_model.h (a page may name a model) and app.h. */
#ifndef APP_LESSON_H
#define APP_LESSON_H

#include "app_model.h"

/* Opens path (and pair_path, the same lesson in the other language, when not
 * NULL) and shows the first page, or page_id. The language follows the lesson.
 * path is read once (it may be a pipe); pair_path, which attnviz found, only
 * when it is a regular file. */
attn_status app_lesson_open(app_state *st, const char *path, const char *pair_path, const char *page_id,
                            attn_err *err);
/* Shows page i: its sentence, settings, weights, step, highlight, question. */
void app_lesson_goto(app_state *st, int page);
/* N / P: next or previous page (no-op at the ends or without a lesson). */
void app_lesson_turn(app_state *st, int delta);
/* L: the other language, on the paired page. */
void app_switch_lang(app_state *st);
/* Rebuilds the narrative of the page from its text, its {references} on the
 * current trace, what the learner has answered and the tokens outside the
 * vocabulary; it is then fresh. */
void app_lesson_refresh_narrative(app_state *st);
/* Page `page`'s narrative and title as far as the current trace can say
 * (its references to a model or to another sentence read "—"): the text
 * the window warms before the page is shown (app_ui_warm). Malloc'd (the
 * caller frees it), or NULL without a lesson or such a page. */
char *app_lesson_narrative_at(const app_state *st, int page, const char **title);
/* The narrative, rebuilt first when stale (what the scene and scripts read). */
const char *app_lesson_narrative(app_state *st);
/* true when the page offers its own comparison (@compare with settings). */
bool app_page_compares_config(const app_state *st);
/* A click on token during a question: records the guess and reveals. */
void app_lesson_guess(app_state *st, int token);

/* Shows the page's @try sentence i (a click on its suggestion): the same as
 * typing it into the sentence bar. */
void app_lesson_try(app_state *st, int i);

/* The page's @try suggestions as their chips say them (pointers into st),
 * into out (VIZ_MAX_TRIES); returns how many. */
int app_lesson_tries(app_state *st, const char **out);
/* Reloads a lesson whose file changed on disk, keeping the page. Returns true
 * when something was reloaded. Only regular files are watched and reread: a
 * pipe or FIFO was read once, at open. */
bool app_lesson_reload(app_state *st);

#endif
