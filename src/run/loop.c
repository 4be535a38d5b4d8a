// SPDX-License-Identifier: BSD-2-Clause
/*
 * The loop: one, whatever the run.  It takes the earliest of its producers
 * -- the trace source's next packet (read, routed, edited, with its
 * deadline) and the impairment's queue of held frames, a held frame first
 * on a tie -- and sends it on its lane (src/run/lane.h), through the
 * impairment stage first when there is one.  When the source's input has
 * no whole record yet (a pipe, a live capture), what is staged is kicked
 * and the loop waits in one place, wait_input(), for the input or the
 * earliest held deadline.  --threads runs it in each thread.  Every packet
 * read is counted once, here, and ends in one fate (lane.h).  Called by
 * src/run/run.c and src/run/threads.c; HACKING.md draws the whole path.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lane.h"
#include "source.h"
#include "replay/flowhash.h"
#include "replay/log.h"

/* A trace read slower than this (a disk page fault; a mapped page costs ~1 us) is noted. */
#define READ_SLOW_NS 10000u
/* A wait for the input ends this long before the earliest held deadline; the timer does the rest. */
#define WAIT_INPUT_MARGIN_NS 500000u

/*
 * route() - the lane packet @p (as read, before any edit) leaves by: the
 * only one; or, with -I, the one route_two() names.  NULL: the -c cache
 * says not to send it.
 */
static inline struct lane *route(struct replay *r, const struct pkt *p)
{
	if (likely(r->out.n == 1)) {
		/*
		 * -w or one -i with -c/--split: the side only steers -e and the pair
		 * forms.  A cache's "don't send": -i skips it (tcpreplay-edit); -w
		 * writes it as read, unedited.
		 */
		if (unlikely(r->route.sides1) && (r->route.side = route_side(r, p)) == SPLIT_NOSEND &&
		    r->route.nosend_skips)
			return NULL;
		return &r->out.lane[0];
	}
	return route_two(r, p);
}

/*
 * --threads: is @p (as read, before any edit) this thread's?  Its flow's
 * symmetric hash picks the thread (replay/flowhash.h), so both directions
 * of a flow go by one thread, in order.  A packet of another thread's
 * still takes its place in the schedule every thread keeps (sched_skip())
 * and has been routed (the --split classifier's state); it is neither read
 * nor counted here.
 */
static inline bool in_shard(struct replay *r, struct pkt *p)
{
	if (flowhash_shard(flowhash(p->data, p->caplen), r->th.n) == r->th.idx)
		return true;
	r->th.skipped++;
	if (r->plan.timed)
		sched_skip(&r->sched, p);
	return false;
}

/*
 * The packet ended here (filtered, failed): the source goes on with the
 * next unless a signal or --limit ends the run.
 */
static inline bool ends_run(const struct replay *r, bool counts_for_limit)
{
	return *r->stop || (counts_for_limit && limit_reached(r));
}

/* Why the run ends at @p, due past what the run clock holds. */
static __attribute__((noinline, cold)) enum step beyond_clock(const struct trace *t, const struct pkt *p)
{
	log_err("%s record %llu: due past what the run clock holds (2^63 ns, about 292 years); "
		"the run ends before it (check --loopdelay-*, --pps, --mbps, --multiplier)",
		trace_name(t), (unsigned long long)p->recno);
	return STEP_ERROR;
}

/*
 * --segment: the deadline of @p, which lane @l will cut: --mbps counts the
 * bytes of its segments, headers and all, as the wire will carry them.
 */
static __attribute__((noinline)) uint64_t cut_deadline(struct replay *r, const struct lane *l,
						       struct pkt *p)
{
	struct pkt q = *p;
	uint64_t d;

	q.caplen = (uint32_t)MIN(segment_wire_bytes(p->data, p->caplen, l->seg_mtu), UINT32_MAX);
	d = sched_deadline(&r->sched, &q);
	p->sched_ns = q.sched_ns;
	return d;
}

