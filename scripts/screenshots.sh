#!/usr/bin/env bash
# Regenerates the README's screenshots with attnviz itself: the real window
# under Xvfb, driven by a script, saved by its own `shot` command; and two
# --format html pages in Debian's chromium (tests/browser/screenshots.mjs,
# after `npm ci --prefix tests/browser`).
# Usage: scripts/screenshots.sh   (after a build in build/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="${ATTNVIZ:-$root/build/attnviz}"
out="$root/docs/screenshots"
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/shots.script" <<SCRIPT
size 1280 800
click step 6
hover cell weights 0 13 9
shot $out/softmax.png
click step 3
hover cell scores 0 13 9
shot $out/scores.png
click step 5
key m
shot $out/mask-causal.png
key l
click step 7
shot $out/weighted-sum-zh.png
quit
SCRIPT
cat >"$tmp/lesson.script" <<SCRIPT
size 1280 800
shot $out/lesson-predict-zh.png
click token 7
shot $out/lesson-revealed-zh.png
quit
SCRIPT
cat >"$tmp/train.script" <<SCRIPT
size 1280 800
key F3
key Space
await train_state done
shot $out/training.png
quit
SCRIPT
cat >"$tmp/model.script" <<SCRIPT
size 1280 800
key ]
key 6
key b
shot $out/model-backward-zh.png
key 9
shot $out/model-readout-zh.png
quit
SCRIPT
cat >"$tmp/rope.script" <<SCRIPT
size 1280 800
click step 2
key PageDown
hover cell k_rot 0 13 2
shot $out/rope-2b.png
quit
SCRIPT
cat >"$tmp/presenter.script" <<SCRIPT
size 1920 1080
shot $out/presenter-qkv-en.png
quit
SCRIPT
cat >"$tmp/tiles.script" <<SCRIPT
size 1280 800
key F4
key End
key Left
hover 870 211
shot $out/tiles-en.png
quit
SCRIPT
export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data"
xvfb-run -a -s "-screen 0 1920x1200x24" "$bin" --sentence "这只动物没看见那只鸟，因为它飞得太快了。" \
    --script "$tmp/shots.script"
xvfb-run -a -s "-screen 0 1920x1200x24" "$bin" --lang en --script "$tmp/train.script"
LANG=zh_CN.UTF-8 xvfb-run -a -s "-screen 0 1920x1200x24" "$bin" --script "$tmp/lesson.script"
xvfb-run -a -s "-screen 0 1920x1200x24" "$bin" --lang zh --model "$root/assets/models/referent-zh.json" \
    --sentence "这只动物没看见那只鸟，因为它飞得太快了。" --script "$tmp/model.script"
xvfb-run -a -s "-screen 0 1920x1200x24" "$bin" --lesson "$root/lessons/en/self-attention.lesson" --page qkv \
    --theme presenter --lang en --script "$tmp/presenter.script"
xvfb-run -a -s "-screen 0 1920x1200x24" "$bin" --lang en --sentence "The animal didn't cross the street because it was too tired" \
    --mask causal --script "$tmp/tiles.script"
xvfb-run -a -s "-screen 0 1920x1200x24" "$bin" --sentence "这只动物没看见那只鸟，因为它飞得太快了。" --pos rope \
    --lang en --script "$tmp/rope.script"
# every page of the modern-attention lesson: en at 1280x800, zh in presenter at 1920x1080
mkdir -p "$out/modern"
printf 'size 1280 800\nwait 300\nshot %s\nquit\n' "$tmp/en.png" >"$tmp/modern-en.script"
printf 'size 1920 1080\nwait 300\nshot %s\nquit\n' "$tmp/zh.png" >"$tmp/modern-zh.script"
for page in $(sed -n 's/^=== page: //p' "$root/lessons/en/modern-attention.lesson"); do
    xvfb-run -a -s "-screen 0 1920x1200x24" "$bin" --lesson "$root/lessons/en/modern-attention.lesson" --page "$page" \
        --script "$tmp/modern-en.script"
    xvfb-run -a -s "-screen 0 1920x1200x24" "$bin" --lesson "$root/lessons/zh/modern-attention.lesson" --page "$page" \
        --theme presenter --script "$tmp/modern-zh.script"
    mv "$tmp/en.png" "$out/modern/$page-en-1280x800.png"
    mv "$tmp/zh.png" "$out/modern/$page-zh-presenter.png"
done
"$bin" --headless --sentence "这只动物没看见那只鸟，因为它飞得太快了。" --lang en --steps 6 --format html \
    --export-dir "$tmp/html-en" >/dev/null
"$bin" --headless --lesson "$root/lessons/zh/self-attention.lesson" --page intro --format html \
    --export-dir "$tmp/html-zh" >/dev/null
node "$root/tests/browser/screenshots.mjs" "$tmp/html-en" "$tmp/html-zh" "$out"
echo "screenshots written to $out"
