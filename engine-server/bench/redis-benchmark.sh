#!/usr/bin/env bash
# redis-benchmark (Debian's redis-tools) against `./sluice serve` and against a real redis-server on the same machine,
# one after the other (never at the same time), SET and GET at pipeline 1 and 16. Prints a Markdown table (throughput,
# ratio to Redis, p50/p99 latency) and keeps redis-benchmark's CSV output and the server logs in --out.
#
#   engine-server/bench/redis-benchmark.sh [-n REQUESTS] [-c CLIENTS] [-r KEYSPACE] [-d VALUE_BYTES]
#                                          [--node-config FILE] [--out DIR]
#
# --node-config FILE: extra node keys (profile, controls, writes.sync, env.* ...) appended to the generated
# properties file; data.dir and the ports are set by the script. Needs redis-server and redis-benchmark
# (apt-get install redis-server redis-tools). Exit code 1 when any redis-benchmark run reports an error.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
N=200000; C=50; R=1000000; D=3; OUT=/tmp/sluice-redis-benchmark; EXTRA=""
SLUICE_PORT=16380; HTTP_PORT=18380; REDIS_PORT=16379
while [[ $# -gt 0 ]]; do
  case "$1" in
    -n) N="$2"; shift 2 ;;
    -c) C="$2"; shift 2 ;;
    -r) R="$2"; shift 2 ;;
    -d) D="$2"; shift 2 ;;
    --node-config) EXTRA="$2"; shift 2 ;;
    --out) OUT="$2"; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "redis-benchmark.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
done
for tool in redis-server redis-benchmark redis-cli; do
  command -v "$tool" >/dev/null || { echo "redis-benchmark.sh: $tool not found (apt-get install redis-server redis-tools)" >&2; exit 2; }
done
mkdir -p "$OUT"; rm -rf "$OUT/data"
{
  echo "data.dir = $OUT/data"
  echo "server.port = $SLUICE_PORT"
  echo "server.http.port = $HTTP_PORT"
  if [[ -n "$EXTRA" ]]; then cat "$EXTRA"; fi
} > "$OUT/node.properties"

wait_port() { for _ in $(seq 1 600); do redis-cli -p "$1" ping >/dev/null 2>&1 && return 0; sleep 0.2; done; echo "no server on port $1" >&2; return 1; }

errors=0
# bench TARGET PORT: every pipeline depth, CSV per depth
bench() {
  local target="$1" port="$2"
  for P in 1 16; do
    redis-benchmark -p "$port" -t set,get -n "$N" -c "$C" -r "$R" -d "$D" -P "$P" --csv \
      > "$OUT/$target-P$P.csv" 2> "$OUT/$target-P$P.err" || errors=$((errors + 1))
    if grep -qi "error" "$OUT/$target-P$P.err" "$OUT/$target-P$P.csv"; then errors=$((errors + 1)); fi
  done
}

# 1. Redis as an in-memory cache: no snapshots, no append-only file (nothing survives a crash).
redis-server --port "$REDIS_PORT" --save "" --appendonly no --bind 127.0.0.1 > "$OUT/redis.log" 2>&1 &
redis_pid=$!
wait_port "$REDIS_PORT"
bench redis "$REDIS_PORT"
kill -TERM "$redis_pid"; wait "$redis_pid" 2>/dev/null || true

# 2. Sluice: every SET is in the partition's WAL before OK (writes.sync decides whether it is also fsynced).
"$ROOT/sluice" serve --config "$OUT/node.properties" > "$OUT/sluice.log" 2>&1 &
sluice_pid=$!
wait_port "$SLUICE_PORT"
bench sluice "$SLUICE_PORT"
redis-cli -p "$SLUICE_PORT" info stats > "$OUT/sluice-info-stats.txt" || true
kill -TERM "$sluice_pid"; wait "$sluice_pid" || { echo "sluice serve did not exit 0 after SIGTERM" >&2; errors=$((errors + 1)); }

# CSV columns (redis-benchmark 7): "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms",
# "p99_latency_ms","max_latency_ms"
field() { awk -F, -v t="$2" -v col="$3" '{gsub(/"/, "")} $1 == t {print $col}' "$1"; }
echo
echo "redis-benchmark -t set,get -n $N -c $C -r $R -d $D, $(date -u +%Y-%m-%d), $(nproc) CPUs"
echo
echo "| pipeline | command | redis-server ops/s | sluice ops/s | sluice / redis | redis p50 / p99 ms | sluice p50 / p99 ms |"
echo "|---|---|---|---|---|---|---|"
for P in 1 16; do
  for t in SET GET; do
    rr=$(field "$OUT/redis-P$P.csv" "$t" 2); sr=$(field "$OUT/sluice-P$P.csv" "$t" 2)
    ratio=$(awk -v a="$sr" -v b="$rr" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }')
    echo "| $P | $t | $rr | $sr | $ratio | $(field "$OUT/redis-P$P.csv" "$t" 5) / $(field "$OUT/redis-P$P.csv" "$t" 7) | $(field "$OUT/sluice-P$P.csv" "$t" 5) / $(field "$OUT/sluice-P$P.csv" "$t" 7) |"
  done
done
echo
echo "errors: $errors (redis-benchmark output and server logs in $OUT)"
[[ $errors -eq 0 ]]
