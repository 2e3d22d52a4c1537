#!/usr/bin/env bash
# Installs the Debian 12 packages resched needs to build and test, only those missing.
#   scripts/install-deps.sh           what the build and `make test` need
#   scripts/install-deps.sh --image   also podman and what docker/smoke-test.sh builds the image
#                                     with (no Docker engine here: podman with runc, catatonit
#                                     for --init, debootstrap for the base image)
set -euo pipefail

packages=(
  build-essential cmake pkg-config python3
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev libyaml-cpp-dev zlib1g-dev libsqlite3-dev nlohmann-json3-dev libexpat1-dev
  prometheus-cpp-dev libcurl4-openssl-dev coinor-libclp-dev
  libgtest-dev libgmock-dev libbenchmark-dev libcpp-httplib-dev libssl-dev
  clang-format clang-tidy
)
if [[ "${1:-}" == --image ]]; then
  packages+=(podman runc catatonit debootstrap)
elif [[ $# -gt 0 ]]; then
  echo "install-deps: unknown argument $1 (--image or nothing)" >&2
  exit 2
fi

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  sudo="sudo"
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
