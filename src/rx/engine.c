// SPDX-License-Identifier: BSD-2-Clause
/*
 * replay-rx's engine (rx.h, rx_engine_run()): options -> inputs (send log,
 * reference, filter, outputs, all checked before the first frame) ->
 * capture -> analysis -> report, JSON, plots -> exit status.  Its main()
 * (main.c) and the shared library (src/lib) call it.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "replay/caps.h"
#include "replay/log.h"
#include "replay/outfile.h"
#include "replay/pkt_id.h"
#include "plot.h"
#include "rx.h"

/* Per-CPU backlog drops, summed over CPUs (second column, hex); -1 if unreadable. */
static int64_t softnet_drops(void)
{
	FILE *f = fopen("/proc/net/softnet_stat", "r");
	unsigned long long processed, dropped;
	char line[512];
	int64_t sum = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %llx", &processed, &dropped) == 2)
			sum += (int64_t)dropped;
	fclose(f);
	return sum;
}

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The program's: every line printed. */
static const struct rx_hooks no_hooks;

struct rx {
	const struct rx_opts *o;
	volatile sig_atomic_t *stop; /* set by a signal (or the library's stop): the capture ends */
	const struct rx_hooks *hooks;
	struct sendlog_data log;
	struct rx_ref ref;
	struct rx_filter filter;
	char *filter_expr;          /* the expression compiled, when made from the reference */
	char *ref_filter;           /* its part made from the reference */
	const char *ref_filter_why; /* what that was made from, or why there is none */
	struct rx_capture *cap;
	uint32_t block_bytes, blocks; /* the ring's layout (rx_ring_layout()) */
	struct rx_fanout *fan;      /* --fanout: the rings, instead of cap */
	struct rx_kstats *ring_k;   /* --fanout: each ring's kernel counters */
	uint64_t *ring_frames;      /* --fanout: each ring's frames */
	struct rx_sink sink;
	struct rx_result res;
	struct rx_source src;
	FILE *json;
	bool json_hooked; /* --json - into hooks->out: not the outfile's */
	bool usage; /* the error is a bad option: exit 2 */
	struct outfile json_out;
	int plot_fd;        /* --plot: the directory, opened once in prepare(); -1 */
	char err[1024];
};

/* The plots' file names in --plot DIR (src/rx/plot_dir.c), checked like every output. */
static const char *const plot_files[] = { "interval.svg", "interval-linear.svg", "error-cdf.svg",
					     "interval-hist.svg", "timeline.svg", "send-series.svg",
					     "send-series.tsv" };

/*
 * No output may overwrite an input or another output, and --plot must be a
 * directory (or not exist yet): all checked before anything is written.
 */
static int check_paths(struct rx *x)
{
	const struct rx_opts *o = x->o;
	struct outfile_use u[7 + ARRAY_SIZE(plot_files)];
	char plot[ARRAY_SIZE(plot_files)][4096];
	struct stat st;
	size_t n = 0;

	u[n++] = (struct outfile_use){ o->read_path, "-r", false };
	u[n++] = (struct outfile_use){ o->reference, "--reference", false };
	u[n++] = (struct outfile_use){ o->send_log, "--send-log", false };
	u[n++] = (struct outfile_use){ o->json, "--json", true };
	u[n++] = (struct outfile_use){ o->write_path, "-w", true };
	u[n++] = (struct outfile_use){ o->write_impairment, "--write-impairment", true };
	if (o->plot_dir) {
		if (stat(o->plot_dir, &st) == 0 && !S_ISDIR(st.st_mode)) {
			snprintf(x->err, sizeof(x->err), "--plot %s: exists and is not a directory",
				 o->plot_dir);
			return -ENOTDIR;
		}
		for (size_t i = 0; i < ARRAY_SIZE(plot_files); i++) {
			snprintf(plot[i], sizeof(plot[i]), "%s/%s", o->plot_dir, plot_files[i]);
			u[n++] = (struct outfile_use){ plot[i], "--plot", true };
		}
	}
	return outfile_check(u, n, x->err, sizeof(x->err));
}

