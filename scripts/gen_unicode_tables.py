#!/usr/bin/python3
"""Generates src/util/unicode_tables.c: Unicode range tables for attnviz.

Run with Debian's interpreter so the Unicode version is the system's:
    /usr/bin/python3 scripts/gen_unicode_tables.py          # rewrite the file
    /usr/bin/python3 scripts/gen_unicode_tables.py --check  # exit 1 if stale

Every table is a sorted list of disjoint, non-adjacent [lo, hi] code point
ranges taken from Python's unicodedata module; the C side binary-searches them.
The output holds no timestamp, so running the script twice gives the same file.
"""
import argparse
import os
import sys
import unicodedata

MAX_CP = 0x10FFFF

# Python reports every unassigned code point as East Asian Width "F", so the
# width table only looks at assigned ones and adds back the blocks that
# EastAsianWidth.txt says default to W even where unassigned (future ideographs).
WIDE_UNASSIGNED_DEFAULTS = [
    (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF),
    (0x20000, 0x2FFFD), (0x30000, 0x3FFFD),
]


def ranges_where(pred):
    """Sorted, merged [lo, hi] ranges of the code points for which pred is true."""
    out = []
    for cp in range(MAX_CP + 1):
        if not pred(chr(cp)):
            continue
        if out and out[-1][1] == cp - 1:
            out[-1][1] = cp
        else:
            out.append([cp, cp])
    return out


def merge(ranges):
    out = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1][1] = max(out[-1][1], hi)
        else:
            out.append([lo, hi])
    return out


def is_wide(ch):
    cat = unicodedata.category(ch)
    return cat != "Cn" and unicodedata.east_asian_width(ch) in ("W", "F")


TABLES = [
    # (C name, what it holds, predicate)
    ("word", "General categories L*, M* and N* (letters, marks, numbers)",
     lambda ch: unicodedata.category(ch)[0] in "LMN"),
    ("mark", "General categories M* (Mn, Mc, Me: combining marks)",
     lambda ch: unicodedata.category(ch)[0] == "M"),
    ("zero_width", "General categories Mn and Me (marks drawn over the previous character)",
     lambda ch: unicodedata.category(ch) in ("Mn", "Me")),
    ("wide", "East Asian Width W or F (assigned, plus blocks whose unassigned\n"
     " * code points default to W)",
     is_wide),
    # The Hugging Face tokenizers (src/hf, issue 26): GPT-2's pre-tokenizer
    # classes and what BERT's basic tokenizer asks of unicodedata.
    ("letter", "General categories L* (letters: GPT-2's \\p{L})",
     lambda ch: unicodedata.category(ch)[0] == "L"),
    ("number", "General categories N* (numbers: GPT-2's \\p{N})",
     lambda ch: unicodedata.category(ch)[0] == "N"),
    ("white_space", "The White_Space property (regular expressions' \\s): what\n"
     " * str.isspace() holds, less U+001C-U+001F (separators, not White_Space)",
     lambda ch: ch.isspace() and not "\x1c" <= ch <= "\x1f"),
    ("space_separator", "General category Zs (space separators)",
     lambda ch: unicodedata.category(ch) == "Zs"),
    ("punct", "General categories P* (punctuation)",
     lambda ch: unicodedata.category(ch)[0] == "P"),
    ("other", "General categories C* (controls, format, surrogates, private use,\n"
     " * unassigned)",
     lambda ch: unicodedata.category(ch)[0] == "C"),
    ("nonspacing", "General category Mn (what stripping accents removes)",
     lambda ch: unicodedata.category(ch) == "Mn"),
]

HANGUL_SYLLABLES = (0xAC00, 0xD7A3)  # decomposed by the C side, by formula


def lower_strip(ch):
    """BERT's lower-casing then accent stripping of one character: lower(),
    NFD, nonspacing marks (Mn) dropped."""
    return "".join(c for c in unicodedata.normalize("NFD", ch.lower())
                   if unicodedata.category(c) != "Mn")


