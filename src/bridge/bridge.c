// SPDX-License-Identifier: BSD-2-Clause
/*
 * The bridge: two capture ports (replay/live.h, read in batches from their
 * rings) polled together in one thread, a transmit method on each
 * (replay/tx.h), and per direction an edit chain (replay/edit.h), a model
 * (replay/impair.h) and a delay queue (replay/dqueue.h, frames in slots
 * made resident before the first frame, replay/slots.h).  A frame arriving
 * on one port is edited, then impaired by its direction's model --
 * dropped, sent at once, or held until its arrival plus its delay -- and
 * leaves by the other port; one clock (CLOCK_MONOTONIC, the capture's
 * stamps on it) for both.  How the thread waits is --poll's: it sleeps in
 * ppoll() until a frame arrives or a margin before the earliest held
 * frame's deadline, and spins on the rings and the clock through the
 * margin (hybrid, the margin measured at open by the scheduler's waiter,
 * src/sched/wait.c); or sleeps to the deadline itself (sleep); or never
 * sleeps (busy).  Every frame due at a turn, and every frame a turn read,
 * leaves in one batch per port (the method's flush: one sendmmsg() or one
 * kick); what falls due while a backlog is read leaves before each read
 * batch, so the queue holds only frames not yet due.  Every frame ends in
 * one count (struct bridge_dir_stats).
 * Nothing is allocated after bridge_open(); the only lines written while
 * running are the first of each kind of failure.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>

#include "replay/bridge.h"
#include "replay/clock.h"
#include "replay/compiler.h"
#include "replay/dqueue.h"
#include "replay/port.h"
#include "replay/log.h"
#include "replay/sched.h"
#include "replay/slots.h"
#include "replay/tx.h"

#define BRIDGE_READ_BATCH 256u /* frames taken from a ring at once */
#define BRIDGE_LATE_NS                                                                             \
	1000000ull /* a held frame sent later than this after its deadline is late                 \
		    */
/* While spinning, SIGINT and SIGTERM are let in this often (ppoll() with no wait delivers none). */
#define BRIDGE_SIGNAL_NS 1000000ull
/* Source MACs learned with --mac (tcpbridge's tree): a table this big, probed this far. */
#define BRIDGE_LEARN_SLOTS 4096u
#define BRIDGE_LEARN_PROBE 16u
#define BRIDGE_L2_BYTES                                                                            \
	(14 + 2 * 4 + 64) /* slot room beyond the MTU: Ethernet, two tags, margin                  \
			   */

struct held {
	uint32_t len;  /* bytes in the slot */
	unsigned slot; /* its id (slots_get()) */
	uint8_t *buf;
};

struct side {
	struct bridge *b;
	struct live_port *in;	   /* NULL: the direction is not forwarded (--unidir) */
	struct tx *out;
	struct edit_chain *ed;	   /* NULL: frames leave as they came */
	int edit_side;		   /* the chain's side for this direction: 1 ab, 2 ba */
	char name[160];		   /* "IF1 -> IF2" */
	unsigned out_mtu;	   /* the output port's MTU; 0 = not known, not checked */
	struct impair *im;	   /* NULL: frames pass untouched */
	struct impair_action *act; /* the current frame's (about 4 KiB: not on the stack) */
	uint8_t *scratch;	   /* a frame corrupted and sent at once */
	uint32_t slot_bytes;	   /* of scratch and of each delay slot */
	struct dqueue dq;
	struct slots slots;
	struct held *held; /* one per slot id */
	unsigned nheld, limit;
	uint64_t last_ns; /* the latest arrival handed to the model: its deadlines never go back */
	/* Staged and not yet handed over: their lengths, oldest at qhead. */
	uint32_t qlen[TX_BATCH_MAX];
	unsigned qhead, qn;
	bool said_mtu, said_cut, said_fail, said_edit;
	struct bridge_dir_stats st;
};

/* A source MAC and the port it was first seen on (0: IF1, 1: IF2). */
struct learned {
	uint8_t mac[6];
	uint8_t port;
	uint8_t used;
};

