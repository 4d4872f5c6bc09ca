#include "safetensors.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "utf8.h"

/* The dtype names of the format, in st_dtype's order, with their sizes. */
static const struct {
    const char *name;
    size_t size;
} dtypes[] = {
    [ST_F64] = {"F64", 8},
    [ST_F32] = {"F32", 4},
    [ST_F16] = {"F16", 2},
    [ST_BF16] = {"BF16", 2},
    [ST_F8_E5M2] = {"F8_E5M2", 1},
    [ST_F8_E4M3] = {"F8_E4M3", 1},
    [ST_I64] = {"I64", 8},
    [ST_I32] = {"I32", 4},
    [ST_I16] = {"I16", 2},
    [ST_I8] = {"I8", 1},
    [ST_U64] = {"U64", 8},
    [ST_U32] = {"U32", 4},
    [ST_U16] = {"U16", 2},
    [ST_U8] = {"U8", 1},
    [ST_BOOL] = {"BOOL", 1},
};

#define PREFIX "transformer."
#define NAME_SHOWN 160 /* bytes of a key quoted in a message at most */

size_t st_dtype_size(st_dtype d) {
    return d < ST_OTHER ? dtypes[d].size : 0;
}

bool st_dtype_is_float(st_dtype d) {
    return d == ST_F64 || d == ST_F32 || d == ST_F16 || d == ST_BF16;
}

/* A key from the file as text that cannot act on a terminal. */
static const char *visible(char *out, size_t cap, const char *s) {
    utf8_visible(out, cap, s, strlen(s));
    return out;
}

/* ---- the header's JSON: just what a safetensors header holds ---------- */

typedef struct {
    const char *s; /* the header */
    size_t len, at;
    const char *why; /* what was expected where parsing stopped */
} jreader;

static void skip_ws(jreader *r) {
    while (r->at < r->len && strchr(" \t\r\n", r->s[r->at]) && r->s[r->at] != '\0') r->at++;
}

static bool expect(jreader *r, char c, const char *why) {
    skip_ws(r);
    if (r->at < r->len && r->s[r->at] == c) {
        r->at++;
        return true;
    }
    r->why = why;
    return false;
}

static int hex4(const char *s) {
    int v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                             : c >= 'A' && c <= 'F'   ? c - 'A' + 10
                                                                      : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

/* A JSON string, decoded to UTF-8 into a malloc'd *out (NULL: only skipped).
 * Returns false on a malformed string (r->why says what) or no memory. */
static bool read_string(jreader *r, char **out) {
    if (!expect(r, '"', "a string in double quotes")) return false;
    size_t start = r->at;
    char *buf = out ? malloc(r->len - start + 1) : NULL;
    if (out && !buf) return r->why = "memory for a key", false;
    size_t n = 0;
    while (r->at < r->len) {
        unsigned char c = (unsigned char)r->s[r->at];
        if (c == '"') break;
        if (c < 0x20) goto bad;
        if (c != '\\') {
            if (buf) buf[n++] = (char)c;
            r->at++;
            continue;
        }
        if (r->at + 1 >= r->len) goto bad;
        char e = r->s[r->at + 1];
        const char *plain = strchr("\"\\/bfnrt", e);
        if (plain && e != '\0') {
            static const char to[] = "\"\\/\b\f\n\r\t";
            if (buf) buf[n++] = to[plain - "\"\\/bfnrt"];
            r->at += 2;
            continue;
        }
        if (e != 'u' || r->at + 6 > r->len) goto bad;
        int cp = hex4(r->s + r->at + 2);
        r->at += 6;
        if (cp >= 0xD800 && cp <= 0xDBFF && r->at + 6 <= r->len && r->s[r->at] == '\\' &&
            r->s[r->at + 1] == 'u') {
            int lo = hex4(r->s + r->at + 2);
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                r->at += 6;
            }
        }
        char enc[4];
        int k = cp < 0 ? 0 : utf8_encode((uint32_t)cp, enc);
        if (k == 0 || cp == 0) goto bad; // a lone surrogate or \u0000: not a name
        if (buf) memcpy(buf + n, enc, (size_t)k), n += (size_t)k;
    }
    if (r->at >= r->len) goto bad;
    r->at++; // the closing quote
    if (buf) {
        buf[n] = '\0';
        if (utf8_find_invalid(buf, n) != (size_t)-1) {
            free(buf);
            return r->why = "a key in UTF-8", false;
        }
        *out = buf;
    }
    return true;
bad:
    free(buf);
    r->why = "a well-formed string";
    return false;
}