/*
 * With -i and --reference: a kernel filter that accepts the reference's
 * flows only (and --filter's frames: both must pass), so that unrelated
 * traffic on a busy interface never takes ring space.  When the reference's
 * flows cannot be put in a filter (too many, VLAN tags) or the result does
 * not compile, --filter alone is used (or none), and the report says why.
 */
static int ref_filter(struct rx *x)
{
	const struct rx_opts *o = x->o;
	struct rx_filter f;
	char err[512];
	const char *why;
	char *expr = rx_filter_for_ref(&x->ref, &why);
	int rc;

	x->ref_filter_why = why;
	if (!expr)
		return 0;
	if (o->filter) {
		size_t len = strlen(o->filter) + strlen(expr) + 16;

		x->filter_expr = malloc(len);
		if (!x->filter_expr) {
			free(expr);
			snprintf(x->err, sizeof(x->err), "out of memory");
			return -ENOMEM;
		}
		snprintf(x->filter_expr, len, "(%s) and (%s)", o->filter, expr);
	} else {
		x->filter_expr = strdup(expr);
		if (!x->filter_expr) {
			free(expr);
			snprintf(x->err, sizeof(x->err), "out of memory");
			return -ENOMEM;
		}
	}
	rc = rx_filter_compile(&f, x->filter_expr, o->intf, (uint32_t)o->snaplen, err, sizeof(err));
	if (rc < 0 || !rx_filter_fits(&f)) {
		/* Not this reference's fault to fail the run: capture as without it. */
		log_warn("the filter made from the reference is not used (%s)",
			 rc < 0 ? err : "too long for the kernel");
		x->ref_filter_why = rc < 0 ? "it did not compile" : "it is too long for the kernel";
		rx_filter_free(&f);
		free(x->filter_expr);
		x->filter_expr = NULL;
		free(expr);
		return rc == -ENOMEM ? rc : 0;
	}
	rx_filter_free(&x->filter);
	x->filter = f;
	x->ref_filter = expr;
	return 0;
}

/* The outputs, opened before the first frame: the report, the plot directory, -w. */
static int open_outputs(struct rx *x)
{
	const struct rx_opts *o = x->o;
	int rc;

	if (o->json && x->hooks->out && !strcmp(o->json, "-")) {
		x->json = x->hooks->out;
		x->json_hooked = true;
	} else if (o->json) {
		x->json = outfile_fopen(&x->json_out, o->json, x->err, sizeof(x->err));
		if (!x->json) {
			rc = -errno;
			if (rc != -EPERM) /* else x->err names another user's symbolic link */
				snprintf(x->err, sizeof(x->err), "%s: cannot write the report: %s",
					 o->json, strerror(-rc));
			return rc;
		}
	}
	if (o->plot_dir && (x->plot_fd = rx_plot_dir_open(o->plot_dir, x->err, sizeof(x->err))) < 0)
		return x->plot_fd;
	if (o->write_path)
		return rx_pcapout_open(&x->sink.out, o->write_path, x->err, sizeof(x->err));
	return 0;
}

/*
 * The records a live capture makes room for, so the capture loop seldom
 * allocates -- but no more than RX_RESERVE_MAX up front (a huge --count
 * must not take memory, or time, before the first frame): beyond it the
 * records grow a chunk at a time, up to rx_mem_cap().
 */
static size_t records_expected(const struct rx *x)
{
	size_t expect = x->o->count ? x->o->count : x->ref.n + x->ref.n / 8 + 4096;

	if (expect > RX_RESERVE_MAX)
		expect = RX_RESERVE_MAX;
	if (expect > rx_mem_cap() / sizeof(struct rx_rec))
		expect = rx_mem_cap() / sizeof(struct rx_rec);
	return expect;
}

