#!/usr/bin/env bash
# check_commits.sh BASE [HEAD] — the message of every commit after BASE up to
# HEAD (default HEAD) has a subject of at most 72 characters, then a blank
# line, then the why (docs/contributing.md). The history before BASE is not
# held to it. Prints each commit that breaks the rule and exits 1.
# Merge commits are skipped (their message is git's).
# check_commits.sh --self-test: proves it fails on a long subject, on a
# missing blank line and on a missing body, and passes a good message.
set -u

# check_message: the message on standard input; prints what is wrong, returns 1 if anything is.
# Lengths are in characters (a UTF-8 locale), not bytes: "→" and 它 count one.
check_message() {
    local LC_ALL=C.UTF-8 subject second rest bad=0
    IFS= read -r subject
    IFS= read -r second
    rest=$(cat)
    if [ -z "$subject" ]; then echo "no subject"; bad=1; fi
    if [ ${#subject} -gt 72 ]; then echo "subject of ${#subject} characters (at most 72)"; bad=1; fi
    if [ -n "$second" ]; then echo "no blank line after the subject"; bad=1; fi
    if ! printf '%s' "$rest" | grep -q '[^[:space:]]'; then echo "no body saying why"; bad=1; fi
    return $bad
}

if [ "${1:-}" = --self-test ]; then
    good=$'Layering check: one pass over the includes\n\nIt took 33-92 s; one pass takes 0.1 s.'
    long=$'This subject line goes on and on and on, well past the seventy-two character limit\n\nWhy.'
    squashed=$'A subject\nthen the body at once.'
    bare='A subject and nothing else'
    wide=$'它 → 鸟: seventy-two characters exactly, though many more bytes than 72 ok\n\nWhy.'
    for m in "$good" "$wide"; do
        printf '%s\n' "$m" | check_message >/dev/null || { echo "self-test: a good message failed: $m"; exit 1; }
    done
    for m in "$long" "$squashed" "$bare" "${wide/ ok/ ok!}"; do
        if printf '%s\n' "$m" | check_message >/dev/null; then echo "self-test: a bad message passed: $m"; exit 1; fi
    done
    echo "self-test: ok"
    exit 0
fi

base=${1:?usage: check_commits.sh BASE [HEAD] | --self-test}
head=${2:-HEAD}
bad=0
for c in $(git rev-list --no-merges --reverse "$base..$head"); do
    if ! out=$(git log -1 --format=%B "$c" | check_message); then
        echo "$(git log -1 --format='%h %s' "$c" | cut -c1-80):"
        printf '%s\n' "$out" | sed 's/^/    /'
        bad=1
    fi
done
[ $bad -eq 0 ] && echo "commits: every message after $base has a short subject, a blank line and a why"
exit $bad
