#!/usr/bin/python3
"""matplotlib_heatmap.py — what a course author would otherwise do: one
annotated 20×20 attention heatmap of the seed sentence, saved at 200 dpi.

Usage: matplotlib_heatmap.py OUT.png

The figure is the one attnviz's softmax step shows: a 20×20 matrix of weights
(rows summing to 1), every cell annotated with its value to two decimals, the
tokens of 这只动物没看见那只鸟，因为它飞得太快了。 as tick labels in a CJK font
(WenQuanYi Micro Hei, found by matplotlib's font manager, with DejaVu Sans for
the glyphs it lacks), a colour bar and a title. The weights are a fixed softmax of seeded random scores: the time does
not depend on the values. Prints the time spent in savefig alone, then a
machine-readable line:
    matplotlib: version=… savefig_ms=… script_ms=…
(script_ms: from the first import to the file written, without the
interpreter's own start-up, which bench/export_compare.sh measures around it.)
"""
import sys
import time

T0 = time.perf_counter()

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib import font_manager  # noqa: E402

TOKENS = list("这只动物没看见那只鸟，因为它飞得太快了。")


def cjk_font():
    """WenQuanYi Micro Hei if matplotlib can find it, else its default."""
    for f in font_manager.fontManager.ttflist:
        if f.name == "WenQuanYi Micro Hei":
            return f.name
    return None


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(1)
    s = rng.standard_normal((20, 20))
    w = np.exp(s - s.max(axis=1, keepdims=True))
    w /= w.sum(axis=1, keepdims=True)
    font = cjk_font()
    if font:  # CJK first, DejaVu Sans for ᵀ and ₖ (matplotlib >= 3.6 falls back per glyph)
        plt.rcParams["font.family"] = [font, "DejaVu Sans"]
    fig, ax = plt.subplots(figsize=(8, 7))
    im = ax.imshow(w, cmap="YlGnBu", vmin=0, vmax=1)
    ax.set_xticks(range(20), TOKENS)
    ax.set_yticks(range(20), TOKENS)
    for i in range(20):
        for j in range(20):
            ax.text(j, i, f"{w[i, j]:.2f}", ha="center", va="center", fontsize=6,
                    color="white" if w[i, j] > 0.5 else "black")
    ax.set_title("A = softmax(QKᵀ/√dₖ)  20×20")
    fig.colorbar(im, ax=ax)
    fig.tight_layout()
    t1 = time.perf_counter()
    fig.savefig(out, dpi=200)
    t2 = time.perf_counter()
    print(f"matplotlib {matplotlib.__version__}: savefig at 200 dpi {1000 * (t2 - t1):.1f} ms "
          f"(font {font or 'default'})")
    print(f"matplotlib: version={matplotlib.__version__} savefig_ms={1000 * (t2 - t1):.1f} "
          f"script_ms={1000 * (t2 - T0):.1f}")


if __name__ == "__main__":
    main()
