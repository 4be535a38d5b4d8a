// SPDX-License-Identifier: BSD-2-Clause
/*
 * Building the run before the loop and taking it down after: every input
 * and output is opened and checked before a packet leaves, and after the
 * last one the outputs are committed, the summary printed, and everything
 * closed.  The loop itself is src/run/loop.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/timex.h>

#include "privs.h"
#include "run_int.h"
#include "replay/caps.h"
#include "replay/json.h"
#include "replay/log.h"
#include "replay/live.h"

static uint64_t realtime_minus_mono_ns(void)
{
	struct timespec r, m;

	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &m);
	return ((uint64_t)r.tv_sec - (uint64_t)m.tv_sec) * NSEC_PER_SEC + (uint64_t)r.tv_nsec -
	       (uint64_t)m.tv_nsec;
}

/* The output lanes (interfaces) each thread sends on: -i, and -I. */
static unsigned lanes_of(const struct opts *o)
{
	return o->intf2 ? 2 : 1;
}

/*
 * Open every trace first: a bad file is reported before a single packet
 * leaves.  A --threads worker (@main: thread 0's run; NULL for thread 0
 * itself) reads a preloaded trace from thread 0's copy: one copy of the
 * trace in memory, read once, whatever the number of threads.
 */
static int open_inputs(struct replay *r, const struct replay *main)
{
	const struct opts *o = r->o;

	r->traces = calloc((size_t)o->nfiles, sizeof(*r->traces));
	if (!r->traces) {
		log_err("out of memory");
		return -ENOMEM;
	}
	struct trace_cfg tcfg = o->trace;
	char livepath[64], livename[64];

	tcfg.will_rewind = o->run.loop != 1;
	/*
	 * AF_XDP may send a preloaded file's frames in place: room for the
	 * staging frames after them, one socket's for each thread and
	 * interface (open_lane()).
	 */
	if (opts_xdp_inplace(o))
		tcfg.preload_spare_bytes = (size_t)MAX(r->nshards, 1u) * lanes_of(o) * TX_XDP_UMEM_BYTES;
	tcfg.stop = r->stop;
	tcfg.nonblock = true; /* a pipe without its next record: the loop waits for it (wait_input()) */

	if (o->source_if) {
		char err[1024];

		/* The capture, then its stream as the one trace (src/live/live.c). */
		if (live_open(&r->live, o->source_if, o->live_buffer_kib, err, sizeof(err)) < 0) {
			log_err("%s", err);
			return -ENODEV;
		}
		snprintf(livepath, sizeof(livepath), "/proc/self/fd/%d", live_fd(r->live));
		/* A frame's errors name the interface, not the pipe it comes through. */
		snprintf(livename, sizeof(livename), "--source-interface %s", live_name(r->live));
		tcfg.name = livename;
	}
	for (int i = 0; i < o->nfiles; i++) {
		struct trace *t;
		const uint8_t *data;
		size_t len;
		int rc;

		if (main && trace_preloaded(main->traces[i], &data, &len)) {
			struct trace_cfg mcfg = tcfg;

			mcfg.preload = false;
			mcfg.preload_spare_bytes = 0;
			rc = trace_open_mem(&t, o->files[i], data, len, &mcfg);
		} else {
			rc = trace_open(&t, o->source_if ? livepath : o->files[i], &tcfg);
		}

		r->traces[i] = t;
		if (rc == -EINTR && *r->stop)
			return rc; /* stopped, not failed */
		if (rc < 0) {
			log_err("%s", t ? trace_strerror(t) : "out of memory");
			return rc;
		}
		/* A named pipe or a device (standard input is refused by the options): one reader only. */
		if (!main && r->nshards > 1 && !trace_can_rewind(t)) {
			log_err("%s: not a regular file (a pipe or a device): --threads %u has every thread read it; add --preload (-K) to read it into memory once for all threads",
				o->files[i], r->nshards);
			return -ESPIPE;
		}
		if (o->run.loop != 1 && !trace_can_rewind(t)) {
			log_err("%s: cannot loop over a pipe; add --preload (-K) to hold it in memory",
				o->files[i]);
			return -ESPIPE;
		}
		/*
		 * The reader turns other link types into Ethernet frames; refuse
		 * the rest now.  Interfaces a pcapng declares later are checked
		 * per packet (the loop).
		 */
		for (unsigned k = 0; k < trace_ninterfaces(t); k++) {
			unsigned lt = trace_interface(t, k)->linktype;
			const char *n = linktype_name(lt);

			if (trace_linktype_replayable(lt))
				continue;
			log_err("%s: interface %u: link type %u (%s) cannot be replayed; Ethernet can, and LINUX_SLL, LINUX_SLL2, RAW, IPV4, IPV6, NULL and LOOP are turned into Ethernet",
				o->files[i], k, lt, n ? n : "unknown");
			return -ENOTSUP;
		}
	}
	return 0;
}

/*
 * The flow table, sized from the traces: a record takes at least 35 bytes
 * of a file (a 16-byte pcap record header and the 19 bytes a frame needs
 * to hold a flow), so no file holds more flows than its size / 35; with
 * --unique-ip every pass has its own.  A pipe, or endless passes, get the
 * largest table (replay/flows.h bounds it).
 */