/*
 * source_next() - the source's next packet into @p, from *@tp: read
 * (counted read here: the only place), routed to its lane (*@lp), edited,
 * with its deadline (*@deadline), counted in the flow statistics.  Packets
 * that end here (filtered, failed) are accounted and the next is read.
 * STEP_NEXT with a packet; STEP_AGAIN when the input has no whole record
 * yet; STEP_STOP / STEP_ERROR: the source is done (its end, a signal, the
 * limit, --duration, an error).  Inline, its results in registers.  With
 * @burst (a constant), for the burst path: what burst_fits() rules out is
 * not looked at per packet (no timing, edit, live capture or --segment).
 */
static inline __attribute__((always_inline)) enum step
source_next_in(struct replay *r, struct pkt *p, const struct trace **tp, struct lane **lp, uint64_t *deadline,
	       const bool burst)
{
	const bool timed = !burst && r->plan.timed;

	uint64_t t0 = 0;
	bool skipped = false;

	for (;;) {
		enum step step;
		struct lane *l;

		/*
		 * --threads: after a packet skipped as another thread's the clock
		 * is not read again: the reads of the packets skipped are counted
		 * in the read that holds this thread's next packet up.
		 */
		if (timed && !skipped)
			t0 = sched_now(&r->sched);
		skipped = false;
		step = source_read(r, tp, p);
		if (unlikely(step != STEP_NEXT))
			return step;
		/*
		 * Routed first, every packet, in every thread: --split first learns
		 * as it reads, so each thread feeds its own classifier every
		 * packet, in order, and all place each packet on the side one
		 * thread would.
		 */
		l = route(r, p);
		if (unlikely(r->th.n > 1) && !in_shard(r, p)) {
			if (ends_run(r, false))
				return STEP_STOP;
			skipped = true;
			continue;
		}
		/* A read this slow took a page fault from disk: a late packet is its. */
		if (timed && sched_now(&r->sched) - t0 > READ_SLOW_NS)
			sched_note(&r->sched, WAIT_CAUSE_READ);
		if (unlikely(!l)) {
			/* A tcpprep cache entry without the send bit: tcpreplay skips it, so do we. */
			l = &r->out.lane[0];
			l->st.read++;
			account(r, l, FATE_FILTERED, NULL, NULL);
			if (ends_run(r, false))
				return STEP_STOP;
			continue;
		}
		l->st.read++;
		/* A packet the reader could not make an Ethernet frame of: its reason names it. */
		if (unlikely(p->linktype != LINKTYPE_ETHERNET)) {
			account(r, l, FATE_FAILED, NULL, trace_strerror(*tp));
			if (ends_run(r, true))
				return STEP_STOP;
			continue;
		}
		if (!burst && r->chain && likely(!(r->route.sides1 && r->route.side == SPLIT_NOSEND))) {
			int er;

			edit_chain_set_side(r->chain, r->route.side);
			er = edit_chain_apply(r->chain, p);
			if (er == EDIT_DROP) {
				account(r, l, FATE_FILTERED, NULL, NULL);
				if (ends_run(r, false))
					return STEP_STOP;
				continue;
			}
			if (er < 0) {
				lane_fail(r, l, FATE_EDIT_FAILED, *tp, p, edit_chain_strerror(r->chain));
				if (ends_run(r, true))
					return STEP_STOP;
				continue;
			}
		}
		/*
		 * A live frame is due when it arrived (its timestamp is on the run
		 * clock, src/live/live.c); the impairment adds its delay to that.
		 */
		if (!burst && unlikely(r->plan.live))
			*deadline = p->sched_ns = p->ts_ns;
		else if (!burst && unlikely(p->caplen > l->seg_max))
			*deadline = cut_deadline(r, l, p);
		else
			*deadline = sched_deadline(&r->sched, p);
		/* A deadline past the clock's range would wrap to an earlier time: the run ends here. */
		if (unlikely(p->sched_ns > SCHED_NS_MAX)) {
			l->st.read--;
			return beyond_clock(*tp, p);
		}
		/*
		 * --duration: a packet due after the end is not sent (p->sched_ns:
		 * every mode sets it); the run ends before it, so it is not one of
		 * the run's packets read either.  Both are at most SCHED_NS_MAX: the
		 * sum holds in 64 bits.
		 */
		if (r->plan.duration_ns && p->sched_ns >= r->st.start_ns + r->plan.duration_ns) {
			l->st.read--;
			return STEP_STOP;
		}
		/* As tcpreplay: flows count the packet as edited, as it goes, before any impairment acts. */
		if (!burst && r->flows)
			flow_classify(r->flows, p->data, p->caplen, p->ts_ns, &r->st.flows);
		*lp = l;
		return STEP_NEXT;
	}
}

