/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The live engines (src/play/): recorded conversations (replay/conv.h)
 * played over real kernel sockets.
 *
 *  - replay live (play_client()): each recorded client, against a live
 *    server.  One epoll loop, non-blocking sockets, one timer heap; a
 *    connection starts at its recorded time (or as soon as --cps and
 *    --max-concurrent let it), sends the recorded client bytes in the
 *    recorded chunks, waits where the recording shows the client waiting
 *    for the server (a chunk's need_peer), keeps the recorded think time
 *    after that (divided by --speed; none with --topspeed), and closes as
 *    recorded: FIN (shutdown), or RST (SO_LINGER 0).  Each conversation
 *    ends in a verdict (enum play_verdict).
 *  - replay serve (play_serve()): the recorded servers, to live clients.
 *    A listener on every recorded server port; each connection (and each
 *    UDP datagram) is matched to a recorded one by its first bytes
 *    (conv_match()) and answered with the recorded server bytes, turn by
 *    turn.
 *  - replay live --exact (play_exact()): the recorded client packets
 *    themselves, on an interface, their sequence and acknowledgement
 *    numbers rewritten from the live server's.
 *
 * The engines print nothing: they fill a struct play_report, which
 * play_report_print() and play_report_json() write out.
 */
#ifndef REPLAY_PLAY_H
#define REPLAY_PLAY_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "replay/conv.h"
#include "replay/optparse.h"

#define PLAY_PORTMAP_MAX 64
#define PLAY_TIMEOUT_DEFAULT_S 5.0
#define PLAY_MISMATCH_MAX_DEFAULT 10
/* At most this many connections at once unless --max-concurrent says otherwise. */
#define PLAY_CONCURRENT_DEFAULT 65536u
/*
 * replay serve: a client whose request differs in length from the recorded
 * one (another Host, another User-Agent) is taken to have finished it once
 * it has sent nothing for this long.
 */
#define PLAY_TURN_QUIET_NS 20000000ull

/* An address (and port, 0 = the recorded one) given on the command line. */
struct play_addr {
	bool set;
	struct conv_addr a;
};

struct play_portmap {
	unsigned n;
	struct {
		uint16_t from, to;
	} m[PLAY_PORTMAP_MAX];
};

/* Repeatable string options (--mask-header, --mask). */
struct play_strs {
	unsigned n;
	const char *v[CONV_MASK_MAX];
};

/* --source-range CIDR: addresses handed out in turn, one per connection. */
struct play_cidr {
	bool set;
	uint8_t family;
	uint8_t addr[16];
	unsigned prefix;
};

/* Both subcommands' options (src/play/opts.c binds them). */
struct play_cfg {
	struct play_addr target;      /* --target HOST[:PORT] */
	struct play_portmap port_map; /* --port-map FROM:TO[,FROM:TO...] */
	double speed;                 /* --speed X: think times divided by X; 0 = 1 */
	bool topspeed;                /* no think times, starts as fast as the caps allow */
	uint64_t cps;                 /* --cps N: connections started per second, at most; 0 = no cap */
	uint32_t max_concurrent;      /* --max-concurrent N; 0 = PLAY_CONCURRENT_DEFAULT */
	uint64_t loop;                /* --loop N: passes; 0 = 1 */
	struct play_cidr source_range;
	int compare;                  /* enum conv_cmp */
	struct play_strs mask_header;
	struct play_strs mask;
	uint32_t mismatch_max;        /* mismatches listed */
	double timeout_s;             /* connect and reply timeout, seconds; 0 = default */
	bool midstream;               /* play TCP conversations the capture has no handshake of */
	bool exact;                   /* --exact: the recorded packets on -i */
	const char *intf;             /* -i IF */
	struct play_addr listen;      /* replay serve --listen ADDR */
	uint64_t conversations;       /* replay serve: stop after N; 0 = never */
	double duration_s;            /* replay serve: stop after SECONDS; 0 = never */
	const char *stats_json;
	bool quiet;
	int verbose;
	bool help, version;
	struct opt_given given;       /* what was given (replay/optparse.h) */
};

enum play_verdict {
	PLAY_OK,          /* completed, and the reply compared equal */
	PLAY_MISMATCH,    /* completed, the reply differs from the recording */
	PLAY_REFUSED,     /* the server refused the connection (RST to the SYN) */
	PLAY_RESET,       /* the server reset an established connection */
	PLAY_TIMEOUT,     /* no connection, or no reply, within --timeout */
	PLAY_UNREACHABLE, /* no route, host or network unreachable */
	PLAY_CLOSED,      /* the server closed before the conversation ended */
	PLAY_ERROR,       /* another socket error (errno in the result) */
	PLAY_SKIPPED,     /* not played: the recording cannot be (a line said why) */
	PLAY_VERDICT_MAX
};

extern const char *const play_verdict_name[PLAY_VERDICT_MAX];

#define PLAY_SNIP_BYTES 24

struct play_result {
	uint32_t conv;            /* conversation id (conv.id) */
	uint32_t pass;            /* --loop pass, from 1 */
	uint8_t verdict;          /* enum play_verdict */
	uint8_t match;            /* serve: enum conv_match_kind */
	int err;                  /* errno behind an ERROR verdict, else 0 */
	uint64_t sent, want_sent; /* client bytes sent; recorded */
	uint64_t rcvd, want_rcvd; /* server bytes received; recorded */
	uint64_t connect_ns;      /* connect() to established; UINT64_MAX = never */
	uint64_t first_ns;        /* connect() (serve: accept) to the first reply byte; UINT64_MAX = none */
	uint64_t dur_ns;          /* the whole conversation */
	bool diff;                /* a mismatch: where, below */
	uint64_t rec_off, live_off;
	uint8_t rec_snip[PLAY_SNIP_BYTES], live_snip[PLAY_SNIP_BYTES]; /* bytes from rec_off-8, live_off-8 */
	uint8_t rec_snip_len, live_snip_len, snip_back;
};

struct play_report {
	const char *role;              /* "live" or "serve" */
	struct play_result *r;         /* one per conversation played */
	size_t n, cap;
	uint64_t verdicts[PLAY_VERDICT_MAX];
	uint64_t elapsed_ns;
	uint64_t max_active;           /* most connections open at once */
	uint64_t unmatched;            /* serve: datagrams or connections nothing recorded fits */
	uint64_t udp_requests;         /* serve: datagrams answered */
	bool interrupted;              /* a signal ended the run */
};

/* play_report_add() - room for one more result, zeroed; NULL if memory ran out. */
struct play_result *play_report_add(struct play_report *rep);
/* play_report_free() - the results' memory; @rep is then empty. */
void play_report_free(struct play_report *rep);

/* play_report_print() - the summary (counts, bytes, percentiles, mismatches up to @mismatch_max) to @f. */
void play_report_print(const struct play_report *rep, const struct conv_set *set, uint32_t mismatch_max,
		       FILE *f);

/* play_report_json() - everything, one conversation an entry, to @f.  0, or -EIO. */
int play_report_json(const struct play_report *rep, const struct conv_set *set, FILE *f);

/*
 * play_playable() - whether replay live plays @c under @cfg; if not, the
 * one-line reason in @why.
 */
bool play_playable(const struct play_cfg *cfg, const struct conv *c, char *why, size_t len);

/* play_server_addr() - where conversation @c's live server is: the recorded one, --target, --port-map. */
void play_server_addr(const struct play_cfg *cfg, const struct conv *c, struct conv_addr *out);

/* play_map_port() - @port through --port-map (itself if not mapped). */
uint16_t play_map_port(const struct play_portmap *m, uint16_t port);

/*
 * play_client() - play every playable conversation of @set against the
 * live servers (see the top); @mask for the comparison.  Ends when every
 * conversation has, or when *@stop is set.  0 with @rep filled, or -errno
 * with the reason in @err (nothing could be set up).
 */
int play_client(const struct play_cfg *cfg, const struct conv_set *set, const struct conv_mask *mask,
		const volatile sig_atomic_t *stop, struct play_report *rep, char *err, size_t errlen);

/*
 * play_serve() - listen on the recorded server ports and answer live
 * clients (see the top) until *@stop, --conversations or --duration.  0
 * with @rep filled, or -errno with the reason in @err.
 */
int play_serve(const struct play_cfg *cfg, const struct conv_set *set, const volatile sig_atomic_t *stop,
	       struct play_report *rep, char *err, size_t errlen);

/*
 * play_exact() - replay live --exact: the recorded client packets on
 * cfg->intf by AF_PACKET, rewritten live.  As play_client().
 */
int play_exact(const struct play_cfg *cfg, const struct conv_set *set, const struct conv_mask *mask,
	       const volatile sig_atomic_t *stop, struct play_report *rep, char *err, size_t errlen);

/* The option sets (src/play/opts.c). */
const struct opt_set *play_live_set(void);
const struct opt_set *play_serve_set(void);

/*
 * play_opts_parse() - @argv (argv[0] is the subcommand) into @cfg by @set,
 * operands (trace files) from *@first on; then the checks that need every
 * option.  0, or -EINVAL with the reason in @err.
 */
int play_opts_parse(const struct opt_set *set, struct play_cfg *cfg, int argc, char **argv, int *first,
		    char *err, size_t errlen);

/*
 * live_main(), serve_main() - "replay live ..." and "replay serve ...":
 * @argv starts at the subcommand.  Return the exit status: 0 every
 * conversation completed and compared equal, 1 one did not (or an input
 * or set-up error), 2 usage.
 */
int live_main(int argc, char **argv);
int serve_main(int argc, char **argv);

#endif
