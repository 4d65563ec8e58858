#!/usr/bin/env bash
# Benchmarks/load/plot.sh RESULTS.json OUT.png: draws the run's own figures with gnuplot
# (Debian's gnuplot-nox): FindMatches latency percentiles against the board's size, and
# Health/Check and GetMyProfile calls per second against connections (64 in flight each), with
# the server's cores used beside each point.
set -euo pipefail
json=$1
png=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$json" "$tmp" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1], encoding="utf-8"))
f, tmp = doc["figures"], sys.argv[2]
sizes = sorted({int(k.split(".")[1]) for k in f if k.startswith("find.") and k.endswith(".p50_us")})
with open(f"{tmp}/find.dat", "w") as out:
    for n in sizes:
        out.write(f"{n} {f[f'find.{n}.p50_us']} {f[f'find.{n}.p90_us']} {f[f'find.{n}.p99_us']}\n")
conns = sorted({int(k.split(".")[1].split("x")[0]) for k in f
                if k.startswith("profile.") and k.endswith("x64.calls_per_s")})
with open(f"{tmp}/rate.dat", "w") as out:
    for c in conns:
        p, h = f"profile.{c}x64", f"health.{c}x64"
        out.write(f"{c} {f[p + '.calls_per_s']} {f[p + '.server_cores']} "
                  f"{f.get(h + '.calls_per_s', 'NaN')} {f.get(h + '.server_cores', 'NaN')}\n")
m = doc["meta"]
with open(f"{tmp}/title", "w") as out:
    out.write(f"badminton-server {m.get('commit', '?')[:10]}, {m.get('date', '?')}, "
              f"{m.get('cores', '?')} cores, load {m.get('load_before', '?').split(' ')[0]}")
EOF

gnuplot <<EOF
set terminal pngcairo size 1200,480 font "sans,10"
set output "$png"
set multiplot layout 1,2 title "$(cat "$tmp/title")"
set grid
set key bottom right
set title "FindMatches over the wire, 1 in flight, with a session"
set logscale xy
set xrange [500:200000]
set yrange [10:*]
set xlabel "active availability on the board"
set ylabel "latency (µs)"
set format x "%.0s%c"
plot "$tmp/find.dat" using 1:2 with linespoints lw 2 pt 7 title "p50", \
     "" using 1:3 with linespoints lw 2 pt 5 title "p90", \
     "" using 1:4 with linespoints lw 2 pt 9 title "p99", \
     100 with lines dt 2 lc rgb "gray" title "budget: p50 <= 100 µs at 100k"
set format x "%g"
set title "calls/s against connections, 64 in flight on each (labels: server cores used)"
set xlabel "connections"
set ylabel "calls per second"
set logscale x 2
set logscale y
set xrange [0.8:10]
set yrange [100:10000000]
set key top left
set xtics (1, 2, 4, 8)
plot "$tmp/rate.dat" using 1:4 with linespoints lw 2 pt 5 title "Health/Check (no session)", \
     "" using 1:4:(sprintf("%.2f", \$5)) with labels offset 0,1 notitle, \
     "" using 1:2 with linespoints lw 2 pt 7 title "Players/GetMyProfile (session)", \
     "" using 1:2:(sprintf("%.2f", \$3)) with labels offset 0,-1 notitle, \
     100000 with lines dt 2 lc rgb "gray" title "budget: GetMyProfile >= 100,000/s at 4 x 64"
unset multiplot
EOF
echo "wrote $png" >&2