static inline __attribute__((always_inline)) enum step
source_next(struct replay *r, struct pkt *p, const struct trace **tp, struct lane **lp, uint64_t *deadline)
{
	return source_next_in(r, p, tp, lp, deadline, false);
}

/*
 * --oneatatime, as tcpreplay: before a packet, when the last answer's count
 * is used up, send what is staged, then ask how many to send now; a number
 * (strtoul, base 0: 0x.. too) is that many, anything else (Enter) one.  The
 * end of standard input ends the run as an error: it was cut short.
 */
static __attribute__((noinline)) enum step ask_user(struct replay *r, const struct trace *t,
						    const struct pkt *p)
{
	char line[256];
	unsigned long long n;
	enum step step = flush_all(r);

	if (step != STEP_NEXT)
		return step;
	/* On a line stream (the library's) the prompt is a line of its own. */
	fprintf(r->rep.summary, "**** Next packet #%llu out %s.  How many packets do you wish to send? %s",
		(unsigned long long)p->recno, r->plan.out_name, r->rep.lines ? "\n" : "");
	fflush(r->rep.summary);
	if (!fgets(line, sizeof(line), stdin)) {
		if (*r->stop)
			return STEP_STOP;
		if (!r->rep.lines)
			fputc('\n', r->rep.summary);
		log_err("--oneatatime: standard input ended before %s record %llu", trace_name(t),
			(unsigned long long)p->recno);
		return STEP_ERROR;
	}
	n = strtoull(line, NULL, 0);
	r->ask_left = n ? n : 1;
	return STEP_NEXT;
}

/* The source's packet @p goes: when asked (--oneatatime), through the impairment stage, out of lane @l. */
static inline __attribute__((always_inline)) enum step
send_source(struct replay *r, struct pkt *p, const struct trace *t, struct lane *l, uint64_t deadline)
{
	enum step step;

	if (unlikely(r->plan.oneatatime)) {
		if (!r->ask_left && (step = ask_user(r, t, p)) != STEP_NEXT) {
			lane_fail(r, l, FATE_FAILED, t, p, NULL);
			return step;
		}
		r->ask_left--;
	}
	if (unlikely(r->imp.im)) {
		struct item it = { .p = p, .t = t, .l = l, .deadline = deadline };

		step = impair_stage(r, &it);
	} else {
		step = lane_send_or_fail(r, l, t, p, deadline);
	}
	if (unlikely(r->plan.oneatatime) && step == STEP_NEXT)
		step = flush_all(r); /* asked for, so out now */
	return step;
}

/* How often a wait for input looks at a stop that no signal brings (the library's). */
#define STOP_POLL_NS 100000000ULL

/*
 * wait_input() - the one place the loop waits: the source's input @fd has
 * no whole record and what was staged has been kicked.  Until the input
 * is readable (or ends), until run clock @until_ns (0: no held frame to
 * wait for), or a signal.  Signals are blocked from the stop flag's check
 * until ppoll() lets them in: one that comes just before cannot be lost in
 * a wait a silent input never ends.  true when the time came first.
 */
static bool wait_input(struct replay *r, int fd, uint64_t until_ns)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct timespec ts, *tsp = NULL;
	bool timed_out = false;
	sigset_t block, old;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &block, &old) < 0)
		return false;
	while (!*r->stop) {
		/* No signal ends the wait for a stop of the library's: it looks every STOP_POLL_NS. */
		uint64_t d = r->poll_flags ? STOP_POLL_NS : UINT64_MAX;
		bool capped = r->poll_flags;
		int n;

		tsp = NULL;
		if (until_ns) {
			uint64_t now = sched_now(&r->sched), left = until_ns > now ? until_ns - now : 0;

			capped = capped && left > d;
			d = left < d ? left : d;
		}
		if (d != UINT64_MAX) {
			ts = (struct timespec){ .tv_sec = (time_t)(d / NSEC_PER_SEC),
						.tv_nsec = (long)(d % NSEC_PER_SEC) };
			tsp = &ts;
		}
		n = ppoll(&pfd, 1, tsp, &old);
		if (n == 0 && capped)
			continue;
		timed_out = n == 0;
		break;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	/* A packet found late after a wait for its input is the input's. */
	if (!timed_out && r->plan.timed)
		sched_note(&r->sched, WAIT_CAUSE_READ);
	return timed_out;
}

