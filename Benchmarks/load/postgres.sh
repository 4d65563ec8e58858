#!/usr/bin/env bash
# Benchmarks/load/postgres.sh [--quick] [--server PATH] [--out DIR]
#
# The PostgreSQL store's figures beside SQLite's, in one run, with the C client of run.sh
# (load.c). Starts a throwaway PostgreSQL 15 cluster (Debian's postgresql-15; fsync on, as a
# production database runs) in a temporary folder, listening on a Unix socket there only, and:
#
#   1. SQLite, one instance: GetMyProfile latency and calls/s; SendMessage at 64 in flight.
#   2. PostgreSQL, one instance: the same.
#   3. PostgreSQL, two instances on the one database:
#      - a change committed on one instance reaching the other's subscriber: SendMessage through
#        instance 1 with the recipient subscribed on instance 2 (--sub-port), at 1 and at 64 in
#        flight; the event latency is from the call's start to the event on the other instance;
#      - acknowledged writes per second with both instances taking SendMessage at once.
#   Each store also takes load.c's `writes` (4 connections x 64 in flight from 256 players):
#   UpdateLocation, PostAvailability with CancelAvailability, SendMessage; on two instances,
#   UpdateLocation and SendMessage through both at once.
#
# Prints every figure and writes DIR/postgres.tsv (default DIR: Benchmarks/load/.build/postgres).
# Everything stops by itself and talks to 127.0.0.1 and the cluster's socket only.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
quick=()
server=""
out="$here/.build/postgres"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=(--quick) ;;
    --server) server=$2; shift ;;
    --out) out=$2; shift ;;
    *) echo "usage: $0 [--quick] [--server PATH] [--out DIR]" >&2; exit 2 ;;
  esac
  shift
done

bin=${BADMINTON_POSTGRES_BIN:-/usr/lib/postgresql/15/bin}
[ -x "$bin/initdb" ] || { echo "no PostgreSQL server at $bin: run scripts/deps.sh --tests" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/badminton-pg-load.XXXXXX")
chmod 755 "$work"
as_owner=()
if [ "$(id -u)" = 0 ]; then
  # PostgreSQL refuses to run as root: the cluster belongs to the package's postgres user.
  chown postgres "$work"
  as_owner=(runuser -u postgres --)
fi
pids=()
cluster_up=0
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ "$cluster_up" = 1 ]; then
    "${as_owner[@]}" "$bin/pg_ctl" -D "$work/pg" -m fast -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The client and the server.
rpc="$root/Sources/CBadmintonRPCProto"
product="$root/Sources/CBadmintonProto"
mkdir -p "$here/.build" "$out"
gcc -O2 -std=gnu11 -Wall -Wextra -Wno-unused-parameter \
  -I "$rpc/include" -I "$product/include" -o "$here/.build/load" "$here/load.c" \
  "$rpc"/generated/badminton/rpc/v1/*.pb-c.c "$product"/generated/badminton/v1/*.pb-c.c -lprotobuf-c -lzstd -lm
tool="$here/.build/load"
if [ -z "$server" ]; then
  (cd "$root" && swift build -c release --product badminton-server >&2)
  server="$(cd "$root" && swift build -c release --show-bin-path)/badminton-server"
fi
[ -x "$server" ] || { echo "no server binary at $server" >&2; exit 2; }

echo "== a PostgreSQL 15 cluster in $work/pg" >&2
"${as_owner[@]}" "$bin/initdb" -D "$work/pg" -U badminton --auth=trust -E UTF8 --locale=C \
  >/dev/null
"${as_owner[@]}" "$bin/pg_ctl" -D "$work/pg" -l "$work/pg.log" -w -o \
  "-c listen_addresses='' -k $work -p 5432 -c max_connections=200 -c shared_buffers=256MB" \
  start >/dev/null
cluster_up=1
"$bin/psql" -h "$work" -U badminton -d postgres -q -c "CREATE DATABASE bench" >/dev/null
url="postgresql://badminton@localhost:5432/bench?host=$work"

results="$out/postgres.tsv"
: >"$results"

# start NAME ARGS...: a server with ARGS; sets last_pid and last_port.
start() {
  local name=$1
  shift
  "$server" --host 127.0.0.1 --port 0 --log-level error --shutdown-grace-seconds 0 \
    --scrypt-log-n 10 --registrations-per-address-per-hour 0 "$@" \
    >"$work/$name.out" 2>"$work/$name.log" &
  last_pid=$!
  pids+=("$last_pid")
  last_port=""
  for _ in $(seq 3000); do
    last_port=$(sed -n 's/^badminton-server listening on .*:\([0-9]*\)$/\1/p' "$work/$name.out")
    [ -n "$last_port" ] && return 0
    kill -0 "$last_pid" 2>/dev/null || break
    sleep 0.01
  done
  echo "the server $name did not start:" >&2
  cat "$work/$name.log" >&2
  exit 1
}

stop() {
  kill -TERM "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

# measure SCENARIO PORT PID ARGS...: one load command, its figures prefixed with SCENARIO.
measure() {
  local scenario=$1 port=$2 pid=$3
  shift 3
  "$tool" --port "$port" --pid "$pid" "${quick[@]}" "$@" |
    awk -F'\t' -v s="$scenario" '$1 == "R" { print "R\t" s "." $2 "\t" $3; next } { print }' |
    tee -a "$results" | sed -n 's/^NOTE\t/   /p' >&2
}

echo "== SQLite, one instance" >&2
mkdir -p "$work/sqlite"
start sqlite --data-dir "$work/sqlite"
sqlite_pid=$last_pid sqlite_port=$last_port
measure sqlite "$sqlite_port" "$sqlite_pid" setup
measure sqlite "$sqlite_port" "$sqlite_pid" unary 1,4
measure sqlite "$sqlite_port" "$sqlite_pid" send
for kind in location availability message; do
  measure sqlite "$sqlite_port" "$sqlite_pid" writes "$kind" 4
done
stop "$sqlite_pid"

echo "== PostgreSQL, one instance" >&2
start pg1 --database "$url"
pg1_pid=$last_pid pg1_port=$last_port
measure pg.one "$pg1_port" "$pg1_pid" setup
measure pg.one "$pg1_port" "$pg1_pid" unary 1,4
measure pg.one "$pg1_port" "$pg1_pid" send
for kind in location availability message; do
  measure pg.one "$pg1_port" "$pg1_pid" writes "$kind" 4
done

echo "== PostgreSQL, two instances: instance 1 writes, instance 2's subscriber receives" >&2
start pg2 --database "$url"
pg2_pid=$last_pid pg2_port=$last_port
measure pg.cross "$pg1_port" "$pg1_pid" --sub-port "$pg2_port" --inflight 1 send
measure pg.cross "$pg1_port" "$pg1_pid" --sub-port "$pg2_port" send

echo "== PostgreSQL, two instances both taking writes" >&2
measure pg.two.instance1 "$pg1_port" "$pg1_pid" send &
first=$!
measure pg.two.instance2 "$pg2_port" "$pg2_pid" send
wait "$first"
for kind in location message; do
  measure "pg.two.instance1" "$pg1_port" "$pg1_pid" writes "$kind" 4 &
  first=$!
  measure "pg.two.instance2" "$pg2_port" "$pg2_pid" writes "$kind" 4
  wait "$first"
done

echo "== figures" >&2
awk -F'\t' '$1 == "R" { printf "%-48s %s\n", $2, $3 }' "$results"