static int open_flows(struct replay *r)
{
	const struct opts *o = r->o;
	uint64_t n = 0;

	if (o->run.no_flow_stats)
		return 0;
	for (int i = 0; i < o->nfiles; i++) {
		struct stat sb;

		if (strcmp(o->files[i], "-") && !stat(o->files[i], &sb) && S_ISREG(sb.st_mode))
			n += (uint64_t)sb.st_size / 35 + 1;
		else
			n = UINT64_MAX / 2;
	}
	if (o->edit.unique_ip)
		n = o->run.loop && n < UINT64_MAX / 2 / o->run.loop ? n * o->run.loop : UINT64_MAX / 2;
	r->flows = flow_table_new(n, o->run.flow_expiry_s);
	if (!r->flows) {
		log_err("out of memory for the flow table (--no-flow-stats counts no flows)");
		return -ENOMEM;
	}
	r->st.flows.enabled = true;
	r->st.flows.expiry_s = o->run.flow_expiry_s;
	return 0;
}

/* Build the edit chain (and map the sidecar) before sending: a bad filter is reported first. */
static int open_edits(struct replay *r)
{
	const struct opts *o = r->o;
	char err[512];
	int rc;

	if (!edit_cfg_any(&o->edit) && !o->prep_path)
		return 0;
	rc = edit_chain_new(&r->chain, &o->edit);
	if (rc < 0) {
		log_err("%s", edit_chain_strerror(r->chain));
		return rc;
	}
	if (o->prep_path) {
		rc = edit_prep_open(&r->prep, o->prep_path, o->files[0], &o->edit, err, sizeof(err));
		if (rc < 0) {
			log_err("%s", err);
			return rc;
		}
		edit_chain_use_prep(r->chain, r->prep);
	}
	return 0;
}

int split_learn_trace(const char *path, struct split *sp, uint64_t *n)
{
	struct trace *t;
	struct pkt p;
	int rc = trace_open(&t, path, NULL);

	if (rc < 0) {
		log_err("%s", t ? trace_strerror(t) : "out of memory");
		trace_close(t);
		return -1;
	}
	while ((rc = trace_next(t, &p)) == 1) {
		(*n)++;
		if (sp && split_learn(sp, &p) < 0) {
			log_err("%s: --split %s: %s", path, split_mode_name(split_mode(sp)),
				split_strerror(sp));
			trace_close(t);
			return -1;
		}
	}
	if (rc < 0)
		log_err("%s", trace_strerror(t));
	trace_close(t);
	return rc < 0 ? -1 : 0;
}

/*
 * -I: how each packet picks its interface.  The tcpprep cache (-c) is
 * checked against the trace's packet count; the --split modes that look at
 * the whole trace first (client, server, bridge, router) get that pass
 * here, before the first packet leaves; the others (first, the default)
 * decide as the trace streams.
 */
static int open_split(struct replay *r)
{
	const struct opts *o = r->o;
	const char *mode = o->split_mode ? o->split_mode : "first";
	char err[512];
	uint64_t n = 0;

	if (o->run.dualfile)
		return 0; /* --dualfile: a packet's file names its interface */
	if (!o->intf2) {
		/* One output: -c or --split only give -e and the pair forms their direction. */
		if (!o->cachefile && !o->split_mode) {
			/* A sidecar made with --split edited by its sides: its checksums hold for those. */
			if (r->prep && edit_cfg_wants_side(&o->edit) &&
			    edit_prep_split(r->prep, NULL, NULL, err, sizeof(err)) == 1)
				r->prep_sides = r->sides1 = true;
			return 0;
		}
		r->sides1 = true;
	}
	/* A sidecar made by 'replay prep --split' with this mode holds every side: no classifier,
	 * no learning pass.  One made with another mode is refused; one without sides is ignored. */
	if (r->prep && !o->cachefile) {
		int rc = edit_prep_split(r->prep, mode, NULL, err, sizeof(err));

		if (rc < 0) {
			log_err("%s: %s", o->prep_path, err);
			return rc;
		}
		if (rc == 1) {
			r->prep_sides = true;
			log_info("--split %s: the sides come from %s", mode, o->prep_path);
			return 0;
		}
	}
	if (o->cachefile) {
		if (!strcmp(o->files[0], "-")) {
			log_err("--cachefile: the trace is counted against the cache before sending: give a file, not standard input");
			return -EINVAL;
		}
		if (split_cache_read(&r->cache, o->cachefile, err, sizeof(err)) < 0) {
			log_err("%s", err);
			return -EINVAL;
		}
		if (split_learn_trace(o->files[0], NULL, &n) < 0)
			return -EINVAL;
		if (split_cache_check(r->cache, n, err, sizeof(err)) < 0) {
			log_err("%s: %s", o->cachefile, err);
			return -EINVAL;
		}
		if (split_cache_warning(r->cache, err, sizeof(err)))
			log_warn("%s: %s", o->cachefile, err);
		return 0;
	}
	if (split_open(&r->split, mode, err, sizeof(err)) < 0) {
		log_err("--split: %s", err);
		return -EINVAL;
	}
	if (!split_needs_pass(r->split))
		return 0;
	for (int i = 0; i < o->nfiles; i++) {
		if (!strcmp(o->files[i], "-")) {
			log_err("--split %s reads the whole trace before sending: it cannot read standard input twice; give a file (or --split first, cidr, port or mac)",
				mode);
			return -EINVAL;
		}
		if (!r->shard) /* --threads: each thread learns for its own classifier; thread 0 says it */
			log_info("--split %s: reading %s to place its addresses before sending", mode, o->files[i]);
		if (split_learn_trace(o->files[i], r->split, &n) < 0)
			return -EINVAL;
	}
	if (split_learn_done(r->split) < 0) {
		log_err("--split %s: %s", mode, split_strerror(r->split));
		return -EINVAL;
	}
	return 0;
}

