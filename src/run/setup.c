// SPDX-License-Identifier: BSD-2-Clause
/*
 * Building the run before the loop, and taking it down after: every input
 * and output is opened and checked before a packet leaves (a bad file, a
 * bad filter or a missing interface is reported with nothing sent), the
 * capabilities are dropped once set-up is over, and what the loop reads of
 * the options is resolved here once (plan()).  Each part is opened by its
 * own file's open function (source_open(), route_open(),
 * impair_stage_open(), report_open_json()), which never calls back.
 * Called by src/run/run.c; with --threads it opens the other threads' runs.
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
#include "source.h"
#include "replay/caps.h"
#include "replay/log.h"

/* The last stretch of the wait for --start-at is spun: this much, plus the timer's margin, ns. */
#define START_SPIN_NS (500 * NSEC_PER_USEC)
/*
 * At top speed, packets stamped with one reading of the run clock
 * (sched_top_clock_every()): a batch's worth, tens of microseconds, far
 * below what --duration or a progress line resolves.
 */
#define TOP_CLOCK_EVERY 64u

/* The output lanes (interfaces) each thread sends on: -i, and -I. */
static unsigned lanes_of(const struct opts *o)
{
	return o->intf2 ? 2 : 1;
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

	/* Flows are counted on the frames as edited: --dlt raw, user and hdlc leave no Ethernet to walk. */
	if (o->run.no_flow_stats || o->edit.dlt != EDIT_DLT_ENET)
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
 * --method auto: AF_XDP unasked only where passing the qdisc and the taps
 * by loses nothing, with a queue for every thread (the highest one it
 * binds); else the fallback order.  @why says why not xdp, if it looked.
 */
static int open_auto(struct replay *r, struct lane *l, struct tx_cfg *cfg, char *why, size_t len)
{
	const struct opts *o = r->o;
	unsigned queues = 1;
	int rc;

	if (!cfg->qdisc_bypass && tx_method_known("xdp")) { /* built in */
		if (r->th.n > 1)
			for (unsigned k = 0; k < r->th.n; k++)
				queues = MAX(queues, 1 + (o->xdp_queues.n ? o->xdp_queues.v[k] : k));
		else
			queues = 1 + cfg->xdp_queue;
		cfg->auto_xdp = tx_bypass_harmless(cfg->ifname, queues, why, len) == 1;
	}
	rc = tx_open_auto(&l->tx, cfg, cfg->auto_xdp ? note_fallback_unasked : note_fallback);
	if (rc == 0 && cfg->auto_xdp && strcmp(tx_name(l->tx), "xdp"))
		snprintf(why, len, "%s", "AF_XDP could not be opened (see --method xdp)");
	return rc;
}

/* In place: thread k's lane i stages its copies in socket k * lanes + i's share of the preload's spare. */
static void in_place(const struct replay *r, const struct replay *from, unsigned i, struct tx_cfg *cfg)
{
	const struct opts *o = r->o;
	struct trace_region reg;
	size_t sock = (size_t)r->th.idx * lanes_of(o) + i;

	if (!opts_xdp_inplace(o) || !trace_preload_region(from->src.traces[0], &reg))
		return;
	if (reg.spare_bytes >= (sock + 1) * TX_XDP_UMEM_BYTES) {
		cfg->inplace.base = reg.base;
		cfg->inplace.bytes = reg.data_bytes;
		cfg->inplace.stage_off = reg.spare_off + sock * TX_XDP_UMEM_BYTES;
	}
}

/*
 * --segment: lane @l cuts a frame longer than its MTU (the interface's, or
 * --mtu's for -w, which has none) into frames that fit, in memory of its
 * own for the most frames one is cut into, touched now so that no page of
 * it is first touched in the loop.  Without it no frame is too long.
 */
static int open_segmenting(struct replay *r, struct lane *l)
{
	size_t cap;

	l->seg_max = UINT32_MAX;
	if (!r->o->run.segment)
		return 0;
	l->seg_mtu = l->tx->mtu ? l->tx->mtu : (uint32_t)MIN(r->o->edit.mtu, PKT_FRAME_MAX_BYTES);
	l->seg_max = l->seg_mtu + ETH_HDR_BYTES;
	l->gso = r->o->tx.gso;
	cap = (size_t)SEGMENT_FRAMES_MAX * (l->seg_mtu + ETH_HDR_BYTES + 8);
	l->seg = (struct segment_out){ .buf = malloc(cap), .cap = cap,
				       .len = calloc(SEGMENT_FRAMES_MAX, sizeof(*l->seg.len)),
				       .max = SEGMENT_FRAMES_MAX, .frag_id = 1 };
	if (!l->seg.buf || !l->seg.len) {
		log_err("--segment: out of memory (%zu bytes)", cap);
		return -ENOMEM;
	}
	memset(l->seg.buf, 0, cap);
	return 0;
}

/*
 * --fragroute: the rules read again (the options checked them: a file
 * changed since is said), and memory for the frames they make of one: the
 * largest frame, then each rule's frames appended, touched now so that no
 * page of it is first touched in the loop.  The seed is --fragroute-seed,
 * else --fuzz-seed, else 1: a run repeats.
 */
#define FRAG_WORK_BYTES (32u << 20)

static int open_fragroute(struct replay *r)
{
	const struct opts *o = r->o;
	char err[512];
	int rc;

	if (!o->run.fragroute)
		return 0;
	r->out.frag = malloc(sizeof(*r->out.frag));
	r->out.frag_out = calloc(1, sizeof(*r->out.frag_out));
	if (r->out.frag_out)
		r->out.frag_out->buf = malloc(FRAG_WORK_BYTES);
	if (!r->out.frag || !r->out.frag_out || !r->out.frag_out->buf) {
		log_err("--fragroute: out of memory");
		return -ENOMEM;
	}
	memset(r->out.frag_out->buf, 0, FRAG_WORK_BYTES);
	r->out.frag_out->cap = FRAG_WORK_BYTES;
	rc = frag_load(o->run.fragroute, r->out.frag, err, sizeof(err));
	if (rc < 0) {
		log_err("--fragroute %s", err);
		return rc;
	}
	rc = frag_rules_applied(r->out.frag, err, sizeof(err));
	if (rc < 0) {
		log_err("--fragroute %s: %s", o->run.fragroute, err);
		return rc;
	}
	/* c2s and s2c are the cache's sides 1 and 2; both, like no --fragdir, takes every frame. */
	r->out.frag_side = o->run.fragdir == FRAGDIR_BOTH ? 0 : o->run.fragdir;
	r->out.frag_rng = o->run.fragroute_seed != OPT_AUTO ? o->run.fragroute_seed
			  : o->edit.fuzz_seed != EDIT_UNSET ? o->edit.fuzz_seed : 1;
	return 0;
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
	const struct opts *o = r->o;
	struct lane *l = &r->out.lane[i];
	struct tx_cfg cfg = o->tx;
	enum tx_method method = i ? o->method2 : o->method; /* --method2: -I's own */
	bool chosen = method == TX_METHOD_AUTO && !r->th.method_name[i], auto_said;
	char why[200] = "";
	int rc;

	r->out.n = i + 1;
	cfg.ifname = ifname;
	in_place(r, main ? main : r, i, &cfg);
	cfg.clock_to_real_ns = (int64_t)realtime_minus_mono_ns();
	cfg.linktype = edit_cfg_linktype(&o->edit);
	/* --threads: thread i binds the i-th --xdp-queue, or queue i. */
	if (r->th.n > 1)
		cfg.xdp_queue = o->xdp_queues.n ? o->xdp_queues.v[r->th.idx] : r->th.idx;
	if (ops)
		rc = tx_open_ops(&l->tx, ops, &cfg);
	else if (o->tx.path)
		rc = tx_open(&l->tx, "file", &cfg);
	else if (r->th.method_name[i]) /* a --threads worker: the method thread 0 has on this side */
		rc = tx_open(&l->tx, r->th.method_name[i], &cfg);
	else if (chosen)
		rc = open_auto(r, l, &cfg, why, sizeof(why));
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
	return open_segmenting(r, l);
}

/* The output lanes: -i (or -w), and -I. */
static int open_lanes(struct replay *r, const struct tx_ops *ops, const struct replay *main)
{
	const struct opts *o = r->o;

	if (open_lane(r, 0, o->tx.ifname, ops, main) < 0)
		return -1;
	if (o->intf2 && open_lane(r, 1, o->intf2, ops, main) < 0)
		return -1;
	return 0;
}

/*
 * Real-time set-up for a run that waits on the real clock, before any trace
 * is mapped (memory is locked as it is mapped at this point); never fatal.
 */
static void realtime(struct replay *r, struct sched_cfg *scfg)
{
	struct rt rt;

	char hint[512] = "";

	rt_setup(&rt, &r->o->rt);
	if (r->o->rt.priority && (!rt.fifo || !rt.locked))
		caps_hint(!rt.fifo ? CAPS_SYS_NICE : CAPS_IPC_LOCK, hint, sizeof(hint));
	/* The SCHED_FIFO refusal and its remedy: one line. */
	for (int i = 0; i < rt.nwarn; i++)
		if (i + 1 == rt.fifo_warn && *hint && !rt.fifo)
			log_warn("%s; %s", rt.warn[i], hint);
		else
			log_warn("%s", rt.warn[i]);
	if (*hint && (rt.fifo || !rt.fifo_warn))
		log_warn("--rt-priority: %s", hint);
	scfg->busy_max_permille = rt.busy_max_permille;
	log_info("real time: %s%s%s%s", rt.fifo ? "SCHED_FIFO" : "SCHED_OTHER",
		 rt.pinned ? ", pinned" : "", rt.locked ? ", memory locked" : "",
		 rt.slack_set ? ", timer slack 1 ns" : "");
	if (r->o->rt.dma_latency)
		log_info("/dev/cpu_dma_latency: %s",
			 rt.dma_latency_fd >= 0 ? "held at 0 us" : strerror(rt.dma_latency_err));
	r->rt = rt; /* holds the /dev/cpu_dma_latency request until replay_teardown() */
	if (rt.fifo && rt.busy_max_permille) {
		/* Idle the gaps cannot pay is paid at normal priority (wait.c). */
		scfg->set_fifo = rt_set_fifo;
		scfg->set_fifo_ctx = &r->rt;
	}
}

/*
 * The run clock: a test's, the virtual clock of a dry run (-w), or the
 * monotonic one, whose timer is measured before the first packet under
 * the policy realtime() set.
 */
static void open_clock(struct replay *r, const struct sched_cfg *scfg, const struct replay_hooks *hooks)
{
	if (hooks->clock) {
		sched_init(&r->sched, scfg, hooks->clock);
		return;
	}
	if (tx_virtual_time(r->out.lane[0].tx)) {
		clock_virtual_init(&r->vclock);
		sched_init(&r->sched, scfg, &r->vclock.clk);
		return;
	}
	sched_init(&r->sched, scfg, clock_monotonic());
	if (r->o->sched.mode == SCHED_MODE_TOPSPEED) {
		/* Impairment keys its delays to each packet's stamp: a reading each. */
		if (!r->imp.im)
			sched_top_clock_every(&r->sched, TOP_CLOCK_EVERY);
		return;
	}
	if (sched_calibrate(&r->sched) < 0)
		return; /* a signal: the run stops after its first packet */
	if (r->sched.waiter.timer == SCHED_TIMER_HYBRID)
		log_info("timer: hybrid, spin margin %.1f us%s", (double)r->sched.waiter.margin_ns / 1e3,
			 r->sched.waiter.adaptive ? " (from the wake-up lateness measured at start-up)" : "");
}

/*
 * What the loop reads, resolved once from the options: it never reads
 * them.  The summary goes to stdout unless stdout carries data (JSON,
 * frames or the send log).  Progress: --stats N's lines; else on a
 * terminal a status line (not for a dry run: it runs in virtual time,
 * faster than a line could be read); none with --threads, where no one
 * thread knows the whole.
 */
static void plan(struct replay *r)
{
	const struct opts *o = r->o;
	struct run_plan *pl = &r->plan;

	r->rep.summary = (r->rep.json == stdout || (o->tx.path && !strcmp(o->tx.path, "-")) ||
			  (o->send_log && !strcmp(o->send_log, "-")))
				 ? stderr
				 : stdout;
	*pl = (struct run_plan){
		.timed = o->sched.mode != SCHED_MODE_TOPSPEED,
		.live = o->source_if != NULL,
		.oneatatime = o->run.oneatatime,
		.ts_warn_jump = o->sched.mode == SCHED_MODE_TRACE && !o->sched.max_gap_ns,
		.ts_warn_back = o->sched.mode == SCHED_MODE_TRACE,
		.passes_json = r->rep.json != NULL && r->th.n <= 1, /* threads count passes each */
		.passes = o->run.loop,
		.limit = o->run.limit,
		.loop_delay_ns = o->run.loopdelay_ns,
		.duration_ns = o->run.duration_ns,
		.late_threshold_ns = o->sched.late_threshold_ns,
		.speed_num = o->sched.speed.num ? o->sched.speed.num : 1,
		.speed_den = o->sched.speed.den ? o->sched.speed.den : 1,
		.stats_s = o->run.stats_s,
		.out_name = o->tx.ifname ? o->tx.ifname : o->tx.path,
	};
	pl->line_ok = r->th.n <= 1 && o->run.stats_s == OPT_AUTO && !o->quiet && !o->run.no_progress &&
		      !o->tx.path && !o->decode;
	if (r->th.n > 1)
		pl->progress = PROGRESS_OFF;
	else if (o->run.stats_s != OPT_AUTO)
		pl->progress = PROGRESS_STATS;
	else if (pl->line_ok && isatty(fileno(r->rep.summary)))
		pl->progress = PROGRESS_LINE;
	else
		pl->progress = PROGRESS_OFF;
	r->st.method = r->out.lane[0].st.method;
	r->st.method_mode = r->out.lane[0].st.method_mode;
	r->st.dev = r->out.lane[0].st.dev;
	for (unsigned i = 0; i < r->out.n; i++)
		r->st.layer3 |= r->out.lane[i].tx && r->out.lane[i].tx->l3[0];
	r->st.threads_auto = o->threads_ask_auto ? o->threads_why : NULL;
	r->st.segmenting = o->run.segment || o->run.fragroute;
	r->st.fragrouting = o->run.fragroute != NULL;
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
	char at[48];
	int rc;

	rep->clock = opt_enum_name(sched_clock_choices, o->sched.start_clock);
	log_info("waiting for %s on the %s clock", sched_time_format(o->sched.start_at.ns, at, sizeof(at)),
		 rep->clock);
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

int replay_check_paths(const struct opts *o, char *err, size_t errlen)
{
	size_t cap = (size_t)o->nfiles + (size_t)o->nloaded + 8 + o->impair.n, n = 0;
	struct outfile_use *u = calloc(cap, sizeof(*u));
	int rc;

	if (!u) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (int i = 0; i < o->nfiles; i++)
		u[n++] = (struct outfile_use){ o->files[i], "input", false };
	for (int i = 0; i < o->nloaded; i++)
		u[n++] = (struct outfile_use){ o->loaded[i], "--load-opts", false };
	u[n++] = (struct outfile_use){ o->cachefile, "-c", false };
	u[n++] = (struct outfile_use){ o->prep_path, "--prep", false };
	for (unsigned i = 0; i < o->impair.n; i++)
		u[n++] = (struct outfile_use){ o->impair.src[i].path, "--impair", false };
	u[n++] = (struct outfile_use){ o->tx.path, "-w", true };
	u[n++] = (struct outfile_use){ o->stats_json, "--stats-json", true };
	u[n++] = (struct outfile_use){ o->send_log, "--send-log", true };
	u[n++] = (struct outfile_use){ o->save_opts, "--save-opts", true };
	u[n++] = (struct outfile_use){ o->prep_cmd ? o->prep_out : NULL, "-o", true };
	rc = outfile_check(u, n, err, errlen);
	free(u);
	return rc;
}

/* The same check inside the run, for callers that come straight here (the tests' hooks). */
static int check_paths(const struct opts *o)
{
	char err[1024];
	int rc = replay_check_paths(o, err, sizeof(err));

	if (rc < 0)
		log_err("%s", err);
	return rc;
}

/* --threads: the other threads' runs, opened while the capabilities to open sockets are held. */
static int open_workers(struct replay *r, const struct sched_cfg *scfg)
{
	r->th.workers = calloc(r->th.n, sizeof(*r->th.workers));
	if (!r->th.workers) {
		log_err("out of memory");
		return -1;
	}
	for (unsigned i = 1; i < r->th.n; i++)
		if (replay_open_worker(&r->th.workers[i], r, i, scfg) < 0) {
			r->th.n = i; /* replay_teardown() closes the ones opened */
			return -1;
		}
	return 0;
}

/*
 * The last of set-up, capabilities dropped: -v's tcpdump (missing, the run
 * stops here, nothing sent), --start-at's wait, the live capture.
 */
static int start(struct replay *r, const struct replay_hooks *hooks)
{
	const struct opts *o = r->o;

	if (o->decode && !r->stopped) {
		char err[512];

		if (decode_start(&r->out.decode, o->decode_args, err, sizeof(err)) < 0) {
			log_err("%s", err);
			return -1;
		}
	}
	r->out.per_pkt = r->out.slog || r->out.decode;
	/* Everything is open: the first packet is all that is left to do. */
	if (o->sched.start_at.set && !r->stopped && wait_start(r, hooks) < 0)
		return -1;
	if (!r->stopped && source_start_live(r) < 0)
		return -1;
	return 0;
}

int replay_open(struct replay *r, const struct opts *o, volatile sig_atomic_t *stop,
		volatile sig_atomic_t *suspend, const struct replay_hooks *hooks)
{
	const struct replay_hooks none = { 0 };
	/* The real program, or hooks asking for it: capabilities are checked and dropped. */
	bool real = !hooks || hooks->caps;
	struct sched_cfg scfg = o->sched;
	int rc;

	*r = (struct replay){ .o = o, .stop = stop, .suspend = suspend, .rep.json_out = OUTFILE_INIT,
			      .th.n = o->threads > 1 ? o->threads : 0 };
	scfg.stop = stop;
	if (!hooks)
		hooks = &none;
	r->poll_flags = hooks->suspend != NULL;
	/* The program's own stderr lines: its stderr, the library's caller's, or (hooks without) nowhere. */
	r->rep.err = !hooks->summary ? stderr : hooks->out && hooks->err ? hooks->err : NULL;
	if (real) {
		char err[1024];

		if (privs_acquire(o, err, sizeof(err)) < 0) {
			log_err("%s", err);
			return -1;
		}
	}
	stats_init(&r->st);
	if (check_paths(o) < 0 || (o->sched.start_at.set && start_check(o, hooks) < 0))
		return -1;
	if (!hooks->clock && !o->tx.path)
		realtime(r, &scfg);
	/* A signal while a pipe's header (or --preload) was awaited: a run stopped before its first packet. */
	rc = source_open(r, NULL);
	r->stopped = rc == -EINTR && *stop;
	if ((rc < 0 && !r->stopped) || open_edits(r) < 0 || open_flows(r) < 0 || route_open(r) < 0 ||
	    impair_stage_open(r) < 0 || open_lanes(r, hooks->tx_ops, NULL) < 0 || open_fragroute(r) < 0 ||
	    report_open_json(r) < 0 ||
	    (!r->stopped && route_check_mtus(r) < 0))
		goto fail;
	plan(r);
	if (hooks->summary) {
		r->rep.lines = hooks->out && hooks->err;
		if (r->rep.lines)
			r->rep.summary = r->rep.summary == stderr ? hooks->err : hooks->out;
		else
			r->rep.summary = hooks->summary;
		/* The terminal test was of stdout's: the status line only as lines, whenever allowed. */
		r->rep.status = r->rep.lines ? hooks->status : NULL;
		if (r->plan.progress == PROGRESS_LINE || r->plan.progress == PROGRESS_OFF)
			r->plan.progress = r->rep.status && r->plan.line_ok ? PROGRESS_LINE : PROGRESS_OFF;
	}
	open_clock(r, &scfg, hooks);
	if (hooks->progress && hooks->progress_ns) {
		r->pass.hook = hooks->progress;
		r->pass.hook_ctx = hooks->ctx;
		r->pass.hook_ns = hooks->progress_ns;
	}
	if (report_open_send_log(r) < 0)
		goto fail;
	if (!o->tx.path && !hooks->tx_ops)
		for (unsigned i = 0; i < r->out.n; i++)
			ifcheck_begin(&r->out.lane[i].ifc, r->out.lane[i].tx->dev);
	if (r->th.n > 1 && open_workers(r, &scfg) < 0)
		goto fail;
	if (r->th.n > 1)
		threads_progress_hook(r, r->th.workers, r->th.n);
	/* Set-up is over: sending on open sockets needs no capability (privs.h says what xdp keeps). */
	if (real && privs_release(o->tx.path || o->stats_json || o->send_log, r->rt.fifo && r->rt.busy_max_permille) < 0) {
		log_err("cannot drop capabilities: %s", strerror(errno));
		goto fail;
	}
	/* The same moment for the library's caller: it may drop its own. */
	if (hooks->ready && !r->stopped && hooks->ready(hooks->ctx)) {
		*r->stop = SIGINT;
		r->stopped = true;
	}
	if (start(r, hooks) < 0)
		goto fail;
	return 0;
fail:
	replay_teardown(r);
	return -1;
}

int replay_open_worker(struct replay *w, const struct replay *main, unsigned idx,
		       const struct sched_cfg *scfg)
{
	const struct opts *o = main->o;

	*w = (struct replay){ .o = o, .stop = main->stop, .suspend = main->suspend,
			      .poll_flags = main->poll_flags, .rep.json_out = OUTFILE_INIT,
			      .th = { .idx = idx, .n = main->th.n,
				      .method_name = { tx_name(main->out.lane[0].tx),
						       main->out.n > 1 ? tx_name(main->out.lane[1].tx) : NULL } },
			      .rep.summary = main->rep.summary, .plan = main->plan };
	/* Thread 0 says what the traces hold: the others would only say it again. */
	w->src.jump_warned = w->src.back_warned = true;
	w->rt.dma_latency_fd = -1;
	w->th.rt_cfg = o->rt;
	w->th.rt_cfg.cpu = o->cpus.n ? (int)o->cpus.v[idx % o->cpus.n] : -1;
	stats_init(&w->st);
	/*
	 * -I (or --dualfile): a socket on each interface.  -c, --split and the
	 * sidecar's sides: a classifier of its own, which the loop feeds every
	 * packet (not only this thread's), so every thread places each packet
	 * on the side thread 0 would (src/run/loop.c, source_next()).
	 */
	if (source_open(w, main) < 0 || open_edits(w) < 0 || open_flows(w) < 0 || route_open(w) < 0 ||
	    open_lanes(w, NULL, main) < 0)
		goto fail;
	sched_init(&w->sched, scfg, main->sched.clk);
	sched_top_clock_every(&w->sched, main->sched.top_every);
	/* The timer as thread 0 measured it: the same clock, the same machine. */
	w->sched.waiter = main->sched.waiter;
	return 0;
fail:
	replay_teardown(w);
	return -1;
}

void replay_teardown(struct replay *r)
{
	report_finish_decode(r);
	if (r->th.workers)
		for (unsigned i = 1; i < r->th.n; i++)
			replay_teardown(&r->th.workers[i]);
	free(r->th.workers);
	r->th.workers = NULL;
	free(r->th.thread_st);
	r->th.thread_st = NULL;
	rt_release(&r->rt);
	source_close(r);
	impair_stage_close(r);
	edit_chain_free(r->chain);
	r->chain = NULL;
	edit_prep_close(r->prep);
	r->prep = NULL;
	flow_table_free(r->flows);
	r->flows = NULL;
	stats_free(&r->st);
	route_close(r);
	for (unsigned i = 0; i < r->out.n; i++) {
		free(r->out.lane[i].q);
		r->out.lane[i].q = NULL;
		free(r->out.lane[i].seg.buf);
		free(r->out.lane[i].seg.len);
		r->out.lane[i].seg = (struct segment_out){ 0 };
		tx_close(r->out.lane[i].tx);
		r->out.lane[i].tx = NULL;
	}
	r->out.n = 0;
	free(r->out.frag);
	r->out.frag = NULL;
	if (r->out.frag_out)
		free(r->out.frag_out->buf);
	free(r->out.frag_out);
	r->out.frag_out = NULL;
	if (r->out.slog)
		report_close_send_log(r);
	if (r->rep.json)
		outfile_fclose(&r->rep.json_out, r->rep.json);
	r->rep.json = NULL;
}
