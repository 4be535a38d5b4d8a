/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Flow statistics, as tcpreplay 4.6 counts and prints them ("Flows: N
 * flows, ..." in the summary; --no-flow-stats, --flow-expiry).
 *
 * A flow is one direction of a conversation: the key is (source address,
 * destination address, source port, destination port, IP protocol), with
 * ICMP's and ICMPv6's type and code in the port fields and 0 in them for
 * other protocols.  A packet is
 *   new       its key was never seen (a flow, unique);
 *   existing  its key was seen (and not expired);
 *   expired   its key was seen, but (with --flow-expiry S) its trace time in
 *             whole seconds is more than S after the key's last packet's:
 *             counted as a flow again, and expired;
 *   non-flow  a frame without IPv4/IPv6 (ARP, LLDP), or with an IP version
 *             field that does not match its ethertype;
 *   invalid   a frame too short for the headers the key needs, or with an
 *             ethertype below 0x0600 (802.3 length), or MPLS that cannot be
 *             followed: counted nowhere in the "Flows:" line.
 * The headers are walked as tcpreplay 4.6 walks them (the rules are in
 * src/stats/flows.c); tests/compat/t_flows.sh compares the counts with its.
 *
 * The table is fixed: open addressing, linear probing, sized once by
 * flow_table_new() (no allocation per packet).  When it is full a packet
 * of a key it does not hold is counted as a flow packet and as untracked.
 */
#ifndef REPLAY_FLOWS_H
#define REPLAY_FLOWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/pkt.h"

enum flow_kind {
	FLOW_NEW,       /* a key never seen */
	FLOW_EXISTING,  /* a key seen before, not expired */
	FLOW_EXPIRED,   /* a key seen before, idle longer than the expiry */
	FLOW_NON_IP,    /* no IP: a non-flow packet */
	FLOW_INVALID,   /* headers cut short or not followed */
	FLOW_UNTRACKED, /* IP, but the table is full and does not hold its key */
	FLOW_KIND_MAX
};

/* The counts, as tcpreplay 4.6 names them in its summary. */
struct flow_counts {
	bool enabled;          /* counted at all (not --no-flow-stats) */
	uint64_t expiry_s;     /* --flow-expiry, s; 0 = flows never expire */
	uint64_t flows;        /* new + expired packets ("N flows") */
	uint64_t unique;       /* new packets ("N unique") */
	uint64_t expired;      /* expired packets ("N expired") */
	uint64_t flow_packets; /* packets with IP: new, existing, expired, untracked ("unique flow packets") */
	uint64_t non_flow;     /* packets without IP ("unique non-flow packets") */
	uint64_t invalid;      /* packets whose headers could not be followed (not in tcpreplay's line) */
	uint64_t untracked;    /* flow packets of keys the full table could not hold */
};

struct flow_table;

/* Bounds of flow_table_new()'s capacity (keys held: 7/8 of the slots). */
#define FLOW_TABLE_MIN_SLOTS 64u
#define FLOW_TABLE_MAX_SLOTS (1u << 20)

/*
 * flow_table_new() - a table for about @max_flows keys (rounded up to a
 * power of two with room to spare, within FLOW_TABLE_MIN_SLOTS ..
 * FLOW_TABLE_MAX_SLOTS slots), flows expiring after @expiry_s (0 = never).
 * NULL when out of memory.  Free with flow_table_free().
 */
struct flow_table *flow_table_new(uint64_t max_flows, uint64_t expiry_s);

/* flow_table_free() - free @ft; NULL is fine. */
void flow_table_free(struct flow_table *ft);

/* flow_table_slots() - how many slots @ft has. */
size_t flow_table_slots(const struct flow_table *ft);

/*
 * flow_classify() - what the Ethernet frame @data (@caplen bytes, trace
 * time @ts_ns) is to @ft, which learns its key; the kind is also counted
 * in @c.
 */
enum flow_kind flow_classify(struct flow_table *ft, const uint8_t *data, uint32_t caplen, uint64_t ts_ns,
			     struct flow_counts *c);

/*
 * flow_classify_pkts() - flow_classify() of each of the @n packets @v in
 * order (their data, caplen and ts_ns): one call, and @c added to once.
 */
void flow_classify_pkts(struct flow_table *ft, const struct pkt *v, unsigned n, struct flow_counts *c);

/*
 * flow_key_paths_agree() - whether the fixed-offset key of the common frame
 * (untagged IPv4 without options, UDP or TCP) is, for the Ethernet frame
 * @data of @caplen bytes, the key and kind the full header walk gives; true
 * when the frame is not such a frame.  For the fuzz target: the two must
 * never differ.
 */
bool flow_key_paths_agree(const uint8_t *data, uint32_t caplen);

/*
 * flow_counts_add() - another table's counts @c added into @into (--threads:
 * a flow lives in one thread, so the sums are the whole run's).
 */
void flow_counts_add(struct flow_counts *into, const struct flow_counts *c);

/*
 * flow_fps_x100() - @flows per second over @elapsed_ns, times 100, in
 * tcpreplay's integer arithmetic (elapsed cut to whole microseconds; 0 when
 * none passed).
 */
uint64_t flow_fps_x100(uint64_t flows, uint64_t elapsed_ns);

#endif