/* A non-negative whole number: digits only (no sign, fraction or exponent),
 * read as an integer, at most 2^63 - 1. */
static bool read_uint(jreader *r, uint64_t *v) {
    skip_ws(r);
    size_t start = r->at;
    uint64_t x = 0;
    while (r->at < r->len && r->s[r->at] >= '0' && r->s[r->at] <= '9') {
        unsigned d = (unsigned)(r->s[r->at] - '0');
        if (x > (UINT64_C(0x7FFFFFFFFFFFFFFF) - d) / 10) return r->why = "a number below 2^63", false;
        x = x * 10 + d;
        r->at++;
    }
    if (r->at == start || (r->at - start > 1 && r->s[start] == '0') ||
        (r->at < r->len && strchr(".eE-+", r->s[r->at]) && r->s[r->at] != '\0'))
        return r->why = "a whole number (digits only)", false;
    *v = x;
    return true;
}

/* Skips any JSON value (nested at most 64 deep). */
static bool skip_value(jreader *r, int depth) {
    skip_ws(r);
    if (depth > 64) return r->why = "values nested at most 64 deep", false;
    if (r->at >= r->len) return r->why = "a value", false;
    char c = r->s[r->at];
    if (c == '"') return read_string(r, NULL);
    if (c == '{' || c == '[') {
        char close = c == '{' ? '}' : ']';
        r->at++;
        skip_ws(r);
        if (r->at < r->len && r->s[r->at] == close) return r->at++, true;
        for (;;) {
            if (c == '{' && !(read_string(r, NULL) && expect(r, ':', "':' after a key"))) return false;
            if (!skip_value(r, depth + 1)) return false;
            skip_ws(r);
            if (r->at < r->len && r->s[r->at] == ',') {
                r->at++;
                continue;
            }
            return expect(r, close, c == '{' ? "',' or '}'" : "',' or ']'");
        }
    }
    static const char *const words[] = {"true", "false", "null"};
    for (int i = 0; i < 3; i++) {
        size_t n = strlen(words[i]);
        if (r->len - r->at >= n && memcmp(r->s + r->at, words[i], n) == 0) return r->at += n, true;
    }
    size_t start = r->at;
    while (r->at < r->len && strchr("0123456789+-.eE", r->s[r->at]) && r->s[r->at] != '\0') r->at++;
    if (r->at == start) return r->why = "a value", false;
    return true;
}

/* [n, n, ...] of whole numbers into v (at most max); *count gets how many. */
static bool read_uint_array(jreader *r, uint64_t *v, int max, int *count) {
    *count = 0;
    if (!expect(r, '[', "'[' (an array of whole numbers)")) return false;
    skip_ws(r);
    if (r->at < r->len && r->s[r->at] == ']') return r->at++, true;
    for (;;) {
        uint64_t x;
        if (!read_uint(r, &x)) return false;
        if (*count == max) return r->why = "an array that is not as long", false;
        v[(*count)++] = x;
        skip_ws(r);
        if (r->at < r->len && r->s[r->at] == ',') {
            r->at++;
            continue;
        }
        return expect(r, ']', "',' or ']'");
    }
}

/* ---- the table ------------------------------------------------------- */

