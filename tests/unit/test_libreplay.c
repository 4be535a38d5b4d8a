// SPDX-License-Identifier: BSD-2-Clause
/*
 * libreplay's C interface, through the shared library as a user links it:
 * an argv run to a file checked against the trace's own packets, a run
 * built field by field, a stop from another thread, and bad options
 * refused with a message and nothing printed; the progress callback's
 * cadence, its stop and its misuse; the receiver on a capture file.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "libreplay.h"

/* The bundled traces' folder (meson passes TRACES). */
static char trace_path[4096];

static const char *trace(const char *name)
{
	const char *dir = getenv("TRACES");

	snprintf(trace_path, sizeof(trace_path), "%s/%s", dir ? dir : "traces", name);
	return trace_path;
}

/* Packets and frame bytes of a little-endian pcap, read by hand. */
static void pcap_count(const char *path, uint64_t *pkts, uint64_t *bytes)
{
	FILE *f = fopen(path, "rb");
	unsigned char hdr[24], rec[16];

	assert_non_null(f);
	assert_int_equal(fread(hdr, 1, sizeof(hdr), f), sizeof(hdr));
	/* micro- or nanosecond stamps, little-endian */
	assert_true((hdr[0] == 0xd4 && hdr[1] == 0xc3) || (hdr[0] == 0x4d && hdr[1] == 0x3c));
	assert_true(hdr[2] == 0xb2 && hdr[3] == 0xa1);
	*pkts = *bytes = 0;
	while (fread(rec, 1, sizeof(rec), f) == sizeof(rec)) {
		uint32_t incl = rec[8] | rec[9] << 8 | rec[10] << 16 | (uint32_t)rec[11] << 24;

		assert_int_equal(fseek(f, incl, SEEK_CUR), 0);
		(*pkts)++;
		*bytes += incl;
	}
	fclose(f);
}

static char *tmp_out(void)
{
	char *p = strdup("/tmp/libreplay-test-XXXXXX");
	int fd;

	assert_non_null(p);
	fd = mkstemp(p);
	assert_true(fd >= 0);
	close(fd);
	unlink(p);
	return p;
}

static void argv_to_file(void **state)
{
	char *out = tmp_out();
	const char *argv[] = { "replay", "--topspeed", "-w", out, trace("dns.pcap") };
	struct replay_run *run;
	struct replay_stats st;
	uint64_t pkts, bytes, wpkts, wbytes;
	char *err, want[64];

	(void)state;
	pcap_count(trace("dns.pcap"), &pkts, &bytes);
	assert_true(pkts > 0);
	assert_int_equal(replay_run_new_argv(&run, 5, argv, &err), 0);
	assert_null(err);
	assert_int_equal(replay_run_stats(run, &st, sizeof(st)), -ENODATA);
	assert_int_equal(replay_run_exec(run), 0);
	assert_string_equal(replay_run_error(run), "");
	assert_int_equal(replay_run_stats(run, &st, sizeof(st)), 0);
	assert_int_equal(st.packets_read, pkts);
	assert_int_equal(st.packets_sent, pkts);
	assert_int_equal(st.bytes_sent, bytes);
	assert_int_equal(st.packets_failed, 0);
	assert_int_equal(st.stopped, 0);
	assert_int_equal(st.exit_status, 0);
	/* The JSON is --stats-json's document, the summary the program's. */
	assert_non_null(replay_run_stats_json(run));
	snprintf(want, sizeof(want), "\"packets_sent\":%llu,", (unsigned long long)pkts);
	assert_non_null(strstr(replay_run_stats_json(run), want));
	assert_non_null(replay_run_summary(run));
	assert_true(strlen(replay_run_summary(run)) > 0);
	/* What was written is the trace's packets again. */
	pcap_count(out, &wpkts, &wbytes);
	assert_int_equal(wpkts, pkts);
	assert_int_equal(wbytes, bytes);
	unlink(out);
	/* Run again: the same account, from the same parsed options. */
	assert_int_equal(replay_run_exec(run), 0);
	assert_int_equal(replay_run_stats(run, &st, sizeof(st)), 0);
	assert_int_equal(st.packets_sent, pkts);
	unlink(out);
	replay_run_free(run);
	free(out);
}

static void fields(void **state)
{
	char *out = tmp_out();
	struct replay_run *run;
	struct replay_stats st;

	(void)state;
	assert_int_equal(replay_run_new(&run), 0);
	assert_int_equal(replay_run_add_file(run, trace("http.pcap")), 0);
	assert_int_equal(replay_run_set_output_file(run, out), 0);
	assert_int_equal(replay_run_set_pps(run, 1000), 0);
	assert_int_equal(replay_run_set_loop(run, 2), 0);
	assert_int_equal(replay_run_set_limit(run, 7), 0);
	assert_int_equal(replay_run_exec(run), 0);
	assert_int_equal(replay_run_stats(run, &st, sizeof(st)), 0);
	assert_int_equal(st.packets_sent, 7);
	unlink(out);
	/* A field that contradicts another is found when it runs. */
	assert_int_equal(replay_run_set_topspeed(run), 0);
	assert_int_equal(replay_run_exec(run), -EINVAL);
	assert_non_null(strstr(replay_run_error(run), "pps"));
	replay_run_free(run);
	free(out);
}

static void *stopper(void *arg)
{
	struct timespec ts = { .tv_nsec = 100 * 1000 * 1000 };

	nanosleep(&ts, NULL);
	replay_run_stop(arg);
	return NULL;
}

