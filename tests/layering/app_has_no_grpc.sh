#!/bin/sh
# The application library is transport-free: none of its objects refers to a gRPC symbol, and
# none of its files includes a gRPC header. (Its protobuf dependency brings gRPC's include path
# along, so the include roots alone cannot prove it.)
# Usage: app_has_no_grpc.sh ARCHIVE SOURCE_DIR
set -eu
archive=$1
dir=$2
[ -s "$archive" ] || { echo "app_has_no_grpc: no archive at $archive" >&2; exit 1; }
symbols=$(nm -C --undefined-only "$archive" | grep -c 'grpc::' || true)
if [ "$symbols" -ne 0 ]; then
  echo "app_has_no_grpc: $archive refers to $symbols gRPC symbols:" >&2
  nm -C --undefined-only "$archive" | grep 'grpc::' | sort -u | head -20 >&2
  exit 1
fi
includes=$(grep -l '#include [<"]grpc' "$dir"/*.h "$dir"/*.cc || true)
if [ -n "$includes" ]; then
  echo "app_has_no_grpc: these files include gRPC headers: $includes" >&2
  exit 1
fi
echo "app_has_no_grpc: $(nm --defined-only "$archive" | grep -c ' T ') functions, none on gRPC"
