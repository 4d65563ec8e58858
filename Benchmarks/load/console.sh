#!/usr/bin/env bash
# Benchmarks/load/console.sh [--server PATH] [--rounds N]
#
# What the operator console costs the RPC API: Health/Check and GetMyProfile calls/s at 4
# connections x 64 in flight (the C client, load.c `unary 4`, with a session), measured on a
# release badminton-server three ways, in turns, each `--rounds` times (default 2):
#
#   off   the console off (and so no metrics recorded at all);
#   on    --console-port given, nobody signed in (the recent-metrics window records every call);
#   live  the console on, an administrator signed in and the live page fetched once a second
#         (curl, five times the page's own refresh) while the calls run.
#
# Prints one line per measurement and the live page's fetch times. Builds the client with gcc
# and the server with `swift build -c release` unless --server names a binary. Talks to
# 127.0.0.1 only and stops everything it started.
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
command -v curl >/dev/null || { echo "needs curl" >&2; exit 2; }

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

work=$(mktemp -d "${TMPDIR:-/tmp}/badminton-console.XXXXXX")
server_pid=""
fetcher_pid=""
cleanup() {
  [ -n "$fetcher_pid" ] && kill "$fetcher_pid" 2>/dev/null || true
  [ -n "$server_pid" ] && kill -KILL "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# start_server ARGS...: sets server_pid, port and (with the console) console_port.
start_server() {
  : >"$work/out"
  "$server" --host 127.0.0.1 --port 0 --data-dir "$work/data" --log-level error \
    --shutdown-grace-seconds 0 --scrypt-log-n 10 --registrations-per-address-per-hour 0 "$@" \
    >"$work/out" 2>"$work/log" &
  server_pid=$!
  port="" console_port=""
  for _ in $(seq 3000); do
    port=$(sed -n 's/^badminton-server listening on .*:\([0-9]*\)$/\1/p' "$work/out")
    console_port=$(sed -n 's/^badminton-server console on .*:\([0-9]*\)$/\1/p' "$work/out")
    if [ -n "$port" ] && { [ "$#" -eq 0 ] || [ -n "$console_port" ]; }; then return; fi
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

# The bench players (load.c setup): the caller is measured, the sender (id 2) administers.
start_server
"$tool" --port "$port" setup >/dev/null
stop_server
admin=(--admin-id 2 --console-port 0)

# sign_in: an administrator's console session in $work/jar.
sign_in() {
  local base="http://127.0.0.1:$console_port"
  rm -f "$work/jar"
  local token
  token=$(curl -s -c "$work/jar" "$base/sign-in" |
    sed -n 's/.*name="csrf" value="\([^"]*\)".*/\1/p' | head -1)
  curl -s -o /dev/null -b "$work/jar" -c "$work/jar" \
    --data-urlencode "csrf=$token" --data-urlencode "phone=+8613900000002" \
    --data-urlencode "password=bench-password-1" "$base/sign-in"
  curl -s -b "$work/jar" "$base/live" | grep -q 'http-equiv="refresh"' ||
    { echo "could not sign in to the console" >&2; exit 1; }
}

measure() {
  local mode=$1
  case "$mode" in
    off) start_server ;;
    on) start_server "${admin[@]}" ;;
    live)
      start_server "${admin[@]}"
      sign_in
      (while true; do
        curl -s -o /dev/null -w '%{time_total} %{size_download}\n' -b "$work/jar" \
          "http://127.0.0.1:$console_port/live" >>"$work/live-times"
        sleep 1
      done) &
      fetcher_pid=$!
      ;;
  esac
  "$tool" --port "$port" --pid "$server_pid" unary 4 >"$work/figures"
  if [ -n "$fetcher_pid" ]; then
    kill "$fetcher_pid" 2>/dev/null || true
    wait "$fetcher_pid" 2>/dev/null || true
    fetcher_pid=""
  fi
  stop_server
  awk -F'\t' -v mode="$mode" '$1 == "R" && $2 ~ /4x64/ { printf "%-5s %s %s\n", mode, $2, $3 }' \
    "$work/figures"
}

: >"$work/live-times"
for round in $(seq "$rounds"); do
  echo "== round $round" >&2
  for mode in off on live; do measure "$mode"; done
done
if [ -s "$work/live-times" ]; then
  sort -n "$work/live-times" | awk '{ t[NR] = $1; s = $2 } END {
    printf "live page: %d fetches, median %.1f ms, max %.1f ms, %d bytes\n",
      NR, t[int((NR + 1) / 2)] * 1000, t[NR] * 1000, s }'
fi