static void stop_from_thread(void **state)
{
	char *out = tmp_out();
	/* Endless passes (a dry run writes as fast as it can): only the stop ends it before the limit. */
	const char *argv[] = { "replay", "--loop", "0", "--limit", "20000000", "-w", out, trace("dns.pcap") };
	struct replay_run *run;
	struct replay_stats st;
	pthread_t th;

	(void)state;
	assert_int_equal(replay_run_new_argv(&run, 8, argv, NULL), 0);
	assert_int_equal(pthread_create(&th, NULL, stopper, run), 0);
	assert_int_equal(replay_run_exec(run), 0);
	pthread_join(th, NULL);
	assert_int_equal(replay_run_stats(run, &st, sizeof(st)), 0);
	assert_int_equal(st.stopped, 1);
	assert_true(st.packets_sent > 0);
	assert_true(st.packets_sent < 20000000);
	unlink(out);
	/* Stopped before it begins: nothing is sent. */
	assert_int_equal(replay_run_stop(run), 0);
	assert_int_equal(replay_run_exec(run), 0);
	assert_int_equal(replay_run_stats(run, &st, sizeof(st)), 0);
	assert_int_equal(st.stopped, 1);
	assert_int_equal(st.packets_sent, 0);
	assert_int_equal(access(out, F_OK), -1);
	replay_run_free(run);
	free(out);
}

/* What a progress callback saw. */
struct calls {
	unsigned n;                 /* calls during the run (exit_status -1) */
	unsigned ends;              /* calls at the end */
	uint64_t last_sent;         /* packets_sent of the call before */
	bool ordered, same_thread;  /* counts never went back; always the exec's thread */
	uint64_t interval_ns;
	bool early;                 /* a call before its interval's slot */
	unsigned stop_at;           /* return 1 at this call during the run; 0 = never */
	struct replay_run *run;
	int busy_rc;                /* replay_run_set_progress() from inside the callback */
	struct replay_stats end;
	pthread_t thread;
};

static int on_progress(void *user, const struct replay_stats *st)
{
	struct calls *c = user;

	if (!pthread_equal(pthread_self(), c->thread))
		c->same_thread = false;
	if (st->packets_sent < c->last_sent || st->packets_read < st->packets_sent)
		c->ordered = false;
	c->last_sent = st->packets_sent;
	if (st->exit_status >= 0) {
		c->ends++;
		c->end = *st;
		return 0;
	}
	c->n++;
	/* The n-th call comes at or after the n-th interval's end: never twice in one. */
	if (c->interval_ns && st->duration_ns < c->n * c->interval_ns)
		c->early = true;
	if (c->run)
		c->busy_rc = replay_run_set_progress(c->run, 1, on_progress, c);
	return c->stop_at && c->n == c->stop_at;
}

static void calls_init(struct calls *c, uint64_t interval_ns)
{
	*c = (struct calls){ .ordered = true, .same_thread = true, .interval_ns = interval_ns,
			     .thread = pthread_self() };
}

/* A paced run of about 0.4 s, called every 50 ms: as many calls as intervals went by, then the end's. */
static void progress_paced(void **state)
{
	char *out = tmp_out();
	const char *argv[] = { "replay", "--pps", "200", "--loop", "10", "-w", out, trace("dns.pcap") };
	const uint64_t interval = 50 * 1000 * 1000;
	struct replay_run *run;
	struct replay_stats st;
	struct calls c;

	(void)state;
	calls_init(&c, interval);
	assert_int_equal(replay_run_new_argv(&run, 8, argv, NULL), 0);
	assert_int_equal(replay_run_set_progress(run, interval, on_progress, &c), 0);
	assert_int_equal(replay_run_exec(run), 0);
	assert_int_equal(replay_run_stats(run, &st, sizeof(st)), 0);
	assert_int_equal(st.packets_sent, 80);
	assert_true(st.duration_ns >= 350 * 1000 * 1000);
	assert_true(c.n >= 2);
	assert_true(c.n <= st.duration_ns / interval);
	assert_false(c.early);
	assert_true(c.ordered);
	assert_true(c.same_thread);
	/* Once at the end, with the account replay_run_stats() gives. */
	assert_int_equal(c.ends, 1);
	assert_memory_equal(&c.end, &st, sizeof(st));
	unlink(out);
	replay_run_free(run);
	free(out);
}

/* A non-zero return stops the run after that call, as replay_run_stop() does. */
static void progress_stops(void **state)
{
	char *out = tmp_out();
	const char *argv[] = { "replay", "--pps", "20000", "--loop", "0", "--limit", "40000", "-w", out,
			       trace("dns.pcap") };
	struct replay_run *run;
	struct replay_stats st;
	struct calls c;

	(void)state;
	calls_init(&c, 20 * 1000 * 1000);
	c.stop_at = 3;
	assert_int_equal(replay_run_new_argv(&run, 10, argv, NULL), 0);
	assert_int_equal(replay_run_set_progress(run, c.interval_ns, on_progress, &c), 0);
	assert_int_equal(replay_run_exec(run), 0);
	assert_int_equal(replay_run_stats(run, &st, sizeof(st)), 0);
	assert_int_equal(st.stopped, 1);
	assert_true(st.packets_sent > 0);
	assert_true(st.packets_sent < 40000);
	assert_int_equal(c.n, 3);
	assert_int_equal(c.ends, 1);
	assert_int_equal(c.end.stopped, 1);
	assert_int_equal(c.end.packets_sent, st.packets_sent);
	unlink(out);
	replay_run_free(run);
	free(out);
}

