/* load: measures a running badminton-server over the wire with a client that costs little.
 *
 * One single-threaded epoll client in C. Requests are encoded with the protobuf-c code generated
 * from Proto/ (docs/protocol.md §2-§5); the load loops send frames encoded once per call slot
 * (a slot's call id is reused only after its RESPONSE came, which §6.1 allows) and read answers
 * with a small envelope scanner that looks only at call_id, kind and status, so the client spends
 * well under a microsecond of CPU per call and the figures are the server's. zstd-compressed
 * answers (flag 1) are decompressed. The server's CPU comes from /proc/PID/stat (utime + stime),
 * its threads' from /proc/PID/task/TID/stat.
 *
 * Every loop is bounded in calls and in time and talks to 127.0.0.1 only. Output: tab-separated
 *
 *   R     <key> <value>      one figure (run.sh gathers them into results.json and the table)
 *   NOTE  <text>
 *
 * Commands (see run.sh beside this file):
 *   setup                      registers the three bench players; the caller posts one availability
 *   find N                     FindMatches latency at 1 in flight (N: the board size, for the keys)
 *   unary                      Health/Check and Players/GetMyProfile latency and calls per second
 *   health                     Health/Check alone, no session: latency (busy-polling, then asleep
 *                              in recv) and calls per second at 64 in flight on one connection
 *   send                       SendMessage at 64 in flight (--inflight N), with the recipient
 *                              subscribed (on another instance of the same database with
 *                              --sub-port PORT: the event latency is then the time a commit takes
 *                              to reach the other instance's subscriber)
 *   writes KIND [CONNS]        acknowledged writes per second at CONNS connections (default 4) x
 *                              --inflight calls each, every call from one of 256 players (a slot
 *                              of its own each, so no player waits for their own earlier call)
 *                              and every frame encoded anew; each player writes from a place of
 *                              their own, far from the others': KIND is location (UpdateLocation),
 *                              availability (PostAvailability, then CancelAvailability of the
 *                              posted id, in turns; both count as writes) or message (SendMessage
 *                              to the next player, a new client_message_id each call)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "badminton/rpc/v1/envelope.pb-c.h"
#include "badminton/rpc/v1/health.pb-c.h"
#include "badminton/v1/accounts.pb-c.h"
#include "badminton/v1/events.pb-c.h"
#include "badminton/v1/matching.pb-c.h"
#include "badminton/v1/messages.pb-c.h"
#include "badminton/v1/players.pb-c.h"

typedef Badminton__Rpc__V1__Envelope Envelope;

#define KIND_REQUEST 1
#define KIND_RESPONSE 2
#define KIND_STREAM_MESSAGE 3
#define KIND_STREAM_END 4
#define KIND_PING 6
#define KIND_PONG 7
#define KIND_GOAWAY 8
#define MAX_SLOTS 64

static int g_port, g_pid, g_quick;
/* send: the subscriber's server (another instance on the same database), and calls in flight */
static int g_sub_port, g_inflight = 64;
static const char *PASSWORD = "bench-password-1";
static const char *PHONE_CALLER = "+8613900000001";
static const char *PHONE_SENDER = "+8613900000002";
static const char *PHONE_RECIPIENT = "+8613900000003";

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "load: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(2);
}

static void result(const char *key, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("R\t%s\t", key);
  vprintf(fmt, ap);
  printf("\n");
  fflush(stdout);
  va_end(ap);
}

static void note(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("NOTE\t");
  vprintf(fmt, ap);
  printf("\n");
  fflush(stdout);
  va_end(ap);
}

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* ---------------------------------------------------------------- the server's and our CPU */

/* utime + stime of /proc/<path>/stat in clock ticks, or -1. */
static long long stat_ticks(const char *path) {
  char buf[2048];
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  char *p = strrchr(buf, ')');
  if (!p) return -1;
  unsigned long long ut = 0, st = 0;
  int field = 2;
  char *save = NULL;
  for (char *tok = strtok_r(p + 1, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    field++;
    if (field == 14) ut = strtoull(tok, NULL, 10);
    if (field == 15) {
      st = strtoull(tok, NULL, 10);
      break;
    }
  }
  return (long long)(ut + st);
}

#define MAX_THREADS 256
typedef struct {
  double process_s;
  int n;
  int tid[MAX_THREADS];
  long long ticks[MAX_THREADS];
} CPU;

/* The server's CPU seconds, in all and per thread. */
static void server_cpu(CPU *c) {
  char path[128];
  double tck = (double)sysconf(_SC_CLK_TCK);
  snprintf(path, sizeof path, "/proc/%d/stat", g_pid);
  c->process_s = (double)stat_ticks(path) / tck;
  c->n = 0;
  snprintf(path, sizeof path, "/proc/%d/task", g_pid);
  DIR *d = opendir(path);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)) && c->n < MAX_THREADS) {
    if (e->d_name[0] == '.') continue;
    char p2[300];
    snprintf(p2, sizeof p2, "/proc/%d/task/%s/stat", g_pid, e->d_name);
    c->tid[c->n] = atoi(e->d_name);
    c->ticks[c->n] = stat_ticks(p2);
    c->n++;
  }
  closedir(d);
}

/* Threads of the server that were busy at least a tenth of `wall` between a and b. */
static int busy_threads(const CPU *a, const CPU *b, double wall, double *top2) {
  double tck = (double)sysconf(_SC_CLK_TCK);
  int busy = 0;
  double first = 0, second = 0;
  for (int i = 0; i < b->n; i++) {
    long long before = 0;
    for (int j = 0; j < a->n; j++)
      if (a->tid[j] == b->tid[i]) before = a->ticks[j];
    double s = (double)(b->ticks[i] - before) / tck;
    if (s >= 0.1 * wall) busy++;
    if (s > first) second = first, first = s;
    else if (s > second) second = s;
  }
  top2[0] = first / wall, top2[1] = second / wall;
  return busy;
}

