#!/usr/bin/python3
"""What is on screen is true: drives every page of a lesson in the real window
as a teacher would, copies the matrices the window shows with Ctrl+C and the
command line that reproduces the view with Ctrl+Shift+C, then runs that
command headless and checks that every copied number equals the headless one,
and that the badge says where the headless run's weights came from.

On a page of the designed layer the teacher turns the mask there and back,
scaling twice, compare, the positional encoding, the window, an edit of the
sentence, a new d_model and the heads, and R after each. On a page with a
trained model (@model) the settings its training fixed are refused, each
saying so in the status line, and the teacher compares scaling, edits the
sentence (for the pronoun pages: the other sentence of the pair, whose flip
is checked on screen), turns the backward pass, the readout and the head
shown, and switches language there and back; after each, every layer's steps
are copied ([ and ]), with the residual, and the command is the model's
(--headless --model … --target …), whose --dump-json has layers, grads and the
readout. On the pronoun pages the strongest weight from the pronoun in the
last layer is checked on screen for the page's sentence and for its flip.

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
MODEL_STEPS = [1, 2, 3, 4, 5, 6, 7, 8]  # with the backward pass on, 4–6 show ∂L/∂T and ∂L/∂A
STAGE_KEYS = {"x": "X", "q": "Q", "k": "K", "v": "V", "scores": "scores", "scaled": "scaled",
              "masked": "masked", "weights": "weights", "z": "Z", "concat": "concat", "output": "output"}
MODEL_KEYS = dict(STAGE_KEYS, residual="residual")

# The pronoun sentences of the referent models: (sentence, the pronoun's row, the key the last
# layer's strongest weight from it must be on). A page shows one; its "edit" action types the other.
PAIRS = {
    "referent-zh": [("这只动物没看见那只鸟，因为它飞得太快了。", 10, "鸟"),
                    ("这只动物没看见那只鸟，因为它太累了。", 10, "动物")],
    "referent-en": [("The animal didn't cross the street because it was too tired.", 7, "animal"),
                    ("The animal didn't cross the street because it was too wide.", 7, "street")],
}
# What the "edit" action types on the other models' pages (words of their vocabularies).
OTHER = {"reverse": "9 8 7 6 5 4 3 2", "sort": "8 7 6 5 4 3 2 1", "induction": "a b c d e a b c d e"}
# The pointer models, whose flip the lessons promise on screen.
FLIP_MODELS = {"referent-zh.json", "referent-en.json"}
REFUSED = ["m", "shift+m", "s", "o", "w", "d", "k", "h", "g"]  # the settings a model's training fixed


def pages(lesson):
    """The pages in order: id, whether it asks a question, its model file (or None), its sentence."""
    out = []
    for line in open(lesson, encoding="utf-8"):
        line = line.rstrip("\n")
        m = re.match(r"=== page:\s*(\S+)", line)
        if m:
            out.append({"id": m.group(1), "question": False, "model": None, "sentence": None, "pair": False,
                        "hf": None})
        elif out and line.startswith("@predict"):
            out[-1]["question"] = True
        elif out and line.startswith("@model"):
            out[-1]["model"] = line.split(":", 1)[1].strip()
        elif out and line.startswith("@hf"):
            out[-1]["hf"] = line.split(":", 1)[1].strip()  # a real model's page: run_hf_e2e.sh checks it
        elif out and line.startswith("@compare:") and line.split(":", 1)[1].split()[:1] == ["sentence"]:
            out[-1]["pair"] = True  # two sentences side by side: C's next view is none
        elif out and line.startswith("@sentence"):
            out[-1]["sentence"] = line.split(":", 1)[1].strip()
    return out


def model_path(lesson, name):
    """Where attnviz finds a page's model: beside the lesson, else the shipped models."""
    here = os.path.dirname(lesson)
    for p in (os.path.join(here, name), os.path.join(here, "..", "..", "assets", "models", name)):
        if os.path.isfile(p):
            return p
    raise SystemExit(f"FAIL: {lesson}: the model {name} is not found")


def model_info(lesson, page):
    m = json.load(open(model_path(lesson, page["model"]), encoding="utf-8"))
    sentence = page["sentence"] or m["probe"]
    pair = PAIRS.get(m["task"], [])
    shown = [p for p in pair if p[0] == sentence]
    other = [p for p in pair if p[0] != sentence]
    return {"layers": m["config"]["layers"], "task": m["task"], "sentence": sentence,
            "pronoun": shown[0] if shown else None, "other": other[0] if other else None,
            "edit": other[0][0] if other else OTHER[m["task"]]}


def actions(lang):
    """(name, script lines) a teacher tries on a page of the designed layer; R undoes each."""
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


