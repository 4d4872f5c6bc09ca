#!/usr/bin/env bash
# Issue 23: in a zh UI (--lang zh, or a zh locale) the command line says a
# refusal of each family in Chinese, with its arguments and no English
# sentence: a file that cannot be opened, a model file, a lesson's line, a
# weights file, a setting, a flag. The same inputs still read in English in an en UI.
# Usage: zh_messages.sh ATTNVIZ
set -u
bin=$(cd "$(dirname "$1")" && pwd)/$(basename "$1") # absolute: the test runs in its own folder
models=$(cd "$(dirname "$0")/../../assets/models" && pwd) # the checked-in trained models
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail=0
pass=0

printf '{"format": "nope"}\n' >model.json
printf '# lesson: x\ntitle: T\nlang: zh\n@sentence: 猫看见鸟\n=== page: a\ntitle: A\n@bogus: 1\ntext\n' >bad.lesson
printf '{"X": [[1, 2], [3]]}\n' >weights.json
printf '# lesson: x\ntitle: T\nlang: zh\n@sentence: 猫看见鸟\n=== page: a\ntitle: A\n看 *这里\n' >emph.lesson
printf '# lesson: x\ntitle: T\nlang: zh\n@sentence: 猫看见鸟\n=== page: a\ntitle: A\n看\n' >ok.lesson
mkdir trunc && printf '{"model_type": "gpt2"}\n' >trunc/config.json && printf 'abc' >trunc/model.safetensors
mkdir bert && printf '{"model_type": "bert"}\n' >bert/config.json

# says NAME WANT_ZH WANT_EN -- ARGS...: a non-zero exit, one line, exactly WANT_ZH in zh
# (three English words in a row nowhere but in the file name), WANT_EN in en.
says() {
    local name=$1 zh=$2 en=$3
    shift 4
    local got rc
    got=$(env -u LC_ALL -u LC_MESSAGES LANG=zh_CN.UTF-8 "$bin" --headless --print "$@" 2>&1 >/dev/null)
    rc=$?
    if [ $rc -eq 0 ] || [ "$got" != "attnviz: $zh" ]; then
        echo "FAIL [$name zh]: exit $rc, said: $got"
        echo "    wanted: attnviz: $zh"
        fail=$((fail + 1))
        return
    fi
    if grep -qE '[A-Za-z]{2,} [a-z]{2,} [a-z]{2,}' <<<"${got//$tmp/}"; then
        echo "FAIL [$name zh]: an English sentence in: $got"
        fail=$((fail + 1))
        return
    fi
    got=$(LANG=C "$bin" --headless --print --lang en "$@" 2>&1 >/dev/null)
    if [ "$got" != "attnviz: $en" ]; then
        echo "FAIL [$name en]: said: $got"
        echo "    wanted: attnviz: $en"
        fail=$((fail + 1))
        return
    fi
    pass=$((pass + 1))
}

says missing-file "无法打开 $tmp/none.json：没有这个文件或文件夹。" \
    "Cannot open $tmp/none.json: No such file or directory." -- --weights "$tmp/none.json"
says folder "$tmp 是一个文件夹，不是文件。" "$tmp is a folder, not a file." -- --sentence-file "$tmp"
says bad-model "model.json: format 是 \"nope\"；模型文件写的是 \"attnviz-model\"。" \
    "model.json: format is \"nope\"; a model file says \"attnviz-model\"." -- --model model.json
says bad-lesson-line "bad.lesson:7:1: 未知的指令 @bogus；指令有 @sentence、@config、@step、@highlight、@predict、@reveal、@compare、@random-weights、@features、@model、@layer、@backward、@train、@try、@own、@edited、@roles、@view、@hf、@missing、@vocab 和 @weights（一行要以 @ 开头时请写 \\@）" \
    "bad.lesson:7:1: unknown directive @bogus; the directives are @sentence, @config, @step, @highlight, @predict, @reveal, @compare, @random-weights, @features, @model, @layer, @backward, @train, @try, @own, @edited, @roles, @view, @hf, @missing, @vocab and @weights (write \\@ for a line that starts with @)" \
    -- --lesson bad.lesson
says lesson-text "emph.lesson:7:3: 用 * 开始的强调在这一行没有结束；请再写一个 * 结束它（要写字符本身，请写 \\*）" \
    "emph.lesson:7:3: emphasis opened with * is not closed on this line; close it with another * (or write \\* for the character itself)" \
    -- --lesson emph.lesson
says hf-config "bert/config.json：attnviz 没有实现 model_type \"bert\"：它只运行 GPT-2 的块（model_type \"gpt2\"）。" \
    "bert/config.json: model_type \"bert\" is not one attnviz implements: it runs GPT-2 blocks only (model_type \"gpt2\")." \
    -- --hf bert
says model-target "--target 40:bird：句子的位置是 0 到 11。" \
    "--target 40:bird: the sentence has positions 0 to 11." -- --model "$models/referent-en.json" --target 40:bird
says flag-combination "--target 要和 --model 文件.json 一起用。" "--target goes with --model FILE.json." -- --target 1:x
says explain-stage "--explain：未知的阶段 \"bogus\"；请用 x、q、k、v、q_rot、k_rot（RoPE）、scores、scaled、masked、weights、z、concat 或 output。" \
    "--explain: unknown stage \"bogus\"; use x, q, k, v, q_rot, k_rot (RoPE), scores, scaled, masked, weights, z, concat or output." \
    -- --explain bogus:0:0:0
says lesson-page "课程 ok.lesson 里没有 \"nope\" 这一页；它的页有：a。" \
    "The lesson ok.lesson has no page \"nope\"; its pages are: a." -- --lesson ok.lesson --page nope
says safetensors-header "trunc/model.safetensors: 3 个字节对 safetensors 文件来说太短了，光是头部长度就占 8 个字节（文件被截断了吗？）。" \
    "trunc/model.safetensors: 3 bytes are too short for a safetensors file, whose header length alone takes 8 (is the file truncated?)." \
    -- --hf trunc
says bad-weights "weights.json: X 的各行长短不一：第 1 行有 1 个数，第 0 行有 2 个。" \
    "weights.json: X is ragged: row 1 has 1 entries, row 0 has 2." -- --weights weights.json
says bad-setting "掩码窗口 W 必须在 1 和 64 之间（现在是 0）。" \
    "The mask window W must be between 1 and 64 (it is 0)." -- --mask window:0
says bad-flag "--heads 必须在 1 和 8 之间（现在是 99）。" "--heads must be between 1 and 8 (it is 99)." -- --heads 99

echo "zh_messages: $pass passed, $fail failed"
[ $fail -eq 0 ]
