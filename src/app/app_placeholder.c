/* app_placeholder.c — keeps the attn_app library non-empty until the app lands. */
int app_placeholder_(void);
int app_placeholder_(void) { return 0; }