/* --send-log: created before sending; its clock samples map the run clock to CLOCK_REALTIME. */
static int open_send_log(struct replay *r)
{
	char err[512];
	int rc;

	if (!r->o->send_log)
		return 0;
	rc = sendlog_open(&r->slog, r->o->send_log, (int64_t)realtime_minus_mono_ns(),
			  sched_now(&r->sched), err, sizeof(err));
	if (rc < 0)
		log_err("%s", err);
	return rc;
}

/* Write out the send log; 0, or -1 with the error logged. */
static int close_send_log(struct replay *r)
{
	char err[512];
	uint64_t stall_ns, stalls = sendlog_stalls(r->slog, &stall_ns);
	int rc = sendlog_close(r->slog, (int64_t)realtime_minus_mono_ns(), sched_now(&r->sched),
			       err, sizeof(err));

	r->slog = NULL;
	r->per_pkt = r->decode;
	/* No entry is dropped for a slow disk: the send loop waited instead, and says so. */
	if (stalls)
		log_warn("--send-log %s: its writer fell behind; sending waited for it %llu times, %.3f ms in all",
			 r->o->send_log, (unsigned long long)stalls, (double)stall_ns / 1e6);
	if (rc < 0)
		log_err("%s", err);
	return rc < 0 ? -1 : 0;
}

static void note_fallback(const char *method, const char *why)
{
	log_warn("method %s not used: %s; trying the next", method, why);
}

/* AF_XDP tried unasked: its failure is no news (the summary says "not xdp"), the others' are. */
static void note_fallback_unasked(const char *method, const char *why)
{
	if (strcmp(method, "xdp"))
		note_fallback(method, why);
	else
		log_info("method xdp not used: %s; trying the next", why);
}

/*
 * Output lane @i: the method (@ops from a test, -w, --method auto's
 * fallback, or the one named) on interface @ifname (NULL with -w).  @main:
 * thread 0's run for a --threads worker (whose preloaded copy it sends
 * from), else NULL.
 */
static int open_lane(struct replay *r, unsigned i, const char *ifname, const struct tx_ops *ops,
		     const struct replay *main)
{
	static const char *const names[STATS_LANES_MAX] = { "intf1", "intf2" };
	const struct replay *in_place_from = main ? main : r;
	const struct opts *o = r->o;
	struct lane *l = &r->lane[i];
	struct tx_cfg cfg = o->tx;
	enum tx_method method = i ? o->method2 : o->method; /* --method2: -I's own */
	bool chosen = method == TX_METHOD_AUTO && !r->method_name[i], auto_said;
	struct trace_region reg;
	char why[200] = "";
	int rc;

	r->nlanes = i + 1;
	cfg.ifname = ifname;
	/* In place: thread k's lane i stages its copies in socket k * lanes + i's share of the spare. */
	if (opts_xdp_inplace(o) && trace_preload_region(in_place_from->traces[0], &reg)) {
		size_t sock = (size_t)r->shard * lanes_of(o) + i;

		if (reg.spare_bytes >= (sock + 1) * TX_XDP_UMEM_BYTES) {
			cfg.inplace.base = reg.base;
			cfg.inplace.bytes = reg.data_bytes;
			cfg.inplace.stage_off = reg.spare_off + sock * TX_XDP_UMEM_BYTES;
		}
	}
	cfg.clock_to_real_ns = (int64_t)realtime_minus_mono_ns();
	/* --threads: thread i binds the i-th --xdp-queue, or queue i. */
	if (r->nshards > 1)
		cfg.xdp_queue = o->xdp_queues.n ? o->xdp_queues.v[r->shard] : r->shard;
	if (ops)
		rc = tx_open_ops(&l->tx, ops, &cfg);
	else if (o->tx.path)
		rc = tx_open(&l->tx, "file", &cfg);
	else if (r->method_name[i]) /* a --threads worker: the method thread 0 has on this side */
		rc = tx_open(&l->tx, r->method_name[i], &cfg);
	else if (chosen) {
		/* AF_XDP unasked only where passing the qdisc and the taps by loses nothing, with a
		 * queue for every thread (the highest one it binds). */
		unsigned queues = 1;

		if (!cfg.qdisc_bypass && tx_method_known("xdp")) { /* built in */
			if (r->nshards > 1)
				for (unsigned k = 0; k < r->nshards; k++)
					queues = MAX(queues, 1 + (o->xdp_queues.n ? o->xdp_queues.v[k] : k));
			else
				queues = 1 + cfg.xdp_queue;
			cfg.auto_xdp = tx_bypass_harmless(ifname, queues, why, sizeof(why)) == 1;
		}
		rc = tx_open_auto(&l->tx, &cfg, cfg.auto_xdp ? note_fallback_unasked : note_fallback);
		if (rc == 0 && cfg.auto_xdp && strcmp(tx_name(l->tx), "xdp"))
			snprintf(why, sizeof(why), "%s", "AF_XDP could not be opened (see --method xdp)");
	}
	else
		rc = tx_open(&l->tx, opt_enum_name(tx_method_choices, (int)method), &cfg);
	if (rc < 0) {
		/* With two interfaces, say which side could not be opened. */
		if (o->intf2)
			log_err("%s (-%c %s): %s", names[i], i ? 'I' : 'i', ifname,
				l->tx ? tx_strerror(l->tx) : "out of memory");
		else
			log_err("%s", l->tx ? tx_strerror(l->tx) : "out of memory");
		return rc;
	}
	auto_said = chosen && !o->tx.path && !ops;
	/* The summary says why auto took AF_XDP, or why not when it looked at it. */
	snprintf(l->mode, sizeof(l->mode), "%s%s%s%s%s", tx_mode(l->tx),
		 auto_said ? (tx_mode(l->tx)[0] ? ", " : "") : "", auto_said ? "chosen by --method auto" : "",
		 auto_said && why[0] ? (strcmp(tx_name(l->tx), "xdp") ? "; not xdp: " : ": ") : "",
		 auto_said && why[0] ? (strcmp(tx_name(l->tx), "xdp") ? why : "nothing to bypass") : "");
	l->qcap = l->tx->batch ? l->tx->batch : 1;
	l->q = calloc(l->qcap, sizeof(*l->q));
	if (!l->q) {
		log_err("out of memory");
		return -ENOMEM;
	}
	l->st = (struct stats_lane){ .name = names[i], .method = tx_name(l->tx),
				      .method_mode = l->mode, .dev = l->tx->dev };
	return 0;
}

