// SPDX-License-Identifier: BSD-2-Clause
/*
 * The send loop: the only file that knows every module.
 *
 *   trace_next -> edit_chain_apply -> sched_deadline -> tx_send (stage) -> sched_wait
 *   -> tx_flush (kick) -> stats
 *
 * Every packet read ends up sent, filtered, or failed with a reason logged;
 * back-pressure is waited out and counted as a retry, never a drop.
 *
 * Batching.  The trace's view of a packet is only promised to outlive a
 * bounded amount of later traffic (trace_next(): TRACE_VIEW_KEEP_BYTES for
 * pipes and converted packets; until close for files), so each packet is
 * staged at once: copied into the method's own memory (a ring frame, a
 * UMEM frame, an sendmmsg slot).  The loop keeps
 * a small FIFO of what is staged (record, deadline, length) until the
 * method reports each one handed to the kernel or failed.  When does it
 * kick?
 *   --topspeed            when the batch is full (large batches, few syscalls);
 *   honouring timestamps  a packet whose deadline is still ahead is staged
 *                         first, then waited for, then kicked at once -- the
 *                         kick is all that stands between deadline and wire;
 *                         before waiting, whatever is already staged (due or
 *                         late) is kicked, so only packets that are already
 *                         due ever share a batch.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "privs.h"
#include "replay.h"
#include "replay/caps.h"
#include "replay/compiler.h"
#include "replay/checks.h"
#include "replay/edit.h"
#include "replay/log.h"
#include "replay/outfile.h"
#include "replay/sendlog.h"
#include "replay/stats.h"
#include "replay/trace.h"
#include "replay/tx.h"

/* Send failures logged in full before the rest are only counted. */
#define FAIL_LOG_MAX 10

enum step {
	STEP_NEXT,  /* go on with the next packet */
	STEP_STOP,  /* a signal or the limit ended the run */
	STEP_ERROR, /* the run cannot go on (interface gone) */
};

/* A packet staged in the method, remembered until it is reported handed over or failed. */
struct staged {
	const struct trace *t; /* for messages */
	uint64_t recno, off;   /* for messages */
	uint64_t deadline_ns;  /* run-clock deadline; unused untimed */
	uint32_t caplen;       /* bytes */
	uint64_t id;           /* pkt_id() for the send log; 0 without one */
};

struct replay {
	const struct opts *o;
	volatile sig_atomic_t *stop;
	struct trace **traces;       /* one per input file, all opened before sending */
	struct edit_chain *chain;    /* NULL when no edit was asked for */
	struct edit_prep *prep;      /* --prep sidecar, checked against the trace */
	uint64_t edit_fails_logged;
	struct tx *tx;
	struct sched sched;
	struct clock_virtual vclock;
	struct stats st;
	FILE *json;                  /* --stats-json output, opened before sending */
	struct outfile json_out;     /* its file, committed after writing */
	struct ifcheck ifc;          /* -i: the interface's own TX counters around the run */
	struct sendlog *slog;        /* --send-log, or NULL */
	uint64_t kick_ns;            /* run clock just before the last kick, with a send log */
	bool timed;                  /* deadlines are waited for and their errors measured */
	uint64_t fails_logged;
	struct staged *q;            /* FIFO of staged packets, qcap = the method's batch */
	unsigned qhead, qn, qcap;
	char mode[160];              /* the method's details for the summary */
};

static uint64_t realtime_minus_mono_ns(void)
{
	struct timespec r, m;

	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &m);
	return ((uint64_t)r.tv_sec - (uint64_t)m.tv_sec) * NSEC_PER_SEC + (uint64_t)r.tv_nsec -
	       (uint64_t)m.tv_nsec;
}

/* Open every trace first: a bad file is reported before a single packet leaves. */
static enum step flush_all(struct replay *r);

/* The reader waits for a pipe: what is staged goes now, not after the input's next record. */
static void input_wait(void *arg)
{
	struct replay *r = arg;

	if (r->tx && r->qn)
		(void)flush_all(r); /* a failure is counted; the next send meets it again */
}

