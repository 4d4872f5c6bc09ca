#!/usr/bin/env bash
# run_hf_page.sh BIN DATA LESSONS — the real-heads page (issue 26) in the real
# window under Xvfb: with ATTNVIZ_PAGE_MODEL=DATA/hf/planted_prev_head the
# page opens its model on the worker, its narrative names the planted
# previous-token head (layer 2 head 3) in en and zh, the figure opens at that
# head, and the copied weights equal a headless --dump-json of the copied
# command line number for number; without the folder the page shows its
# @missing text. No reference is worded "—".
set -u
bin=$1 data=$2/hf lessons=$3
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_CONFIG_HOME=$tmp/config XDG_DATA_HOME=$tmp/data XDG_DATA_DIRS=$tmp/none
unset ATTNVIZ_PAGE_MODEL
fail() {
    echo "FAIL: $*"
    exit 1
}
run() { # LANG SCRIPT [env…]
    local lang=$1 script=$2
    shift 2
    env "$@" LANG=C.UTF-8 xvfb-run -a -s "-screen 0 1280x1024x24" "$bin" --lesson "$lessons/$lang/modern-attention.lesson" \
        --page real-heads --size 1280x800 --script "$script" || fail "the $lang session did not finish"
}
for lang in en zh; do
    if [ $lang = en ]; then named="layer 2 head 3 (1.00)" missing="This page needs GPT-2's files"
    else named="第 2 层头 3（1.00）" missing="这一页需要 GPT-2 的文件"; fi
    cat >"$tmp/$lang.script" <<END
expect page real-heads
expect narrative_contains $named
expect layer 2
expect head 2
expect step 6
key ctrl+c
save clipboard $tmp/$lang.tsv
key ctrl+shift+c
save clipboard $tmp/$lang.cmd
save narrative $tmp/$lang.found.txt
quit
END
    run $lang "$tmp/$lang.script" ATTNVIZ_PAGE_MODEL="$data/planted_prev_head"
    cat >"$tmp/$lang.missing.script" <<END
expect page real-heads
expect narrative_contains $missing
save narrative $tmp/$lang.missing.txt
quit
END
    run $lang "$tmp/$lang.missing.script"
    # a reference worded "—" stands alone where a value would be (the lessons' own dashes have words after them)
    grep -qP -- "— —|—[;.,；。，）)]|—$" "$tmp/$lang.found.txt" && fail "$lang: the narrative with the folder shows —"
    grep -qP -- "— —|—[;.,；。，）)]|—$" "$tmp/$lang.missing.txt" && fail "$lang: the narrative without the folder shows —"
    grep -qF -- "$missing" "$tmp/$lang.found.txt" && fail "$lang: the @missing text is shown with the folder"
    grep -qF -- "$named" "$tmp/$lang.missing.txt" && fail "$lang: heads are named without the folder"
    /usr/bin/python3 - "$bin" "$tmp/$lang.cmd" "$tmp/$lang.tsv" <<'PY' || fail "$lang: the figure's numbers"
import json, shlex, subprocess, sys
bin_, cmd, tsv = sys.argv[1:]
argv = shlex.split(open(cmd, encoding="utf-8").read().strip())
assert argv[:3] == ["attnviz", "--headless", "--hf"] and argv[-2] == "--print", argv
dump = json.loads(subprocess.run([bin_] + argv[1:-2] + ["--dump-json", "-"], capture_output=True, text=True,
                                 check=True).stdout)
rows = [r.split("\t") for r in open(tsv, encoding="utf-8").read().rstrip("\n").split("\n")]
assert rows[0][0] == "weights (layer 2, head 3)", rows[0][0]
got = [[float(v) for v in r[1:]] for r in rows[1:]]
want = dump["layers"][1]["heads"][2]["weights"]
if got != want:
    raise SystemExit("the copied weights differ from the dump's")
print("hf_page: %d×%d weights of layer 2 head 3 equal the dump" % (len(got), len(got[0])))
PY
done
echo "hf_page: en and zh, with and without the folder: ok"