struct bridge {
	struct live_port *port[2];
	int poll;	       /* enum bridge_poll; auto made hybrid */
	uint64_t margin_ns;    /* hybrid: spin this long before a deadline, ns */
	uint64_t sleep_min_ns; /* hybrid: no sleep shorter than this, ns */
	bool macs;	       /* --mac given: own MACs dropped, source MACs learned */
	uint8_t mac[2][6];
	bool no_martians;
	struct learned *learn; /* BRIDGE_LEARN_SLOTS, with --mac */
	struct tx *tx[2];
	struct side side[BRIDGE_DIRS];
	uint64_t duration_ns;
	uint64_t now_ns; /* the last clock read */
	int fatal; /* a send error that ends the run (tx_fatal()), or a capture's -EIO */
	char err[512];
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool bridge_frame_fits(const uint8_t *f, uint32_t len, unsigned mtu)
{
	uint32_t l2 = 14;

	if (!mtu || len <= 14)
		return true;
	/* The MTU counts neither the Ethernet header nor VLAN tags (802.1Q, 802.1ad, and the old
	 * 0x9100). */
	for (int tags = 0; tags < 2 && len >= l2 + 4; tags++) {
		unsigned type = (unsigned)f[l2 - 2] << 8 | f[l2 - 1];

		if (type != 0x8100 && type != 0x88a8 && type != 0x9100)
			break;
		l2 += 4;
	}
	return len - l2 <= mtu;
}

/* A frame that will not be sent: counted failed, its kind said once per direction. */
static void fail(struct side *s, bool *said, const char *why)
{
	s->st.failed++;
	if (!*said) {
		*said = true;
		log_warn("%s: %s (counted failed; said once)", s->name, why);
	}
}

/* The @k oldest staged frames were handed to the kernel. */
static void settle(struct side *s, unsigned k)
{
	for (; k && s->qn; k--, s->qn--) {
		s->st.forwarded++;
		s->st.bytes += s->qlen[s->qhead];
		s->qhead = (s->qhead + 1) % TX_BATCH_MAX;
	}
}

static void drop_oldest(struct side *s, const char *why)
{
	if (!s->qn)
		return;
	s->qhead = (s->qhead + 1) % TX_BATCH_MAX;
	s->qn--;
	fail(s, &s->said_fail, why);
}

/* Everything staged on @s's port, handed to the kernel (back-pressure waited out) or failed. */
static void flush(struct side *s)
{
	while (s->qn) {
		int rc = tx_flush(s->out);

		if (rc > 0) {
			settle(s, (unsigned)rc);
			continue;
		}
		if (rc == -EAGAIN || rc == -ENOBUFS) {
			tx_wait(s->out, rc);
			continue;
		}
		if (rc == 0 || tx_fatal(rc)) {
			/* The port went away (or the method lost count): what is staged fails, the
			 * run ends. */
			tx_discard(s->out);
			while (s->qn)
				drop_oldest(s, tx_strerror(s->out));
			if (!s->b->fatal) {
				s->b->fatal = rc ? rc : -EIO;
				snprintf(s->b->err, sizeof(s->b->err), "%s: %s", s->name,
					 tx_strerror(s->out));
			}
			return;
		}
		drop_oldest(s, tx_strerror(s->out));
	}
}

/* Stage @len bytes at @data on the output port; kicked when the batch is full or at the end of a
 * turn. */
static void send_frame(struct side *s, const uint8_t *data, uint32_t len)
{
	struct pkt v = {.data = data, .caplen = len, .wirelen = len, .linktype = 1};

	if (s->b->fatal) {
		fail(s, &s->said_fail, "the output port failed");
		return;
	}
	for (;;) {
		int rc = tx_send(s->out, &v, 1);

		if (rc == 1) {
			s->qlen[(s->qhead + s->qn) % TX_BATCH_MAX] = len;
			s->qn++;
			if (s->qn >= s->out->batch || s->qn >= TX_BATCH_MAX)
				flush(s);
			return;
		}
		if ((rc == -EAGAIN || rc == -ENOBUFS) && s->qn) {
			flush(s);
			continue;
		}
		if (rc == -EAGAIN || rc == -ENOBUFS) {
			tx_wait(s->out, rc);
			continue;
		}
		fail(s, &s->said_fail, tx_strerror(s->out));
		if (tx_fatal(rc) && !s->b->fatal) {
			s->b->fatal = rc;
			snprintf(s->b->err, sizeof(s->b->err), "%s: %s", s->name,
				 tx_strerror(s->out));
		}
		return;
	}
}

static void send_due(struct side *s, uint64_t now);

/* Hold a copy of the frame (corrupted by @a's corruptions if @a) until @deadline_ns. */
static void hold(struct side *s, const uint8_t *data, uint32_t len, uint64_t at_ns,
		 uint64_t deadline_ns, const struct impair_action *a)
{
	struct held *h;
	uint8_t *buf;
	int slot;

	/*
	 * Full: what is due by a fresh clock read makes room first (a stall may
	 * have come in the middle of a batch, and a backlog longer than the
	 * delay is due itself).
	 */
	if (s->nheld >= s->limit) {
		s->b->now_ns = now_ns();
		send_due(s, s->b->now_ns);
	}
	if (s->nheld >= s->limit) {
		/* No room: netem's "limit", dropped and counted apart from the model's losses. */
		s->st.dropped_limit++;
		impair_count_queue_drop(s->im);
		impair_note_held(s->im, s->limit, s->limit, at_ns, false);
		return;
	}
	slot = slots_get(&s->slots, len, &buf);
	if (slot < 0) {
		fail(s, &s->said_mtu,
		     "a frame longer than the input port's MTU: no delay slot holds it");
		return;
	}
	memcpy(buf, data, len);
	if (a)
		impair_corrupt_apply(s->im, a, buf, len);
	h = &s->held[slot];
	*h = (struct held){.len = len, .slot = (unsigned)slot, .buf = buf};
	(void)dq_push(&s->dq, deadline_ns, h); /* never full: as many entries as slots */
	s->nheld++;
	s->st.held_peak = MAX(s->st.held_peak, s->nheld);
	impair_note_held(s->im, s->nheld, s->limit, at_ns, true);
}

/* The model's action for one frame: drop, send (corrupted on a copy), hold; and its copies. */
static void impair_frame(struct side *s, uint64_t at_ns, const uint8_t *data, uint32_t len)
{
	struct impair_action *a = s->act;
	struct pkt p = {
	    .data = data, .caplen = len, .wirelen = len, .linktype = 1, .sched_ns = at_ns};
	int rc;

	at_ns = MAX(at_ns, s->last_ns);
	s->last_ns = at_ns;
	rc = impair_next(s->im, &p, at_ns, a);
	if (rc < 0) {
		fail(s, &s->said_fail, impair_strerror(s->im));
		return;
	}
	if (rc == 0) {
		send_frame(s, data, len);
		return;
	}
	if (a->drop) {
		s->st.dropped_impair++;
		return;
	}
	if (a->delay_ns) {
		hold(s, data, len, at_ns, at_ns + a->delay_ns, a->ncorrupt ? a : NULL);
	} else if (a->ncorrupt) {
		/* An edit may have lengthened the frame past what the slots were made for. */
		if (len > s->slot_bytes) {
			fail(s, &s->said_mtu, "a frame longer than the corruption's buffer");
			return;
		}
		memcpy(s->scratch, data, len);
		impair_corrupt_apply(s->im, a, s->scratch, len);
		send_frame(s, s->scratch, len);
	} else {
		send_frame(s, data, len);
	}
	/* The copies: exact copies of the frame before corruption, each at its own deadline. */
	for (unsigned i = 0; i < a->ndup; i++) {
		s->st.copies++;
		if (a->dup_delay_ns[i])
			hold(s, data, len, at_ns, at_ns + a->dup_delay_ns[i], NULL);
		else
			send_frame(s, data, len);
	}
}

/*
 * The direction's edits on the frame at *@data (*@len bytes): 0 with the
 * edited frame in *@data and *@len (perhaps the chain's buffer, valid
 * until the next frame), or -1 when it goes no further (dropped by the
 * edits or failed, counted).
 */
static int edit_frame(struct side *s, const uint8_t **data, uint32_t *len)
{
	struct pkt p = {.data = *data,
			.caplen = *len,
			.wirelen = *len,
			.linktype = 1,
			.recno = s->st.received};
	int rc;

	edit_chain_set_side(s->ed, s->edit_side);
	rc = edit_chain_apply(s->ed, &p);
	if (rc < 0) {
		s->st.edit_failed++;
		fail(s, &s->said_edit, edit_chain_strerror(s->ed));
		return -1;
	}
	if (rc == EDIT_DROP) {
		s->st.dropped_edit++;
		return -1;
	}
	s->st.edited++;
	*data = p.data;
	*len = p.caplen;
	return 0;
}

/*
 * Has the source MAC @src been seen first on the other port than @port?
 * tcpbridge's rule: never send a frame back towards where its sender lives.
 * The first port a MAC is seen on is kept; a full table learns no more.
 */
static bool learned_elsewhere(struct bridge *b, const uint8_t *src, int port)
{
	uint32_t h = 2166136261u;

	for (int i = 0; i < 6; i++)
		h = (h ^ src[i]) * 16777619u;
	for (unsigned k = 0; k < BRIDGE_LEARN_PROBE; k++) {
		struct learned *l = &b->learn[(h + k) % BRIDGE_LEARN_SLOTS];

		if (!l->used) {
			memcpy(l->mac, src, 6);
			l->port = (uint8_t)port;
			l->used = 1;
			return false;
		}
		if (!memcmp(l->mac, src, 6))
			return l->port != port;
	}
	return false;
}

/* An IPv4 packet (after up to two VLAN tags) to 0/8, 127/8 or 255/8? */
static bool martian(const uint8_t *f, uint32_t len)
{
	uint32_t l2 = 14;

	for (int tags = 0; tags < 2 && len >= l2 + 4; tags++) {
		unsigned type = (unsigned)f[l2 - 2] << 8 | f[l2 - 1];

		if (type != 0x8100 && type != 0x88a8 && type != 0x9100)
			break;
		l2 += 4;
	}
	if (len < l2 + 20 || ((unsigned)f[l2 - 2] << 8 | f[l2 - 1]) != 0x0800 ||
	    f[l2] >> 4 != 4)
		return false;
	return f[l2 + 16] == 0 || f[l2 + 16] == 127 || f[l2 + 16] == 255;
}

/* --mac and --no-martians: should the frame not be forwarded (counted)? */
static bool screened(struct side *s, const uint8_t *data, uint32_t len)
{
	struct bridge *b = s->b;
	int port = s == &b->side[BRIDGE_AB] ? 0 : 1;

	if (b->macs && len >= 14) {
		if (!memcmp(data + 6, b->mac[0], 6) || !memcmp(data + 6, b->mac[1], 6)) {
			s->st.dropped_own_mac++;
			return true;
		}
		if (learned_elsewhere(b, data + 6, port)) {
			s->st.dropped_learned++;
			return true;
		}
	}
	if (b->no_martians && martian(data, len)) {
		s->st.dropped_martian++;
		return true;
	}
	return false;
}

/* live_port_fn: one frame from the ring, on its way to the other port. */
static void on_frame(void *arg, uint64_t mono_ns, const uint8_t *data, uint32_t caplen,
		     uint32_t len)
{
	struct side *s = arg;

	s->st.received++;
	if ((s->b->macs || s->b->no_martians) && screened(s, data, caplen))
		return;
	if (caplen < len) {
		s->st.too_long++;
		fail(s, &s->said_cut,
		     "a frame longer than the capture's snapshot length (GRO on the input?) is not "
		     "forwarded cut");
		return;
	}
	if (s->ed && edit_frame(s, &data, &caplen) < 0)
		return;
	if (!bridge_frame_fits(data, caplen, s->out_mtu)) {
		char why[200];

		s->st.too_long++;
		snprintf(why, sizeof(why),
			 "a frame of %u bytes does not fit the output port's MTU %u", caplen,
			 s->out_mtu);
		fail(s, &s->said_mtu, why);
		return;
	}
	if (s->im)
		impair_frame(s, mono_ns, data, caplen);
	else
		send_frame(s, data, caplen);
}

/* Send the held frames due by @now_ns, earliest first. */
static void send_due(struct side *s, uint64_t now)
{
	const struct dq_entry *top;

	while ((top = dq_peek(&s->dq)) && top->deadline_ns <= now) {
		struct held *h = top->data;
		struct dq_entry e;

		hist_add(&s->st.send_error, now - top->deadline_ns);
		if (now > top->deadline_ns + BRIDGE_LATE_NS) {
			s->st.late++;
			impair_count_late(s->im);
		}
		send_frame(s, h->buf, h->len);
		(void)dq_pop(&s->dq, &e);
		slots_put(&s->slots, h->slot);
		s->nheld--;
	}
}

/* Both directions' held frames due by a fresh clock read, sent and kicked. */
static void send_all_due(struct bridge *b)
{
	b->now_ns = now_ns();
	for (int d = 0; d < BRIDGE_DIRS; d++) {
		send_due(&b->side[d], b->now_ns);
		flush(&b->side[d]);
	}
}

/*
 * Read what waits on @s's input, a batch at a time: -EIO when the capture
 * failed.  Before each batch what has fallen due (during a stall, or while
 * the batch before was read) leaves, so that the queue holds only frames
 * not yet due when a backlog comes in.
 */
static int read_port(struct side *s)
{
	for (;;) {
		int n;

		send_all_due(s->b);
		n = live_port_read(s->in, BRIDGE_READ_BATCH, on_frame, s);

		if (n < 0) {
			snprintf(s->b->err, sizeof(s->b->err), "%s", live_port_strerror(s->in));
			return n;
		}
		if ((unsigned)n < BRIDGE_READ_BATCH)
			return 0;
		/* A full batch: kick it before taking more, so that a busy ring cannot hold frames
		 * back. */
		flush(s);
	}
}

int bridge_run(struct bridge *b, const volatile sig_atomic_t *stop, char *err, size_t errlen)
{
	uint64_t end = b->duration_ns ? now_ns() + b->duration_ns : 0, sig_at = 0;
	sigset_t block, orig;
	int rc = 0;

	/* SIGINT and SIGTERM reach us only inside ppoll(): a stop is never missed between check and
	 * wait. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &orig);
	while (!*stop && !b->fatal) {
		/* A port not captured (--unidir) has fd -1, which ppoll() passes over. */
		struct pollfd pfd[2] = {
		    {.fd = b->port[0] ? live_port_fd(b->port[0]) : -1, .events = POLLIN},
		    {.fd = b->port[1] ? live_port_fd(b->port[1]) : -1, .events = POLLIN}};
		uint64_t now = b->now_ns = now_ns(), next = end ? end : UINT64_MAX, wait;
		struct timespec ts = {0}, *tp = NULL;

		if (end && now >= end)
			break;
		for (int d = 0; d < BRIDGE_DIRS; d++) {
			const struct dq_entry *top;

			send_due(&b->side[d], now);
			flush(&b->side[d]);
			top = dq_peek(&b->side[d].dq);
			if (top)
				next = MIN(next, top->deadline_ns);
		}
		wait = next == UINT64_MAX ? UINT64_MAX : next > now ? next - now : 0;
		if (b->poll == BRIDGE_POLL_BUSY ||
		    (b->poll == BRIDGE_POLL_HYBRID && wait <= b->margin_ns + b->sleep_min_ns)) {
			/* Spin: look at the rings without waiting, and let a stop in now and then. */
			tp = &ts;
			if (now - sig_at >= BRIDGE_SIGNAL_NS) {
				sigprocmask(SIG_SETMASK, &orig, NULL);
				sigprocmask(SIG_BLOCK, &block, NULL);
				sig_at = now;
				if (*stop)
					break;
			}
		} else if (wait != UINT64_MAX) {
			if (b->poll == BRIDGE_POLL_HYBRID)
				wait -= b->margin_ns;
			ts.tv_sec = (time_t)(wait / 1000000000ull);
			ts.tv_nsec = (long)(wait % 1000000000ull);
			tp = &ts;
		}
		if (ppoll(pfd, 2, tp, &orig) < 0 && errno != EINTR) {
			rc = -errno;
			snprintf(b->err, sizeof(b->err), "poll: %s", strerror(errno));
			break;
		}
		for (int d = 0; d < BRIDGE_DIRS && !rc; d++)
			if (pfd[d].revents)
				rc = read_port(&b->side[d]);
		for (int d = 0; d < BRIDGE_DIRS; d++)
			flush(&b->side[d]);
		if (rc)
			break;
	}
	sigprocmask(SIG_SETMASK, &orig, NULL);
	/* What is held is not sent before its deadline: it fails, counted apart. */
	for (int d = 0; d < BRIDGE_DIRS; d++) {
		struct side *s = &b->side[d];
		struct dq_entry e;
		uint64_t kc, kd, ifd;

		if (!s->in)
			continue;
		flush(s);
		while (dq_pop(&s->dq, &e) == 0) {
			struct held *h = e.data;

			slots_put(&s->slots, h->slot);
			s->nheld--;
			s->st.failed++;
			s->st.held_at_stop++;
		}
		(void)tx_drain(s->out);
		live_port_drops(s->in, &kc, &kd, &ifd);
		s->st.kernel_captured = kc;
		s->st.kernel_dropped = kd;
	}
	if (!rc && b->fatal)
		rc = b->fatal;
	if (rc)
		snprintf(err, errlen, "%s", b->err);
	return rc;
}