/* The output lanes, then the --stats-json file. */
static int open_output(struct replay *r, const struct tx_ops *ops)
{
	const struct opts *o = r->o;

	if (open_lane(r, 0, o->tx.ifname, ops, NULL) < 0)
		return -1;
	if (o->intf2 && open_lane(r, 1, o->intf2, ops, NULL) < 0)
		return -1;
	if (o->stats_json) {
		char err[512];

		r->json = outfile_fopen(&r->json_out, o->stats_json, err, sizeof(err));
		if (!r->json) {
			int e = errno;

			if (e == EPERM) /* another user's symbolic link: @err says whose */
				log_err("--stats-json: %s", err);
			else
				log_err("%s: cannot write statistics: %s", o->stats_json, strerror(e));
			return -e;
		}
	}
	return 0;
}

/* The longest frame lane @l takes: its MTU plus the Ethernet header (and one 802.1Q tag, as the kernel allows). */
static uint32_t lane_frame_max(const struct lane *l, const struct pkt *p)
{
	uint16_t type;

	if (!pkt_get_be16(p, 12, &type) && type == 0x8100)
		return l->tx->mtu + ETH_HDR_BYTES + 4;
	return l->tx->mtu + ETH_HDR_BYTES;
}

/*
 * -I with interfaces of different MTUs: a frame that fits one side but not
 * the other would only fail when its turn came, mid-run.  So the traces are
 * read once before sending, each packet placed as the run will place it
 * (its file with --dualfile, the -c cache, or a fresh --split classifier),
 * and the run is refused at the first frame too long for its side, naming
 * the side, the file and the record.  Not done when an edit may change the
 * frames (each too long one then fails when sent, named then) or an input is
 * a pipe; with equal MTUs a frame too long fails on either side alike, as
 * with one interface.  0, or -1 with the error logged.
 */
static int check_side_mtus(struct replay *r)
{
	static const char *const names[2] = { "intf1", "intf2" };
	const struct opts *o = r->o;
	struct split *sp = r->split;
	char err[512];
	int rc = 0;

	if (r->nlanes != 2 || !r->lane[0].tx->mtu || !r->lane[1].tx->mtu ||
	    r->lane[0].tx->mtu == r->lane[1].tx->mtu || r->chain)
		return 0;
	for (int i = 0; i < o->nfiles; i++)
		if (!strcmp(o->files[i], "-"))
			return 0;
	/* first learns as it streams: the run's own classifier must start from nothing. */
	if (sp && split_mode(sp) == SPLIT_FIRST && split_open(&sp, "first", err, sizeof(err)) < 0) {
		log_err("--split: %s", err);
		return -1;
	}
	log_info("-i %s has MTU %u, -I %s MTU %u: checking that every frame fits its side", o->tx.ifname,
		 r->lane[0].tx->mtu, o->intf2, r->lane[1].tx->mtu);
	for (int i = 0; i < o->nfiles && !rc; i++) {
		struct trace *t;
		struct pkt p;
		int n;

		if (trace_open(&t, o->files[i], NULL) < 0) {
			log_err("%s", t ? trace_strerror(t) : "out of memory");
			trace_close(t);
			rc = -1;
			break;
		}
		while (!rc && (n = trace_next(t, &p)) == 1) {
			int side;
			const struct lane *l;

			if (p.linktype != LINKTYPE_ETHERNET)
				continue; /* fails in the run, whatever its length */
			if (o->run.dualfile)
				side = i % 2 ? SPLIT_INTF2 : SPLIT_INTF1;
			else if (r->cache)
				side = split_cache_side(r->cache, p.recno);
			else if (sp)
				side = split_classify(sp, &p);
			else
				break;
			if (side != SPLIT_INTF1 && side != SPLIT_INTF2)
				continue;
			l = &r->lane[side - 1];
			if (p.caplen <= lane_frame_max(l, &p))
				continue;
			log_err("%s (-%c %s): %s: record %llu is a frame of %u bytes, more than %s's MTU %u takes (%u with its header); %s (%s) has MTU %u: raise the MTU or truncate with an edit",
				names[side - 1], side == SPLIT_INTF2 ? 'I' : 'i', l->tx->dev, o->files[i],
				(unsigned long long)p.recno, p.caplen, l->tx->dev, l->tx->mtu,
				lane_frame_max(l, &p), names[2 - side], r->lane[2 - side].tx->dev,
				r->lane[2 - side].tx->mtu);
			rc = -1;
		}
		if (!rc && n < 0) {
			log_err("%s", trace_strerror(t));
			rc = -1;
		}
		trace_close(t);
	}
	if (sp != r->split)
		split_close(sp);
	return rc;
}

