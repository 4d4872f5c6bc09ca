#!/usr/bin/python3
"""What is on screen is true: drives every page of a lesson in the real window
as a teacher would (the mask there and back, scaling twice, compare, the
positional encoding, the window, an edit of the sentence, a new d_model and R),
copies the matrices the window shows with Ctrl+C and the command line that
reproduces the view with Ctrl+Shift+C, then runs that command headless and
checks that every copied number equals the headless one, and that the badge
says where the headless run's weights came from.

Usage: truth.py script LESSON OUT   > the script (writes nothing else)
       truth.py check  LESSON OUT BIN     (after the app ran the script)
"""
import json
import math
import os
import re
import shlex
import subprocess
import sys

STEPS = [1, 2, 3, 6, 7, 8]  # X, Q, S, A, Z, out: every matrix a later one is computed from
STAGE_KEYS = {"x": "X", "q": "Q", "k": "K", "v": "V", "scores": "scores", "scaled": "scaled",
              "masked": "masked", "weights": "weights", "z": "Z", "concat": "concat", "output": "output"}


def pages(lesson):
    """The page ids in order, and whether each asks a question."""
    out = []
    for line in open(lesson, encoding="utf-8"):
        m = re.match(r"=== page:\s*(\S+)", line)
        if m:
            out.append([m.group(1), False])
        elif line.startswith("@predict") and out:
            out[-1][1] = True
    return out


def actions(lang):
    """(name, script lines) a teacher tries on a page; R undoes each."""
    edit = " Yes" if lang == "en" else "吗"
    return [
        ("as-is", []),
        ("mask-there-and-back", ["key m", "key shift+m"]),
        ("mask", ["key m"]),
        ("scale-twice", ["key s", "key s"]),
        ("no-scale", ["key s"]),
        ("compare", ["key c"]),
        ("pos-enc", ["key o"]),
        ("window", ["key w"]),
        ("edit", ["key e", "key End", "type " + edit, "key Return"]),
        ("d-model", ["key d"]),
        ("heads", ["key h"]),
    ]


def script(lesson, out):
    lang = "zh" if "/zh/" in lesson else "en"
    lines = ["size 1280 800"]
    for p, (page, question) in enumerate(pages(lesson)):
        if p:
            lines.append("key n")
        lines.append("expect page " + page)
        if question:
            lines.append("click token 0")  # answer the question: the weights show
        for name, keys in actions(lang):
            lines += keys
            tag = f"{out}/{page}.{name}"
            lines.append(f"save badge {tag}.badge")
            for step in STEPS:
                lines += [f"key {step}", "key ctrl+c", f"save clipboard {tag}.{step}.tsv"]
            lines += ["key ctrl+shift+c", f"save clipboard {tag}.cmd", "key r"]
            if question:
                lines.append("click token 0")
    lines.append("quit")
    return "\n".join(lines) + "\n"


def read_tsv(path):
    rows = [r.split("\t") for r in open(path, encoding="utf-8").read().rstrip("\n").split("\n")]
    what = rows[0][0]
    return what, [[float("-inf") if v == "-inf" else float(v) for v in r[1:]] for r in rows[1:]]


def headless(bin_, cmd, extra):
    argv = shlex.split(cmd)
    assert argv[0] == "attnviz" and argv[-2] == "--print", cmd
    run = subprocess.run([bin_] + argv[1:-2] + extra, capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f"FAIL: {cmd}: {run.stderr.strip()}")
    return run.stdout


def matrix(dump, stage, head):
    key = STAGE_KEYS[stage]
    m = dump["heads"][head][key] if key not in ("X", "concat", "output") else dump[key]
    return [[float("-inf") if v is None else v for v in r] for r in m]


def badge_agrees(gui, weights_line):
    """The window's badge and the headless run's "weights:" line say the same."""
    if "the rest random" in weights_line:
        return gui.startswith("partly hand-designed") or gui.startswith("部分手工设计")
    if weights_line.startswith("weights: random"):
        return gui.startswith("random, untrained (seed") or gui.startswith("随机、未训练（种子")
    return gui in ("hand-designed (lesson)", "手工设计（课程）") or "×" in gui  # a gain page: random × gain


def check(lesson, out, bin_):
    lang = "zh" if "/zh/" in lesson else "en"
    bad = checked = 0
    for page, _ in pages(lesson):
        for name, _ in actions(lang):
            tag = f"{out}/{page}.{name}"
            cmd = open(tag + ".cmd", encoding="utf-8").read().strip()
            dump = json.loads(headless(bin_, cmd, ["--dump-json", "-"]))
            weights_line = headless(bin_, cmd, ["--print", "x"]).split("\n")[1]
            gui_badge = open(tag + ".badge", encoding="utf-8").read()
            if not badge_agrees(gui_badge, weights_line):
                print(f"FAIL {page} {name}: the badge says '{gui_badge}', the headless run '{weights_line}'")
                bad += 1
            for step in STEPS:
                what, got = read_tsv(f"{tag}.{step}.tsv")
                m = re.match(r"(\w+)(?: \(head (\d+)\))?", what)
                want = matrix(dump, m.group(1), int(m.group(2) or 1) - 1)
                checked += 1
                if got != want:
                    diff = max((abs(a - b) for ra, rb in zip(got, want) for a, b in zip(ra, rb)
                                if not (math.isinf(a) and math.isinf(b))), default=math.inf)
                    print(f"FAIL {page} {name} step {step}: {what} differs from `{cmd}` (max diff {diff})")
                    bad += 1
    print(f"{os.path.basename(lesson)} ({lang}): {checked} matrices and "
          f"{len(pages(lesson)) * len(actions(lang))} badges checked, {bad} wrong")
    return bad == 0


if __name__ == "__main__":
    if sys.argv[1] == "script":
        sys.stdout.write(script(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(0 if check(sys.argv[2], sys.argv[3], sys.argv[4]) else 1)
