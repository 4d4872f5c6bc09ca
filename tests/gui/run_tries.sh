#!/usr/bin/env bash
# run_tries.sh BIN LESSONS — every @try suggestion of both lessons, clicked in
# the real window under Xvfb; the narrative after each checked against the
# figure's numbers (tests/gui/tries.py).
here=$(cd "$(dirname "$0")" && pwd)
exec bash "$here/run_lesson_sessions.sh" "$1" "$2" "$here/tries.py"
