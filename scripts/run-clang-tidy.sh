#!/usr/bin/env bash
# clang-tidy with the checked-in .clang-tidy over the project's own sources (generated protobuf
# code excluded), every warning an error, plus clang's thread-safety analysis of the Abseil lock
# annotations (-Wthread-safety: the build itself uses g++, which has no such analysis).
#
# By default only what changed since .ci/clang-tidy-baseline is checked: a commit of main whose
# sources all passed this script (the baseline moves only to a commit this script passed on,
# checking what changed since the previous one, so by induction every file of it is clean). A file is checked when it, or any header it includes
# (the build's depfiles say which, generated protobuf headers included), differs from the
# baseline; an unchanged file with unchanged includes gives the same clang-tidy answer. The
# whole tree is checked with --all, when the baseline is unknown, or when .clang-tidy or the
# top-level CMakeLists.txt (compile flags) changed, its comments aside. --list prints the files
# it would check.
# usage: run-clang-tidy.sh BUILD_DIR [--all|--list]   (a configured and built Release build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: run-clang-tidy.sh BUILD_DIR [--all|--list]}
build=$(realpath "$build")
mode=${2:-changed}
log="$build/clang-tidy.log"
files="$build/clang-tidy.files"
git ls-files 'core/*.cc' 'server/*.cc' 'client/*.cc' 'loadgen/*.cc' 'transport/*.cc' \
  'proto/resched/*.cc' 'bench/*.cc' 'bridge/*.cc' >"$build/clang-tidy.all"
total=$(wc -l <"$build/clang-tidy.all")

baseline=$(cat .ci/clang-tidy-baseline 2>/dev/null || true)
if [[ $mode != --all ]] && ! git cat-file -e "${baseline:-none}^{commit}" 2>/dev/null; then
  echo "clang-tidy: baseline '${baseline}' is not in this clone: checking every file"
  mode=--all
fi
if [[ $mode != --all ]]; then
  # Tracked files changed since the baseline, committed or not, and new untracked ones.
  changed=$( (git diff --name-only "$baseline" --; git ls-files --others --exclude-standard) |
    sort -u)
  # The top-level CMakeLists.txt sets the compile flags: a change of it other than in its
  # comments, blank lines and add_subdirectory lines (whose new files are checked as new)
  # changes every file's compile command.
  flags_changed=false
  if grep -qx 'CMakeLists\.txt' <<<"$changed" &&
    git diff -U0 "$baseline" -- CMakeLists.txt | grep -E '^[-+]' | grep -vE '^(\+\+\+|---) ' |
    grep -vqE '^[-+][[:space:]]*((#.*)?|add_subdirectory\([A-Za-z0-9_/.-]+\))$'; then
    flags_changed=true
  fi
  if grep -qx '\.clang-tidy' <<<"$changed" || $flags_changed; then
    echo "clang-tidy: its configuration or the compile flags changed: checking every file"
    mode=--all
  fi
fi

if [[ $mode == --all ]]; then
  cp "$build/clang-tidy.all" "$files"
else
  # Patterns a depfile line holds when it names a changed header: the header's own path, or
  # the protobuf header generated from a changed .proto.
  patterns="$build/clang-tidy.patterns"
  {
    grep -E '\.h$' <<<"$changed" | sed 's|^|/|' || true
    grep -E '\.proto$' <<<"$changed" | sed -E 's|.*/([^/]+)\.proto$|/\1.pb.h\n/\1.grpc.pb.h|' ||
      true
  } >"$patterns"
  # Each built object's depfile by its source (the depfile's first prerequisite).
  find "$build" -path '*/CMakeFiles/*' -name '*.o.d' -print0 |
    xargs -0 awk '{ for (i = 1; i <= NF; ++i) if ($i !~ /:$/ && $i != "\\") {
      print $i, FILENAME; nextfile } }' >"$build/clang-tidy.depfiles"
  depdir="$build/clang-tidy.deps"
  mkdir -p "$depdir"
  {
    grep -xF -f "$build/clang-tidy.all" <<<"$changed" || true
    # Includers of changed headers, when there are any.
    if [[ -s $patterns ]]; then while read -r source; do
      mapfile -t deps < <(awk -v src="$PWD/$source" '$1 == src { print $2 }' \
        "$build/clang-tidy.depfiles")
      if [[ ${#deps[@]} -eq 0 ]]; then
        # Not built here (a benchmark, outside make test's build): its includes from the
        # preprocessor, with the compile command CMake recorded.
        deps=("$depdir/${source//\//_}.d")
        command=$(jq -r --arg src "$PWD/$source" \
          '[.[] | select(.file == $src)][0] | "cd \(.directory) && \(.command)"' \
          "$build/compile_commands.json" | sed -E 's| -o [^ ]+| -o /dev/null|')
        (eval "$command -M -MF ${deps[0]}") || { echo "$source"; continue; }
      fi
      if grep -qF -f "$patterns" "${deps[@]}"; then echo "$source"; fi
    done <"$build/clang-tidy.all"; fi
  } | sort -u >"$files"
fi

count=$(wc -l <"$files")
if [[ ${2:-} == --list ]]; then
  cat "$files"
  exit 0
fi
if [[ $count -gt 0 ]] && ! xargs -P "$(nproc)" -n 4 clang-tidy -p "$build" --quiet \
  --warnings-as-errors='*' --extra-arg=-Wthread-safety <"$files" >"$log" 2>&1; then
  grep -E '(warning|error): ' "$log" | sort -u | head -n 100
  echo "clang-tidy: failed (whole log: $log)" >&2
  exit 1
fi
if [[ $mode == --all ]]; then
  echo "clang-tidy: $count files, no warnings"
else
  echo "clang-tidy: $count of $total files (changed since ${baseline:0:12} or including a" \
    "changed header), no warnings"
fi