static attn_status parse_fail(st_file *f, attn_err *err, attn_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* A refused header: the tensors read so far and the shown name go. */
static void drop_tensors(st_file *f) {
    for (size_t i = 0; i < f->count; i++) free(f->tensors[i].name);
    free(f->tensors);
    free(f->shown);
    f->tensors = NULL;
    f->shown = NULL;
    f->count = 0;
}

/* parse_fail by message id: "FILE: message", FILE said before it in every
 * language; the arguments are formatted before f's tensors are freed. */
static attn_status parse_fail_id(st_file *f, attn_err *err, attn_status code, attn_msg id, ...) {
    char shown[NAME_SHOWN];
    visible(shown, sizeof shown, f->shown ? f->shown : "the file");
    attn_err mine;
    va_list ap;
    va_start(ap, id);
    attn_fail_vat(&mine, code, shown, id, ap);
    va_end(ap);
    drop_tensors(f);
    if (err) *err = mine;
    return code;
}

static attn_status parse_fail(st_file *f, attn_err *err, attn_status code, const char *fmt, ...) {
    char msg[sizeof((attn_err *)0)->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char shown[NAME_SHOWN];
    visible(shown, sizeof shown, f->shown ? f->shown : "the file");
    drop_tensors(f);
    return attn_fail(err, code, "%s: %s", shown, msg);
}

/* What an entry held besides its values. */
typedef struct {
    bool dtype, shape, offsets; /* present */
    bool too_many_dims;         /* a shape over ST_MAX_RANK dimensions */
} entry_fields;

/* One field of a tensor's entry (the key already read) into t. */
static bool read_field(jreader *r, const char *field, st_tensor *t, entry_fields *seen) {
    if (strcmp(field, "dtype") == 0) {
        char *name = NULL;
        if (!read_string(r, &name)) return false;
        t->dtype = ST_OTHER;
        for (int d = 0; d < ST_OTHER; d++)
            if (strcmp(name, dtypes[d].name) == 0) t->dtype = (st_dtype)d;
        snprintf(t->dtype_name, sizeof t->dtype_name, "%s", name);
        utf8_trim_partial(t->dtype_name);
        free(name);
        return seen->dtype = true;
    }
    if (strcmp(field, "shape") == 0) {
        if (read_uint_array(r, t->shape, ST_MAX_RANK, &t->rank)) return seen->shape = true;
        seen->too_many_dims = strcmp(r->why, "an array that is not as long") == 0;
        return false;
    }
    if (strcmp(field, "data_offsets") == 0) {
        uint64_t off[2];
        int n = 0;
        if (!read_uint_array(r, off, 2, &n)) return false;
        if (n != 2) return r->why = "data_offsets as [begin, end]", false;
        t->begin = off[0];
        t->end = off[1];
        return seen->offsets = true;
    }
    return skip_value(r, 1);
}

/* One tensor's entry {"dtype", "shape", "data_offsets"} into t. Returns
 * false when it is not JSON (r->why says why); *seen tells what it held. */
static bool read_entry(jreader *r, st_tensor *t, entry_fields *seen) {
    memset(seen, 0, sizeof *seen);
    if (!expect(r, '{', "'{' (a tensor's dtype, shape and data_offsets)")) return false;
    skip_ws(r);
    if (r->at < r->len && r->s[r->at] == '}') return r->at++, true;
    for (;;) {
        char *field = NULL;
        if (!read_string(r, &field)) return false;
        bool ok = expect(r, ':', "':' after a key") && read_field(r, field, t, seen);
        free(field);
        if (!ok) return false;
        skip_ws(r);
        if (r->at < r->len && r->s[r->at] == ',') {
            r->at++;
            continue;
        }
        return expect(r, '}', "',' or '}'");
    }
}

/* Element count and byte size of t agree with its offsets; inside data_len. */
static attn_status check_extent(st_file *f, const st_tensor *t, uint64_t data_len, attn_err *err) {
    char k[NAME_SHOWN];
    if (t->begin > t->end || t->end > data_len)
        return parse_fail_id(f, err, ATTN_ERR_PARSE, ATTN_MSG_ST_EXTENT,
                             visible(k, sizeof k, t->name), (unsigned long long)t->begin,
                             (unsigned long long)t->end, (unsigned long long)data_len);
    size_t size = st_dtype_size(t->dtype);
    if (size == 0) return ATTN_OK; // a dtype the format does not define: its size cannot be checked
    uint64_t need = size;
    for (int i = 0; i < t->rank; i++) {
        if (t->shape[i] != 0 && need > UINT64_MAX / t->shape[i]) need = UINT64_MAX;
        else need *= t->shape[i];
    }
    if (need != t->end - t->begin)
        return parse_fail_id(f, err, ATTN_ERR_PARSE, ATTN_MSG_ST_SIZE,
                             visible(k, sizeof k, t->name), t->dtype_name, t->rank,
                             (unsigned long long)need, (unsigned long long)t->begin,
                             (unsigned long long)t->end, (unsigned long long)(t->end - t->begin));
    return ATTN_OK;
}

static int by_begin(const void *a, const void *b) {
    const st_tensor *x = *(const st_tensor *const *)a, *y = *(const st_tensor *const *)b;
    return x->begin < y->begin ? -1 : x->begin > y->begin ? 1
                                                          : (x->end > y->end) - (x->end < y->end);
}

/* No two tensors with data share a byte. */
static attn_status check_overlaps(st_file *f, attn_err *err) {
    const st_tensor **order = malloc((f->count ? f->count : 1) * sizeof *order);
    if (!order) return parse_fail(f, err, ATTN_ERR_NOMEM, "out of memory for its table of tensors.");
    size_t n = 0;
    for (size_t i = 0; i < f->count; i++)
        if (f->tensors[i].end > f->tensors[i].begin) order[n++] = &f->tensors[i];
    qsort(order, n, sizeof *order, by_begin);
    for (size_t i = 1; i < n; i++) {
        if (order[i]->begin < order[i - 1]->end) {
            char a[NAME_SHOWN], b[NAME_SHOWN];
            visible(a, sizeof a, order[i]->name);
            visible(b, sizeof b, order[i - 1]->name);
            free(order);
            return parse_fail_id(f, err, ATTN_ERR_PARSE, ATTN_MSG_ST_OVERLAP,
                                 a, b);
        }
    }
    free(order);
    return ATTN_OK;
}

/* The header's object: every key but __metadata__ a tensor. */
static attn_status read_table(st_file *f, jreader *r, uint64_t data_len, attn_err *err) {
    size_t cap = 0;
    if (!expect(r, '{', "'{' (a JSON object)")) goto not_json;
    skip_ws(r);
    if (r->at < r->len && r->s[r->at] == '}') r->at++;
    else
        for (;;) {
            char *key = NULL;
            if (!read_string(r, &key)) goto not_json;
            if (!expect(r, ':', "':' after a key")) {
                free(key);
                goto not_json;
            }
            for (size_t i = 0; i < f->count; i++)
                if (strcmp(f->tensors[i].name, key) == 0) {
                    char k[NAME_SHOWN];
                    visible(k, sizeof k, key);
                    free(key);
                    return parse_fail_id(f, err, ATTN_ERR_PARSE, ATTN_MSG_ST_NAME_TWICE, k);
                }
            if (strcmp(key, "__metadata__") == 0) {
                free(key);
                if (!skip_value(r, 1)) goto not_json;
            } else {
                if (f->count == cap) {
                    size_t ncap = cap ? cap * 2 : 64;
                    st_tensor *grown = realloc(f->tensors, ncap * sizeof *grown);
                    if (!grown) {
                        free(key);
                        return parse_fail(f, err, ATTN_ERR_NOMEM, "out of memory for its table.");
                    }
                    f->tensors = grown;
                    cap = ncap;
                }
                st_tensor *t = &f->tensors[f->count];
                memset(t, 0, sizeof *t);
                t->name = key;
                f->count++;
                entry_fields seen;
                char k[NAME_SHOWN];
                if (!read_entry(r, t, &seen) && !seen.too_many_dims) goto not_json;
                if (seen.too_many_dims)
                    return parse_fail_id(f, err, ATTN_ERR_PARSE, ATTN_MSG_ST_RANK,
                                         visible(k, sizeof k, key), ST_MAX_RANK);
                if (!seen.dtype || !seen.shape || !seen.offsets)
                    return parse_fail_id(f, err, ATTN_ERR_PARSE, ATTN_MSG_ST_FIELD, visible(k, sizeof k, key),
                                         !seen.dtype ? "dtype" : !seen.shape ? "shape"
                                                                             : "data_offsets");
                attn_status st = check_extent(f, t, data_len, err);
                if (st != ATTN_OK) return st;
            }
            skip_ws(r);
            if (r->at < r->len && r->s[r->at] == ',') {
                r->at++;
                continue;
            }
            if (!expect(r, '}', "',' or '}'")) goto not_json;
            break;
        }
    skip_ws(r); // the format pads the header with spaces
    if (r->at != r->len) {
        r->why = "nothing after the object";
        goto not_json;
    }
    return check_overlaps(f, err);
not_json:
    return parse_fail_id(f, err, ATTN_ERR_PARSE, ATTN_MSG_ST_HEADER_JSON,
                         r->at, r->why ? r->why : "JSON");
}

attn_status st_file_parse(st_file *f, const unsigned char *bytes, size_t size, const char *shown,
                          attn_err *err) {
    memset(f, 0, sizeof *f);
    f->shown = strdup(shown ? shown : "the file");
    if (!f->shown) return attn_fail(err, ATTN_ERR_NOMEM, "Out of memory opening a safetensors file.");
    if (size < 8)
        return parse_fail_id(f, err, ATTN_ERR_PARSE, ATTN_MSG_ST_TOO_SHORT,
                             size);
    uint64_t hlen = 0;
    for (int i = 7; i >= 0; i--) hlen = hlen << 8 | bytes[i];
    if (hlen > ST_HEADER_MAX)
        return parse_fail_id(f, err, ATTN_ERR_PARSE, ATTN_MSG_ST_HEADER_BIG,
                             (unsigned long long)hlen,
                             ST_HEADER_MAX >> 20);
    if (hlen > size - 8)
        return parse_fail_id(f, err, ATTN_ERR_PARSE, ATTN_MSG_ST_HEADER_SHORT,
                             (unsigned long long)hlen, size - 8);
    jreader r = {(const char *)bytes + 8, (size_t)hlen, 0, NULL};
    attn_status st = read_table(f, &r, size - 8 - hlen, err);
    if (st != ATTN_OK) return st;
    for (size_t i = 0; i < f->count; i++) {
        st_tensor *t = &f->tensors[i];
        t->data = bytes + 8 + hlen + t->begin;
        t->count = 1;
        for (int d = 0; d < t->rank; d++) t->count *= t->shape[d]; // bounded: size checked above
        if (st_dtype_size(t->dtype) == 0) t->count = 0;            // unknown dtype: no elements read
    }
    f->bytes = bytes;
    f->size = size;
    attn_err_clear(err);
    return ATTN_OK;
}

/* What st_file_provide handed over, until st_file_open takes it. */
static struct {
    char *path;
    unsigned char *bytes;
    size_t size;
} provided;

void st_file_provide(const char *path, unsigned char *bytes, size_t size) {
    free(provided.path);
    free(provided.bytes);
    provided.path = bytes && path ? strdup(path) : NULL;
    provided.bytes = provided.path ? bytes : NULL;
    provided.size = provided.path ? size : 0;
    if (bytes && !provided.path) free(bytes); // no memory for the name: nothing is held
}

attn_status st_file_open(st_file *f, const char *path, attn_err *err) {
    memset(f, 0, sizeof *f);
    char shown[NAME_SHOWN];
    visible(shown, sizeof shown, path);
    if (provided.path && strcmp(provided.path, path) == 0) { // bytes already in memory: taken, not copied
        unsigned char *bytes = provided.bytes;
        size_t size = provided.size;
        free(provided.path);
        memset(&provided, 0, sizeof provided);
        attn_status st = st_file_parse(f, bytes ? bytes : (const unsigned char *)"", size, path, err);
        if (st != ATTN_OK) free(bytes);
        else f->owned = true;
        return st;
    }
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_ST_OPEN, shown, errno);
    struct stat sb;
    attn_status st = ATTN_OK;
    void *map = MAP_FAILED;
    if (fstat(fd, &sb) != 0) {
        st = attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_ST_READ, shown, errno);
        goto done;
    }
    if (!S_ISREG(sb.st_mode)) {
        attn_msg kind = S_ISDIR(sb.st_mode) ? ATTN_MSG_KIND_FOLDER : S_ISFIFO(sb.st_mode) ? ATTN_MSG_KIND_FIFO
                                                                 : S_ISSOCK(sb.st_mode)   ? ATTN_MSG_KIND_SOCKET
                                                                                          : ATTN_MSG_KIND_DEVICE;
        st = attn_fail_id(err, ATTN_ERR_IO, ATTN_MSG_ST_NOT_REGULAR, shown, (int)kind);
        goto done;
    }
    size_t size = (size_t)sb.st_size;
    if (size > 0) {
        map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            st = attn_fail_id(err, errno == ENOMEM ? ATTN_ERR_NOMEM : ATTN_ERR_IO, ATTN_MSG_ST_MAP, shown, errno);
            goto done;
        }
    }
    st = st_file_parse(f, map == MAP_FAILED ? (const unsigned char *)"" : map, size, path, err);
    if (st == ATTN_OK && map != MAP_FAILED) {
        f->mapped = true;
        map = MAP_FAILED; // f owns it now
    }
