// SPDX-License-Identifier: BSD-2-Clause
/*
 * What the run reports, and when: --stats-json and --send-log are created
 * before the first packet (a path that cannot be written is refused with
 * nothing sent); after the run (replay_report()) the send log is written
 * out, each interface's own counters are checked against ours, the -w
 * output is committed only if nothing failed, then the summary and the
 * JSON, with the impairment's and the live source's accounts as extras.
 * Called by src/run/setup.c and src/run/run.c; calls nothing else of the
 * run's.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "run_int.h"
#include "replay/json.h"
#include "replay/log.h"

uint64_t realtime_minus_mono_ns(void)
{
	struct timespec r, m;

	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &m);
	return ((uint64_t)r.tv_sec - (uint64_t)m.tv_sec) * NSEC_PER_SEC + (uint64_t)r.tv_nsec -
	       (uint64_t)m.tv_nsec;
}

int report_open_json(struct replay *r)
{
	const char *path = r->o->stats_json;
	char err[512];
	int e;

	if (!path)
		return 0;
	r->rep.json = outfile_fopen(&r->rep.json_out, path, err, sizeof(err));
	if (r->rep.json)
		return 0;
	e = errno;
	if (e == EPERM) /* another user's symbolic link: @err says whose */
		log_err("--stats-json: %s", err);
	else
		log_err("%s: cannot write statistics: %s", path, strerror(e));
	return -e;
}

/* --send-log: created before sending; its clock samples map the run clock to CLOCK_REALTIME. */
int report_open_send_log(struct replay *r)
{
	char err[512];
	int rc;

	if (!r->o->send_log)
		return 0;
	rc = sendlog_open(&r->out.slog, r->o->send_log, (int64_t)realtime_minus_mono_ns(),
			  sched_now(&r->sched), err, sizeof(err));
	if (rc < 0)
		log_err("%s", err);
	return rc;
}

int report_close_send_log(struct replay *r)
{
	char err[512];
	uint64_t stall_ns, stalls = sendlog_stalls(r->out.slog, &stall_ns);
	int rc = sendlog_close(r->out.slog, (int64_t)realtime_minus_mono_ns(), sched_now(&r->sched),
			       err, sizeof(err));

	r->out.slog = NULL;
	r->out.per_pkt = r->out.decode;
	/* No entry is dropped for a slow disk: the send loop waited instead, and says so. */
	if (stalls)
		log_warn("--send-log %s: its writer fell behind; sending waited for it %llu times, %.3f ms in all",
			 r->o->send_log, (unsigned long long)stalls, (double)stall_ns / 1e6);
	if (rc < 0)
		log_err("%s", err);
	return rc < 0 ? -1 : 0;
}

void report_finish_decode(struct replay *r)
{
	char err[256];

	if (r->out.decode && decode_finish(r->out.decode, err, sizeof(err)) < 0 && !*r->stop)
		log_warn("%s", err);
	r->out.decode = NULL;
	r->out.per_pkt = r->out.slog;
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

/*
 * "files": what each input gave, over every pass, in the order played
 * (a directory's captures each on their own); the totals beside it are
 * the run's.  With --threads, every thread reads every record: these are
 * the records read, the shards' sum is "read".
 */
static void files_json(const void *arg, struct json *w)
{
	const struct replay *r = arg;
	const struct source *s = &r->src;

	json_array(w, NULL);
	for (int i = 0; i < s->nfiles; i++) {
		json_object(w, NULL);
		json_str(w, "name", r->o->files[i]);
		json_str(w, "format", trace_format_name(s->traces[i]));
		json_uint(w, "records", s->files[i].records);
		json_uint(w, "bytes", s->files[i].bytes);
		json_uint(w, "warnings", trace_warnings(s->traces[i], NULL));
		json_end(w);
	}
	json_end(w);
}

/* The live source's account: what it captured, and what was lost before it, each on its own line. */
static void live_print(const void *arg, FILE *f)
{
	const struct replay *r = arg;
	const struct live_stats *ls = &r->rep.live_st;
	const char *name = live_name(r->src.live);

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
	const struct live_stats *ls = &r->rep.live_st;
	const char *name = live_name(r->src.live);

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

/* The live source's errors: its capture's own, and frames lost before it; each fails the run. */
static int live_verdict(struct replay *r, int status)
{
	const struct live_stats *ls = &r->rep.live_st;

	if (live_error(r->src.live)) {
		log_err("%s", live_error(r->src.live));
		status = EXIT_FAIL;
	}
	if (ls->kernel_dropped) {
		log_err("--source-interface %s: the kernel dropped %llu arriving frames before capture: the forwarder "
			"fell behind (a larger -B/--buffer-size gives it more time)",
			live_name(r->src.live), (unsigned long long)ls->kernel_dropped);
		status = EXIT_FAIL;
	}
	if (ls->too_long) {
		log_err("--source-interface %s: %llu frames longer than the snap length %u (MTU + 22) not forwarded",
			live_name(r->src.live), (unsigned long long)ls->too_long, ls->snaplen);
		status = EXIT_FAIL;
	}
	return status;
}

/* The send log, the interfaces' own counts and the -w commit: each may fail the run. */
static int outputs_verdict(struct replay *r, int status)
{
	if (r->out.slog && report_close_send_log(r) < 0)
		status = EXIT_FAIL;
	if (r->st.failed)
		status = EXIT_FAIL;
	/* What each interface itself counted: a deficit is packets we called sent that never left. */
	for (unsigned i = 0; i < r->out.n; i++)
		if (ifcheck_end(&r->out.lane[i].ifc, r->st.lane[i].sent, &r->st.lane[i]) > 0)
			status = EXIT_FAIL;
	/* Only a run without a failure gives its -w output a name (a signal is not a failure). */
	for (unsigned i = 0; i < r->out.n; i++)
		if (status == EXIT_DONE && tx_commit(r->out.lane[i].tx) < 0) {
			log_err("%s", tx_strerror(r->out.lane[i].tx));
			status = EXIT_FAIL;
		}
	return status;
}

int replay_report(struct replay *r, int status)
{
	const struct opts *o = r->o;

	status = outputs_verdict(r, status);
	if (r->imp.im) {
		r->st.impaired = true;
		r->st.extra[r->st.nextra++] = (struct stats_extra){ .print = imp_print, .json = imp_json,
								    .key = "impairment", .arg = r };
	}
	if (r->src.live) {
		/* The capture ends here; what it took and what the kernel could not give it. */
		live_stats(r->src.live, &r->rep.live_st);
		r->st.extra[r->st.nextra++] = (struct stats_extra){ .print = live_print, .json = live_json,
								    .key = "live", .arg = r };
	}
	if (!r->src.live && r->src.traces && r->src.files && r->st.nextra < STATS_EXTRA_MAX)
		r->st.extra[r->st.nextra++] = (struct stats_extra){ .json = files_json, .key = "files", .arg = r };
	/* -v: tcpdump's last lines come before the summary. */
	report_finish_decode(r);
	if (!o->quiet)
		stats_print(&r->st, r->rep.summary);
	if (r->src.live)
		status = live_verdict(r, status);
	if (r->rep.json) {
		char err[512];

		if (stats_write_json(&r->st, r->rep.json) < 0) {
			log_err("%s: cannot write statistics: %s", o->stats_json, strerror(errno));
			status = EXIT_FAIL;
		} else if (outfile_fcommit(&r->rep.json_out, r->rep.json, err, sizeof(err)) < 0) {
			log_err("--stats-json: %s", err);
			status = EXIT_FAIL;
		}
	}
	if (*r->stop)
		status = 128 + *r->stop;
	return status;
}