/*
 * Real-time set-up for a run that waits on the real clock, before any trace
 * is mapped (memory is locked as it is mapped at this point); never fatal.
 */
static void realtime(struct replay *r, struct sched_cfg *scfg)
{
	struct rt rt;

	rt_setup(&rt, &r->o->rt);
	for (int i = 0; i < rt.nwarn; i++)
		log_warn("%s", rt.warn[i]);
	if (r->o->rt.priority && (!rt.fifo || !rt.locked)) {
		char hint[512];

		if (*caps_hint(!rt.fifo ? CAPS_SYS_NICE : CAPS_IPC_LOCK, hint, sizeof(hint)))
			log_warn("--rt-priority: %s", hint);
	}
	scfg->busy_max_permille = rt.busy_max_permille;
	log_info("real time: %s%s%s%s", rt.fifo ? "SCHED_FIFO" : "SCHED_OTHER",
		 rt.pinned ? ", pinned" : "", rt.locked ? ", memory locked" : "",
		 rt.slack_set ? ", timer slack 1 ns" : "");
	if (r->o->rt.dma_latency)
		log_info("/dev/cpu_dma_latency: %s",
			 rt.dma_latency_fd >= 0 ? "held at 0 us" : strerror(rt.dma_latency_err));
	r->rt = rt; /* holds the /dev/cpu_dma_latency request until cleanup() */
	if (rt.fifo && rt.busy_max_permille) {
		/* Idle the gaps cannot pay is paid at normal priority (wait.c). */
		scfg->set_fifo = rt_set_fifo;
		scfg->set_fifo_ctx = &r->rt;
	}
}

/* Measure the timer before the first packet, under the policy realtime() set. */
static void calibrate(struct replay *r)
{
	if (sched_calibrate(&r->sched) < 0)
		return; /* a signal: the run stops after its first packet */
	if (r->sched.waiter.timer == SCHED_TIMER_HYBRID)
		log_info("timer: hybrid, spin margin %.1f us%s",
			 (double)r->sched.waiter.margin_ns / 1e3,
			 r->sched.waiter.adaptive ? " (from the wake-up lateness measured at start-up)" : "");
}

/* --start-at: the wall clock the instant is read on; a test's clock stands for it too. */
static struct clock *start_clock(const struct replay_hooks *hooks, const struct opts *o)
{
	return hooks->clock ? hooks->clock : clock_wall(o->sched.start_clock);
}

/*
 * --start-at names an instant that has passed: refused.  Hosts that start
 * together must start at the instant they agreed on; one that starts late
 * would replay its part out of step with the others, which a lab engineer
 * would rather hear about than find in the capture.
 */
static int start_passed(const struct opts *o, uint64_t now_ns, uint64_t late_by_ns)
{
	char at[48], clk[48];

	log_err("--start-at %s is %.3f s in the past (the %s clock reads %s): give a later time",
		sched_time_format(o->sched.start_at.ns, at, sizeof(at)), (double)late_by_ns / 1e9,
		opt_enum_name(sched_clock_choices, o->sched.start_clock), sched_time_format(now_ns, clk, sizeof(clk)));
	return -1;
}

/* Before anything is opened: a time already past is refused; CLOCK_TAI without its offset is said. */
static int start_check(const struct opts *o, const struct replay_hooks *hooks)
{
	struct clock *wall = start_clock(hooks, o);
	uint64_t now = wall->now_ns(wall);

	if (now >= o->sched.start_at.ns)
		return start_passed(o, now, now - o->sched.start_at.ns);
	if (!hooks->clock && o->sched.start_clock == SCHED_CLOCK_TAI) {
		struct timex tx = { 0 };

		if (adjtimex(&tx) >= 0 && tx.tai == 0)
			log_warn("--clock tai: the kernel's TAI offset is 0, so CLOCK_TAI reads the same as "
				 "CLOCK_REALTIME (phc2sys -a or chronyd with leapsectz sets it)");
	}
	return 0;
}

/* The last stretch of the wait for --start-at is spun: this much, plus the timer's margin, ns. */
#define START_SPIN_NS (500 * NSEC_PER_USEC)
/*
 * At top speed, packets stamped with one reading of the run clock
 * (sched_top_clock_every()): a batch's worth, tens of microseconds, far
 * below what --duration or a progress line resolves.
 */
#define TOP_CLOCK_EVERY 64u

/*
 * --start-at: wait for the instant, then start the schedule from it
 * (sched_start_at()).  A signal during the wait: the run is stopped, nothing
 * sent.  -1 if the instant passed while the run was being set up.
 */
static int wait_start(struct replay *r, const struct replay_hooks *hooks)
{
	const struct opts *o = r->o;
	struct sched_start_report *rep = &r->st.start;
	struct clock *wall = start_clock(hooks, o);
	int rc;

	rep->clock = opt_enum_name(sched_clock_choices, o->sched.start_clock);
	{
		char at[48];

		log_info("waiting for %s on the %s clock", sched_time_format(o->sched.start_at.ns, at, sizeof(at)),
			 rep->clock);
	}
	rc = sched_start_at(&r->sched, wall, o->sched.start_at.ns, START_SPIN_NS + r->sched.waiter.margin_ns,
			    r->stop, rep);
	if (rc == -ETIME)
		return start_passed(o, o->sched.start_at.ns + rep->late_by_ns, rep->late_by_ns);
	if (rc == -EINTR) {
		r->stopped = true;
		return 0;
	}
	rep->set = true;
	return 0;
}