/*
 * Does the run take the burst path (run_burst())?  At top speed, with one
 * lane and nothing done per packet but reading, routing and counting: no
 * edit (its output may be a buffer the next packet's overwrites), no
 * impairment, no --segment, --fragroute, -v or --send-log, no question, no live
 * capture, one file read at a time.
 */
static bool burst_fits(const struct replay *r)
{
	return !r->plan.timed && !r->plan.live && !r->plan.oneatatime && !r->imp.im && !r->chain &&
	       !r->out.per_pkt && !r->out.frag && r->out.n == 1 && r->out.lane[0].seg_max == UINT32_MAX &&
	       r->src.width == 1;
}

/* A packet of a burst that is not sent: @p of @t failed (its reason said) or was filtered. */
static __attribute__((noinline)) void burst_drop(struct replay *r, struct lane *l, const struct trace *t,
						 const struct pkt *p, bool filtered)
{
	l->st.read++;
	if (filtered)
		account(r, l, FATE_FILTERED, NULL, NULL);
	else
		account(r, l, FATE_FAILED, NULL, trace_strerror(t));
	(void)p;
}

/*
 * burst_views() - what source_next() does for each packet, for the @n
 * views at @v (read from @t, in place in the source's read-ahead): counted
 * read (the file's records, the lane's read), routed, given their deadline.
 * Those that go no further -- another thread's, filtered, failed -- are
 * accounted and left out: the rest are packed to the front of @v, their
 * count in *@kept.  STEP_NEXT, or the run ends at one (its deadline past
 * the clock's range or --duration's end): what follows it goes back to
 * the read-ahead, unread.
 */
static inline __attribute__((always_inline)) enum step burst_views(struct replay *r, struct lane *l,
								   const struct trace *t, struct pkt *v,
								   unsigned n, unsigned *kept)
{
	struct source_file *f = &r->src.files[r->src.f];
	uint64_t bytes = 0, end = r->plan.duration_ns ? r->st.start_ns + r->plan.duration_ns : UINT64_MAX;
	uint64_t prev = r->src.prev_ts;
	const bool sides = r->route.sides1, shard = r->th.n > 1;
	/* The burst path runs at top speed (burst_fits()): the top-speed stamp, kept here over the run. */
	const unsigned every = r->sched.top_every;
	unsigned left = r->sched.top_left;
	uint64_t now = r->sched.top_now_ns;
	bool fresh = true;
	enum step step = STEP_NEXT;
	unsigned i, k = 0;

	for (i = 0; i < n; i++) {
		struct pkt *p = &v[i];

		bytes += p->caplen;
		/* note_ts(), its last timestamp kept in a register. */
		if (unlikely(p->ts_ns > prev + TS_JUMP_NS || p->ts_ns < prev)) {
			r->src.prev_ts = prev;
			source_ts_step(r, t, p);
		}
		prev = p->ts_ns;
		/* As source_next(): routed first, every packet, in every thread. */
		if (unlikely(sides) && !route(r, p)) {
			burst_drop(r, l, t, p, true);
			continue;
		}
		if (unlikely(shard) && !in_shard(r, p))
			continue;
		if (unlikely(p->linktype != LINKTYPE_ETHERNET)) {
			burst_drop(r, l, t, p, false);
			continue;
		}
		/* sched_deadline() at top speed, its stamp and count in registers. */
		if (likely(left)) {
			left--;
		} else {
			now = sched_now(&r->sched);
			left = every > 1 ? every - 1 : 0;
			fresh = true;
		}
		p->sched_ns = now;
		/* A stamp is checked once: the first of the run, and each new reading. */
		if (unlikely(fresh)) {
			fresh = false;
			if (unlikely(now > SCHED_NS_MAX)) {
				step = beyond_clock(t, p);
				break;
			}
			if (unlikely(now >= end)) {
				step = STEP_STOP;
				break;
			}
		}
		if (unlikely(k != i))
			v[k] = *p;
		k++;
	}
	r->sched.top_left = left;
	r->sched.top_now_ns = now;
	r->src.prev_ts = prev;
	if (unlikely(i < n)) {
		/* The packet the run ends at was read; those after it go back. */
		r->src.ahead_i -= n - i - 1;
		n = i + 1;
	}
	f->records += n;
	f->bytes += bytes;
	l->st.read += k;
	*kept = k;
	return step;
}

