#!/usr/bin/env bash
# Keeps docs/experiments.md true to the binary: every table there sits in a block that names the
# resched-experiment command producing it, and this script re-runs those commands.
#
#   scripts/check-experiments.sh [--build DIR]            CI: re-run the small-scale blocks and
#       fail when the doc differs from what the binary prints; check that no full-scale block
#       was edited by hand (each carries the SHA-256 of its text) and that none is stale (each
#       carries the digest of what the binary is built from when it was generated: core/,
#       bench/experiment/ and the top CMakeLists.txt; any change there may change its figures)
#   scripts/check-experiments.sh --update                 rewrite the small-scale blocks
#   scripts/check-experiments.sh --full                   also re-run the full-scale blocks and
#       rewrite them with the date and the commit
#   --only TEXT   only the blocks whose command contains TEXT (the others are kept as they are)
#   --doc FILE    another file than docs/experiments.md
# In the CI mode, a paragraph that names blocks with `<!-- figures from: ARGS -->` may quote only
# figures those blocks print, and one that holds numbers names its blocks or says why its numbers
# are not results (scripts/check_prose_figures.py).
#
# A block in the doc:
#   <!-- experiment ci: stretch-moldable --tasks 1000 --seeds 2 -->
#   ...what the command prints on standard output...
#   <!-- end experiment -->
# Full-scale blocks say `experiment full:` and end with
# `<!-- end experiment sha256=HEX inputs=HEX -->`; one without `inputs=` fails, its staleness
# unknown.
# The logs come from $RESCHED_DATA_DIR, else the nearest shared/data above the repository.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
build="$root/build"
doc="$root/docs/experiments.md"
mode=check
only=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --build) build="$2"; shift 2 ;;
    --update) mode=update; shift ;;
    --full) mode=full; shift ;;
    --only) only="$2"; shift 2 ;;
    --doc) doc="$2"; shift 2 ;;
    *) echo "check-experiments: unknown argument $1" >&2; exit 2 ;;
  esac
done
binary="$build/bench/resched-experiment"
if [[ ! -x "$binary" ]]; then
  echo "check-experiments: $binary is missing: build first (make build)" >&2
  exit 2
fi
if [[ -z "${RESCHED_DATA_DIR:-}" ]]; then
  dir="$root"
  while [[ "$dir" != / && ! -d "$dir/shared/data/swf" ]]; do dir="$(dirname "$dir")"; done
  if [[ ! -d "$dir/shared/data/swf" ]]; then
    echo "check-experiments: no shared/data above $root; set RESCHED_DATA_DIR" >&2
    exit 2
  fi
  export RESCHED_DATA_DIR="$dir/shared/data"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# A copy, so that a rebuild during a long --full run cannot swap the binary under it.
cp "$binary" "$work/resched-experiment"
binary="$work/resched-experiment"
commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
# Only changes to what the binary is built from make the commit an imprecise label.
if [[ -n "$(git -C "$root" status --porcelain --untracked-files=no -- core bench CMakeLists.txt \
  2>/dev/null)" ]]; then
  commit="$commit (with uncommitted changes)"
fi

# One experiment's stdout, stderr and status (0 or 1) in DIR.
run_into() {
  local dir="$1" args="$2"
  # shellcheck disable=SC2086  # the command line is split into its words on purpose
  if "$binary" $args --out "$dir/out" >"$dir/stdout" 2>"$dir/stderr"; then
    echo 0 >"$dir/status"
  else
    echo 1 >"$dir/status"
  fi
}

# The small-scale blocks' commands, run side by side before the doc is read (each experiment runs
# on one core): their outputs in $work/ahead/N, by command.
declare -A ahead=()
slots=$(nproc)
running=0
count=0
while IFS= read -r args; do
  [[ -z "$only" || "$args" == *"$only"* ]] || continue
  [[ -z "${ahead[$args]:-}" ]] || continue
  count=$((count + 1))
  dir="$work/ahead/$count"
  mkdir -p "$dir/out"
  ahead["$args"]="$dir"
  run_into "$dir" "$args" &
  running=$((running + 1))
  if [[ $running -ge $slots ]]; then
    wait -n || true
    running=$((running - 1))
  fi
done < <(sed -nE 's/^<!-- experiment ci: (.*) -->$/\1/p' "$doc")
wait

# Standard output of one experiment, without leading or trailing blank lines: run ahead, or now.
run_experiment() {
  local args="$1" dir="${ahead[$1]:-}"
  if [[ -z "$dir" ]]; then
    dir="$work/now"
    rm -rf "$dir" && mkdir -p "$dir/out"
    run_into "$dir" "$args"
  fi
  if [[ "$(cat "$dir/status")" != 0 ]]; then
    echo "check-experiments: '$args' failed:" >&2
    cat "$dir/stderr" >&2
    return 1
  fi
  sed -e '/./,$!d' "$dir/stdout"  # the caller's $(...) drops the trailing ones
}

digest() { sha256sum | cut -d' ' -f1; }

