#!/usr/bin/env bash
# Install what Moreau needs from Debian (idempotent) and build it in build/ (Release).
#   scripts/setup.sh             build everything (scripts/test.sh: the tests too)
#   scripts/setup.sh TARGET...   build only those targets (scripts/demo.sh: the CLI and the library)
# MuJoCo 2.2.2 (libmujoco-dev, libmujoco-samples) is a test and benchmark oracle only.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(cmake ninja-build g++ pkg-config clang libclang-rt-14-dev
          libtinyxml2-dev libeigen3-dev libqhull-dev libccd-dev
          libcli11-dev nlohmann-json3-dev libpng-dev
          libgtest-dev libgmock-dev libbenchmark-dev
          libmujoco-dev libmujoco-samples
          python3-dev pybind11-dev python3-pybind11 python3-numpy python3-pytest
          python3-matplotlib python3-distributed python3-aiohttp python3-selenium
          chromium chromium-driver ffmpeg libjs-three)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
targets=()
(($#)) && targets=(--target "$@")
cmake --build "$BUILD_DIR" -j"${JOBS:-2}" "${targets[@]}"

# The Python package (build/python/moreau) for Debian's interpreter: a .pth file in its site folder
# points at the build tree, so `/usr/bin/python3 -c "import moreau"` works in any new shell.
PY=/usr/bin/python3
if [ -d "$BUILD_DIR/python/moreau" ]; then
  site=$("$PY" -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO mkdir -p "$site"
  echo "$(cd "$BUILD_DIR/python" && pwd)" | $SUDO tee "$site/moreau.pth" >/dev/null
fi
