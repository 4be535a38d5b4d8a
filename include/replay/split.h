/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * split: which of two interfaces each packet leaves by (two-interface
 * replay), in tcpprep's vocabulary, and the reader for tcpprep's cache file.
 *
 * Interface 1 is tcpreplay's primary (-i, "client to server"), interface 2
 * its secondary (-I, "server to client").  Each tcpprep-named mode gives the
 * side tcpprep 4.6 writes into its cache for the same packet, including the
 * places where tcpprep is surprising (listed in man/replay.1, --split):
 *   - every frame that is not IPv4/IPv6 (ARP, LLDP, STP ...) goes to side 2;
 *   - cidr: a packet whose *source* is inside one of the networks is side 1;
 *   - port: a TCP/UDP packet whose destination port is below 1024 is side 1,
 *     every other IP packet side 2;
 *   - mac: a frame whose source MAC is listed is side 1;
 *   - client/server/bridge/router (tcpprep -a): tcpprep keeps all IPv6
 *     addresses in one tree node (its IPv6 comparison compares an address
 *     with itself), so every IPv6 packet gets the same side: in practice
 *     side 1 for client and router, side 2 for server;
 *   - first (replay's own, the default, also used by the pair forms of
 *     --enet-dmac/--pnat): an address first seen as a source is a client
 *     (side 1), first seen as a destination a server (side 2); decided as
 *     the trace streams, no pass over the whole trace.
 * Only Ethernet frames are classified (the readers convert other link types).
 */
#ifndef REPLAY_SPLIT_H
#define REPLAY_SPLIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/pkt.h"

enum split_mode {
	SPLIT_FIRST,   /* first seen as source: client */
	SPLIT_CLIENT,  /* tcpprep -a client */
	SPLIT_SERVER,  /* tcpprep -a server */
	SPLIT_BRIDGE,  /* tcpprep -a bridge */
	SPLIT_ROUTER,  /* tcpprep -a router */
	SPLIT_CIDR,    /* tcpprep -c NET,... */
	SPLIT_PORT,    /* tcpprep -p */
	SPLIT_MAC,     /* tcpprep -e MAC,... */
	SPLIT_MODE_MAX
};

/* The two sides; 0 is "do not send" (a cache entry without the send bit). */
enum { SPLIT_NOSEND = 0, SPLIT_INTF1 = 1, SPLIT_INTF2 = 2 };

struct split;

/*
 * split_open() - a classifier for @mode: "first", "client", "server",
 * "bridge", "router", "cidr:NET[,NET...]" (IPv4 or IPv6, NET an address with
 * an optional /len), "port" or "mac:MAC[,MAC...]".  Returns 0 and *@sp, or
 * -EINVAL with a one-line reason in @err (naming the bad part) or -ENOMEM.
 * *@sp is NULL on failure.
 */
int split_open(struct split **sp, const char *mode, char *err, size_t errlen);

/* split_close() - free; NULL is fine. */
void split_close(struct split *s);

/* split_mode() - the mode @s was opened with. */
enum split_mode split_mode(const struct split *s);

/* split_mode_name() - "first", "client", ... for a mode. */
const char *split_mode_name(enum split_mode m);

/*
 * split_needs_pass() - true for the modes that look at the whole trace
 * before the first packet is classified (client, server, bridge, router):
 * the caller feeds every packet, in trace order, to split_learn(), then
 * calls split_learn_done() once, then classifies from the first packet on.
 */
bool split_needs_pass(const struct split *s);

/*
 * split_learn() - pass one: account packet @p (as read, before any edit).
 * Returns 0, or -EINVAL where tcpprep 4.6 gives up on the trace (an IP
 * packet too short for its TCP/UDP/DNS/ICMP header), with the reason in
 * split_strerror().  A no-op for modes without a pass.
 */
int split_learn(struct split *s, const struct pkt *p);

/*
 * split_learn_done() - end of pass one: fix each address's role.  Returns 0,
 * or -EINVAL when tcpprep would refuse the trace (router mode finding no
 * servers and clients it can separate), reason in split_strerror().
 */
int split_learn_done(struct split *s);

/*
 * split_classify() - SPLIT_INTF1 or SPLIT_INTF2 for packet @p (as read,
 * before any edit).  In the first mode this learns as it goes, so packets
 * must come in trace order.  Never fails: a packet the mode cannot place
 * goes where tcpprep sends it.  No allocation, safe on the hot path.
 */
int split_classify(struct split *s, const struct pkt *p);

/* split_strerror() - the last error's text. */
const char *split_strerror(const struct split *s);

/* --- tcpprep cache files (format version 04, as tcpprep 4.6 writes them) --- */

struct split_cache;

/*
 * split_cache_load() - parse a cache file image of @len bytes at @buf (copied:
 * the caller may free @buf).  split_cache_read() - the same from the file at
 * @path, which must be a regular file (a FIFO or device is refused at once,
 * never waited for).  Return 0 and *@cp, or -EINVAL (not a tcpprep cache, another
 * version, truncated or with more data than tcpprep 4.6 writes: @err says
 * which, with the byte offset) or -errno of the read, with the reason in
 * @err.  *@cp is NULL on failure.  Data longer than the header's count needs
 * is read as tcpreplay 4.6 reads it (see split_cache_extra()).
 */
int split_cache_load(struct split_cache **cp, const uint8_t *buf, size_t len, char *err,
		     size_t errlen);
int split_cache_read(struct split_cache **cp, const char *path, char *err, size_t errlen);

/* split_cache_free() - free; NULL is fine. */
void split_cache_free(struct split_cache *c);

/* split_cache_count() - how many packets the cache describes. */
uint64_t split_cache_count(const struct split_cache *c);

/*
 * split_cache_extra() - data bytes after the ceil(count / 4) that the packets
 * use: 0 for a plain cache; more for one made by tcpprep 4.6 -a with -x/-X,
 * whose first pass left "don't send" entries for its excluded packets ahead
 * of the classification.  As tcpreplay 4.6 does, split_cache_side() still
 * reads the first entries, so the sides are shifted by them: callers warn.
 */
uint64_t split_cache_extra(const struct split_cache *c);

/* split_cache_warning() - that warning in @buf (one line); false if none is due. */
bool split_cache_warning(const struct split_cache *c, char *buf, size_t len);

/* split_cache_comment() - its comment (tcpprep's arguments), NUL-terminated. */
const char *split_cache_comment(const struct split_cache *c);

/*
 * split_cache_check() - 0 if the cache describes exactly @npkts packets, else
 * -EINVAL with "the cache describes N packets, the trace has M" in @err.
 */
int split_cache_check(const struct split_cache *c, uint64_t npkts, char *err, size_t errlen);

/*
 * split_cache_side() - SPLIT_INTF1, SPLIT_INTF2 or SPLIT_NOSEND for record
 * @recno (from 1, the trace's record number); -ERANGE outside the cache.
 */
int split_cache_side(const struct split_cache *c, uint64_t recno);

#endif