/* -v: close tcpdump's pipe and wait for it; how it ended is said, unless a signal stopped the run. */
static void finish_decode(struct replay *r)
{
	char err[256];

	if (r->decode && decode_finish(r->decode, err, sizeof(err)) < 0 && !*r->stop)
		log_warn("%s", err);
	r->decode = NULL;
	r->per_pkt = r->slog;
}

static void cleanup(struct replay *r)
{
	finish_decode(r);
	if (r->workers)
		for (unsigned i = 1; i < r->nshards; i++)
			replay_close_worker(&r->workers[i]);
	free(r->workers);
	r->workers = NULL;
	free(r->thread_st);
	r->thread_st = NULL;
	rt_release(&r->rt);
	live_close(r->live); /* before its stream: the thread ends, then the pipe is closed */
	r->live = NULL;
	if (r->traces)
		for (int i = 0; i < r->o->nfiles; i++)
			trace_close(r->traces[i]);
	free(r->traces);
	impairing_close(r);
	edit_chain_free(r->chain);
	edit_prep_close(r->prep);
	flow_table_free(r->flows);
	r->flows = NULL;
	stats_free(&r->st);
	split_close(r->split);
	split_cache_free(r->cache);
	for (unsigned i = 0; i < r->nlanes; i++) {
		free(r->lane[i].q);
		tx_close(r->lane[i].tx);
	}
	if (r->slog)
		close_send_log(r);
	if (r->json)
		outfile_fclose(&r->json_out, r->json);
	r->json = NULL;
}

/*
 * Every input and output of the run, before anything is opened for
 * writing: no output may overwrite an input or another output.
 */
static int check_paths(const struct opts *o)
{
	struct outfile_use *u = calloc((size_t)o->nfiles + 4 + o->impair.n, sizeof(*u));
	size_t n = 0;
	char err[1024];
	int rc;

	if (!u) {
		log_err("out of memory");
		return -ENOMEM;
	}
	for (int i = 0; i < o->nfiles; i++)
		u[n++] = (struct outfile_use){ o->files[i], "input", false };
	u[n++] = (struct outfile_use){ o->prep_path, "--prep", false };
	for (unsigned i = 0; i < o->impair.n; i++)
		u[n++] = (struct outfile_use){ o->impair.src[i].path, "--impair", false };
	u[n++] = (struct outfile_use){ o->tx.path, "-w", true };
	u[n++] = (struct outfile_use){ o->stats_json, "--stats-json", true };
	u[n++] = (struct outfile_use){ o->send_log, "--send-log", true };
	rc = outfile_check(u, n, err, sizeof(err));
	if (rc < 0)
		log_err("%s", err);
	free(u);
	return rc;
}

