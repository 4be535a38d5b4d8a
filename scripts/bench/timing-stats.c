// SPDX-License-Identifier: BSD-2-Clause
/*
 * timing-stats: the measuring half of scripts/bench/timing.sh.
 *
 *   timing-stats analyze TRACE CAPTURE [--speed X | --pps N | --mbps N [--wire-overhead]]
 *       Compare the arrival times in CAPTURE (taken on the far side of the
 *       link, nanosecond timestamps) with the schedule TRACE asks for:
 *       its recorded gaps divided by X, or N packets/s, or N Mbit/s.
 *       Frames are matched by the 64-bit sequence number gentrace's udp
 *       frames carry (so loss and reordering are seen, not guessed).
 *       Prints one JSON object: counts, duration error, achieved rate, and
 *       percentiles of the inter-arrival error |(t[b] - t[a]) - (E[b] - E[a])|
 *       over consecutive arrivals a, b.
 *   timing-stats run OUT -- COMMAND [ARGS...]
 *       Run COMMAND, then write its CPU time (user, system), wall time and
 *       CPU share as one JSON object to OUT; exit with its exit status.
 *   timing-stats lateness N PERIOD_US [fifo]
 *       The machine's own timing floor: N clock_nanosleep wake-ups at
 *       absolute deadlines PERIOD_US apart (timer slack 1 ns, optionally
 *       under SCHED_FIFO), and the largest gaps between consecutive clock
 *       reads in a tight loop of the same length (the VM's pauses).
 *
 * No Python or other interpreter in the measurement path: this and tcpdump.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "replay/json.h"
#include "replay/sched.h"
#include "replay/trace.h"

#define GAPS_MAX (1u << 20) /* clock-read gaps over 1 us kept by "lateness" */
#define SEQ_OFF 42 /* Ethernet 14 + IPv4 20 + UDP 8: gentrace's 64-bit sequence number */

