/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The edit chain: what happens to a packet between the reader and the
 * scheduler.  An ordered array of edits (one ops table per file in
 * src/edit/), built once from the options: selection (--include/--exclude,
 * --filter), tcprewrite-compatible rewrites (MACs, addresses, ports, VLAN,
 * TTL, TOS, lengths), NetVCR's zero-filled payloads, checksum repair, and
 * last the output's link layer (--dlt raw, user, hdlc).
 *
 * A packet nobody changes is never copied: its view keeps pointing at the
 * reader's bytes.  The first edit that writes copies it into the chain's own
 * buffer, and the view then points there until the next edit_chain_apply().
 *
 * Errors: functions return -errno; the text is kept in the chain and read
 * with edit_chain_strerror().  Nothing here prints.
 */
#ifndef REPLAY_EDIT_H
#define REPLAY_EDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "optparse.h"
#include "pkt.h"

/* Limits on option lists; each is far above what a command line holds. */
#define EDIT_LIST_MAX 64 /* ranges in one --include/--exclude list */
#define EDIT_MAP_MAX 32  /* netblock pairs in one address map, entries in --portmap */

/* A packet-number list, tcpreplay's "P:1-5,9,72-" syntax. */
struct edit_pktlist {
	unsigned n;                   /* ranges; 0 = option not given */
	struct {
		uint64_t lo, hi;      /* packet numbers, from 1, inclusive; hi = UINT64_MAX: open */
	} r[EDIT_LIST_MAX];
};

/* --enet-dmac / --enet-smac: one MAC for every frame, or a client,server pair. */
struct edit_macs {
	unsigned n;                   /* 0 = not given, 1 or 2 */
	uint8_t mac[2][6];            /* [0] client->server (or all), [1] server->client */
};

/* --enet-subsmac: MAC substitutions, tried in order; the first pair whose OLD matches applies. */
struct edit_subsmac {
	unsigned n;                   /* pairs; 0 = not given */
	struct {
		uint8_t from[6], to[6];
	} e[EDIT_MAP_MAX];
};

struct edit_cidr {
	uint8_t family;               /* 4 or 6 */
	uint8_t plen;                 /* prefix length, bits */
	uint8_t addr[16];             /* network byte order; IPv4 in the first 4 */
};

/* An address map: netblock pairs, tried in order. */
struct edit_cidrmap {
	unsigned n;                   /* pairs; 0 = not given */
	struct {
		struct edit_cidr from, to;
	} e[EDIT_MAP_MAX];
};

/* --pnat may be given twice: the first map for clients, the second for servers. */
struct edit_pnat {
	unsigned n;                   /* maps given: 0, 1 or 2 */
	struct edit_cidrmap map[2];
};

/* -e/--endpoints CLIENT:SERVER: every packet rewritten to be between two hosts. */
struct edit_endpoints {
	uint8_t family;               /* 0 = not given, 4 or 6 */
	uint8_t client[16], server[16]; /* network byte order; IPv4 in the first 4 */
};

struct edit_portmap {
	unsigned n;                   /* entries; 0 = not given */
	struct {
		uint16_t lo, hi, to;  /* ports lo..hi (host order) become to */
	} e[EDIT_MAP_MAX];
};

enum edit_ttl_mode { EDIT_TTL_NONE, EDIT_TTL_SET, EDIT_TTL_ADD, EDIT_TTL_SUB, EDIT_TTL_MAX };

struct edit_ttl {
	enum edit_ttl_mode mode;
	uint8_t val;                  /* the value set, added or subtracted */
};

/* --dlt: the link layer frames leave with (dlt.c); Ethernet unless another is asked for. */
enum edit_dlt { EDIT_DLT_ENET, EDIT_DLT_RAW, EDIT_DLT_USER, EDIT_DLT_HDLC, EDIT_DLT_MAX };

/* The longest --user-dlink header: what the chain's headroom holds in front of a frame. */
#define EDIT_DLINK_MAX 64