static double self_cpu_s(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* ---------------------------------------------------------------- frames */

static void put_be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

typedef struct {
  uint8_t *p;
  size_t len;
} Bytes;

/* With --keys, every call with a session carries an idempotency key of its own (the server
 * ignores it on reads): what keyed writes cost next to unkeyed ones. */
static int g_keys = 0;
static unsigned long g_key_counter = 0;

/* An uncompressed REQUEST frame for `method` with `msg` and, when token is set, authorization
 * (and with --keys a new idempotency key). */
static Bytes frame_request(uint64_t call_id, const char *method, const ProtobufCMessage *msg,
                           const char *token) {
  Envelope e = BADMINTON__RPC__V1__ENVELOPE__INIT;
  e.call_id = call_id;
  e.kind = KIND_REQUEST;
  e.method = (char *)method;
  size_t plen = msg ? protobuf_c_message_get_packed_size(msg) : 0;
  uint8_t *payload = malloc(plen + 1);
  if (msg) protobuf_c_message_pack(msg, payload);
  e.payload.data = payload, e.payload.len = plen;
  Badminton__Rpc__V1__Metadata md = BADMINTON__RPC__V1__METADATA__INIT;
  Badminton__Rpc__V1__Metadata kd = BADMINTON__RPC__V1__METADATA__INIT;
  Badminton__Rpc__V1__Metadata *mds[2] = {&md, &kd};
  char auth[512], key[64];
  if (token) {
    snprintf(auth, sizeof auth, "Bearer %s", token);
    md.key = "authorization", md.value = auth;
    e.n_metadata = 1, e.metadata = mds;
    if (g_keys) {
      snprintf(key, sizeof key, "load-%d-%llu-%lu", (int)getpid(),
               (unsigned long long)(now_ns() / 1000000000ull), ++g_key_counter);
      kd.key = "idempotency-key", kd.value = key;
      e.n_metadata = 2;
    }
  }
  size_t len = badminton__rpc__v1__envelope__get_packed_size(&e);
  Bytes b = {malloc(5 + len), 5 + len};
  b.p[0] = 0;
  put_be32(b.p + 1, (uint32_t)len);
  badminton__rpc__v1__envelope__pack(&e, b.p + 5);
  free(payload);
  return b;
}

/* What the load loops read of an envelope. */
typedef struct {
  uint64_t call_id;
  int kind;
  int code;
  const uint8_t *payload;
  size_t payload_len;
} Head;

static int read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v) {
  uint64_t x = 0;
  for (int shift = 0; shift < 64 && *p < end; shift += 7) {
    uint8_t b = *(*p)++;
    x |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *v = x;
      return 1;
    }
  }
  return 0;
}

/* Scans an envelope for call_id (1), kind (2), payload (6) and status.code (7.1). */
static int scan_envelope(const uint8_t *p, size_t n, Head *h) {
  const uint8_t *end = p + n;
  memset(h, 0, sizeof *h);
  while (p < end) {
    uint64_t key, v;
    if (!read_varint(&p, end, &key)) return 0;
    int field = (int)(key >> 3), wire = (int)(key & 7);
    if (wire == 0) {
      if (!read_varint(&p, end, &v)) return 0;
      if (field == 1) h->call_id = v;
      if (field == 2) h->kind = (int)v;
    } else if (wire == 2) {
      if (!read_varint(&p, end, &v) || v > (uint64_t)(end - p)) return 0;
      if (field == 6) h->payload = p, h->payload_len = (size_t)v;
      if (field == 7) {
        const uint8_t *q = p, *qend = p + v;
        while (q < qend) {
          uint64_t k2, v2;
          if (!read_varint(&q, qend, &k2)) return 0;
          if ((k2 & 7) == 0) {
            if (!read_varint(&q, qend, &v2)) return 0;
            if ((k2 >> 3) == 1) h->code = (int)v2;
          } else if ((k2 & 7) == 2) {
            if (!read_varint(&q, qend, &v2) || v2 > (uint64_t)(qend - q)) return 0;
            q += v2;
          } else return 0;
        }
      }
      p += v;
    } else if (wire == 5) p += 4;
    else if (wire == 1) p += 8;
    else return 0;
  }
  return 1;
}

/* ---------------------------------------------------------------- connections */

typedef struct Conn {
  int fd;
  uint8_t *in;
  size_t in_len, in_cap;
  uint8_t *out;
  size_t out_len, out_cap, out_pos;
  uint8_t *plain; /* decompression buffer */
  size_t plain_cap;
  void *user;
} Conn;

static ZSTD_DCtx *g_dctx;

static Conn *conn_open_port(int port);
static Conn *conn_open(void) { return conn_open_port(g_port); }

static Conn *conn_open_port(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) die("socket: %s", strerror(errno));
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0) die("connect: %s", strerror(errno));
  Conn *c = calloc(1, sizeof *c);
  c->fd = fd;
  return c;
}

static void conn_free(Conn *c) {
  close(c->fd);
  free(c->in);
  free(c->out);
  free(c->plain);
  free(c);
}

static void conn_nonblocking(Conn *c) {
  int fl = fcntl(c->fd, F_GETFL);
  fcntl(c->fd, F_SETFL, fl | O_NONBLOCK);
}

/* Appends bytes to the connection's output. */
static void out_add(Conn *c, const uint8_t *p, size_t n) {
  if (c->out_len + n > c->out_cap) {
    c->out_cap = (c->out_len + n) * 2;
    c->out = realloc(c->out, c->out_cap);
  }
  memcpy(c->out + c->out_len, p, n);
  c->out_len += n;
}

/* Writes what it can; returns 1 when everything is written. */
static int out_flush(Conn *c) {
  while (c->out_pos < c->out_len) {
    ssize_t w = send(c->fd, c->out + c->out_pos, c->out_len - c->out_pos, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
      die("send: %s", strerror(errno));
    }
    c->out_pos += (size_t)w;
  }
  c->out_pos = c->out_len = 0;
  return 1;
}

/* Reads what is there (blocking when `block`); returns bytes read, 0 on EAGAIN; dies on EOF. */
static ssize_t conn_recv(Conn *c, int block) {
  if (c->in_cap - c->in_len < 65536) {
    c->in_cap = c->in_cap ? c->in_cap * 2 : 262144;
    c->in = realloc(c->in, c->in_cap);
  }
  ssize_t r = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, block ? 0 : MSG_DONTWAIT);
  if (r == 0) die("the server closed a connection");
  if (r < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
    die("recv: %s", strerror(errno));
  }
  c->in_len += (size_t)r;
  return r;
}

