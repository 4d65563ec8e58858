/* attack: measures what cheap abuse costs a running badminton-server.
 *
 * One single-threaded epoll client that plays one scenario against a server on 127.0.0.1 and
 * reads the server's resident memory and CPU time from /proc/PID. Envelopes are encoded with the
 * protobuf-c code generated from Proto/ and compressed with libzstd (docs/protocol.md §2-§5, §14).
 * The attack comes from 127.0.0.1; a client that stands for somebody else (a probe, a real
 * player, an account of its own) binds its socket to another loopback address first (Linux
 * routes all of 127/8 to lo), so that the server's limits per client address treat it as the
 * other client it stands for.
 * Every scenario is bounded in connections and in time; a server that refuses or closes
 * connections is counted, never an error. Each scenario prints tab-separated lines:
 *
 *   ROW   <scenario> <figure> <budget> <value> <met|MISSED|->
 *   NOTE  <scenario> <text>
 *
 * Build and run: see run.sh beside this file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <math.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include "badminton/rpc/v1/envelope.pb-c.h"
#include "badminton/rpc/v1/health.pb-c.h"
#include "badminton/v1/accounts.pb-c.h"
#include "badminton/v1/players.pb-c.h"

typedef Badminton__Rpc__V1__Envelope Envelope;

#define BODY_LIMIT 6291456u /* badminton-server's default --max-frame-bytes */
#define KIND_REQUEST BADMINTON__RPC__V1__ENVELOPE_KIND__REQUEST
#define KIND_RESPONSE BADMINTON__RPC__V1__ENVELOPE_KIND__RESPONSE
#define KIND_PING BADMINTON__RPC__V1__ENVELOPE_KIND__PING
#define KIND_PONG BADMINTON__RPC__V1__ENVELOPE_KIND__PONG
#define KIND_GOAWAY BADMINTON__RPC__V1__ENVELOPE_KIND__GOAWAY
#ifndef IP_BIND_ADDRESS_NO_PORT
#define IP_BIND_ADDRESS_NO_PORT 24
#endif

/* Source addresses (host order): the attack's, and the other client's (probes, a real player). */
#define ADDR_ATTACK 0x7f000001u /* 127.0.0.1 */
#define ADDR_OTHER 0x7f000002u  /* 127.0.0.2 */
#define ADDR_ACCOUNT(i) (0x7f000100u + 1u + (uint32_t)(i)) /* 127.0.1.N, N = i + 1 */

/* ---------------------------------------------------------------- options and output */

static int g_port;
static int g_pid;
static int g_quick;
static const char *g_data_dir;
static const char *g_smaps_dir;
static int g_pieces_in_flight_max; /* --pieces-in-flight N: bound over all connections */
static const char *g_scenario = "?";

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "attack: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(2);
}

static void note(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("NOTE\t%s\t", g_scenario);
  vprintf(fmt, ap);
  printf("\n");
  fflush(stdout);
  va_end(ap);
}

static void row(const char *figure, const char *budget, const char *verdict, const char *fmt,
                ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("ROW\t%s\t%s\t%s\t", g_scenario, figure, budget);
  vprintf(fmt, ap);
  printf("\t%s\n", verdict);
  fflush(stdout);
  va_end(ap);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Counts of distinct short strings (reasons), in order of first sight. */
typedef struct {
  char name[24][64];
  long n[24];
  int k;
} Tally;

static void tally_add(Tally *t, const char *name) {
  for (int i = 0; i < t->k; i++)
    if (!strcmp(t->name[i], name)) {
      t->n[i]++;
      return;
    }
  if (t->k == 24) return;
  snprintf(t->name[t->k], sizeof t->name[0], "%s", name);
  t->n[t->k++] = 1;
}

static long tally_get(const Tally *t, const char *name) {
  for (int i = 0; i < t->k; i++)
    if (!strcmp(t->name[i], name)) return t->n[i];
  return 0;
}

/* "A 3, B 1" (or "none") into buf. */
static const char *tally_str(const Tally *t, char *buf, size_t cap) {
  size_t at = 0;
  buf[0] = 0;
  for (int i = 0; i < t->k && at < cap; i++)
    at += (size_t)snprintf(buf + at, cap - at, "%s%s %ld", i ? ", " : "", t->name[i], t->n[i]);
  if (!t->k) snprintf(buf, cap, "none");
  return buf;
}

static const char *addr_str(uint32_t a) {
  static char buf[4][INET_ADDRSTRLEN];
  static int next;
  char *b = buf[next++ % 4];
  struct in_addr in = {.s_addr = htonl(a)};
  inet_ntop(AF_INET, &in, b, sizeof buf[0]);
  return b;
}

/* ---------------------------------------------------------------- the server's process */

/* Resident memory of the server in KiB (VmRSS), or -1. */
static long server_rss_kb(void) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", g_pid);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  long kb = -1;
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "VmRSS:", 6) == 0) kb = strtol(line + 6, NULL, 10);
  fclose(f);
  return kb;
}

/* User + system CPU time of the server in seconds, or -1. */
static double server_cpu_s(void) {
  char path[64], buf[2048];
  snprintf(path, sizeof path, "/proc/%d/stat", g_pid);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  char *p = strrchr(buf, ')');
  if (!p) return -1;
  /* after ") " come fields 3.. ; utime and stime are fields 14 and 15 */
  unsigned long long ut = 0, st = 0;
  int field = 2;
  for (char *tok = strtok(p + 1, " "); tok; tok = strtok(NULL, " ")) {
    field++;
    if (field == 14) ut = strtoull(tok, NULL, 10);
    if (field == 15) {
      st = strtoull(tok, NULL, 10);
      break;
    }
  }
  return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

/* The server's "Max open files" line of /proc/PID/limits (soft and hard), or "?". */
static const char *server_nofile(char *buf, size_t cap) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/limits", g_pid);
  snprintf(buf, cap, "?");
  FILE *f = fopen(path, "r");
  if (!f) return buf;
  while (fgets(line, sizeof line, f)) {
    unsigned long soft, hard;
    if (!strncmp(line, "Max open files", 14) &&
        sscanf(line + 14, "%lu %lu", &soft, &hard) == 2)
      snprintf(buf, cap, "soft %lu, hard %lu", soft, hard);
  }
  fclose(f);
  return buf;
}

static int server_alive(void) { return kill(g_pid, 0) == 0; }

/* With --smaps DIR: copies the server's /proc/PID/smaps to DIR/NAME.smaps, to see afterwards
 * which mappings the resident memory is in. */
static void save_smaps(const char *name) {
  if (!g_smaps_dir) return;
  char from[64], to[512], buf[65536];
  snprintf(from, sizeof from, "/proc/%d/smaps", g_pid);
  snprintf(to, sizeof to, "%s/%s.smaps", g_smaps_dir, name);
  FILE *in = fopen(from, "r"), *out = fopen(to, "w");
  size_t n;
  while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, out);
  if (in) fclose(in);
  if (out) fclose(out);
}

static long g_peak_kb;
static double g_last_sample;
/* Samples the server's resident memory at most every 20 ms into g_peak_kb. */
static void sample_peak(void) {
  double t = now();
  if (t - g_last_sample < 0.02) return;
  g_last_sample = t;
  long kb = server_rss_kb();
  if (kb > g_peak_kb) g_peak_kb = kb;
}

static unsigned long long g_disk_bytes;
static int disk_visit(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)path, (void)ftw;
  if (flag == FTW_F) g_disk_bytes += (unsigned long long)st->st_blocks * 512ull;
  return 0;
}
/* Bytes on disk under the server's data folder. */
static unsigned long long data_dir_bytes(void) {
  if (!g_data_dir) return 0;
  g_disk_bytes = 0;
  nftw(g_data_dir, disk_visit, 16, FTW_PHYS);
  return g_disk_bytes;
}

/* ---------------------------------------------------------------- connections */

typedef struct Seg {
  const uint8_t *p;
  size_t len;
  int owned;
  struct Seg *next;
} Seg;

enum { CONNECTING, OPEN, CLOSED };
enum { ROLE_NONE, ROLE_ATTACK, ROLE_PROBE, ROLE_HOLD, ROLE_RPC };