static const char *method_name(int m)
{
	for (const struct opt_enum *e = tx_method_choices; e->name; e++)
		if (e->value == m)
			return e->name;
	return "packet";
}

/*
 * Direction @d's impairment engine: its traces and model (bridge_dir_impair()),
 * each trace read whole now, before any port opens.  A direction with none
 * keeps s->im NULL.
 */
static int open_engine(struct bridge *b, const struct bridge_cfg *cfg, enum bridge_dir d,
		       char *err, size_t errlen)
{
	struct side *s = &b->side[d];
	struct impair_stat_cfg st;
	struct impair_cfg *ic = calloc(bridge_dir_ntraces(cfg, d) + 1, sizeof(*ic));
	char why[1024];
	const char *opt;
	size_t n;
	int rc;

	if (!ic) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = bridge_dir_impair(cfg, d, &st, ic, &n, err, errlen);
	if (rc < 0 || !n)
		goto out;
	s->limit = cfg->limit ? cfg->limit : st.limit;
	rc = impair_open(&s->im, ic, n, why, sizeof(why));
	if (rc < 0) {
		opt = bridge_trace_opt(cfg, d, why);
		snprintf(err, errlen, "%s%s%s", opt ? opt : "", opt ? ": " : "", why);
	}
out:
	free(ic);
	return rc;
}