/* Takes the next whole frame out of c->in: its (decompressed) body. Returns 0 when none is whole.
 * The body stays valid until the next call. */
static int next_frame(Conn *c, size_t *off, const uint8_t **body, size_t *len) {
  if (c->in_len - *off < 5) return 0;
  uint8_t *h = c->in + *off;
  uint32_t n = (uint32_t)h[1] << 24 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 8 | h[4];
  if (c->in_len - *off < 5 + (size_t)n) return 0;
  *off += 5 + n;
  if (h[0] & 1) {
    unsigned long long size = ZSTD_getFrameContentSize(h + 5, n);
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN) size = 4u << 20;
    if (c->plain_cap < size + 1) {
      c->plain_cap = (size_t)size + 1;
      c->plain = realloc(c->plain, c->plain_cap);
    }
    size_t z = ZSTD_decompressDCtx(g_dctx, c->plain, c->plain_cap, h + 5, n);
    if (ZSTD_isError(z)) die("zstd: %s", ZSTD_getErrorName(z));
    *body = c->plain, *len = z;
  } else {
    *body = h + 5, *len = n;
  }
  return 1;
}

static void compact(Conn *c, size_t off) {
  memmove(c->in, c->in + off, c->in_len - off);
  c->in_len -= off;
}

/* One blocking call on `c`: sends `f` (taken) and returns the RESPONSE envelope (unpacked), or dies
 * when it is not OK and `must` is set. */
static Envelope *call(Conn *c, Bytes f, int must) {
  Head want;
  scan_envelope(f.p + 5, f.len - 5, &want);
  out_add(c, f.p, f.len);
  free(f.p);
  while (!out_flush(c)) poll(&(struct pollfd){.fd = c->fd, .events = POLLOUT}, 1, 1000);
  for (;;) {
    size_t off = 0;
    const uint8_t *body;
    size_t len;
    while (next_frame(c, &off, &body, &len)) {
      Head h;
      scan_envelope(body, len, &h);
      if (h.kind == KIND_RESPONSE && h.call_id == want.call_id) {
        Envelope *e = badminton__rpc__v1__envelope__unpack(NULL, len, body);
        compact(c, off);
        if (must && (!e->status || e->status->code != 0))
          die("%s failed: %s %s", "call", e->status ? e->status->reason : "?",
              e->status ? e->status->message : "");
        return e;
      }
    }
    compact(c, off);
    poll(&(struct pollfd){.fd = c->fd, .events = POLLIN}, 1, 30000);
    conn_recv(c, 0);
  }
}

static const char *reason(const Envelope *e) {
  return e->status && e->status->reason && e->status->reason[0] ? e->status->reason : "OK";
}

/* Registers `phone` (a taken phone is fine) at `level`. */
static void register_player(Conn *c, const char *phone, const char *nickname, int level) {
  Badminton__V1__RegisterRequest r = BADMINTON__V1__REGISTER_REQUEST__INIT;
  r.phone = (char *)phone, r.nickname = (char *)nickname, r.password = (char *)PASSWORD;
  r.self_level = level;
  Envelope *e = call(c, frame_request(1, "/badminton.v1.Accounts/Register", &r.base, NULL), 0);
  if (e->status && e->status->code != 0 && strcmp(reason(e), "PHONE_TAKEN"))
    die("register %s: %s %s", phone, reason(e), e->status->message);
  badminton__rpc__v1__envelope__free_unpacked(e, NULL);
}

/* Logs in; returns the token (malloc'd) and the player's id. */
static char *login(Conn *c, const char *phone, int64_t *id) {
  Badminton__V1__LoginRequest r = BADMINTON__V1__LOGIN_REQUEST__INIT;
  r.phone = (char *)phone, r.password = (char *)PASSWORD;
  Envelope *e = call(c, frame_request(1, "/badminton.v1.Accounts/Login", &r.base, NULL), 1);
  Badminton__V1__LoginResponse *lr =
      badminton__v1__login_response__unpack(NULL, e->payload.len, e->payload.data);
  char *token = strdup(lr->token);
  if (id) *id = lr->user_id;
  badminton__v1__login_response__free_unpacked(lr, NULL);
  badminton__rpc__v1__envelope__free_unpacked(e, NULL);
  return token;
}

/* ---------------------------------------------------------------- statistics */

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* The p-quantile (0..1) in µs of n nanosecond samples (sorted in place). */
static double pct_us(uint64_t *v, size_t n, double p) {
  if (!n) return NAN;
  qsort(v, n, sizeof *v, cmp_u64);
  size_t i = (size_t)ceil(p * (double)n);
  if (i > 0) i--;
  if (i >= n) i = n - 1;
  return (double)v[i] / 1000.0;
}

static void percentiles(const char *key, uint64_t *v, size_t n) {
  char k[160];
  const double ps[] = {0.5, 0.9, 0.99, 0.999};
  const char *names[] = {"p50_us", "p90_us", "p99_us", "p999_us"};
  for (int i = 0; i < 4; i++) {
    snprintf(k, sizeof k, "%s.%s", key, names[i]);
    result(k, "%.1f", pct_us(v, n, ps[i]));
  }
  snprintf(k, sizeof k, "%s.samples", key);
  result(k, "%zu", n);
}

/* ---------------------------------------------------------------- latency at 1 in flight */

/* `calls` calls of the frame `f` one after another on `c` (after `warm` unmeasured ones). */
/* Measures `calls` round trips of `f` one at a time, after `warm` unmeasured ones; the client
 * spins on its socket between sending and the answer. */
/* 1: latency() waits for each answer asleep in recv, as a client of an event loop does. */
static int g_sleep_wait;