# The digest of what the binary is built from, in the working tree (uncommitted changes too): each
# file's SHA-256 and path, in path order.
inputs_digest() {
  (cd "$root" && git ls-files -co --exclude-standard -- core bench/experiment CMakeLists.txt |
    LC_ALL=C sort -u | while IFS= read -r file; do [[ -f "$file" ]] && printf '%s\n' "$file"; done |
    xargs -d '\n' sha256sum -- | digest)
}
inputs="$(inputs_digest)"

failures=0
new_doc="$work/doc.md"
: >"$new_doc"
begin_marker='^<!-- experiment (ci|full): (.*) -->$'
end_marker='^<!-- end experiment( sha256=([0-9a-f]+))?( inputs=([0-9a-f]+))? -->$'
block="" scale="" args="" in_block=false start_line=0
line_number=0
while IFS= read -r line || [[ -n "$line" ]]; do
  line_number=$((line_number + 1))
  if ! $in_block; then
    printf '%s\n' "$line" >>"$new_doc"
    if [[ "$line" =~ $begin_marker ]]; then
      scale="${BASH_REMATCH[1]}" args="${BASH_REMATCH[2]}" block="" in_block=true
      start_line=$line_number
    fi
    continue
  fi
  if [[ ! "$line" =~ $end_marker ]]; then
    block+="$line"$'\n'
    continue
  fi
  recorded="${BASH_REMATCH[2]}" recorded_inputs="${BASH_REMATCH[4]}"
  in_block=false
  old="$(printf '%s' "$block" | sed -e '/./,$!d')"  # as run_experiment trims its output
  selected=true
  [[ -z "$only" || "$args" == *"$only"* ]] || selected=false
  if [[ "$scale" == ci ]] && ! $selected; then
    printf '%s\n<!-- end experiment -->\n' "$old" >>"$new_doc"
    continue
  fi
  if [[ "$scale" == ci ]]; then
    echo "check-experiments: $args" >&2
    if ! fresh="$(run_experiment "$args")"; then
      failures=$((failures + 1))
      printf '%s\n<!-- end experiment -->\n' "$old" >>"$new_doc"
      continue
    fi
    if [[ "$fresh" != "$old" && "$mode" == check ]]; then
      echo "check-experiments: $doc:$start_line differs from what '$args' prints" \
        "(re-run with --update after checking the change):" >&2
      diff <(printf '%s\n' "$old") <(printf '%s\n' "$fresh") >&2 || true
      failures=$((failures + 1))
    fi
    printf '%s\n<!-- end experiment -->\n' "$fresh" >>"$new_doc"
    continue
  fi
  # A full-scale block.
  if [[ "$mode" == full ]] && $selected; then
    echo "check-experiments: full scale: $args (this takes a while)" >&2
    if ! fresh="$(run_experiment "$args")"; then
      exit 1
    fi
    fresh="_Generated by \`scripts/check-experiments.sh --full\` on $(date -u +%Y-%m-%d) from commit $commit._"$'\n\n'"$fresh"
    printf '%s\n<!-- end experiment sha256=%s inputs=%s -->\n' "$fresh" \
      "$(printf '%s' "$fresh" | digest)" "$inputs" >>"$new_doc"
    continue
  fi
  if [[ "$(printf '%s' "$old" | digest)" != "$recorded" ]]; then
    echo "check-experiments: $doc:$start_line: the full-scale block of '$args'" \
      "was edited by hand (its text no longer matches its sha256); regenerate it with" \
      "scripts/check-experiments.sh --full --only '$args'" >&2
    failures=$((failures + 1))
  elif [[ -z "$recorded_inputs" ]]; then
    echo "check-experiments: $doc:$start_line: the full-scale block of '$args' records no" \
      "inputs, so whether it is stale is unknown; regenerate it with scripts/check-experiments.sh" \
      "--full --only '$args'" >&2
    failures=$((failures + 1))
  elif [[ "$recorded_inputs" != "$inputs" ]]; then
    echo "check-experiments: $doc:$start_line: the full-scale block of '$args' is stale:" \
      "core/, bench/experiment/ or CMakeLists.txt changed since it was generated; regenerate" \
      "it with scripts/check-experiments.sh --full --only '$args' (or make experiments-full)" >&2
    failures=$((failures + 1))
  fi
  printf '%s\n<!-- end experiment sha256=%s%s -->\n' "$old" "$recorded" \
    "${recorded_inputs:+ inputs=$recorded_inputs}" >>"$new_doc"
done <"$doc"
if $in_block; then
  echo "check-experiments: $doc:$start_line: block without its end marker" >&2
  exit 1
fi

if [[ "$mode" != check ]]; then
  cp "$new_doc" "$doc"
  echo "check-experiments: $doc rewritten" >&2
fi
# The prose's figures against the blocks they name (scripts/check_prose_figures.py), in the doc
# as it now stands.
if [[ "$mode" == check ]] && ! python3 "$root/scripts/check_prose_figures.py" "$new_doc"; then
  failures=$((failures + 1))
fi
if [[ $failures -gt 0 ]]; then
  echo "check-experiments: $failures block(s) disagree" >&2
  [[ "$mode" == check ]] && exit 1
fi
exit 0