/* Direction @d's edits, and its impairment's queue and memory. */
static int open_side(struct bridge *b, const struct bridge_cfg *cfg, enum bridge_dir d, char *err,
		     size_t errlen)
{
	struct side *s = &b->side[d];
	struct edit_cfg ec;
	unsigned in_mtu = live_port_mtu(s->in);
	uint32_t slot =
	    in_mtu ? MIN(in_mtu + BRIDGE_L2_BYTES, PKT_FRAME_MAX_BYTES) : PKT_FRAME_MAX_BYTES;
	int rc;

	bridge_dir_edit(cfg, d, &ec);
	s->edit_side = d == BRIDGE_AB ? 1 : 2;
	if (edit_cfg_any(&ec)) {
		rc = edit_chain_new(&s->ed, &ec);
		if (rc < 0) {
			snprintf(err, errlen, "%s: %s", s->name,
				 s->ed ? edit_chain_strerror(s->ed) : strerror(-rc));
			return rc;
		}
	}
	s->slot_bytes = slot;
	if (!s->im)
		return 0;
	s->act = malloc(sizeof(*s->act));
	s->scratch = malloc(slot);
	if (!s->act || !s->scratch || slots_init(&s->slots, s->limit, slot) < 0 ||
	    dq_init(&s->dq, s->limit) < 0 ||
	    !(s->held = calloc(slots_ids(&s->slots), sizeof(*s->held)))) {
		snprintf(err, errlen, "%s: out of memory (--impair-limit %u frames of %u bytes)",
			 s->name, s->limit, slot);
		return -ENOMEM;
	}
	/* Touched now, so that no page of them is first touched by a frame. */
	memset(s->scratch, 0, slot);
	memset(s->act, 0, sizeof(*s->act));
	return 0;
}

