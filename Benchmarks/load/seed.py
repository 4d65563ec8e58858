#!/usr/bin/env python3
"""seed.py DATA_DIR N: brings a stopped badminton-server's store to N synthetic players, each with
one active availability, for the load figures at N (Benchmarks/load/run.sh).

The server has no bulk import, and posting N availability through the API needs N accounts (one
scrypt digest each, ten registrations per address an hour) and N PostAvailability calls. So the
rows are written into the server's own SQLite file while it is stopped, as copies of rows the
server itself wrote: the bench caller's player row (same password digest, another phone and
level) and the caller's availability posted through the API (another player, place and time).
The server then loads them at start like any stored availability, which is also what the start
time at N measures. Players are spread over 20 cities (a twentieth near the caller in Shanghai),
levels 1-7, singles (4 in 5) and doubles, slots of 1 to 3 hours over the next 6 days. Adding is
idempotent: a second call with a larger N adds only the missing players.
"""
import random
import sqlite3
import sys
import time

CITIES = [
    (31.2304, 121.4737), (39.9042, 116.4074), (22.5431, 114.0579), (23.1291, 113.2644),
    (30.5728, 104.0668), (30.2741, 120.1551), (34.3416, 108.9398), (29.5630, 106.5516),
    (32.0603, 118.7969), (30.5928, 114.3055), (1.3521, 103.8198), (13.7563, 100.5018),
    (3.1390, 101.6869), (35.6762, 139.6503), (37.5665, 126.9780), (28.6139, 77.2090),
    (19.0760, 72.8777), (-6.2088, 106.8456), (14.5995, 120.9842), (25.0330, 121.5654),
]
PREFIX = "+861500"


def main() -> None:
    data_dir, target = sys.argv[1], int(sys.argv[2])
    db = sqlite3.connect(f"{data_dir}/badminton.sqlite")
    db.execute("PRAGMA foreign_keys = ON")
    player = db.execute(
        "SELECT password_hash, password_salt, password_parameters, locale, joined_at_ms "
        "FROM player WHERE phone = '+8613900000001'").fetchone()
    avail = db.execute(
        "SELECT a.* FROM availability a JOIN player p ON p.id = a.player_id "
        "WHERE p.phone = '+8613900000001' AND a.state = 1 ORDER BY a.id LIMIT 1").fetchone()
    if player is None or avail is None:
        sys.exit("seed.py: run `load setup` first (no bench caller or no availability)")
    columns = [d[0] for d in db.execute("SELECT * FROM availability LIMIT 0").description]
    template = dict(zip(columns, avail))
    have = db.execute("SELECT count(*) FROM player WHERE phone LIKE ?", (PREFIX + "%",)).fetchone()[0]
    if have >= target:
        return
    random.seed(have + 17)
    now_ms = int(time.time() * 1000)
    day0 = (template["start_ms"] // 86_400_000) * 86_400_000
    started = time.time()
    with db:
        for i in range(have, target):
            cur = db.execute(
                "INSERT INTO player (phone, nickname, password_hash, password_salt, "
                "password_parameters, self_level, locale, joined_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (f"{PREFIX}{i:08d}", f"Player {i}", player[0], player[1], player[2],
                 random.randint(1, 7), player[3], player[4]))
            lat, lon = CITIES[i % len(CITIES)]
            lat += random.uniform(-0.15, 0.15)
            lon += random.uniform(-0.15, 0.15)
            day = day0 + random.randint(0, 5) * 86_400_000
            start_minute = random.randrange(6 * 60, 21 * 60, 30)
            end_minute = start_minute + random.choice((60, 90, 120, 180))
            start_ms = day + start_minute * 60_000
            date = time.strftime("%Y-%m-%d", time.gmtime(day / 1000))
            row = dict(template)
            del row["id"]
            row.update(
                player_id=cur.lastrowid, mode=1 if random.random() < 0.8 else 2, local_date=date,
                start_minute=start_minute, end_minute=end_minute, time_zone="UTC",
                start_ms=start_ms, end_ms=start_ms + (end_minute - start_minute) * 60_000,
                latitude=lat, longitude=lon, posted_at_ms=now_ms - random.randint(0, 86_400_000))
            names = list(row)
            db.execute(
                f"INSERT INTO availability ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
                [row[n] for n in names])
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    print(f"seed.py: {target - have} players and availability added in {time.time() - started:.1f} s",
          file=sys.stderr)


if __name__ == "__main__":
    main()
