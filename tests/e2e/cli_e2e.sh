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

# start_server [FLAG...]: the server on $ADDR with its data in $WORK/data, and these flags.
start_server() {
  "$SERVER_BIN" --listen "$ADDR" --data-dir "$WORK/data" "$@" >>"$WORK/server.log" 2>&1 &
  SERVER_PID=$!
  local deadline=$((SECONDS + 20))
  # The health service answers without a token, as probes need.
  until rs health >/dev/null 2>&1; do
    kill -0 "$SERVER_PID" 2>/dev/null || fail "the server exited before answering"
    ((SECONDS < deadline)) || fail "the server did not answer within 20 s"
    sleep 0.2
  done
}

step "start resched-server on $ADDR with its data in $WORK/data; wait until it answers"
start_server

step "a second server on the same address fails at start, saying the address is in use"
set +e
out=$(timeout 20 "$SERVER_BIN" --listen "$ADDR" --ephemeral 2>&1)
rc=$?
set -e
[[ $rc -eq 1 ]] || fail "second server on $ADDR: exit status $rc, expected 1"
expect_match "$out" "cannot listen on $ADDR: Address already in use" "second server"

step "a second server on the same data directory refuses to start, naming it and the holder"
set +e
out=$(timeout 20 "$SERVER_BIN" --listen 127.0.0.1:0 --data-dir "$WORK/data" 2>&1)
rc=$?
set -e
[[ $rc -eq 1 ]] || fail "second server on $WORK/data: exit status $rc, expected 1"
expect_match "$out" "data directory $WORK/data is in use by another resched-server \\(pid $SERVER_PID\\)" \
  "second server on the data directory"

step "without TLS and tokens the server refuses a reachable address, unless --insecure"
set +e
out=$(timeout 20 "$SERVER_BIN" --listen 0.0.0.0:0 --ephemeral 2>&1)
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "server on 0.0.0.0 without --insecure: exit status $rc, expected 2"
expect_match "$out" "refusing to listen on 0\.0\.0\.0:0 without TLS" "server on 0.0.0.0"

step "health answers SERVING"
out=$(rs health)
expect_match "$out" '^SERVING$' "health"

step "cluster list shows the default cluster: 64 processors, wall clock, conservative"
out=$(rs cluster list)
echo "$out"
expect_match "$out" '^default +64 +wall +conservative ' "cluster list"

step "algorithms lists the conservative policy"
out=$(rs algorithms)
expect_match "$out" '^conservative +policy ' "algorithms"

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

step "DAGs: create a SIMULATED cluster 'dags' with 16 processors"
rs cluster create dags --processors 16 --clock simulated >/dev/null
cat >"$WORK/dag.json" <<'JSON'
{"tasks": [
  {"name": "prep", "model": {"amdahl": {"t1": "600s", "alpha": 0.1}}},
  {"name": "left", "model": {"amdahl": {"t1": "3600s", "alpha": 0.05}}},
  {"name": "right", "model": {"rigid": {"k": 4, "time": "1800s"}}},
  {"name": "merge", "model": {"amdahl": {"t1": "1200s", "alpha": 0.2}}}],
 "edges": [{"from": "prep", "to": "left"}, {"from": "prep", "to": "right"},
           {"from": "left", "to": "merge"}, {"from": "right", "to": "merge"}]}
JSON
DAG_TASKS=(prep left right merge)

step "dag reserve: every task is placed, a Gantt chart is drawn, a DAG id is given"
out=$(rs dag reserve --cluster dags -f "$WORK/dag.json" --label e2e)
echo "$out"
for task in "${DAG_TASKS[@]}"; do
  expect_match "$out" "^[0-9a-zA-Z] +$task +[0-9]+ +@[0-9hms.]+ +@[0-9hms.]+ +[0-9hms.]+$" \
    "dag reserve places $task"
done
expect_match "$out" '^ *15 \|' "dag reserve Gantt rows"
expect_match "$out" '^completion: +@' "dag reserve completion"
expect_match "$out" '^dag id: +d[0-9]+$' "dag reserve id"
DAG1=$(awk '/^dag id:/ { print $3 }' <<<"$out")

