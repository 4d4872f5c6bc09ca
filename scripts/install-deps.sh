#!/usr/bin/env bash
# Installs the Debian packages attnviz needs to build, run and test (--test)
# or to run the benchmarks under bench/ (--bench), or to build the libraries
# of the browser build (--web). --test adds chromium for
# the browser tests of --format html, and Node.js with npm when there is no node.
# Only what is missing is installed; as root directly, otherwise through sudo.
set -euo pipefail

build_pkgs="build-essential cmake pkg-config libsdl2-dev libsdl2-ttf-dev libsdl2-image-dev
libcjson-dev libcmocka-dev libfontconfig-dev libpng-dev zlib1g-dev fonts-wqy-microhei fonts-dejavu-core fonts-symbola"
# texlive-*, lmodern: tests/export/compile_tex.sh compiles every .tex an export writes (xelatex + ctex;
# beamer), and pandoc turns the handouts into PDF through xelatex; clang-format: tests/format
test_pkgs="python3-numpy xvfb xauth clang libclang-rt-14-dev valgrind librsvg2-bin libxml2-utils chromium
texlive-xetex texlive-lang-chinese texlive-latex-recommended texlive-fonts-recommended lmodern pandoc clang-format"
bench_pkgs="python3-numpy python3-matplotlib python3-torch" # bench/: the numpy head, the matplotlib heatmap, the PyTorch training
web_pkgs="emscripten dpkg-dev cmake make" # scripts/web-deps.sh: the compiler, dpkg-source

want="$build_pkgs"
[ "${1:-}" = "--test" ] && want="$build_pkgs $test_pkgs"
# the browser tests' npm client: the machine's Node.js if it has one, else Debian's
[ "${1:-}" = "--test" ] && ! command -v npm >/dev/null && want="$want nodejs npm"
[ "${1:-}" = "--bench" ] && want="$build_pkgs $bench_pkgs"
[ "${1:-}" = "--web" ] && want="$web_pkgs"

missing=""
for p in $want; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
if [ -z "$missing" ]; then
    echo "install-deps: every package is already installed"
    exit 0
fi

echo "install-deps: installing:$missing"
sudo_cmd=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "install-deps: not root and no sudo; install:$missing" >&2; exit 1; }
    sudo_cmd="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$sudo_cmd apt-get update -qq
# shellcheck disable=SC2086
$sudo_cmd apt-get install -y -qq --no-install-recommends $missing