static int die(const char *fmt, const char *arg) __attribute__((format(printf, 1, 0)));
static int die(const char *fmt, const char *arg)
{
	fprintf(stderr, "timing-stats: ");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	fprintf(stderr, fmt, arg);
#pragma GCC diagnostic pop
	fputc('\n', stderr);
	return 2;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The q-quantile of sorted v[0..n) (nearest rank). */
static uint64_t pct(const uint64_t *v, size_t n, double q)
{
	size_t r;

	if (!n)
		return 0;
	r = (size_t)ceil(q * (double)n);
	return v[r ? r - 1 : 0];
}

/* gentrace's sequence number, or -1 if @p is not one of its udp or pingpong frames (port 9 either way). */
static int64_t seq_of(const struct pkt *p)
{
	const uint8_t *b = pkt_bytes(p, 0, SEQ_OFF + 8);
	uint64_t s = 0;

	if (!b || b[12] != 0x08 || b[13] != 0x00 || b[23] != 17 ||
	    ((b[36] != 0 || b[37] != 9) && (b[34] != 0 || b[35] != 9)))
		return -1;
	for (int i = 0; i < 8; i++)
		s = s << 8 | b[SEQ_OFF + i];
	return s > INT64_MAX ? -1 : (int64_t)s;
}

struct sched_spec {
	enum { BY_TRACE, BY_PPS, BY_MBPS } mode;
	double speed, rate;
	int overhead;
};

static uint64_t wire_bytes(const struct pkt *p, int overhead)
{
	uint64_t len = p->wirelen ? p->wirelen : p->caplen;

	if (!overhead)
		return len;
	return (len < SCHED_ETH_MIN_FRAME_BYTES ? SCHED_ETH_MIN_FRAME_BYTES : len) +
	       SCHED_ETH_OVERHEAD_BYTES;
}

/* Expected send time of each sequence number, ns from the first packet. */
static double *expected_times(const char *path, const struct sched_spec *sp, size_t *n)
{
	struct trace *t = NULL;
	struct pkt p;
	double *e = NULL, bytes = 0;
	size_t cap = 0, k = 0;
	uint64_t ts0 = 0;
	int rc;

	if (trace_open(&t, path, NULL) < 0) {
		fprintf(stderr, "timing-stats: %s\n", t ? trace_strerror(t) : "out of memory");
		trace_close(t);
		return NULL;
	}
	while ((rc = trace_next(t, &p)) == 1) {
		if (seq_of(&p) != (int64_t)k) {
			fprintf(stderr, "timing-stats: %s: record %zu is not gentrace udp frame %zu\n",
				path, k + 1, k);
			rc = -EINVAL;
			break;
		}
		if (k == cap) {
			cap = cap ? 2 * cap : 65536;
			e = realloc(e, cap * sizeof(*e));
			if (!e)
				break;
		}
		if (!k)
			ts0 = p.ts_ns;
		switch (sp->mode) {
		case BY_TRACE:
			e[k] = (double)(p.ts_ns - ts0) / sp->speed;
			break;
		case BY_PPS:
			e[k] = (double)k * 1e9 / sp->rate;
			break;
		case BY_MBPS:
			e[k] = bytes * 8.0 * 1e3 / sp->rate;
			bytes += (double)wire_bytes(&p, sp->overhead);
			break;
		}
		k++;
	}
	if (rc < 0)
		fprintf(stderr, "timing-stats: %s\n", rc == -EINVAL ? "bad trace" : trace_strerror(t));
	trace_close(t);
	if (rc < 0 || !e) {
		free(e);
		return NULL;
	}
	*n = k;
	return e;
}

static int analyze(int argc, char **argv)
{
	struct sched_spec sp = { .mode = BY_TRACE, .speed = 1 };
	uint64_t *err = NULL, nerr = 0, recv = 0, other = 0, dup_or_back = 0, short_gaps = 0;
	uint64_t t_first = 0, t_prev = 0, first_seq = 0, prev_seq = 0, bytes = 0, last_bytes = 0;
	double *e, sum_signed = 0;
	size_t n = 0;
	struct trace *c = NULL;
	struct pkt p;
	int rc;

	if (argc < 4)
		return die("%s", "usage: analyze TRACE CAPTURE [--speed X|--pps N|--mbps N [--wire-overhead]]");
	for (int i = 4; i < argc; i++) {
		if (!strcmp(argv[i], "--wire-overhead")) {
			sp.overhead = 1;
		} else if (i + 1 < argc && !strcmp(argv[i], "--speed")) {
			sp.speed = atof(argv[++i]);
		} else if (i + 1 < argc && !strcmp(argv[i], "--pps")) {
			sp.mode = BY_PPS;
			sp.rate = atof(argv[++i]);
		} else if (i + 1 < argc && !strcmp(argv[i], "--mbps")) {
			sp.mode = BY_MBPS;
			sp.rate = atof(argv[++i]);
		} else {
			return die("unknown argument %s", argv[i]);
		}
	}
	if (!(sp.speed > 0) || (sp.mode != BY_TRACE && !(sp.rate > 0)))
		return die("%s", "speed and rates must be positive");
	e = expected_times(argv[2], &sp, &n);
	if (!e)
		return 2;
	err = malloc((n ? n : 1) * sizeof(*err));
	if (!err || trace_open(&c, argv[3], NULL) < 0) {
		fprintf(stderr, "timing-stats: %s\n", c ? trace_strerror(c) : "out of memory");
		trace_close(c);
		return 2;
	}
	while ((rc = trace_next(c, &p)) == 1) {
		int64_t s = seq_of(&p);

		if (s < 0 || (uint64_t)s >= n) {
			other++;
			continue;
		}
		if (recv && (uint64_t)s <= prev_seq) {
			dup_or_back++;
			continue;
		}
		if (!recv) {
			t_first = p.ts_ns;
			first_seq = (uint64_t)s;
		} else {
			double want = e[s] - e[prev_seq];
			double got = (double)(p.ts_ns - t_prev);
			double d = got - want;

			sum_signed += d;
			err[nerr++] = (uint64_t)llround(fabs(d));
			if (want >= 2000 && got < want / 2)
				short_gaps++;
			bytes += last_bytes;
		}
		last_bytes = wire_bytes(&p, sp.overhead);
		recv++;
		t_prev = p.ts_ns;
		prev_seq = (uint64_t)s;
	}
	if (rc < 0) {
		fprintf(stderr, "timing-stats: %s\n", trace_strerror(c));
		return 2;
	}
	trace_close(c);
	qsort(err, nerr, sizeof(*err), cmp_u64);
	{
		double span = recv > 1 ? (double)(t_prev - t_first) : 0;
		double want = recv > 1 ? e[prev_seq] - e[first_seq] : 0;
		double dur_err = want > 0 ? (span - want) / want * 100.0 : 0;
		double pps = span > 0 ? (double)(recv - 1) * 1e9 / span : 0;
		double mbps = span > 0 ? (double)bytes * 8.0 * 1e3 / span : 0;

		struct json w;

		json_init(&w, stdout);
		json_object(&w, NULL);
		json_uint(&w, "expected", n);
		json_uint(&w, "received", recv);
		json_uint(&w, "lost", n - recv);
		json_uint(&w, "out_of_order", dup_or_back);
		json_uint(&w, "other", other);
		json_double(&w, "duration_ns", span, 0);
		json_double(&w, "expected_duration_ns", want, 0);
		json_double(&w, "duration_error_pct", dur_err, 4);
		json_double(&w, "pps", pps, 2);
		json_double(&w, "mbps", mbps, 3);
		json_uint(&w, "short_gaps", short_gaps);
		json_object(&w, "ia_err_ns");
		json_uint(&w, "p50", pct(err, nerr, 0.5));
		json_uint(&w, "p90", pct(err, nerr, 0.9));
		json_uint(&w, "p99", pct(err, nerr, 0.99));
		json_uint(&w, "p999", pct(err, nerr, 0.999));
		json_uint(&w, "max", nerr ? err[nerr - 1] : 0);
		json_double(&w, "mean_signed", nerr ? sum_signed / (double)nerr : 0, 1);
		json_end(&w);
		json_end(&w);
		putchar('\n');
		if (json_finish(&w) < 0) {
			free(err);
			free(e);
			return die("%s", "cannot write the result");
		}
	}
	free(err);
	free(e);
	return 0;
}

static double tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int run(int argc, char **argv)
{
	struct rusage ru;
	double t0, wall, cpu;
	struct json w;
	int status;
	pid_t pid;
	FILE *f;

	if (argc < 5 || strcmp(argv[3], "--"))
		return die("%s", "usage: run OUT -- COMMAND [ARGS...]");
	t0 = mono_s();
	pid = fork();
	if (pid < 0)
		return die("fork: %s", strerror(errno));
	if (pid == 0) {
		execvp(argv[4], argv + 4);
		fprintf(stderr, "timing-stats: %s: %s\n", argv[4], strerror(errno));
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0)
		return die("wait4: %s", strerror(errno));
	wall = mono_s() - t0;
	cpu = tv_s(ru.ru_utime) + tv_s(ru.ru_stime);
	f = fopen(argv[2], "w");
	if (!f)
		return die("%s: cannot write", argv[2]);
	json_init(&w, f);
	json_object(&w, NULL);
	json_double(&w, "user_s", tv_s(ru.ru_utime), 3);
	json_double(&w, "sys_s", tv_s(ru.ru_stime), 3);
	json_double(&w, "wall_s", wall, 3);
	json_double(&w, "cpu_pct", wall > 0 ? cpu / wall * 100 : 0, 1);
	json_int(&w, "status", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	json_end(&w);
	fputc('\n', f);
	if (json_finish(&w) < 0) {
		fclose(f);
		return die("%s: cannot write", argv[2]);
	}
	fclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int lateness(int argc, char **argv)
{
	struct json w;
	int rc;
	size_t n, k = 0, over10 = 0;
	uint64_t paused = 0;
	uint64_t period, t, *late, *gap, end, prev;

	if (argc < 4)
		return die("%s", "usage: lateness N PERIOD_US [fifo]");
	n = strtoul(argv[2], NULL, 10);
	period = strtoull(argv[3], NULL, 10) * 1000;
	if (!n || !period)
		return die("%s", "N and PERIOD_US must be positive");
	late = calloc(n, sizeof(*late));
	gap = calloc(GAPS_MAX, sizeof(*gap));
	if (!late || !gap)
		return die("%s", "out of memory");
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	if (argc > 4 && !strcmp(argv[4], "fifo")) {
		struct sched_param sp = { .sched_priority = 50 };

		if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0)
			return die("SCHED_FIFO: %s", strerror(errno));
	}
	t = now_ns();
	for (size_t i = 0; i < n; i++) {
		struct timespec ts;

		t += period;
		ts.tv_sec = (time_t)(t / 1000000000ull);
		ts.tv_nsec = (long)(t % 1000000000ull);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		late[i] = now_ns() - t;
	}
	/*
	 * A spinner's view: consecutive clock reads for 100 ms (at most: a spinning SCHED_FIFO
	 * thread must not meet the real-time throttle); the gaps beyond 1 us are the pauses.
	 */
	prev = now_ns();
	end = prev + 100000000ull;
	while (k < GAPS_MAX) {
		uint64_t x = now_ns();

		if (x - prev > 1000)
			gap[k++] = x - prev;
		prev = x;
		if (x >= end)
			break;
	}
	qsort(late, n, sizeof(*late), cmp_u64);
	qsort(gap, k, sizeof(*gap), cmp_u64);
	for (size_t i = 0; i < k; i++) {
		over10 += gap[i] > 10000;
		paused += gap[i];
	}
	json_init(&w, stdout);
	json_object(&w, NULL);
	json_object(&w, "sleep_late_ns");
	json_uint(&w, "n", n);
	json_uint(&w, "period_us", period / 1000);
	json_uint(&w, "p50", pct(late, n, 0.5));
	json_uint(&w, "p99", pct(late, n, 0.99));
	json_uint(&w, "p999", pct(late, n, 0.999));
	json_uint(&w, "max", late[n - 1]);
	json_end(&w);
	json_object(&w, "spin_pauses_100ms");
	json_uint(&w, "over_1us", k);
	json_uint(&w, "over_10us", over10);
	json_uint(&w, "p50", pct(gap, k, 0.5));
	json_uint(&w, "max", k ? gap[k - 1] : 0);
	json_double(&w, "paused_pct", (double)paused / 1e6 * 100 / 100.0, 1);
	json_end(&w);
	json_end(&w);
	putchar('\n');
	rc = json_finish(&w);
	free(late);
	free(gap);
	return rc < 0 ? die("%s", "cannot write the result") : 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "analyze"))
		return analyze(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "run"))
		return run(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "lateness"))
		return lateness(argc, argv);
	return die("%s", "usage: timing-stats analyze|run|lateness ... (see the comment at the top)");
}
