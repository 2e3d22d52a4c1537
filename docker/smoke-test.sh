#!/usr/bin/env bash
# Builds the resched image around the binaries of a Release build and smoke-tests it with
# podman (no Docker engine, no registry): the server starts in it as an unprivileged user on a
# read-only root file system, answers `resched health` (the image's HEALTHCHECK too), takes a
# job, shows it in the web view (page and JSON API), stops on SIGTERM, and after a restart on the
# same data volume the job is still there. Then the etcd image (docker/etcd.Dockerfile) is built
# and three replicas run on one etcd member: a job submitted through a replica that does not
# serve the cluster is on the one that does, and when that one is killed the CLI given the others
# still lists it.
#
#   docker/smoke-test.sh [BUILD_DIR]     (default: build; `make build` first)
#   docker/smoke-test.sh --prepare-only [BUILD_DIR]   only the podman settings and the base
#                                        image (`make image` builds from there)
#
# Everything podman keeps (the base image, the layers) lives under BUILD_DIR/podman, with the
# settings these machines need in files of our own, nothing in /etc:
# - runtime runc (crun refuses the hybrid cgroup hierarchy here);
# - default ulimits that need no raising (the defaults cannot be raised here);
# - the overlay storage driver named from the first call (else each run waits 20 s on cleanup).
# The base image docker.io/library/debian:bookworm-slim is made locally by debootstrap (minbase,
# slimmed) the first time, as no registry is reachable.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
prepare_only=false
if [[ "${1:-}" == --prepare-only ]]; then
  prepare_only=true
  shift
fi
mkdir -p "${1:-$root/build}"
build="$(cd "${1:-$root/build}" && pwd)"
work="$build/podman"
image=localhost/resched:smoke
base=docker.io/library/debian:bookworm-slim
name="resched-smoke-$$"
volume="resched-smoke-data-$$"
etcd_image=localhost/resched-etcd:smoke
etcd_name="resched-smoke-etcd-$$"
etcd_volume="resched-smoke-etcd-$$"
mkdir -p "$work"
: >"$work/podman.log"  # podman's own complaints (no systemd here for health timers), kept aside

step() { echo "--- $*"; }
fail() {
  echo "FAIL: $*" >&2
  podman logs "$name" >&2 2>/dev/null || true
  [[ -s "$work/podman.log" ]] && tail -n 20 "$work/podman.log" >&2
  exit 1
}

for tool in podman runc debootstrap; do
  command -v "$tool" >/dev/null ||
    fail "$tool is missing: scripts/install-deps.sh --image installs it"
done

cat >"$work/containers.conf" <<CONF
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]

[engine]
runtime = "runc"
CONF
cat >"$work/storage.conf" <<CONF
[storage]
driver = "overlay"
graphroot = "$work/storage"
runroot = "$work/run"
CONF
export CONTAINERS_CONF="$work/containers.conf" CONTAINERS_STORAGE_CONF="$work/storage.conf"

cleanup() {
  podman rm -f -t 0 "$name" "$name-0" "$name-1" "$name-2" "$etcd_name" >/dev/null 2>&1 || true
  podman volume rm -f "$volume" "$etcd_volume" >/dev/null 2>&1 || true
}
trap cleanup EXIT

