#!/usr/bin/env bash
# One command for everything on a fresh Debian 12 machine: installs the Debian packages mmtune
# needs (only those missing), configures and builds, then runs mmtune or the test suite.
#
#   scripts/dev.sh tune [mmtune options]   e.g. scripts/dev.sh tune --device 0 --n 2048
#   scripts/dev.sh test [ctest options]
#   scripts/dev.sh build | deps
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MMTUNE_BUILD_DIR:-$root/build}

packages=(
  cmake ninja-build g++ pkg-config
  ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers pocl-opencl-icd clinfo
  libspdlog-dev libcli11-dev libsqlite3-dev sqlite3 nlohmann-json3-dev
  libpq-dev postgresql  # PostgreSQL stores; the tests start a throwaway server
  googletest libgtest-dev
  libclblast-dev libopenblas-dev  # comparisons in `mmtune bench`
)

install_deps() {
  local missing=() p
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "scripts/dev.sh: installing ${missing[*]}" >&2
  local sudo=()
  [ "$(id -u)" -ne 0 ] && sudo=(sudo)
  "${sudo[@]}" apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >&2
}

build() {
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >&2
  cmake --build "$build" --parallel "$(nproc)" >&2
}

usage() {
  sed -n '2,9p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
  tune) install_deps; build; exec "$build/tuner/mmtune" "$@" ;;
  test)
    install_deps; build
    cd "$build"
    exec ctest --output-on-failure --parallel "$(nproc)" "$@"
    ;;
  build) install_deps; build ;;
  deps) install_deps ;;
  *) usage; exit 2 ;;
esac
