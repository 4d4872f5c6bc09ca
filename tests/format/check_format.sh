#!/usr/bin/env bash
# check_format.sh [--fix] [ROOT] — every .c and .h under ROOT/src and ROOT/tests
# is formatted as ROOT/.clang-format says. Lists each file that differs and
# exits 1; with --fix, formats those files in place instead (and exits 0).
# ROOT defaults to the repository this script is in.
# The style is clang-format 14's reading of .clang-format (Debian 12's
# clang-format); another major version formats differently, so without
# clang-format-14 the check exits 77 (CTest: skipped, never passed).
# Generated files are left as their generator writes them (GENERATED below).
set -u

GENERATED=(src/util/unicode_tables.c) # scripts/gen_unicode_tables.py --check compares its bytes

fix=false
if [ "${1:-}" = --fix ]; then fix=true; shift; fi
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
[ -f "$root/.clang-format" ] || { echo "check_format: $root/.clang-format is missing"; exit 1; }

cf=
for c in clang-format-14 clang-format; do
    if command -v "$c" >/dev/null && "$c" --version | grep -q 'version 14\.'; then cf=$c; break; fi
done
[ -n "$cf" ] || { echo "check_format: clang-format 14 is not installed (apt-get install clang-format-14)"; exit 77; }

cd "$root" || exit 1
bad=0
while IFS= read -r f; do
    for g in "${GENERATED[@]}"; do [ "$f" = "$g" ] && continue 2; done
    if ! "$cf" --style=file "$f" | cmp -s - "$f"; then
        if $fix; then
            # clang-format 14 may move a line again on a second pass (a
            # wrapped case label): format until the file is stable
            for _ in 1 2 3; do
                "$cf" --style=file -i "$f" || exit 1
                "$cf" --style=file "$f" | cmp -s - "$f" && break
            done
            echo "formatted $f"
        else
            echo "$f: not formatted as .clang-format says (tests/format/check_format.sh --fix)"
            bad=1
        fi
    fi
done < <(find src tests -name node_modules -prune -o -type f -name '*.[ch]' -print | LC_ALL=C sort)
exit $bad