def model_actions(page, info):
    """(name, script lines) a teacher tries on a model page; R undoes each."""
    answer = ["click token 0"] if page["question"] else []
    refused = []
    for k in REFUSED:  # each refused, and said so: the status names F3, which trains another model
        refused += [f"key {k}", "expect status_contains F3", "expect weights model"]
    edit = ["key e", "key ctrl+a", "type " + info["edit"], "key Return", "expect sentence " + info["edit"]]
    return [
        ("as-is", []),
        ("refused", refused),
        ("compare", ["key c", "expect compare " + ("off" if page["pair"] else "scale")]),
        ("edit", edit),
        ("backward", ["key b"]),
        ("readout", ["key 9", "expect readout 1"]),
        ("head", ["key v", "expect head 0"]),
        ("lang-there-and-back", ["key l", "expect page " + page["id"], "key l", "expect page " + page["id"]] + answer),
    ]


def copy_model_view(tag, layers):
    """Every layer's steps from the first, the residual, and what the view was showing first."""
    lines = ["hover 1 1", "key ctrl+c", f"save clipboard {tag}.shown.tsv"]  # the readout, a gradient …
    lines += ["key ["] * layers
    for layer in range(1, layers + 1):
        lines.append(f"expect layer {layer}")
        for step in MODEL_STEPS:
            lines += [f"key {step}", "key ctrl+c", f"save clipboard {tag}.L{layer}.{step}.tsv"]
        lines += ["hover cell residual 0 0 0", "key ctrl+c", f"save clipboard {tag}.L{layer}.res.tsv", "hover 1 1"]
        if layer < layers:
            lines.append("key ]")
    return lines


def flip_lines(info, tag):
    """The strongest weight from the pronoun in the last layer, on screen."""
    sentence, row, key = info
    return ["key 6", f"click token {row}", f"expect strongest {key}", f"save strongest {tag}.strongest"]


def script(lesson, out):
    lang = "zh" if "/zh/" in lesson else "en"
    lines = ["size 1280 800"]
    for p, page in enumerate(pages(lesson)):
        if p:
            lines.append("key n")
        lines.append("expect page " + page["id"])
        if page["hf"]:
            continue  # its heads come from the learner's files, which CI has not got (run_hf_e2e.sh runs it)
        if page["question"]:
            lines.append("click token 0")  # answer the question: the weights show
        if page["model"]:
            info = model_info(lesson, page)
            lines += ["expect weights model", f"expect model {info['task']}"]
            for name, keys in model_actions(page, info):
                lines += keys
                tag = f"{out}/{page['id']}.{name}"
                lines.append(f"save badge {tag}.badge")
                lines += copy_model_view(tag, info["layers"])
                if page["model"] in FLIP_MODELS and name in ("as-is", "edit"):
                    lines += flip_lines(info["pronoun"] if name == "as-is" else info["other"], tag)
                lines += ["key ctrl+shift+c", f"save clipboard {tag}.cmd", "key r"]
                if page["question"]:
                    lines.append("click token 0")
            continue
        for name, keys in actions(lang):
            lines += keys
            tag = f"{out}/{page['id']}.{name}"
            lines.append(f"save badge {tag}.badge")
            for step in STEPS:
                lines += [f"key {step}", "key ctrl+c", f"save clipboard {tag}.{step}.tsv"]
            lines += ["key ctrl+shift+c", f"save clipboard {tag}.cmd", "key r"]
            if page["question"]:
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


def model_matrix(dump, what):
    """The dump's matrix the corner of a copied table names: "weights (layer 2, head 1)" …"""
    m = re.match(r"(\w+)(?: \(layer (\d+)(?:, head (\d+))?\))?", what)
    stage, layer, head = m.group(1), int(m.group(2) or 1) - 1, int(m.group(3) or 1) - 1
    if stage in ("probs", "logits", "avg"):
        got = dump[stage]
    elif stage in ("d_weights", "d_scaled"):
        got = dump["grads"]["layers"][layer]["heads"][head][stage]
    else:
        lay = dump["layers"][layer]
        key = MODEL_KEYS[stage]
        got = lay[key] if key in ("X", "concat", "output", "residual") else lay["heads"][head][key]
    return [[float("-inf") if v is None else v for v in r] for r in got]


def badge_agrees(gui, weights_line):
    """The window's badge and the headless run's "weights:" line say the same."""
    if "the rest random" in weights_line:
        return gui.startswith("partly hand-designed") or gui.startswith("部分手工设计")
    if weights_line.startswith("weights: random"):
        return gui.startswith("random, untrained (seed") or gui.startswith("随机、未训练（种子")
    return gui in ("hand-designed (lesson)", "手工设计（课程）") or "×" in gui  # a gain page: random × gain