typedef struct Conn {
  int fd, state, role, want_out;
  Seg *head, *tail;
  size_t out_pos;
  uint8_t *in;
  size_t in_len, in_cap;
  double t_start;          /* when connect() was called */
  double t_done;           /* when the awaited answer came */
  size_t sent;             /* bytes written */
  int responses, pongs, codes_ok, codes_err, last_code;
  int closed_by_server;    /* EOF or reset after we connected */
  int send_failed;         /* a send failed: the connection is ending */
  int goaway;              /* a GOAWAY came */
  char goaway_reason[40];  /* its reason */
  int index;               /* the scenario's own number for it */
  int64_t upload_id;       /* G: the upload the server gave it, 0 before the first answer */
  uint64_t next_call;      /* G: the call id of its next request */
  double t_sent;           /* G: when its request in flight was sent */
  int submitting;          /* G: its SubmitVerification is in flight */
  long wait_seq;           /* G: > 0 while its next piece waits for a place, in arrival order */
  size_t wait_offset;      /* G: where that piece starts */
  uint32_t src;            /* source address (host order) */
  Envelope *reply;         /* ROLE_RPC: the RESPONSE, kept */
  struct Conn *next_all;
} Conn;

static int g_ep = -1;
static Conn *g_all;
static long g_started, g_connected, g_refused, g_eof, g_reset, g_goaway, g_open, g_connecting;
static long g_client_fd_errors;
static Tally g_goaway_reasons;

static void (*on_open)(Conn *);
static void (*on_env)(Conn *, Envelope *);

static void set_out(Conn *c, int want) {
  if (c->state == CLOSED || c->want_out == want) return;
  struct epoll_event ev = {.events = EPOLLIN | (want ? EPOLLOUT : 0), .data.ptr = c};
  epoll_ctl(g_ep, EPOLL_CTL_MOD, c->fd, &ev);
  c->want_out = want;
}

static void conn_close(Conn *c) {
  if (c->state == CLOSED) return;
  if (c->state == OPEN) g_open--;
  if (c->state == CONNECTING) g_connecting--;
  epoll_ctl(g_ep, EPOLL_CTL_DEL, c->fd, NULL);
  close(c->fd);
  c->fd = -1;
  c->state = CLOSED;
  while (c->head) {
    Seg *s = c->head;
    c->head = s->next;
    if (s->owned) free((void *)s->p);
    free(s);
  }
  c->tail = NULL;
  free(c->in);
  c->in = NULL;
  c->in_len = c->in_cap = 0;
}

static void conn_flush(Conn *c);

/* Queues bytes; owned ones are freed once written. */
static void conn_send(Conn *c, const uint8_t *p, size_t len, int owned) {
  if (c->state == CLOSED) {
    if (owned) free((void *)p);
    return;
  }
  Seg *s = calloc(1, sizeof *s);
  s->p = p, s->len = len, s->owned = owned;
  if (c->tail) c->tail->next = s;
  else c->head = s;
  c->tail = s;
  if (c->state == OPEN) conn_flush(c);
}

static void conn_lost(Conn *c, int reset) {
  if (c->state == CONNECTING) g_refused++;
  else {
    c->closed_by_server = 1;
    if (reset || c->send_failed) g_reset++;
    else g_eof++;
  }
  conn_close(c);
}

static void conn_flush(Conn *c) {
  while (c->head && c->state == OPEN) {
    Seg *s = c->head;
    ssize_t w = send(c->fd, s->p + c->out_pos, s->len - c->out_pos, MSG_NOSIGNAL);
    if (w < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      /* the server closed or reset: drop what is left to send, and let epoll report the end
       * once what the server sent before (a GOAWAY) has been read */
      while (c->head) {
        Seg *d = c->head;
        c->head = d->next;
        if (d->owned) free((void *)d->p);
        free(d);
      }
      c->tail = NULL;
      c->out_pos = 0;
      c->send_failed = 1;
      break;
    }
    c->out_pos += (size_t)w;
    c->sent += (size_t)w;
    if (c->out_pos == s->len) {
      c->head = s->next;
      if (!c->head) c->tail = NULL;
      if (s->owned) free((void *)s->p);
      free(s);
      c->out_pos = 0;
    }
  }
  set_out(c, c->head != NULL);
}

/* Starts a connection to the server from source address `src` (host order); NULL (counted) when
 * the client is out of descriptors. */
static Conn *conn_new_from(int role, uint32_t src) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    g_client_fd_errors++;
    return NULL;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (src != ADDR_ATTACK) {
    /* the port is chosen at connect(), so that many probes do not use up the ports to bind */
    setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
    struct sockaddr_in from = {.sin_family = AF_INET};
    from.sin_addr.s_addr = htonl(src);
    if (bind(fd, (struct sockaddr *)&from, sizeof from) < 0)
      die("cannot bind to %s: %s", addr_str(src), strerror(errno));
  }
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)g_port)};
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  Conn *c = calloc(1, sizeof *c);
  c->fd = fd, c->role = role, c->state = CONNECTING, c->t_start = now(), c->want_out = 1;
  c->src = src;
  c->next_all = g_all;
  g_all = c;
  g_started++;
  g_connecting++;
  struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT, .data.ptr = c};
  epoll_ctl(g_ep, EPOLL_CTL_ADD, fd, &ev);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0 && errno != EINPROGRESS) {
    if (errno == EADDRNOTAVAIL) g_client_fd_errors++;
    conn_lost(c, 1);
  }
  return c;
}

/* Probes stand for another client: they connect from another address than the attack. */
static Conn *conn_new(int role) {
  return conn_new_from(role, role == ROLE_PROBE ? ADDR_OTHER : ADDR_ATTACK);
}

/* Decodes complete frames in c->in and hands each envelope to on_env. */
static void conn_parse(Conn *c) {
  size_t off = 0;
  while (c->state != CLOSED && c->in_len - off >= 5) {
    uint8_t *h = c->in + off;
    uint32_t len = (uint32_t)h[1] << 24 | (uint32_t)h[2] << 16 | (uint32_t)h[3] << 8 | h[4];
    if (c->in_len - off < 5 + (size_t)len) {
      if (c->in_cap < 5 + (size_t)len) {
        memmove(c->in, c->in + off, c->in_len - off);
        c->in_len -= off;
        off = 0;
        c->in_cap = 5 + (size_t)len;
        c->in = realloc(c->in, c->in_cap);
      }
      break;
    }
    const uint8_t *body = h + 5;
    size_t blen = len;
    uint8_t *plain = NULL;
    if (h[0] & 1) {
      unsigned long long sz = ZSTD_getFrameContentSize(body, len);
      size_t cap = (sz == ZSTD_CONTENTSIZE_UNKNOWN || sz == ZSTD_CONTENTSIZE_ERROR) ? BODY_LIMIT
                                                                                     : (size_t)sz;
      plain = malloc(cap ? cap : 1);
      size_t r = ZSTD_decompress(plain, cap, body, len);
      if (ZSTD_isError(r)) {
        free(plain);
        conn_close(c);
        return;
      }
      body = plain, blen = r;
    }
    Envelope *e = badminton__rpc__v1__envelope__unpack(NULL, blen, body);
    free(plain);
    off += 5 + (size_t)len;
    if (!e) continue;
    if (e->kind == KIND_GOAWAY) {
      const char *why = e->status && e->status->reason && e->status->reason[0] ? e->status->reason
                                                                               : "(no reason)";
      if (g_goaway++ == 0) note("first GOAWAY: %s", why);
      tally_add(&g_goaway_reasons, why);
      c->goaway = 1;
      snprintf(c->goaway_reason, sizeof c->goaway_reason, "%s", why);
    }
    if (e->kind == KIND_PONG) c->pongs++;
    if (e->kind == KIND_RESPONSE) {
      c->responses++;
      int code = e->status ? (int)e->status->code : 0;
      c->last_code = code;
      if (code == 0) c->codes_ok++;
      else c->codes_err++;
    }
    if (on_env) on_env(c, e);
    if (c->reply != e) badminton__rpc__v1__envelope__free_unpacked(e, NULL);
  }
  if (c->state == CLOSED) return;
  memmove(c->in, c->in + off, c->in_len - off);
  c->in_len -= off;
}

static void conn_read(Conn *c) {
  for (;;) {
    if (c->in_cap - c->in_len < 4096) {
      c->in_cap = c->in_cap ? c->in_cap * 2 : 16384;
      c->in = realloc(c->in, c->in_cap);
    }
    ssize_t r = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, 0);
    if (r > 0) {
      c->in_len += (size_t)r;
      conn_parse(c);
      if (c->state == CLOSED) return;
      continue;
    }
    if (r == 0) {
      conn_lost(c, 0);
      return;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) return;
    conn_lost(c, 1);
    return;
  }
}

/* Waits up to ms for socket events and handles them. */
static void pump(int ms) {
  struct epoll_event evs[512];
  int n = epoll_wait(g_ep, evs, 512, ms);
  for (int i = 0; i < n; i++) {
    Conn *c = evs[i].data.ptr;
    if (c->state == CLOSED) continue;
    if (c->state == CONNECTING) {
      int err = 0;
      socklen_t l = sizeof err;
      getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &l);
      if (err || (evs[i].events & (EPOLLERR | EPOLLHUP))) {
        conn_lost(c, 1);
        continue;
      }
      if (!(evs[i].events & EPOLLOUT)) continue;
      c->state = OPEN;
      g_connecting--;
      g_open++;
      g_connected++;
      if (on_open) on_open(c);
      if (c->state == OPEN) conn_flush(c);
      continue;
    }
    if (evs[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) conn_read(c);
    if (c->state == OPEN && (evs[i].events & EPOLLOUT)) conn_flush(c);
  }
  sample_peak();
}