step "dag query-deadline without --deadline prints the tightest deadline"
out=$(rs dag query-deadline --cluster dags -f "$WORK/dag.json")
echo "$out"
expect_match "$out" '^feasible: +yes$' "dag query-deadline"
expect_match "$out" '^tightest deadline: +@[0-9hms.]+$' "dag query-deadline"
expect_match "$out" '^dag id: +not committed$' "dag query-deadline"
rs --json dag query-deadline --cluster dags -f "$WORK/dag.json" | python3 -c '
import json, sys
answer = json.load(sys.stdin)
assert "tightest_deadline" in answer, answer
assert len(answer["placements"]) == 4, answer
' || fail "--json dag query-deadline has the wrong content"

step "dag query (the alias) with a generous deadline is feasible"
out=$(rs dag query --cluster dags -f "$WORK/dag.json" --deadline +100h)
expect_match "$out" '^feasible: +yes$' "dag query --deadline"

step "dag show and dag list show $DAG1"
out=$(rs dag show "$DAG1" --cluster dags)
echo "$out"
expect_match "$out" "^id: +$DAG1$" "dag show"
expect_match "$out" '^label: +e2e$' "dag show"
expect_match "$out" '^edges: +4$' "dag show"
for task in "${DAG_TASKS[@]}"; do
  expect_match "$out" "^[0-9a-zA-Z] +$task +[0-9]+ " "dag show lists $task"
done
out=$(rs dag list --cluster dags)
echo "$out"
expect_match "$out" "^$DAG1 +e2e +bl_cpar_bd_cpar +4 +@" "dag list"

step "schedule show lists and draws the DAG's tasks"
out=$(rs schedule show --cluster dags)
echo "$out"
for task in "${DAG_TASKS[@]}"; do
  expect_match "$out" "^$DAG1 +$task +[0-9]+ +@" "schedule show table has $task"
  expect_match "$out" "^[0-9a-zA-Z] +$DAG1 +DAG +[0-9]+ .* $task$" "schedule show legend has $task"
done

step "dag release frees the DAG; it is gone from the list"
out=$(rs dag release "$DAG1" --cluster dags)
expect_match "$out" "^released DAG reservation $DAG1$" "dag release"
out=$(rs dag list --cluster dags)
if grep -Eq "^$DAG1 " <<<"$out"; then fail "dag list still shows $DAG1:"$'\n'"$out"; fi
set +e
out=$(rs dag show "$DAG1" --cluster dags 2>&1)
rc=$?
set -e
[[ $rc -eq 1 ]] || fail "dag show after release: exit status $rc, expected 1"
expect_match "$out" '^error: NOT_FOUND: ' "dag show after release"

# The shared data sits beside the repository (CI clones it there), or $RESCHED_DATA_DIR.
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DATA_DIR=${RESCHED_DATA_DIR:-$REPO/../shared/data}
MONTAGE=$DATA_DIR/dax/Montage_25.xml
if [[ ! -f "$MONTAGE" && -n "${CI:-}" ]]; then
  fail "$MONTAGE is missing: CI must have shared/ beside the clone"
fi
if [[ -f "$MONTAGE" ]]; then
  step "dag reserve --dry-run of the Pegasus DAX $MONTAGE"
  out=$(rs dag reserve --cluster dags -f "$MONTAGE" --dry-run --alpha 0.1)
  echo "$out" | tail -n 8
  expect_match "$out" '^dry run: nothing was changed$' "dag reserve DAX"
  expect_match "$out" '^dag id: +dry run$' "dag reserve DAX"
  tasks=$(grep -Ec '^[0-9a-zA-Z] +ID000[0-9]{2} +[0-9]+ ' <<<"$out" || true)
  [[ $tasks -eq 25 ]] || fail "dag reserve DAX: $tasks task rows, expected 25"
else
  step "skip the DAX dry run: $MONTAGE is missing"
fi

step "SIGKILL, restart on the same data directory: clusters, jobs and DAGs are as acknowledged"
before_clusters=$(rs cluster list | awk '{print $1, $2, $3, $4}')
before_jobs=$(rs job list --cluster sim)
before_dags=$(rs dag list --cluster dags)
kill -9 "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null || true
start_server
[[ "$(rs cluster list | awk '{print $1, $2, $3, $4}')" == "$before_clusters" ]] ||
  fail "cluster list after the restart differs"
after_jobs=$(rs job list --cluster sim)
[[ "$after_jobs" == "$before_jobs" ]] ||
  fail "job list after the restart differs:"$'\n'"$before_jobs"$'\n'"---"$'\n'"$after_jobs"
