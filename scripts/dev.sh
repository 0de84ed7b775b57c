#!/usr/bin/env bash
# One command for everything on a fresh Debian 12 machine: installs the Debian packages mmtune
# needs (only those missing), configures and builds, then runs mmtune or the test suite.
#
#   scripts/dev.sh tune [mmtune options]   e.g. scripts/dev.sh tune --n 2048: installs and builds
#                                          only what mmtune itself needs, then tunes
#   scripts/dev.sh test [ctest options]    adds what the tests need; the suite, then the
#                                          ASan+UBSan suite and the fuzzers
#   scripts/dev.sh build | deps            everything, for development
#
# `test` runs three stages, each only when the one before passed: the CTest suite (ctest options
# apply to it), scripts/sanitize.sh (build-sanitize/) and scripts/fuzz.sh 60 (build-fuzz/). It
# prints each stage's time and exits non-zero naming the stage that failed.
# MMTUNE_TEST_QUICK=1 runs the CTest suite only.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MMTUNE_BUILD_DIR:-$root/build}

# What the main job (`tune`, `build`) needs: a compiler, CMake, OpenCL with PoCL, and the
# libraries mmtune links.
main_packages=(
  cmake ninja-build g++ pkg-config
  ocl-icd-opencl-dev opencl-c-headers opencl-clhpp-headers pocl-opencl-icd
  libspdlog-dev libcli11-dev libsqlite3-dev nlohmann-json3-dev
  libtomlplusplus-dev libmuparser-dev  # spec files of users' kernels: TOML and expressions
  libpq-dev                            # PostgreSQL stores (--db postgresql://...)
)
# What `test` adds: the second OpenCL implementation, a throwaway PostgreSQL server, GoogleTest,
# CLBlast and OpenBLAS for the comparisons, clang and its sanitizer/libFuzzer runtimes, and llvm
# for the sanitizers' symbolizer.
test_packages=(
  mesa-opencl-icd clinfo sqlite3 postgresql googletest libgtest-dev
  libclblast-dev libopenblas-dev clang libclang-rt-dev llvm
  locales  # a decimal-comma locale the store tests build: numbers stay locale-free
)

logs=$build/logs

# Runs "$@" with its output in $logs/$1.log: one line when it works, the log's end when not.
quietly() {
  local name=$1 log
  shift
  mkdir -p "$logs"
  log=$logs/$name.log
  if ! "$@" >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "scripts/dev.sh: $name failed; the whole output is in $log" >&2
    return 1
  fi
}

install_deps() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "scripts/dev.sh: installing ${#missing[@]} Debian packages: ${missing[*]}" >&2
  local sudo=()
  [ "$(id -u)" -ne 0 ] && sudo=(sudo)
  quietly apt-get "${sudo[@]}" apt-get update -q
  quietly apt-get "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    --no-install-recommends "${missing[@]}"
}

# `build main`: the library and the mmtune program; `build all`: also the tests and benchmarks.
build() {
  local what=$1 start=$SECONDS tests=OFF target=(--target mmtune-cli)
  [ "$what" = all ] && tests=ON target=()
  echo "scripts/dev.sh: building ($what; log in $logs/build.log)" >&2
  quietly build cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DMMTUNE_BUILD_TESTS=$tests --fresh
  quietly build cmake --build "$build" --parallel "$(nproc)" "${target[@]}"
  echo "scripts/dev.sh: built in $((SECONDS - start)) s" >&2
}

usage() {
  sed -n '2,14p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
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
  tune) install_deps "${main_packages[@]}"; build main; exec "$build/tuner/mmtune" "$@" ;;
  test)
    install_deps "${main_packages[@]}" "${test_packages[@]}"; build all
    stage "test suite" suite "$@"
    [ "${MMTUNE_TEST_QUICK:-0}" = 1 ] && exit 0
    stage "sanitizer suite" "$root/scripts/sanitize.sh"
    stage "fuzzing" "$root/scripts/fuzz.sh" 60
    echo "scripts/dev.sh: every stage passed" >&2
    ;;
  build) install_deps "${main_packages[@]}" "${test_packages[@]}"; build all ;;
  deps) install_deps "${main_packages[@]}" "${test_packages[@]}" ;;
  *) usage; exit 2 ;;
esac
