// SPDX-License-Identifier: BSD-2-Clause
/*
 * --fanout N: capture across cores.  N TPACKET_V3 rings (capture.c) in one
 * PACKET_FANOUT group in hash mode, each read by a thread of its own into
 * its own records, so the threads share nothing while capturing.  The
 * kernel puts all of a flow's frames on one ring, in the order they came;
 * afterwards the rings' records are merged by timestamp into one list, and
 * the analysis sees what a single ring fast enough would have given it.
 *
 * The main thread only watches: a signal, --timeout, --idle (measured from
 * the last frame on any ring) or a ring that fails stops every ring; each
 * then takes what it already holds (capture.c's drain) and returns.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay/compiler.h"
#include "rx.h"

struct ring {
	struct rx_fanout *f;
	struct rx_capture *cap;
	struct rx_sink sink;
	pthread_t thread;
	uint64_t frames; /* records the ring gave the merge */
	int rc;
	bool done;       /* set (release) by the thread as it returns */
	char err[512];
};

struct rx_fanout {
	uint32_t n;
	volatile sig_atomic_t stop; /* set by the main thread: every ring stops */
	size_t expect;              /* records expected in all: reserved, shared out, before capturing */
	struct ring *ring;
};

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * NSEC_PER_SEC + (uint64_t)t.tv_nsec;
}