/* -i: the ring (or --fanout's rings) on the interface, with room for @expect records. */
static int open_capture(struct rx *x, size_t expect)
{
	const struct rx_opts *o = x->o;
	long page = sysconf(_SC_PAGESIZE);
	struct rx_capture_cfg cfg = {
		.ifname = o->intf,
		.snaplen = (uint32_t)o->snaplen,
		.block_ms = (uint32_t)o->block_ms,
		.hw_ts = o->hw_ts,
		.filter = &x->filter,
		.fanout = RX_FANOUT_NONE,
	};

	rx_ring_layout(o->ring_kib * 1024u, (uint32_t)o->block_bytes, (uint32_t)o->blocks,
		       (uint32_t)o->snaplen, page > 0 ? (uint32_t)page : 4096u, &x->block_bytes,
		       &x->blocks);
	cfg.block_bytes = x->block_bytes;
	cfg.blocks = x->blocks;
	if (!o->fanout) {
		if (rx_recs_reserve(&x->sink.recs, expect) < 0) {
			snprintf(x->err, sizeof(x->err), "out of memory for %zu records", expect);
			return -ENOMEM;
		}
		return rx_capture_open(&x->cap, &cfg, x->err, sizeof(x->err));
	}
	x->ring_k = calloc(o->fanout, sizeof(*x->ring_k));
	x->ring_frames = calloc(o->fanout, sizeof(*x->ring_frames));
	if (!x->ring_k || !x->ring_frames) {
		snprintf(x->err, sizeof(x->err), "out of memory");
		return -ENOMEM;
	}
	return rx_fanout_open(&x->fan, &cfg, (uint32_t)o->fanout, expect, x->err, sizeof(x->err));
}

/* Everything that can fail before capturing, in the order a user would fix it. */
static int prepare(struct rx *x)
{
	const struct rx_opts *o = x->o;
	uint32_t id_bytes = (uint32_t)o->snaplen;
	int rc;

	if ((rc = check_paths(x)) < 0) {
		x->usage = rc == -EEXIST; /* outputs that would overwrite inputs: bad options, nothing written */
		return rc;
	}
	/* The send log is written while we capture: it is read afterwards, its identities are replay's. */
	if (o->send_log)
		id_bytes = PKT_ID_BYTES;
	if (o->reference &&
	    (rc = rx_ref_load(&x->ref, o->reference, id_bytes, 0, x->err, sizeof(x->err))) < 0)
		return rc;
	rc = rx_filter_compile(&x->filter, o->filter, o->intf, (uint32_t)o->snaplen, x->err,
			       sizeof(x->err));
	if (rc < 0) {
		x->usage = rc == -EINVAL; /* a filter that does not compile is a bad option */
		return rc;
	}
	if (o->intf && o->reference && !o->no_ref_filter && (rc = ref_filter(x)) < 0)
		return rc;
	if ((rc = open_outputs(x)) < 0)
		return rc;
	x->sink.id_bytes = id_bytes;
	x->sink.count_max = o->count;
	x->sink.seq = o->sequence;
	x->src = (struct rx_source){
		.intf = o->intf,
		.file = o->read_path,
		.filter = x->filter_expr ? x->filter_expr : o->filter,
		.filter_user = o->filter,
		.filter_ref = x->ref_filter,
		.filter_ref_why = x->ref_filter_why,
		.reference = o->reference,
		.send_log = o->send_log,
		.snaplen = (uint32_t)o->snaplen,
		.id_bytes = id_bytes,
		.softnet_drops = -1,
		.worst = (size_t)o->worst,
	};
	/* -r reads its records as they come; it needs no room made. */
	return o->intf ? open_capture(x, records_expected(x)) : 0;
}

/*
 * Capturing on an interface needs cap_net_raw (the packet socket) and, with
 * --hw-timestamps, cap_net_admin (SIOCSHWTSTAMP, set at start and restored at
 * close).  Before prepare() (@before): refuse without them, naming them; after
 * it (files and socket open): drop all but what closing needs, before the first frame.
 */
