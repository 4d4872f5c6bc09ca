#!/usr/bin/env bash
# Makes every shipped model in assets/models/ with attnviz itself: each task's
# default training (TASK.json), and the lessons' others, each named by what
# differs from the defaults. tests/test_train.c retrains every file from its
# own training record and compares the bytes, so this list can be run again
# at any time and changes nothing.
# Usage: scripts/make-models.sh   (after a build in build/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="${ATTNVIZ:-$root/build/attnviz}"
out="$root/assets/models"
make() { # make NAME FLAGS...
    local name=$1
    shift
    "$bin" --train "$@" --save "$out/$name.json" >/dev/null
    echo "$name.json"
}
for task in referent-zh referent-en reverse sort induction; do make "$task" "$task"; done
# the lessons on learned attention (lessons/*/learned-attention.lesson)
for task in referent-zh referent-en; do
    make "$task-steps0" "$task" --train-steps 0         # before training: what the backward pass asks for
done
make referent-zh-token-seed1 referent-zh --objective token --seed 1 # answers right, looks at the referent
make referent-zh-token-seed9 referent-zh --objective token --seed 9 # answers right, looks elsewhere
make referent-en-token-seed1 referent-en --objective token --seed 1
make referent-en-token-seed8 referent-en --objective token --seed 8
