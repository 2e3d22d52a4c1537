#!/usr/bin/env bash
# The crash-recovery soak: resched-server killed with SIGKILL under load ROUNDS times (default
# 200; make test runs 24), every acknowledged change checked after each restart.
# usage: scripts/soak-crash.sh [ROUNDS] [BUILD_DIR]
set -euo pipefail
rounds=${1:-200}
build=${2:-"$(cd "$(dirname "$0")/.." && pwd)/build"}
binary="$build/tests/e2e/e2e_crash_recovery_test"
if [[ ! -x "$binary" ]]; then
  echo "soak-crash: $binary is missing: build first (make build)" >&2
  exit 2
fi
RESCHED_CRASH_ROUNDS="$rounds" "$binary"
