#!/usr/bin/env bash
# make test: the whole suite, its steps overlapped where one waits and another computes.
#   1. the build's packages, then the Release build, while the test-only packages (Chromium,
#      etcd, Snakemake, Slurm, helm) install beside it: apt-get and npm wait on the network and
#      the disk, the compiler on the CPU;
#   2. the Release tests, check-experiments, clang-tidy and the Helm chart, while the ASan+UBSan
#      build compiles beside them at idle priority (SCHED_IDLE, else nice 19): it takes only the
#      CPU those steps leave, and a third of the Release tests' time is waiting (Snakemake's
#      sleeping jobs, etcd's and the failover tests' leases, browsers);
#   3. the ASan+UBSan tests, while the TSan build compiles beside them at idle priority;
#   4. the TSan tests.
# A step that fails fails the suite, with the log of a step that ran beside another.
# Run by the Makefile's test target with MAKE set; the make variables given to it (BUILD_DIR,
# JOBS, ...) reach each make below through MAKEFLAGS.
set -euo pipefail
cd "$(dirname "$0")/.."
make=${MAKE:-make}
logs=build-logs
mkdir -p "$logs"

# The step running in the background (one at a time), stopped with its children if the suite
# ends early.
background=""
stop_background() {
  if [[ -n $background ]]; then kill -- -"$background" 2>/dev/null || true; fi
}
trap stop_background EXIT

# Starts step `name`, the command "$@", in the background as a process group of its own (set -m),
# its output in $logs/$name.log.
start() {
  local name=$1
  shift
  set -m
  "$@" </dev/null >"$logs/$name.log" 2>&1 &
  set +m
  background=$!
  background_name=$name
  background_started=$SECONDS
  echo "run-test-suite: $name started beside the next steps (its output: $logs/$name.log)"
}

# Waits for the background step; if it failed, prints its log's end and exits.
finish() {
  local name=$background_name pid=$background
  background=""
  if ! wait "$pid"; then
    echo "run-test-suite: $name failed; the end of $logs/$name.log:" >&2
    tail -n 200 "$logs/$name.log" >&2
    exit 1
  fi
  echo "run-test-suite: $name done, $((SECONDS - background_started)) s after it started"
}

"$make" deps
start test-deps "$make" browser-deps etcd-deps python-deps slurm-deps helm-deps
"$make" build-tested
finish

idle=(chrt --idle 0)
if ! chrt --idle 0 true 2>/dev/null; then idle=(nice -n 19); fi
start asan-build "${idle[@]}" "$make" asan-build
"$make" test-release check-experiments lint test-helm
finish

start tsan-build "${idle[@]}" "$make" tsan-build
"$make" test-asan
finish

"$make" test-tsan