/* The most packets a burst reads one at a time before it stages them: the default batch. */
#define BURST_MAX TX_BATCH_DEFAULT
/* ...and their bytes: below what the reader promises its views outlive, whatever the frames. */
#define BURST_BYTES (TRACE_VIEW_KEEP_BYTES - TRACE_RECORD_MAX_BYTES)

/*
 * burst() - the source's next packets, as many as the lane's FIFO has room
 * for, without passing --limit, in runs of views (source_views(), in place
 * in the read-ahead), each counted and routed (burst_views()), its flow
 * statistics counted in one call and staged together (stage_burst()):
 * what lane_send() does for each packet, done once for them.  A run is
 * staged before the next is read, so a file's end (which may end a pass)
 * comes after its packets are staged.  A file read a record at a time
 * (not a plain mapped pcap) gives a run of one: the rest of the burst is
 * then read through source_next(), each packet copied out, up to
 * BURST_MAX (their views under BURST_BYTES), the file's end held until
 * they are staged (STEP_EDGE).  A signal and --limit are looked at after
 * each run, as lane_send() ends the run.  Returns the send's step; *@src
 * is the source's (STEP_NEXT: read on), *@mark the run clock of the last
 * packet (0: none).
 */
static enum step burst(struct replay *r, enum step *src, uint64_t *mark)
{
	struct lane *l = &r->out.lane[0];
	const struct trace *acc_t = NULL;
	struct pkt acc[BURST_MAX];
	enum step step = STEP_NEXT;
	unsigned room, na = 0;
	uint64_t abytes = 0;
	bool ends = false;

	*src = STEP_NEXT;
	*mark = 0;
	if (unlikely(l->qn >= l->qcap) && (step = flush_lane(r, l)) != STEP_NEXT)
		return step;
	room = l->qcap - l->qn;
	do {
		struct trace *t;
		struct pkt *v;
		unsigned n, k, max = room;

		/* --limit: no more than it leaves (each packet read counts, but a filtered one). */
		if (unlikely(r->plan.limit))
			max = (unsigned)MIN((uint64_t)max, r->plan.limit - (LANES_SUM(r, read) - LANES_SUM(r, filtered)));
		*src = source_views(r, &v, &n, &t, max, false);
		if (unlikely(*src != STEP_NEXT))
			break;
		*src = burst_views(r, l, t, v, n, &k);
		room -= k;
		if (unlikely(n == 1 && k == 1 && r->src.ahead_i == r->src.ahead_n && *src == STEP_NEXT)) {
			/* Read a record at a time: the rest of the burst so too, each copied out as it comes. */
			acc[na++] = v[0];
			acc_t = t;
			abytes = v[0].caplen;
			ends = *r->stop || limit_reached(r);
			while (likely(!ends) && room && na < BURST_MAX && abytes < BURST_BYTES) {
				const struct trace *tq;
				struct lane *lq;
				uint64_t deadline;

				r->src.hold_end = true;
				*src = source_next_in(r, &acc[na], &tq, &lq, &deadline, true);
				if (unlikely(*src != STEP_NEXT))
					break;
				abytes += acc[na++].caplen;
				room--;
				ends = *r->stop || limit_reached(r);
			}
			r->src.hold_end = false;
			if (*src == STEP_EDGE)
				*src = STEP_NEXT;
			break;
		}
		if (k) {
			*mark = v[k - 1].sched_ns;
			/* The flow statistics in one call, in order, before they are staged (as source_next()). */
			if (r->flows)
				flow_classify_pkts(r->flows, v, k, &r->st.flows);
			step = stage_burst(r, l, t, v, k);
		}
		ends = *r->stop || limit_reached(r);
	} while (likely(!ends && step == STEP_NEXT && *src == STEP_NEXT) && room);
	if (na) {
		*mark = acc[na - 1].sched_ns;
		if (r->flows)
			flow_classify_pkts(r->flows, acc, na, &r->st.flows);
		step = stage_burst(r, l, acc_t, acc, na);
	}
	/* A signal may also have come during the kick of a full batch. */
	if (step == STEP_NEXT && (ends || *r->stop)) {
		step = flush_all(r);
		return step == STEP_NEXT ? STEP_STOP : step;
	}
	/* SIGUSR1: what is staged goes now, then nothing until the next one (suspend.c). */
	if (step == STEP_NEXT && unlikely(run_suspended(r))) {
		step = flush_all(r);
		if (step == STEP_NEXT)
			(void)run_suspend(r);
	}
	return step;
}

