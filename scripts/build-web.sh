#!/usr/bin/env bash
# build-web.sh — attnviz for the browser: one static folder, build-web/site/,
# that any web server can host (python3 -m http.server -d build-web/site).
#
# scripts/web-deps.sh first builds the libraries from Debian's source
# packages with Debian's emscripten into a cache outside the repository
# (once: about 15 minutes on 2 cores; then seconds). Then attnviz itself is
# built with emcc (build-web/cmake) and the site gathered:
#   index.html, attnviz-page.js   the page of our own (web/)
#   attnviz.js, attnviz.wasm      the program
#   attnviz.data                  the data bundle: lessons, strings, shipped
#                                 models, fonts copied from Debian's packages
#   fonts/Symbola_hint.ttf        emoji and rare symbols, fetched only when a
#                                 glyph needs it (from fonts-symbola)
#   favicon.svg                   attnviz's icon
#   NOTICE                        the licences of what the site ships
# Usage: scripts/build-web.sh        (prints the site's folder last)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
prefix=$("$root/scripts/web-deps.sh" | tail -1)
# Debian's emscripten: its own frozen cache (no EM_CACHE), Debian's python
# and node modules
export EMSDK_PYTHON=/usr/bin/python3
export NODE_PATH=/usr/share/nodejs
out=$root/build-web
emcmake cmake -S "$root" -B "$out/cmake" -DCMAKE_BUILD_TYPE=Release -DATTNVIZ_WEB_PREFIX="$prefix" >/dev/null
cmake --build "$out/cmake" -j"$(nproc)"

# notice: what the site ships and under which licence, with each package's
# own copyright file (the fonts' from Debian's font packages, the
# libraries' from the unpacked sources web-deps.sh built)
notice() {
    local cache
    cache=$(dirname "$prefix")
    cat <<'TXT'
attnviz in the browser ships, besides attnviz itself (see LICENSE in its
repository), these works, unchanged, built from Debian 12's packages:

  WenQuanYi Micro Hei (fonts-wqy-microhei)   Apache-2.0 or GPL-3 with font exception
  DejaVu Sans, DejaVu Sans Mono (fonts-dejavu-core)   Bitstream Vera licence, public domain
  Symbola (fonts-symbola)                    free for any use (George Douros's licence; see below)
  SDL2 (libsdl2)                             zlib licence
  SDL2_ttf (libsdl2-ttf)                     zlib licence
  FreeType (freetype)                        FreeType licence (FTL) or GPL-2
  HarfBuzz (harfbuzz)                        MIT ("Old MIT")
  libpng (libpng1.6)                         libpng licence
  zlib (zlib)                                zlib licence
  cJSON (cjson)                              MIT
  Emscripten's runtime and libc (musl)       MIT / University of Illinois NCSA

Each package's copyright file follows.
TXT
    local f
    for f in /usr/share/doc/fonts-wqy-microhei/copyright /usr/share/doc/fonts-dejavu-core/copyright \
        /usr/share/doc/fonts-symbola/copyright \
        "$cache"/src/libsdl2_*/debian/copyright "$cache"/src/libsdl2-ttf_*/debian/copyright \
        "$cache"/src/freetype_*/debian/copyright "$cache"/src/harfbuzz_*/debian/copyright \
        "$cache"/src/libpng1.6_*/debian/copyright "$cache"/src/zlib_*/debian/copyright \
        "$cache"/src/cjson_*/debian/copyright /usr/share/doc/emscripten/copyright; do
        [ -f "$f" ] || continue
        printf '\n==== %s ====\n\n' "$f"
        cat "$f"
    done
}

# gathered beside the site, then swapped in: never a half-made site
site=$out/site
rm -rf "$site.new"
mkdir -p "$site.new"
cp "$out"/cmake/attnviz.js "$out"/cmake/attnviz.wasm "$out"/cmake/attnviz.data "$site.new/"
cp "$root"/web/index.html "$root"/web/attnviz-page.js "$site.new/"
cp "$root"/assets/attnviz.svg "$site.new/favicon.svg"
# not in attnviz.data, which the first frame waits for: viz_fonts.c fetches
# it the first time a glyph is missing from the bundled fonts
mkdir -p "$site.new/fonts"
cp /usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf "$site.new/fonts/"
notice >"$site.new/NOTICE"
rm -rf "$site"
mv "$site.new" "$site"
echo "$site"