static int privs(struct rx *x, bool before)
{
	uint64_t need = 0;
	char why[128];
	int rc;

	if (x->o->intf)
		need = CAPS_NET_RAW | (x->o->hw_ts ? CAPS_NET_ADMIN : 0);
	if (!before) {
		/* Output files are put in place after the capture: root may need CAPS_FILES for it. */
		bool outputs = x->o->json || x->o->write_path || x->o->plot_dir;

		if ((rc = caps_drop((x->o->hw_ts ? CAPS_NET_ADMIN : 0) | (outputs ? CAPS_FILES : 0))) < 0)
			snprintf(x->err, sizeof(x->err), "cannot drop capabilities: %s", strerror(-rc));
		return rc;
	}
	snprintf(why, sizeof(why), "capturing on %s%s", x->o->intf ? x->o->intf : "",
		 x->o->hw_ts ? " with --hw-timestamps" : "");
	return caps_require(need, "replay-rx", why, x->err, sizeof(x->err));
}

/* After the capture: the sender has finished writing it. */
static int load_send_log(struct rx *x)
{
	const char *path = x->o->send_log;
	struct stat st;
	int rc;

	if (!path)
		return 0;
	/* Bounded before it is read: the whole log is held in memory. */
	if (!stat(path, &st) && (uint64_t)st.st_size > rx_mem_cap()) {
		snprintf(x->err, sizeof(x->err),
			 "%s: %lld bytes: the send log would pass replay-rx's memory cap (%zu MiB, an eighth of physical memory)",
			 path, (long long)st.st_size, rx_mem_cap() >> 20);
		return -E2BIG;
	}
	if ((rc = sendlog_load(&x->log, path, x->err, sizeof(x->err))) < 0)
		return rc;
	if (x->log.hdr.id_bytes != x->src.id_bytes) {
		snprintf(x->err, sizeof(x->err),
			 "%s: identifies packets by their first %u bytes, not %u: written by another version of replay",
			 path, x->log.hdr.id_bytes, x->src.id_bytes);
		return -EINVAL;
	}
	return 0;
}

/* rx_stop's progress: to the hooks' (a live capture's, so never the last). */
static void progress(void *ctx, uint64_t frames, uint64_t bytes, uint64_t elapsed_ns)
{
	const struct rx_hooks *h = ctx;

	h->progress(h->ctx, frames, bytes, elapsed_ns, false);
}

static int receive(struct rx *x)
{
	const struct rx_opts *o = x->o;
	struct rx_stop stop = {
		.timeout_ns = (uint64_t)(o->timeout_s * 1e9),
		.idle_ns = (uint64_t)(o->idle_s * 1e9),
		.progress_ns = x->hooks->progress ? x->hooks->progress_ns : 0,
		.progress = x->hooks->progress ? progress : NULL,
		.ctx = (void *)x->hooks,
	};
	int64_t sn0, sn1;
	int rc;

	if (!x->cap && !x->fan)
		return rx_offline_run(o->read_path, &x->filter, &x->sink, x->stop, x->hooks->ready,
				      x->hooks->ctx, x->err, sizeof(x->err));
	sn0 = softnet_drops();
	/* Scripts wait for this line (as for tcpdump's) before they start sending. */
	if (!x->hooks->ready || x->hooks->err) {
		FILE *err = x->hooks->err ? x->hooks->err : stderr;

		fprintf(err, "replay-rx: listening on %s: snap length %u, ring %u x %u KiB, %u ms%s%.0u%s%s%s\n",
			o->intf, (unsigned)o->snaplen,
			(unsigned)x->blocks, (unsigned)(x->block_bytes >> 10),
			(unsigned)(o->block_ms ? o->block_ms : RX_BLOCK_MS_DEFAULT),
			o->fanout ? ", fanout: rings " : "", (unsigned)o->fanout,
			x->src.filter ? ", filter '" : "", x->src.filter ? x->src.filter : "",
			x->src.filter ? "'" : "");
		fflush(err);
	}
	if (x->hooks->ready)
		x->hooks->ready(x->hooks->ctx);
	if (x->fan) {
		rc = rx_fanout_run(x->fan, &x->sink, &stop, x->stop, x->err, sizeof(x->err));
		x->src.k = rx_fanout_stats(x->fan, x->ring_k, x->ring_frames);
		x->src.rings = rx_fanout_rings(x->fan);
		x->src.ring_k = x->ring_k;
		x->src.ring_frames = x->ring_frames;
	} else {
		rc = rx_capture_run(x->cap, &x->sink, &stop, x->stop, x->err, sizeof(x->err));
		x->src.k = rx_capture_stats(x->cap);
	}
	x->src.kstats_valid = true;
	sn1 = softnet_drops();
	if (sn0 >= 0 && sn1 >= sn0)
		x->src.softnet_drops = sn1 - sn0;
	return rc;
}

