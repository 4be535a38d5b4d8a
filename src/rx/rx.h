/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * replay-rx: the receiver that proves a replay.  A live capture (capture.c:
 * a TPACKET_V3 ring; fanout.c: several, one thread each; filter.c: the
 * kernel filter) or a file (offline.c, -r) feeds every frame to the sink
 * (sink.c: identity, a 24-byte record, pcapout.c's -w).  Afterwards the
 * records are matched (match.c) against the reference (ref.c) or the send
 * log, grouped into flows (flow.c), analysed (analyse.c, series.c) and
 * reported (report.c; plot.h: plot.c over svg.c; impair_rec.c's
 * impairment trace); engine.c orders it all, main.c is the program.
 * Capture keeps per frame only (timestamp, identity, length), so the
 * capture loop does no more than hash a few dozen bytes and append 24
 * bytes per frame.
 */
#ifndef REPLAY_RX_H
#define REPLAY_RX_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "replay/impair.h"
#include "replay/optparse.h"
#include "replay/sendlog.h"

/* Exit statuses, documented in replay-rx(1). */
enum {
	RX_EXIT_OK = 0,       /* finished; with --reference, every packet arrived once, in order */
	RX_EXIT_FAIL = 1,     /* a runtime or input error */
	RX_EXIT_USAGE = 2,    /* bad options */
	RX_EXIT_MISMATCH = 3, /* loss, duplicates, reordering, foreign frames or kernel drops */
};

/* ---- times ---- */

/*
 * RX_TIME_MAX_NS - the latest time the analysis and the plots work with,
 * 2^62 - 1 ns (the year 2116).  A later timestamp (a crafted capture or send
 * log, a clock gone wrong) counts as this, so that the difference of two
 * times, and the difference of two such differences, always fits in an
 * int64_t: no overflow whatever the input.
 */
#define RX_TIME_MAX_NS ((INT64_C(1) << 62) - 1)

/* rx_time() - @ns as a signed time, at most RX_TIME_MAX_NS. */
static inline int64_t rx_time(uint64_t ns)
{
	return ns < (uint64_t)RX_TIME_MAX_NS ? (int64_t)ns : RX_TIME_MAX_NS;
}

/* rx_tdiff() - @a minus @b, ns, each through rx_time(): within +-RX_TIME_MAX_NS. */
static inline int64_t rx_tdiff(uint64_t a, uint64_t b)
{
	return rx_time(a) - rx_time(b);
}

/* ---- opts.c ---- */

struct rx_opts {
	/* capture */
	const char *intf;      /* -i: capture on this interface */
	const char *read_path; /* -r: analyse this capture file instead */
	const char *filter;    /* --filter: libpcap expression, or NULL for every frame */
	uint64_t snaplen;      /* -s: bytes kept of each frame */
	uint64_t block_bytes;  /* --block-size: ring block, bytes; 0 = default */
	uint64_t blocks;       /* --blocks: ring blocks; 0 = default */
	uint64_t ring_kib;     /* -B/--buffer-size: the ring, KiB, laid out by rx_ring_layout(); 0 = default */
	uint64_t block_ms;     /* --block-timeout: a partly filled block is handed over after, ms */
	bool hw_ts;            /* --hw-timestamps */
	bool sequence;         /* --sequence: match by gentrace's sequence number, without a reference */
	bool no_ref_filter;    /* --no-ref-filter: no kernel filter made from the reference */
	uint64_t fanout;       /* --fanout: rings, one thread each (PACKET_FANOUT); 0 = one ring, no fanout */

	/* stopping */
	uint64_t count;   /* -c: stop after this many frames; 0 = no limit */
	double timeout_s; /* --timeout: stop after this long; 0 = never */
	double idle_s;    /* --idle: stop this long after the last frame; 0 = never */

	/* matching */
	const char *reference; /* --reference: the trace that was sent */
	const char *send_log;  /* --send-log: replay's per-packet send times */

	/* output */
	const char *write_path; /* -w: write the frames received to a pcap */
	const char *json;       /* --json: file, or "-" for stdout */
	const char *plot_dir;   /* --plot: directory for the SVG figures */
	const char *write_impairment; /* --write-impairment: the impairment trace that reproduces the path */
	bool per_flow;          /* --per-flow: results per flow */
	uint64_t worst;         /* --worst: flows in the table (RX_WORST_DEFAULT unless given) */
	bool quiet;             /* -q: no report on the terminal, no warnings */
	int verbose;            /* -v */

	bool help;
	bool version;

	struct opt_given given; /* what was given, for the rules (replay/optparse.h) */
};

#define RX_WORST_DEFAULT 10u        /* --worst */
#define RX_SNAPLEN_MIN 16u     /* an Ethernet header and a little more */
#define RX_SNAPLEN_MAX 262144u /* libpcap's largest */

/* rx_opts_parse() - as opts_parse(), for replay-rx; also checks the options as a whole. */
int rx_opts_parse(struct rx_opts *o, int argc, char **argv, char *err, size_t errlen);

/* rx_opts_usage() - print replay-rx's --help to @f. */
void rx_opts_usage(FILE *f);

/* What the shared library substitutes in a receiver's run; NULL members (or no hooks) mean the program's. */
struct rx_hooks {
	FILE *report;          /* the report table goes here (even with -q), instead of stdout */
	FILE *json;            /* the JSON report too (as --json writes it) */
	bool keep_caps;        /* leave the process's capabilities alone */
	/*
	 * The program's stdout and stderr for its own lines (the "listening
	 * on" line, the report table as -q chooses, --json -'s report), or
	 * NULL: with hooks, none of those lines (the report and json members
	 * above still get theirs).
	 */
	FILE *out, *err;
	/* The capture (or -r's file) is open and about to read (after the "listening on" line). */
	void (*ready)(void *ctx);
	void *ctx;
	/*
	 * During a live capture, every progress_ns (0: never), on the thread
	 * that runs rx_engine_run(): the frames and bytes so far (rx_stop's
	 * progress); then, with @done, once when the capture has ended with
	 * the counts the report gives (also after -r).
	 */
	uint64_t progress_ns;
	void (*progress)(void *ctx, uint64_t frames, uint64_t bytes, uint64_t elapsed_ns, bool done);
};

/*
 * rx_engine_run() - replay-rx's run of @o (src/rx/engine.c): check every
 * input and output, capture (or read -r) until *@stop is set (a signal, or
 * the library's stop; seen within 100 ms), -c, --timeout or --idle, then
 * analyse, report and write.  Errors are logged.  Returns the exit status
 * (RX_EXIT_*, or 128 + *@stop when stopped during set-up).
 */
int rx_engine_run(const struct rx_opts *o, volatile sig_atomic_t *stop, const struct rx_hooks *hooks);

/* rx_opts_set() - the option set: for the documentation test and the completion generator (replay/optparse.h). */
const struct opt_set *rx_opts_set(void);

/* ---- sink.c: where every frame goes ---- */

/* One received frame, as kept for the analysis. */
struct rx_rec {
	uint64_t ts_ns; /* receive time, ns since the epoch (CLOCK_REALTIME, or the NIC's clock) */
	uint64_t id;    /* pkt_id() of the frame, VLAN tag re-inserted */
	uint32_t len;   /* frame length on the wire, bytes, without FCS */
	uint32_t flags; /* RX_REC_* */
};

enum {
	RX_REC_HW_TS = 1u << 0, /* the timestamp came from the NIC */
	RX_REC_VLAN = 1u << 1,  /* the kernel had moved a VLAN tag to metadata; re-inserted */
	RX_REC_SEQ = 1u << 2,   /* --sequence: id is the frame's sequence number, not its identity */
};

#define RX_CHUNK_SHIFT 16 /* records are kept in chunks of 65536 (1.5 MiB): growth never copies */
#define RX_CHUNK_RECS (1u << RX_CHUNK_SHIFT)

struct rx_recs {
	struct rx_rec **chunk; /* chunk[i] holds records i << RX_CHUNK_SHIFT onwards */
	size_t nchunks;        /* chunks allocated */
	size_t cap_chunks;     /* room in the chunk pointer array */
	size_t n;              /* records in use */
};

/*
 * rx_mem_cap() - the most memory, bytes, replay-rx gives each of the records,
 * the reference and the send log: an eighth of physical memory (at least
 * 64 MiB), so that all three and the analysis over them fit.  Beyond it a
 * clear error, not the kernel's OOM killer.
 */
size_t rx_mem_cap(void);

/* RX_RESERVE_MAX - records faulted in before a live capture, at most (96 MiB); more grow on the way. */
#define RX_RESERVE_MAX ((size_t)64 << RX_CHUNK_SHIFT)

struct rx_pcapout;

struct rx_sink {
	struct rx_recs recs;
	size_t max_recs;          /* records kept, at most; 0 = rx_mem_cap()'s worth, in whole chunks */
	uint32_t id_bytes;        /* identity length, bytes (pkt_id) */
	uint64_t count_max;       /* stop after this many frames; 0 = no limit */
	bool seq;                 /* --sequence: keep the sequence number (rx_seq_of()) as the id */
	uint64_t bytes;           /* sum of len */
	struct rx_pcapout *out;   /* -w, or NULL */
	int err;                  /* first error (-ENOMEM, write error); the capture stops */
};

/* rx_recs_at() - record @i (< n). */
static inline struct rx_rec *rx_recs_at(const struct rx_recs *r, size_t i)
{
	return &r->chunk[i >> RX_CHUNK_SHIFT][i & (RX_CHUNK_RECS - 1)];
}

/* rx_recs_reserve() - allocate (and fault in) room for @n records before capturing; 0 or -ENOMEM. */
int rx_recs_reserve(struct rx_recs *r, size_t n);

/* rx_recs_free() - release; leaves @r empty. */
void rx_recs_free(struct rx_recs *r);

/*
 * rx_sink_take() - one frame: @caplen bytes at @data of a frame @len bytes
 * long on the wire, received at @ts_ns, with RX_REC_* @flags.  Records it
 * and writes it to -w.  Returns 1 when --count is reached (stop now), 0 to
 * go on, or -errno (-ENOMEM, -E2BIG past max_recs, a write error: kept in
 * sink->err).
 */
int rx_sink_take(struct rx_sink *s, const uint8_t *data, uint32_t caplen, uint32_t len,
		 uint64_t ts_ns, uint32_t flags);

/* rx_sink_strerror() - sink error @rc (from rx_sink_take()) as words, in @buf; returns @buf. */
const char *rx_sink_strerror(const struct rx_sink *s, int rc, char *buf, size_t len);

/* ---- pcapout.c: -w ---- */

/* rx_pcapout_open() - a nanosecond Ethernet pcap at @path ("-" = stdout); 0 or -errno with @err. */
int rx_pcapout_open(struct rx_pcapout **op, const char *path, char *err, size_t errlen);

/* rx_pcapout_write() - one frame; 0 or -errno. */
int rx_pcapout_write(struct rx_pcapout *o, const uint8_t *data, uint32_t caplen, uint32_t len,
		     uint64_t ts_ns);

/* rx_pcapout_close() - flush and close; 0, or -errno with @err if anything failed to be written.  Accepts NULL. */
int rx_pcapout_close(struct rx_pcapout *o, char *err, size_t errlen);

/* ---- filter.c ---- */

struct sock_fprog;

struct rx_filter {
	void *prog;     /* struct bpf_program (libpcap), or NULL: every frame */
	bool live;      /* compiled for the interface (VLAN tags in metadata), not a file */
};

/*
 * rx_filter_compile() - compile libpcap expression @expr (NULL: none) for
 * frames captured at @snaplen bytes, either as tcpdump would for interface
 * @ifname (the kernel's view: an outer VLAN tag is metadata) or, with
 * @ifname NULL, for reading a file.  0, or with the reason in @err -EINVAL
 * (the expression does not compile), -ENODEV or -ENOMEM.
 */
int rx_filter_compile(struct rx_filter *f, const char *expr, const char *ifname, uint32_t snaplen,
		      char *err, size_t errlen);

/*
 * rx_filter_kernel() - the program to attach with SO_ATTACH_FILTER: the
 * compiled one, or (no expression) one that accepts every frame; either
 * returns @snaplen, so the kernel copies no more than that.  Points into @f
 * or @scratch; valid while both are.
 */
void rx_filter_kernel(const struct rx_filter *f, uint32_t snaplen, struct sock_fprog *out,
		      void *scratch /* one struct sock_filter */);

/* rx_filter_fits() - can the kernel take the program (at most BPF_MAXINSNS instructions)? */
bool rx_filter_fits(const struct rx_filter *f);

/* rx_filter_match() - offline: does the frame pass?  Always true without an expression. */
bool rx_filter_match(const struct rx_filter *f, const uint8_t *data, uint32_t caplen, uint32_t len);

/* rx_filter_free() - release; accepts a zeroed struct. */
void rx_filter_free(struct rx_filter *f);

/* ---- capture.c ---- */

struct rx_capture_cfg {
	const char *ifname;
	uint32_t snaplen;        /* bytes per frame, as the filter returns */
	uint32_t block_bytes;    /* ring block size, bytes: a power of two >= the page size */
	uint32_t blocks;         /* ring blocks */
	uint32_t block_ms;       /* hand a partly filled block over after this long, ms */
	bool hw_ts;              /* ask the NIC for receive timestamps */
	bool hw_ts_socket_only;  /* with hw_ts: the NIC is set up already (another ring): the socket only */
	const struct rx_filter *filter;
	int32_t fanout;          /* RX_FANOUT_NONE, RX_FANOUT_NEW, or the id of the group to join */
};

#define RX_FANOUT_NONE (-1) /* a ring of its own */
#define RX_FANOUT_NEW (-2)  /* found a new PACKET_FANOUT group (hash mode); rx_capture_fanout_id() says which */

#define RX_BLOCK_BYTES_DEFAULT (1u << 20) /* 1 MiB: ~4500 frames at snap length 128 */
#define RX_BLOCKS_DEFAULT 64u             /* 64 MiB in all: ~290000 frames in flight */
#define RX_RING_MIN_BLOCKS 8u             /* a ring is cut into at least this many blocks when it can be */
#define RX_BLOCKS_MAX 65536u              /* --blocks's bound */

/*
 * rx_ring_layout() - the ring's blocks: *@block_out bytes each, *@blocks_out
 * of them.  --block-size (@block_bytes) and --blocks (@blocks), when given,
 * are taken as they are (the other one then its default).  Otherwise the
 * ring of @ring_bytes (0: 64 MiB) is cut into blocks of a power of two of
 * at most 1 MiB and at least a page (@page) and a frame (@snaplen + 128,
 * rounded up to a power of two), into RX_RING_MIN_BLOCKS or more where the
 * ring is large enough: 1 MiB blocks from 8 MiB up (a block is the unit the
 * kernel hands over, so a ring of few blocks is full as soon as the reader
 * holds one and the next is being filled: the loss tcpdump's libpcap avoids
 * by its own layout of small blocks).  The ring is rounded down to whole
 * blocks, at least one, at most RX_BLOCKS_MAX.  Pure: no system call.
 */
void rx_ring_layout(uint64_t ring_bytes, uint32_t block_bytes, uint32_t blocks, uint32_t snaplen,
		    uint32_t page, uint32_t *block_out, uint32_t *blocks_out);
/*
 * A block partly filled is handed over after this long.  The ring holds at
 * least blocks x this much time of traffic however slow it comes (6.4 s by
 * default), since a block retired early is a block used up; a stop waits up
 * to this long for the last frames.
 */
#define RX_BLOCK_MS_DEFAULT 100u

/* What the kernel counted (PACKET_STATISTICS, accumulated: reading resets it). */
struct rx_kstats {
	uint64_t packets;  /* frames that passed the filter */
	uint64_t drops;    /* of those, dropped because the ring was full */
	uint64_t freeze_q; /* times the ring was full (a block queue freeze) */
};

/* When to stop, besides a signal and --count. */
struct rx_stop {
	uint64_t timeout_ns; /* after this long; 0 = never */
	uint64_t idle_ns;    /* this long after the last frame; 0 = never */
	/*
	 * Besides: every progress_ns (0 = never) of the capture, on the thread
	 * running it, @progress with the frames and bytes captured so far
	 * (the records of blocks handed over: a frame is counted once its
	 * block is), never per frame.
	 */
	uint64_t progress_ns;
	void (*progress)(void *ctx, uint64_t frames, uint64_t bytes, uint64_t elapsed_ns);
	void *ctx;
};

struct rx_capture;

/*
 * rx_capture_open() - socket, filter, ring, timestamps, then bind: no frame
 * is queued before the filter is in place.  0, or -errno with the reason
 * (naming the interface) in @err; *@cp is NULL on failure.
 */
int rx_capture_open(struct rx_capture **cp, const struct rx_capture_cfg *cfg, char *err,
		    size_t errlen);

/*
 * rx_capture_run() - hand every frame to @sink until *@sig is set, --count
 * is reached or a condition in @stop holds; after a signal or a timeout, the
 * frames that had already arrived are still taken.  0, or -errno with @err.
 */
int rx_capture_run(struct rx_capture *c, struct rx_sink *sink, const struct rx_stop *stop,
		   volatile sig_atomic_t *sig, char *err, size_t errlen);

/* rx_capture_last_frame() - CLOCK_MONOTONIC ns the last frames were seen at, 0 none; any thread may ask. */
uint64_t rx_capture_last_frame(const struct rx_capture *c);

/*
 * rx_capture_counts() - the records and bytes the ring's sink held after the
 * last block read (published once a block, not per frame); any thread may ask.
 */
void rx_capture_counts(const struct rx_capture *c, uint64_t *frames, uint64_t *bytes);

/* rx_capture_fanout_id() - the PACKET_FANOUT group the ring is in, or RX_FANOUT_NONE. */
int32_t rx_capture_fanout_id(const struct rx_capture *c);

/* rx_capture_stats() - the kernel's counters since open. */
struct rx_kstats rx_capture_stats(struct rx_capture *c);

/* rx_capture_close() - release, and restore the interface's timestamping; accepts NULL. */
void rx_capture_close(struct rx_capture *c);

/* ---- fanout.c: --fanout, one ring per thread ---- */

#define RX_FANOUT_MAX 1024u /* --fanout, at most (and never more than the CPUs online) */

struct rx_fanout;

/*
 * rx_fanout_open() - @n rings on @cfg's interface in one PACKET_FANOUT group
 * (hash mode: a flow's frames all go to one ring).  With hardware
 * timestamps, the first ring sets the NIC up (and restores it); every ring
 * takes the NIC's stamps, so the merge compares times of one clock.  @expect: records expected in all, room for which
 * is shared out among the rings before capturing (as rx_recs_reserve()).
 * 0, or -errno with @err; *@fp is NULL on failure.
 */
int rx_fanout_open(struct rx_fanout **fp, const struct rx_capture_cfg *cfg, uint32_t n,
		   size_t expect, char *err, size_t errlen);

/*
 * rx_fanout_run() - one thread per ring, each into a sink of its own set up
 * as @sink (identity length, --sequence; --count and -w are not for
 * fanout), until *@sig is set, a condition in @stop holds (the last frame
 * of any ring counts for --idle) or a ring fails; then the rings' records,
 * merged in timestamp order (rx_recs_merge()), into @sink.  0, or -errno
 * with @err.
 */
int rx_fanout_run(struct rx_fanout *f, struct rx_sink *sink, const struct rx_stop *stop,
		  volatile sig_atomic_t *sig, char *err, size_t errlen);

/* rx_fanout_rings() - how many rings. */
uint32_t rx_fanout_rings(const struct rx_fanout *f);

/*
 * rx_fanout_stats() - the kernel's counters summed over the rings; with
 * @ring non-NULL, also each ring's (rx_fanout_rings() of them), and with
 * @frames, the frames each ring gave the analysis.
 */
struct rx_kstats rx_fanout_stats(struct rx_fanout *f, struct rx_kstats *ring, uint64_t *frames);

/* rx_fanout_close() - release every ring; accepts NULL. */
void rx_fanout_close(struct rx_fanout *f);

/*
 * rx_recs_merge() - append the records of @in[0..n) to @out in timestamp
 * order, each input being in timestamp order already (a ring's are); equal
 * times keep the order of the inputs.  Each input's chunks are freed as
 * they are used up, and the inputs are left empty, whatever the outcome.
 * At most @max records in @out (0: no limit).  0, -ENOMEM or -E2BIG.
 */
int rx_recs_merge(struct rx_recs *out, struct rx_recs *in, uint32_t n, size_t max);

/* ---- offline.c ---- */

/*
 * rx_offline_run() - every frame of capture file @path that @filter passes,
 * to @sink, with the file's timestamps; VLAN tags are in the frames already.
 * @ready(@ctx), if not NULL, once the file is open and before its first
 * record is read, as a capture's.  0, or -errno with @err.
 */
int rx_offline_run(const char *path, const struct rx_filter *filter, struct rx_sink *sink,
		   volatile sig_atomic_t *sig, void (*ready)(void *ctx), void *ctx, char *err,
		   size_t errlen);

/* ---- flow.c: flows ---- */

enum rx_flow_kind {
	RX_FLOW_ETH, /* not IP: source and destination MAC, EtherType */
	RX_FLOW_IP4,
	RX_FLOW_IP6,
};

/*
 * A flow: the 5-tuple of an IP packet (ports 0 for a protocol without them
 * or a fragment after the first), or, for anything else, the MAC pair and
 * the EtherType.  Outer VLAN tags (802.1Q, 802.1ad, up to two) are skipped;
 * the outer VLAN ID is part of the key.
 */
struct rx_flow_key {
	uint8_t kind;       /* enum rx_flow_kind */
	uint8_t proto;      /* IP protocol (next header), 0 for RX_FLOW_ETH */
	uint16_t ethertype; /* innermost EtherType (0x0800, 0x86dd for IP); 0: 802.3 (a length field) */
	uint16_t sport, dport;
	uint16_t vlan;      /* outer VLAN ID + 1, or 0 untagged */
	uint8_t ports;      /* sport/dport are meaningful (TCP, UDP, SCTP, first fragment) */
	uint8_t pad;
	uint8_t src[16], dst[16]; /* IPv4: first 4 bytes; MAC: first 6 */
};

/* rx_flow_parse() - the flow of a frame of @caplen bytes at @data (Ethernet). */
void rx_flow_parse(const uint8_t *data, uint32_t caplen, struct rx_flow_key *k);

/* rx_flow_str() - @k in words ("udp 10.0.0.1:53 > 10.0.0.2:1024", "02:..:01 > 02:..:02 0x88b5"); returns @buf. */
const char *rx_flow_str(const struct rx_flow_key *k, char *buf, size_t len);

/*
 * rx_seq_of() - the sequence number of a UDP frame over IPv4 or IPv6 (not
 * a later fragment; IPv6 after up to four extension headers), after up to
 * two VLAN tags: Linux pktgen's 32-bit one when the payload starts with its
 * magic (RX_PKTGEN_MAGIC), else the 64-bit big-endian one that gentrace
 * (and replay's benchmarks) put first in the payload, when the IP ID
 * (IPv4) or the flow label (IPv6) is its low 16 or 20 bits (gentrace's
 * signature: other UDP seldom has it); false when the frame has none within
 * @caplen bytes.
 */
#define RX_PKTGEN_MAGIC 0xbe9be955u
bool rx_seq_of(const uint8_t *data, uint32_t caplen, uint64_t *seq);

/* A set of distinct flows, numbered from 0 in order of insertion. */
struct rx_flowtab {
	size_t n;
	struct rx_flow_key *key; /* n of them */
	size_t cap;              /* room in key */
	uint32_t *slot;          /* open addressing: index + 1, or 0 empty */
	size_t nslots;           /* a power of two, > 2 n */
};

/* rx_flowtab_add() - the number of flow @k, added if new; -ENOMEM. */
int64_t rx_flowtab_add(struct rx_flowtab *t, const struct rx_flow_key *k);

/* rx_flowtab_free() - release; accepts a zeroed struct. */
void rx_flowtab_free(struct rx_flowtab *t);

/* ---- ref.c: the reference ---- */

struct rx_ref {
	const char *name; /* path, for messages and the report */
	size_t n;         /* packets */
	uint64_t *id;     /* pkt_id() of each, same length as the receiver's */
	uint64_t *ts_ns;  /* trace timestamp, ns: the intended times */
	uint64_t *recno;  /* record number in the file, from 1 */
	uint32_t *len;    /* frame length as sent (captured bytes), bytes */
	uint32_t *flow;   /* index into flows.key of each packet's flow */
	struct rx_flowtab flows; /* the distinct flows, in order of first appearance */
};

/*
 * rx_ref_load() - read and identify every packet of @path, in at most
 * @max_bytes of memory (0: rx_mem_cap()).  Other link types are turned into
 * Ethernet frames as replay's reader does.  0 or -errno with @err.
 */
int rx_ref_load(struct rx_ref *r, const char *path, uint32_t id_bytes, size_t max_bytes,
		char *err, size_t errlen);

/* RX_REF_PACKET_BYTES - memory per reference packet (its five arrays; the flow table besides). */
#define RX_REF_PACKET_BYTES (3 * sizeof(uint64_t) + 2 * sizeof(uint32_t))

/* rx_ref_free() - release; accepts a zeroed struct. */
void rx_ref_free(struct rx_ref *r);

/* ---- match.c ---- */

#define RX_NONE SIZE_MAX /* no position: a foreign frame */

struct rx_key {
	uint64_t id;
	size_t pos;
};

/*
 * Identity -> positions in a sequence (the reference, the send log), with
 * which positions are taken.  Identical packets in the sequence (a trace
 * played in a loop, retransmissions) share an identity; each arrival takes
 * one of their positions.
 */
struct rx_index {
	size_t n;
	struct rx_key *keys; /* sorted by (id, pos) */
	uint32_t *taken;     /* per position: frames matched to it */
	size_t *up, *down;   /* next-free forests over the keys (match.c); n + 1 each */
};

/* rx_index_build() - index @n identities; 0 or -ENOMEM. */
int rx_index_build(struct rx_index *ix, const uint64_t *ids, size_t n);

/* What the caller knows of the frames around the one it matches. */
enum {
	RX_TAKE_RESUMES = 1u << 0, /* the next frame is the packet at the expected position */
	RX_TAKE_TWIN = 1u << 1,    /* the frame before had the same identity */
};

/*
 * rx_index_take() - the position of a frame with identity @id arriving when
 * the next expected position is @expect, given @hints (RX_TAKE_*).  The
 * frame takes, in this order of preference: the first free position with its
 * identity at or after @expect (unless that skips ahead of @expect and the
 * next frame RESUMES there), the nearest free one before @expect (it is
 * late), a duplicate of the nearest one before @expect if it comes right
 * after a TWIN, the first free one after.  With none free it is a duplicate
 * (*@dup set) of the nearest position at or before @expect.  RX_NONE if the
 * identity is unknown.
 */
size_t rx_index_take(struct rx_index *ix, uint64_t id, size_t expect, unsigned hints, bool *dup);

/* rx_index_free() - release; accepts a zeroed struct. */
void rx_index_free(struct rx_index *ix);

/* ---- analyse.c ---- */

/* What a received frame was, against the reference. */
enum rx_kind {
	RX_K_IN_ORDER,  /* first copy of its packet, after every packet before it */
	RX_K_REORDERED, /* first copy, but a later packet came first (RFC 4737) */
	RX_K_DUP,       /* another copy of a packet already received */
	RX_K_FOREIGN,   /* not in the reference */
	RX_K_MAX
};

/* Exact order statistics of a set of signed values (ns). */
struct rx_dist {
	uint64_t count;
	int64_t min, max;
	int64_t p50, p90, p99, p999; /* nearest rank: the smallest value with >= q of them at or below */
	double mean;
	double variance; /* population variance, ns^2: mean squared deviation from the mean (divides by count) */
	double stddev;   /* its square root, ns */
};

/* rx_dist_of() - sorts @v (n values) in place and fills @d. */
void rx_dist_of(struct rx_dist *d, int64_t *v, size_t n);

/* The results of one flow (--per-flow), against the reference. */
struct rx_flow_result {
	uint32_t flow;        /* index into the reference's flows */
	uint64_t packets;     /* reference packets of the flow */
	uint64_t bytes;       /* their lengths */
	uint64_t received;    /* frames that matched one of them, copies included */
	uint64_t lost, bytes_lost;
	uint64_t reordered;   /* within the flow (RFC 4737 over the flow's own packets) */
	uint64_t dup;
	struct rx_dist err;     /* inter-arrival error between the flow's consecutive in-order frames, ns */
	struct rx_dist abs_err; /* its magnitude */
	struct rx_dist latency; /* with a send log */
};

#define RX_LIST_MAX 100 /* record numbers listed per kind in the report */

struct rx_result {
	/* capture */
	uint64_t received;     /* frames */
	uint64_t bytes;        /* their lengths, bytes */
	uint64_t first_ns, last_ns;
	uint64_t hw_ts;        /* frames with hardware timestamps */
	uint64_t vlan;         /* frames with a VLAN tag re-inserted */
	struct rx_dist gap;    /* time between consecutive frames, ns */

	/* against the reference (have_ref) */
	bool have_ref;
	size_t ref_packets;
	uint64_t matched;   /* reference packets received at least once */
	uint64_t lost, dup, reordered, foreign;
	uint64_t bytes_expected; /* sum of the reference's frame lengths */
	uint64_t bytes_lost;     /* sum of the lost packets' lengths */
	double loss_ratio;       /* lost / ref_packets (0 for an empty reference) */
	double bytes_loss_ratio; /* bytes_lost / bytes_expected (0 when that is 0) */
	size_t nlist[RX_K_MAX + 1];            /* how many of each listed below (index RX_K_MAX: lost) */
	uint64_t list[RX_K_MAX + 1][RX_LIST_MAX]; /* reference record numbers, first ones */
	struct rx_dist gap_err;     /* actual minus intended gap, consecutive in-order frames, ns */
	struct rx_dist gap_abs_err; /* its magnitude */
	int64_t duration_ns;          /* first to last in-order frame, received */
	int64_t duration_intended_ns; /* the same two packets in the reference */
	double jitter_rfc3550_ns;     /* RFC 3550 6.4.1 interarrival jitter, at the end */

	/* by sequence number (have_seq, rx_analyse_seq()): counts in matched, lost, dup, reordered, foreign */
	bool have_seq;
	uint64_t seq_first, seq_last; /* smallest and largest number received */
	uint64_t seq_expected;        /* seq_last - seq_first + 1, saturated */

	/* against the send log (have_log) */
	bool have_log;
	uint64_t log_matched;     /* frames found in the send log */
	struct rx_dist latency;   /* receive minus send time, ns */
	/* RFC 4689 3.2.5 jitter, |delay(i) - delay(i-1)|, ns: from the send log, else the reference */
	struct rx_dist jitter_rfc4689;
	const char *jitter_rfc4689_basis; /* "send-log", "reference" or NULL */

	/* --per-flow (rx_flows_analyse()): worst first; NULL without */
	struct rx_flow_result *flows;
	size_t nflows;
	const struct rx_flow_key *flow_keys; /* the reference's: valid while it is */

	/* per frame, for the plots (NULL without a reference) */
	size_t *pos;        /* reference position of frame k, or RX_NONE */
	uint8_t *kind;      /* enum rx_kind of frame k */
	int64_t *send_ns;   /* send time of frame k (realtime), or -1; NULL without a log */
};

/*
 * rx_analyse() - everything the report says, from the records @recs, the
 * reference @ref (may be NULL) and the send log @log (may be NULL).  0 or
 * -ENOMEM.
 */
int rx_analyse(struct rx_result *res, const struct rx_recs *recs, const struct rx_ref *ref,
	       const struct sendlog_data *log);

/*
 * rx_analyse_seq() - after rx_analyse() without a reference, of records
 * whose ids are sequence numbers (RX_REC_SEQ; a record without is
 * foreign): every number from the smallest to the largest received is
 * expected once, in order.  A number received again is a duplicate; one
 * below the next expected (RFC 4737), reordered; one never received in the
 * range, lost (the lists hold numbers, not record numbers).  0 or -ENOMEM.
 */
int rx_analyse_seq(struct rx_result *res, const struct rx_recs *recs);

/* rx_result_free() - release the per-frame arrays; accepts a zeroed struct. */
void rx_result_free(struct rx_result *res);

/* rx_exact() - true when the run proves the replay: nothing lost, doubled, reordered, foreign, dropped. */
bool rx_exact(const struct rx_result *res, const struct rx_kstats *k);

/* ---- impair_rec.c: --write-impairment ---- */

struct rx_impair_count {
	uint64_t actions, dropped, delayed, duplicated;
	uint64_t raised;     /* delays raised to keep the arrival order */
	uint64_t copies_cut; /* copies beyond IMPAIR_MAX_DUP per packet, left out */
	int64_t min_owd_ns;  /* the smallest one-way delay, subtracted from all */
};

/*
 * rx_impair_write() - the impairment trace that reproduces @res (matched
 * against @ref, with send times if a send log was given): one action per
 * reference packet, in form @fmt, to @f (src/rx/impair_rec.c says how).
 * 0 or -errno with a one-line reason in @err; counts in @cnt.
 */
int rx_impair_write(FILE *f, enum impair_fmt fmt, const struct rx_result *res,
		    const struct rx_recs *recs, const struct rx_ref *ref, struct rx_impair_count *cnt,
		    char *err, size_t errlen);

/* ---- flow.c: per flow, and the filter from the reference ---- */

/*
 * rx_flows_analyse() - per-flow results for every flow of @ref, from the
 * frames' positions and kinds in @res (rx_analyse() with a reference) and
 * their send times if any, into res->flows (ref->flows.n of them, sorted
 * worst first: most lost, then largest p99 of |error|, then most
 * reordered and duplicated, then flow number),
 * with res->flow_keys pointing at @ref's keys.  0 or -ENOMEM.
 */
int rx_flows_analyse(struct rx_result *res, const struct rx_recs *recs, const struct rx_ref *ref);

/*
 * rx_filter_for_ref() - a libpcap expression accepting the frames of
 * @ref's flows: one term per flow when there are at most
 * RX_AUTOFILTER_FLOWS, else one per pair of addresses and protocol (ports
 * left out) when there are at most that many, else NULL (too many: no
 * filter of our own).  NULL too when a frame is VLAN-tagged (the kernel
 * holds the tag as metadata: not expressed exactly).  802.3 frames are
 * matched by their MAC pair and a type field below 0x600.  The string is malloc()ed; *@why says which case.
 */
#define RX_AUTOFILTER_FLOWS 64
char *rx_filter_for_ref(const struct rx_ref *ref, const char **why);

/* ---- report.c ---- */

/* Where the frames came from, for the report. */
struct rx_source {
	const char *intf;      /* interface, or NULL */
	const char *file;      /* -r file, or NULL */
	const char *filter;    /* the expression in the kernel (or for -r), or NULL */
	const char *filter_user; /* --filter, or NULL */
	const char *filter_ref;  /* the part made from the reference, or NULL */
	const char *filter_ref_why; /* what it was made from, or why there is none; NULL: not tried */
	const char *reference; /* --reference, or NULL */
	const char *send_log;  /* --send-log, or NULL */
	uint32_t snaplen, id_bytes;
	bool kstats_valid;     /* live capture: the kernel's counters mean something */
	struct rx_kstats k;
	uint32_t rings;                /* --fanout: rings (0: one, not fanout) */
	const struct rx_kstats *ring_k; /* --fanout: the kernel's counters of each ring */
	const uint64_t *ring_frames;    /* --fanout: frames each ring gave the analysis */
	int64_t softnet_drops; /* per-CPU backlog drops during the run, whole host; -1 unknown */
	size_t worst;          /* --per-flow: flows shown in the table (all are in the JSON) */
};

/* rx_report_print() - the human report to @f. */
void rx_report_print(const struct rx_result *res, const struct rx_source *src, FILE *f);

/* rx_report_json() - one JSON object and a newline to @f; 0 or -errno. */
int rx_report_json(const struct rx_result *res, const struct rx_source *src, FILE *f);

/* ---- series.c ---- */

/* One packet of the send series (--plot with --send-log), times in ns. */
struct rx_send_point {
	size_t pos;             /* position in the reference */
	uint64_t recno;         /* its record number there */
	int64_t due_ns;         /* intended time, since the first in-order frame's */
	int64_t send_err_ns;    /* send time since the first's, minus due_ns */
	int64_t arrival_err_ns; /* arrival time since the first's, minus due_ns */
	int64_t latency_ns;     /* arrival minus send */
};

/*
 * rx_send_series() - the frames of @ref that arrived (in order or
 * reordered) and are in the send log, in the reference's order, times
 * relative to the first in-order frame the send log holds.  *@out (malloc,
 * the caller frees) is NULL and *@n 0 without a send log or such a frame.
 * 0 or -ENOMEM.
 */
int rx_send_series(struct rx_send_point **out, size_t *n, const struct rx_result *res,
		   const struct rx_recs *recs, const struct rx_ref *ref);

/* rx_send_series_tsv() - the series as tab-separated text with a header; 0 or -errno. */
int rx_send_series_tsv(FILE *f, const struct rx_result *res, const struct rx_recs *recs,
		       const struct rx_ref *ref);

#endif
