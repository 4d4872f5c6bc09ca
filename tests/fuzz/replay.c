/* replay.c — runs files through a harness's LLVMFuzzerTestOneInput with the
 * normal compiler, so every seed and every crash ever found is a regression
 * case in the CTest suite (and under the ASan build, a sanitized one).
 *
 * Usage: fuzz_replay_<harness> PATH...; a PATH is a file or a folder whose
 * regular files (not dot files) are replayed. A missing folder is skipped: the
 * crash folders are empty until a fuzzer finds something. Needs at least one
 * input overall, so a mistyped corpus path cannot pass silently. */
#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_common.h"

static int replayed;

static int replay_file(const char *path) {
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "replay: cannot open %s: %s\n", path, strerror(errno));
        return 1;
    }
    size_t cap = 4096, len = 0;
    unsigned char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + len, 1, cap - len, fp)) > 0) {
        len += got;
        if (len == cap) {
            unsigned char *bigger = realloc(buf, cap * 2);
            if (!bigger) free(buf);
            buf = bigger;
            cap *= 2;
        }
    }
    fclose(fp);
    if (!buf) {
        fprintf(stderr, "replay: out of memory reading %s\n", path);
        return 1;
    }
    // an exact-size copy, so ASan sees a read one past the input as libFuzzer would
    unsigned char *exact = malloc(len ? len : 1);
    if (!exact) {
        free(buf);
        return 1;
    }
    memcpy(exact, buf, len);
    free(buf);
    fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    replayed++;
    return 0;
}

static int replay_path(const char *path) {
    struct stat sb;
    if (stat(path, &sb) != 0) return 0; // a crash folder that does not exist yet
    if (!S_ISDIR(sb.st_mode)) return replay_file(path);
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "replay: cannot list %s: %s\n", path, strerror(errno));
        return 1;
    }
    int failed = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue; // ".", "..", ".gitkeep"
        size_t need = strlen(path) + strlen(de->d_name) + 2;
        char *full = malloc(need);
        if (!full) {
            failed = 1;
            break;
        }
        snprintf(full, need, "%s/%s", path, de->d_name);
        if (stat(full, &sb) == 0 && S_ISREG(sb.st_mode)) failed |= replay_file(full);
        free(full);
    }
    closedir(d);
    return failed;
}

int main(int argc, char **argv) {
    int failed = 0;
    for (int i = 1; i < argc; i++) failed |= replay_path(argv[i]);
    printf("replayed %d inputs\n", replayed);
    if (replayed == 0) {
        fprintf(stderr, "replay: no inputs found\n");
        return 1;
    }
    return failed;
}