/* --user-dlink HEX,...: the link-layer header --dlt user writes, given once or twice. */
struct edit_dlink {
	unsigned n;                   /* headers given: 0, 1 (every frame) or 2 (client, server) */
	uint8_t len;                  /* bytes in each (both the same length) */
	uint8_t b[2][EDIT_DLINK_MAX]; /* [0] server->client (or all), [1] client->server, as tcprewrite */
};

enum edit_vlan_mode { EDIT_VLAN_NONE, EDIT_VLAN_ADD, EDIT_VLAN_DEL, EDIT_VLAN_MAX };
enum edit_fixlen_mode { EDIT_FIXLEN_NONE, EDIT_FIXLEN_PAD, EDIT_FIXLEN_TRUNC, EDIT_FIXLEN_DEL,
			EDIT_FIXLEN_MAX };

/* Every edit option; filled by the option parser (src/cli/opts.c) with the parsers and tables below. */
struct edit_cfg {
	/* selection */
	const char *filter;           /* --filter: libpcap expression, or NULL */
	struct edit_pktlist include;  /* --include */
	struct edit_pktlist exclude;  /* --exclude */

	/* layer 2 */
	bool efcs;                    /* --efcs: drop the last 4 bytes (the FCS) of every Ethernet frame */
	enum edit_dlt dlt;            /* --dlt: the output's link layer (default Ethernet) */
	struct edit_dlink user_dlink; /* --user-dlink: --dlt user's header */
	uint64_t user_dlt;            /* --user-dlt: --dlt user's DLT value; EDIT_UNSET: Ethernet's */
	uint64_t hdlc_address;        /* --hdlc-address, 0..255; EDIT_UNSET: 0x0f (unicast) */
	uint64_t hdlc_control;        /* --hdlc-control, 0..255; EDIT_UNSET: 0 */
	struct edit_macs dmac;        /* --enet-dmac, --dmac */
	struct edit_macs smac;        /* --enet-smac, --smac */
	struct edit_subsmac subsmac;  /* --enet-subsmac */
	enum edit_vlan_mode vlan;     /* --enet-vlan */
	uint64_t vlan_tag;            /* --enet-vlan-tag, 0..4095; EDIT_UNSET if not given */
	uint64_t vlan_pri;            /* --enet-vlan-pri, 0..7; EDIT_UNSET if not given */
	uint64_t vlan_cfi;            /* --enet-vlan-cfi, 0..1; EDIT_UNSET if not given */
	uint16_t vlan_proto;          /* --enet-vlan-proto: 0x8100 or 0x88a8 */
	uint64_t mac_seed;            /* --enet-mac-seed: scramble MACs with this seed; EDIT_UNSET if not given */
	uint64_t mac_seed_keep;       /* --enet-mac-seed-keep-bytes: leading MAC bytes kept, 1..6; 0 = not given */

	/* layer 3 and 4 */
	struct edit_pnat pnat;        /* --pnat */
	struct edit_cidrmap srcipmap; /* --srcipmap */
	struct edit_cidrmap dstipmap; /* --dstipmap */
	struct edit_endpoints endpoints; /* -e/--endpoints */
	struct edit_portmap portmap;  /* --portmap */
	uint64_t tcp_seq;             /* --tcp-sequence seed, 1..2^32-1; EDIT_UNSET if not given */
	uint64_t seed;                /* --seed; EDIT_UNSET if not given */
	bool skipbroadcast;           /* --skipbroadcast */
	bool skipl2broadcast;         /* --skipl2broadcast: --enet-dmac/--enet-smac leave broadcast and multicast MACs */
	struct edit_ttl ttl;          /* --ttl */
	uint64_t tos;                 /* --tos, 0..255; EDIT_UNSET if not given */
	uint64_t tclass;              /* --tclass: IPv6 Traffic Class, 0..255; EDIT_UNSET if not given */
	uint64_t flowlabel;           /* --flowlabel: IPv6 Flow Label, 0..0xfffff; EDIT_UNSET if not given */

