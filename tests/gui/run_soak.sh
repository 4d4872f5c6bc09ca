#!/usr/bin/env bash
# The GUI under abuse: 10,000 random events from a fixed seed against the real
# window under Xvfb. Passes when the app neither crashes nor leaks (in a
# sanitizer build, LeakSanitizer reports at exit) and, with --rss, when its
# resident memory grows by at most 5 MiB between event 1,000 and 10,000.
# Usage: run_soak.sh ATTNVIZ [--rss]
set -u
bin=$1
rss=${2:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 "$(dirname "$0")/soak_gen.py" 10000 20261129 $rss >"$tmp/soak.script"
export XDG_CONFIG_HOME="$tmp/config" XDG_DATA_HOME="$tmp/data" # the training view saves models there (S)
start=$(date +%s)
xvfb-run -a -s "-screen 0 1920x1200x24" "$bin" --size 1024x640 --shots-dir "$tmp/shots" --script "$tmp/soak.script" \
    >"$tmp/out.txt" 2>&1
rc=$?
cat "$tmp/out.txt" | grep -v "^$" | tail -5
echo "soak: 10000 events in $(( $(date +%s) - start )) s, exit code $rc"
if [ $rc -eq 0 ]; then echo "1 passed, 0 failed"; else echo "0 passed, 1 failed"; fi
exit $rc