done:
    if (map != MAP_FAILED) munmap(map, sb.st_size);
    close(fd);
    return st;
}

void st_file_free(st_file *f) {
    if (!f) return;
    for (size_t i = 0; i < f->count; i++) free(f->tensors[i].name);
    free(f->tensors);
    free(f->shown);
    if (f->mapped && f->size > 0) munmap((void *)f->bytes, f->size);
    if (f->owned) free((void *)f->bytes);
    memset(f, 0, sizeof *f);
}

static const st_tensor *find_exact(const st_file *f, const char *name) {
    for (size_t i = 0; i < f->count; i++)
        if (strcmp(f->tensors[i].name, name) == 0) return &f->tensors[i];
    return NULL;
}

const st_tensor *st_file_find(const st_file *f, const char *name) {
    if (!f || !name) return NULL;
    const st_tensor *t = find_exact(f, name);
    if (t) return t;
    size_t plen = strlen(PREFIX);
    if (strncmp(name, PREFIX, plen) == 0) return find_exact(f, name + plen);
    for (size_t i = 0; i < f->count; i++) {
        const char *n = f->tensors[i].name;
        if (strncmp(n, PREFIX, plen) == 0 && strcmp(n + plen, name) == 0) return &f->tensors[i];
    }
    return NULL;
}

