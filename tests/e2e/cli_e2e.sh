#!/usr/bin/env bash
# End-to-end test of the resched CLI against a real resched-server.
# usage: cli_e2e.sh PATH/TO/resched-server PATH/TO/resched
set -euo pipefail

SERVER_BIN=${1:?usage: cli_e2e.sh RESCHED_SERVER RESCHED}
CLI_BIN=${2:?usage: cli_e2e.sh RESCHED_SERVER RESCHED}
WORK=$(mktemp -d)
SERVER_PID=

cleanup() {
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -9 "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT

step() { echo "--- $*"; }
fail() {
  echo "FAIL: $*" >&2
  if [[ -f "$WORK/server.log" ]]; then
    echo "--- last lines of the server log:" >&2
    tail -n 40 "$WORK/server.log" >&2
  fi
  exit 1
}
# expect_match TEXT REGEX WHAT: TEXT has a line matching the extended REGEX.
expect_match() {
  grep -Eq -- "$2" <<<"$1" || fail "$3: no line matches /$2/ in:"$'\n'"$1"
}

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
ADDR="127.0.0.1:$PORT"
rs() { "$CLI_BIN" --server "$ADDR" "$@"; }

step "start resched-server on $ADDR"
"$SERVER_BIN" --listen "$ADDR" >"$WORK/server.log" 2>&1 &
SERVER_PID=$!

step "wait until 'cluster list' answers (at most 20 s)"
deadline=$((SECONDS + 20))
until rs cluster list >/dev/null 2>&1; do
  kill -0 "$SERVER_PID" 2>/dev/null || fail "the server exited before answering"
  ((SECONDS < deadline)) || fail "the server did not answer within 20 s"
  sleep 0.2
done

step "cluster list shows the default cluster: 64 processors, wall clock, conservative"
out=$(rs cluster list)
echo "$out"
expect_match "$out" '^default +64 +wall +conservative ' "cluster list"

step "algorithms lists the conservative policy"
out=$(rs algorithms)
expect_match "$out" '^conservative +policy +yes ' "algorithms"

step "cluster create from a YAML file, then delete it"
cat >"$WORK/cluster.yaml" <<'YAML'
name: from-yaml
groups:
  - {name: rack-a, count: 2, speed: 1.0}
  - {name: rack-b, count: 6}
clock: SIMULATED
YAML
out=$(rs cluster create -f "$WORK/cluster.yaml")
expect_match "$out" '^processors: +8$' "cluster create -f"
expect_match "$out" '^clock: +simulated$' "cluster create -f"
out=$(rs cluster delete from-yaml)
expect_match "$out" '^deleted cluster from-yaml$' "cluster delete"

step "create a SIMULATED cluster 'sim' with 8 processors"
out=$(rs cluster create sim --processors 8 --clock simulated)
echo "$out"
expect_match "$out" '^processors: +8$' "cluster create"
expect_match "$out" '^now: +@0s$' "cluster create"

step "submit a rigid job 4:1h: it starts at @0s and ends at @1h"
out=$(rs job submit --cluster sim --rigid 4:1h --name first)
echo "$out"
expect_match "$out" ' first +(QUEUED|RUNNING) +4 +@0s +@1h$' "rigid placement"
JOB1=$(awk 'NR == 2 { print $1 }' <<<"$out")

step "submit an amdahl job 2h:0.1"
out=$(rs job submit --cluster sim --amdahl 2h:0.1 --name second)
echo "$out"
expect_match "$out" ' second +(QUEUED|RUNNING) +[1-8] +@[0-9hms.]+ +@[0-9hms.]+$' "amdahl placement"
JOB2=$(awk 'NR == 2 { print $1 }' <<<"$out")

step "add a reservation of 2 processors over [@5h, @6h)"
out=$(rs reservation add --cluster sim --processors 2 --start @5h --duration 1h --reason maintenance)
echo "$out"
expect_match "$out" ' +2 +@5h +@6h +maintenance$' "reservation add"
RES1=$(awk 'NR == 2 { print $1 }' <<<"$out")

step "schedule show: the Gantt legend names both jobs and the reservation"
out=$(rs schedule show --cluster sim)
echo "$out"
legend=$(sed -n '/^legend/,$p' <<<"$out")
expect_match "$legend" "^[0-9a-zA-Z] +$JOB1 " "legend has $JOB1"
expect_match "$legend" "^[0-9a-zA-Z] +$JOB2 " "legend has $JOB2"
expect_match "$legend" "^# +$RES1 +RESERVED " "legend has $RES1"
expect_match "$out" '^ *[0-7] \|' "Gantt rows"

step "advance the clock by 2h: the first job is FINISHED"
out=$(rs clock advance --cluster sim --by 2h)
echo "$out"
expect_match "$out" '^now @2h$' "clock advance"
out=$(rs job get "$JOB1" --cluster sim)
expect_match "$out" '^state: +FINISHED$' "job get after the clock advanced"

step "submit a third job released at +1h, then cancel it"
out=$(rs job submit --cluster sim --rigid 2:30m --release +1h --name third)
JOB3=$(awk 'NR == 2 { print $1 }' <<<"$out")
out=$(rs job cancel "$JOB3" --cluster sim)
echo "$out"
expect_match "$out" "^$JOB3 +third +CANCELLED " "job cancel"

step "job list --state cancelled shows only the third job"
out=$(rs job list --cluster sim --state cancelled)
expect_match "$out" "^$JOB3 " "job list"
[[ $(wc -l <<<"$out") -eq 2 ]] || fail "job list --state cancelled: expected one job in:"$'\n'"$out"

step "an invalid submit (--rigid 0:1h) exits 1 with INVALID_ARGUMENT"
set +e
out=$(rs job submit --cluster sim --rigid 0:1h 2>&1)
rc=$?
set -e
echo "$out"
[[ $rc -eq 1 ]] || fail "exit status $rc, expected 1"
expect_match "$out" '^error: INVALID_ARGUMENT: ' "invalid submit"

step "a usage error exits 2"
set +e
rs job submit --cluster sim >/dev/null 2>&1
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "exit status $rc, expected 2"

step "an unknown cluster is NOT_FOUND"
set +e
out=$(rs cluster get no-such-cluster 2>&1)
rc=$?
set -e
[[ $rc -eq 1 ]] || fail "exit status $rc, expected 1"
expect_match "$out" '^error: NOT_FOUND: ' "cluster get"

step "--json job get prints JSON"
rs --json job get "$JOB1" --cluster sim | python3 -m json.tool >/dev/null ||
  fail "--json job get is not JSON"
rs --json job get "$JOB1" --cluster sim | python3 -c '
import json, sys
job = json.load(sys.stdin)
assert job["state"] == "FINISHED", job
assert job["allocation"]["processors"] == 4, job
' || fail "--json job get has the wrong content"

step "SIGTERM: the server exits 0 within 10 s"
kill -TERM "$SERVER_PID"
deadline=$((SECONDS + 10))
while kill -0 "$SERVER_PID" 2>/dev/null; do
  ((SECONDS < deadline)) || fail "the server is still running 10 s after SIGTERM"
  sleep 0.1
done
set +e
wait "$SERVER_PID"
rc=$?
set -e
SERVER_PID=
[[ $rc -eq 0 ]] || fail "the server exited with status $rc"

echo "PASS: cli_e2e"