/* NULL, no function, interval 0, a change while it runs, a run refused for its options. */
static void progress_misuse(void **state)
{
	char *out = tmp_out();
	const char *argv[] = { "replay", "--pps", "1000", "-w", out, trace("dns.pcap") };
	struct replay_run *run;
	struct replay_stats st;
	struct calls c;

	(void)state;
	assert_int_equal(replay_run_set_progress(NULL, 1, on_progress, NULL), -EINVAL);
	calls_init(&c, 0);
	assert_int_equal(replay_run_new_argv(&run, 6, argv, NULL), 0);
	/* Interval 0: only the end's call.  Changed from inside a call: refused, the run goes on. */
	assert_int_equal(replay_run_set_progress(run, 0, on_progress, &c), 0);
	c.run = run;
	c.busy_rc = 1;
	assert_int_equal(replay_run_exec(run), 0);
	assert_int_equal(replay_run_stats(run, &st, sizeof(st)), 0);
	assert_int_equal(c.n, 0);
	assert_int_equal(c.ends, 1);
	assert_int_equal(c.end.exit_status, 0);
	assert_int_equal(c.end.packets_sent, st.packets_sent);
	unlink(out);
	/* Every 1 ns: a call after every packet, each refusing a change with -EBUSY. */
	assert_int_equal(replay_run_set_progress(run, 1, on_progress, &c), 0);
	calls_init(&c, 1);
	c.run = run;
	c.busy_rc = 1;
	assert_int_equal(replay_run_exec(run), 0);
	assert_true(c.n >= 1);
	assert_int_equal(c.busy_rc, -EBUSY);
	assert_int_equal(c.ends, 1);
	unlink(out);
	/* No function: no call. */
	assert_int_equal(replay_run_set_progress(run, 1, NULL, &c), 0);
	calls_init(&c, 1);
	assert_int_equal(replay_run_exec(run), 0);
	assert_int_equal(c.n + c.ends, 0);
	unlink(out);
	/* Refused for its options: no call. */
	assert_int_equal(replay_run_set_progress(run, 1, on_progress, &c), 0);
	assert_int_equal(replay_run_set_topspeed(run), 0);
	assert_int_equal(replay_run_exec(run), -EINVAL);
	assert_int_equal(c.n + c.ends, 0);
	replay_run_free(run);
	free(out);
}

/* Everything written to fds 1 and 2 while @fn runs, into @buf. */
static size_t captured(void (*fn)(void), char *buf, size_t len)
{
	int p[2], saved1 = dup(1), saved2 = dup(2);
	ssize_t n;

	assert_int_equal(pipe(p), 0);
	fflush(stdout);
	fflush(stderr);
	dup2(p[1], 1);
	dup2(p[1], 2);
	close(p[1]);
	fn();
	fflush(stdout);
	fflush(stderr);
	dup2(saved1, 1);
	dup2(saved2, 2);
	close(saved1);
	close(saved2);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	n = read(p[0], buf, len - 1);
	close(p[0]);
	buf[n > 0 ? n : 0] = '\0';
	return n > 0 ? (size_t)n : 0;
}

static int bad_rc, missing_rc;
static char *bad_err;
static char missing_err[1024];

static void bad_option(void)
{
	const char *argv[] = { "replay", "--no-such-option", "x.pcap" };
	struct replay_run *run = (struct replay_run *)1;

	bad_rc = replay_run_new_argv(&run, 3, argv, &bad_err);
	if (run)
		bad_rc = -1000; /* no handle after a refusal */
}

static int missing_status_before, missing_status;

static void missing_file(void)
{
	struct replay_run *run;

	replay_run_new(&run);
	replay_run_add_file(run, "/nonexistent/no.pcap");
	replay_run_set_output_file(run, "/tmp/libreplay-never-written.pcap");
	missing_status_before = replay_run_exit_status(run);
	missing_rc = replay_run_exec(run);
	missing_status = replay_run_exit_status(run);
	snprintf(missing_err, sizeof(missing_err), "%s", replay_run_error(run));
	replay_run_free(run);
}

static void refused_silently(void **state)
{
	char out[4096];

	(void)state;
	assert_int_equal(captured(bad_option, out, sizeof(out)), 0);
	assert_int_equal(bad_rc, -EINVAL);
	assert_non_null(bad_err);
	assert_non_null(strstr(bad_err, "no-such-option"));
	free(bad_err);
	assert_int_equal(captured(missing_file, out, sizeof(out)), 0);
	assert_true(missing_rc == -EINVAL || missing_rc == -EIO);
	assert_non_null(strstr(missing_err, "/nonexistent/no.pcap"));
	/* Its set-up failed: replay's exit status all the same (-1 before the run). */
	assert_int_equal(missing_status_before, -1);
	assert_int_equal(missing_status, 1);
	assert_int_equal(replay_run_exit_status(NULL), -1);
	/* The program's own commands are not runs. */
	{
		const char *argv[] = { "replay", "--version" };
		struct replay_run *run;
		char *err;

		assert_int_equal(replay_run_new_argv(&run, 2, argv, &err), -EINVAL);
		assert_non_null(strstr(err, "--version"));
		free(err);
	}
}

/* The receiver's engine on a capture file: the report as replay-rx --json writes it, nothing printed. */
static int rx_rc;
static char rx_json[4096];
static char rx_report_text[4096];

static void rx_offline(void)
{
	char ref[4096];
	const char *argv[] = { "replay-rx", "-r", trace("dns.pcap"), "--reference", ref };
	struct replay_rx *rx;

	snprintf(ref, sizeof(ref), "%s", trace("dns.pcap"));
	rx_rc = replay_rx_new_argv(&rx, 5, argv, NULL);
	if (rx_rc == 0)
		rx_rc = replay_rx_start(rx);
	if (rx_rc == 0)
		rx_rc = replay_rx_wait(rx);
	if (rx_rc == 0 && replay_rx_exit_status(rx) != 0)
		rx_rc = -1000 - replay_rx_exit_status(rx);
	snprintf(rx_json, sizeof(rx_json), "%s", replay_rx_report_json(rx) ? replay_rx_report_json(rx) : "");
	snprintf(rx_report_text, sizeof(rx_report_text), "%s", replay_rx_report(rx) ? replay_rx_report(rx) : "");
	replay_rx_free(rx);
}

