#!/usr/bin/env bash
# Benchmarks/attack/run.sh [--quick] [--server PATH] [--only NAME]... [--server-arg A]... [--smaps DIR]
#
# Measures what cheap abuse costs a release badminton-server and prints one table of figures
# beside their budgets. Builds the C client (attack.c) with gcc, builds the release server with
# `swift build -c release --product badminton-server` unless --server names a binary, and runs each
# scenario against a fresh server on 127.0.0.1 (port 0, a temporary data folder), reading the
# server's memory and CPU from /proc. Everything stops by itself; nothing leaves the loopback.
#
#   --quick         smaller counts, for a smoke run
#   --server PATH   use this badminton-server binary instead of building one
#   --only NAME     run only the named scenarios (repeatable): bomb partial validation churn
#                   descriptors login-flood uploads (both upload scenarios: upload-pieces,
#                   the document in UploadDocumentPiece pieces, and upload-frames, the document
#                   whole in one 5 MiB frame; each can be named alone) health-rate (not an
#                   attack: Health/Check answers per second, 4 connections x 64 in flight)
#   --server-arg A  pass option A to every server started (repeatable), e.g. to try a limit
#   --client-arg A  pass option A to the client (repeatable), e.g. --pieces-in-flight 8: at most 8
#                   upload pieces in flight over all connections, what a server-wide bound would hold
#   --smaps DIR     save the server's /proc/PID/smaps before and after each upload scenario in DIR
#                   (which mappings the resident memory is in)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
quick=()
server=""
only=()
extra=()
smaps=()
client=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=(--quick) ;;
    --server) server=$2; shift ;;
    --only) only+=("$2"); shift ;;
    --server-arg) extra+=("$2"); shift ;;
    --client-arg) client+=("$2"); shift ;;
    --smaps) mkdir -p "$2"; smaps=(--smaps "$(cd "$2" && pwd)"); shift ;;
    *) echo "usage: $0 [--quick] [--server PATH] [--only SCENARIO]... [--server-arg ARG]... [--smaps DIR]" >&2; exit 2 ;;
  esac
  shift
done
[ ${#only[@]} -gt 0 ] || only=(bomb partial validation churn descriptors login-flood uploads health-rate)
# "uploads" is both upload scenarios, each against a fresh server.
names=()
for scenario in "${only[@]}"; do
  case "$scenario" in
    uploads) names+=(upload-pieces upload-frames) ;;
    *) names+=("$scenario") ;;
  esac
done

started=$(date +%s)
work=$(mktemp -d "${TMPDIR:-/tmp}/badminton-attack.XXXXXX")
server_pid=""

stop_server() {
  [ -n "$server_pid" ] || return 0
  kill -TERM "$server_pid" 2>/dev/null || true
  for _ in $(seq 50); do
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
}
cleanup() {
  stop_server
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The client: a few seconds with gcc.
rpc="$root/Sources/CBadmintonRPCProto"
product="$root/Sources/CBadmintonProto"
mkdir -p "$here/.build"
gcc -O2 -std=gnu11 -Wall -Wextra -Wno-unused-parameter \
  -I "$rpc/include" -I "$product/include" -o "$here/.build/attack" "$here/attack.c" \
  "$rpc"/generated/badminton/rpc/v1/*.pb-c.c "$product"/generated/badminton/v1/{accounts,players,common}.pb-c.c \
  -lprotobuf-c -lzstd -lm
tool="$here/.build/attack"

# The server: a release build.
if [ -z "$server" ]; then
  (cd "$root" && swift build -c release --product badminton-server >&2)
  server="$(cd "$root" && swift build -c release --show-bin-path)/badminton-server"
fi
[ -x "$server" ] || { echo "no server binary at $server" >&2; exit 2; }

# start_server NAME [ulimit-n] [server options...]: a fresh server in $work/NAME; sets server_pid,
# port and data.
start_server() {
  local name=$1 nofile=$2
  shift 2
  data="$work/$name"
  mkdir -p "$data/data"
  : >"$data/out"
  if [ "$nofile" = "-" ]; then
    "$server" --host 127.0.0.1 --port 0 --data-dir "$data/data" --log-level error \
      --shutdown-grace-seconds 0 ${extra[@]+"${extra[@]}"} "$@" >"$data/out" 2>"$data/log" &
  else
    bash -c 'ulimit -Sn "$0" && exec "$@"' "$nofile" "$server" --host 127.0.0.1 --port 0 \
      --data-dir "$data/data" --log-level error --shutdown-grace-seconds 0 \
      ${extra[@]+"${extra[@]}"} "$@" \
      >"$data/out" 2>"$data/log" &
  fi
  server_pid=$!
  port=""
  for _ in $(seq 300); do
    port=$(sed -n 's/^badminton-server listening on .*:\([0-9]*\)$/\1/p' "$data/out")
    [ -n "$port" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$port" ]; then
    echo "the server did not start:" >&2
    cat "$data/log" >&2
    exit 1
  fi
  data="$data/data"
}

results="$work/results"
: >"$results"
for scenario in "${names[@]}"; do
  case "$scenario" in
    descriptors) start_server "$scenario" 1024 --scrypt-log-n 10 ;;
    login-flood) start_server "$scenario" - ;;
    *) start_server "$scenario" - --scrypt-log-n 10 ;;
  esac
  echo "== $scenario (server pid $server_pid, port $port)" >&2
  timeout 300 "$tool" --port "$port" --pid "$server_pid" --data-dir "$data" "${quick[@]}" \
    ${smaps[@]+"${smaps[@]}"} ${client[@]+"${client[@]}"} \
    "$scenario" | tee -a "$results" | sed -n 's/^NOTE\t[^\t]*\t/   /p' >&2 || {
    echo "   (the client failed or ran out of time)" >&2
    echo -e "ROW\t$scenario\t(client failed)\t-\t-\t-" >>"$results"
  }
  stop_server
done

echo
echo "Abuse figures against badminton-server ($(date -u +%Y-%m-%dT%H:%MZ), $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'), ${quick[*]:-full}, $(( $(date +%s) - started )) s)"
echo
{
  echo -e "scenario\tfigure\tbudget\tmeasured\t"
  grep '^ROW' "$results" | cut -f2-
} | column -t -s $'\t'
