#!/usr/bin/env bash
# web-deps.sh — builds the libraries the browser build links (SDL2, SDL2_ttf,
# FreeType, HarfBuzz, libpng, zlib, cJSON) with Debian's emscripten, from
# Debian's *source* packages, into a cache outside the repository.
#
# The sources come through `apt-get source` with a private sources list and
# state folder (-o Dir::Etc::SourceList=… -o Dir::State::Lists=…): the
# machine's apt configuration is not changed. dpkg-source unpacks each with
# Debian's patches applied. Each library is built once with the options its
# package's debian/rules uses, as far as they apply to a static wasm build
# (FreeType without HarfBuzz or bzip2, SDL2_ttf with HarfBuzz as on the
# desktop, no SDL audio or joystick, no HarfBuzz subsetter); a stamp per
# library (its source version and options) skips what is already built.
#
# Usage: scripts/web-deps.sh            prints the prefix on its last line
# Cache: $ATTNVIZ_WEB_CACHE, default ~/.cache/attnviz-web
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${ATTNVIZ_WEB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/attnviz-web}
prefix=$cache/prefix
jobs=$(nproc)
start=$(date +%s)
say() { echo "web-deps [$(( $(date +%s) - start )) s]: $*"; }

"$root/scripts/install-deps.sh" --web

# Debian's emscripten: its frozen cache of system libraries stays where it is
# (no EM_CACHE); its tools run under Debian's python and find Debian's node
# modules (the optimiser needs them).
export EMSDK_PYTHON=/usr/bin/python3
export NODE_PATH=/usr/share/nodejs

mkdir -p "$cache/apt/lists/partial" "$cache/src" "$cache/build" "$prefix"
sources=$cache/apt/sources.list
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
{
    for suite in bookworm bookworm-updates; do
        echo "deb-src [signed-by=$keyring] http://deb.debian.org/debian $suite main"
    done
    echo "deb-src [signed-by=$keyring] http://deb.debian.org/debian-security bookworm-security main"
} >"$sources"
apt_private=(-o "Dir::Etc::SourceList=$sources" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$cache/apt/lists" -o "Dir::Cache=$cache/apt" -o APT::Sandbox::User=root)

lists_stamp=$cache/apt/updated
if [ ! -f "$lists_stamp" ] || [ -n "$(find "$lists_stamp" -mmin +1440)" ]; then
    say "apt-get update (private source list)"
    apt-get "${apt_private[@]}" update -qq
    touch "$lists_stamp"
fi

# fetch PKG: downloads and unpacks the newest source of PKG the lists offer
# (the security archive's, else bookworm's when a mirror lacks the former);
# prints the unpacked folder.
fetch() {
    local pkg=$1 dsc
    cd "$cache/src"
    if ! apt-get "${apt_private[@]}" source --download-only -qq "$pkg" >/dev/null 2>&1; then
        apt-get "${apt_private[@]}" source --download-only -qq "$pkg/bookworm" >/dev/null 2>&1 ||
            { echo "web-deps: apt-get source $pkg failed" >&2; return 1; }
    fi
    dsc=$(ls -t "$cache/src/${pkg}"_*.dsc | head -1)
    local dir
    dir=$cache/src/$(basename "$dsc" .dsc)
    [ -d "$dir" ] || dpkg-source --no-check -x "$dsc" "$dir" >/dev/null
    echo "$dir"
}

# built NAME WANT: true when the stamp says WANT is built already
built() {
    [ -f "$prefix/.stamp-$1" ] && [ "$(cat "$prefix/.stamp-$1")" = "$2" ]
}

# configure_build NAME SRC OPTIONS…: the source's own ./configure under
# emconfigure, in a copy of SRC (configure builds in its tree).
configure_build() {
    local name=$1 src=$2
    shift 2
    local want
    want="$(basename "$src") $*"
    if built "$name" "$want"; then say "$name: built already"; return; fi
    say "$name: building ($(basename "$src"))"
    rm -rf "$cache/build/$name"
    cp -a "$src" "$cache/build/$name"
    (cd "$cache/build/$name" && emconfigure ./configure --prefix="$prefix" "$@" &&
        emmake make -j"$jobs" && make install) >"$cache/build/$name.log" 2>&1 ||
        { tail -30 "$cache/build/$name.log"; return 1; }
    echo "$want" >"$prefix/.stamp-$name"
}

# cmake_build NAME SRC OPTIONS…: configure, build and install SRC with emcmake
# unless the stamp says this source and these options are already built.
cmake_build() {
    local name=$1 src=$2
    shift 2
    local stamp=$prefix/.stamp-$name want
    want="$(basename "$src") $*"
    if built "$name" "$want"; then say "$name: built already"; return; fi
    say "$name: building ($(basename "$src"))"
    rm -rf "$cache/build/$name"
    emcmake cmake -S "$src" -B "$cache/build/$name" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_FIND_ROOT_PATH="$prefix" -DBUILD_SHARED_LIBS=OFF "$@" >"$cache/build/$name.log" 2>&1 ||
        { tail -30 "$cache/build/$name.log"; return 1; }
    cmake --build "$cache/build/$name" -j"$jobs" >>"$cache/build/$name.log" 2>&1 ||
        { tail -30 "$cache/build/$name.log"; return 1; }
    cmake --install "$cache/build/$name" >>"$cache/build/$name.log" 2>&1
    echo "$want" >"$stamp"
}

# debian/rules: zlib's own ./configure (the Debian source drops the win32
# folder its CMake build lists), static
configure_build zlib "$(fetch zlib)" --static
cmake_build libpng "$(fetch libpng1.6)" -DPNG_SHARED=OFF -DPNG_STATIC=ON -DPNG_TESTS=OFF \
    -DPNG_EXECUTABLES=OFF -DZLIB_ROOT="$prefix"
# debian/rules: --without-bzip2 --without-harfbuzz (HarfBuzz depends on FreeType)
cmake_build freetype "$(fetch freetype)" -DFT_DISABLE_HARFBUZZ=ON -DFT_DISABLE_BZIP2=ON \
    -DFT_DISABLE_BROTLI=ON -DFT_REQUIRE_ZLIB=ON -DFT_REQUIRE_PNG=ON
# debian/rules builds with meson; its CMake build has the same sources. No
# subsetter (attnviz never subsets fonts), no ICU/GLib/graphite (not linked by SDL2_ttf).
cmake_build harfbuzz "$(fetch harfbuzz)" -DHB_HAVE_FREETYPE=ON -DHB_BUILD_SUBSET=OFF \
    -DHB_HAVE_GLIB=OFF -DHB_HAVE_ICU=OFF -DHB_HAVE_GOBJECT=OFF -DHB_BUILD_UTILS=OFF
cmake_build sdl2 "$(fetch libsdl2)" -DSDL_SHARED=OFF -DSDL_STATIC=ON -DSDL_TEST=OFF \
    -DSDL_AUDIO=OFF -DSDL_JOYSTICK=OFF -DSDL_HAPTIC=OFF -DSDL_SENSOR=OFF -DSDL_THREADS=OFF
cmake_build sdl2_ttf "$(fetch libsdl2-ttf)" -DSDL2TTF_HARFBUZZ=ON -DSDL2TTF_VENDORED=OFF \
    -DSDL2TTF_SAMPLES=OFF -DSDL2TTF_INSTALL=ON
cmake_build cjson "$(fetch cjson)" -DENABLE_CJSON_TEST=OFF -DENABLE_CJSON_UTILS=OFF \
    -DENABLE_CUSTOM_COMPILER_FLAGS=OFF
say "done"
echo "$prefix"