	/* lengths and checksums */
	uint64_t mtu;                 /* --mtu: layer-3 size limit, bytes (default 1500) */
	bool mtu_trunc;               /* --mtu-trunc */
	enum edit_fixlen_mode fixlen; /* --fixlen */
	bool fixhdrlen;               /* --fixhdrlen: IP length fields cover the frame after L2 */
	bool fixcsum;                 /* --fixcsum */
	bool pad_payload;             /* --pad-payload: NetVCR's zero-filled payloads */
	bool pktlen;                  /* --pktlen: tcpreplay's, every frame at its wire length, zeros past the capture */

	/* tcprewrite's fuzzing and soft errors (fuzz.c, soft.c) */
	uint64_t fuzz_seed;           /* --fuzz-seed; EDIT_UNSET if not given */
	uint64_t fuzz_factor;         /* --fuzz-factor: fuzz 1 packet in N (default 8); EDIT_UNSET if not given */
	bool skip_soft;               /* --skip-soft-errors: drop what tcprewrite would stop editing */

	/* per loop pass (edit_chain_set_pass()) */
	bool unique_ip;               /* --unique-ip: other IP addresses in every pass */
	uint64_t unique_ip_loops;     /* --unique-ip-loops N: passes per address set (0 = 1) */
};

#define EDIT_UNSET UINT64_MAX

/* Defaults for struct edit_cfg (a designated initialiser). */
#define EDIT_CFG_DEFAULTS                                                                          \
	{                                                                                          \
		.vlan_tag = EDIT_UNSET, .vlan_pri = EDIT_UNSET, .vlan_cfi = EDIT_UNSET,            \
		.vlan_proto = 0x8100, .seed = EDIT_UNSET, .tos = EDIT_UNSET, .mtu = 1500,          \
		.tcp_seq = EDIT_UNSET, .tclass = EDIT_UNSET, .flowlabel = EDIT_UNSET,               \
		.mac_seed = EDIT_UNSET, .fuzz_seed = EDIT_UNSET, .fuzz_factor = EDIT_UNSET,         \
		.user_dlt = EDIT_UNSET, .hdlc_address = EDIT_UNSET, .hdlc_control = EDIT_UNSET,     \
	}

/*
 * Option parsers, one per argument syntax.  Each reads @arg into @field (the
 * struct named) and returns 0, or -EINVAL with a one-line reason (without the
 * option's name) in @err.  Their signature is the option table's OPT_T_FUNC.
 */
int edit_parse_pktlist(void *field, const char *arg, char *err, size_t errlen);  /* edit_pktlist */
int edit_parse_macs(void *field, const char *arg, char *err, size_t errlen);     /* edit_macs */
int edit_parse_pnat(void *field, const char *arg, char *err, size_t errlen);     /* edit_pnat (appends) */
int edit_parse_cidrmap(void *field, const char *arg, char *err, size_t errlen);  /* edit_cidrmap */
int edit_parse_portmap(void *field, const char *arg, char *err, size_t errlen);  /* edit_portmap (appends) */
int edit_parse_ttl(void *field, const char *arg, char *err, size_t errlen);      /* edit_ttl */
int edit_parse_subsmac(void *field, const char *arg, char *err, size_t errlen); /* edit_subsmac (appends) */
int edit_parse_dlink(void *field, const char *arg, char *err, size_t errlen);    /* edit_dlink (appends) */
int edit_parse_endpoints(void *field, const char *arg, char *err, size_t errlen); /* edit_endpoints */

/*
 * The enumerated edit settings by name, for the options (OPT_ENUM rows) and
 * --help: --enet-vlan (enum edit_vlan_mode), --enet-vlan-proto (the TPID,
 * uint16_t), --fixlen (enum edit_fixlen_mode), --dlt (enum edit_dlt).
 */
extern const struct opt_enum edit_dlt_choices[];
extern const struct opt_enum edit_vlan_choices[];
extern const struct opt_enum edit_vlan_proto_choices[];
extern const struct opt_enum edit_fixlen_choices[];