/* --write-impairment: written whole, then given its name; nothing on failure. */
static int write_impairment(struct rx *x)
{
	const char *path = x->o->write_impairment;
	struct outfile of = OUTFILE_INIT;
	struct rx_impair_count cnt;
	char why[512];
	FILE *f = outfile_fopen(&of, path, x->err, sizeof(x->err));
	int rc;

	if (!f)
		return -errno;
	rc = rx_impair_write(f, IMPAIR_FMT_BIN, &x->res, &x->sink.recs, &x->ref, &cnt, why,
			     sizeof(why));
	if (rc < 0)
		snprintf(x->err, sizeof(x->err), "%s: %s", path, why);
	else
		rc = outfile_fcommit(&of, f, x->err, sizeof(x->err));
	outfile_fclose(&of, f);
	if (rc < 0)
		return rc;
	log_info("%s: %" PRIu64 " actions: %" PRIu64 " drop, %" PRIu64 " delayed, %" PRIu64
		 " duplicated; %" PRIu64 " delays raised to keep the order; smallest one-way "
		 "delay %.3f ms subtracted",
		 path, cnt.actions, cnt.dropped, cnt.delayed, cnt.duplicated, cnt.raised,
		 (double)cnt.min_owd_ns / 1e6);
	if (cnt.copies_cut)
		log_warn("%s: %" PRIu64 " copies beyond %d per packet left out", path,
			 cnt.copies_cut, IMPAIR_MAX_DUP);
	return 0;
}

static int report(struct rx *x)
{
	const struct rx_opts *o = x->o;
	bool to_stdout_taken = (x->json == stdout) || x->json_hooked ||
			       (o->write_path && !strcmp(o->write_path, "-"));
	FILE *out = x->hooks->out, *err = x->hooks->err;
	int rc;

	if (x->hooks->report)
		rx_report_print(&x->res, &x->src, x->hooks->report);
	if (!o->quiet && (x->hooks == &no_hooks || out))
		rx_report_print(&x->res, &x->src,
				to_stdout_taken ? (err ? err : stderr) : (out ? out : stdout));
	if (x->hooks->json && (rc = rx_report_json(&x->res, &x->src, x->hooks->json)) < 0) {
		snprintf(x->err, sizeof(x->err), "cannot write the report: %s", strerror(-rc));
		return rc;
	}
	if (x->json && (rc = rx_report_json(&x->res, &x->src, x->json)) < 0) {
		snprintf(x->err, sizeof(x->err), "%s: cannot write the report: %s", o->json,
			 strerror(-rc));
		return rc;
	}
	if (x->json_hooked && fflush(x->json) != 0) {
		snprintf(x->err, sizeof(x->err), "cannot write the report: %s", strerror(errno));
		return -EIO;
	}
	if (x->json && !x->json_hooked &&
	    (rc = outfile_fcommit(&x->json_out, x->json, x->err, sizeof(x->err))) < 0)
		return rc;
	if (o->write_impairment && (rc = write_impairment(x)) < 0)
		return rc;
	if (o->plot_dir &&
	    (rc = rx_plot_write_at(x->plot_fd, o->plot_dir, &x->res, &x->sink.recs, &x->ref, x->err,
				   sizeof(x->err))) < 0)
		return rc;
	return 0;
}

