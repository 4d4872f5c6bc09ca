#!/usr/bin/env bash
# run_view.sh VIEW ATTNVIZ — one of issue 24's views in the real window under
# Xvfb, driven through the real key path, its numbers compared digit for digit
# with a headless --dump-json of the same sentence and settings. VIEW:
#   decode  the decode view (F5): , and . for the token, J and Shift+J for the
#           kv-heads, V for the next head, Esc; its cache length, cells,
#           multiply-adds, bytes and the shown head's z row against
#           `--decode --kv-heads G` dumps. Then O through the schemes to RoPE,
#           and step 2b's q_rot and k_rot (copied with Ctrl+C) against a
#           `--pos rope` dump.
#   tiles   the tiles view (F4): → End −, V for the next head, Esc; its m and
#           l at each step against `--tiles B` dumps; then --tiles 3 opens it
#           at B = 3.
# The scripts and the checks after a session are view_scripts.py's; this file
# holds what both views share: the sentence, the dumps and the sessions.
set -u
view=$1
bin=$2
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
command -v xvfb-run >/dev/null || { echo "FAIL: xvfb-run is missing (Debian package xvfb)"; exit 1; }
export HOME=$out/home XDG_CONFIG_HOME=$out/home/config
mkdir -p "$HOME"
sentence="The animal didn't cross the street because it was too tired."

dump() { # NAME OPTION...: a headless --dump-json of the sentence (causal) into $out/NAME.json
    local name=$1
    shift
    "$bin" --headless --sentence "$sentence" --mask causal "$@" --dump-json "$out/$name.json" >/dev/null ||
        { echo "FAIL: the headless dump with $* failed"; exit 1; }
}

script() { # NAME: view_scripts.py's script NAME from the dumps, into $out/NAME.script
    /usr/bin/python3 "$here/view_scripts.py" "$1" "$out" >"$out/$1.script" ||
        { echo "FAIL: could not write the script $1"; exit 1; }
}

session() { # NAME WHY OPTION...: the window on the sentence (causal), driven by $out/NAME.script
    local name=$1 why=$2
    shift 2
    if ! LANG=C.UTF-8 xvfb-run -a "$bin" --sentence "$sentence" --mask causal "$@" --script "$out/$name.script"; then
        echo "FAIL: $why (script: $(wc -l <"$out/$name.script") lines)"
        exit 1
    fi
}

case $view in
decode)
    for g in 4 2 1; do dump "g$g" --heads 4 --kv-heads "$g" --decode; done
    dump rope --heads 4 --pos rope
    script decode
    session decode "the scripted session differs from the headless dumps" --heads 4
    /usr/bin/python3 "$here/view_scripts.py" decode-rope-check "$out" || exit 1
    echo "ok: the decode view's cache, cells, costs and z equal --decode --dump-json at $(grep -c '^expect decode_values' "$out/decode.script") tokens"
    ;;
tiles)
    for b in 4 3; do dump "b$b" --tiles "$b"; done
    script tiles
    session tiles "the scripted session differs from the headless dumps"
    script tiles-open # --tiles B in the window opens the view at B (it was ignored)
    session tiles-open "--tiles 3 did not open the tiles view at B = 3" --tiles 3
    echo "ok: the tiles view's m and l equal --tiles --dump-json at $(grep -c '^expect tiles_values' "$out/tiles.script") steps"
    ;;
*)
    echo "usage: run_view.sh decode|tiles ATTNVIZ"
    exit 2
    ;;
esac