static void receiver(void **state)
{
	char out[4096];
	const char *bad[] = { "replay-rx", "--no-such-option" };
	struct replay_rx *rx;
	char *err;

	(void)state;
	assert_int_equal(captured(rx_offline, out, sizeof(out)), 0);
	assert_int_equal(rx_rc, 0);
	assert_non_null(strstr(rx_json, "\"received\":8,"));
	assert_true(strlen(rx_report_text) > 0);
	assert_int_equal(replay_rx_new_argv(&rx, 2, bad, &err), -EINVAL);
	assert_null(rx);
	assert_non_null(strstr(err, "no-such-option"));
	free(err);
}

struct ready_calls {
	int n, ret, busy_rc, progress_before;
	pthread_t thread;
	struct replay_run *run;
	uint64_t progress_calls;
};

static int on_ready(void *user)
{
	struct ready_calls *c = user;

	c->n++;
	c->thread = pthread_self();
	c->progress_before = (int)c->progress_calls;
	if (c->run)
		c->busy_rc = replay_run_set_ready(c->run, NULL, NULL);
	return c->ret;
}

static int count_progress(void *user, const struct replay_stats *st)
{
	struct ready_calls *c = user;

	(void)st;
	c->progress_calls++;
	return 0;
}

/*
 * Set-up done: one call on the run's thread before any packet (before any
 * progress call); a non-zero return ends the run unsent; misuse refused.
 */
static void run_ready(void **state)
{
	char *out = tmp_out();
	const char *argv[] = { "replay", "--pps", "1000", "-w", out, trace("dns.pcap") };
	struct ready_calls c = { 0 };
	struct replay_run *run;
	struct replay_stats st;

	(void)state;
	assert_int_equal(replay_run_set_ready(NULL, on_ready, &c), -EINVAL);
	assert_int_equal(replay_run_new_argv(&run, 6, argv, NULL), 0);
	assert_int_equal(replay_run_set_ready(run, on_ready, &c), 0);
	assert_int_equal(replay_run_set_progress(run, 1, count_progress, &c), 0);
	c.run = run;
	c.busy_rc = 1;
	assert_int_equal(replay_run_exec(run), 0);
	assert_int_equal(replay_run_stats(run, &st, sizeof(st)), 0);
	assert_int_equal(c.n, 1);
	assert_true(pthread_equal(c.thread, pthread_self()));
	assert_int_equal(c.busy_rc, -EBUSY);
	assert_int_equal(c.progress_before, 0);
	assert_true(c.progress_calls >= 2);
	assert_int_equal(st.packets_sent, 8);
	assert_int_equal(st.stopped, 0);
	unlink(out);
	/* A non-zero return: nothing sent, the run stopped, no error. */
	c = (struct ready_calls){ .ret = 1 };
	assert_int_equal(replay_run_exec(run), 0);
	assert_int_equal(replay_run_stats(run, &st, sizeof(st)), 0);
	assert_int_equal(c.n, 1);
	assert_int_equal(st.packets_sent, 0);
	assert_int_equal(st.stopped, 1);
	unlink(out);
	/* No function: no call.  Refused for its options: no call. */
	assert_int_equal(replay_run_set_ready(run, NULL, &c), 0);
	c = (struct ready_calls){ 0 };
	assert_int_equal(replay_run_exec(run), 0);
	assert_int_equal(c.n, 0);
	unlink(out);
	assert_int_equal(replay_run_set_ready(run, on_ready, &c), 0);
	assert_int_equal(replay_run_set_topspeed(run), 0);
	assert_int_equal(replay_run_exec(run), -EINVAL);
	assert_int_equal(c.n, 0);
	replay_run_free(run);
	free(out);
}

/*
 * The receiver's, with -r too: once its file is open, before
 * replay_rx_start() returns; a non-zero return ends it before the first
 * frame, and the report follows (nothing received); misuse refused.
 */
static void rx_ready(void **state)
{
	const char *argv[] = { "replay-rx", "-q", "-r", trace("dns.pcap") };
	struct ready_calls c = { 0 };
	struct replay_rx *rx;

	(void)state;
	assert_int_equal(replay_rx_set_ready(NULL, on_ready, &c), -EINVAL);
	assert_int_equal(replay_rx_new_argv(&rx, 4, argv, NULL), 0);
	assert_int_equal(replay_rx_set_ready(rx, on_ready, &c), 0);
	assert_int_equal(replay_rx_start(rx), 0);
	assert_int_equal(c.n, 1);
	assert_int_equal(replay_rx_set_ready(rx, NULL, NULL), -EBUSY);
	assert_int_equal(replay_rx_wait(rx), 0);
	assert_int_equal(c.n, 1);
	assert_non_null(strstr(replay_rx_report_json(rx), "\"received\":8,"));
	c = (struct ready_calls){ .ret = 1 };
	assert_int_equal(replay_rx_start(rx), 0);
	assert_int_equal(replay_rx_wait(rx), 0);
	assert_int_equal(c.n, 1);
	assert_non_null(strstr(replay_rx_report_json(rx), "\"received\":0,"));
	assert_int_equal(replay_rx_set_ready(rx, NULL, NULL), 0);
	replay_rx_free(rx);
}

struct rx_calls {
	int n, ends, ret;
	uint64_t frames, bytes;
	bool ordered, same_thread;
	pthread_t thread;
	struct replay_rx *rx;
	int busy_rc;
};

static int on_rx_progress(void *user, const struct replay_rx_progress *p)
{
	struct rx_calls *c = user;

	if (c->n + c->ends == 0)
		c->thread = pthread_self();
	else if (!pthread_equal(c->thread, pthread_self()))
		c->same_thread = false;
	if (p->frames < c->frames || p->bytes < c->bytes)
		c->ordered = false;
	c->frames = p->frames;
	c->bytes = p->bytes;
	if (c->rx)
		c->busy_rc = replay_rx_set_progress(c->rx, 1, on_rx_progress, c);
	if (p->done)
		c->ends++;
	else
		c->n++;
	return c->ret;
}