def emit_lower_strip():
    """The characters lower_strip changes (not Mn, which the C side drops by
    category, nor Hangul syllables, which it decomposes by formula): one
    sorted table for those that become one character, one for the few that
    become two or three."""
    single, multi = [], []
    for cp in range(MAX_CP + 1):
        ch = chr(cp)
        if HANGUL_SYLLABLES[0] <= cp <= HANGUL_SYLLABLES[1] or unicodedata.category(ch) == "Mn":
            continue
        out = lower_strip(ch)
        if out == ch:
            continue
        (single if len(out) == 1 else multi).append((cp, [ord(c) for c in out]))
    lines = ["/* Lower-cased and accents stripped (lower(), NFD, Mn dropped), for the",
             f" * characters that become one other character: {len(single)} pairs. */",
             "static const uint32_t lower_strip_one[][2] = {"]
    row = []
    for cp, out in single:
        row.append(f"{{0x{cp:X}, 0x{out[0]:X}}}")
        if len(row) == 4:
            lines.append("    " + ", ".join(row) + ",")
            row = []
    if row:
        lines.append("    " + ", ".join(row) + ",")
    lines += ["};", "",
              f"/* The same for those that become 2 or 3 characters (0 ends one): {len(multi)}. */",
              "static const uint32_t lower_strip_many[][4] = {"]
    for cp, out in multi:
        out = out + [0] * (3 - len(out))
        lines.append(f"    {{0x{cp:X}, " + ", ".join(f"0x{c:X}" for c in out) + "},")
    lines += ["};", "",
              "int uni_lower_strip(uint32_t cp, uint32_t out[3]) {",
              "    if (uni_is_nonspacing(cp))",
              "        return 0;",
              f"    if (cp >= 0x{HANGUL_SYLLABLES[0]:X} && cp <= 0x{HANGUL_SYLLABLES[1]:X}) {{ /* NFD of a Hangul syllable: L V (T) */",
              "        uint32_t s = cp - 0xAC00, t = s % 28;",
              "        out[0] = 0x1100 + s / 588;",
              "        out[1] = 0x1161 + (s % 588) / 28;",
              "        out[2] = 0x11A7 + t;",
              "        return t ? 3 : 2;",
              "    }",
              "    size_t lo = 0, hi = RANGE_COUNT(lower_strip_one);",
              "    while (lo < hi) {",
              "        size_t mid = lo + (hi - lo) / 2;",
              "        if (cp < lower_strip_one[mid][0])",
              "            hi = mid;",
              "        else if (cp > lower_strip_one[mid][0])",
              "            lo = mid + 1;",
              "        else {",
              "            out[0] = lower_strip_one[mid][1];",
              "            return 1;",
              "        }",
              "    }",
              "    for (size_t i = 0; i < RANGE_COUNT(lower_strip_many); i++)",
              "        if (lower_strip_many[i][0] == cp) {",
              "            int n = 0;",
              "            while (n < 3 && lower_strip_many[i][1 + n])",
              "                out[n] = lower_strip_many[i][1 + n], n++;",
              "            return n;",
              "        }",
              "    out[0] = cp;",
              "    return 1;",
              "}"]
    return "\n".join(lines)


def emit_table(name, what, ranges):
    lines = [f"/* {what}: {len(ranges)} ranges. */",
             f"static const uint32_t {name}_ranges[][2] = {{"]
    row = []
    for lo, hi in ranges:
        row.append(f"{{0x{lo:X}, 0x{hi:X}}}")
        if len(row) == 4:
            lines.append("    " + ", ".join(row) + ",")
            row = []
    if row:
        lines.append("    " + ", ".join(row) + ",")
    lines.append("};")
    return "\n".join(lines)


def emit_lookup(name):
    return (f"bool uni_is_{name}(uint32_t cp) {{\n"
            f"    return in_ranges({name}_ranges, RANGE_COUNT({name}_ranges), cp);\n"
            f"}}")


def generate():
    version = unicodedata.unidata_version
    py = ".".join(str(x) for x in sys.version_info[:3])
    parts = [
        "/* unicode_tables.c — GENERATED FILE, do not edit by hand.",
        " *",
        " * Generated by scripts/gen_unicode_tables.py from Python's unicodedata",
        f" * module (Python {py}), Unicode {version}. To regenerate:",
        " *     /usr/bin/python3 scripts/gen_unicode_tables.py",
        " * Each table lists sorted, disjoint [lo, hi] code point ranges. */",
        '#include "unicode_tables.h"',
        "",
        "#include <stddef.h>",
        "",
        "#define RANGE_COUNT(t) (sizeof(t) / sizeof((t)[0]))",
        "",
        f'const char *uni_version(void) {{\n    return "{version}";\n}}',
        "",
        "/* Binary search: is cp inside one of the n sorted ranges? */",
        "static bool in_ranges(const uint32_t (*r)[2], size_t n, uint32_t cp) {",
        "    size_t lo = 0, hi = n;",
        "    if (n == 0 || cp < r[0][0] || cp > r[n - 1][1])",
        "        return false;",
        "    while (lo < hi) {",
        "        size_t mid = lo + (hi - lo) / 2;",
        "        if (cp < r[mid][0])",
        "            hi = mid;",
        "        else if (cp > r[mid][1])",
        "            lo = mid + 1;",
        "        else",
        "            return true;",
        "    }",
        "    return false;",
        "}",
    ]
    for name, what, pred in TABLES:
        ranges = ranges_where(pred)
        if name == "wide":
            ranges = merge(ranges + [list(r) for r in WIDE_UNASSIGNED_DEFAULTS])
        parts += ["", emit_table(name, what, ranges), "", emit_lookup(name)]
    parts += ["", emit_lower_strip()]
    return "\n".join(parts) + "\n"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default_out = os.path.join(here, "..", "src", "util", "unicode_tables.c")
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", default=default_out, help="file to write")
    ap.add_argument("--check", action="store_true",
                    help="do not write; exit 1 if the file differs from what would be generated")
    args = ap.parse_args()
    text = generate()
    if args.check:
        try:
            with open(args.output, encoding="utf-8") as f:
                same = f.read() == text
        except FileNotFoundError:
            same = False
        if not same:
            print(f"{args.output} is out of date; rerun {sys.argv[0]}", file=sys.stderr)
            return 1
        return 0
    with open(args.output, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
