#!/usr/bin/env bash
# scripts/check-experiments.sh fails when a table is edited by hand: a small-scale block that no
# longer matches what its command prints, or a full-scale block whose text no longer matches its
# SHA-256; and it passes on the unedited doc.
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
echo "PASS"
