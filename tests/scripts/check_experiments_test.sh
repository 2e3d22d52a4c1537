#!/usr/bin/env bash
# scripts/check-experiments.sh fails when a table is edited by hand: a small-scale block that no
# longer matches what its command prints, or a full-scale block whose text no longer matches its
# SHA-256; when a full-scale block is stale, generated before core/ changed, or records no inputs;
# when a paragraph quotes a figure its block does not print, or names no block; and it passes on
# the unedited doc and on a freshly generated block.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
check() { "$root/scripts/check-experiments.sh" --build "$build" --only heft-vs-parallel --doc "$1"; }

cp "$root/docs/experiments.md" "$work/doc.md"
check "$work/doc.md" || { echo "FAIL: the unedited doc does not pass"; exit 1; }

# A number in the small-scale heft-vs-parallel table, changed by hand.
awk '/experiment ci: heft-vs-parallel/ {inside = 1}
     inside && /^\| DAG10 / && !done {sub(/\| [0-9.]+ \|/, "| 9.999 |"); done = 1}
     {print}' "$root/docs/experiments.md" >"$work/ci-edited.md"
if cmp -s "$work/ci-edited.md" "$root/docs/experiments.md"; then
  echo "FAIL: the test found no small-scale heft-vs-parallel table to edit"; exit 1
fi
if check "$work/ci-edited.md"; then echo "FAIL: a hand edit of a small-scale table passed"; exit 1; fi

# A number in a full-scale block, changed by hand: caught without re-running anything.
awk '/experiment full:/ {inside = 1}
     /end experiment/ {inside = 0}
     inside && /^\| / && !done && match($0, /[0-9]/) {
       digit = substr($0, RSTART, 1)
       $0 = substr($0, 1, RSTART - 1) (digit == "7" ? "8" : "7") substr($0, RSTART + 1)
       done = 1
     }
     {print}' "$root/docs/experiments.md" >"$work/full-edited.md"
if cmp -s "$work/full-edited.md" "$root/docs/experiments.md"; then
  echo "FAIL: the test found no full-scale table to edit"; exit 1
fi
if "$root/scripts/check-experiments.sh" --build "$build" --only no-such-command \
  --doc "$work/full-edited.md"; then
  echo "FAIL: a hand edit of a full-scale table passed"; exit 1
fi
# A figure of a paragraph that names its block, changed by hand: the block does not print it.
sed 's/8.5 % (CTC) and 2.5 % (OSC)/8.6 % (CTC) and 2.5 % (OSC)/' "$root/docs/experiments.md" \
  >"$work/prose-edited.md"
if cmp -s "$work/prose-edited.md" "$root/docs/experiments.md"; then
  echo "FAIL: the test found no prose figure to edit"; exit 1
fi
if "$root/scripts/check-experiments.sh" --build "$build" --only no-such-command \
  --doc "$work/prose-edited.md" 2>"$work/prose.txt"; then
  echo "FAIL: a hand edit of a prose figure passed"; exit 1
fi
grep -q "8.6" "$work/prose.txt" || { echo "FAIL: the edited figure is not named:"; cat "$work/prose.txt"; exit 1; }

# Hand edits the figure check must catch without re-running a block: a new paragraph with a figure
# and no block named; an "Ours" cell of the table at the top that lost its block; a full-scale
# block whose end records no inputs.
only_docs() {
  local name="$1" what="$2"
  if cmp -s "$work/$name.md" "$root/docs/experiments.md"; then
    echo "FAIL: the test found nothing to edit for $what"; exit 1
  fi
  if "$root/scripts/check-experiments.sh" --build "$build" --only no-such-command \
    --doc "$work/$name.md" 2>"$work/$name.txt"; then
    echo "FAIL: $what passed"; exit 1
  fi
}
awk '/^## Alternatives measured/ {print; print ""; print "Ours wins by 42 % here."; next} {print}' \
  "$root/docs/experiments.md" >"$work/unnamed.md"
only_docs unnamed "a paragraph quoting a figure of no block"
grep -q "figures from no block (42)" "$work/unnamed.txt" ||
  { echo "FAIL: the unnamed figure is not reported:"; cat "$work/unnamed.txt"; exit 1; }
awk '/^\| Table 4: BD_CPA.s turnaround wins/ && !done {gsub(/ <!-- figures from: [^>]*-->/, ""); done = 1}
     {print}' "$root/docs/experiments.md" >"$work/cell.md"
only_docs cell "an unmarked figure in an Ours cell"
grep -q "1,356" "$work/cell.txt" || { echo "FAIL: the cell's figure is not named:"; cat "$work/cell.txt"; exit 1; }
awk '/^<!-- end experiment sha256=.* inputs=/ && !done {sub(/ inputs=[0-9a-f]+/, ""); done = 1}
     {print}' "$root/docs/experiments.md" >"$work/no-inputs.md"
only_docs no-inputs "a full-scale block recording no inputs"
grep -q "records no inputs" "$work/no-inputs.txt" ||
  { echo "FAIL: not reported as recording no inputs:"; cat "$work/no-inputs.txt"; exit 1; }

# A full-scale block generated here, then core/ changed: stale. In a repository of the script, a
# file under core/ and a doc of one cheap full-scale block.
repo="$work/repo"
mkdir -p "$repo/scripts" "$repo/docs" "$repo/core" "$repo/bench/experiment"
cp "$root/scripts/check-experiments.sh" "$root/scripts/check_prose_figures.py" "$repo/scripts/"
cp "$root/CMakeLists.txt" "$repo/"
printf 'int answer() { return 42; }\n' >"$repo/core/answer.cc"
printf '# Doc\n\n<!-- experiment full: heft-vs-parallel --seeds 1 -->\n<!-- end experiment -->\n' \
  >"$repo/docs/experiments.md"
git -C "$repo" init -q && git -C "$repo" add -A &&
  git -C "$repo" -c user.name=t -c user.email=t@t commit -qm doc
data="${RESCHED_DATA_DIR:-}"
if [[ -z "$data" ]]; then
  dir="$root"
  while [[ "$dir" != / && ! -d "$dir/shared/data/swf" ]]; do dir="$(dirname "$dir")"; done
  data="$dir/shared/data"
fi
full() { RESCHED_DATA_DIR="$data" "$repo/scripts/check-experiments.sh" --build "$build" "$@"; }
full --full || { echo "FAIL: the full-scale block could not be generated"; exit 1; }
grep -qE '^<!-- end experiment sha256=[0-9a-f]+ inputs=[0-9a-f]+ -->$' "$repo/docs/experiments.md" ||
  { echo "FAIL: the generated block records no inputs"; cat "$repo/docs/experiments.md"; exit 1; }
full || { echo "FAIL: a freshly generated full-scale block does not pass"; exit 1; }
printf 'int answer() { return 43; }\n' >"$repo/core/answer.cc"
if full 2>"$work/stale.txt"; then echo "FAIL: a stale full-scale block passed"; exit 1; fi
grep -q "is stale" "$work/stale.txt" || { echo "FAIL: not reported as stale:"; cat "$work/stale.txt"; exit 1; }
# Regenerated, it passes again.
full --full && full || { echo "FAIL: the regenerated block does not pass"; exit 1; }
echo "PASS"
