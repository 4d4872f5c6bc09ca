/* test_app_editor.c — the sentence editor on its own, with no app state:
 * bytes, code points, the selection, the composition and the backup. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "test_common.h"
#include "app_editor.h"

/* 它 and 鸟 are three bytes each in UTF-8. */
static void test_cursor_moves_by_code_points(void **state) {
    (void)state;
    app_editor e = {0};
    assert_true(app_editor_begin(&e, "它a鸟", 64));
    assert_true(e.active);
    assert_int_equal(e.len, 7);
    assert_int_equal(e.cursor, 7); // at the end
    assert_int_equal(e.sel_anchor, -1);
    app_editor_move(&e, -1);
    assert_int_equal(e.cursor, 4); // before 鸟
    app_editor_move(&e, -1);
    assert_int_equal(e.cursor, 3); // before a
    app_editor_move(&e, INT_MIN);
    assert_int_equal(e.cursor, 0);
    app_editor_move(&e, 1);
    assert_int_equal(e.cursor, 3);
    app_editor_move(&e, INT_MAX);
    assert_int_equal(e.cursor, 7);
    assert_false(app_editor_begin(&e, "other", 64)); // already editing: nothing changes
    assert_string_equal(e.text, "它a鸟");
    app_editor_free(&e);
    app_editor_free(NULL);
}

static void test_erase_and_insert(void **state) {
    (void)state;
    app_editor e = {0};
    assert_true(app_editor_begin(&e, "它a鸟", 64));
    assert_true(app_editor_backspace(&e)); // the whole 鸟
    assert_string_equal(e.text, "它a");
    assert_int_equal(e.cursor, 4);
    app_editor_move(&e, INT_MIN);
    assert_false(app_editor_backspace(&e)); // nothing before the cursor
    assert_true(app_editor_delete(&e));     // the whole 它
    assert_string_equal(e.text, "a");
    assert_int_equal(e.cursor, 0);
    assert_int_equal(app_editor_insert(&e, "飞"), APP_EDITOR_CHANGED);
    assert_string_equal(e.text, "飞a");
    assert_int_equal(e.cursor, 3);
    assert_int_equal(app_editor_insert(&e, "\xE9"), APP_EDITOR_SAME); // a cut code point is not text
    assert_int_equal(app_editor_insert(&e, ""), APP_EDITOR_SAME);
    app_editor_move(&e, INT_MAX);
    assert_false(app_editor_delete(&e)); // nothing after the cursor
    assert_string_equal(e.text, "飞a");
    app_editor_free(&e);
}

static void test_selection_is_replaced_or_removed(void **state) {
    (void)state;
    app_editor e = {0};
    assert_true(app_editor_begin(&e, "abc", 64));
    app_editor_select_all(&e);
    assert_int_equal(e.sel_anchor, 0);
    assert_int_equal(e.cursor, 3);
    assert_int_equal(app_editor_insert(&e, "它"), APP_EDITOR_CHANGED); // typing replaces it
    assert_string_equal(e.text, "它");
    assert_int_equal(e.sel_anchor, -1);
    app_editor_select_all(&e);
    assert_true(app_editor_backspace(&e)); // Backspace removes it
    assert_string_equal(e.text, "");
    assert_int_equal(e.cursor, 0);
    assert_false(app_editor_begin(&e, "xyz", 64)); // still active
    app_editor_select_all(&e);
    app_editor_move(&e, -1); // moving drops the selection
    assert_int_equal(e.sel_anchor, -1);
    app_editor_free(&e);
}

static void test_full_keeps_the_text(void **state) {
    (void)state;
    app_editor e = {0};
    assert_true(app_editor_begin(&e, "ab", 4));
    assert_int_equal(app_editor_insert(&e, "它"), APP_EDITOR_FULL); // 2 + 3 bytes > 4
    assert_string_equal(e.text, "ab");
    assert_int_equal(app_editor_insert(&e, "cd"), APP_EDITOR_CHANGED); // exactly 4
    assert_string_equal(e.text, "abcd");
    app_editor_free(&e);
}

static void test_composition_and_backup(void **state) {
    (void)state;
    app_editor e = {0};
    app_editor_compose(&e, "niao");
    assert_string_equal(e.composition, ""); // not editing: ignored
    assert_true(app_editor_begin(&e, "它飞", 64));
    app_editor_compose(&e, "niao");
    assert_string_equal(e.composition, "niao");
    assert_string_equal(e.text, "它飞"); // a composition is not text yet
    assert_int_equal(app_editor_insert(&e, "鸟"), APP_EDITOR_CHANGED);
    assert_string_equal(e.composition, ""); // committed: it ends
    app_editor_compose(&e, "x");
    app_editor_end(&e);
    assert_false(e.active);
    assert_string_equal(e.composition, "");
    assert_string_equal(e.text, "它飞鸟"); // kept until the next begin
    char *b = app_editor_take_backup(&e);
    assert_string_equal(b, "它飞");          // what Esc gives back
    assert_null(app_editor_take_backup(&e)); // handed over once
    free(b);
    assert_true(app_editor_begin(&e, e.text, 64)); // its own buffer as the new text
    assert_string_equal(e.text, "它飞鸟");
    assert_string_equal(e.backup, "它飞鸟");
    app_editor_free(&e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cursor_moves_by_code_points),
        cmocka_unit_test(test_erase_and_insert),
        cmocka_unit_test(test_selection_is_replaced_or_removed),
        cmocka_unit_test(test_full_keeps_the_text),
        cmocka_unit_test(test_composition_and_backup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
