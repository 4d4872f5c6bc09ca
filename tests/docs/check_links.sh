#!/usr/bin/env bash
# check_links.sh ROOT — every relative link of ROOT/README.md, ROOT/docs/*.md
# and ROOT/lessons/README.md names a file or folder that exists, and a link
# with #anchor into a Markdown file names one of its headings (as GitHub makes
# anchors: lower case, punctuation dropped, spaces to hyphens, -1, -2 … for
# repeats). Links in code (fenced blocks, `spans`) are not links; http(s) and
# mailto links are not checked. Prints each broken link as file:line: and
# exits 1 when there is one.
# check_links.sh --self-test: proves the check fails on a missing file and on a
# missing anchor, and passes good links.
set -u

# The anchors of the headings of one Markdown file, one a line.
anchors() {
    LC_ALL=C awk '
        /^[[:space:]]*```/ { fenced = !fenced; next }
        fenced || !/^#+[[:space:]]/ { next }
        {
            h = $0; sub(/^#+[[:space:]]+/, "", h); sub(/[[:space:]#]+$/, "", h)
            punct = "!\"#$%&'\''()*+,./:;<=>?@[\\]^`{|}~"; a = ""
            for (i = 1; i <= length(h); i++) {
                c = substr(h, i, 1)
                if (index(punct, c)) continue
                a = a (c == " " ? "-" : tolower(c))
            }
            if (a in seen) { n = seen[a]++; print a "-" n } else { seen[a] = 1; print a }
        }' "$1"
}

# Prints "line target" for every link of one Markdown file outside code.
links() {
    LC_ALL=C awk '
        /^[[:space:]]*```/ { fenced = !fenced; next }
        fenced { next }
        {
            line = $0; gsub(/`[^`]*`/, "", line)
            while (match(line, /\]\([^)[:space:]]+/)) {
                print FNR " " substr(line, RSTART + 2, RLENGTH - 2)
                line = substr(line, RSTART + RLENGTH)
            }
        }' "$1"
}

check() { # ROOT
    local root=$1 bad=0 md line target path anchor dir
    for md in "$root/README.md" "$root"/docs/*.md "$root/lessons/README.md"; do
        [ -f "$md" ] || continue
        dir=$(dirname "$md")
        while read -r line target; do
            case $target in http://* | https://* | mailto:*) continue ;; esac
            path=${target%%#*}
            anchor=
            [ "$path" != "$target" ] && anchor=${target#*#}
            if [ -z "$path" ]; then path=$md; else path=$dir/$path; fi
            if [ ! -e "$path" ]; then
                echo "${md#"$root"/}:$line: $target: no such file"
                bad=1
            elif [ -n "$anchor" ] && [ "${path%.md}" != "$path" ] && ! anchors "$path" | grep -qxF -- "$anchor"; then
                echo "${md#"$root"/}:$line: $target: no heading with that anchor in ${path#"$root"/}"
                bad=1
            fi
        done < <(links "$md")
    done
    return $bad
}

if [ "${1:-}" = --self-test ]; then
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    fail() { echo "self-test: $1"; cat "$tmp/out"; exit 1; }
    mkdir -p "$tmp/docs" "$tmp/lessons"
    printf '# attnviz\n\n[a](docs/a.md), [b](docs/a.md#the-json-dump-and---weights), ![p](docs/a.md)\n`[no](missing.md)`\n\n```\n[no](missing.md)\n```\n[web](https://example.org/x) [here](#attnviz)\n' >"$tmp/README.md"
    printf '# A\n\n## The JSON dump and `--weights`\n\n## Again\n\n## Again\n\n[up](../README.md#attnviz) [twice](#again-1) [lessons](../lessons/README.md)\n' >"$tmp/docs/a.md"
    printf '# Lessons\n' >"$tmp/lessons/README.md"
    check "$tmp" >"$tmp/out" || fail "good links failed"
    printf '[gone](gone.md)\n' >>"$tmp/docs/a.md"
    if check "$tmp" >"$tmp/out"; then fail "a missing file passed"; fi
    grep -qx 'docs/a.md:10: gone.md: no such file' "$tmp/out" || fail "wrong report for a missing file"
    sed -i '$d' "$tmp/docs/a.md"
    printf '[bad](docs/a.md#no-such-heading)\n' >>"$tmp/README.md"
    if check "$tmp" >"$tmp/out"; then fail "a missing anchor passed"; fi
    grep -qx 'README.md:10: docs/a.md#no-such-heading: no heading with that anchor in docs/a.md' "$tmp/out" ||
        fail "wrong report for a missing anchor"
    echo "self-test: ok"
    exit 0
fi
check "${1:?usage: check_links.sh ROOT | --self-test}" && echo "links: every relative link of the README, docs/ and lessons/README.md resolves"
