#!/usr/bin/env bash
# Benchmarks/load/run.sh [--quick] [--sizes N,N,...] [--server PATH] [--out DIR] [--no-plot]
#                        [--churn] [--bench PATH]
#
# Measures a release badminton-server over the wire with a C client (load.c) that costs the
# figures little, and prints every figure beside its budget. Builds the client with gcc and the
# server with `swift build -c release --product badminton-server` (unless --server names a
# binary), then, on a temporary data folder with sessions (everything runs logged in):
#
#   1. a fresh server: registers the bench players, the caller posts availability (load setup);
#   2. for each board size N: stops the server, brings the store to N players with one active
#      availability each (seed.py: rows copied from the API-written ones, see there), starts it
#      again timing start to "listening", and measures FindMatches at 1 in flight;
#   3. at the largest N: Health/Check and GetMyProfile latency and calls/s (1, 2, 4, 8 x 64),
#      SendMessage at 64 in flight with the recipient subscribed, then acknowledged writes at 4
#      connections x 64 in flight from 256 players: UpdateLocation, PostAvailability with
#      CancelAvailability in turns, and SendMessage (load.c's `writes`).
#
# The table holds the budgets at 10 million (`--sizes ...,10000000`): FindMatches p99 within
# 300 µs of Health/Check's p99 in the same run, and the server listening within 60 s of its
# launch with at most 3 GB resident.
#
# Writes DIR/results.json (every figure, the commit, the machine's load), DIR/table.md and, with
# gnuplot, DIR/load.png (plot.sh). Default DIR: Benchmarks/load/.build/results. Everything stops
# by itself and talks to 127.0.0.1 only.
#
#   --quick          sizes 1k and 10k, shorter windows: a smoke run of about a minute
#   --sizes LIST     board sizes (default 1000,10000,100000)
#   --server PATH    use this badminton-server binary instead of building one
#   --out DIR        where the results go
#   --no-plot        skip the picture
#   --churn          also the in-process cancel + post figures (1 and 10 million active, 2
#                    threads searching; 100 thousand with --quick): builds and runs
#                    `badminton-bench --only churn` (release; the first build of the Benchmarks
#                    package takes 10 to 20 minutes)
#   --bench PATH     use this badminton-bench binary for --churn instead of building one
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
quick=()
sizes=""
server=""
out="$here/.build/results"
plot=1
churn=0
bench=""
args="$*"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=(--quick) ;;
    --sizes) sizes=$2; shift ;;
    --server) server=$2; shift ;;
    --out) out=$2; shift ;;
    --no-plot) plot=0 ;;
    --churn) churn=1 ;;
    --bench) bench=$2; churn=1; shift ;;
    *) echo "usage: $0 [--quick] [--sizes N,N,...] [--server PATH] [--out DIR] [--no-plot] [--churn] [--bench PATH]" >&2; exit 2 ;;
  esac
  shift
done
if [ -z "$sizes" ]; then
  if [ ${#quick[@]} -gt 0 ]; then sizes=1000,10000; else sizes=1000,10000,100000; fi
fi

started=$(date +%s)
work=$(mktemp -d "${TMPDIR:-/tmp}/badminton-load.XXXXXX")
server_pid=""
stop_server() {
  [ -n "$server_pid" ] || return 0
  kill -TERM "$server_pid" 2>/dev/null || true
  for _ in $(seq 100); do
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
mkdir -p "$here/.build" "$out"
gcc -O2 -std=gnu11 -Wall -Wextra -Wno-unused-parameter \
  -I "$rpc/include" -I "$product/include" -o "$here/.build/load" "$here/load.c" \
  "$rpc"/generated/badminton/rpc/v1/*.pb-c.c "$product"/generated/badminton/v1/*.pb-c.c -lprotobuf-c -lzstd -lm
tool="$here/.build/load"

# The server: a release build.
if [ -z "$server" ]; then
  (cd "$root" && swift build -c release --product badminton-server >&2)
  server="$(cd "$root" && swift build -c release --show-bin-path)/badminton-server"
fi
[ -x "$server" ] || { echo "no server binary at $server" >&2; exit 2; }

# The in-process figures first, alone on the machine.
churn_args=()
if [ "$churn" = 1 ]; then
  if [ -z "$bench" ]; then
    (cd "$root/Benchmarks" && swift build -c release --product badminton-bench >&2)
    bench="$(cd "$root/Benchmarks" && swift build -c release --show-bin-path)/badminton-bench"
  fi
  echo "== cancel + post while 2 threads search (badminton-bench --only churn)" >&2
  "$bench" --only churn "${quick[@]}" --churn-json "$out/churn.json" | sed -n 's/^  /   /p' >&2
  churn_args=(--churn "$out/churn.json")
fi

data="$work/data"
mkdir -p "$data"
results="$work/results.tsv"
: >"$results"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)

# start_server: the server on $data; sets server_pid, port and start_s (exec to "listening").
start_server() {
  : >"$work/out"
  local t0
  t0=$(date +%s.%N)
  "$server" --host 127.0.0.1 --port 0 --data-dir "$data" --log-level error \
    --shutdown-grace-seconds 0 --scrypt-log-n 10 --registrations-per-address-per-hour 0 \
    >"$work/out" 2>"$work/log" &
  server_pid=$!
  port=""
  for _ in $(seq 30000); do
    port=$(sed -n 's/^badminton-server listening on .*:\([0-9]*\)$/\1/p' "$work/out")
    [ -n "$port" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.01
  done
  start_s=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
  if [ -z "$port" ]; then
    echo "the server did not start:" >&2
    cat "$work/log" >&2
    exit 1
  fi
}

run() {
  "$tool" --port "$port" --pid "$server_pid" "${quick[@]}" "$@" | tee -a "$results" |
    sed -n 's/^NOTE\t/   /p' >&2
}

echo "== setup (fresh store)" >&2
start_server
run setup
stop_server

IFS=, read -r -a size_list <<<"$sizes"
last=${size_list[${#size_list[@]}-1]}
for n in "${size_list[@]}"; do
  echo "== $n players and active availability" >&2
  python3 "$here/seed.py" "$data" "$n"
  start_server
  printf 'R\tstart.%s.seconds\t%.3f\n' "$n" "$start_s" >>"$results"
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$server_pid/status")
  printf 'R\tstart.%s.rss_kb\t%s\n' "$n" "$rss" >>"$results"
  echo "   started in $start_s s, $rss KiB resident" >&2
  run find "$n"
  if [ "$n" = "$last" ]; then
    echo "== unary calls" >&2
    run unary 1,2,4,8
    echo "== SendMessage with a subscriber" >&2
    run send
    for kind in location availability message; do
      echo "== writes: $kind, 256 players, 4 connections x 64 in flight" >&2
      run writes "$kind" 4
    done
  fi
  stop_server
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

commit=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo yes || echo no)
python3 "$here/report.py" "$results" "$out" "${churn_args[@]}" \
  --meta "commit=$commit" "dirty=$dirty" "date=$(date -u +%Y-%m-%dT%H:%MZ)" \
  "command=Benchmarks/load/run.sh $args" "sizes=$sizes" "largest=$last" \
  "mode=${quick[*]:-full}" "cores=$(nproc)" "load_before=$load_before" "load_after=$load_after" \
  "seconds=$(( $(date +%s) - started ))" "server=$server"
if [ "$plot" = 1 ]; then
  if command -v gnuplot >/dev/null; then
    "$here/plot.sh" "$out/results.json" "$out/load.png"
  else
    echo "(no gnuplot: apt-get install gnuplot-nox for the picture)" >&2
  fi
fi