/* Pumps for a while. */
static void pump_for(double seconds) {
  double end = now() + seconds;
  while (now() < end) pump(5);
}

/* Closes and frees every connection; resets the counters. */
static void reset_all(void) {
  while (g_all) {
    Conn *c = g_all;
    g_all = c->next_all;
    conn_close(c);
    if (c->reply) badminton__rpc__v1__envelope__free_unpacked(c->reply, NULL);
    free(c);
  }
  g_started = g_connected = g_refused = g_eof = g_reset = g_goaway = g_open = g_connecting = 0;
  g_client_fd_errors = 0;
  memset(&g_goaway_reasons, 0, sizeof g_goaway_reasons);
  on_open = NULL;
  on_env = NULL;
}

static void counts_note(void) {
  char why[512];
  note("connections: %ld started, %ld connected, %ld refused or never connected, %ld closed by "
       "the server (%ld EOF, %ld reset), %ld GOAWAY (%s), %ld still open, %ld client-side errors",
       g_started, g_connected, g_refused + g_connecting, g_eof + g_reset, g_eof, g_reset, g_goaway,
       tally_str(&g_goaway_reasons, why, sizeof why), g_open, g_client_fd_errors);
}

/* ---------------------------------------------------------------- frames */

static void put_be32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

/* One frame holding `e`, zstd-compressed at `level` when level > 0. */
static uint8_t *frame_envelope(const Envelope *e, int level, size_t *n) {
  size_t len = badminton__rpc__v1__envelope__get_packed_size(e);
  uint8_t *body = malloc(len ? len : 1);
  badminton__rpc__v1__envelope__pack(e, body);
  uint8_t *out;
  if (level > 0) {
    size_t cap = ZSTD_compressBound(len);
    out = malloc(5 + cap);
    size_t z = ZSTD_compress(out + 5, cap, body, len, level);
    if (ZSTD_isError(z)) die("zstd: %s", ZSTD_getErrorName(z));
    out[0] = 1;
    put_be32(out + 1, (uint32_t)z);
    *n = 5 + z;
  } else {
    out = malloc(5 + len);
    out[0] = 0;
    put_be32(out + 1, (uint32_t)len);
    memcpy(out + 5, body, len);
    *n = 5 + len;
  }
  free(body);
  return out;
}

static uint8_t *pack_message(const ProtobufCMessage *m, size_t *n) {
  *n = protobuf_c_message_get_packed_size(m);
  uint8_t *p = malloc(*n ? *n : 1);
  protobuf_c_message_pack(m, p);
  return p;
}

/* A REQUEST frame for `method` with `msg` as payload and, when token is set, authorization. */
static uint8_t *frame_request(uint64_t call_id, const char *method, const ProtobufCMessage *msg,
                              const char *token, int level, size_t *n) {
  Envelope e = BADMINTON__RPC__V1__ENVELOPE__INIT;
  e.call_id = call_id;
  e.kind = KIND_REQUEST;
  e.method = (char *)method;
  size_t plen = 0;
  uint8_t *payload = msg ? pack_message(msg, &plen) : NULL;
  e.payload.data = payload, e.payload.len = plen;
  Badminton__Rpc__V1__Metadata md = BADMINTON__RPC__V1__METADATA__INIT;
  Badminton__Rpc__V1__Metadata *mds[1] = {&md};
  char auth[512];
  if (token) {
    snprintf(auth, sizeof auth, "Bearer %s", token);
    md.key = "authorization", md.value = auth;
    e.n_metadata = 1, e.metadata = mds;
  }
  uint8_t *f = frame_envelope(&e, level, n);
  free(payload);
  return f;
}

static uint8_t *frame_health(uint64_t call_id, size_t *n) {
  Badminton__Rpc__V1__HealthCheckRequest r = BADMINTON__RPC__V1__HEALTH_CHECK_REQUEST__INIT;
  return frame_request(call_id, "/badminton.rpc.v1.Health/Check", &r.base, NULL, 0, n);
}

static uint8_t *frame_ping(size_t *n) {
  Envelope e = BADMINTON__RPC__V1__ENVELOPE__INIT;
  e.kind = KIND_PING;
  e.payload.data = (uint8_t *)"hold", e.payload.len = 4;
  return frame_envelope(&e, 0, n);
}

static uint8_t *frame_login(uint64_t call_id, const char *phone, const char *password, size_t *n) {
  Badminton__V1__LoginRequest r = BADMINTON__V1__LOGIN_REQUEST__INIT;
  r.phone = (char *)phone, r.password = (char *)password;
  return frame_request(call_id, "/badminton.v1.Accounts/Login", &r.base, NULL, 0, n);
}

static uint8_t *frame_register(const char *phone, const char *nickname, const char *password,
                               int level, size_t *n) {
  Badminton__V1__RegisterRequest r = BADMINTON__V1__REGISTER_REQUEST__INIT;
  r.phone = (char *)phone, r.nickname = (char *)nickname, r.password = (char *)password;
  r.self_level = 3;
  return frame_request(1, "/badminton.v1.Accounts/Register", &r.base, NULL, level, n);
}

static uint8_t *g_ping;
static size_t g_ping_len;
static void send_ping(Conn *c) {
  if (c->state == OPEN) conn_send(c, g_ping, g_ping_len, 0);
}
static void ping_all(int role) {
  for (Conn *c = g_all; c; c = c->next_all)
    if (c->role == role) send_ping(c);
}

/* ---------------------------------------------------------------- synchronous calls */

static void rpc_on_env(Conn *c, Envelope *e) {
  if (c->role == ROLE_RPC && e->kind == KIND_RESPONSE && !c->reply) {
    c->reply = e;
    c->t_done = now();
  }
}

/* Sends one request frame (taken) on a fresh connection from `src` and waits up to timeout for its
 * RESPONSE, pumping every other connection meanwhile. Returns the connection (reply NULL on
 * timeout). */
static Conn *rpc_call(uint32_t src, uint8_t *frame, size_t n, double timeout) {
  void (*saved)(Conn *, Envelope *) = on_env;
  Conn *c = conn_new_from(ROLE_RPC, src);
  if (!c) {
    free(frame);
    return NULL;
  }
  conn_send(c, frame, n, 1);
  double end = now() + timeout;
  on_env = rpc_on_env;
  while (!c->reply && c->state != CLOSED && now() < end) pump(2);
  on_env = saved;
  conn_close(c);
  return c;
}

static const char *status_reason(const Envelope *e) {
  return e && e->status && e->status->reason && e->status->reason[0] ? e->status->reason : "OK";
}

/* Registers then logs in from `src`; returns the token (malloc'd) or NULL. */
static char *register_and_login(uint32_t src, const char *phone, const char *password) {
  size_t n;
  uint8_t *f = frame_register(phone, "Bench Player", password, 0, &n);
  Conn *c = rpc_call(src, f, n, 30);
  if (!c || !c->reply || !c->reply->status || c->reply->status->code != 0) {
    note("register of %s from %s failed: %s", phone, addr_str(src),
         c && c->reply ? status_reason(c->reply) : "no answer");
    return NULL;
  }
  f = frame_login(1, phone, password, &n);
  c = rpc_call(src, f, n, 30);
  if (!c || !c->reply || !c->reply->status || c->reply->status->code != 0) {
    note("login of %s failed: %s", phone, status_reason(c ? c->reply : NULL));
    return NULL;
  }
  Badminton__V1__LoginResponse *r = badminton__v1__login_response__unpack(
      NULL, c->reply->payload.len, c->reply->payload.data);
  if (!r) return NULL;
  char *token = strdup(r->token);
  badminton__v1__login_response__free_unpacked(r, NULL);
  return token;
}

/* ---------------------------------------------------------------- statistics */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double pct(double *v, size_t n, double p) {
  if (n == 0) return NAN;
  qsort(v, n, sizeof *v, cmp_double);
  size_t i = (size_t)ceil(p * (double)n) - 1;
  if (i >= n) i = n - 1;
  return v[i];
}

/* Fresh-connection Health/Check probes: each probe connects, calls Check, and records the time
 * from connect() to the RESPONSE; a probe unanswered after `probe_timeout` records that timeout. */
