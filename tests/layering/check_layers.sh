#!/usr/bin/env bash
# check_layers.sh ROOT — every #include "x.h" in ROOT/src names a header of the
# file's own folder or of a lower layer. The layers are the numbered list of
# the "## Layers" of docs/architecture.md (one place for that fact): "N. `src/a/`,
# `src/b/` — …" puts a and b on layer N; a and b include neither each other.
# check_layers.sh --self-test: proves the check fails on a bad include.
set -u

check() { # ROOT: prints each violation, exits 1 when there is one
    local root=$1
    awk '/^## Layers/{on=1; next} /^## /{on=0} on && /^[0-9]+\. `src\//' "$root/docs/architecture.md" |
        sed -E 's/^([0-9]+)\. (.*) — .*/\1 \2/' >"$tmp/layers.raw"
    : >"$tmp/layers"
    while read -r rank rest; do
        for f in $(printf '%s\n' "$rest" | grep -o '`src/[^`]*`' | tr -d '`'); do
            echo "${f%/} $rank" >>"$tmp/layers"
        done
    done <"$tmp/layers.raw"
    [ -s "$tmp/layers" ] || { echo "check_layers: no numbered layers under ## Layers in $root/docs/architecture.md"; return 1; }
    # the layer of a path under src: its folder, or src/main.c itself
    layer_of() {
        local p=$1 d
        d=$(dirname "$p")
        awk -v a="$p" -v b="$d" '$1 == a || $1 == b {print $2; exit}' "$tmp/layers"
    }
    local bad=0
    while IFS= read -r file; do
        local rel=${file#"$root"/} mine
        mine=$(layer_of "$rel")
        if [ -z "$mine" ]; then echo "$rel: its folder is not in the Layers list of docs/architecture.md"; bad=1; continue; fi
        grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" | while IFS= read -r hit; do
            local line=${hit%%:*} header where theirs
            header=$(printf '%s' "$hit" | sed -E 's/.*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/')
            where=$(cd "$root" && find src -name "$(basename "$header")" -print | head -1)
            [ -n "$where" ] || continue # not one of ours (e.g. a generated or system header)
            [ "$(dirname "$where")" = "$(dirname "$rel")" ] && continue
            theirs=$(layer_of "$where")
            if [ -z "$theirs" ] || [ "$theirs" -ge "$mine" ]; then
                echo "$rel:$line: includes $header ($(dirname "$where"), layer ${theirs:-?}) from layer $mine"
                echo bad >>"$tmp/bad"
            fi
        done
    done < <(find "$root/src" -name '*.[ch]' | sort)
    [ -s "$tmp/bad" ] && bad=1
    return $bad
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "${1:-}" = --self-test ]; then
    fake=$tmp/fake
    mkdir -p "$fake/src/util" "$fake/src/core" "$fake/docs"
    printf '## Layers\n\n1. `src/util/` — helpers.\n2. `src/core/` — math.\n\n## Next\n' >"$fake/docs/architecture.md"
    printf '#include "b.h"\n' >"$fake/src/util/a.h"   # util reaching up into core: must fail
    printf '#include "a.h"\n' >"$fake/src/core/b.h"   # core using util: fine
    if check "$fake" >"$tmp/out"; then echo "self-test: an upward include passed"; exit 1; fi
    grep -q 'src/util/a.h:1: includes b.h' "$tmp/out" || { echo "self-test: wrong report: $(cat "$tmp/out")"; exit 1; }
    rm -f "$tmp/bad"
    printf '\n' >"$fake/src/util/a.h"
    check "$fake" || { echo "self-test: a clean tree failed"; exit 1; }
    echo "self-test: ok"
    exit 0
fi
check "${1:?usage: check_layers.sh ROOT | --self-test}" && echo "layers: every include goes down (or stays in its folder)"