static int open_inputs(struct replay *r)
{
	const struct opts *o = r->o;

	r->traces = calloc((size_t)o->nfiles, sizeof(*r->traces));
	if (!r->traces) {
		log_err("out of memory");
		return -ENOMEM;
	}
	struct trace_cfg tcfg = o->trace;

	tcfg.will_rewind = o->loop != 1;
	tcfg.stop = r->stop;
	tcfg.on_wait = input_wait;
	tcfg.on_wait_arg = r;

	for (int i = 0; i < o->nfiles; i++) {
		struct trace *t;
		int rc = trace_open(&t, o->files[i], &tcfg);

		r->traces[i] = t;
		if (rc == -EINTR && *r->stop)
			return rc; /* stopped, not failed */
		if (rc < 0) {
			log_err("%s", t ? trace_strerror(t) : "out of memory");
			return rc;
		}
		if (o->loop != 1 && !trace_can_rewind(t)) {
			log_err("%s: cannot loop over a pipe; add --preload (-K) to hold it in memory",
				o->files[i]);
			return -ESPIPE;
		}
		/*
		 * The reader turns other link types into Ethernet frames; refuse
		 * the rest now.  Interfaces a pcapng declares later are checked
		 * per packet (run()).
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
	int rc = sendlog_close(r->slog, (int64_t)realtime_minus_mono_ns(), sched_now(&r->sched),
			       err, sizeof(err));

	r->slog = NULL;
	if (rc < 0)
		log_err("%s", err);
	return rc < 0 ? -1 : 0;
}

static void note_fallback(const char *method, const char *why)
{
	log_warn("method %s not used: %s; trying the next", method, why);
}

static int open_output(struct replay *r, const struct tx_ops *ops)
{
	const struct opts *o = r->o;
	struct tx_cfg cfg = o->tx;
	bool chosen = o->method == TX_METHOD_AUTO;
	int rc;

	cfg.clock_to_real_ns = (int64_t)realtime_minus_mono_ns();
	if (ops)
		rc = tx_open_ops(&r->tx, ops, &cfg);
	else if (o->tx.path)
		rc = tx_open(&r->tx, "file", &cfg);
	else if (chosen)
		rc = tx_open_auto(&r->tx, &cfg, note_fallback);
	else
		rc = tx_open(&r->tx, opt_enum_name(tx_method_choices, (int)o->method), &cfg);
	if (rc < 0) {
		log_err("%s", r->tx ? tx_strerror(r->tx) : "out of memory");
		return rc;
	}
	snprintf(r->mode, sizeof(r->mode), "%s%s%s", tx_mode(r->tx),
		 chosen && !o->tx.path && !ops ? (tx_mode(r->tx)[0] ? ", " : "") : "",
		 chosen && !o->tx.path && !ops ? "chosen by --method auto" : "");
	r->qcap = r->tx->batch ? r->tx->batch : 1;
	r->q = calloc(r->qcap, sizeof(*r->q));
	if (!r->q) {
		log_err("out of memory");
		return -ENOMEM;
	}
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

/*
 * --limit counts packets that end sent or failed: every one read and not
 * filtered, including those still staged (they will end one or the other).
 */
static bool limit_reached(const struct replay *r)
{
	return r->o->limit && r->st.read - r->st.filtered >= r->o->limit;
}

static void log_staged_failure(struct replay *r, const struct staged *e, const char *why)
{
	if (r->fails_logged < FAIL_LOG_MAX)
		log_err("%s: record %llu at offset 0x%llx: %s", trace_name(e->t),
			(unsigned long long)e->recno, (unsigned long long)e->off, why);
	else if (r->fails_logged == FAIL_LOG_MAX)
		log_err("further send failures are counted but not shown");
	r->fails_logged++;
}

static inline bool backpressure(int rc)
{
	return rc == -EAGAIN || rc == -ENOBUFS || rc == -EINTR;
}

/* The @k oldest staged packets were handed to the kernel: count them, measure their send error. */
static void settle_sent(struct replay *r, unsigned k)
{
	uint64_t now = r->timed ? sched_now(&r->sched) : 0;

	for (unsigned i = 0; i < k; i++) {
		const struct staged *e = &r->q[r->qhead];

		r->st.sent++;
		r->st.bytes_sent += e->caplen;
		if (r->slog)
			sendlog_add(r->slog, e->id, e->recno, r->kick_ns);
		if (r->timed) {
			if (now >= e->deadline_ns) {
				hist_add(&r->st.send_err, now - e->deadline_ns);
			} else {
				r->st.early++;
				hist_add(&r->st.send_err, 0);
			}
		}
		r->qhead = (r->qhead + 1) % r->qcap;
		r->qn--;
	}
}

/* The oldest staged packet failed for @why. */
static void settle_failed(struct replay *r, const char *why)
{
	log_staged_failure(r, &r->q[r->qhead], why);
	r->st.failed++;
	r->qhead = (r->qhead + 1) % r->qcap;
	r->qn--;
}

/* Every staged packet fails for @why and the method forgets them: nothing of them is sent. */
static void fail_staged(struct replay *r, const char *why)
{
	if (r->qn > 1 && r->fails_logged < FAIL_LOG_MAX) {
		const struct staged *e = &r->q[r->qhead];

		log_err("%s: records from %llu: %u staged packets not sent: %s", trace_name(e->t),
			(unsigned long long)e->recno, r->qn, why);
		r->fails_logged++;
		r->st.failed += r->qn;
		r->qn = 0;
	}
	while (r->qn)
		settle_failed(r, why);
	tx_discard(r->tx);
}

/*
 * Kick until nothing is staged: every staged packet ends handed over or
 * failed.  Back-pressure is waited out (counted as retried) unless a signal
 * asks to stop, which fails what is left.
 */
static enum step flush_all(struct replay *r)
{
	while (r->qn) {
		int rc;

		if (r->slog)
			r->kick_ns = sched_now(&r->sched);
		rc = tx_flush(r->tx);

		if (rc > 0) {
			settle_sent(r, (unsigned)rc < r->qn ? (unsigned)rc : r->qn);
			continue;
		}
		if (rc == 0) {
			/* The method lost count of what it holds: a bug, not the network. */
			fail_staged(r, "internal error: the method reported nothing staged");
			return STEP_ERROR;
		}
		if (backpressure(rc)) {
			if (*r->stop) {
				fail_staged(r, "stopped by a signal while waiting for room to send");
				return STEP_STOP;
			}
			if (rc != -EINTR)
				r->st.retried++;
			tx_wait(r->tx, rc);
			continue;
		}
		settle_failed(r, tx_strerror(r->tx));
		if (tx_fatal(rc)) {
			fail_staged(r, tx_strerror(r->tx));
			return STEP_ERROR;
		}
	}
	return STEP_NEXT;
}

/*
 * Stage @p (copy it into the method's memory) until it is taken or cannot be.  A
 * full stage is kicked; a method still full after that is waited for.
 */
static enum step stage_one(struct replay *r, const struct trace *t, const struct pkt *p,
			   uint64_t deadline)
{
	struct staged e = { .t = t, .recno = p->recno, .off = p->off, .deadline_ns = deadline,
			    .caplen = p->caplen, .id = r->slog ? sendlog_id(p) : 0 };

	for (;;) {
		int rc = tx_send(r->tx, p, 1);

		if (rc == 1) {
			r->q[(r->qhead + r->qn) % r->qcap] = e;
			r->qn++;
			return STEP_NEXT;
		}
		if (backpressure(rc) && r->qn) {
			enum step step = flush_all(r);

			if (step == STEP_NEXT)
				continue;
			log_staged_failure(r, &e, "not sent: the run stopped before it");
			r->st.failed++;
			return step;
		}
		if (backpressure(rc)) {
			if (*r->stop) {
				log_staged_failure(r, &e, "stopped by a signal while waiting for room to send");
				r->st.failed++;
				return STEP_STOP;
			}
			if (rc != -EINTR)
				r->st.retried++;
			tx_wait(r->tx, rc);
			continue;
		}
		log_staged_failure(r, &e, tx_strerror(r->tx));
		r->st.failed++;
		if (tx_fatal(rc)) {
			fail_staged(r, tx_strerror(r->tx));
			return STEP_ERROR;
		}
		return STEP_NEXT;
	}
}

/*
 * One packet from the trace: staged, and kicked when its time comes (see
 * the top of this file).  Every packet ends sent or failed.
 */
static enum step send_one(struct replay *r, const struct trace *t, struct pkt *p)
{
	uint64_t deadline = sched_deadline(&r->sched, p);
	enum step step;

	/* --duration: a packet due after the end is not sent (p->sched_ns: every mode sets it). */
	if (r->o->duration_ns && p->sched_ns >= r->st.start_ns + r->o->duration_ns) {
		step = flush_all(r);
		return step == STEP_NEXT ? STEP_STOP : step;
	}
	r->st.read++;
	if (r->timed && deadline > sched_now(&r->sched)) {
		/* Not due yet: what is staged is, so it goes now rather than after this wait. */
		step = flush_all(r);
		if (step != STEP_NEXT) {
			struct staged e = { .t = t, .recno = p->recno, .off = p->off };

			log_staged_failure(r, &e, "not sent: the run stopped before it");
			r->st.failed++;
			return step;
		}
		step = stage_one(r, t, p, deadline);
		if (step != STEP_NEXT)
			return step;
		/* A signal cuts the wait short; the staged packet then goes at once, as the last. */
		while (sched_wait(&r->sched, deadline) == -EINTR)
			if (*r->stop)
				break;
		step = flush_all(r);
	} else {
		/* Already due: returns at once, but counts a stall (and shifts) if it is late. */
		if (r->timed)
			sched_wait(&r->sched, deadline);
		step = stage_one(r, t, p, deadline);
		if (step == STEP_NEXT && r->qn >= r->qcap)
			step = flush_all(r);
	}
	if (step != STEP_NEXT)
		return step;
	if (*r->stop || limit_reached(r)) {
		step = flush_all(r);
		return step == STEP_NEXT ? STEP_STOP : step;
	}
	return STEP_NEXT;
}

/* A packet the reader could not make an Ethernet frame of: counted failed, with its reason. */
static enum step unconverted(struct replay *r, const struct trace *t)
{
	r->st.read++;
	r->st.failed++;
	if (r->fails_logged < FAIL_LOG_MAX)
		log_err("%s", trace_strerror(t));
	else if (r->fails_logged == FAIL_LOG_MAX)
		log_err("further send failures are counted but not shown");
	r->fails_logged++;
	if (*r->stop || limit_reached(r))
		return STEP_STOP;
	return STEP_NEXT;
}

/* An edit error: the packet is counted failed, with its file and record named. */
static enum step edit_failed(struct replay *r, const struct trace *t, const struct pkt *p)
{
	r->st.read++;
	r->st.failed++;
	if (r->edit_fails_logged < FAIL_LOG_MAX)
		log_err("%s: record %llu at offset 0x%llx: %s", trace_name(t),
			(unsigned long long)p->recno, (unsigned long long)p->off,
			edit_chain_strerror(r->chain));
	else if (r->edit_fails_logged == FAIL_LOG_MAX)
		log_err("further edit failures are counted but not shown");
	r->edit_fails_logged++;
	if (*r->stop || limit_reached(r))
		return STEP_STOP;
	return STEP_NEXT;
}

static void report_warnings(const struct trace *t)
{
	const char *first;
	uint64_t n = trace_warnings(t, &first);

	if (n == 1)
		log_warn("%s", first);
	else if (n > 1)
		log_warn("%s (and %llu more warnings)", first, (unsigned long long)(n - 1));
}

/* Returns 0, or -1 when the run ended on an error (already logged). */
static int run(struct replay *r)
{
	const struct opts *o = r->o;
	enum step step = STEP_NEXT;
	struct pkt p;

	r->st.start_ns = sched_start(&r->sched);
	for (uint64_t pass = 0; o->loop == 0 || pass < o->loop; pass++) {
		uint64_t read_before = r->st.read, sent_before = r->st.sent + r->qn;
		uint64_t filtered_before = r->st.filtered, failed_before = r->st.failed;

		for (int f = 0; f < o->nfiles; f++) {
			struct trace *t = r->traces[f];
			int rc;

			if (pass || f)
				sched_segment(&r->sched, pass && !f ? o->loopdelay_ns : 0);
			if (pass && (rc = trace_rewind(t)) < 0) {
				log_err("%s", trace_strerror(t));
				return -1;
			}
			while ((rc = trace_next(t, &p)) == 1) {
				if (unlikely(p.linktype != LINKTYPE_ETHERNET)) {
					step = unconverted(r, t);
					if (step != STEP_NEXT)
						break;
					continue;
				}
				if (r->chain) {
					int er = edit_chain_apply(r->chain, &p);

					if (er == EDIT_DROP) {
						r->st.read++;
						r->st.filtered++;
						if (*r->stop) {
							step = STEP_STOP;
							break;
						}
						continue;
					}
					if (er < 0) {
						step = edit_failed(r, t, &p);
						if (step != STEP_NEXT)
							break;
						continue;
					}
				}
				step = send_one(r, t, &p);
				if (step != STEP_NEXT)
					break;
			}
			if (!pass)
				report_warnings(t);
			if (rc == -EINTR && *r->stop)
				return 0; /* a signal while waiting for a pipe: stopped, not failed */
			if (rc < 0) {
				log_err("%s", trace_strerror(t));
				return -1;
			}
			if (step == STEP_ERROR)
				return -1;
			if (step == STEP_STOP)
				return 0;
		}
		/* Endless loops over traces without packets would spin forever doing nothing. */
		if (r->st.read == read_before) {
			if (!*r->stop)
				log_warn("the traces hold no packets; nothing to send");
			return 0;
		}
		/* ... and so would endless loops in which every packet is filtered out or fails. */
		if (o->loop == 0 && r->st.sent + r->qn == sent_before && !*r->stop) {
			log_err("--loop 0: a whole pass over the traces sent nothing (%llu packets read: %llu filtered or excluded, %llu failed); stopping",
				(unsigned long long)(r->st.read - read_before),
				(unsigned long long)(r->st.filtered - filtered_before),
				(unsigned long long)(r->st.failed - failed_before));
			return -1;
		}
	}
	return 0;
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

static void cleanup(struct replay *r)
{
	if (r->traces)
		for (int i = 0; i < r->o->nfiles; i++)
			trace_close(r->traces[i]);
	free(r->traces);
	edit_chain_free(r->chain);
	edit_prep_close(r->prep);
	free(r->q);
	tx_close(r->tx);
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
	struct outfile_use *u = calloc((size_t)o->nfiles + 4, sizeof(*u));
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
	u[n++] = (struct outfile_use){ o->tx.path, "-w", true };
	u[n++] = (struct outfile_use){ o->stats_json, "--stats-json", true };
	u[n++] = (struct outfile_use){ o->send_log, "--send-log", true };
	rc = outfile_check(u, n, err, sizeof(err));
	if (rc < 0)
		log_err("%s", err);
	free(u);
	return rc;
}

int replay_main(const struct opts *o, volatile sig_atomic_t *stop)
{
	return replay_main_hooked(o, stop, NULL);
}

int replay_main_hooked(const struct opts *o, volatile sig_atomic_t *stop,
		       const struct replay_hooks *hooks)
{
	const struct replay_hooks none = { 0 };
	struct replay r = { .o = o, .stop = stop, .json_out = OUTFILE_INIT };
	struct sched_cfg scfg = o->sched;
	FILE *summary;
	int status = EXIT_DONE, rc;
	bool stopped;

	scfg.stop = stop;
	if (!hooks)
		hooks = &none;
	/* The real program (not a test's hooks): refuse if a needed capability is missing. */
	if (hooks == &none) {
		char err[1024];

		if (privs_acquire(o, err, sizeof(err)) < 0) {
			log_err("%s", err);
			return EXIT_FAIL;
		}
	}
	stats_init(&r.st);
	if (check_paths(o) < 0)
		return EXIT_FAIL;
	if (!hooks->clock && !o->tx.path)
		realtime(&r, &scfg);
	/* A signal while a pipe's header (or --preload) was awaited: a run stopped before its first packet. */
	rc = open_inputs(&r);
	stopped = rc == -EINTR && *stop;
	if ((rc < 0 && !stopped) || open_edits(&r) < 0 || open_output(&r, hooks->tx_ops) < 0) {
		cleanup(&r);
		return EXIT_FAIL;
	}
	r.st.method = tx_name(r.tx);
	r.st.method_mode = r.mode;
	r.st.dev = r.tx->dev;
	if (hooks->clock) {
		sched_init(&r.sched, &scfg, hooks->clock);
	} else if (tx_virtual_time(r.tx)) {
		clock_virtual_init(&r.vclock);
		sched_init(&r.sched, &scfg, &r.vclock.clk);
	} else {
		sched_init(&r.sched, &scfg, clock_monotonic());
		if (o->sched.mode != SCHED_MODE_TOPSPEED)
			calibrate(&r);
	}
	r.timed = o->sched.mode != SCHED_MODE_TOPSPEED;
	if (open_send_log(&r) < 0) {
		cleanup(&r);
		return EXIT_FAIL;
	}

	if (!o->tx.path && !hooks->tx_ops)
		ifcheck_begin(&r.ifc, r.tx->dev);
	/* Set-up is over: sending on open sockets needs no capability (privs.h says what xdp keeps). */
	if (hooks == &none &&
	    privs_release(tx_name(r.tx), o->tx.path || o->stats_json || o->send_log) < 0) {
		log_err("cannot drop capabilities: %s", strerror(errno));
		cleanup(&r);
		return EXIT_FAIL;
	}
	if (stopped)
		r.st.start_ns = sched_now(&r.sched);
	else if (run(&r) < 0)
		status = EXIT_FAIL;
	/* The end of the traces (or a read error) leaves the last batch staged: it goes too. */
	if (flush_all(&r) == STEP_ERROR)
		status = EXIT_FAIL;
	/* Drain even after an error or a signal: what was accepted must leave, and be counted. */
	if (tx_drain(r.tx) < 0) {
		log_err("%s", tx_strerror(r.tx));
		status = EXIT_FAIL;
	}
	r.st.end_ns = sched_now(&r.sched);
	if (r.timed) {
		r.st.timer = sched_timer_name(r.sched.waiter.timer);
		r.st.spin_margin_ns =
			r.sched.waiter.timer == SCHED_TIMER_HYBRID ? r.sched.waiter.margin_ns : 0;
		r.st.late_threshold_ns = r.sched.late_threshold_ns;
		r.st.late_stalls = r.sched.late_stalls;
		r.st.late_packets = r.sched.late_packets;
		r.st.late_shifted_ns = r.sched.shifted_ns;
		r.st.guard_sleeps = r.sched.waiter.guard_sleeps;
	}
	if (r.slog && close_send_log(&r) < 0)
		status = EXIT_FAIL;
	if (r.st.failed)
		status = EXIT_FAIL;
	/* What the interface itself counted: a deficit is packets we called sent that never left. */
	if (ifcheck_end(&r.ifc, r.st.sent, &r.st) > 0)
		status = EXIT_FAIL;
	/* Only a run without a failure gives its -w output a name (a signal is not a failure). */
	if (status == EXIT_DONE && tx_commit(r.tx) < 0) {
		log_err("%s", tx_strerror(r.tx));
		status = EXIT_FAIL;
	}

	summary = (r.json == stdout || (o->tx.path && !strcmp(o->tx.path, "-")) ||
		   (o->send_log && !strcmp(o->send_log, "-")))
			  ? stderr
			  : stdout;
	if (!o->quiet)
		stats_print(&r.st, summary);
	if (r.json) {
		char err[512];

		if (stats_write_json(&r.st, r.json) < 0) {
			log_err("%s: cannot write statistics: %s", o->stats_json, strerror(errno));
			status = EXIT_FAIL;
		} else if (outfile_fcommit(&r.json_out, r.json, err, sizeof(err)) < 0) {
			log_err("--stats-json: %s", err);
			status = EXIT_FAIL;
		}
	}
	if (*stop)
		status = 128 + *stop;
	cleanup(&r);
	return status;
}