/*
 * edit_cfg_check() - checks that need several edit options at once (--pnat
 * excludes --srcipmap/--dstipmap, the VLAN details need --enet-vlan add...).
 * Returns 0, or -EINVAL with the reason in @err.
 */
int edit_cfg_check(const struct edit_cfg *cfg, char *err, size_t errlen);

/*
 * edit_cfg_linktype() - the LINKTYPE_* value of the frames the chain built
 * from @cfg hands out, for the header of the file they are written to:
 * LINKTYPE_ETHERNET, LINKTYPE_RAW, LINKTYPE_C_HDLC, or --user-dlt's DLT as
 * libpcap writes it to a file (DLT_RAW 12 is LINKTYPE_RAW 101, ...).
 */
unsigned edit_cfg_linktype(const struct edit_cfg *cfg);

/*
 * edit_dlt_linktype() - the LINKTYPE_* value libpcap writes to a file for
 * DLT value @dlt (a --user-dlt), or -1 for one it writes to no file: the
 * values they share, and the few DLT_* numbers that differ by platform,
 * mapped as on Linux.
 */
int edit_dlt_linktype(uint64_t dlt);

/* edit_cfg_any() - true if @cfg asks for any edit at all. */
bool edit_cfg_any(const struct edit_cfg *cfg);

/*
 * edit_cfg_hash() - a 64-bit digest of every option that changes packet
 * bytes, so a prep sidecar made with other options is refused.
 */
uint64_t edit_cfg_hash(const struct edit_cfg *cfg);

/* What edit_chain_apply() returns besides -errno. */
enum { EDIT_KEEP = 0, EDIT_DROP = 1 };

struct edit_chain;
struct edit_prep;

/*
 * edit_chain_new() - build the chain @cfg asks for (compiling the filter,
 * allocating the packet buffer and the client/server table).  *@cp is set
 * even on failure (unless memory ran out) so edit_chain_strerror() can say
 * why; the caller always calls edit_chain_free().  Returns 0 or -errno.
 */
int edit_chain_new(struct edit_chain **cp, const struct edit_cfg *cfg);

/*
 * edit_chain_apply() - run every edit on *@p.  Returns EDIT_KEEP (the view
 * may now point at the chain's buffer, valid until the next call; caplen and
 * wirelen may have changed), EDIT_DROP (selected out, or --fixlen del), or a
 * negative errno with the reason, naming nothing but the packet's problem,
 * in edit_chain_strerror().  No allocation, no I/O.
 */
int edit_chain_apply(struct edit_chain *c, struct pkt *p);

/* edit_chain_strerror() - the last error. */
const char *edit_chain_strerror(const struct edit_chain *c);

/*
 * edit_chain_use_prep() - take layer offsets and checksums from @prep (opened
 * for the trace being sent; still owned by the caller, who keeps it open)
 * instead of computing them.  NULL goes back to computing.
 */
void edit_chain_use_prep(struct edit_chain *c, const struct edit_prep *prep);

/*
 * edit_chain_set_side() - the two-interface side (1: client to server, 2:
 * server to client; replay/split.h) of the packet the next
 * edit_chain_apply() gets, from the -c cache, --split or --dualfile: the
 * pair forms and -e follow it.  0 (the default, and after each apply):
 * the chain's own first-mode classification decides.
 */
void edit_chain_set_side(struct edit_chain *c, int side);

/* edit_cfg_wants_side() - does any edit of @cfg depend on the packet's direction? */
bool edit_cfg_wants_side(const struct edit_cfg *cfg);

/* edit_chain_free() - release; accepts NULL. */
void edit_chain_free(struct edit_chain *c);

/*
 * edit_chain_set_pass() - the loop pass the next packets belong to (0 for
 * the first): --unique-ip moves the addresses by one step per pass (per
 * --unique-ip-loops passes).
 */
void edit_chain_set_pass(struct edit_chain *c, uint64_t pass);

