#!/usr/bin/env bash
# Every lesson exists in zh and en under the same file name, with the same page
# ids in the same order (so the app can switch language and stay on the page).
# Usage: check_pairs.sh LESSONS_DIR
set -u
dir=$1
fail=0
ids() { grep -E '^=== page:' "$1" | sed -E 's/^=== page:[[:space:]]*//; s/[[:space:]]+$//'; }
for zh in "$dir"/zh/*.lesson; do
    en=$dir/en/$(basename "$zh")
    if [ ! -f "$en" ]; then echo "FAIL: $zh has no English pair $en"; fail=1; continue; fi
    if ! diff <(ids "$zh") <(ids "$en") >/dev/null; then
        echo "FAIL: page ids differ between $zh and $en:"
        diff <(ids "$zh") <(ids "$en")
        fail=1
    fi
done
for en in "$dir"/en/*.lesson; do
    [ -f "$dir/zh/$(basename "$en")" ] || { echo "FAIL: $en has no Chinese pair"; fail=1; }
done
[ $fail -eq 0 ] && echo "lessons paired: $(ls "$dir"/zh/*.lesson | wc -l) file(s)"
exit $fail
