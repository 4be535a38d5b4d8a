/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * replay bridge IF1 IF2: an inline impairment bridge.  Every frame that
 * arrives on one port leaves by the other (with --unidir, IF1's by IF2
 * only), each direction edited by its own edit chain (replay/edit.h) and
 * impaired by its own statistical model (netem's, replay/impair.h), on
 * one clock.  A direction may be impaired by traces as well (--impair,
 * --impair-ab, --impair-ba), each read by the direction's own reader,
 * before its model.  "ab" is IF1 to IF2, "ba" IF2 to IF1.  The options:
 * bridge_opts.h; the forwarding: src/bridge/bridge.c; the command:
 * src/bridge/cmd.c.
 */
#ifndef REPLAY_BRIDGE_H
#define REPLAY_BRIDGE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "replay/bridge_opts.h"
#include "replay/hist.h"
#include "replay/impair.h"

/* One direction's account.  received + copies = forwarded + dropped_impair + dropped_limit +
 * dropped_edit + dropped_own_mac + dropped_learned + dropped_martian + failed (what is held at the
 * end is failed). */
struct bridge_dir_stats {
	uint64_t received; /* frames captured on the input port */
	uint64_t
	    copies; /* copies the model's duplicate made (each then forwarded, dropped or failed) */
	uint64_t forwarded;	 /* handed to the kernel on the output port */
	uint64_t bytes;		 /* their bytes */
	uint64_t dropped_impair; /* dropped by the model's loss */
	uint64_t dropped_limit;	 /* dropped because the delay queue held --impair-limit frames */
	uint64_t failed;       /* not sent: too long for the output port, cut by the capture, a send
				  error, held at a stop */
	uint64_t too_long;     /* of failed: longer than the output port's MTU (or cut short by the
				  capture) */
	uint64_t held_at_stop; /* of failed: still held when a signal stopped the bridge */
	uint64_t edited;       /* frames put through the direction's edits and kept by them */
	uint64_t dropped_edit; /* dropped by the edits (--skip-soft-errors) */
	uint64_t edit_failed;  /* of failed: an edit failed (the first reason said) */
	uint64_t kernel_captured; /* handed to the input ring by the kernel, those it dropped
				     included: every one of them either dropped or received */
	uint64_t kernel_dropped; /* the input ring was full: dropped by the kernel before capture */
	uint64_t late;		 /* held frames sent more than 1 ms after their deadline */
	uint64_t dropped_own_mac; /* --mac: sent from one of the two ports' MACs */
	uint64_t dropped_learned; /* --mac: from a source MAC first seen on the other port */
	uint64_t dropped_martian; /* --no-martians: IPv4 to 0/8, 127/8 or 255/8 */
	uint32_t held_peak;	 /* the most frames held at once */
	/* Held frames: how long after its deadline the turn that sent each began, ns (the applied
	 * delay's error on the bridge's side, before the kernel's). */
	struct hist send_error;
};

struct bridge;

/*
 * bridge_open() - each direction's impairment traces, read whole first (a
 * bad one fails before any port opens, naming its option), then
 * the ports @if1, @if2 (captured, promiscuous), a sender on
 * each (@cfg->method), each direction's edit chain, impairment and delay
 * queue, allocated and touched now.  With @cfg->unidir only @if1 is captured and
 * only @if2 sent on.  With --poll hybrid (or auto) the calling thread's
 * timer slack is set to 1 ns and its timer's lateness measured (about
 * 60 ms): bridge_run() must run in the same thread.  0, or -errno with one
 * line in @err.
 */
int bridge_open(struct bridge **bp, const struct bridge_cfg *cfg, const char *if1, const char *if2,
		char *err, size_t errlen);

/*
 * bridge_run() - forward until *@stop (a signal's number) or @cfg's
 * duration.  At a stop what is held is not sent early: it is counted
 * failed (held_at_stop).  0, or -errno with one line in @err (a port
 * failed or went away).
 */
int bridge_run(struct bridge *b, const volatile sig_atomic_t *stop, char *err, size_t errlen);

/* bridge_port_mtu() - port @port's (0: IF1, 1: IF2) MTU at open; 0 if it could not be read
 * (or the port is not used). */
unsigned bridge_port_mtu(const struct bridge *b, int port);

/*
 * bridge_frame_fits() - can the frame @f of @len bytes leave by a port of
 * MTU @mtu (0: any)?  The MTU counts neither the Ethernet header nor up to
 * two VLAN tags.
 */
bool bridge_frame_fits(const uint8_t *f, uint32_t len, unsigned mtu);

/* bridge_name() - direction @d's ports, "IF1 -> IF2". */
const char *bridge_name(const struct bridge *b, enum bridge_dir d);
const struct bridge_dir_stats *bridge_stats(const struct bridge *b, enum bridge_dir d);
/* bridge_poll_margin() - how the bridge waits (enum bridge_poll, auto resolved) and, hybrid, its
 * spin margin, ns. */
int bridge_poll_mode(const struct bridge *b, uint64_t *margin_ns);
/* bridge_edits() - does direction @d edit its frames? */
bool bridge_edits(const struct bridge *b, enum bridge_dir d);
/* bridge_impair_stats() - direction @d's model's counts, NULL when it impairs nothing. */
const struct impair_stats *bridge_impair_stats(const struct bridge *b, enum bridge_dir d);
void bridge_close(struct bridge *b);

/* bridge_main() - "replay bridge [options] IF1 IF2": the exit status. */
int bridge_main(int argc, char **argv);

#endif