/*
 * The receiver's progress on a capture file: no interval's call (-r is not
 * a live capture), one last call with the report's counts, on the
 * receiver's thread; its return ignored; misuse refused.
 */
static void rx_progress(void **state)
{
	const char *argv[] = { "replay-rx", "-q", "-r", trace("dns.pcap") };
	struct rx_calls c = { .ordered = true, .same_thread = true, .ret = 1 };
	struct replay_rx *rx;
	uint64_t pkts, bytes;
	char want[64];

	(void)state;
	pcap_count(trace("dns.pcap"), &pkts, &bytes);
	assert_int_equal(replay_rx_set_progress(NULL, 1, on_rx_progress, &c), -EINVAL);
	assert_int_equal(replay_rx_new_argv(&rx, 4, argv, NULL), 0);
	assert_int_equal(replay_rx_set_progress(rx, 1000, on_rx_progress, &c), 0);
	c.rx = rx;
	assert_int_equal(replay_rx_start(rx), 0);
	/* Changed while it runs (here, or from inside a call): refused. */
	assert_int_equal(replay_rx_set_progress(rx, 1, NULL, NULL), -EBUSY);
	assert_int_equal(replay_rx_wait(rx), 0);
	assert_int_equal(replay_rx_exit_status(rx), 0);
	assert_int_equal(c.busy_rc, -EBUSY);
	assert_int_equal(c.n, 0);
	assert_int_equal(c.ends, 1);
	assert_true(c.same_thread);
	assert_false(pthread_equal(c.thread, pthread_self()));
	assert_int_equal(c.frames, pkts);
	assert_int_equal(c.bytes, bytes);
	snprintf(want, sizeof(want), "\"received\":%" PRIu64 ",", pkts);
	assert_non_null(strstr(replay_rx_report_json(rx), want));
	/* No function: no call, on the same handle run again. */
	assert_int_equal(replay_rx_set_progress(rx, 1, NULL, &c), 0);
	c = (struct rx_calls){ 0 };
	assert_int_equal(replay_rx_start(rx), 0);
	assert_int_equal(replay_rx_wait(rx), 0);
	assert_int_equal(c.n + c.ends, 0);
	replay_rx_free(rx);
}

/* What a line callback was handed: each stream's lines, newlines put back. */
struct lines_got {
	char out[8192], err[8192];
	size_t nout, nerr;
	int calls;
	bool same_thread;
	pthread_t thread;
	struct replay_rx *rx;
	int busy_rc;
};

static void on_line(void *user, enum replay_stream stream, const char *line)
{
	struct lines_got *g = user;
	char *buf = stream == REPLAY_STREAM_STDOUT ? g->out : g->err;
	size_t *n = stream == REPLAY_STREAM_STDOUT ? &g->nout : &g->nerr;

	assert_true(stream == REPLAY_STREAM_STDOUT || stream == REPLAY_STREAM_STDERR);
	assert_null(strchr(line, '\n'));
	*n += (size_t)snprintf(buf + *n, 8192 - *n, "%s\n", line);
	assert_true(*n < 8192);
	if (!pthread_equal(pthread_self(), g->thread))
		g->same_thread = false;
	if (g->rx)
		g->busy_rc = replay_rx_set_lines(g->rx, NULL, NULL);
	g->calls++;
}

/* A run's --stats 0 lines and summary, on the running thread, as the summary the handle keeps. */
static struct lines_got run_got;
static int run_lines_rc;
static char *run_lines_summary;

static void run_lines_body(void)
{
	char *out = tmp_out();
	const char *argv[] = { "replay", "--topspeed", "--loop", "2", "--stats", "0", "-w", out,
			       trace("dns.pcap") };
	struct replay_run *run;

	run_got = (struct lines_got){ .same_thread = true, .thread = pthread_self() };
	assert_int_equal(replay_run_new_argv(&run, 9, argv, NULL), 0);
	assert_int_equal(replay_run_set_lines(run, on_line, &run_got), 0);
	run_lines_rc = replay_run_exec(run);
	run_lines_summary = strdup(replay_run_summary(run) ? replay_run_summary(run) : "");
	/* Unset: the next run hands over nothing. */
	assert_int_equal(replay_run_set_lines(run, NULL, &run_got), 0);
	run_got.calls = 0;
	assert_int_equal(replay_run_exec(run), 0);
	assert_int_equal(run_got.calls, 0);
	replay_run_free(run);
	unlink(out);
	free(out);
}

/* With --stats-json - stdout carries the JSON: the summary is handed over as stderr's. */
static void run_lines_json_body(void)
{
	char *out = tmp_out();
	const char *argv[] = { "replay", "--topspeed", "--stats-json", "-", "-w", out, trace("dns.pcap") };
	struct replay_run *run;

	run_got = (struct lines_got){ .same_thread = true, .thread = pthread_self() };
	assert_int_equal(replay_run_new_argv(&run, 7, argv, NULL), 0);
	assert_int_equal(replay_run_set_lines(run, on_line, &run_got), 0);
	run_lines_rc = replay_run_exec(run);
	run_lines_summary = strdup(replay_run_summary(run) ? replay_run_summary(run) : "");
	replay_run_free(run);
	unlink(out);
	free(out);
}

