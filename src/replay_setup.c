// SPDX-License-Identifier: BSD-2-Clause
/*
 * Building the run before the loop and taking it down after: every input
 * and output is opened and checked before a packet leaves, and after the
 * last one the outputs are committed, the summary printed, and everything
 * closed.  The loop itself is src/replay.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "privs.h"
#include "replay_int.h"
#include "replay/caps.h"
#include "replay/log.h"

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
	struct trace_cfg tcfg = o->trace;

	tcfg.will_rewind = o->loop != 1;
	tcfg.stop = r->stop;
	tcfg.on_wait = replay_input_wait;
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

/* The output lane: the method (@ops from a test, -w, --method auto's fallback, or the one named). */
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
	rt_release(&r->rt);
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

int replay_open(struct replay *r, const struct opts *o, volatile sig_atomic_t *stop,
		const struct replay_hooks *hooks)
{
	const struct replay_hooks none = { 0 };
	/* The real program, not a test's hooks: capabilities are checked and dropped. */
	bool real = !hooks;
	struct sched_cfg scfg = o->sched;
	int rc;

	*r = (struct replay){ .o = o, .stop = stop, .json_out = OUTFILE_INIT };
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
	if (!hooks->clock && !o->tx.path)
		realtime(r, &scfg);
	/* A signal while a pipe's header (or --preload) was awaited: a run stopped before its first packet. */
	rc = open_inputs(r);
	r->stopped = rc == -EINTR && *stop;
	if ((rc < 0 && !r->stopped) || open_edits(r) < 0 || open_output(r, hooks->tx_ops) < 0)
		goto fail;
	r->st.method = tx_name(r->tx);
	r->st.method_mode = r->mode;
	r->st.dev = r->tx->dev;
	if (hooks->clock) {
		sched_init(&r->sched, &scfg, hooks->clock);
	} else if (tx_virtual_time(r->tx)) {
		clock_virtual_init(&r->vclock);
		sched_init(&r->sched, &scfg, &r->vclock.clk);
	} else {
		sched_init(&r->sched, &scfg, clock_monotonic());
		if (o->sched.mode != SCHED_MODE_TOPSPEED)
			calibrate(r);
	}
	r->timed = o->sched.mode != SCHED_MODE_TOPSPEED;
	if (open_send_log(r) < 0)
		goto fail;

	if (!o->tx.path && !hooks->tx_ops)
		ifcheck_begin(&r->ifc, r->tx->dev);
	/* Set-up is over: sending on open sockets needs no capability (privs.h says what xdp keeps). */
	if (real && privs_release(tx_name(r->tx), o->tx.path || o->stats_json || o->send_log) < 0) {
		log_err("cannot drop capabilities: %s", strerror(errno));
		goto fail;
	}
	return 0;
fail:
	cleanup(r);
	return -1;
}

int replay_close(struct replay *r, int status)
{
	const struct opts *o = r->o;
	FILE *summary;

	if (r->slog && close_send_log(r) < 0)
		status = EXIT_FAIL;
	if (r->st.failed)
		status = EXIT_FAIL;
	/* What the interface itself counted: a deficit is packets we called sent that never left. */
	if (ifcheck_end(&r->ifc, r->st.sent, &r->st) > 0)
		status = EXIT_FAIL;
	/* Only a run without a failure gives its -w output a name (a signal is not a failure). */
	if (status == EXIT_DONE && tx_commit(r->tx) < 0) {
		log_err("%s", tx_strerror(r->tx));
		status = EXIT_FAIL;
	}

	summary = (r->json == stdout || (o->tx.path && !strcmp(o->tx.path, "-")) ||
		   (o->send_log && !strcmp(o->send_log, "-")))
			  ? stderr
			  : stdout;
	if (!o->quiet)
		stats_print(&r->st, summary);
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