attn_status st_file_require(const st_file *f, const char *name, const st_tensor **out, attn_err *err) {
    *out = st_file_find(f, name);
    if (*out) return ATTN_OK;
    char a[NAME_SHOWN], b[NAME_SHOWN];
    return attn_fail_id(err, ATTN_ERR_SHAPE, ATTN_MSG_ST_NO_TENSOR,
                        visible(a, sizeof a, f && f->shown ? f->shown : "the file"),
                        visible(b, sizeof b, name), PREFIX, b);
}

double st_half_to_double(uint16_t bits) {
    int sign = bits >> 15, exp = (bits >> 10) & 0x1F, mant = bits & 0x3FF;
    double v;
    if (exp == 0x1F) v = mant ? NAN : INFINITY;
    else if (exp == 0) v = ldexp((double)mant, -24); // subnormal (or zero)
    else v = ldexp((double)(mant | 0x400), exp - 25);
    return sign ? -v : v;
}

double st_bfloat16_to_double(uint16_t bits) {
    uint32_t u = (uint32_t)bits << 16;
    float x;
    memcpy(&x, &u, sizeof x);
    return (double)x;
}

static double element(const st_tensor *t, uint64_t i) {
    const unsigned char *p = t->data + i * st_dtype_size(t->dtype);
    uint64_t u = 0;
    for (size_t b = st_dtype_size(t->dtype); b-- > 0;) u = u << 8 | p[b]; // little-endian, any alignment
    switch (t->dtype) {
    case ST_F16: return st_half_to_double((uint16_t)u);
    case ST_BF16: return st_bfloat16_to_double((uint16_t)u);
    case ST_F32: {
        uint32_t w = (uint32_t)u;
        float x;
        memcpy(&x, &w, sizeof x);
        return x;
    }
    default: {
        double x;
        memcpy(&x, &u, sizeof x);
        return x;
    }
    }
}