def differs(got, want):
    if got == want:
        return None
    if len(got) != len(want) or any(len(a) != len(b) for a, b in zip(got, want)):
        return "a different shape"
    return "max diff " + str(max((abs(a - b) for ra, rb in zip(got, want) for a, b in zip(ra, rb)
                                  if not (math.isinf(a) and math.isinf(b))), default=math.inf))


def check_model_page(lesson, page, out, bin_):
    """Returns (matrices checked, failures) for one model page."""
    info = model_info(lesson, page)
    bad = checked = 0
    for name, _ in model_actions(page, info):
        tag = f"{out}/{page['id']}.{name}"
        cmd = open(tag + ".cmd", encoding="utf-8").read().strip()
        argv = shlex.split(cmd)
        if argv[:3] != ["attnviz", "--headless", "--model"] or "--target" not in argv:
            print(f"FAIL {page['id']} {name}: the copied command is not a model's: `{cmd}`")
            bad += 1
            continue
        if os.path.realpath(argv[3]) != os.path.realpath(model_path(lesson, page["model"])):
            print(f"FAIL {page['id']} {name}: the command names {argv[3]}, the page {page['model']}")
            bad += 1
        dump = json.loads(headless(bin_, cmd, ["--dump-json", "-"]))
        if len(dump["layers"]) != info["layers"] or "grads" not in dump:
            print(f"FAIL {page['id']} {name}: the dump of `{cmd}` has no layers or grads")
            bad += 1
            continue
        weights_line = headless(bin_, cmd, ["--print", "x"]).split("\n")[1]
        gui_badge = open(tag + ".badge", encoding="utf-8").read()
        base = os.path.basename(page["model"])
        if not (gui_badge.endswith(base) and weights_line.endswith(base)):
            print(f"FAIL {page['id']} {name}: the badge says '{gui_badge}', the headless run '{weights_line}'")
            bad += 1
        files = sorted(f for f in os.listdir(out) if f.startswith(f"{page['id']}.{name}.") and f.endswith(".tsv"))
        for f in files:
            what, got = read_tsv(f"{out}/{f}")
            checked += 1
            why = differs(got, model_matrix(dump, what))
            if why:
                print(f"FAIL {page['id']} {name}: {f} ({what}) differs from `{cmd}` ({why})")
                bad += 1
        if page["model"] in FLIP_MODELS and name in ("as-is", "edit"):
            sentence, row, key = info["pronoun"] if name == "as-is" else info["other"]
            shown = open(tag + ".strongest", encoding="utf-8").read()
            last = dump["layers"][-1]["heads"][0]["weights"][row]
            headless_key = dump["tokens"][max(range(len(last)), key=lambda j: last[j])]
            checked += 1
            if shown != key or headless_key != key or dump["tokens"][row] not in ("它", "it"):
                print(f"FAIL {page['id']} '{sentence}': the strongest weight from the pronoun is on '{shown}' "
                      f"on screen and '{headless_key}' headless, not on '{key}'")
                bad += 1
    return checked, bad


def check(lesson, out, bin_):
    lang = "zh" if "/zh/" in lesson else "en"
    bad = checked = views = 0
    for page in pages(lesson):
        if page["hf"]:
            continue
        if page["model"]:
            c, b = check_model_page(lesson, page, out, bin_)
            checked, bad, views = checked + c, bad + b, views + len(model_actions(page, model_info(lesson, page)))
            continue
        for name, _ in actions(lang):
            tag = f"{out}/{page['id']}.{name}"
            views += 1
            cmd = open(tag + ".cmd", encoding="utf-8").read().strip()
            dump = json.loads(headless(bin_, cmd, ["--dump-json", "-"]))
            weights_line = headless(bin_, cmd, ["--print", "x"]).split("\n")[1]
            gui_badge = open(tag + ".badge", encoding="utf-8").read()
            if not badge_agrees(gui_badge, weights_line):
                print(f"FAIL {page['id']} {name}: the badge says '{gui_badge}', the headless run '{weights_line}'")
                bad += 1
            for step in STEPS:
                what, got = read_tsv(f"{tag}.{step}.tsv")
                m = re.match(r"(\w+)(?: \(head (\d+)\))?", what)
                want = matrix(dump, m.group(1), int(m.group(2) or 1) - 1)
                checked += 1
                why = differs(got, want)
                if why:
                    print(f"FAIL {page['id']} {name} step {step}: {what} differs from `{cmd}` ({why})")
                    bad += 1
    print(f"{os.path.basename(lesson)} ({lang}): {checked} matrices and flips and {views} badges checked, "
          f"{bad} wrong")
    return bad == 0 and checked > 0


if __name__ == "__main__":
    if sys.argv[1] == "script":
        sys.stdout.write(script(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(0 if check(sys.argv[2], sys.argv[3], sys.argv[4]) else 1)