[[ "$(rs dag list --cluster dags)" == "$before_dags" ]] || fail "dag list after the restart differs"
out=$(rs job submit --cluster sim --rigid 1:1m)
expect_match "$out" "j4" "the next job id continues after the restart"

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

step "restarted with a tokens file, the server refuses calls without the token"
token="e2e-admin-token-$RANDOM$RANDOM"
printf '%s\n' "$token" >"$WORK/token"
printf 'tokens:\n  - {sha256: "%s", tenant: e2e, role: admin}\n' \
  "$(printf %s "$token" | sha256sum | cut -d' ' -f1)" >"$WORK/tokens.yaml"
start_server --tokens-file "$WORK/tokens.yaml"
set +e
out=$(rs cluster list 2>&1)
rc=$?
set -e
[[ $rc -eq 1 ]] || fail "cluster list without a token: exit status $rc, expected 1"
expect_match "$out" "UNAUTHENTICATED" "cluster list without a token"
out=$(rs --token-file "$WORK/token" cluster list)
expect_match "$out" '^sim ' "cluster list with --token-file"
out=$(RESCHED_TOKEN="$token" rs job list --cluster sim)
expect_match "$out" '^j4 ' "job list with RESCHED_TOKEN (the jobs kept across the restart)"
grep -q -- "$token" "$WORK/server.log" && fail "the token appears in the server's log"
step "the audit log in the data directory holds the changes, with their tenant, and no token"
grep -q '"method":"SubmitJob"' "$WORK/data/audit.jsonl" || fail "no SubmitJob in audit.jsonl"
rs --token-file "$WORK/token" job submit --cluster sim --rigid 1:1m --request-id e2e-audit \
  >/dev/null
grep '"request_id":"e2e-audit"' "$WORK/data/audit.jsonl" | grep -q '"tenant":"e2e"' ||
  fail "the token's SubmitJob is not audited with its tenant"
grep -q -- "$token" "$WORK/data/audit.jsonl" && fail "the token appears in the audit log"

step "SIGHUP reloads the tokens file: the old token is refused, a new one served; a bad file is refused and changes nothing"
new_token="e2e-rotated-token-$RANDOM$RANDOM"
printf '%s\n' "$new_token" >"$WORK/new-token"
# Replaced in one step, as Kubernetes updates a mounted Secret.
printf 'tokens:\n  - {sha256: "%s", tenant: e2e, role: admin}\n' \
  "$(printf %s "$new_token" | sha256sum | cut -d' ' -f1)" >"$WORK/tokens.yaml.new"
mv "$WORK/tokens.yaml.new" "$WORK/tokens.yaml"
kill -HUP "$SERVER_PID"
deadline=$((SECONDS + 10))
until rs --token-file "$WORK/new-token" cluster list >/dev/null 2>&1; do
  kill -0 "$SERVER_PID" 2>/dev/null || fail "the server exited on SIGHUP"
  ((SECONDS < deadline)) || fail "the new token is not served 10 s after SIGHUP"
  sleep 0.1
done
set +e
out=$(rs --token-file "$WORK/token" cluster list 2>&1)
rc=$?
set -e
[[ $rc -eq 1 ]] || fail "the revoked token: exit status $rc, expected 1"
expect_match "$out" "UNAUTHENTICATED" "the revoked token"
printf 'tokens: [{sha256: "nothex", tenant: e2e, role: admin}]\n' >"$WORK/tokens.yaml.new"
mv "$WORK/tokens.yaml.new" "$WORK/tokens.yaml"
kill -HUP "$SERVER_PID"
deadline=$((SECONDS + 10))
until grep -q "the tokens in use stay until the file loads" "$WORK/server.log"; do
  ((SECONDS < deadline)) || fail "no log line refusing the bad tokens file 10 s after SIGHUP"
  sleep 0.1
done
kill -0 "$SERVER_PID" 2>/dev/null || fail "the server exited on a bad tokens file"
out=$(rs --token-file "$WORK/new-token" cluster list)
expect_match "$out" '^sim ' "cluster list with the new token after a bad tokens file"
kill -TERM "$SERVER_PID"
wait "$SERVER_PID" 2>/dev/null || true
SERVER_PID=

echo "PASS: cli_e2e"
