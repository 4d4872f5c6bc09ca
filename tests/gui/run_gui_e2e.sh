#!/usr/bin/env bash
# Runs the real app in a real window under Xvfb, driven by e2e.script; asserts
# on its state and pixels (inside the script) and on the files it saved.
# Usage: run_gui_e2e.sh ATTNVIZ
set -u
bin=$1
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
command -v xvfb-run >/dev/null || { echo "FAIL: xvfb-run is missing (Debian package xvfb)"; exit 1; }
sed "s|@OUT@|$out|g" "$here/e2e.script" >"$out/e2e.script"
export XDG_CONFIG_HOME="$out/config" SDL_RENDER_DRIVER=software
fail=0
run() { # size
    xvfb-run -a -s "-screen 0 1920x1200x24" "$bin" --size "$1" --shots-dir "$out/shots" --script "$out/e2e.script"
}
if ! run 1280x800; then echo "FAIL: the scripted session failed"; fail=1; fi
for f in compose step1 step2 step3 step4 step5 step6 step7 step8 hover-score causal compare-scale compare-heads zh dark help; do
    [ -s "$out/$f.png" ] || { echo "FAIL: $f.png was not saved"; fail=1; }
done
ls "$out"/shots/attnviz-*.png >/dev/null 2>&1 || { echo "FAIL: Ctrl+S saved no screenshot"; fail=1; }
# the user's settings are not touched by a scripted run
[ ! -e "$out/config/attnviz/settings.json" ] || { echo "FAIL: a scripted run saved settings"; fail=1; }
# a display-less start says what to do instead
msg=$(env -u DISPLAY SDL_VIDEODRIVER=x11 "$bin" 2>&1)
rc=$?
if [ $rc -eq 0 ] || ! grep -q -- "--headless" <<<"$msg"; then echo "FAIL: no display: rc=$rc: $msg"; fail=1; fi
if [ $fail -eq 0 ]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; fi
exit $fail