typedef struct {
  double *lat;
  size_t n, cap;
  long answered, timed_out, lost;
} Probes;
static Probes g_probes;
static double g_probe_timeout = 3.0;
static uint8_t *g_health;
static size_t g_health_len;

static void probe_record(double v) {
  if (g_probes.n == g_probes.cap) {
    g_probes.cap = g_probes.cap ? g_probes.cap * 2 : 1024;
    g_probes.lat = realloc(g_probes.lat, g_probes.cap * sizeof(double));
  }
  g_probes.lat[g_probes.n++] = v;
}
static void probe_start(void) {
  Conn *c = conn_new(ROLE_PROBE);
  if (c) conn_send(c, g_health, g_health_len, 0);
  else {
    g_probes.lost++;
    probe_record(g_probe_timeout);
  }
}
static void probe_env(Conn *c, Envelope *e) {
  if (c->role == ROLE_PROBE && e->kind == KIND_RESPONSE && !c->t_done) {
    c->t_done = now();
    probe_record(c->t_done - c->t_start);
    g_probes.answered++;
    conn_close(c);
  }
}
/* Ends probes that timed out or whose connection was lost; returns how many are still waiting. */
static int probes_check(int final) {
  int waiting = 0;
  double t = now();
  for (Conn *c = g_all; c; c = c->next_all) {
    if (c->role != ROLE_PROBE || c->t_done) continue;
    if (c->state == CLOSED) {
      c->t_done = t;
      g_probes.lost++;
      probe_record(g_probe_timeout);
    } else if (final || t - c->t_start >= g_probe_timeout) {
      c->t_done = t;
      g_probes.timed_out++;
      probe_record(g_probe_timeout);
      conn_close(c);
    } else waiting++;
  }
  return waiting;
}
static void probes_reset(void) {
  free(g_probes.lat);
  memset(&g_probes, 0, sizeof g_probes);
}

/* ---------------------------------------------------------------- A. zstd bomb */

static uint8_t *g_attack;
static size_t g_attack_len;

static int g_first_noted;
static void first_answer_env(Conn *c, Envelope *e) {
  if (e->kind == KIND_RESPONSE && !g_first_noted) {
    g_first_noted = 1;
    note("the server answers the first request: %s", status_reason(e));
  }
}

static void attack_open(Conn *c) {
  if (c->role == ROLE_ATTACK || c->role == ROLE_HOLD) conn_send(c, g_attack, g_attack_len, 0);
}

/* Opens n connections of `role`, at most `inflight` connecting at once, for at most `seconds`. */
static void open_many(int n, int role, int inflight, double seconds) {
  double end = now() + seconds;
  int made = 0;
  while (made < n && now() < end) {
    while (made < n && g_connecting < inflight) {
      if (!conn_new(role)) {
        made = n;
        break;
      }
      made++;
    }
    pump(2);
  }
}

static void scenario_bomb(void) {
  int n = g_quick ? 30 : 300;
  double hold = g_quick ? 2 : 3;
  /* A Health/Check REQUEST whose payload is zeros, so the envelope is just under the body limit. */
  size_t zeros = BODY_LIMIT - 64;
  uint8_t *payload = calloc(1, zeros);
  Envelope e = BADMINTON__RPC__V1__ENVELOPE__INIT;
  e.call_id = 1, e.kind = KIND_REQUEST, e.method = "/badminton.rpc.v1.Health/Check";
  e.payload.data = payload, e.payload.len = zeros;
  size_t inflated = badminton__rpc__v1__envelope__get_packed_size(&e);
  g_attack = frame_envelope(&e, 3, &g_attack_len);
  free(payload);
  note("%d connections; each sends one %zu-byte zstd frame that inflates to %zu bytes, then only "
       "PINGs for %.0f s",
       n, g_attack_len, inflated, hold);

  pump_for(0.3);
  long base = server_rss_kb();
  g_peak_kb = base;
  on_open = attack_open;
  on_env = first_answer_env;
  open_many(n, ROLE_ATTACK, 64, 20);
  /* wait until every connection has its answer or is gone */
  double end = now() + 20;
  for (;;) {
    int waiting = 0;
    for (Conn *c = g_all; c; c = c->next_all)
      if (c->state != CLOSED && c->responses == 0) waiting++;
    if (!waiting || now() > end) break;
    pump(5);
  }
  for (double t = 0; t < hold; t += 1) {
    ping_all(ROLE_ATTACK);
    pump_for(1);
  }
  long held = server_rss_kb();
  long answered = 0;
  for (Conn *c = g_all; c; c = c->next_all) answered += c->responses > 0;
  double per = (double)(held - base) / n;
  row("resident per held connection", "<= 64 KB", per <= 64 ? "met" : "MISSED", "%.0f KB", per);
  note("resident %ld KB before, %ld KB with the connections held (peak %ld KB); %ld connections "
       "answered, %ld still open",
       base, held, g_peak_kb, answered, g_open);
  counts_note();
  reset_all();
  free(g_attack);
}

/* ---------------------------------------------------------------- B. partial frames */

static void scenario_partial(void) {
  int n = g_quick ? 15 : 150;
  size_t part = 6000000;
  uint8_t *zeros = calloc(1, part);
  uint8_t header[5] = {0};
  put_be32(header + 1, BODY_LIMIT);
  note("%d connections; each announces a %u-byte body, sends its first %zu bytes and stops", n,
       BODY_LIMIT, part);
  pump_for(0.3);
  long base = server_rss_kb();
  g_peak_kb = base;
  on_open = NULL;
  open_many(n, ROLE_HOLD, 64, 20);
  for (Conn *c = g_all; c; c = c->next_all) {
    conn_send(c, header, 5, 0);
    conn_send(c, zeros, part, 0);
  }
  double end = now() + 30;
  for (;;) {
    int waiting = 0;
    for (Conn *c = g_all; c; c = c->next_all)
      if (c->state != CLOSED && c->head) waiting++;
    if (!waiting || now() > end) break;
    pump(5);
  }
  pump_for(1.5);
  long held = server_rss_kb();
  unsigned long long sent = 0;
  for (Conn *c = g_all; c; c = c->next_all) sent += c->sent;
  double per = (double)(held - base) / n;
  row("resident per held connection", "<= 64 KB", per <= 64 ? "met" : "MISSED", "%.0f KB", per);
  note("resident %ld KB before, %ld KB held (peak %ld KB); %.1f MB written in all", base, held,
       g_peak_kb, (double)sent / 1e6);
  counts_note();
  reset_all();
  free(zeros);
}

/* ---------------------------------------------------------------- C. expensive validation */

static double *g_attack_lat;
static int g_attack_answered;
static void validation_env(Conn *c, Envelope *e) {
  if (c->role == ROLE_ATTACK && e->kind == KIND_RESPONSE && !c->t_done) {
    c->t_done = now();
    g_attack_lat[g_attack_answered++] = c->t_done - c->t_start;
    if (g_attack_answered == 1) note("the server answers the Register: %s", status_reason(e));
    conn_close(c);
    return;
  }
  probe_env(c, e);
}

static void run_probes(double seconds, double every, int cap) {
  double end = now() + seconds, next = now();
  while (now() < end) {
    if (now() >= next) {
      next += every;
      if (probes_check(0) < cap) probe_start();
    }
    pump(1);
  }
}