/*
 * The prep sidecar (replay prep TRACE -o TRACE.prep).  Version 2 layout,
 * little-endian:
 *   header (64 bytes): magic "RPLYPREP", u32 version, u32 record size,
 *     u64 trace size, u64 edit_prep_content_hash() of the whole trace file,
 *     8 reserved bytes, u64 edit_cfg_hash(), u64 records, 8 reserved bytes;
 *   then one record per trace record, in order (record n at index n - 1).
 * Version 1 bound a sidecar to the trace's size, mtime and first 4096 bytes
 * only, so a trace changed further in kept its stale checksums.
 */
#define EDIT_PREP_VERSION 2u

/* edit_prep_content_hash() - the 64-bit hash a sidecar identifies its trace's content by. */
uint64_t edit_prep_content_hash(const void *buf, size_t len);

struct edit_prep_writer;

/*
 * edit_prep_create() - start a sidecar for the trace at @trace_path (its size
 * and content hash are taken now, reading the whole file) made by chain @c (built from @cfg;
 * from now on it walks every packet's layers for the sidecar), to be written to
 * @out_path on commit (a temporary file renamed into place, so a failed prep
 * leaves nothing behind).  Returns 0 or -errno with the reason in @err.
 */
int edit_prep_create(struct edit_prep_writer **wp, const char *out_path, const char *trace_path,
		     struct edit_chain *c, const struct edit_cfg *cfg, char *err, size_t errlen);

/*
 * edit_prep_add() - record what @c's last edit_chain_apply() did to record
 * number @recno (from 1, in order; a dropped packet is recorded as such).
 * Returns 0 or -errno (with the reason in @err).
 */
int edit_prep_add(struct edit_prep_writer *w, const struct edit_chain *c, uint64_t recno,
		  char *err, size_t errlen);

/*
 * Two-interface replay: `replay prep --split MODE` stores each record's side
 * (1 or 2, replay/split.h) in the sidecar with the mode it was classified
 * by, so the learning pass of client/server/bridge/router runs once.
 * edit_prep_set_split() - before the first edit_prep_add_side(): the mode.
 * edit_prep_add_side() - edit_prep_add() with the record's @side (1 or 2).
 */
void edit_prep_set_split(struct edit_prep_writer *w, const char *mode);
int edit_prep_add_side(struct edit_prep_writer *w, const struct edit_chain *c, uint64_t recno,
		       int side, char *err, size_t errlen);

/* edit_prep_commit() - write and rename into place; frees @w.  0 or -errno with @err. */
int edit_prep_commit(struct edit_prep_writer *w, char *err, size_t errlen);

/* edit_prep_abort() - discard; accepts NULL. */
void edit_prep_abort(struct edit_prep_writer *w);

/*
 * edit_prep_open() - map the sidecar at @path and check it against the trace
 * at @trace_path (size and content hash: the whole file is read once) and
 * against @cfg.  A stale or
 * foreign sidecar is refused: -ESTALE (or -EINVAL for one that is not a
 * sidecar) with the reason in @err.  Returns 0 and *@pp on success.
 */
int edit_prep_open(struct edit_prep **pp, const char *path, const char *trace_path,
		   const struct edit_cfg *cfg, char *err, size_t errlen);

/*
 * edit_prep_split() - does the sidecar hold the sides for --split @mode?  1
 * yes, 0 it holds none, -ESTALE it holds another mode's (the reason, naming
 * both, in @err).  @mode NULL: 1 if it holds any (the mode's name in
 * *@held, when @held is not NULL), else 0.
 */
int edit_prep_split(const struct edit_prep *prep, const char *mode, const char **held, char *err,
		    size_t errlen);

/* edit_prep_side() - record @recno's side (1 or 2), or -ERANGE outside the sidecar or if it holds none. */
int edit_prep_side(const struct edit_prep *prep, uint64_t recno);

/* edit_prep_close() - unmap; accepts NULL. */
void edit_prep_close(struct edit_prep *prep);

#endif