static void latency(const char *key, Conn *c, Bytes f, int warm, int calls) {
  uint64_t *lat = malloc(sizeof *lat * (size_t)calls);
  for (int i = 0; i < warm + calls; i++) {
    uint64_t t0 = now_ns();
    out_add(c, f.p, f.len);
    out_flush(c);
    for (;;) {
      size_t off = 0;
      const uint8_t *body;
      size_t len;
      int done = 0;
      while (next_frame(c, &off, &body, &len)) {
        Head h;
        scan_envelope(body, len, &h);
        if (h.kind == KIND_RESPONSE) {
          if (h.code != 0) die("%s: status %d", key, h.code);
          done = 1;
        }
      }
      compact(c, off);
      if (done) break;
      /* Busy-polls: a client asleep in recv would add its own wake-up to every figure (on a
       * virtual machine with idle cores, 25 to 50 µs a call), which is not the server's. */
      conn_recv(c, g_sleep_wait);
    }
    if (i >= warm) lat[i - warm] = now_ns() - t0;
  }
  percentiles(key, lat, (size_t)calls);
  free(lat);
}

/* ---------------------------------------------------------------- calls per second */

typedef struct {
  Conn *c;
  Bytes slot[MAX_SLOTS]; /* slot i: call id i + 1 */
  uint64_t started[MAX_SLOTS];
} Pipe;

/* `conns` connections with `inflight` calls each, for `seconds`: every answer sends the same
 * slot's frame again. Prints calls/s, the server's CPU per call and how many cores it used. */
static void throughput(const char *key, const char *method, const ProtobufCMessage *msg,
                       const char *token, int conns, int inflight, double seconds) {
  int ep = epoll_create1(EPOLL_CLOEXEC);
  Pipe *pipes = calloc((size_t)conns, sizeof *pipes);
  for (int i = 0; i < conns; i++) {
    pipes[i].c = conn_open();
    conn_nonblocking(pipes[i].c);
    for (int s = 0; s < inflight; s++)
      pipes[i].slot[s] = frame_request((uint64_t)s + 1, method, msg, token);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &pipes[i]};
    epoll_ctl(ep, EPOLL_CTL_ADD, pipes[i].c->fd, &ev);
  }
  /* a short warm-up on the same connections, then the measured window */
  long calls = 0, errors = 0, calls_end = 0;
  double warm = g_quick ? 0.2 : 0.5;
  CPU a = {0}, b = {0};
  double self_a = 0;
  uint64_t start = now_ns(), measure_from = start + (uint64_t)(warm * 1e9), end = 0;
  int measuring = 0;
  for (int i = 0; i < conns; i++) {
    for (int s = 0; s < inflight; s++) out_add(pipes[i].c, pipes[i].slot[s].p, pipes[i].slot[s].len);
    out_flush(pipes[i].c);
  }
  uint64_t stop_at = measure_from + (uint64_t)(seconds * 1e9);
  int outstanding = conns * inflight;
  int stopping = 0;
  struct epoll_event evs[64];
  while (outstanding > 0) {
    uint64_t t = now_ns();
    if (!measuring && t >= measure_from) {
      measuring = 1;
      calls = errors = 0;
      server_cpu(&a);
      self_a = self_cpu_s();
      measure_from = t;
    }
    if (measuring && !stopping && t >= stop_at) {
      stopping = 1;
      end = t;
      server_cpu(&b);
      calls_end = calls;
    }
    int n = epoll_wait(ep, evs, 64, 100);
    for (int k = 0; k < n; k++) {
      Pipe *p = evs[k].data.ptr;
      Conn *c = p->c;
      if (evs[k].events & EPOLLOUT) out_flush(c);
      if (!(evs[k].events & EPOLLIN)) continue;
      while (conn_recv(c, 0) > 0) {
        size_t off = 0;
        const uint8_t *body;
        size_t len;
        while (next_frame(c, &off, &body, &len)) {
          Head h;
          scan_envelope(body, len, &h);
          if (h.kind != KIND_RESPONSE) continue;
          if (h.code != 0) errors++;
          calls++;
          if (stopping) outstanding--;
          else if (h.call_id >= 1 && h.call_id <= (uint64_t)inflight)
            out_add(c, p->slot[h.call_id - 1].p, p->slot[h.call_id - 1].len);
        }
        compact(c, off);
      }
      if (!out_flush(c)) {
        struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.ptr = p};
        epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
      }
    }
  }
  double wall = (double)(end - measure_from) / 1e9;
  double self = self_cpu_s() - self_a;
  double rate = (double)calls_end / wall;
  double server = b.process_s - a.process_s;
  double top2[2];
  int busy = busy_threads(&a, &b, wall, top2);
  char k[160];
#define KEY(s) (snprintf(k, sizeof k, "%s.%s", key, s), k)
  result(KEY("calls_per_s"), "%.0f", rate);
  result(KEY("server_cpu_us_per_call"), "%.2f", server / (rate * wall) * 1e6);
  result(KEY("server_cores"), "%.2f", server / wall);
  result(KEY("server_busy_threads"), "%d", busy);
  result(KEY("server_top_threads"), "%.2f+%.2f", top2[0], top2[1]);
  result(KEY("client_cpu_us_per_call"), "%.2f", self / (rate * wall) * 1e6);
  result(KEY("errors"), "%ld", errors);
#undef KEY
  for (int i = 0; i < conns; i++) {
    for (int s = 0; s < inflight; s++) free(pipes[i].slot[s].p);
    conn_free(pipes[i].c);
  }
  free(pipes);
  close(ep);
}

/* ---------------------------------------------------------------- commands */

static void cmd_setup(void) {
  Conn *c = conn_open();
  register_player(c, PHONE_CALLER, "Bench Caller", 4);
  register_player(c, PHONE_SENDER, "Bench Sender", 4);
  register_player(c, PHONE_RECIPIENT, "Bench Recipient", 4);
  char *token = login(c, PHONE_CALLER, NULL);
  /* tomorrow (UTC), 18:00-21:00, singles, in Shanghai: the template the bulk loader copies */
  time_t t = time(NULL) + 86400;
  struct tm tm;
  gmtime_r(&t, &tm);
  Badminton__V1__LocalDate date = BADMINTON__V1__LOCAL_DATE__INIT;
  date.year = tm.tm_year + 1900, date.month = tm.tm_mon + 1, date.day = tm.tm_mday;
  Badminton__V1__GeoPoint at = BADMINTON__V1__GEO_POINT__INIT;
  at.latitude = 31.2304, at.longitude = 121.4737;
  Badminton__V1__SkillTolerance tol = BADMINTON__V1__SKILL_TOLERANCE__INIT;
  tol.levels = 2;
  Badminton__V1__PostAvailabilityRequest r = BADMINTON__V1__POST_AVAILABILITY_REQUEST__INIT;
  r.mode = BADMINTON__V1__MATCH_MODE__SINGLES;
  r.date = &date, r.start_minute = 18 * 60, r.end_minute = 21 * 60;
  r.time_zone = "UTC", r.location = &at, r.radius_miles = 10, r.skill_tolerance = &tol;
  Envelope *e =
      call(c, frame_request(1, "/badminton.v1.Matching/PostAvailability", &r.base, token), 0);
  if (e->status && e->status->code != 0 && strcmp(reason(e), "AVAILABILITY_LIMIT"))
    die("PostAvailability: %s %s", reason(e), e->status->message);
  badminton__rpc__v1__envelope__free_unpacked(e, NULL);
  note("registered the caller, the sender and the recipient; the caller posted availability");
  free(token);
  conn_free(c);
}

