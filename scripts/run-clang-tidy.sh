#!/usr/bin/env bash
# clang-tidy with the checked-in .clang-tidy over the project's own sources (generated protobuf
# code excluded), every warning an error, plus clang's thread-safety analysis of the Abseil lock
# annotations (-Wthread-safety: the build itself uses g++, which has no such analysis).
# usage: run-clang-tidy.sh BUILD_DIR   (a configured build with compile_commands.json)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: run-clang-tidy.sh BUILD_DIR}
log="$build/clang-tidy.log"
count=$(git ls-files 'core/*.cc' 'server/*.cc' 'client/*.cc' 'loadgen/*.cc' 'transport/*.cc' \
  'proto/resched/*.cc' 'bench/*.cc' |
  tee "$build/clang-tidy.files" | wc -l)
if ! xargs -P "$(nproc)" -n 4 clang-tidy -p "$build" --quiet --warnings-as-errors='*' \
  --extra-arg=-Wthread-safety <"$build/clang-tidy.files" >"$log" 2>&1; then
  grep -E '(warning|error): ' "$log" | sort -u | head -n 100
  echo "clang-tidy: failed (whole log: $log)" >&2
  exit 1
fi
echo "clang-tidy: $count files, no warnings"