/*
 * The hybrid's margin: how late this machine's timer wakes a sleep, measured
 * as the scheduler measures it (about 60 ms).  Timer slack is first cut to
 * 1 ns, so that ppoll() is not rounded up by the default 50 us.
 */
static void calibrate(struct bridge *b)
{
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	(void)sched_wake_margin(clock_monotonic(), &b->margin_ns, &b->sleep_min_ns);
}

int bridge_open(struct bridge **bp, const struct bridge_cfg *cfg, const char *if1, const char *if2,
		char *err, size_t errlen)
{
	struct bridge *b = calloc(1, sizeof(*b));
	const char *ifs[2] = {if1, if2};
	int rc;

	*bp = NULL;
	if (!b) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	b->duration_ns = (uint64_t)(cfg->duration_s * 1e9);
	b->poll = cfg->poll == BRIDGE_POLL_AUTO ? BRIDGE_POLL_HYBRID : cfg->poll;
	b->no_martians = cfg->no_martians;
	if (cfg->macs.n == 2) {
		b->macs = true;
		memcpy(b->mac, cfg->macs.mac, sizeof(b->mac));
		b->learn = calloc(BRIDGE_LEARN_SLOTS, sizeof(*b->learn));
		if (!b->learn) {
			snprintf(err, errlen, "out of memory");
			rc = -ENOMEM;
			goto fail;
		}
	}
	/* The traces first: a bad one is refused before any port opens. */
	for (int d = 0; d < (cfg->unidir ? 1 : BRIDGE_DIRS); d++) {
		rc = open_engine(b, cfg, (enum bridge_dir)d, err, errlen);
		if (rc < 0)
			goto fail;
	}
	for (int i = 0; i < 2; i++) {
		struct tx_cfg tc = {.ifname = ifs[i]};

		/* --unidir: IF2 is only sent on, IF1 only captured. */
		if (!(cfg->unidir && i == 1)) {
			rc = live_port_open(&b->port[i], ifs[i], cfg->buffer_kib, err, errlen);
			if (rc < 0)
				goto fail;
		}
		if (cfg->unidir && i == 0)
			continue;
		rc = tx_open(&b->tx[i], method_name(cfg->method), &tc);
		if (rc < 0) {
			snprintf(err, errlen, "%s: %s", ifs[i],
				 b->tx[i] ? tx_strerror(b->tx[i]) : strerror(-rc));
			goto fail;
		}
	}
	for (int d = 0; d < BRIDGE_DIRS; d++) {
		struct side *s = &b->side[d];

		s->b = b;
		hist_init(&s->st.send_error);
		s->in = b->port[d];
		s->out = b->tx[!d];
		s->out_mtu = bridge_port_mtu(b, !d);
		snprintf(s->name, sizeof(s->name), "%s -> %s", ifs[d], ifs[!d]);
		if (!s->in)
			continue;
		rc = open_side(b, cfg, (enum bridge_dir)d, err, errlen);
		if (rc < 0)
			goto fail;
	}
	if (b->poll == BRIDGE_POLL_HYBRID)
		calibrate(b);
	*bp = b;
	return 0;
fail:
	bridge_close(b);
	return rc;
}