static void cmd_find(const char *n) {
  Conn *c = conn_open();
  char *token = login(c, PHONE_CALLER, NULL);
  Badminton__V1__ListMyAvailabilityRequest lr = BADMINTON__V1__LIST_MY_AVAILABILITY_REQUEST__INIT;
  Envelope *e =
      call(c, frame_request(1, "/badminton.v1.Matching/ListMyAvailability", &lr.base, token), 1);
  Badminton__V1__ListMyAvailabilityResponse *list =
      badminton__v1__list_my_availability_response__unpack(NULL, e->payload.len, e->payload.data);
  if (!list || list->n_availability == 0) die("the caller has no availability");
  Badminton__V1__FindMatchesRequest fr = BADMINTON__V1__FIND_MATCHES_REQUEST__INIT;
  fr.availability_id = list->availability[0]->id;
  badminton__v1__list_my_availability_response__free_unpacked(list, NULL);
  badminton__rpc__v1__envelope__free_unpacked(e, NULL);
  Bytes f = frame_request(7, "/badminton.v1.Matching/FindMatches", &fr.base, token);
  /* one call to see the page */
  Bytes once = frame_request(1, "/badminton.v1.Matching/FindMatches", &fr.base, token);
  e = call(c, once, 1);
  Badminton__V1__FindMatchesResponse *page =
      badminton__v1__find_matches_response__unpack(NULL, e->payload.len, e->payload.data);
  char key[64];
  snprintf(key, sizeof key, "find.%s.candidates", n);
  result(key, "%zu", page ? page->n_candidates : 0);
  if (page) badminton__v1__find_matches_response__free_unpacked(page, NULL);
  badminton__rpc__v1__envelope__free_unpacked(e, NULL);
  snprintf(key, sizeof key, "find.%s", n);
  latency(key, c, f, g_quick ? 200 : 1000, g_quick ? 2000 : 10000);
  free(f.p);
  free(token);
  conn_free(c);
}

static void cmd_unary(const char *shapes) {
  Conn *c = conn_open();
  char *token = login(c, PHONE_CALLER, NULL);
  Badminton__Rpc__V1__HealthCheckRequest hr = BADMINTON__RPC__V1__HEALTH_CHECK_REQUEST__INIT;
  Badminton__V1__GetMyProfileRequest pr = BADMINTON__V1__GET_MY_PROFILE_REQUEST__INIT;
  const char *health = "/badminton.rpc.v1.Health/Check";
  const char *profile = "/badminton.v1.Players/GetMyProfile";
  int warm = g_quick ? 500 : 2000, calls = g_quick ? 5000 : 30000;
  Bytes f = frame_request(3, health, &hr.base, NULL);
  latency("health.1x1", c, f, warm, calls);
  free(f.p);
  f = frame_request(3, profile, &pr.base, token);
  latency("profile.1x1", c, f, warm, calls);
  free(f.p);
  conn_free(c);
  double seconds = g_quick ? 1.0 : 3.0;
  /* shapes: the connection counts, 64 calls in flight on each */
  char copy[128];
  snprintf(copy, sizeof copy, "%s", shapes);
  char *save = NULL;
  for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int n = atoi(tok);
    if (n < 1 || n > 64) die("connections must be 1 to 64, not %s", tok);
    char key[64];
    snprintf(key, sizeof key, "health.%dx64", n);
    throughput(key, health, &hr.base, NULL, n, 64, seconds);
    snprintf(key, sizeof key, "profile.%dx64", n);
    throughput(key, profile, &pr.base, token, n, 64, seconds);
  }
  free(token);
}

/* Health/Check only, no session, on a fresh server: latency at 1 in flight (busy-polling, then
 * asleep in recv between calls) and calls per second at 64 in flight on one connection; the
 * C column of `badminton-bench --only client`. */
static void cmd_health(void) {
  Conn *c = conn_open();
  Badminton__Rpc__V1__HealthCheckRequest hr = BADMINTON__RPC__V1__HEALTH_CHECK_REQUEST__INIT;
  const char *health = "/badminton.rpc.v1.Health/Check";
  int warm = g_quick ? 500 : 2000, calls = g_quick ? 5000 : 20000;
  Bytes f = frame_request(3, health, &hr.base, NULL);
  latency("health.1x1", c, f, warm, calls);
  g_sleep_wait = 1;
  latency("health.1x1_sleeping", c, f, warm, calls);
  g_sleep_wait = 0;
  free(f.p);
  conn_free(c);
  throughput("health.1x64", health, &hr.base, NULL, 1, 64, g_quick ? 1.0 : 3.0);
}

