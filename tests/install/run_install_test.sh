#!/usr/bin/env bash
# cmake --install into a temporary prefix, then start the installed binary from
# another folder: headless, and in a window under Xvfb.
# Usage: run_install_test.sh BUILD_DIR
set -u
build=$1
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
fail=0
cmake --install "$build" --prefix "$prefix" >/dev/null || { echo "FAIL: cmake --install"; exit 1; }
for f in bin/attnviz share/attnviz/assets/ui_strings.tsv share/applications/attnviz.desktop \
         share/icons/hicolor/scalable/apps/attnviz.svg; do
    [ -e "$prefix/$f" ] || { echo "FAIL: $f was not installed"; fail=1; }
done
ls "$prefix"/share/attnviz/lessons/*/*.lesson >/dev/null 2>&1 || { echo "FAIL: no lessons installed"; fail=1; }
cd /
out=$("$prefix/bin/attnviz" --headless --print x 2>&1) && grep -q "tokens (20)" <<<"$out" \
    || { echo "FAIL: installed headless run: $out"; fail=1; }
# the default launch opens the shipped lesson (English under LANG=C.UTF-8)
printf 'expect page intro\nexpect weights design\nexpect badge hand-designed (lesson)\nquit\n' >"$prefix/quit.script"
LANG=C.UTF-8 XDG_CONFIG_HOME="$prefix/config" xvfb-run -a "$prefix/bin/attnviz" --script "$prefix/quit.script" \
    || { echo "FAIL: the installed app did not start in a window"; fail=1; }
if [ $fail -eq 0 ]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; fi
exit $fail
