/* test_fileio.c — util's rules for the files attnviz writes and reads (what
 * is replaced atomically, what is written in place, links followed, FIFOs
 * never waited on, a name per press), the clean-up a signal runs, and the
 * helpers messages rely on: strict whole numbers, cuts on character
 * boundaries, the digits of a double, SHA-256. */
#define _GNU_SOURCE /* mknod, pipe2 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_common.h"
#include "attn_err.h"
#include "cleanup.h"
#include "fileio.h"
#include "numparse.h"
#include "sha256.h"
#include "strbuf.h"
#include "utf8.h"

/* ---- helpers ---- */

static char *temp_dir(void) {
    char *d = strdup("/tmp/attnviz-fileio-XXXXXX");
    assert_non_null(mkdtemp(d));
    return d;
}

static char *path_in(const char *dir, const char *name) {
    char *p = malloc(strlen(dir) + strlen(name) + 2);
    sprintf(p, "%s/%s", dir, name);
    return p;
}

static void put(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static char *slurp(const char *path) {
    char *t = NULL;
    size_t n;
    assert_int_equal(attn_read_file(path, 1 << 20, &t, &n, NULL), ATTN_OK);
    return t;
}

static int entries(const char *dir) { // files in dir, to see that no temporary is left
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    assert_int_equal(fscanf(p, "%d", &n), 1);
    pclose(p);
    return n;
}

static void rm_rf(const char *dir) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static ino_t inode(const char *path) {
    struct stat sb;
    assert_int_equal(lstat(path, &sb), 0);
    return sb.st_ino;
}

/* ---- numbers and text ---- */

static void whole_numbers(void **state) {
    (void)state;
    long long v = -1;
    assert_int_equal(attn_parse_int("42", 2, 0, 100, &v), ATTN_INT_OK);
    assert_int_equal(v, 42);
    assert_int_equal(attn_parse_int("-7", 2, -10, 10, &v), ATTN_INT_OK);
    assert_int_equal(v, -7);
    assert_int_equal(attn_parse_int("+7", 2, 0, 10, &v), ATTN_INT_OK);
    // wrapping numbers are out of range, however many digits they have
    assert_int_equal(attn_parse_int("4294967296", 10, 0, INT_MAX, &v), ATTN_INT_RANGE);
    assert_int_equal(attn_parse_int("18446744073709551616", 20, LLONG_MIN, LLONG_MAX, &v), ATTN_INT_RANGE);
    assert_int_equal(attn_parse_int("99999999999999999999999999", 26, 0, 10, &v), ATTN_INT_RANGE);
    assert_int_equal(attn_parse_int("9223372036854775807", 19, LLONG_MIN, LLONG_MAX, &v), ATTN_INT_OK);
    assert_true(v == LLONG_MAX);
    assert_int_equal(attn_parse_int("-9223372036854775808", 20, LLONG_MIN, LLONG_MAX, &v), ATTN_INT_OK);
    assert_true(v == LLONG_MIN);
    assert_int_equal(attn_parse_int("9223372036854775808", 19, LLONG_MIN, LLONG_MAX, &v), ATTN_INT_RANGE);
    v = 5;
    static const char *const junk[] = {"", "-", "1.5", " 1", "1 ", "1e3", "0x10", "abc", "--1"};
    for (size_t i = 0; i < sizeof junk / sizeof *junk; i++)
        assert_int_equal(attn_parse_int(junk[i], strlen(junk[i]), 0, 100, &v), ATTN_INT_NOT_WHOLE);
    assert_int_equal(v, 5);                                                 // untouched on error
    assert_int_equal(attn_parse_int("12345", 3, 0, 1000, &v), ATTN_INT_OK); // only n bytes
    assert_int_equal(v, 123);
}

static void cuts_on_characters(void **state) {
    (void)state;
    const char *s = "它它它"; // 3 bytes each
    assert_int_equal(utf8_cut(s, 9, 9), 9);
    assert_int_equal(utf8_cut(s, 9, 8), 6);
    assert_int_equal(utf8_cut(s, 9, 4), 3);
    assert_int_equal(utf8_cut(s, 9, 2), 0);
    assert_int_equal(utf8_cut("abc", 3, 2), 2);
    assert_int_equal(utf8_drop_partial(s, 9), 9);
    assert_int_equal(utf8_drop_partial(s, 8), 6);
    assert_int_equal(utf8_drop_partial(s, 7), 6);
    assert_int_equal(utf8_drop_partial("ab", 2), 2);
    assert_int_equal(utf8_drop_partial("", 0), 0);
    assert_int_equal(utf8_bom_len("\xEF\xBB\xBFhi", 5), 3);
    assert_int_equal(utf8_bom_len("\xEF\xBB", 2), 0);
    assert_int_equal(utf8_bom_len("hi", 2), 0);
}

static void long_messages_stay_utf8(void **state) {
    (void)state;
    char key[2000] = "";
    for (int i = 0; i < 600; i++) strcat(key, "键"); // 1800 bytes: far past the 511 a message holds
    attn_err err;
    for (int shift = 0; shift < 3; shift++) { // every alignment of the cut against the characters
        attn_fail(&err, ATTN_ERR_PARSE, "%.*s%s is not a key", shift, "ab", key);
        size_t n = strlen(err.msg);
        assert_true(n <= sizeof err.msg - 1 && n >= sizeof err.msg - 4);
        assert_true(utf8_find_invalid(err.msg, n) == (size_t)-1);
    }
    attn_fail(&err, ATTN_ERR_PARSE, "short 键"); // a message that fits is kept whole
    assert_string_equal(err.msg, "short 键");
}

static void doubles_with_every_digit(void **state) {
    (void)state;
    char buf[ATTN_DOUBLE_CHARS];
    assert_string_equal(attn_format_double(buf, 1e18), "1e+18");
    assert_string_equal(attn_format_double(buf, 0.1), "0.1");
    double above = nextafter(1e18, 2e18); // the first value past the limit must not read as the limit
    assert_string_not_equal(attn_format_double(buf, above), "1e+18");
    assert_true(strtod(buf, NULL) == above);
    assert_string_equal(attn_format_double(buf, -INFINITY), "-inf");
}

static void sha256_known_and_streamed(void **state) {
    (void)state;
    char hex[ATTN_SHA256_HEX], streamed[ATTN_SHA256_HEX];
    attn_sha256_hex("abc", 3, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    attn_sha256_hex("", 0, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    size_t n = 1000000;
    char *a = malloc(n);
    memset(a, 'a', n);
    attn_sha256_hex(a, n, hex);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    attn_sha256 s;
    attn_sha256_init(&s);
    for (size_t at = 0, step = 1; at < n; at += step, step = step % 97 + 1) // odd pieces across blocks
        attn_sha256_update(&s, a + at, at + step > n ? n - at : step);
    attn_sha256_final_hex(&s, streamed);
    assert_string_equal(streamed, hex);
    free(a);
}

/* ---- writing ---- */

static void regular_file_replaced_atomically(void **state) {
    (void)state;
    char *dir = temp_dir(), *p = path_in(dir, "run.json");
    put(p, "old");
    chmod(p, 0600);
    ino_t before = inode(p);
    attn_err err;
    assert_int_equal(attn_write_file(p, "new", 3, NULL, &err), ATTN_OK);
    char *t = slurp(p);
    assert_string_equal(t, "new");
    free(t);
    assert_true(inode(p) != before); // a new file renamed over the old one
    struct stat sb;
    stat(p, &sb);
    assert_int_equal(sb.st_mode & 0777, 0600); // it keeps its permissions
    assert_int_equal(entries(dir), 1);         // no temporary left
    // a new path is made 0644, atomically too
    char *q = path_in(dir, "new.json");
    assert_int_equal(attn_write_file(q, "x", 1, NULL, &err), ATTN_OK);
    stat(q, &sb);
    assert_int_equal(sb.st_mode & 0777, 0644);
    // a folder is refused and left alone
    assert_int_equal(attn_write_file(dir, "x", 1, NULL, &err), ATTN_ERR_IO);
    assert_non_null(strstr(err.msg, "Is a directory"));
    rm_rf(dir);
    free(dir), free(p), free(q);
}

static void symlinks_followed(void **state) {
    (void)state;
    char *dir = temp_dir(), *real = path_in(dir, "dotfiles-settings.json"), *link = path_in(dir, "settings.json");
    put(real, "old");
    assert_int_equal(symlink("dotfiles-settings.json", link), 0); // relative, as a dotfile manager makes it
    attn_err err;
    assert_int_equal(attn_write_file(link, "new", 3, NULL, &err), ATTN_OK);
    struct stat sb;
    assert_int_equal(lstat(link, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode)); // the link stays a link
    char *t = slurp(real);
    assert_string_equal(t, "new"); // and its target has the bytes
    free(t);
    // a chain of links, the last one dangling: the file is made where it points
    char *a = path_in(dir, "a"), *b = path_in(dir, "b"), *c = path_in(dir, "c");
    assert_int_equal(symlink(b, a), 0); // absolute
    assert_int_equal(symlink("c", b), 0);
    assert_int_equal(attn_write_file(a, "via", 3, NULL, &err), ATTN_OK);
    assert_int_equal(lstat(a, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    t = slurp(c);
    assert_string_equal(t, "via");
    free(t);
    // a loop is an error, not a hang, and replaces nothing
    char *l1 = path_in(dir, "l1"), *l2 = path_in(dir, "l2");
    assert_int_equal(symlink("l2", l1), 0);
    assert_int_equal(symlink("l1", l2), 0);
    assert_int_equal(attn_write_file(l1, "x", 1, NULL, &err), ATTN_ERR_IO);
    assert_non_null(strstr(err.msg, "symbolic links"));
    assert_int_equal(lstat(l1, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    rm_rf(dir);
    free(dir), free(real), free(link), free(a), free(b), free(c), free(l1), free(l2);
}

static void fifo_written_in_place(void **state) {
    (void)state;
    char *dir = temp_dir(), *f = path_in(dir, "pipe");
    assert_int_equal(mkfifo(f, 0600), 0);
    pid_t reader = fork();
    if (reader == 0) { // reads what arrives and saves it
        char buf[64] = "";
        int fd = open(f, O_RDONLY);
        ssize_t n = read(fd, buf, sizeof buf - 1);
        char *got = path_in(dir, "got");
        FILE *o = fopen(got, "w");
        fwrite(buf, 1, n > 0 ? (size_t)n : 0, o);
        fclose(o);
        _exit(0);
    }
    attn_err err;
    assert_int_equal(attn_write_file(f, "through the pipe", 16, NULL, &err), ATTN_OK);
    int status;
    waitpid(reader, &status, 0);
    struct stat sb;
    assert_int_equal(lstat(f, &sb), 0);
    assert_true(S_ISFIFO(sb.st_mode)); // still the FIFO
    char *got = path_in(dir, "got"), *t = slurp(got);
    assert_string_equal(t, "through the pipe"); // and the reader got the bytes
    free(t);
    assert_int_equal(entries(dir), 2);
    rm_rf(dir);
    free(dir), free(f), free(got);
}

static void device_written_in_place(void **state) {
    (void)state;
    if (geteuid() != 0) skip(); // only root makes device nodes; the catalogue tests /dev/full as anyone
    char *dir = temp_dir(), *null = path_in(dir, "null"), *full = path_in(dir, "full");
    // device nodes of our own, so a mistake would replace these, never /dev's
    assert_int_equal(mknod(null, S_IFCHR | 0666, makedev(1, 3)), 0);
    assert_int_equal(mknod(full, S_IFCHR | 0666, makedev(1, 7)), 0);
    attn_err err;
    assert_int_equal(attn_write_file(null, "gone", 4, NULL, &err), ATTN_OK);
    struct stat sb;
    assert_int_equal(lstat(null, &sb), 0);
    assert_true(S_ISCHR(sb.st_mode));
    assert_int_equal(attn_write_file(full, "x", 1, NULL, &err), ATTN_ERR_IO);
    assert_non_null(strstr(err.msg, "No space left on device"));
    assert_int_equal(lstat(full, &sb), 0);
    assert_true(S_ISCHR(sb.st_mode));
    assert_int_equal(entries(dir), 2);
    rm_rf(dir);
    free(dir), free(null), free(full);
}

static void standard_output_in_place(void **state) {
    (void)state;
    char *dir = temp_dir(), *out = path_in(dir, "redirected"), *link = path_in(dir, "my-stdout");
    put(out, "");
    assert_int_equal(symlink("/proc/self/fd/1", link), 0); // what /dev/stdout is
    pid_t child = fork();
    if (child == 0) { // the shell's `> redirected`, then the dump through the link
        int fd = open(out, O_WRONLY | O_APPEND);
        dup2(fd, STDOUT_FILENO);
        printf("before ");
        attn_status st = attn_write_file(link, "dump", 4, NULL, NULL);
        printf(" after");
        fflush(stdout);
        _exit(st == ATTN_OK ? 0 : 1);
    }
    ino_t before = inode(out);
    int status;
    waitpid(child, &status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_true(inode(out) == before); // not replaced: written through standard output, in order
    char *t = slurp(out);
    assert_string_equal(t, "before dump after");
    free(t);
    struct stat sb;
    assert_int_equal(lstat(link, &sb), 0);
    assert_true(S_ISLNK(sb.st_mode));
    assert_int_equal(entries(dir), 2);
    rm_rf(dir);
    free(dir), free(out), free(link);
}

/* ---- reading what attnviz finds itself ---- */

static void fifo_never_waited_on(void **state) {
    (void)state;
    char *dir = temp_dir(), *f = path_in(dir, "settings.json"), *t = NULL;
    assert_int_equal(mkfifo(f, 0600), 0);
    alarm(10); // a regression would wait for a writer forever
    size_t n;
    attn_err err;
    assert_int_equal(attn_read_regular_file(f, 1 << 20, &t, &n, &err), ATTN_ERR_IO);
    alarm(0);
    assert_non_null(strstr(err.msg, "is not a regular file (it is a named pipe)"));
    assert_int_equal(attn_read_regular_file(dir, 1 << 20, &t, &n, &err), ATTN_ERR_IO);
    assert_non_null(strstr(err.msg, "(it is a folder)"));
    char *real = path_in(dir, "real"), *link = path_in(dir, "link");
    put(real, "ok");
    assert_int_equal(symlink(real, link), 0);
    assert_int_equal(attn_read_regular_file(link, 1 << 20, &t, &n, &err), ATTN_OK); // a link to a file is fine
    assert_string_equal(t, "ok");
    free(t);
    rm_rf(dir);
    free(dir), free(f), free(real), free(link);
}

static void a_name_per_press(void **state) {
    (void)state;
    char *dir = temp_dir(), p[512];
    attn_err err;
    assert_int_equal(attn_reserve_name(p, sizeof p, dir, "attnviz-20250101-120000", ".png", false, &err), ATTN_OK);
    assert_non_null(strstr(p, "/attnviz-20250101-120000.png"));
    assert_int_equal(attn_reserve_name(p, sizeof p, dir, "attnviz-20250101-120000", ".png", false, &err), ATTN_OK);
    assert_non_null(strstr(p, "/attnviz-20250101-120000-2.png"));
    assert_int_equal(attn_reserve_name(p, sizeof p, dir, "attnviz-20250101-120000", "", true, &err), ATTN_OK);
    assert_non_null(strstr(p, "/attnviz-20250101-120000")); // a folder of that name is free
    assert_int_equal(attn_reserve_name(p, sizeof p, dir, "attnviz-20250101-120000", "", true, &err), ATTN_OK);
    assert_non_null(strstr(p, "/attnviz-20250101-120000-2"));
    struct stat sb;
    assert_int_equal(stat(p, &sb), 0);
    assert_true(S_ISDIR(sb.st_mode));
    assert_int_equal(entries(dir), 4);
    rm_rf(dir);
    free(dir);
}

/* ---- the clean-up a signal runs ---- */

static void on_term(int sig) {
    if (!attn_cleanup_signal(sig)) return;
    signal(sig, SIG_DFL);
    raise(sig);
}

static void cleanup_removes_work_in_progress(void **state) {
    (void)state;
    char *dir = temp_dir(), *stage = path_in(dir, ".attnviz-staging-1-abc"), *made = path_in(dir, "made");
    char *tmp = path_in(dir, "run.json.tmp-123456"), *kept = path_in(dir, "kept.txt");
    assert_int_equal(mkdir(made, 0755), 0);
    assert_int_equal(mkdir(stage, 0755), 0);
    char *half = path_in(stage, "02-qkv.png");
    put(half, "half a PNG");
    put(tmp, "half a dump");
    put(kept, "the user's");
    pid_t child = fork();
    if (child == 0) {
        signal(SIGTERM, on_term);
        attn_cleanup_add(made, ATTN_CLEAN_EMPTY_FOLDER);
        int forgotten = attn_cleanup_add(kept, ATTN_CLEAN_FILE);
        attn_cleanup_forget(forgotten); // no longer ours
        attn_cleanup_add(stage, ATTN_CLEAN_FOLDER);
        attn_cleanup_add(tmp, ATTN_CLEAN_FILE);
        attn_cleanup_hold();
        raise(SIGTERM); // waits: a batch is being renamed into place
        if (access(tmp, F_OK) != 0) _exit(3);
        attn_cleanup_release(); // now it ends the process, after the clean-up
        _exit(4);
    }
    int status;
    waitpid(child, &status, 0);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    assert_int_equal(access(tmp, F_OK), -1);
    assert_int_equal(access(stage, F_OK), -1);
    assert_int_equal(access(made, F_OK), -1);
    assert_int_equal(access(kept, F_OK), 0);
    assert_int_equal(entries(dir), 1);
    rm_rf(dir);
    free(dir), free(stage), free(made), free(tmp), free(kept), free(half);
}

static void temporary_registered_while_written(void **state) {
    (void)state;
    char *dir = temp_dir(), *p = path_in(dir, "run.json");
    pid_t child = fork();
    if (child == 0) {
        signal(SIGTERM, on_term);
        attn_out o;
        if (attn_out_open(&o, p, NULL, NULL) != ATTN_OK) _exit(2);
        fputs("half", o.fp);
        fflush(o.fp);
        raise(SIGTERM); // interrupted while writing
        _exit(3);
    }
    int status;
    waitpid(child, &status, 0);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(entries(dir), 0); // neither the file nor its temporary
    rm_rf(dir);
    free(dir), free(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(whole_numbers),
        cmocka_unit_test(cuts_on_characters),
        cmocka_unit_test(long_messages_stay_utf8),
        cmocka_unit_test(doubles_with_every_digit),
        cmocka_unit_test(sha256_known_and_streamed),
        cmocka_unit_test(regular_file_replaced_atomically),
        cmocka_unit_test(symlinks_followed),
        cmocka_unit_test(fifo_written_in_place),
        cmocka_unit_test(device_written_in_place),
        cmocka_unit_test(standard_output_in_place),
        cmocka_unit_test(fifo_never_waited_on),
        cmocka_unit_test(a_name_per_press),
        cmocka_unit_test(cleanup_removes_work_in_progress),
        cmocka_unit_test(temporary_registered_while_written),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