int replay_open(struct replay *r, const struct opts *o, volatile sig_atomic_t *stop,
		const struct replay_hooks *hooks)
{
	const struct replay_hooks none = { 0 };
	/* The real program, not a test's hooks: capabilities are checked and dropped. */
	bool real = !hooks;
	struct sched_cfg scfg = o->sched;
	int rc;

	*r = (struct replay){ .o = o, .stop = stop, .json_out = OUTFILE_INIT,
			      .nshards = o->threads > 1 ? o->threads : 0 };
	scfg.stop = stop;
	if (!hooks)
		hooks = &none;
	/* Refuse if a needed capability is missing. */
	if (real) {
		char err[1024];

		if (privs_acquire(o, err, sizeof(err)) < 0) {
			log_err("%s", err);
			return -1;
		}
	}
	stats_init(&r->st);
	if (check_paths(o) < 0)
		return -1;
	if (o->sched.start_at.set && start_check(o, hooks) < 0)
		return -1;
	if (!hooks->clock && !o->tx.path)
		realtime(r, &scfg);
	/* A signal while a pipe's header (or --preload) was awaited: a run stopped before its first packet. */
	rc = open_inputs(r, NULL);
	r->stopped = rc == -EINTR && *stop;
	if ((rc < 0 && !r->stopped) || open_edits(r) < 0 || open_flows(r) < 0 || open_split(r) < 0 ||
	    impairing_open(r) < 0 || open_output(r, hooks->tx_ops) < 0 ||
	    (!r->stopped && check_side_mtus(r) < 0))
		goto fail;
	r->st.method = r->lane[0].st.method;
	r->st.method_mode = r->lane[0].st.method_mode;
	r->st.dev = r->lane[0].st.dev;
	r->st.threads_auto = o->threads_ask_auto ? o->threads_why : NULL;
	/* The summary goes to stdout unless stdout carries data (JSON, frames or the send log). */
	r->summary = (r->json == stdout || (o->tx.path && !strcmp(o->tx.path, "-")) ||
		      (o->send_log && !strcmp(o->send_log, "-")))
			     ? stderr
			     : stdout;
	/* --stats N: tcpreplay's lines; else on a terminal a status line (not for a dry run:
	 * it runs in virtual time, faster than a line could be read). */
	if (r->nshards > 1)
		r->progress_mode = PROGRESS_OFF; /* --threads: no one thread knows the whole progress */
	else if (o->run.stats_s != OPT_AUTO)
		r->progress_mode = PROGRESS_STATS;
	else if (!o->quiet && !o->run.no_progress && !o->tx.path && !o->decode && isatty(fileno(r->summary)))
		r->progress_mode = PROGRESS_LINE;
	else
		r->progress_mode = PROGRESS_OFF;
	if (hooks->clock) {
		sched_init(&r->sched, &scfg, hooks->clock);
	} else if (tx_virtual_time(r->lane[0].tx)) {
		clock_virtual_init(&r->vclock);
		sched_init(&r->sched, &scfg, &r->vclock.clk);
	} else {
		sched_init(&r->sched, &scfg, clock_monotonic());
		if (o->sched.mode != SCHED_MODE_TOPSPEED)
			calibrate(r);
		else if (!r->imp.im)
			/* Impairment keys its delays to each packet's stamp: a reading each. */
			sched_top_clock_every(&r->sched, TOP_CLOCK_EVERY);
	}
	r->timed = o->sched.mode != SCHED_MODE_TOPSPEED;
	if (open_send_log(r) < 0)
		goto fail;

	if (!o->tx.path && !hooks->tx_ops)
		for (unsigned i = 0; i < r->nlanes; i++)
			ifcheck_begin(&r->lane[i].ifc, r->lane[i].tx->dev);
	/* --threads: the other threads' runs, opened while the capabilities to open sockets are held. */
	if (r->nshards > 1) {
		r->workers = calloc(r->nshards, sizeof(*r->workers));
		if (!r->workers) {
			log_err("out of memory");
			goto fail;
		}
		for (unsigned i = 1; i < r->nshards; i++)
			if (replay_open_worker(&r->workers[i], r, i, &scfg) < 0) {
				r->nshards = i; /* cleanup() closes the ones opened */
				goto fail;
			}
	}
	/* Set-up is over: sending on open sockets needs no capability (privs.h says what xdp keeps). */
	if (real && privs_release(o->tx.path || o->stats_json || o->send_log, r->rt.fifo && r->rt.busy_max_permille) < 0) {
		log_err("cannot drop capabilities: %s", strerror(errno));
		goto fail;
	}
	/* -v: tcpdump, started without the capabilities; missing, the run stops here, nothing sent. */
	if (o->decode && !r->stopped) {
		char err[512];

		if (decode_start(&r->decode, o->decode_args, err, sizeof(err)) < 0) {
			log_err("%s", err);
			goto fail;
		}
	}
	r->per_pkt = r->slog || r->decode;
	/* Last: everything is open, the first packet is all that is left to do. */
	if (o->sched.start_at.set && !r->stopped && wait_start(r, hooks) < 0)
		goto fail;
	if (r->live && !r->stopped) {
		char err[1024];

		if (live_start(r->live, o->run.duration_ns, err, sizeof(err)) < 0) {
			log_err("%s", err);
			goto fail;
		}
		/* As tcpdump and replay-rx say it: from here on, what arrives is forwarded. */
		if (!o->quiet)
			fprintf(stderr, "replay: listening on %s, forwarding to %s\n", o->source_if, o->tx.ifname);
	}
	return 0;
fail:
	cleanup(r);
	return -1;
}

int replay_open_worker(struct replay *w, const struct replay *main, unsigned idx,
		       const struct sched_cfg *scfg)
{
	const struct opts *o = main->o;

	*w = (struct replay){ .o = o, .stop = main->stop, .json_out = OUTFILE_INIT, .shard = idx,
			      .nshards = main->nshards,
			      .method_name = { tx_name(main->lane[0].tx),
					       main->nlanes > 1 ? tx_name(main->lane[1].tx) : NULL },
			      .summary = main->summary, .progress_mode = PROGRESS_OFF,
			      .timed = main->timed };
	/* Thread 0 says what the traces hold: the others would only say it again. */
	w->src.jump_warned = w->src.back_warned = true;
	w->rt.dma_latency_fd = -1;
	w->rt_cfg = o->rt;
	w->rt_cfg.cpu = o->cpus.n ? (int)o->cpus.v[idx % o->cpus.n] : -1;
	stats_init(&w->st);
	/*
	 * -I (or --dualfile): a socket on each interface.  -c, --split and the
	 * sidecar's sides: a classifier of its own, which the loop feeds every
	 * packet (not only this thread's), so every thread places each packet
	 * on the side thread 0 would (src/run/loop.c, source_next()).
	 */
	if (open_inputs(w, main) < 0 || open_edits(w) < 0 || open_flows(w) < 0 || open_split(w) < 0 ||
	    open_lane(w, 0, o->tx.ifname, NULL, main) < 0 ||
	    (o->intf2 && open_lane(w, 1, o->intf2, NULL, main) < 0))
		goto fail;
	sched_init(&w->sched, scfg, main->sched.clk);
	sched_top_clock_every(&w->sched, main->sched.top_every);
	/* The timer as thread 0 measured it: the same clock, the same machine. */
	w->sched.waiter = main->sched.waiter;
	return 0;
fail:
	replay_close_worker(w);
	return -1;
}

void replay_close_worker(struct replay *w)
{
	cleanup(w);
}

/*
 * The impairment module's account in the summary and as "impairment" in
 * --stats-json; when its queue overflowed, what to do about it.  By
 * Little's law (J. D. C. Little, "A proof for the queuing formula L =
 * lambda W", 1961) the queue holds on average the rate of delayed frames
 * times their mean delay: the limit must be above that, and above the
 * bursts around it.
 */