if ! podman image exists "$base"; then
  step "base image $base: debootstrap --variant=minbase bookworm, slimmed, imported"
  rootfs="$work/rootfs"
  rm -rf "$rootfs"
  debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 ||
    fail "debootstrap failed (see $work/debootstrap.log)"
  # What Debian's -slim images leave out: documentation, manual pages, translations, apt lists.
  rm -rf "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
    "$rootfs"/usr/share/locale/* "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin \
    "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/log/*.log
  tar -C "$rootfs" -c . | podman import --quiet - "$base" >/dev/null
  rm -rf "$rootfs"
fi

if $prepare_only; then exit 0; fi

step "image $image from the binaries of $build"
context="$work/context"
rm -rf "$context"
"$root/docker/collect-runtime.sh" "$build" "$context"
# docker/Dockerfile with its build stage swapped for a copy of the staged binaries; the runtime
# stage is the Dockerfile's own text.
awk '/^# >>> build stage/ { print "FROM docker.io/library/debian:bookworm-slim AS build";
                            print "COPY opt/resched /out/opt/resched"; skip = 1; next }
     /^# <<< build stage/ { skip = 0; next }
     !skip' "$root/docker/Dockerfile" >"$work/Dockerfile.prebuilt"
grep -q '^COPY opt/resched /out/opt/resched$' "$work/Dockerfile.prebuilt" ||
  fail "docker/Dockerfile has lost its build stage markers"
podman build --quiet --pull=never --network=host --format docker \
  --build-arg REVISION="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)" \
  -f "$work/Dockerfile.prebuilt" -t "$image" "$context" >/dev/null
podman image prune -f >/dev/null  # the previous run's image, now untagged
podman image inspect --format '{{.Config.User}}' "$image" | grep -qx '10001:10001' ||
  fail "the image does not run as the unprivileged user 10001"

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
port=$(free_port)
http_port=$(free_port)
podman volume create "$volume" >/dev/null
start() {
  # No health timer (it needs systemd); `podman healthcheck run` runs the check below.
  podman run -d --name "$name" --init --pull=never --network=host --read-only --cap-drop=all \
    --health-interval=disable -e RESCHED_SERVER="127.0.0.1:$port" \
    -v "$volume:/var/lib/resched" "$image" --listen "127.0.0.1:$port" \
    --http-listen "127.0.0.1:$http_port" >/dev/null 2>>"$work/podman.log"
}
cli() { podman exec "$name" resched "$@"; }
wait_healthy() {
  for _ in $(seq 100); do
    if cli health >/dev/null 2>&1; then return 0; fi
    sleep 0.1
  done
  fail "the server did not answer health within 10 s"
}
stop() {
  podman stop -t 10 "$name" >/dev/null 2>>"$work/podman.log"
  local status
  status=$(podman inspect --format '{{.State.ExitCode}}' "$name")
  [[ "$status" == 0 ]] || fail "the server exited with status $status on SIGTERM, expected 0"
  podman rm "$name" >/dev/null 2>>"$work/podman.log"
}

step "start the server (read-only root, no capabilities, data on volume $volume)"
start
wait_healthy
[[ "$(cli health)" == SERVING ]] || fail "resched health did not print SERVING"
podman healthcheck run "$name" 2>>"$work/podman.log" || fail "the image's HEALTHCHECK failed"

step "submit a job"
submitted=$(cli job submit --rigid 4:1h)
echo "$submitted"
job=$(cli job list | awk 'NR == 2 {print $1}')
[[ -n "$job" ]] || fail "job list shows no job after the submission"

step "the web view: its page, and the job in its JSON API"
# The page is compiled into the server; fetched from the host, as the container shares its
# network.
http_get() {
  python3 - "http://127.0.0.1:$http_port$1" <<'PY'
import sys, urllib.request
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: no proxy
sys.stdout.write(opener.open(sys.argv[1], timeout=10).read().decode())
PY
}
http_get / | grep -qi '<html' || fail "the web view's page did not load from /"
http_get /api/v1/clusters/default/jobs | grep -q "\"$job\"" ||
  fail "the web view's /api/v1/clusters/default/jobs does not list job $job"

step "stop (SIGTERM through --init) and start again on the same volume"
stop
start
wait_healthy
cli job list | awk 'NR > 1 {print $1}' | grep -qx "$job" ||
  fail "job $job is gone after the restart"
stop

step "image $etcd_image (docker/etcd.Dockerfile: Debian's etcd-server)"
podman build --quiet --pull=never --network=host --format docker \
  -f "$root/docker/etcd.Dockerfile" -t "$etcd_image" "$root/docker" >/dev/null 2>>"$work/podman.log" ||
  fail "the etcd image did not build (see $work/podman.log)"

step "three replicas on one etcd: the clusters spread, calls forwarded; a replica killed, its clusters taken over"
client_port=$(free_port)
peer_port=$(free_port)
podman volume create "$etcd_volume" >/dev/null
podman run -d --name "$etcd_name" --init --pull=never --network=host --read-only --cap-drop=all \
  -v "$etcd_volume:/var/lib/etcd" "$etcd_image" \
  --listen-client-urls "http://127.0.0.1:$client_port" \
  --advertise-client-urls "http://127.0.0.1:$client_port" \
  --listen-peer-urls "http://127.0.0.1:$peer_port" \
  --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
  --initial-cluster "default=http://127.0.0.1:$peer_port" >/dev/null 2>>"$work/podman.log"
replica_ports=()
servers=""
for i in 0 1 2; do
  replica_ports+=("$(free_port)")
  servers+="${servers:+,}127.0.0.1:${replica_ports[$i]}"
done
start_replica() {
  # No local disk: the image's entrypoint (which names a data directory) is replaced.
  podman run -d --name "$name-$1" --init --pull=never --network=host --read-only --cap-drop=all \
    --health-interval=disable --entrypoint resched-server "$image" \
    --listen "127.0.0.1:${replica_ports[$1]}" --store etcd \
    --etcd-endpoints "http://127.0.0.1:$client_port" --log-format json >/dev/null 2>>"$work/podman.log"
}
replica_cli() { podman exec "$name-$1" resched --server "127.0.0.1:${replica_ports[$1]}" "${@:2}"; }
for i in 0 1 2; do
  start_replica "$i"
  for _ in $(seq 100); do
    [[ "$(replica_cli "$i" health 2>/dev/null)" == SERVING ]] && break
    sleep 0.1
  done
  [[ "$(replica_cli "$i" health 2>/dev/null)" == SERVING ]] || fail "replica $i did not answer health"
done
# The configuration's cluster, served by one of them (after a few polls of the coordinators).
sleep 1
owner=""
for i in 0 1 2; do
  if podman logs "$name-$i" 2>&1 | grep '"event":"cluster_adopted"' | tail -n 1 | grep -q "'default'"; then
    owner=$i
  fi
done
[[ -n "$owner" ]] || owner=0  # the replica that created it, when it was placed there
other=$(((owner + 1) % 3))
replica_cli "$other" job submit --rigid 2:1h --name through-another >/dev/null ||
  fail "a submission through a replica that does not serve the cluster failed"
replica_cli "$owner" job list | grep -q through-another ||
  fail "the cluster's replica does not hold the job submitted through another"
podman kill -s KILL "$name-$owner" >/dev/null
survivors=""
for i in 0 1 2; do
  [[ "$i" == "$owner" ]] || survivors+="${survivors:+,}127.0.0.1:${replica_ports[$i]}"
done
# The CLI, given the others, rides the takeover.
podman exec "$name-$other" resched --server "$survivors" --timeout 20s job list |
  grep -q through-another || fail "no replica served the job after its replica was killed"
for i in 0 1 2; do
  [[ "$i" == "$owner" ]] && continue
  podman stop -t 10 "$name-$i" >/dev/null 2>>"$work/podman.log"
  status=$(podman inspect --format '{{.State.ExitCode}}' "$name-$i")
  [[ "$status" == 0 ]] || fail "replica $i exited with status $status on SIGTERM, expected 0"
done
echo "docker smoke test: passed (job $job kept across a restart; three replicas on etcd, replica $owner killed, its cluster taken over)"