static void cleanup(struct rx *x)
{
	rx_capture_close(x->cap);
	rx_fanout_close(x->fan);
	free(x->ring_k);
	free(x->ring_frames);
	rx_pcapout_close(x->sink.out, NULL, 0);
	rx_recs_free(&x->sink.recs);
	rx_result_free(&x->res);
	rx_filter_free(&x->filter);
	free(x->filter_expr);
	free(x->ref_filter);
	rx_ref_free(&x->ref);
	sendlog_free(&x->log);
	if (x->json && !x->json_hooked)
		outfile_fclose(&x->json_out, x->json);
	if (x->plot_fd >= 0)
		close(x->plot_fd);
}

int rx_engine_run(const struct rx_opts *o, volatile sig_atomic_t *stop, const struct rx_hooks *hooks)
{
	struct rx x = { .o = o, .stop = stop, .hooks = hooks ? hooks : &no_hooks, .json_out = OUTFILE_INIT,
			.plot_fd = -1 };
	int status = RX_EXIT_FAIL, rc;
	uint64_t cap_start;

	if (!x.hooks->keep_caps && privs(&x, true) < 0)
		goto out;
	rc = prepare(&x);
	/*
	 * A signal during set-up (reading the reference, opening the ring; an
	 * open() or read() it cut short is no input error): nothing was
	 * captured, so there is nothing to report, and the run ends as one
	 * stopped by that signal.  From here on a signal ends the capture and
	 * the report follows; during the analysis and the report it is
	 * ignored, so the report is finished.
	 */
	if (*x.stop) {
		log_warn("stopped by %s during set-up, before capturing: no report",
			 *x.stop == SIGINT ? "SIGINT" : *x.stop == SIGTERM ? "SIGTERM" : "a signal");
		*x.err = '\0';
		status = 128 + *x.stop;
		goto out;
	}
	if (rc < 0) {
		if (x.usage)
			status = RX_EXIT_USAGE;
		goto out;
	}
	cap_start = mono_ns();
	if ((!x.hooks->keep_caps && privs(&x, false) < 0) || receive(&x) < 0)
		goto out;
	/* The rings merged (--fanout): the counts the report will give. */
	if (x.hooks->progress)
		x.hooks->progress(x.hooks->ctx, x.sink.recs.n, x.sink.bytes, mono_ns() - cap_start, true);
	rx_capture_close(x.cap);
	x.cap = NULL;
	rx_fanout_close(x.fan);
	x.fan = NULL;
	rc = rx_pcapout_close(x.sink.out, x.err, sizeof(x.err));
	x.sink.out = NULL;
	if (rc < 0 || load_send_log(&x) < 0)
		goto out;
	if (rx_analyse(&x.res, &x.sink.recs, o->reference ? &x.ref : NULL,
		       o->send_log ? &x.log : NULL) < 0) {
		snprintf(x.err, sizeof(x.err), "out of memory for the analysis");
		goto out;
	}
	if (o->sequence && rx_analyse_seq(&x.res, &x.sink.recs) < 0) {
		snprintf(x.err, sizeof(x.err), "out of memory for the sequence analysis");
		goto out;
	}
	if (o->per_flow && rx_flows_analyse(&x.res, &x.sink.recs, &x.ref) < 0) {
		snprintf(x.err, sizeof(x.err), "out of memory for the per-flow analysis (%zu flows)",
			 x.ref.flows.n);
		goto out;
	}
	if (report(&x) < 0)
		goto out;
	status = rx_exact(&x.res, x.src.kstats_valid ? &x.src.k : NULL) ? RX_EXIT_OK
									 : RX_EXIT_MISMATCH;
	*x.err = '\0';
out:
	if (*x.err)
		log_err("%s", x.err);
	cleanup(&x);
	return status;
}