attn_status st_tensor_to_double(const st_file *f, const st_tensor *t, uint64_t first, uint64_t n,
                                double *out, attn_err *err) {
    char a[NAME_SHOWN], b[NAME_SHOWN];
    visible(a, sizeof a, f && f->shown ? f->shown : "the file");
    visible(b, sizeof b, t->name);
    if (!st_dtype_is_float(t->dtype))
        return attn_fail_id(err, ATTN_ERR_PARSE, ATTN_MSG_ST_DTYPE,
                            a, b, t->dtype_name);
    if (first > t->count || n > t->count - first)
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_ST_ELEMENTS,
                            a, b, (unsigned long long)t->count,
                            (unsigned long long)first, (unsigned long long)(first + n));
    for (uint64_t i = 0; i < n; i++) out[i] = element(t, first + i);
    return ATTN_OK;
}

attn_status st_tensor_row_to_double(const st_file *f, const st_tensor *t, uint64_t row, double *out,
                                    attn_err *err) {
    uint64_t rows = t->rank > 0 ? t->shape[0] : 1;
    uint64_t cols = rows ? t->count / rows : 0;
    if (row >= rows) {
        char a[NAME_SHOWN], b[NAME_SHOWN];
        return attn_fail_id(err, ATTN_ERR_RANGE, ATTN_MSG_ST_ROWS,
                            visible(a, sizeof a, f && f->shown ? f->shown : "the file"),
                            visible(b, sizeof b, t->name), (unsigned long long)rows, (unsigned long long)row);
    }
    return st_tensor_to_double(f, t, row * cols, cols, out, err);
}