static void scenario_validation(void) {
  int attacks = g_quick ? 3 : 10;
  /* a nickname of '小' (3 bytes each) filling the body limit */
  size_t nick_len = (BODY_LIMIT - 256) / 3 * 3;
  char *nick = malloc(nick_len + 1);
  for (size_t i = 0; i < nick_len; i += 3) memcpy(nick + i, "\xe5\xb0\x8f", 3);
  nick[nick_len] = 0;
  size_t n;
  g_attack = frame_register("+8613700000001", nick, "password-123", 3, &n);
  g_attack_len = n;
  free(nick);
  g_attack_lat = calloc((size_t)attacks, sizeof(double));
  g_attack_answered = 0;
  g_health = frame_health(1, &g_health_len);
  note("one %zu-byte compressed Register whose nickname inflates to %zu bytes, once a second for "
       "%d s, on a fresh connection from %s each time; meanwhile a Health/Check every 10 ms, each "
       "on a fresh connection from %s (time from connect to answer)",
       g_attack_len, nick_len, attacks, addr_str(ADDR_ATTACK), addr_str(ADDR_OTHER));

  on_env = probe_env;
  run_probes(1.0, 0.01, 50);
  probes_check(1);
  double base_p99 = pct(g_probes.lat, g_probes.n, 0.99);
  probes_reset();

  on_env = validation_env;
  on_open = attack_open;
  double cpu0 = server_cpu_s(), t0 = now();
  double end = now() + attacks, next_attack = now(), next_probe = now();
  while (now() < end) {
    if (now() >= next_attack) {
      next_attack += 1;
      conn_new(ROLE_ATTACK);
    }
    if (now() >= next_probe) {
      next_probe += 0.01;
      if (probes_check(0) < 50) probe_start();
    }
    pump(1);
  }
  double tail_end = now() + 5;
  while (now() < tail_end && (probes_check(0) > 0 || g_attack_answered < attacks)) pump(5);
  probes_check(1);
  double cpu = (server_cpu_s() - cpu0) / (now() - t0) * 100;
  size_t pn = g_probes.n;
  double p99 = pct(g_probes.lat, pn, 0.99) * 1000, p50 = pct(g_probes.lat, pn, 0.5) * 1000,
         mx = pct(g_probes.lat, pn, 1.0) * 1000;
  row("Health/Check p99, fresh connection from another address", "<= 10 ms", p99 <= 10 ? "met" : "MISSED",
      "%.1f ms", p99);
  note("Health/Check: %zu probes, p50 %.2f ms, p99 %.1f ms, max %.1f ms, %ld unanswered within "
       "%.0f s (p99 without the attack: %.2f ms)",
       pn, p50, p99, mx, g_probes.timed_out + g_probes.lost, g_probe_timeout, base_p99 * 1000);
  double reg = pct(g_attack_lat, (size_t)g_attack_answered, 0.5) * 1000;
  char regs[64] = "none";
  if (g_attack_answered) snprintf(regs, sizeof regs, "%.0f ms", reg);
  note("Registers answered: %d of %d, median answer time %s; server CPU %.0f%% of one core",
       g_attack_answered, attacks, regs, cpu);
  counts_note();
  reset_all();
  probes_reset();
  free(g_attack);
  free(g_attack_lat);
}

/* ---------------------------------------------------------------- D. connection churn */

static void churn_open(Conn *c) { conn_close(c); }

static void churn(int n) {
  on_open = churn_open;
  double end = now() + 60;
  int made = 0;
  while (made < n && now() < end) {
    while (made < n && g_connecting < 128) {
      if (!conn_new(ROLE_NONE)) break;
      made++;
    }
    pump(1);
  }
  while (g_connecting > 0 && now() < end) pump(5);
  /* free the finished connections as we go: 50,000 structs are cheap but not needed */
}

static void scenario_churn(void) {
  int n = g_quick ? 5000 : 50000;
  note("%d connections opened and closed by the client without sending a byte (after a warm-up "
       "of 500)",
       n);
  churn(500);
  reset_all();
  pump_for(1.0);
  long before = server_rss_kb();
  g_peak_kb = before;
  double t0 = now();
  churn(n);
  double took = now() - t0;
  long connected = g_connected, refused = g_refused, errs = g_client_fd_errors;
  reset_all();
  pump_for(2.0);
  long after = server_rss_kb();
  double growth = (double)(after - before) / (double)before * 100;
  row("resident after vs before", "within 10%", fabs(growth) <= 10 ? "met" : "MISSED",
      "%+.1f%% (%ld -> %ld KB)", growth, before, after);
  pump_for(3.0);
  note("%ld connected, %ld refused, %ld client-side errors, in %.1f s (%.0f per second); peak "
       "%ld KB; %ld KB resident 3 s later",
       connected, refused, errs, took, (double)connected / took, g_peak_kb, server_rss_kb());
}

/* ---------------------------------------------------------------- E. descriptor exhaustion */

static void hold_open(Conn *c) { send_ping(c); }

static void scenario_descriptors(void) {
  int n = g_quick ? 1100 : 1300;
  int freed = 64;
  g_health = frame_health(1, &g_health_len);
  note("the server starts with a soft limit of 1024 descriptors; %d connections from %s each send "
       "a PING on connecting and one a second after; the fresh Health/Checks connect from %s",
       n, addr_str(ADDR_ATTACK), addr_str(ADDR_OTHER));
  on_open = hold_open;
  on_env = probe_env;
  open_many(n, ROLE_HOLD, 128, 10);
  /* wait for PONGs, at most 5 s */
  double end = now() + 5;
  for (;;) {
    int waiting = 0;
    for (Conn *c = g_all; c; c = c->next_all)
      if (c->role == ROLE_HOLD && c->state == OPEN && c->pongs == 0) waiting++;
    if (!waiting || now() > end) break;
    pump(5);
  }
  long served = 0, unserved = 0, capped = 0;
  for (Conn *c = g_all; c; c = c->next_all)
    if (c->role == ROLE_HOLD) {
      if (c->state == OPEN && c->pongs > 0) served++;
      else if (c->state != CLOSED) unserved++;
      if (c->goaway) capped++;
    }
  note("%ld connections served (PONG), %ld connected or connecting but not served, %ld refused "
       "by the connection caps (GOAWAY TOO_MANY_CONNECTIONS_FROM_ADDRESS %ld, TOO_MANY_CONNECTIONS "
       "%ld)",
       served, unserved, capped, tally_get(&g_goaway_reasons, "TOO_MANY_CONNECTIONS_FROM_ADDRESS"),
       tally_get(&g_goaway_reasons, "TOO_MANY_CONNECTIONS"));
  char nofile[64];
  note("the server's open-files limit while held: %s", server_nofile(nofile, sizeof nofile));
  /* CPU while holding */
  double cpu0 = server_cpu_s(), t0 = now();
  for (int i = 0; i < 3; i++) {
    ping_all(ROLE_HOLD);
    pump_for(1);
  }
  double cpu = (server_cpu_s() - cpu0) / (now() - t0) * 100;
  row("server CPU while held", "-", "-", "%.0f%% of one core", cpu);
  /* one fresh Health/Check while every descriptor is taken */
  g_probe_timeout = 3.0;
  probe_start();
  while (probes_check(0) > 0) pump(5);
  int answered_full = g_probes.answered > 0;
  double lat_full = g_probes.n ? g_probes.lat[0] * 1000 : NAN;
  row("fresh Health/Check (another address) while held", "answers",
      answered_full ? "met" : "MISSED",
      answered_full ? "%.1f ms" : "no answer in %.0f s", answered_full ? lat_full : 3.0);
  probes_reset();
  /* free descriptors: close the unserved connections and `freed` served ones */
  int closed = 0;
  for (Conn *c = g_all; c; c = c->next_all) {
    if (c->role != ROLE_HOLD || c->state == CLOSED) continue;
    if (c->pongs == 0) conn_close(c);
    else if (closed < freed) {
      conn_close(c);
      closed++;
    }
  }
  pump_for(1.0);
  g_probe_timeout = 2.0;
  run_probes(3.0, 0.03, 20);
  while (probes_check(0) > 0) pump(5);
  size_t pn = g_probes.n;
  double p99 = pct(g_probes.lat, pn, 0.99) * 1000;
  long ok = g_probes.answered;
  row("Health/Check p99 once descriptors free", "<= 10 ms", (ok == (long)pn && p99 <= 10) ? "met"
                                                                                          : "MISSED",
      "%.1f ms (%ld/%zu answered)", p99, ok, pn);
  note("after closing %d served and every unserved connection: %zu probes, p50 %.2f ms, p99 %.1f "
       "ms",
       closed, pn, pct(g_probes.lat, pn, 0.5) * 1000, p99);
  counts_note();
  reset_all();
  probes_reset();
}

/* ---------------------------------------------------------------- F. login flood */

static long g_flood_answers;
static uint8_t *g_flood;
static size_t g_flood_len;
static void flood_open(Conn *c) {
  if (c->role == ROLE_ATTACK) conn_send(c, g_flood, g_flood_len, 0);
}
static Tally g_flood_reasons;
static void flood_env(Conn *c, Envelope *e) {
  if (c->role == ROLE_ATTACK && e->kind == KIND_RESPONSE) {
    g_flood_answers++;
    tally_add(&g_flood_reasons, status_reason(e));
  }
  rpc_on_env(c, e);
}

