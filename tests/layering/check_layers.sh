#!/usr/bin/env bash
# check_layers.sh ROOT — two rules over every #include "x.h" in ROOT/src:
#  1. Layers. An include names a header of the file's own folder or of a lower
#     layer. The layers are the numbered list of the "## Layers" section of
#     ROOT/docs/architecture.md (one place for that fact): "N. `src/a/`,
#     `src/b/` — …" puts a and b on layer N; a and b include neither each other.
#  2. No circles inside a folder. A module is a .c with its .h (a .c or a .h
#     alone is a module of its own); module m reaches module n when a file of
#     m includes n's header. Within one folder no module may reach itself
#     through such includes. Each circle is printed as its path, with the
#     include that makes each hop.
# One grep over the sources and one awk pass: it takes well under a second.
# check_layers.sh --self-test: proves the check fails on an up-going include and
# on a circle, and passes a clean tree.
set -u

check() { # ROOT: prints each violation and circle, returns 1 when there is one
    local root=$1 doc=$1/docs/architecture.md
    [ -f "$doc" ] || { echo "check_layers: $doc is missing (its \"## Layers\" list is the layers)"; return 1; }
    (cd "$root" && find src -type f | LC_ALL=C sort) >"$tmp/files"
    grep -q . "$tmp/files" || { echo "check_layers: no files under $root/src"; return 1; }
    # every quoted include of every .c and .h, as "path:line:text", in path order
    (cd "$root" && grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' /dev/null \
        $(grep -E '\.[ch]$' "$tmp/files")) | LC_ALL=C sort -t: -k1,1 -k2,2n >"$tmp/includes"
    LC_ALL=C awk -v doc="$doc" -f "$tmp/check.awk" "$doc" "$tmp/files" "$tmp/includes"
}

write_awk() {
    cat >"$tmp/check.awk" <<'AWK'
function dir_of(p) { sub(/\/[^\/]*$/, "", p); return p }
function base_of(p) { sub(/^.*\//, "", p); return p }
function module_of(p) { sub(/\.[ch]$/, "", p); return p } # src/app/app.c -> src/app/app
function layer_of(p) { return (p in rank) ? rank[p] : ((dir_of(p) in rank) ? rank[dir_of(p)] : "") }
function short(m) { return base_of(m) }
FNR == 1 { fileno++ }
# the first file, doc: the numbered list of "## Layers" (or "## Layout")
fileno == 1 && /^## / { on = ($0 ~ /^## (Layers|Layout)[[:space:]]*$/); next }
fileno == 1 && on && /^[0-9]+\. `src\// {
    n = $1 + 0; line = $0
    while (match(line, /`src\/[^`]*`/)) {
        f = substr(line, RSTART + 1, RLENGTH - 2); sub(/\/$/, "", f)
        rank[f] = n; ranked++
        line = substr(line, RSTART + RLENGTH)
    }
    next
}
fileno == 1 { next }
# the second file: every file under src, so that an include finds its header by name
fileno == 2 && FNR == 1 && !ranked { print "check_layers: no numbered layers under \"## Layers\" in " doc; exit 1 }
fileno == 2 {
    where[base_of($0)] = $0
    if ($0 ~ /\.[ch]$/ && layer_of($0) == "") { print $0 ": its folder is not in the \"## Layers\" list of " doc; bad = 1 }
    next
}
# the third file: "path:line:#include \"x.h\""
{
    split($0, part, ":"); file = part[1]; lineno = part[2]
    header = $0; sub(/^[^"]*"/, "", header); sub(/".*$/, "", header)
    if (!(header in where)) next # not one of ours (a generated or system header)
    target = where[header]
    if (dir_of(target) != dir_of(file)) {
        mine = layer_of(file); theirs = layer_of(target)
        if (mine == "") next # already reported above
        if (theirs == "" || theirs + 0 >= mine + 0) {
            printf "%s:%s: includes %s (%s, layer %s) from layer %s\n", file, lineno, header, dir_of(target), (theirs == "" ? "?" : theirs), mine
            bad = 1
        }
        next
    }
    if (target !~ /\.h$/) next # a .def or other included text is not a module
    from = module_of(file); to = module_of(target)
    if (from == to) next
    add_node(from); add_node(to)
    if (!((from, to) in edge)) { edge[from, to] = file ":" lineno " includes " header; out[from] = out[from] " " to }
}
function add_node(m) { if (!(m in known)) { known[m] = 1; node[++nodes] = m } }
# the shortest path back to start from start, as "a b c" (without the closing start), or ""
function shortest_circle(start,    head, tail, queue, prev, k, u, v, nv, nx, path) {
    split("", prev); head = 1; tail = 0
    nv = split(out[start], nx, " ")
    for (k = 1; k <= nv; k++) if (!(nx[k] in prev)) { prev[nx[k]] = start; queue[++tail] = nx[k] }
    while (head <= tail) {
        u = queue[head++]
        if (u == start) {
            path = ""; v = prev[start]
            while (v != start) { path = v " " path; v = prev[v] }
            return start " " path
        }
        nv = split(out[u], nx, " ")
        for (k = 1; k <= nv; k++) if (!(nx[k] in prev)) { prev[nx[k]] = u; queue[++tail] = nx[k] }
    }
    return ""
}
END {
    if (!ranked) exit 1
    for (i = 1; i <= nodes; i++) {
        c = shortest_circle(node[i]); if (c == "") continue
        n = split(c, m, " ")
        # the same circle is found from each of its modules: print it once,
        # starting from its smallest module name
        low = 1; for (k = 2; k <= n; k++) if (m[k] < m[low]) low = k
        key = ""; for (k = 0; k < n; k++) key = key " " m[(low - 1 + k) % n + 1]
        if (key in printed) continue
        printed[key] = 1; bad = 1
        text = ""; hops = ""
        for (k = 0; k < n; k++) {
            a = m[(low - 1 + k) % n + 1]; b = m[(low + k) % n + 1]
            text = text short(a) " → "; hops = hops (k ? "; " : "") edge[a, b]
        }
        printf "%s: circle %s%s (%s)\n", dir_of(m[low]), text, short(m[low]), hops
    }
    exit bad
}
AWK
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
write_awk
if [ "${1:-}" = --self-test ]; then
    fail() { echo "self-test: $1"; cat "$tmp/out"; exit 1; }
    fake=$tmp/fake
    mkdir -p "$fake/docs" "$fake/src/util" "$fake/src/core"
    printf '# Architecture\n\n## Layers\n\n1. `src/util/` — helpers.\n2. `src/core/` — math.\n\n## Next\n\n3. `src/util/` — not a layer: another section.\n' \
        >"$fake/docs/architecture.md"
    # clean: core uses util; p reaches q reaches r inside core, and nothing reaches back
    printf '\n' >"$fake/src/util/a.h"
    printf '#include "a.h"\n' >"$fake/src/util/a.c"
    printf '#include "a.h"\n#include "q.h"\n' >"$fake/src/core/p.h"
    printf '#include "p.h"\n' >"$fake/src/core/p.c"
    printf '\n' >"$fake/src/core/q.h"
    printf '#include "q.h"\n#include "r.h"\n#include <stdio.h>\n#include "generated.h"\n' >"$fake/src/core/q.c"
    printf '#include "a.h"\n' >"$fake/src/core/r.h"
    check "$fake" >"$tmp/out" || fail "a clean tree failed"
    [ ! -s "$tmp/out" ] || fail "a clean tree printed something"
    # up-going: util reaching up into core
    printf '#include "p.h"\n' >"$fake/src/util/a.h"
    if check "$fake" >"$tmp/out"; then fail "an up-going include passed"; fi
    grep -qx 'src/util/a.h:1: includes p.h (src/core, layer 2) from layer 1' "$tmp/out" || fail "wrong report for an up-going include"
    printf '\n' >"$fake/src/util/a.h"
    # a circle of modules that no file-level pair shows: p.h → q, q.c → r, r.c → p
    printf '#include "r.h"\n#include "p.h"\n' >"$fake/src/core/r.c"
    if check "$fake" >"$tmp/out"; then fail "a circle inside a folder passed"; fi
    grep -qx 'src/core: circle p → q → r → p (src/core/p.h:2 includes q.h; src/core/q.c:2 includes r.h; src/core/r.c:2 includes p.h)' "$tmp/out" ||
        fail "wrong report for a circle"
    [ "$(wc -l <"$tmp/out")" -eq 1 ] || fail "one circle reported more than once"
    rm "$fake/src/core/r.c"
    # a folder missing from the list
    mkdir -p "$fake/src/extra" && printf '\n' >"$fake/src/extra/x.c"
    if check "$fake" >"$tmp/out"; then fail "a folder outside the list passed"; fi
    grep -q '^src/extra/x.c: its folder is not in' "$tmp/out" || fail "wrong report for an unlisted folder"
    echo "self-test: ok"
    exit 0
fi
root=${1:?usage: check_layers.sh ROOT | --self-test}
check "$root" && echo "layers: every include goes down (or stays in its folder), and no folder has a circle"