/* SendMessage from the sender to the recipient, who is subscribed on another connection. */
static void cmd_send(void) {
  Conn *setup = conn_open();
  int64_t recipient_id = 0;
  char *sender = login(setup, PHONE_SENDER, NULL);
  char *recipient = login(setup, PHONE_RECIPIENT, &recipient_id);
  conn_free(setup);

  /* the subscriber: replays what is stored first, so it starts after the latest sequence; with
   * --sub-port on another instance of the same database, so every event crosses instances */
  Conn *sub = g_sub_port ? conn_open_port(g_sub_port) : conn_open();
  Badminton__V1__SubscribeRequest sr = BADMINTON__V1__SUBSCRIBE_REQUEST__INIT;
  sr.after_sequence = 0; /* a fresh recipient: the run's messages are told apart by their ids */
  uint64_t sub_call = 1, last_sequence = 0;
  long stream_ends = 0;
  Bytes f = frame_request(sub_call, "/badminton.v1.Events/Subscribe", &sr.base, recipient);
  out_add(sub, f.p, f.len);
  out_flush(sub);
  free(f.p);
  conn_nonblocking(sub);

  Conn *c = conn_open();
  conn_nonblocking(c);
  int inflight = g_inflight;
  double seconds = g_quick ? 2.0 : 5.0;
  long cap = 2000000; /* calls at most */
  uint64_t *started = malloc(sizeof *started * (size_t)cap);
  uint64_t *call_lat = malloc(sizeof *call_lat * (size_t)cap);
  uint64_t *event_lat = malloc(sizeof *event_lat * (size_t)cap);
  long sent = 0, acked = 0, events = 0, errors = 0, ev_foreign = 0;
  int slot_msg[MAX_SLOTS];
  char tag[32];
  char text[64];
  int run_id = (int)(now_ns() % 1000000);
  Badminton__V1__SendMessageRequest m = BADMINTON__V1__SEND_MESSAGE_REQUEST__INIT;
  m.recipient_id = recipient_id;
  m.client_message_id = tag;
  m.text = text;
#define SEND(slot)                                                                       \
  do {                                                                                   \
    snprintf(tag, sizeof tag, "b%d-%ld", run_id, sent);                                  \
    snprintf(text, sizeof text, "bench message %ld", sent);                              \
    Bytes fr = frame_request((uint64_t)(slot) + 1, "/badminton.v1.Messages/SendMessage", \
                             &m.base, sender);                                           \
    started[sent] = now_ns();                                                            \
    slot_msg[slot] = (int)sent;                                                          \
    out_add(c, fr.p, fr.len);                                                            \
    free(fr.p);                                                                          \
    sent++;                                                                              \
  } while (0)

  int ep = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
  epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
  struct epoll_event ev2 = {.events = EPOLLIN, .data.ptr = sub};
  epoll_ctl(ep, EPOLL_CTL_ADD, sub->fd, &ev2);
  /* let the subscription start */
  usleep(200000);
  CPU a, b;
  server_cpu(&a);
  uint64_t t0 = now_ns(), stop_at = t0 + (uint64_t)(seconds * 1e9), end = 0;
  for (int s = 0; s < inflight; s++) SEND(s);
  out_flush(c);
  int outstanding = inflight, stopping = 0;
  uint64_t give_up = stop_at + 10000000000ull;
  struct epoll_event evs[8];
  while ((outstanding > 0 || events < acked) && now_ns() < give_up) {
    if (!stopping && now_ns() >= stop_at) stopping = 1, end = now_ns(), server_cpu(&b);
    int n = epoll_wait(ep, evs, 8, 50);
    for (int k = 0; k < n; k++) {
      Conn *x = evs[k].data.ptr;
      if (evs[k].events & EPOLLOUT) out_flush(x);
      if (!(evs[k].events & EPOLLIN)) continue;
      while (conn_recv(x, 0) > 0) {
        size_t off = 0;
        const uint8_t *body;
        size_t len;
        while (next_frame(x, &off, &body, &len)) {
          Head h;
          scan_envelope(body, len, &h);
          uint64_t t = now_ns();
          if (x == c && h.kind == KIND_RESPONSE) {
            int slot = (int)h.call_id - 1;
            if (slot < 0 || slot >= inflight) continue;
            long i = slot_msg[slot];
            if (h.code != 0) errors++;
            else call_lat[acked++] = t - started[i];
            if (stopping || sent >= cap) outstanding--;
            else SEND(slot);
          } else if (x == sub && h.kind == KIND_STREAM_MESSAGE) {
            Badminton__V1__Event *e =
                badminton__v1__event__unpack(NULL, h.payload_len, h.payload);
            long i = -1;
            int rid = -1;
            if (e && e->sequence > last_sequence) last_sequence = e->sequence;
            if (e && e->body_case == BADMINTON__V1__EVENT__BODY_MESSAGE_RECEIVED &&
                sscanf(e->message_received->client_message_id, "b%d-%ld", &rid, &i) == 2 &&
                rid == run_id && i >= 0 && i < sent)
              event_lat[events++] = t - started[i];
            else ev_foreign++;
            if (e) badminton__v1__event__free_unpacked(e, NULL);
          } else if (x == sub && h.kind == KIND_STREAM_END && h.call_id == sub_call) {
            /* SUBSCRIBER_TOO_SLOW and the like: counted, and subscribed again from the cursor */
            stream_ends++;
            note("the event stream ended with status %d; subscribing again after %llu", h.code,
                 (unsigned long long)last_sequence);
            sr.after_sequence = last_sequence;
            Bytes again =
                frame_request(++sub_call, "/badminton.v1.Events/Subscribe", &sr.base, recipient);
            out_add(sub, again.p, again.len);
            free(again.p);
          }
        }
        compact(x, off);
      }
      if (!out_flush(x)) {
        struct epoll_event e3 = {.events = EPOLLIN | EPOLLOUT, .data.ptr = x};
        epoll_ctl(ep, EPOLL_CTL_MOD, x->fd, &e3);
      }
    }
  }
  if (!end) end = now_ns(), server_cpu(&b);
  double wall = (double)(end - t0) / 1e9;
  /* acknowledged within the window: those whose answer came before `end` are most; count all
   * acks over the time to the last ack instead, which is as fair and simpler */
  char key[64];
#define KEY(name) (snprintf(key, sizeof key, "send.%d.%s", inflight, name), key)
  result(KEY("acked_per_s"), "%.0f", (double)acked / ((double)(now_ns() - t0) / 1e9));
  result(KEY("server_cpu_us_per_call"), "%.1f",
         (b.process_s - a.process_s) / ((double)acked * wall / ((double)(now_ns() - t0) / 1e9)) *
             1e6);
  result(KEY("server_cores"), "%.2f", (b.process_s - a.process_s) / wall);
  result(KEY("errors"), "%ld", errors);
  result(KEY("events"), "%ld", events);
  result(KEY("events_missing"), "%ld", acked - events);
  result(KEY("stream_ends"), "%ld", stream_ends);
  percentiles(KEY("call"), call_lat, (size_t)acked);
  percentiles(KEY("event"), event_lat, (size_t)events);
#undef KEY
  if (ev_foreign) note("%ld other events on the stream", ev_foreign);
  free(started), free(call_lat), free(event_lat);
  conn_free(c);
  conn_free(sub);
  close(ep);
}