static void scenario_login_flood(void) {
  int conns = g_quick ? 4 : 16, per = g_quick ? 32 : 128;
  double timeout = g_quick ? 10 : 20;
  const char *real = "+8613600000001", *victim = "+8613600000002", *pw = "correct-horse-9";
  size_t n;
  /* the real player registers and logs in from another address than the flood's */
  uint8_t *f = frame_register(victim, "Victim", pw, 0, &n);
  Conn *c = rpc_call(ADDR_ATTACK, f, n, 30);
  f = frame_register(real, "Real Player", pw, 0, &n);
  c = rpc_call(ADDR_OTHER, f, n, 30);
  if (!c || !c->reply) note("the real player's Register got no answer");
  else if (c->reply->status && c->reply->status->code)
    note("the real player's Register failed: %s", status_reason(c->reply));
  f = frame_login(1, real, pw, &n);
  c = rpc_call(ADDR_OTHER, f, n, 30);
  double idle = c && c->reply ? (c->t_done - c->t_start) * 1000 : NAN;
  /* the flood: `per` pipelined wrong-password Logins on each connection */
  g_flood_len = 0;
  g_flood = NULL;
  for (int i = 1; i <= per; i++) {
    uint8_t *one = frame_login((uint64_t)i, victim, "wrong-password", &n);
    g_flood = realloc(g_flood, g_flood_len + n);
    memcpy(g_flood + g_flood_len, one, n);
    g_flood_len += n;
    free(one);
  }
  note("%d connections x %d pipelined wrong-password Logins for one phone at the default scrypt "
       "cost from %s, then one real Login for another phone on a fresh connection from %s "
       "(waits up to %.0f s)",
       conns, per, addr_str(ADDR_ATTACK), addr_str(ADDR_OTHER), timeout);
  long base = server_rss_kb();
  g_peak_kb = base;
  g_flood_answers = 0;
  memset(&g_flood_reasons, 0, sizeof g_flood_reasons);
  on_open = flood_open;
  on_env = flood_env;
  double cpu0 = server_cpu_s(), t0 = now();
  for (int i = 0; i < conns; i++) conn_new(ROLE_ATTACK);
  pump_for(0.5);
  f = frame_login(1, real, pw, &n);
  c = rpc_call(ADDR_OTHER, f, n, timeout);
  int ok = c && c->reply;
  double lat = ok ? c->t_done - c->t_start : timeout;
  double cpu = (server_cpu_s() - cpu0) / (now() - t0) * 100;
  row("real Login latency during the flood", "<= 1 s", ok && lat <= 1 ? "met" : "MISSED",
      ok ? "%.2f s" : "> %.0f s (no answer)", lat);
  note("idle Login %.0f ms; during the flood: %ld of %d flood Logins answered in %.1f s, real "
       "Login %s, peak resident %ld KB (%ld KB before), server CPU %.0f%% of one core",
       idle, g_flood_answers, conns * per, now() - t0, ok ? status_reason(c->reply) : "unanswered",
       g_peak_kb, base, cpu);
  char why[512];
  note("flood answers: %s", tally_str(&g_flood_reasons, why, sizeof why));
  counts_note();
  reset_all();
  free(g_flood);
}

/* ---------------------------------------------------------------- G. uploads */

/* 20 accounts (4 with --quick), each registering, logging in and uploading from its own address
 * 127.0.1.N, hold 60 connections (12), 3 per account, each sending one 5 MiB document: "%PDF-"
 * then incompressible bytes. Two scenarios, each meant for a fresh server:
 *
 * 1. upload-frames: each connection calls Health/CheckSession with its account's token, so that
 *    it has passed authentication, then sends the document whole in one SubmitVerification frame
 *    of 5 MiB, as clients did before documents went in pieces. No method takes a request that
 *    large, so the server should refuse the frame from its header (GOAWAY FRAME_TOO_LARGE)
 *    without buffering any of it.
 * 2. upload-pieces: each connection sends the document with Players/UploadDocumentPiece,
 *    60,000 bytes a piece, one piece in flight (the next one starts at the answer's
 *    received_bytes), then calls SubmitVerification with the upload id. Every frame is under
 *    64 KiB, so no CheckSession is needed first.
 *
 * First one warm-up upload in pieces, from an account and address of its own, on a connection
 * that is then closed, so that what the first upload costs the server once is in the idle figure.
 * Resident memory is read before the warm-up, 1 s after it (idle), every 20 ms meanwhile (peak),
 * 1 s after the last answer with every connection still open (held), and 3 s after they are
 * closed (settled). */
#define UPLOAD_PIECE_BYTES 60000
#define UPLOAD_CHECK_CALL 1
#define UPLOAD_CALL 2

static int g_uploads_done, g_uploads_ok;
static Tally g_upload_ends;
static char *g_tokens[64];
static int g_warm_index = -1; /* the warm-up account's token in g_tokens, -1 without one */
static uint32_t g_warm_src;   /* and its address */
static uint8_t *g_doc;
static size_t g_doc_len;
static long g_pieces_sent, g_pieces_ok;
static double *g_piece_lat;
static size_t g_piece_n, g_piece_cap;

/* The head of a SubmitVerification frame whose document is g_doc (sent after it, unframed). */
static uint8_t *upload_head(const char *token, size_t *n) {
  /* Envelope fields 1-5 packed by protobuf-c, then the payload (field 6, last in the encoding):
   * SubmitVerificationRequest{kind, document} whose document bytes are the shared buffer. */
  Badminton__V1__SubmitVerificationRequest r = BADMINTON__V1__SUBMIT_VERIFICATION_REQUEST__INIT;
  r.kind = BADMINTON__V1__VERIFICATION_KIND__REGIONAL_CHAMPIONSHIP;
  size_t klen;
  uint8_t *kind = pack_message(&r.base, &klen);
  uint8_t dochdr[16];
  size_t dh = 0;
  dochdr[dh++] = 0x12; /* field 2, length-delimited */
  for (uint64_t v = g_doc_len;; v >>= 7) {
    dochdr[dh++] = (uint8_t)(v & 0x7f) | (v > 0x7f ? 0x80 : 0);
    if (v <= 0x7f) break;
  }
  size_t plen = klen + dh + g_doc_len;
  size_t head_len;
  uint8_t *head = frame_request(UPLOAD_CALL, "/badminton.v1.Players/SubmitVerification", NULL,
                                token, 0, &head_len);
  uint8_t *pre = malloc(head_len + 16 + klen + dh);
  memcpy(pre, head, head_len);
  size_t p = head_len;
  pre[p++] = 0x32; /* envelope field 6, length-delimited */
  for (uint64_t v = plen;; v >>= 7) {
    pre[p++] = (uint8_t)(v & 0x7f) | (v > 0x7f ? 0x80 : 0);
    if (v <= 0x7f) break;
  }
  memcpy(pre + p, kind, klen);
  p += klen;
  memcpy(pre + p, dochdr, dh);
  p += dh;
  put_be32(pre + 1, (uint32_t)(p - 5 + g_doc_len));
  free(head);
  free(kind);
  *n = p;
  return pre;
}

/* Records how an upload ended; its connection stays open (idle) until the part ends. */
static void upload_end(Conn *c, const char *how) {
  c->t_done = now();
  g_uploads_done++;
  tally_add(&g_upload_ends, how);
}

/* upload-frames: CheckSession, then the whole document in one frame. */
static void whole_env(Conn *c, Envelope *e) {
  if (c->role != ROLE_ATTACK || e->kind != KIND_RESPONSE || c->t_done) return;
  int ok = e->status == NULL || e->status->code == 0;
  if (e->call_id == UPLOAD_CHECK_CALL) {
    if (!ok) {
      char how[96];
      snprintf(how, sizeof how, "CheckSession %s", status_reason(e));
      upload_end(c, how);
      return;
    }
    size_t n;
    uint8_t *head = upload_head(g_tokens[c->index], &n);
    conn_send(c, head, n, 1);
    conn_send(c, g_doc, g_doc_len, 0);
    return;
  }
  if (ok) g_uploads_ok++;
  char how[96];
  snprintf(how, sizeof how, "answered %s", status_reason(e));
  upload_end(c, how);
}

static void whole_open(Conn *c) {
  Badminton__Rpc__V1__HealthCheckRequest r = BADMINTON__RPC__V1__HEALTH_CHECK_REQUEST__INIT;
  size_t n;
  uint8_t *check = frame_request(UPLOAD_CHECK_CALL, "/badminton.rpc.v1.Health/CheckSession",
                                 &r.base, g_tokens[c->index], 0, &n);
  conn_send(c, check, n, 1);
}

/* upload-pieces: the piece of g_doc at `offset` (the first one starts the upload). */
static int g_pieces_in_flight;
static long g_wait_seq;

static void piece_send(Conn *c, size_t offset) {
  Badminton__V1__UploadDocumentPieceRequest r = BADMINTON__V1__UPLOAD_DOCUMENT_PIECE_REQUEST__INIT;
  r.upload_id = c->upload_id;
  r.total_size = (int64_t)g_doc_len;
  r.offset = (int64_t)offset;
  size_t len = g_doc_len - offset < UPLOAD_PIECE_BYTES ? g_doc_len - offset : UPLOAD_PIECE_BYTES;
  r.data.data = g_doc + offset, r.data.len = len;
  size_t n;
  uint8_t *f = frame_request(++c->next_call, "/badminton.v1.Players/UploadDocumentPiece", &r.base,
                             g_tokens[c->index], 0, &n);
  if (n > 65536) die("a piece's frame is %zu bytes, over 64 KiB", n);
  c->t_sent = now();
  g_pieces_sent++;
  g_pieces_in_flight++;
  conn_send(c, f, n, 1);
}