int rx_fanout_open(struct rx_fanout **fp, const struct rx_capture_cfg *cfg, uint32_t n,
		   size_t expect, char *err, size_t errlen)
{
	struct rx_fanout *f = calloc(1, sizeof(*f));
	struct rx_capture_cfg c = *cfg;
	int rc;

	*fp = NULL;
	if (!f || !(f->ring = calloc(n, sizeof(*f->ring)))) {
		free(f);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	f->n = n;
	f->expect = expect;
	c.fanout = RX_FANOUT_NEW;
	for (uint32_t i = 0; i < n; i++) {
		f->ring[i].f = f;
		if ((rc = rx_capture_open(&f->ring[i].cap, &c, err, errlen)) < 0) {
			rx_fanout_close(f);
			return rc;
		}
		/* The rest join the first one's group; the NIC's timestamping is set up once. */
		c.fanout = rx_capture_fanout_id(f->ring[0].cap);
		c.hw_ts_socket_only = true;
	}
	*fp = f;
	return 0;
}

uint32_t rx_fanout_rings(const struct rx_fanout *f)
{
	return f->n;
}

static void *ring_main(void *arg)
{
	struct ring *r = arg;
	const struct rx_stop forever = { 0 };

	r->rc = rx_capture_run(r->cap, &r->sink, &forever, &r->f->stop, r->err, sizeof(r->err));
	__atomic_store_n(&r->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* Has the run to stop now?  The stop conditions of rx_capture_run(), over every ring. */
static bool should_stop(struct rx_fanout *f, const struct rx_stop *stop, volatile sig_atomic_t *sig,
			uint64_t start)
{
	uint64_t now = mono_ns(), last = 0;

	if (*sig || (stop->timeout_ns && now - start >= stop->timeout_ns))
		return true;
	for (uint32_t i = 0; i < f->n; i++) {
		if (__atomic_load_n(&f->ring[i].done, __ATOMIC_ACQUIRE))
			return true; /* it failed (a ring stops on nothing else) */
		last = MAX(last, rx_capture_last_frame(f->ring[i].cap));
	}
	return stop->idle_ns && last && now - last >= stop->idle_ns;
}

/* The rings' counts as each last published them (once a block), summed, to @stop's progress. */
static void progress(struct rx_fanout *f, const struct rx_stop *stop, uint64_t elapsed_ns)
{
	uint64_t frames = 0, bytes = 0;

	for (uint32_t i = 0; i < f->n; i++) {
		uint64_t fr, by;

		rx_capture_counts(f->ring[i].cap, &fr, &by);
		frames += fr;
		bytes += by;
	}
	stop->progress(stop->ctx, frames, bytes, elapsed_ns);
}

int rx_fanout_run(struct rx_fanout *f, struct rx_sink *sink, const struct rx_stop *stop,
		  volatile sig_atomic_t *sig, char *err, size_t errlen)
{
	const struct timespec tick = { .tv_nsec = 10 * 1000 * 1000 };
	size_t cap = sink->max_recs ? sink->max_recs
				    : rx_mem_cap() / sizeof(struct rx_rec) & ~(size_t)(RX_CHUNK_RECS - 1);
	struct rx_recs *in;
	uint32_t started = 0;
	uint64_t start, next_progress;
	int rc = 0;

	for (uint32_t i = 0; i < f->n; i++) {
		struct rx_sink *s = &f->ring[i].sink;

		*s = (struct rx_sink){
			.id_bytes = sink->id_bytes,
			.seq = sink->seq,
			/* The merged records may not pass the cap either: each ring its share, in whole chunks. */
			.max_recs = MAX(cap / f->n & ~(size_t)(RX_CHUNK_RECS - 1), (size_t)RX_CHUNK_RECS),
		};
		if (rx_recs_reserve(&s->recs, MIN(f->expect / f->n + 1, s->max_recs)) < 0) {
			snprintf(err, errlen, "out of memory for the rings' records");
			return -ENOMEM;
		}
	}
	start = mono_ns();
	for (; started < f->n; started++) {
		rc = -pthread_create(&f->ring[started].thread, NULL, ring_main, &f->ring[started]);
		if (rc < 0) {
			snprintf(err, errlen, "cannot start a capture thread: %s", strerror(-rc));
			break;
		}
	}
	next_progress = stop->progress && stop->progress_ns ? start + stop->progress_ns : 0;
	while (rc == 0 && !should_stop(f, stop, sig, start)) {
		uint64_t now = mono_ns();

		if (next_progress && now >= next_progress) {
			progress(f, stop, now - start);
			next_progress += (now - next_progress) / stop->progress_ns * stop->progress_ns +
					 stop->progress_ns;
		}
		nanosleep(&tick, NULL);
	}
	f->stop = 1;
	for (uint32_t i = 0; i < started; i++) {
		struct ring *r = &f->ring[i];

		pthread_join(r->thread, NULL);
		if (r->rc < 0 && rc == 0) {
			rc = r->rc;
			if (r->sink.err == rc) /* capture.c wrote the sink's error: say which ring */
				snprintf(err, errlen, "ring %u: %s", i, r->err);
			else
				snprintf(err, errlen, "%s", r->err);
		}
		r->frames = r->sink.recs.n;
		sink->bytes += r->sink.bytes;
	}
	if (rc < 0)
		return rc;
	in = malloc(f->n * sizeof(*in));
	if (!in) {
		snprintf(err, errlen, "out of memory for the merge");
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < f->n; i++) {
		in[i] = f->ring[i].sink.recs;
		f->ring[i].sink.recs = (struct rx_recs){ 0 };
	}
	rc = rx_recs_merge(&sink->recs, in, f->n, cap);
	free(in);
	if (rc < 0) {
		char why[256];

		snprintf(err, errlen, "%s: merging the rings: %s", "--fanout",
			 rx_sink_strerror(sink, rc, why, sizeof(why)));
	}
	return rc;
}

struct rx_kstats rx_fanout_stats(struct rx_fanout *f, struct rx_kstats *ring, uint64_t *frames)
{
	struct rx_kstats sum = { 0 };

	for (uint32_t i = 0; i < f->n; i++) {
		struct rx_kstats k = rx_capture_stats(f->ring[i].cap);

		sum.packets += k.packets;
		sum.drops += k.drops;
		sum.freeze_q += k.freeze_q;
		if (ring)
			ring[i] = k;
		if (frames)
			frames[i] = f->ring[i].frames;
	}
	return sum;
}

void rx_fanout_close(struct rx_fanout *f)
{
	if (!f)
		return;
	/* The first ring last: it restores the NIC's timestamping. */
	for (uint32_t i = f->n; i-- > 0;) {
		rx_capture_close(f->ring[i].cap);
		rx_recs_free(&f->ring[i].sink.recs);
	}
	free(f->ring);
	free(f);
}
