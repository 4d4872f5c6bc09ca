/* app_view.h — floor 4 of src/app: what the state shows, derived from it:
 * the scene to draw, the matrix to copy, the command line that reproduces
 * the view. Calls down only. */
#ifndef APP_VIEW_H
#define APP_VIEW_H

#include "app_lesson.h"

/* Fills s from st (pointers borrowed from st; the badge text is written to
 * badge, cap bytes, which s points at). A stale narrative is rebuilt first. */
void app_scene(app_state *st, viz_scene *s, char *badge, size_t cap);
/* The TSV of the matrix under the hover (or the step's result), caller frees. */
char *app_matrix_tsv(const app_state *st, char *what, size_t what_cap);
/* The attnviz command line that reproduces the current view, caller frees. */
char *app_command_line(const app_state *st);
/* The query of a link into the browser build that opens the current view
 * (lesson=NAME&lang=…&page=…&step=…&theme=…, URL-encoded; lesson and page
 * only on a lesson's page), as web/attnviz-page.js parses it. Caller frees;
 * NULL when out of memory. */
char *app_view_query(const app_state *st);

#endif