/* Sends the waiting pieces, oldest first, while places are free: one piece in flight per
 * connection, and with --pieces-in-flight N at most N over all of them (what the server would hold
 * if it took no more pieces at once, the others waiting unread). */
static void pieces_dispatch(void) {
  while (!g_pieces_in_flight_max || g_pieces_in_flight < g_pieces_in_flight_max) {
    Conn *next = NULL;
    for (Conn *w = g_all; w; w = w->next_all)
      if (w->wait_seq && w->state == OPEN && (!next || w->wait_seq < next->wait_seq)) next = w;
    if (!next) return;
    next->wait_seq = 0;
    piece_send(next, next->wait_offset);
  }
}

/* Queues c's next piece, at `offset`, behind those waiting already, and dispatches. */
static void piece_queue(Conn *c, size_t offset) {
  c->wait_seq = ++g_wait_seq;
  c->wait_offset = offset;
  pieces_dispatch();
}

static void piece_open(Conn *c) { piece_queue(c, 0); }

static void piece_env(Conn *c, Envelope *e) {
  if (c->role != ROLE_ATTACK || e->kind != KIND_RESPONSE || c->t_done) return;
  int ok = e->status == NULL || e->status->code == 0;
  char how[96];
  if (c->submitting) {
    if (ok) g_uploads_ok++;
    snprintf(how, sizeof how, "SubmitVerification %s", status_reason(e));
    upload_end(c, how);
    return;
  }
  if (g_piece_n < g_piece_cap) g_piece_lat[g_piece_n++] = now() - c->t_sent;
  g_pieces_in_flight--;
  if (!ok) {
    snprintf(how, sizeof how, "UploadDocumentPiece %s", status_reason(e));
    upload_end(c, how);
    pieces_dispatch();
    return;
  }
  Badminton__V1__DocumentUpload *d =
      badminton__v1__document_upload__unpack(NULL, e->payload.len, e->payload.data);
  if (!d) {
    upload_end(c, "DocumentUpload undecodable");
    pieces_dispatch();
    return;
  }
  g_pieces_ok++;
  c->upload_id = d->upload_id;
  size_t received = d->received_bytes < 0 ? 0 : (size_t)d->received_bytes;
  badminton__v1__document_upload__free_unpacked(d, NULL);
  if (received < g_doc_len) {
    piece_queue(c, received);
    return;
  }
  pieces_dispatch();
  Badminton__V1__SubmitVerificationRequest r = BADMINTON__V1__SUBMIT_VERIFICATION_REQUEST__INIT;
  r.kind = BADMINTON__V1__VERIFICATION_KIND__REGIONAL_CHAMPIONSHIP;
  r.upload_id = c->upload_id;
  size_t n;
  uint8_t *f = frame_request(++c->next_call, "/badminton.v1.Players/SubmitVerification", &r.base,
                             g_tokens[c->index], 0, &n);
  c->submitting = 1;
  conn_send(c, f, n, 1);
}

typedef struct {
  long before;                    /* KB, before the warm-up upload */
  int warmed;                     /* the warm-up upload was accepted */
  long idle, peak, held, settled; /* KB */
  double took;              /* s */
  unsigned long long disk;  /* bytes the data folder grew */
  char ends[1024];
} UploadPart;

/* Opens `uploads` connections, connection i from account i % got, and waits (at most 120 s) for
 * every one to end; then 3 s for the memory to settle. */
static void upload_part(UploadPart *out, const char *name, int uploads, int got,
                        const uint32_t *srcs, void (*open)(Conn *),
                        void (*env)(Conn *, Envelope *)) {
  char smaps[64];
  pump_for(0.5);
  out->before = server_rss_kb();
  /* One warm-up upload in pieces, on a connection of its own that is then closed, so that what
   * the first upload costs the server once (SQLite's page cache, the store's statements, the
   * threads' heaps) is in the idle figure, not charged to the connections measured. */
  on_open = piece_open;
  on_env = piece_env;
  g_uploads_done = g_uploads_ok = 0;
  Conn *warm = g_warm_index >= 0 ? conn_new_from(ROLE_ATTACK, g_warm_src) : NULL;
  if (warm) {
    warm->index = g_warm_index;
    double warm_end = now() + 60;
    while (!warm->t_done && warm->state != CLOSED && now() < warm_end) pump(5);
  }
  out->warmed = g_uploads_ok;
  reset_all();
  g_piece_n = 0;
  g_pieces_sent = g_pieces_ok = 0;
  g_pieces_in_flight = 0;
  pump_for(1.0);
  out->idle = server_rss_kb();
  snprintf(smaps, sizeof smaps, "uploads-%s-idle", name);
  save_smaps(smaps);
  unsigned long long disk0 = data_dir_bytes();
  g_peak_kb = out->idle;
  g_uploads_done = g_uploads_ok = 0;
  memset(&g_upload_ends, 0, sizeof g_upload_ends);
  on_open = open;
  on_env = env;
  double t0 = now();
  for (int i = 0; i < uploads; i++) {
    Conn *c = conn_new_from(ROLE_ATTACK, srcs[i % got]);
    if (!c) {
      tally_add(&g_upload_ends, "no connection (client)");
      continue;
    }
    c->index = i % got;
  }
  double end = now() + 120;
  for (;;) {
    int waiting = 0;
    for (Conn *c = g_all; c; c = c->next_all)
      if (c->role == ROLE_ATTACK && c->state != CLOSED && !c->t_done) waiting++;
    if (!waiting || now() > end) break;
    pump(5);
  }
  out->took = now() - t0;
  long sent = 0, conns = 0;
  for (Conn *c = g_all; c; c = c->next_all) {
    if (c->role != ROLE_ATTACK) continue;
    conns++;
    sent += (long)c->sent;
    if (c->t_done) continue;
    char how[96];
    if (c->state != CLOSED) snprintf(how, sizeof how, "no answer in 120 s");
    else if (c->goaway) snprintf(how, sizeof how, "closed by GOAWAY %s", c->goaway_reason);
    else snprintf(how, sizeof how, "closed without an answer");
    c->t_done = now();
    tally_add(&g_upload_ends, how);
  }
  /* what the connections still open hold once idle, then what stays once they are closed */
  pump_for(1.0);
  out->held = server_rss_kb();
  snprintf(smaps, sizeof smaps, "uploads-%s-held", name);
  save_smaps(smaps);
  int held = 0;
  for (Conn *c = g_all; c; c = c->next_all)
    if (c->role == ROLE_ATTACK && c->state != CLOSED) {
      held++;
      conn_close(c);
    }
  pump_for(3.0);
  out->settled = server_rss_kb();
  snprintf(smaps, sizeof smaps, "uploads-%s-settled", name);
  save_smaps(smaps);
  out->disk = data_dir_bytes() - disk0;
  tally_str(&g_upload_ends, out->ends, sizeof out->ends);
  note("warm-up upload %s; resident %ld KB before it, %ld KB idle after it",
       out->warmed ? "accepted" : "NOT accepted", out->before, out->idle);
  note("%d of %d uploads answered (%d accepted) in %.1f s; resident %ld KB idle, peak %ld KB, "
       "%ld KB 1 s after the last answer with %d connections still open, settled %ld KB 3 s "
       "after they were closed; the client wrote %.1f MB in all, %.0f KB a connection on average",
       g_uploads_done, uploads, g_uploads_ok, out->took, out->idle, g_peak_kb, out->held, held,
       out->settled, (double)sent / 1e6, conns ? (double)sent / 1024.0 / (double)conns : 0.0);
  out->peak = g_peak_kb;
  counts_note();
  reset_all();
}

static void upload_rows(const UploadPart *r, int uploads) {
  double per = (double)(r->peak - r->idle) / (double)uploads;
  row("how the uploads ended", "-", "-", "%s", r->ends);
  row("peak resident per connection", "<= 64 KB", per <= 64 ? "met" : "MISSED",
      "%.0f KB ((%ld - %ld KB idle) / %d)", per, r->peak, r->idle, uploads);
  row("the same, idle read before the warm-up upload", "-", "-", "%.0f KB ((%ld - %ld KB) / %d)",
      (double)(r->peak - r->before) / (double)uploads, r->peak, r->before, uploads);
  row("peak resident above idle", "-", "-", "%.1f MB", (double)(r->peak - r->idle) / 1024);
  row("resident above idle, connections open and idle after", "-", "-", "%.1f MB",
      (double)(r->held - r->idle) / 1024);
  row("settled resident above idle (3 s after closing)", "-", "-", "%.1f MB",
      (double)(r->settled - r->idle) / 1024);
}

