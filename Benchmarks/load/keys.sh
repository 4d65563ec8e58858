#!/usr/bin/env bash
# Benchmarks/load/keys.sh [--server PATH] [--rounds N]
#
# What idempotency keys cost a write: load.c's `writes` (4 connections x 64 in flight from 256
# players, every call with a session) on a release badminton-server over SQLite, each kind of
# write without keys and with a new `idempotency-key` on every call (`--keys`), in turns, each
# `--rounds` times (default 2). A keyed write reads its key first, then keeps the key and its
# answer in the write's own transaction (docs/protocol.md, section 18.3).
#
# Prints one line per measurement: acknowledged writes per second and the server's CPU per
# write. Builds the client with gcc and the server with `swift build -c release` unless
# --server names a binary. Talks to 127.0.0.1 only and stops everything it started.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
server=""
rounds=2
while [ $# -gt 0 ]; do
  case "$1" in
    --server) server=$2; shift ;;
    --rounds) rounds=$2; shift ;;
    *) echo "usage: $0 [--server PATH] [--rounds N]" >&2; exit 2 ;;
  esac
  shift
done

rpc="$root/Sources/CBadmintonRPCProto"
product="$root/Sources/CBadmintonProto"
mkdir -p "$here/.build"
gcc -O2 -std=gnu11 -Wall -Wextra -Wno-unused-parameter \
  -I "$rpc/include" -I "$product/include" -o "$here/.build/load" "$here/load.c" \
  "$rpc"/generated/badminton/rpc/v1/*.pb-c.c "$product"/generated/badminton/v1/*.pb-c.c \
  -lprotobuf-c -lzstd -lm
tool="$here/.build/load"
if [ -z "$server" ]; then
  (cd "$root" && swift build -c release --product badminton-server >&2)
  server="$(cd "$root" && swift build -c release --show-bin-path)/badminton-server"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/badminton-keys.XXXXXX")
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill -KILL "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

start_server() {
  : >"$work/out"
  "$server" --host 127.0.0.1 --port 0 --data-dir "$work/data" --log-level error \
    --shutdown-grace-seconds 0 --scrypt-log-n 10 --registrations-per-address-per-hour 0 \
    >"$work/out" 2>"$work/log" &
  server_pid=$!
  port=""
  for _ in $(seq 3000); do
    port=$(sed -n 's/^badminton-server listening on .*:\([0-9]*\)$/\1/p' "$work/out")
    if [ -n "$port" ]; then return; fi
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.01
  done
  echo "the server did not start:" >&2
  cat "$work/log" >&2
  exit 1
}

stop_server() {
  kill -TERM "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
}

# One server for every round: the writers register once; each measurement logs them in again.
start_server
for round in $(seq "$rounds"); do
  for kind in location availability message; do
    for mode in plain keys; do
      flags=()
      [ "$mode" = keys ] && flags=(--keys)
      "$tool" --port "$port" --pid "$server_pid" "${flags[@]}" writes "$kind" 4 >"$work/figures" 2>"$work/notes" ||
        { cat "$work/notes" >&2; exit 1; }
      echo "round $round $kind $mode: $(grep '^R' "$work/figures" | cut -f2- | tr '\t\n' '  ')"
    done
  done
done
stop_server