static void run_lines(void **state)
{
	char printed[4096];

	(void)state;
	assert_int_equal(replay_run_set_lines(NULL, on_line, NULL), -EINVAL);
	assert_int_equal(captured(run_lines_body, printed, sizeof(printed)), 0);
	assert_int_equal(run_lines_rc, 0);
	assert_true(run_got.same_thread);
	assert_int_equal(run_got.nerr, 0);
	/* A --stats 0 line per pass, then the summary: every byte the handle's summary has. */
	assert_non_null(strstr(run_got.out, "Actual: "));
	assert_string_equal(run_got.out, run_lines_summary);
	free(run_lines_summary);
	/* Only the JSON reached the process's stdout, as asked for by "-". */
	assert_true(captured(run_lines_json_body, printed, sizeof(printed)) > 0);
	assert_int_equal(run_lines_rc, 0);
	assert_int_equal(printed[0], '{');
	assert_null(strstr(printed, "Actual: "));
	assert_int_equal(run_got.nout, 0);
	assert_non_null(strstr(run_got.err, "Actual: "));
	assert_string_equal(run_got.err, run_lines_summary);
	free(run_lines_summary);
}

/* The receiver's report table and --json -'s report as lines, where replay-rx prints them. */
static struct lines_got rx_got;
static int rx_lines_rc, rx_lines_busy;
static char *rx_lines_report, *rx_lines_json;

static void rx_lines_body(void)
{
	const char *argv[] = { "replay-rx", "-r", trace("dns.pcap"), "--json", "-" };
	struct replay_rx *rx;

	rx_got = (struct lines_got){ .same_thread = true };
	assert_int_equal(replay_rx_new_argv(&rx, 5, argv, NULL), 0);
	assert_int_equal(replay_rx_set_lines(rx, on_line, &rx_got), 0);
	rx_got.rx = rx;
	rx_got.busy_rc = 0;
	rx_lines_rc = replay_rx_start(rx);
	if (rx_lines_rc == 0) {
		rx_lines_busy = replay_rx_set_lines(rx, NULL, NULL);
		rx_lines_rc = replay_rx_wait(rx);
	}
	rx_lines_report = strdup(replay_rx_report(rx) ? replay_rx_report(rx) : "");
	rx_lines_json = strdup(replay_rx_report_json(rx) ? replay_rx_report_json(rx) : "");
	replay_rx_free(rx);
}

static void rx_lines(void **state)
{
	char printed[4096];
	const char *quiet[] = { "replay-rx", "-q", "-r", trace("dns.pcap") };
	struct replay_rx *rx;

	(void)state;
	assert_int_equal(replay_rx_set_lines(NULL, on_line, NULL), -EINVAL);
	assert_int_equal(captured(rx_lines_body, printed, sizeof(printed)), 0);
	assert_int_equal(rx_lines_rc, 0);
	assert_int_equal(rx_lines_busy, -EBUSY);
	assert_int_equal(rx_got.busy_rc, -EBUSY); /* also from inside a call */
	/* stdout carries the JSON: the table goes to stderr, as replay-rx's does. */
	assert_non_null(strstr(rx_got.out, "\"received\":8,"));
	assert_string_equal(rx_got.out, rx_lines_json);
	assert_true(rx_got.nerr > 0);
	assert_string_equal(rx_got.err, rx_lines_report);
	free(rx_lines_report);
	free(rx_lines_json);
	/* -q: no table, no line. */
	rx_got = (struct lines_got){ .same_thread = true };
	assert_int_equal(replay_rx_new_argv(&rx, 4, quiet, NULL), 0);
	assert_int_equal(replay_rx_set_lines(rx, on_line, &rx_got), 0);
	assert_int_equal(replay_rx_start(rx), 0);
	assert_int_equal(replay_rx_wait(rx), 0);
	assert_int_equal(rx_got.calls, 0);
	assert_non_null(replay_rx_report(rx));
	replay_rx_free(rx);
}

/* replay_rx_interrupt() from a signal handler, before the capture: it ends in set-up, 128 + the signal. */
static struct replay_rx *sig_rx;

static void on_usr1(int sig)
{
	(void)sig;
	replay_rx_interrupt(sig_rx, SIGTERM);
}