/* Registers and logs in the accounts, each from its own address, and makes the document; returns
 * how many accounts are ready (their addresses in srcs, tokens in g_tokens). */
static int uploads_setup(uint32_t *srcs, int *uploads) {
  int accounts = g_quick ? 4 : 20, got = 0;
  *uploads = g_quick ? 12 : 60;
  g_doc_len = 5u << 20;
  for (int i = 0; i < accounts; i++) {
    char phone[32];
    snprintf(phone, sizeof phone, "+86135000001%02d", i);
    char *t = register_and_login(ADDR_ACCOUNT(i), phone, "password-123");
    if (t) {
      srcs[got] = ADDR_ACCOUNT(i);
      g_tokens[got++] = t;
    }
  }
  if (got < accounts) note("only %d of %d accounts could register and log in", got, accounts);
  if (got == 0) return 0;
  /* one more account, from an address of its own, for the warm-up upload (a player may have only
   * 3 verifications pending) */
  g_warm_index = -1;
  char *warm = register_and_login(ADDR_ACCOUNT(accounts), "+8613500000199", "password-123");
  if (warm) {
    g_warm_index = got;
    g_warm_src = ADDR_ACCOUNT(accounts);
    g_tokens[got] = warm;
  } else {
    note("the warm-up account could not register and log in: no warm-up upload");
  }
  /* the document: "%PDF-" then incompressible bytes, shared by every upload */
  g_doc = malloc(g_doc_len);
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (size_t i = 0; i < g_doc_len; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    g_doc[i] = (uint8_t)x;
  }
  memcpy(g_doc, "%PDF-1.7\n", 9);
  note("%d connections, %d per account over %d accounts, each account from its own address (%s "
       "to %s), each sending one %zu-byte PDF",
       *uploads, *uploads / got, got, addr_str(srcs[0]), addr_str(srcs[got - 1]), g_doc_len);
  return got;
}

static void uploads_teardown(int got) {
  free(g_doc);
  g_doc = NULL;
  for (int i = 0; i < got; i++) free(g_tokens[i]);
  if (g_warm_index >= 0) free(g_tokens[g_warm_index]);
  g_warm_index = -1;
}

static void scenario_uploads(void) {
  uint32_t srcs[64];
  int uploads, got = uploads_setup(srcs, &uploads);
  if (!got) return;
  size_t pieces = (g_doc_len + UPLOAD_PIECE_BYTES - 1) / UPLOAD_PIECE_BYTES;
  note("each connection sends %zu UploadDocumentPiece calls of at most %d bytes, one in flight, "
       "then SubmitVerification with the upload id",
       pieces, UPLOAD_PIECE_BYTES);
  g_piece_cap = (size_t)(uploads + 1) * (pieces + 1); /* and the warm-up upload */
  g_piece_lat = malloc(sizeof(double) * g_piece_cap);
  g_piece_n = 0;
  g_pieces_sent = g_pieces_ok = 0;
  g_pieces_in_flight = 0;
  if (g_pieces_in_flight_max)
    note("at most %d pieces in flight over all connections (--pieces-in-flight)",
         g_pieces_in_flight_max);
  UploadPart r;
  upload_part(&r, "pieces", uploads, got, srcs, piece_open, piece_env);
  int accepted = g_uploads_ok;
  upload_rows(&r, uploads);
  row("data folder growth", "-", "-", "%.0f MB (%.0f MB uploaded and accepted)",
      (double)r.disk / 1e6, (double)accepted * (double)g_doc_len / 1e6);
  row("time taken", "-", "-", "%.1f s (%.0f MB/s accepted)", r.took,
      (double)accepted * (double)g_doc_len / 1e6 / r.took);
  note("%ld pieces sent, %ld answered OK; round trip of a piece p50 %.1f ms, p99 %.1f ms, max "
       "%.1f ms",
       g_pieces_sent, g_pieces_ok, 1000 * pct(g_piece_lat, g_piece_n, 0.5),
       1000 * pct(g_piece_lat, g_piece_n, 0.99), 1000 * pct(g_piece_lat, g_piece_n, 1.0));
  free(g_piece_lat);
  g_piece_lat = NULL;
  uploads_teardown(got);
}

static void scenario_upload_frames(void) {
  uint32_t srcs[64];
  int uploads, got = uploads_setup(srcs, &uploads);
  if (!got) return;
  note("each connection calls Health/CheckSession, then sends the document whole in one "
       "SubmitVerification frame");
  UploadPart r;
  upload_part(&r, "frames", uploads, got, srcs, whole_open, whole_env);
  upload_rows(&r, uploads);
  row("data folder growth", "-", "-", "%.1f MB", (double)r.disk / 1e6);
  uploads_teardown(got);
}

/* ---------------------------------------------------------------- H. Health/Check rate */

/* Not an attack: what the server answers per second with 4 connections each keeping 64
 * Health/Check calls in flight (each answer sends the next call), over 5 s after 1 s of warm-up,
 * so that a change to how the server reads has a throughput figure beside it. This one-thread
 * client may be the bottleneck: compare runs of the same client only. */
#define RATE_CONNECTIONS 4
#define RATE_IN_FLIGHT 64
static long g_rate_answers;

static void rate_send(Conn *c) {
  size_t n;
  uint8_t *f = frame_health(++c->next_call, &n);
  conn_send(c, f, n, 1);
}

static void rate_open(Conn *c) {
  for (int i = 0; i < RATE_IN_FLIGHT; i++) rate_send(c);
}

static void rate_env(Conn *c, Envelope *e) {
  if (e->kind != KIND_RESPONSE) return;
  g_rate_answers++;
  rate_send(c);
}

static void scenario_health_rate(void) {
  on_open = rate_open;
  on_env = rate_env;
  for (int i = 0; i < RATE_CONNECTIONS; i++) conn_new_from(ROLE_ATTACK, ADDR_ATTACK);
  pump_for(1.0);
  long before = g_rate_answers;
  double t0 = now();
  double cpu0 = server_cpu_s();
  pump_for(g_quick ? 2.0 : 5.0);
  double took = now() - t0;
  double cpu = server_cpu_s() - cpu0;
  row("Health/Check answers per second (4 connections x 64 in flight)", "-", "-",
      "%.0f (server CPU %.0f%% of one core)", (double)(g_rate_answers - before) / took,
      100 * cpu / took);
  counts_note();
  reset_all();
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv) {
  const char *scenario = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--port") && i + 1 < argc) g_port = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--pid") && i + 1 < argc) g_pid = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--data-dir") && i + 1 < argc) g_data_dir = argv[++i];
    else if (!strcmp(argv[i], "--smaps") && i + 1 < argc) g_smaps_dir = argv[++i];
    else if (!strcmp(argv[i], "--pieces-in-flight") && i + 1 < argc)
      g_pieces_in_flight_max = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--quick")) g_quick = 1;
    else if (argv[i][0] != '-') scenario = argv[i];
    else die("unknown option %s", argv[i]);
  }
  if (!scenario || !g_port || !g_pid)
    die("usage: attack --port PORT --pid SERVER_PID [--data-dir DIR] [--smaps DIR] "
        "[--pieces-in-flight N] [--quick] "
        "bomb|partial|validation|churn|descriptors|login-flood|upload-pieces|upload-frames|"
        "health-rate");
  /* raise the soft descriptor limit to the hard one */
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
    rl.rlim_cur = rl.rlim_max;
    setrlimit(RLIMIT_NOFILE, &rl);
  }
  g_ep = epoll_create1(EPOLL_CLOEXEC);
  g_ping = frame_ping(&g_ping_len);
  struct {
    const char *name, *letter;
    void (*run)(void);
  } all[] = {
      {"bomb", "A. zstd bomb", scenario_bomb},
      {"partial", "B. partial frames", scenario_partial},
      {"validation", "C. expensive validation", scenario_validation},
      {"churn", "D. connection churn", scenario_churn},
      {"descriptors", "E. descriptor exhaustion", scenario_descriptors},
      {"login-flood", "F. login flood", scenario_login_flood},
      {"upload-pieces", "G. uploads in pieces", scenario_uploads},
      {"upload-frames", "G. 5 MiB frames", scenario_upload_frames},
      {"health-rate", "H. Health/Check rate", scenario_health_rate},
  };
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    if (!strcmp(all[i].name, scenario)) {
      g_scenario = all[i].letter;
      all[i].run();
      struct rusage ru;
      getrusage(RUSAGE_SELF, &ru);
      note("this client used %.2f s of CPU (user %.2f, system %.2f) and %ld MB at most",
           (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
               (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6,
           (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss / 1024);
      if (!server_alive()) note("the server process is gone");
      return 0;
    }
  die("unknown scenario %s", scenario);
}
