#!/usr/bin/env bash
# The package test (ctest: package): install the build into a fresh prefix under the build directory,
# then, as a user outside the tree would,
#   1. build tests/package with find_package(moreau) against the shared library, and run it;
#   2. the same with MOREAU_USE_STATIC_LIBS=ON (libmoreau.a; the executable must not need libmoreau.so);
#   3. compile main.cc with g++ $(pkg-config --cflags --libs moreau) and run it, and link it
#      statically with pkg-config --static;
#   4. run the installed CLI on the installed humanoid.
# Each consumer loads, steps and checks the installed share/moreau/models/humanoid.xml.
#   tests/package/run.sh BUILD_DIR CXX_COMPILER CMAKE_GENERATOR LIBDIR (CMAKE_INSTALL_LIBDIR, e.g. lib)
set -euo pipefail
build=$(cd "$1" && pwd)
cxx=$2
generator=$3
lib=$4
here=$(cd "$(dirname "$0")" && pwd)
work=$build/package-test
prefix=$work/prefix
rm -rf "$work"
mkdir -p "$work"

cmake --install "$build" --prefix "$prefix" >/dev/null
model=$prefix/share/moreau/models/humanoid.xml
for f in "$prefix/include/moreau/moreau.h" "$prefix/$lib/libmoreau.a" "$prefix/$lib/libmoreau.so" \
         "$prefix/$lib/pkgconfig/moreau.pc" "$prefix/$lib/cmake/moreau/moreauConfigVersion.cmake" "$model"; do
  [ -e "$f" ] || { echo "package: $f was not installed" >&2; exit 1; }
done
# No installed header may include Eigen or tinyxml2: they are private dependencies.
if grep -rlE '#include *[<"](Eigen|tinyxml2)' "$prefix/include"; then
  echo "package: an installed header includes a private dependency" >&2
  exit 1
fi

for kind in shared static; do
  static=OFF; [ "$kind" = static ] && static=ON
  cmake -S "$here" -B "$work/cmake-$kind" -G "$generator" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_PREFIX_PATH="$prefix" -DMOREAU_USE_STATIC_LIBS=$static >/dev/null
  cmake --build "$work/cmake-$kind" >/dev/null
  needs_so=no
  readelf -d "$work/cmake-$kind/consumer" | grep -q 'NEEDED.*libmoreau\.so' && needs_so=yes
  if [ "$kind" = shared ] && [ $needs_so = no ]; then echo "package: the shared consumer does not link libmoreau.so" >&2; exit 1; fi
  if [ "$kind" = static ] && [ $needs_so = yes ]; then echo "package: the static consumer links libmoreau.so" >&2; exit 1; fi
  out=$("$work/cmake-$kind/consumer" "$model")
  echo "cmake ($kind): $out"
done

export PKG_CONFIG_PATH=$prefix/$lib/pkgconfig
# shellcheck disable=SC2046  # pkg-config's output is a list of flags
"$cxx" -O1 -o "$work/pkgconfig-consumer" "$here/main.cc" $(pkg-config --cflags --libs moreau) -Wl,-rpath,"$prefix/$lib"
echo "pkg-config: $("$work/pkgconfig-consumer" "$model")"
# A static link: libmoreau.a, then what it needs (pkg-config --static).
# shellcheck disable=SC2046
"$cxx" -O1 -o "$work/pkgconfig-static-consumer" "$here/main.cc" $(pkg-config --cflags moreau) \
       -Wl,-Bstatic $(pkg-config --libs moreau) -Wl,-Bdynamic $(pkg-config --static --libs moreau)
if readelf -d "$work/pkgconfig-static-consumer" | grep -q 'NEEDED.*libmoreau\.so'; then
  echo "package: the static pkg-config consumer links libmoreau.so" >&2
  exit 1
fi
echo "pkg-config (static): $("$work/pkgconfig-static-consumer" "$model")"

# The installed CLI reads the installed model and reports the size the consumers saw ("nq N ...").
info=$("$prefix/bin/moreau" info "$model")
nq=${out#nq }
nq=${nq%% *}
grep -q "\"nq\":$nq," <<<"$info" || { echo "package: installed CLI: $info (consumer: nq $nq)" >&2; exit 1; }
echo "installed CLI: $info"