const char *bridge_name(const struct bridge *b, enum bridge_dir d)
{
	return b->side[d].name;
}

unsigned bridge_port_mtu(const struct bridge *b, int port)
{
	if (b->port[port])
		return live_port_mtu(b->port[port]);
	return b->tx[port] ? b->tx[port]->mtu : 0;
}

bool bridge_edits(const struct bridge *b, enum bridge_dir d)
{
	return b->side[d].ed != NULL;
}

int bridge_poll_mode(const struct bridge *b, uint64_t *margin_ns)
{
	*margin_ns = b->poll == BRIDGE_POLL_HYBRID ? b->margin_ns : 0;
	return b->poll;
}

const struct bridge_dir_stats *bridge_stats(const struct bridge *b, enum bridge_dir d)
{
	return &b->side[d].st;
}

const struct impair_stats *bridge_impair_stats(const struct bridge *b, enum bridge_dir d)
{
	return b->side[d].im ? impair_stats(b->side[d].im) : NULL;
}

void bridge_close(struct bridge *b)
{
	if (!b)
		return;
	for (int d = 0; d < BRIDGE_DIRS; d++) {
		struct side *s = &b->side[d];

		edit_chain_free(s->ed);
		impair_close(s->im);
		dq_free(&s->dq);
		slots_free(&s->slots);
		free(s->held);
		free(s->act);
		free(s->scratch);
	}
	for (int i = 0; i < 2; i++) {
		tx_close(b->tx[i]);
		live_port_close(b->port[i]);
	}
	free(b->learn);
	free(b);
}