static void imp_print(const void *arg, FILE *f)
{
	const struct replay *r = arg;
	const struct impair_stats *st = impair_stats(r->imp.im);

	impair_stats_print(st, f);
	if (st->queue_dropped) {
		/* The rate at which frames came to be held, over the span they came in. */
		uint64_t span = st->queue_last_ns - st->queue_first_ns;
		double rate = span ? (double)(st->queue_offered - 1) * 1e9 / (double)span : 0.0;
		double mean = hist_mean(&st->delay);
		uint64_t held = (uint64_t)(rate * mean / 1e9 + 0.5);
		uint64_t want = 2 * (held > st->queue_limit ? held : st->queue_limit);

		fprintf(f, "Impairment: queue limit %llu reached %llu times (peak held %llu): %llu frames dropped for "
			"want of room; at %.0f frames/s delayed %.2f ms on average, about %llu frames are held: "
			"raise --impair-limit (to %llu, say)\n",
			(unsigned long long)st->queue_limit, (unsigned long long)st->queue_full,
			(unsigned long long)st->queue_peak, (unsigned long long)st->queue_dropped, rate, mean / 1e6,
			(unsigned long long)held, (unsigned long long)want);
	}
}

static void imp_json(const void *arg, struct json *w)
{
	const struct replay *r = arg;

	impair_stats_json(w, NULL, impair_stats(r->imp.im));
}

/* The live source's account: what it captured, and what was lost before it, each on its own line. */
static void live_print(const void *arg, FILE *f)
{
	const struct replay *r = arg;
	const struct live_stats *ls = &r->live_st;
	const char *name = live_name(r->live);

	fprintf(f, "Live source: %s: %llu frames captured (snap length %u, ring %llu KiB), %llu forwarded\n", name,
		(unsigned long long)ls->captured, ls->snaplen, (unsigned long long)(ls->buffer_bytes / 1024),
		(unsigned long long)r->st.sent);
	fprintf(f, "Live source: %s: %llu frames dropped by the kernel before capture, %llu by the interface\n", name,
		(unsigned long long)ls->kernel_dropped, (unsigned long long)ls->if_dropped);
	if (ls->too_long)
		fprintf(f, "Live source: %s: %llu frames longer than the snap length %u not forwarded\n", name,
			(unsigned long long)ls->too_long, ls->snaplen);
}

static void live_json(const void *arg, struct json *w)
{
	const struct replay *r = arg;
	const struct live_stats *ls = &r->live_st;
	const char *name = live_name(r->live);

	json_object(w, NULL);
	json_str(w, "interface", name ? name : "");
	json_uint(w, "captured", ls->captured);
	json_uint(w, "kernel_dropped", ls->kernel_dropped);
	json_uint(w, "interface_dropped", ls->if_dropped);
	json_uint(w, "too_long", ls->too_long);
	json_uint(w, "forwarded", r->st.sent);
	json_uint(w, "snaplen", ls->snaplen);
	json_uint(w, "buffer_bytes", ls->buffer_bytes);
	json_end(w);
}

int replay_close(struct replay *r, int status)
{
	const struct opts *o = r->o;
	FILE *summary;

	if (r->slog && close_send_log(r) < 0)
		status = EXIT_FAIL;
	if (r->st.failed)
		status = EXIT_FAIL;
	/* What each interface itself counted: a deficit is packets we called sent that never left. */
	for (unsigned i = 0; i < r->nlanes; i++)
		if (ifcheck_end(&r->lane[i].ifc, r->st.lane[i].sent, &r->st.lane[i]) > 0)
			status = EXIT_FAIL;
	/* Only a run without a failure gives its -w output a name (a signal is not a failure). */
	for (unsigned i = 0; i < r->nlanes; i++)
		if (status == EXIT_DONE && tx_commit(r->lane[i].tx) < 0) {
			log_err("%s", tx_strerror(r->lane[i].tx));
			status = EXIT_FAIL;
		}

	if (r->imp.im) {
		r->st.impaired = true;
		r->st.extra[r->st.nextra++] = (struct stats_extra){ .print = imp_print, .json = imp_json,
								    .key = "impairment", .arg = r };
	}
	if (r->live) {
		/* The capture ends here; what it took and what the kernel could not give it. */
		live_stats(r->live, &r->live_st);
		r->st.extra[r->st.nextra++] = (struct stats_extra){ .print = live_print, .json = live_json,
								    .key = "live", .arg = r };
	}
	/* -v: tcpdump's last lines come before the summary. */
	finish_decode(r);
	summary = r->summary;
	if (!o->quiet)
		stats_print(&r->st, summary);
	if (r->live) {
		const struct live_stats *ls = &r->live_st;

		if (live_error(r->live)) {
			log_err("%s", live_error(r->live));
			status = EXIT_FAIL;
		}
		if (ls->kernel_dropped) {
			log_err("--source-interface %s: the kernel dropped %llu arriving frames before capture: the forwarder "
				"fell behind (a larger -B/--buffer-size gives it more time)",
				live_name(r->live), (unsigned long long)ls->kernel_dropped);
			status = EXIT_FAIL;
		}
		if (ls->too_long) {
			log_err("--source-interface %s: %llu frames longer than the snap length %u (MTU + 22) not forwarded",
				live_name(r->live), (unsigned long long)ls->too_long, ls->snaplen);
			status = EXIT_FAIL;
		}
	}
	if (r->json) {
		char err[512];

		if (stats_write_json(&r->st, r->json) < 0) {
			log_err("%s: cannot write statistics: %s", o->stats_json, strerror(errno));
			status = EXIT_FAIL;
		} else if (outfile_fcommit(&r->json_out, r->json, err, sizeof(err)) < 0) {
			log_err("--stats-json: %s", err);
			status = EXIT_FAIL;
		}
	}
	if (*r->stop)
		status = 128 + *r->stop;
	cleanup(r);
	return status;
}
