// SPDX-License-Identifier: BSD-2-Clause
/*
 * The send loop: the only file that knows every module.
 *
 *   trace_next -> edit_chain_apply -> sched_deadline -> sched_wait -> tx_send -> stats
 *
 * Every packet read ends up sent, filtered, or failed with a reason logged;
 * back-pressure is waited out and counted as a retry, never a drop.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay.h"
#include "replay/edit.h"
#include "replay/log.h"
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
	bool timed;                  /* deadlines are waited for and their errors measured */
	uint64_t fails_logged;
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
static int open_inputs(struct replay *r)
{
	const struct opts *o = r->o;

	r->traces = calloc((size_t)o->nfiles, sizeof(*r->traces));
	if (!r->traces) {
		log_err("out of memory");
		return -ENOMEM;
	}
	for (int i = 0; i < o->nfiles; i++) {
		struct trace *t;
		int rc = trace_open(&t, o->files[i], NULL);

		r->traces[i] = t;
		if (rc < 0) {
			log_err("%s", t ? trace_strerror(t) : "out of memory");
			return rc;
		}
		if (trace_linktype(t) != LINKTYPE_ETHERNET) {
			const char *n = linktype_name(trace_linktype(t));

			log_err("%s: link type %u (%s) is not supported yet; only Ethernet (1) traces can be replayed",
				o->files[i], trace_linktype(t), n ? n : "unknown");
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

static int open_output(struct replay *r, const struct tx_ops *ops)
{
	const struct opts *o = r->o;
	struct tx_cfg cfg = {
		.ifname = o->intf1,
		.path = o->write_path,
		.linktype = LINKTYPE_ETHERNET,
		.clock_to_real_ns = (int64_t)realtime_minus_mono_ns(),
	};
	int rc = ops ? tx_open_ops(&r->tx, ops, &cfg)
		     : tx_open(&r->tx, o->write_path ? "file" : "packet", &cfg);

	if (rc < 0) {
		log_err("%s", r->tx ? tx_strerror(r->tx) : "out of memory");
		return rc;
	}
	if (o->stats_json) {
		if (!strcmp(o->stats_json, "-")) {
			r->json = stdout;
		} else {
			r->json = fopen(o->stats_json, "w");
			if (!r->json) {
				log_err("%s: cannot write statistics: %s", o->stats_json, strerror(errno));
				return -errno;
			}
		}
	}
	return 0;
}

static void log_failure(struct replay *r, const struct trace *t, const struct pkt *p)
{
	if (r->fails_logged < FAIL_LOG_MAX)
		log_err("%s: record %llu at offset 0x%llx: %s", trace_name(t),
			(unsigned long long)p->recno, (unsigned long long)p->off, tx_strerror(r->tx));
	else if (r->fails_logged == FAIL_LOG_MAX)
		log_err("further send failures are counted but not shown");
	r->fails_logged++;
}

/* Offer @p to the backend until it is taken or cannot be: every packet ends sent or failed. */
static enum step send_one(struct replay *r, const struct trace *t, struct pkt *p)
{
	uint64_t deadline = sched_deadline(&r->sched, p);

	if (r->timed) {
		while (sched_wait(&r->sched, deadline) == -EINTR)
			if (*r->stop)
				return STEP_STOP; /* not sent, not counted: the run ended before it */
	}
	r->st.read++;
	for (;;) {
		int rc = tx_send(r->tx, p, 1);

		if (rc == 1) {
			r->st.sent++;
			r->st.bytes_sent += p->caplen;
			break;
		}
		if (rc == -EAGAIN || rc == -ENOBUFS || rc == -EINTR) {
			if (*r->stop) {
				r->st.failed++;
				log_err("%s: record %llu: stopped by a signal while waiting for room to send",
					trace_name(t), (unsigned long long)p->recno);
				return STEP_STOP;
			}
			if (rc != -EINTR)
				r->st.retried++;
			tx_wait(r->tx, rc);
			continue;
		}
		r->st.failed++;
		log_failure(r, t, p);
		if (tx_fatal(rc))
			return STEP_ERROR;
		break;
	}
	if (r->timed) {
		uint64_t now = sched_now(&r->sched);

		if (now >= deadline) {
			hist_add(&r->st.send_err, now - deadline);
		} else {
			r->st.early++;
			hist_add(&r->st.send_err, 0);
		}
	}
	if (*r->stop)
		return STEP_STOP;
	if (r->o->limit && r->st.sent + r->st.failed >= r->o->limit)
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
	if (*r->stop || (r->o->limit && r->st.sent + r->st.failed >= r->o->limit))
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
		uint64_t read_before = r->st.read;

		for (int f = 0; f < o->nfiles; f++) {
			struct trace *t = r->traces[f];
			int rc;

			if (pass || f)
				sched_segment(&r->sched, 0);
			if (pass && (rc = trace_rewind(t)) < 0) {
				log_err("%s", trace_strerror(t));
				return -1;
			}
			while ((rc = trace_next(t, &p)) == 1) {
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
	}
	return 0;
}

static void cleanup(struct replay *r)
{
	if (r->traces)
		for (int i = 0; i < r->o->nfiles; i++)
			trace_close(r->traces[i]);
	free(r->traces);
	edit_chain_free(r->chain);
	edit_prep_close(r->prep);
	tx_close(r->tx);
	if (r->json && r->json != stdout)
		fclose(r->json);
}

int replay_main(const struct opts *o, volatile sig_atomic_t *stop)
{
	return replay_main_hooked(o, stop, NULL);
}

int replay_main_hooked(const struct opts *o, volatile sig_atomic_t *stop,
		       const struct replay_hooks *hooks)
{
	const struct replay_hooks none = { 0 };
	struct replay r = { .o = o, .stop = stop };
	struct sched_cfg scfg = { .mode = o->mode };
	FILE *summary;
	int status = EXIT_DONE;

	if (!hooks)
		hooks = &none;
	stats_init(&r.st);
	if (open_inputs(&r) < 0 || open_edits(&r) < 0 || open_output(&r, hooks->tx_ops) < 0) {
		cleanup(&r);
		return EXIT_FAIL;
	}
	r.st.method = tx_name(r.tx);
	r.st.dev = r.tx->dev;
	if (hooks->clock) {
		sched_init(&r.sched, &scfg, hooks->clock);
	} else if (tx_virtual_time(r.tx)) {
		clock_virtual_init(&r.vclock);
		sched_init(&r.sched, &scfg, &r.vclock.clk);
	} else {
		sched_init(&r.sched, &scfg, clock_monotonic());
	}
	r.timed = o->mode != SCHED_MODE_TOPSPEED;

	if (run(&r) < 0)
		status = EXIT_FAIL;
	/* Drain even after an error or a signal: what was accepted must leave, and be counted. */
	if (tx_drain(r.tx) < 0) {
		log_err("%s", tx_strerror(r.tx));
		status = EXIT_FAIL;
	}
	r.st.end_ns = sched_now(&r.sched);
	if (r.st.failed)
		status = EXIT_FAIL;

	summary = (r.json == stdout || (o->write_path && !strcmp(o->write_path, "-"))) ? stderr
										     : stdout;
	if (!o->quiet)
		stats_print(&r.st, summary);
	if (r.json && stats_write_json(&r.st, r.json) < 0) {
		log_err("%s: cannot write statistics: %s", o->stats_json, strerror(errno));
		status = EXIT_FAIL;
	}
	if (*stop)
		status = 128 + *stop;
	cleanup(&r);
	return status;
}
