/* test_ref.h — what the reference tests share: reading a checked-in file of
 * tests/data (written by a NumPy or PyTorch script there) and comparing a
 * matrix with it within a relative tolerance. Header-only, for cmocka tests. */
#ifndef TEST_REF_H
#define TEST_REF_H

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "test_common.h"
#include "fileio.h"

/* The text of name: a path, or a file of tests/data when relative. The
 * caller free()s it; a missing file fails the test. */
static inline char *ref_text(const char *name, size_t *len) {
    char path[1024], *text = NULL;
    size_t n = 0;
    attn_err err;
    if (name[0] == '/') snprintf(path, sizeof path, "%s", name);
    else snprintf(path, sizeof path, "%s/%s", ATTN_TEST_DATA, name);
    if (attn_read_file(path, 1u << 24, &text, &n, &err) != ATTN_OK) fail_msg("%s", err.msg);
    if (len) *len = n;
    return text;
}

/* name parsed as JSON (the caller cJSON_Delete()s it). */
static inline cJSON *ref_json(const char *name) {
    char *text = ref_text(name, NULL);
    cJSON *root = cJSON_Parse(text);
    free(text);
    if (!root) fail_msg("%s: not JSON", name);
    return root;
}

/* v, a (rows, cols) matrix, against ref: nested arrays, or one flat array
 * for a vector (rows 1); null stands for −∞ (a masked score). Each value
 * within tol·max(1, |ref|), else the test fails naming what and the cell. */
static inline void ref_compare(const char *what, const double *v, int rows, int cols, const cJSON *ref, double tol) {
    if (!ref) fail_msg("%s: no reference", what);
    bool flat = !cJSON_IsArray(cJSON_GetArrayItem(ref, 0));
    int r = flat ? 1 : cJSON_GetArraySize(ref), c = flat ? cJSON_GetArraySize(ref) : cJSON_GetArraySize(cJSON_GetArrayItem(ref, 0));
    if (r != rows || c != cols) fail_msg("%s: %dx%d, the reference %dx%d", what, rows, cols, r, c);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            const cJSON *cell = flat ? cJSON_GetArrayItem(ref, j) : cJSON_GetArrayItem(cJSON_GetArrayItem(ref, i), j);
            double a = v[(size_t)i * cols + j];
            if (cJSON_IsNull(cell)) {
                if (!(isinf(a) && a < 0)) fail_msg("%s[%d][%d] = %.17g, the reference −∞ (masked)", what, i, j, a);
                continue;
            }
            double b = cell->valuedouble;
            if (!(fabs(a - b) <= tol * (fabs(b) > 1 ? fabs(b) : 1)))
                fail_msg("%s[%d][%d] = %.17g, the reference %.17g", what, i, j, a, b);
        }
}

#endif
