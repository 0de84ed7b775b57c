#!/usr/bin/env bash
# One command for everything on a fresh Debian 12 machine: installs the Debian packages mmtune
# needs (only those missing), configures and builds, then runs mmtune or the test suite.
#
#   scripts/dev.sh tune [mmtune options]   e.g. scripts/dev.sh tune --device 0 --n 2048
#   scripts/dev.sh test [ctest options]    the suite, then the ASan+UBSan suite and the fuzzers
#   scripts/dev.sh build | deps
#
# `test` runs three stages, each only when the one before passed: the CTest suite (ctest options
# apply to it), scripts/sanitize.sh (build-sanitize/) and scripts/fuzz.sh 60 (build-fuzz/). It
# prints each stage's time and exits non-zero naming the stage that failed.
# MMTUNE_TEST_QUICK=1 runs the CTest suite only.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MMTUNE_BUILD_DIR:-$root/build}

packages=(
  cmake ninja-build g++ pkg-config
  ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers clinfo
  pocl-opencl-icd mesa-opencl-icd  # two OpenCL implementations: PoCL and Mesa rusticl (llvmpipe)
  libspdlog-dev libcli11-dev libsqlite3-dev sqlite3 nlohmann-json3-dev
  libtomlplusplus-dev libmuparser-dev  # spec files of users' kernels: TOML and expressions
  libpq-dev postgresql  # PostgreSQL stores; the tests start a throwaway server
  googletest libgtest-dev
  libclblast-dev libopenblas-dev  # comparisons in `mmtune bench`
  clang libclang-rt-dev  # scripts/fuzz.sh: clang++ and its libFuzzer/ASan/UBSan runtimes
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
  sed -n '2,12p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
}

# Runs one stage of `test`, printing its wall time; a failure ends the script naming the stage.
stage() {
  local name=$1 start=$SECONDS rc=0
  shift
  echo "scripts/dev.sh: stage '$name'" >&2
  "$@" || rc=$?
  echo "scripts/dev.sh: stage '$name' took $((SECONDS - start)) s" >&2
  if [ "$rc" -ne 0 ]; then
    echo "scripts/dev.sh: stage '$name' failed (exit $rc)" >&2
    exit "$rc"
  fi
}

suite() {
  (cd "$build" && ctest --output-on-failure --parallel "$(nproc)" "$@")
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case "$cmd" in
  tune) install_deps; build; exec "$build/tuner/mmtune" "$@" ;;
  test)
    install_deps; build
    stage "test suite" suite "$@"
    [ "${MMTUNE_TEST_QUICK:-0}" = 1 ] && exit 0
    stage "sanitizer suite" "$root/scripts/sanitize.sh"
    stage "fuzzing" "$root/scripts/fuzz.sh" 60
    echo "scripts/dev.sh: every stage passed" >&2
    ;;
  build) install_deps; build ;;
  deps) install_deps ;;
  *) usage; exit 2 ;;
esac
