#!/usr/bin/env bash
# etcd's own CPU per transaction of 128 puts of 512 bytes, sent through its JSON gateway (as
# server/store/etcd_client.cc sends them, here with curl) and through gRPC (etcdctl), to one
# member on loopback that this script starts and stops. docs/dependencies.md quotes it.
#   scripts/etcd-gateway-cost.sh [transactions]   (default 40)
set -euo pipefail
rounds=${1:-40}
dir=$(mktemp -d)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
peer=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
url=http://127.0.0.1:$port
etcd --name m0 --data-dir "$dir/data" --listen-client-urls "$url" --advertise-client-urls "$url" \
  --listen-peer-urls "http://127.0.0.1:$peer" --initial-advertise-peer-urls "http://127.0.0.1:$peer" \
  --initial-cluster "m0=http://127.0.0.1:$peer" >"$dir/etcd.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do curl -sf "$url/health" >/dev/null && break; sleep 0.1; done
python3 - "$dir" <<'PY'
import base64, json, sys
value = "r" * 512
with open(sys.argv[1] + "/txn.txt", "w") as f:
    f.write("\n" + "".join('put k%d "%s"\n' % (i, value) for i in range(128)) + "\n\n")
encoded = base64.b64encode(value.encode()).decode()
puts = [{"request_put": {"key": base64.b64encode(b"k%d" % i).decode(), "value": encoded}}
        for i in range(128)]
with open(sys.argv[1] + "/txn.json", "w") as f:
    json.dump({"success": puts}, f)
PY
cpu_ms() { awk -v tck="$(getconf CLK_TCK)" '{print ($14 + $15) * 1000 / tck}' "/proc/$pid/stat"; }
before=$(cpu_ms)
for _ in $(seq "$rounds"); do
  ETCDCTL_API=3 etcdctl --endpoints="$url" txn <"$dir/txn.txt" >/dev/null
done
grpc=$(echo "($(cpu_ms) - $before) / $rounds" | bc -l)
before=$(cpu_ms)
for _ in $(seq "$rounds"); do
  curl -sf -X POST "$url/v3/kv/txn" -d @"$dir/txn.json" >/dev/null
done
gateway=$(echo "($(cpu_ms) - $before) / $rounds" | bc -l)
printf 'etcd CPU per 128-put transaction: gRPC %.1f ms, JSON gateway %.1f ms (%d each)\n' \
  "$grpc" "$gateway" "$rounds"