static void rx_interrupt(void **state)
{
	const char *argv[] = { "replay-rx", "-q", "-r", trace("dns.pcap") };
	struct sigaction sa, old;

	(void)state;
	assert_int_equal(replay_rx_interrupt(NULL, SIGINT), -EINVAL);
	assert_int_equal(replay_rx_new_argv(&sig_rx, 4, argv, NULL), 0);
	assert_int_equal(replay_rx_interrupt(sig_rx, -1), -EINVAL);
	assert_int_equal(replay_rx_interrupt(sig_rx, 128), -EINVAL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	assert_int_equal(raise(SIGUSR1), 0);
	assert_int_equal(sigaction(SIGUSR1, &old, NULL), 0);
	assert_int_equal(replay_rx_start(sig_rx), -EIO);
	assert_int_equal(replay_rx_exit_status(sig_rx), 128 + SIGTERM);
	assert_null(replay_rx_report(sig_rx));
	/* It applied to that capture only. */
	assert_int_equal(replay_rx_start(sig_rx), 0);
	assert_int_equal(replay_rx_wait(sig_rx), 0);
	assert_int_equal(replay_rx_exit_status(sig_rx), 0);
	/* replay_rx_stop() with nothing running leaves no interrupt behind. */
	assert_int_equal(replay_rx_stop(sig_rx), 0);
	assert_int_equal(replay_rx_start(sig_rx), 0);
	assert_int_equal(replay_rx_wait(sig_rx), 0);
	assert_int_equal(replay_rx_exit_status(sig_rx), 0);
	replay_rx_free(sig_rx);
}

/* --oneatatime's prompt, without a newline of its own, is a line of its own; the answers from stdin. */
static struct lines_got ask_got;
static int ask_rc;

static void run_ask_body(void)
{
	char *out = tmp_out();
	const char *argv[] = { "replay", "--oneatatime", "-w", out, trace("dns.pcap") };
	struct replay_run *run;
	int p[2], saved0 = dup(0);

	assert_int_equal(pipe(p), 0);
	/* One packet, then the other seven. */
	assert_int_equal(write(p[1], "\n7\n", 3), 3);
	close(p[1]);
	dup2(p[0], 0);
	close(p[0]);
	ask_got = (struct lines_got){ .same_thread = true, .thread = pthread_self() };
	assert_int_equal(replay_run_new_argv(&run, 5, argv, NULL), 0);
	assert_int_equal(replay_run_set_lines(run, on_line, &ask_got), 0);
	ask_rc = replay_run_exec(run);
	replay_run_free(run);
	dup2(saved0, 0);
	close(saved0);
	clearerr(stdin);
	unlink(out);
	free(out);
}

static void run_ask(void **state)
{
	char printed[4096];
	const char *second;

	(void)state;
	assert_int_equal(captured(run_ask_body, printed, sizeof(printed)), 0);
	assert_int_equal(ask_rc, 0);
	/* Two prompts, each a whole line, the summary on lines after them. */
	assert_true(strncmp(ask_got.out, "**** Next packet #1 out ", 24) == 0);
	second = strstr(ask_got.out, "send? \n**** Next packet #2 out ");
	assert_non_null(second);
	assert_non_null(strstr(second + 6, "send? \nActual: 8 packets"));
}

/* replay_run_interrupt() from a signal handler during a run: stopped, exit status 128 + the signal. */
static struct replay_run *intr_run;

static void on_usr2_term(int sig)
{
	(void)sig;
	replay_run_interrupt(intr_run, SIGTERM);
}

static void *interrupter(void *arg)
{
	(void)arg;
	nanosleep(&(struct timespec){ .tv_nsec = 100000000 }, NULL);
	kill(getpid(), SIGUSR2);
	return NULL;
}

static void run_interrupt(void **state)
{
	char *out = tmp_out();
	const char *argv[] = { "replay", "--loop", "0", "--limit", "20000000", "-w", out, trace("dns.pcap") };
	struct sigaction sa, old;
	struct replay_stats st;
	pthread_t th;

	(void)state;
	assert_int_equal(replay_run_interrupt(NULL, SIGTERM), -EINVAL);
	assert_int_equal(replay_run_new_argv(&intr_run, 8, argv, NULL), 0);
	assert_int_equal(replay_run_interrupt(intr_run, -1), -EINVAL);
	assert_int_equal(replay_run_interrupt(intr_run, 128), -EINVAL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr2_term;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR2, &sa, &old), 0);
	assert_int_equal(pthread_create(&th, NULL, interrupter, NULL), 0);
	assert_int_equal(replay_run_exec(intr_run), 0);
	pthread_join(th, NULL);
	assert_int_equal(sigaction(SIGUSR2, &old, NULL), 0);
	assert_int_equal(replay_run_stats(intr_run, &st, sizeof(st)), 0);
	assert_int_equal(st.stopped, 1);
	assert_int_equal(st.exit_status, 128 + SIGTERM);
	assert_int_equal(replay_run_exit_status(intr_run), 128 + SIGTERM);
	assert_true(st.packets_sent > 0 && st.packets_sent < 20000000);
	replay_run_free(intr_run);
	unlink(out);
	free(out);
}

/*
 * The status line as REPLAY_STREAM_STATUS lines (a run on lo: a dry run
 * draws none), each whole, then an empty one before the summary; nothing
 * printed.  Needs cap_net_raw: skipped without it.
 */
struct status_got {
	int status, blanks, after_blank, other;
	bool cr, status_after_summary;
	char out[8192];
	size_t nout;
};

static void on_status_line(void *user, enum replay_stream stream, const char *line)
{
	struct status_got *g = user;

	if (strchr(line, '\r'))
		g->cr = true;
	if (stream == REPLAY_STREAM_STATUS) {
		if (*line)
			g->status++;
		else
			g->blanks++;
		if (*line && g->nout)
			g->status_after_summary = true;
		return;
	}
	if (stream != REPLAY_STREAM_STDOUT) {
		g->other++;
		return;
	}
	if (g->blanks)
		g->after_blank++;
	g->nout += (size_t)snprintf(g->out + g->nout, sizeof(g->out) - g->nout, "%s\n", line);
	assert_true(g->nout < sizeof(g->out));
}

static struct status_got status_got;
static int status_rc;
static char *status_summary;

static void run_status_body(void)
{
	const char *argv[] = { "replay", "-i", "lo", "--pps", "6", trace("dns.pcap") };
	struct replay_run *run;

	status_got = (struct status_got){ 0 };
	assert_int_equal(replay_run_new_argv(&run, 6, argv, NULL), 0);
	assert_int_equal(replay_run_set_lines(run, on_status_line, &status_got), 0);
	status_rc = replay_run_exec(run);
	status_summary = strdup(replay_run_summary(run) ? replay_run_summary(run) : "");
	replay_run_free(run);
}

static void run_status(void **state)
{
	char printed[4096];

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(captured(run_status_body, printed, sizeof(printed)), 0);
	assert_int_equal(status_rc, 0);
	/* 8 packets at 6 pps: about 1.2 s, a status line every 0.5 s. */
	assert_true(status_got.status >= 1);
	assert_int_equal(status_got.blanks, 1);
	assert_false(status_got.cr);
	assert_false(status_got.status_after_summary);
	assert_int_equal(status_got.other, 0);
	assert_true(status_got.after_blank > 0);
	/* The summary is the handle's, the status line not part of it. */
	assert_string_equal(status_got.out, status_summary);
	free(status_summary);
}

/*
 * replay_run_pause_toggle(): from a signal handler before the run (it
 * starts suspended), then from another thread (it resumes); every packet
 * sent, the summary saying so; the next run starts resumed.
 */
static struct replay_run *pause_run;

static void on_usr2(int sig)
{
	(void)sig;
	replay_run_pause_toggle(pause_run);
}

static void *resumer(void *arg)
{
	(void)arg;
	nanosleep(&(struct timespec){ .tv_nsec = 300000000 }, NULL);
	replay_run_pause_toggle(pause_run);
	return NULL;
}