/* The run's start: the schedule's origin (--start-at's instant, or the one the threads share), the first pass. */
static void run_start(struct replay *r)
{
	if (!r->th.origin_given)
		r->st.start_ns = r->st.start.set ? r->st.start.origin_ns : sched_start(&r->sched);
	pass_start(r);
}

/* What the loop knows of its producers besides the held queue (none set: read the source). */
enum {
	RUN_HAVE = 1, /* the source's next packet is read and waits to be sent */
	RUN_DONE = 2, /* the source gives no more: its end, --limit, --duration */
	RUN_IDLE = 4, /* its input had no whole record: look again after a wait */
	RUN_WOKE = 8, /* that wait's timer: the earliest held frame is due before the input is looked at */
};

/* The source gives no more (its input is no longer waited for); a live capture is told to end. */
static unsigned source_done(struct replay *r, unsigned state)
{
	source_stop(r);
	return (state & ~(RUN_IDLE | RUN_WOKE)) | RUN_DONE;
}

/*
 * run_burst() - run() for a run that takes the burst path (burst_fits()):
 * nothing is held, so the loop is the source's bursts, and the one wait,
 * for an input that has no whole record.  The step the run ended on.
 */
static enum step run_burst(struct replay *r)
{
	for (;;) {
		enum step src, step;
		uint64_t mark;

		step = burst(r, &src, &mark);
		if (likely(step == STEP_NEXT) && unlikely(mark && progress_due(&r->pass.progress, mark)))
			progress_show(r, mark);
		if (likely(step == STEP_NEXT && src == STEP_NEXT))
			continue;
		if (step == STEP_NEXT && src == STEP_AGAIN) {
			/* Staged frames never wait for the input's next record. */
			step = flush_all(r);
			if (step == STEP_NEXT) {
				(void)wait_input(r, source_fd(r), 0);
				if (!*r->stop)
					continue;
				step = STEP_STOP;
			}
		} else if (step == STEP_NEXT) {
			step = src;
		}
		/* The source is done: its end, --limit, --duration. */
		if (step == STEP_STOP && !*r->stop)
			source_stop(r);
		return step;
	}
}

/*
 * The loop: the earliest producer's packet goes next -- the source's, or
 * the held frame due before it or with it (first on a tie: it was there
 * first).  Without impairment nothing is held: the source's packet goes
 * straight to its lane.  While the input is silent, held frames due within
 * the margin go, and the rest is waited for (wait_input()).  Returns 0, or
 * -1 when the run ended on an error (already logged).  What is left
 * staged is the caller's.
 */
