#!/usr/bin/env bash
# run_lesson_sessions.sh BIN LESSONS CHECKER [NAME…] — each lesson NAME
# (default self-attention), zh and en, driven in the real window under Xvfb
# by the script CHECKER writes, then the session's output checked by it:
# `CHECKER script LESSON OUT` prints the script, `CHECKER check LESSON OUT
# BIN` exits non-zero on any mismatch. Shared by gui_truth (truth.py) and
# gui_tries (tries.py). KEEP_SESSIONS=1 keeps the output for a look.
set -u
bin=$1 lessons=$2 checker=$3
shift 3
[ $# -gt 0 ] || set -- self-attention
tmp=$(mktemp -d)
trap '[ -n "${KEEP_SESSIONS:-}" ] || rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_CONFIG_HOME=$tmp/config
status=0
for name in "$@"; do
    for lang in zh en; do
        lesson=$lessons/$lang/$name.lesson out=$tmp/$name-$lang
        mkdir -p "$out"
        /usr/bin/python3 "$checker" script "$lesson" "$out" >"$tmp/$name-$lang.script"
        if ! LANG=C.UTF-8 xvfb-run -a -s "-screen 0 1280x1024x24" "$bin" --lesson "$lesson" --size 1280x800 \
            --script "$tmp/$name-$lang.script"; then
            echo "FAIL: the $name $lang session did not finish"; status=1; continue
        fi
        /usr/bin/python3 "$checker" check "$lesson" "$out" "$bin" || status=1
    done
done
exit $status
