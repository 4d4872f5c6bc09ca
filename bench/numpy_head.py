#!/usr/bin/python3
"""numpy_head.py — one full attention head in numpy float64, timed.

Usage: numpy_head.py [N [D [REPS [Z_FROM_C]]]]   (defaults 2048 64 10)

Shapes: q, k, v, z: (N, D); s: (N, N). The inputs are the attention core's
PRNG (attn_prng_uniform: splitmix64, counter based) redrawn here with numpy's
uint64 arithmetic, seed 1, streams 0, 1, 2 for q, k, v, values in [-1, 1]: the
same numbers bench/c_head.c uses, so both sides compute the same head. The head
is written the way a numpy user would, in place where numpy allows:
    s = q @ k.T; s /= sqrt(d); s -= s.max(1); exp(s); s /= s.sum(1); z = s @ v
Prints the best and median of REPS timed runs after a warm-up, which BLAS
numpy calls and with how many threads, and — given Z_FROM_C, the raw doubles
c_head.c wrote — the largest difference from C's z. Last line, machine-readable:
    numpy: n=… d=… best_ms=… median_ms=… blas=… threads=… max_diff_vs_c=…
"""
import os
import statistics
import sys
import time

import numpy as np

GOLDEN = 0x9E3779B97F4A7C15
MASK64 = (1 << 64) - 1


def splitmix64_int(x):
    """splitmix64 on one Python int (mod 2^64), as attn_stages.c."""
    x = (x + GOLDEN) & MASK64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def splitmix64_array(x):
    """The same on a uint64 array; numpy's uint64 arithmetic wraps mod 2^64."""
    x = x + np.uint64(GOLDEN)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def prng_uniform(seed, stream, count, limit):
    """attn_prng_uniform(seed, stream, i, limit) for i = 0 .. count-1."""
    key = splitmix64_int(((seed << 32) | stream) & MASK64)
    idx = np.arange(count, dtype=np.uint64)
    with np.errstate(over="ignore"):
        r = splitmix64_array(np.uint64(key) + idx * np.uint64(GOLDEN))
    u = (r >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)
    return (2.0 * u - 1.0) * limit


def head(q, k, v):
    """z = softmax(q·kᵀ / sqrt(d)) · v, row-wise softmax after subtracting the max."""
    s = q @ k.T
    s /= np.sqrt(q.shape[1])
    s -= s.max(axis=1, keepdims=True)
    np.exp(s, out=s)
    s /= s.sum(axis=1, keepdims=True)
    return s @ v


def blas_info():
    """(name, threads): threadpoolctl when it knows the library, else the BLAS
    shared object mapped into this process (numpy links libblas.so.3, which
    Debian's alternatives point at the reference BLAS or at OpenBLAS)."""
    try:
        from threadpoolctl import threadpool_info
        for lib in threadpool_info():
            if lib.get("user_api") == "blas":
                name = "%s-%s(%s)" % (lib.get("internal_api"), lib.get("version"),
                                      lib.get("architecture"))
                return name, lib.get("num_threads")
    except ImportError:
        pass
    with open("/proc/self/maps") as maps:
        paths = {line.split()[-1] for line in maps if "blas" in line and "/" in line}
    names = sorted(os.path.realpath(p) for p in paths)
    for path in names:
        if "openblas" in path:
            return "openblas:" + path, os.environ.get("OPENBLAS_NUM_THREADS", "?")
    for path in names:
        if "/blas/" in path:
            return "reference-blas(netlib):" + path, 1
    return ("unknown:" + ",".join(names)) if names else "unknown", "?"


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2048
    d = int(sys.argv[2]) if len(sys.argv) > 2 else 64
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    z_from_c = sys.argv[4] if len(sys.argv) > 4 else None
    q = prng_uniform(1, 0, n * d, 1.0).reshape(n, d)
    k = prng_uniform(1, 1, n * d, 1.0).reshape(n, d)
    v = prng_uniform(1, 2, n * d, 1.0).reshape(n, d)

    z = head(q, k, v)  # warm-up
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        z = head(q, k, v)
        times.append(time.perf_counter() - t0)
    best, median = min(times) * 1e3, statistics.median(times) * 1e3

    blas, threads = blas_info()
    env = ", ".join("%s=%s" % (key, os.environ[key])
                    for key in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS")
                    if key in os.environ) or "none"
    diff = "n/a"
    if z_from_c:
        zc = np.fromfile(z_from_c, dtype=np.float64).reshape(n, d)
        diff = "%.3g" % float(np.max(np.abs(zc - z)))
    print("numpy %s float64 (%s, %s threads; OpenBLAS variables: %s): best %8.2f ms, "
          "median %8.2f ms over %d runs" % (np.__version__, blas, threads, env, best, median, reps))
    if z_from_c:
        print("numpy vs C: max |z difference| = %s" % diff)
    print("numpy: n=%d d=%d best_ms=%.3f median_ms=%.3f blas=%s threads=%s max_diff_vs_c=%s"
          % (n, d, best, median, blas.split(":")[0], threads, diff))


if __name__ == "__main__":
    main()