static int run(struct replay *r)
{
	enum step step = STEP_NEXT;
	const struct trace *t = NULL;
	struct lane *l = NULL;
	uint64_t deadline = 0;
	unsigned state = 0;
	struct pkt p;

	run_start(r);
	if (burst_fits(r)) {
		/* The file read in batches; what is read ahead and not sent goes back at the end. */
		r->src.batch = true;
		step = run_burst(r);
		source_unread(r);
		goto out;
	}
	for (;;) {
		const struct dq_entry *h;
		uint64_t mark;

		if (likely(!state)) {
			step = source_next(r, &p, &t, &l, &deadline);
			if (likely(step == STEP_NEXT))
				state = RUN_HAVE;
			else if (step == STEP_AGAIN)
				state = RUN_IDLE;
			else if (step == STEP_ERROR || *r->stop)
				break;
			else
				state = source_done(r, state);
		}
		if (likely(state == RUN_HAVE) && likely(!r->imp.im)) {
			/* Without impairment nothing is held: the source's packet is the earliest. */
			state = 0;
			step = send_source(r, &p, t, l, deadline);
			if (likely(step == STEP_NEXT)) {
				/* p.sched_ns is the run clock at the packet's slot (every mode sets it): no clock read. */
				if (unlikely(progress_due(&r->pass.progress, p.sched_ns)))
					progress_show(r, p.sched_ns);
				continue;
			}
			mark = p.sched_ns;
		} else if ((state & RUN_HAVE) && (!(h = dq_peek(&r->imp.dq)) || p.sched_ns < h->deadline_ns)) {
			state &= ~RUN_HAVE;
			step = send_source(r, &p, t, l, deadline);
			mark = p.sched_ns;
		} else if ((h = dq_peek(&r->imp.dq)) &&
			   (!(state & RUN_IDLE) || (state & RUN_WOKE) ||
			    h->deadline_ns <= sched_now(&r->sched) + WAIT_INPUT_MARGIN_NS)) {
			state &= ~RUN_WOKE;
			step = impair_send_held(r, &mark);
		} else if (state & RUN_IDLE) {
			/* Staged frames never wait for the input's next record. */
			step = flush_all(r);
			if (step == STEP_NEXT) {
				uint64_t until = h ? MAX(h->deadline_ns, WAIT_INPUT_MARGIN_NS + 1) -
							     WAIT_INPUT_MARGIN_NS
						   : 0;

				/* The timer: the held frame goes first, the input is looked at after. */
				state &= ~RUN_IDLE;
				if (wait_input(r, source_fd(r), until))
					state |= RUN_IDLE | RUN_WOKE;
				if (!*r->stop)
					continue;
				step = STEP_STOP;
			}
		} else {
			break; /* the source is done and nothing is held */
		}
		if (unlikely(step != STEP_NEXT)) {
			if (step != STEP_STOP || *r->stop)
				break;
			/* --limit: nothing more is read; what is held still goes, on schedule. */
			state = source_done(r, state);
			step = STEP_NEXT;
		}
		if (unlikely(progress_due(&r->pass.progress, mark)))
			progress_show(r, mark);
	}
	if (state & RUN_HAVE) /* read and counted, but the run ended before it */
		lane_fail(r, l, FATE_FAILED, t, &p, "not sent: the run stopped before it");
out:
	impair_fail_held(r);
	progress_finish(&r->pass.progress);
	source_report_open_warnings(r);
	return step == STEP_ERROR ? -1 : 0;
}

int replay_run(struct replay *r)
{
	int status = EXIT_DONE;

	if (r->stopped)
		r->st.start_ns = sched_now(&r->sched);
	else if (run(r) < 0)
		status = EXIT_FAIL;
	/* The end of the traces (or a read error) leaves the last batch staged: it goes too. */
	if (flush_all(r) == STEP_ERROR)
		status = EXIT_FAIL;
	/* Drain even after an error or a signal: what was accepted must leave, and be counted. */
	for (unsigned i = 0; i < r->out.n; i++)
		if (tx_drain(r->out.lane[i].tx) < 0) {
			log_err("%s", tx_strerror(r->out.lane[i].tx));
			status = EXIT_FAIL;
		}
	r->st.end_ns = sched_now(&r->sched);
	/* The pass the run ended in, with everything sent after its last read. */
	pass_record(r, r->st.end_ns);
	lanes_collect(r);
	if (r->imp.im)
		r->st.impair_qdropped = impair_stats(r->imp.im)->queue_dropped;
	if (r->plan.timed) {
		sched_report(&r->sched, &r->st.sched);
	} else {
		r->st.sched.suspends = r->sched.suspends;
		r->st.sched.suspended_ns = r->sched.suspended_ns;
	}
	return status;
}
