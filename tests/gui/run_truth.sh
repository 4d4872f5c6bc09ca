#!/usr/bin/env bash
# run_truth.sh BIN LESSONS — every page of the shipped lessons (self-attention
# and modern-attention, zh and en), touched as a teacher would, in the real
# window under Xvfb; every copied matrix and every badge compared with a
# headless run of the copied command line (tests/gui/truth.py).
here=$(cd "$(dirname "$0")" && pwd)
exec bash "$here/run_lesson_sessions.sh" "$1" "$2" "$here/truth.py" self-attention modern-attention