/* ---------------------------------------------------------------- writes */

#define WRITE_PLAYERS 256

typedef struct {
  Conn *c;
  uint64_t started[MAX_SLOTS];
  int64_t posted[MAX_SLOTS]; /* availability: the id to cancel next, 0 to post */
} WritePipe;

enum { WRITE_LOCATION, WRITE_AVAILABILITY, WRITE_MESSAGE };

static char *g_write_token[WRITE_PLAYERS];
static int64_t g_write_id[WRITE_PLAYERS];

/* Where player k writes from: a grid 0.8 degrees (about 55 miles) apart, so that no post fits
 * another's 10-mile search and a write's cost is its own, not a fan-out of notices to everyone. */
static void write_place(int k, double *lat, double *lon) {
  *lat = 22.0 + (double)(k / 16) * 0.8;
  *lon = 100.0 + (double)(k % 16) * 0.8;
}

/* The next write of `kind` for the player of slot `s` on connection `i`; n numbers the call. */
static Bytes write_frame(int kind, WritePipe *p, int i, int s, int inflight, long n, int run_id) {
  int player = (i * inflight + s) % WRITE_PLAYERS;
  const char *token = g_write_token[player];
  uint64_t id = (uint64_t)s + 1;
  if (kind == WRITE_LOCATION) {
    Badminton__V1__UpdateLocationRequest r = BADMINTON__V1__UPDATE_LOCATION_REQUEST__INIT;
    write_place(player, &r.latitude, &r.longitude);
    return frame_request(id, "/badminton.v1.Players/UpdateLocation", &r.base, token);
  }
  if (kind == WRITE_MESSAGE) {
    char tag[48], text[48];
    snprintf(tag, sizeof tag, "w%d-%ld", run_id, n);
    snprintf(text, sizeof text, "bench write %ld", n);
    Badminton__V1__SendMessageRequest m = BADMINTON__V1__SEND_MESSAGE_REQUEST__INIT;
    m.recipient_id = g_write_id[(player + 1) % WRITE_PLAYERS];
    m.client_message_id = tag, m.text = text;
    return frame_request(id, "/badminton.v1.Messages/SendMessage", &m.base, token);
  }
  if (p->posted[s]) {
    Badminton__V1__CancelAvailabilityRequest r = BADMINTON__V1__CANCEL_AVAILABILITY_REQUEST__INIT;
    r.availability_id = p->posted[s];
    return frame_request(id, "/badminton.v1.Matching/CancelAvailability", &r.base, token);
  }
  time_t t = time(NULL) + 86400;
  struct tm tm;
  gmtime_r(&t, &tm);
  Badminton__V1__LocalDate date = BADMINTON__V1__LOCAL_DATE__INIT;
  date.year = tm.tm_year + 1900, date.month = tm.tm_mon + 1, date.day = tm.tm_mday;
  Badminton__V1__GeoPoint at = BADMINTON__V1__GEO_POINT__INIT;
  write_place(player, &at.latitude, &at.longitude);
  Badminton__V1__SkillTolerance tol = BADMINTON__V1__SKILL_TOLERANCE__INIT;
  tol.levels = 2;
  Badminton__V1__PostAvailabilityRequest r = BADMINTON__V1__POST_AVAILABILITY_REQUEST__INIT;
  r.mode = BADMINTON__V1__MATCH_MODE__SINGLES;
  r.date = &date, r.start_minute = 18 * 60, r.end_minute = 21 * 60;
  r.time_zone = "UTC", r.location = &at, r.radius_miles = 10, r.skill_tolerance = &tol;
  return frame_request(id, "/badminton.v1.Matching/PostAvailability", &r.base, token);
}

