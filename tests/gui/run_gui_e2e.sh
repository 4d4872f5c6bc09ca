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
export XDG_CONFIG_HOME="$out/config"
fail=0
seed="这只动物没看见那只鸟，因为它飞得太快了。"
xvfb() { xvfb-run -a -s "-screen 0 1920x1200x24" "$@"; }
# a sentence of its own: random weights, no lesson
if ! xvfb "$bin" --sentence "$seed" --size 1280x800 --shots-dir "$out/shots" --script "$out/e2e.script"; then
    echo "FAIL: the scripted session failed"; fail=1
fi
# the default launch: the lesson in the system's language, pages, questions, the pair
sed "s|@OUT@|$out|g" "$here/lesson.script" >"$out/lesson.script"
if ! LANG=zh_CN.UTF-8 xvfb "$bin" --size 1280x800 --script "$out/lesson.script"; then
    echo "FAIL: the lesson session failed"; fail=1
fi
# a Chinese launch with a sentence of its own: the badge, the editor, the status, one head
if ! LANG=zh_CN.UTF-8 xvfb "$bin" --sentence "$seed" --size 1280x800 --script "$here/smaller.script"; then
    echo "FAIL: the small-things session failed"; fail=1
fi
# a model trained from a lesson page and walked through: the text says how to get back (issue 23)
if ! xvfb "$bin" --lesson "$here/../../lessons/en/self-attention.lesson" --page learned --size 1280x800 \
    --script "$here/walk.script"; then
    echo "FAIL: the walkthrough session failed"; fail=1
fi
# the figure view: F in the walkthrough and the training view, Esc leaving it
sed "s|@OUT@|$out|g" "$here/figure.script" >"$out/figure.script"
if ! xvfb "$bin" --lesson "$here/../../lessons/en/self-attention.lesson" --size 1920x1080 --script "$out/figure.script"; then
    echo "FAIL: the figure-view session failed"; fail=1
fi
# the page controls and the page list
sed "s|@OUT@|$out|g" "$here/pages.script" >"$out/pages.script"
if ! xvfb "$bin" --lesson "$here/../../lessons/en/self-attention.lesson" --size 1280x800 --shots-dir "$out/pshots" \
    --script "$out/pages.script"; then
    echo "FAIL: the page-controls session failed"; fail=1
fi
mask_svg=$(ls "$out"/pshots/attnviz-*/05-mask.svg 2>/dev/null | head -1)
if [ -z "$mask_svg" ] || ! grep -q "Mask none" "$mask_svg" || ! grep -q "Window W 2" "$mask_svg"; then
    echo "FAIL: Ctrl+Shift+S on the cost page did not write both compared views (${mask_svg:-no 05-mask.svg})"; fail=1
fi
# two sentences through the page's model, side by side
sed "s|@OUT@|$out|g" "$here/sentences.script" >"$out/sentences.script"
if ! xvfb "$bin" --lesson "$here/../../lessons/en/self-attention.lesson" --page two-layers-flip --size 1920x1080 \
    --theme presenter --script "$out/sentences.script"; then
    echo "FAIL: the two-sentence session failed"; fail=1
fi
# the modern-attention lesson: @view opens the decode and tiles views, the page's text stays (issue 24)
if ! xvfb "$bin" --lesson "$here/../../lessons/en/modern-attention.lesson" --size 1280x800 --script "$here/modern.script"; then
    echo "FAIL: the modern-attention session failed"; fail=1
fi
# --view figure opens with it
printf 'expect figure 1\nkey f\nexpect figure 0\nquit\n' >"$out/view.script"
if ! xvfb "$bin" --view figure --size 1280x800 --script "$out/view.script"; then
    echo "FAIL: --view figure did not open the figure view"; fail=1
fi
for f in figure-train pages-list pages-cost sentences-figure lesson-intro-zh lesson-scale-zh lesson-intro-en predict-hidden predict-revealed compose step1 step2 step3 step4 step5 step6 step7 step8 hover-score causal compare-scale compare-heads zh dark help lab; do
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