static double mono_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void run_pause(void **state)
{
	char *out = tmp_out();
	const char *argv[] = { "replay", "--topspeed", "-w", out, trace("dns.pcap") };
	struct sigaction sa, old;
	uint64_t pkts, bytes;
	pthread_t th;
	double t0, t1;

	(void)state;
	assert_int_equal(replay_run_pause_toggle(NULL), -EINVAL);
	assert_int_equal(replay_run_new_argv(&pause_run, 5, argv, NULL), 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr2;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR2, &sa, &old), 0);
	assert_int_equal(raise(SIGUSR2), 0);
	assert_int_equal(sigaction(SIGUSR2, &old, NULL), 0);
	assert_int_equal(pthread_create(&th, NULL, resumer, NULL), 0);
	t0 = mono_s();
	assert_int_equal(replay_run_exec(pause_run), 0);
	t1 = mono_s();
	pthread_join(th, NULL);
	assert_true(t1 - t0 >= 0.25);
	assert_non_null(strstr(replay_run_summary(pause_run), "Suspended: 1 time by SIGUSR1"));
	pcap_count(out, &pkts, &bytes);
	assert_int_equal(pkts, 8);
	/* Resumed for the next run: no suspension. */
	unlink(out);
	assert_int_equal(replay_run_exec(pause_run), 0);
	assert_null(strstr(replay_run_summary(pause_run), "Suspended"));
	pcap_count(out, &pkts, &bytes);
	assert_int_equal(pkts, 8);
	replay_run_free(pause_run);
	unlink(out);
	free(out);
}

/*
 * replay_run_set_caps(): without it the calling thread's capabilities are
 * left alone; with it, root's are dropped to what the end needs once
 * set-up is over (-w: cap_dac_override, cap_fowner), and a thread without
 * cap_net_raw is refused -i naming it.  Each run on a thread of its own:
 * capabilities are per thread.
 */
static uint64_t cap_eff(void)
{
	char line[256];
	unsigned long long v = 0;
	FILE *f = fopen("/proc/thread-self/status", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &v) == 1)
			break;
	fclose(f);
	return v;
}

struct caps_case {
	const char *const *argv;
	int argc, manage, rc;
	uint64_t before, after;
	char err[1024];
};

static void *caps_thread(void *arg)
{
	struct caps_case *c = arg;
	struct replay_run *run;

	assert_int_equal(replay_run_new_argv(&run, c->argc, c->argv, NULL), 0);
	assert_int_equal(replay_run_set_caps(run, c->manage), 0);
	c->before = cap_eff();
	c->rc = replay_run_exec(run);
	c->after = cap_eff();
	snprintf(c->err, sizeof(c->err), "%s", replay_run_error(run));
	replay_run_free(run);
	return NULL;
}

static int caps_busy(void *user)
{
	*(int *)user = replay_run_set_caps(pause_run, 1);
	return 0;
}

static void run_caps(void **state)
{
	char *out = tmp_out();
	const char *argv[] = { "replay", "--topspeed", "-w", out, trace("dns.pcap") };
	const char *intf[] = { "replay", "--topspeed", "-i", "lo", trace("dns.pcap") };
	struct caps_case c = { .argv = argv, .argc = 5 };
	pthread_t th;
	int busy = 0;

	(void)state;
	assert_int_equal(replay_run_set_caps(NULL, 1), -EINVAL);
	assert_int_equal(replay_run_new_argv(&pause_run, 5, argv, NULL), 0);
	assert_int_equal(replay_run_set_ready(pause_run, caps_busy, &busy), 0);
	assert_int_equal(replay_run_exec(pause_run), 0);
	assert_int_equal(busy, -EBUSY);
	replay_run_free(pause_run);
	unlink(out);
	/* Not asked: left alone. */
	assert_int_equal(pthread_create(&th, NULL, caps_thread, &c), 0);
	pthread_join(th, NULL);
	assert_int_equal(c.rc, 0);
	assert_true(c.after == c.before);
	unlink(out);
	if (geteuid() == 0) {
		/* Asked, as root: all but cap_dac_override (1) and cap_fowner (3) dropped. */
		c.manage = 1;
		assert_int_equal(pthread_create(&th, NULL, caps_thread, &c), 0);
		pthread_join(th, NULL);
		assert_int_equal(c.rc, 0);
		assert_true(c.before & (1ull << 13));
		assert_true(c.after == (c.before & ((1ull << 1) | (1ull << 3))));
		assert_true(cap_eff() == c.before); /* this thread's untouched */
		unlink(out);
	} else if (!(cap_eff() & (1ull << 13))) {
		/* Asked, without cap_net_raw: refused, naming it. */
		c = (struct caps_case){ .argv = intf, .argc = 5, .manage = 1 };
		assert_int_equal(pthread_create(&th, NULL, caps_thread, &c), 0);
		pthread_join(th, NULL);
		assert_int_equal(c.rc, -EIO);
		assert_non_null(strstr(c.err, "cap_net_raw"));
	}
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(argv_to_file),
		cmocka_unit_test(fields),
		cmocka_unit_test(stop_from_thread),
		cmocka_unit_test(refused_silently),
		cmocka_unit_test(progress_paced),
		cmocka_unit_test(progress_stops),
		cmocka_unit_test(progress_misuse),
		cmocka_unit_test(receiver),
		cmocka_unit_test(rx_progress),
		cmocka_unit_test(run_ready),
		cmocka_unit_test(rx_ready),
		cmocka_unit_test(run_lines),
		cmocka_unit_test(rx_lines),
		cmocka_unit_test(rx_interrupt),
		cmocka_unit_test(run_ask),
		cmocka_unit_test(run_interrupt),
		cmocka_unit_test(run_status),
		cmocka_unit_test(run_pause),
		cmocka_unit_test(run_caps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
