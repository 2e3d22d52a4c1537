#!/usr/bin/env bash
# Stages resched's three programs and the shared libraries they need beyond the base image under
# OUT/opt/resched/{bin,lib}, for the runtime stage of docker/Dockerfile.
#
#   docker/collect-runtime.sh BUILD_DIR OUT
#
# The C and C++ runtimes (glibc, libstdc++, libgcc) are in debian:bookworm-slim already and
# stay out: the image's own copies match its other programs.
set -euo pipefail
build=${1:?usage: collect-runtime.sh BUILD_DIR OUT}
out=${2:?usage: collect-runtime.sh BUILD_DIR OUT}
programs=("$build/server/resched-server" "$build/client/resched" "$build/loadgen/resched-loadgen")
mkdir -p "$out/opt/resched/bin" "$out/opt/resched/lib"
for program in "${programs[@]}"; do
  [[ -x "$program" ]] || { echo "collect-runtime: $program is missing: build it first" >&2; exit 2; }
  cp "$program" "$out/opt/resched/bin/"
  strip --strip-unneeded "$out/opt/resched/bin/$(basename "$program")"
done
ldd "${programs[@]}" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
  grep -Ev '/(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so' |
  while read -r library; do
    cp -L "$library" "$out/opt/resched/lib/"
  done