static void cmd_writes(const char *what, const char *conns_arg) {
  int kind;
  if (!strcmp(what, "location")) kind = WRITE_LOCATION;
  else if (!strcmp(what, "availability")) kind = WRITE_AVAILABILITY;
  else if (!strcmp(what, "message")) kind = WRITE_MESSAGE;
  else die("writes: location, availability or message, not %s", what);
  int conns = conns_arg ? atoi(conns_arg) : 4, inflight = g_inflight;
  if (conns < 1 || conns > 16) die("writes: 1 to 16 connections, not %d", conns);
  /* the players: registered once per store, logged in each run */
  Conn *setup = conn_open();
  for (int k = 0; k < WRITE_PLAYERS; k++) {
    char phone[32];
    snprintf(phone, sizeof phone, "+861391%07d", k);
    if (!g_write_token[k]) {
      register_player(setup, phone, "Bench Writer", 4);
      g_write_token[k] = login(setup, phone, &g_write_id[k]);
    }
    if (kind == WRITE_LOCATION || kind == WRITE_AVAILABILITY) {
      /* located where the writes go, so that no move is a hop */
      Badminton__V1__UpdateLocationRequest r = BADMINTON__V1__UPDATE_LOCATION_REQUEST__INIT;
      write_place(k, &r.latitude, &r.longitude);
      Envelope *e = call(setup,
                         frame_request(1, "/badminton.v1.Players/UpdateLocation", &r.base,
                                       g_write_token[k]),
                         0);
      badminton__rpc__v1__envelope__free_unpacked(e, NULL);
    }
  }
  conn_free(setup);

  int ep = epoll_create1(EPOLL_CLOEXEC);
  WritePipe *pipes = calloc((size_t)conns, sizeof *pipes);
  long cap = 4000000;
  uint64_t *lat = malloc(sizeof *lat * (size_t)cap);
  long n = 0, acked = 0, errors = 0, measured = 0;
  int run_id = (int)(now_ns() % 1000000);
  char first_error[160] = "";
  for (int i = 0; i < conns; i++) {
    pipes[i].c = conn_open();
    conn_nonblocking(pipes[i].c);
    pipes[i].c->user = &pipes[i];
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &pipes[i]};
    epoll_ctl(ep, EPOLL_CTL_ADD, pipes[i].c->fd, &ev);
  }
  double warm = g_quick ? 0.3 : 1.0, seconds = g_quick ? 1.0 : 5.0;
  uint64_t start = now_ns(), measure_from = start + (uint64_t)(warm * 1e9);
  uint64_t stop_at = measure_from + (uint64_t)(seconds * 1e9), end = 0;
  CPU a = {0}, b = {0};
  int measuring = 0, stopping = 0, outstanding = conns * inflight;
  for (int i = 0; i < conns; i++) {
    for (int s = 0; s < inflight; s++) {
      Bytes f = write_frame(kind, &pipes[i], i, s, inflight, n++, run_id);
      pipes[i].started[s] = now_ns();
      out_add(pipes[i].c, f.p, f.len);
      free(f.p);
    }
    out_flush(pipes[i].c);
  }
  struct epoll_event evs[16];
  uint64_t give_up = stop_at + 30000000000ull;
  while (outstanding > 0 && now_ns() < give_up) {
    uint64_t t = now_ns();
    if (!measuring && t >= measure_from) {
      measuring = 1, measured = 0, acked = 0, errors = 0;
      server_cpu(&a);
      measure_from = t;
    }
    if (measuring && !stopping && t >= stop_at) stopping = 1, end = t, server_cpu(&b), measured = acked;
    int got = epoll_wait(ep, evs, 16, 50);
    for (int k = 0; k < got; k++) {
      WritePipe *p = evs[k].data.ptr;
      Conn *c = p->c;
      int i = (int)(p - pipes);
      if (evs[k].events & EPOLLOUT) out_flush(c);
      if (!(evs[k].events & EPOLLIN)) continue;
      while (conn_recv(c, 0) > 0) {
        size_t off = 0;
        const uint8_t *body;
        size_t len;
        while (next_frame(c, &off, &body, &len)) {
          Head h;
          scan_envelope(body, len, &h);
          if (h.kind != KIND_RESPONSE || h.call_id < 1 || h.call_id > (uint64_t)inflight) continue;
          int s = (int)h.call_id - 1;
          uint64_t now = now_ns();
          if (h.code != 0) {
            errors++;
            if (!first_error[0]) {
              Envelope *e = badminton__rpc__v1__envelope__unpack(NULL, len, body);
              snprintf(first_error, sizeof first_error, "%s", e ? reason(e) : "?");
              if (e) badminton__rpc__v1__envelope__free_unpacked(e, NULL);
            }
            p->posted[s] = 0;
          } else {
            if (measuring && !stopping && acked < cap) lat[acked] = now - p->started[s];
            if (measuring && !stopping) acked++;
            if (kind == WRITE_AVAILABILITY) {
              if (p->posted[s]) {
                p->posted[s] = 0;
              } else {
                Badminton__V1__Availability *av =
                    badminton__v1__availability__unpack(NULL, h.payload_len, h.payload);
                p->posted[s] = av ? av->id : 0;
                if (av) badminton__v1__availability__free_unpacked(av, NULL);
              }
            }
          }
          if (stopping) {
            outstanding--;
          } else {
            Bytes f = write_frame(kind, p, i, s, inflight, n++, run_id);
            p->started[s] = now_ns();
            out_add(c, f.p, f.len);
            free(f.p);
          }
        }
        compact(c, off);
      }
      if (!out_flush(c)) {
        struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.ptr = p};
        epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
      }
    }
  }
  if (!end) die("writes %s: the window never ended", what);
  double wall = (double)(end - measure_from) / 1e9;
  double server = b.process_s - a.process_s;
  char k[96];
#define KEY(name) (snprintf(k, sizeof k, "writes.%s.%dx%d.%s", what, conns, inflight, name), k)
  result(KEY("acked_per_s"), "%.0f", (double)measured / wall);
  result(KEY("server_cpu_us_per_write"), "%.1f", measured ? server / (double)measured * 1e6 : NAN);
  result(KEY("server_cores"), "%.2f", server / wall);
  result(KEY("errors"), "%ld", errors);
  percentiles(KEY("call"), lat, (size_t)(measured < cap ? measured : cap));
#undef KEY
  if (errors) note("writes %s: %ld errors, the first %s", what, errors, first_error);
  free(lat);
  for (int i = 0; i < conns; i++) conn_free(pipes[i].c);
  free(pipes);
  close(ep);
}

int main(int argc, char **argv) {
  const char *cmd = NULL, *arg = NULL, *arg2 = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--port") && i + 1 < argc) g_port = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--pid") && i + 1 < argc) g_pid = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--quick")) g_quick = 1;
    else if (!strcmp(argv[i], "--keys")) g_keys = 1;
    else if (!strcmp(argv[i], "--sub-port") && i + 1 < argc) g_sub_port = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--inflight") && i + 1 < argc) g_inflight = atoi(argv[++i]);
    else if (argv[i][0] == '-') die("unknown option %s", argv[i]);
    else if (!cmd) cmd = argv[i];
    else if (!arg) arg = argv[i];
    else arg2 = argv[i];
  }
  if (!cmd || !g_port) die("usage: load --port PORT [--pid SERVER_PID] [--quick] [--keys] [--sub-port PORT] "
        "[--inflight N] setup|find N|unary [CONNS,...]|send|health|writes KIND [CONNS]");
  if (g_inflight < 1 || g_inflight > MAX_SLOTS) die("--inflight must be 1 to %d", MAX_SLOTS);
  g_dctx = ZSTD_createDCtx();
  if (!strcmp(cmd, "setup")) cmd_setup();
  else if (!strcmp(cmd, "find")) cmd_find(arg ? arg : "0");
  else if (!strcmp(cmd, "unary")) cmd_unary(arg ? arg : "1,2,4,8");
  else if (!strcmp(cmd, "send")) cmd_send();
  else if (!strcmp(cmd, "health")) cmd_health();
  else if (!strcmp(cmd, "writes")) cmd_writes(arg ? arg : "location", arg2);
  else die("unknown command %s", cmd);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  note("client CPU %.2f s", self_cpu_s());
  return 0;
}
