// SPDX-License-Identifier: BSD-2-Clause
/*
 * AF_XDP (libxdp), send only, no XDP program: frames go into UMEM, memory
 * shared with the kernel, their descriptors on the TX ring; one sendto() kicks.
 * Zero copy where the driver has it, else copy mode (an skb per frame, no
 * qdisc).  A UMEM frame is ours while free or staged (its descriptor in a ring
 * slot not yet published), the kernel's from the publishing until its address
 * comes back on the completion ring.  flush() publishes, kicks and reports the
 * prefix the kernel consumed (at most 32 a kick in copy mode); a descriptor the
 * driver refused (EBUSY) is a failed packet.  In place (tx_cfg.inplace) the
 * preload and its spare are one unaligned-chunk UMEM: a frame as recorded goes
 * by its address in the copy, prefetched before the kick, and its completion
 * frees nothing (drain() counts them).  Why, and why not the trace's own
 * mapping: doc/scaling.md, "AF_XDP zero-copy".
 */
#include <errno.h>
#include <linux/if_xdp.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <xdp/xsk.h>

#include "tx_int.h"

#define FRAME_BYTES XSK_UMEM__DEFAULT_FRAME_SIZE
#define NFRAMES 4096u
#define TX_DESCS 2048u
#define COMP_DESCS 4096u
#define FILL_DESCS 64u /* required by the UMEM, never used: nothing is received */
#define BACKOFF_NS 10000
#define BIND_BUSY_MS 1000u    /* bind() finds the queue taken: tried again for this long... */
#define BIND_BUSY_STEP_MS 10u /* ...this often */
/* How often a kick reads the MTU again (see mtu_check()), ns. */
#define MTU_CHECK_NS 100000000ull
_Static_assert((uint64_t)NFRAMES * FRAME_BYTES == TX_XDP_UMEM_BYTES, "privs.c counts UMEM bytes");

struct xdp_state {
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	struct xsk_ring_prod fill, tx;
	struct xsk_ring_cons comp;
	uint8_t *area;      /* our own staging frames (NFRAMES * FRAME_BYTES), or MAP_FAILED */
	uint8_t *ubase;     /* the UMEM: a descriptor's address is an offset from here */
	uint64_t ubytes;    /* its length */
	uint64_t stage0;    /* UMEM address of the first staging frame */
	uintptr_t ip_lo, ip_hi; /* frames in [ip_lo, ip_hi) go in place; equal: none */
	bool unaligned;     /* the UMEM is registered in unaligned-chunk mode */
	bool umem_refused;  /* the kernel would not take that memory as a UMEM */
	uint64_t *free;     /* free frame addresses, a stack */
	unsigned nfree;
	unsigned sn;        /* staged: reserved TX ring slots before tx.cached_prod, not published */
	unsigned scap;      /* most staged at once: the batch */
	uint32_t submitted; /* descriptors put on the TX ring, ever (mod 2^32) */
	uint32_t seen_cons; /* the kernel's consumer index when we last looked */
	uint32_t completed; /* descriptors back on the completion ring, ever (mod 2^32) */
	bool drop_pending;  /* the oldest staged packet was consumed but dropped */
	bool discarded;     /* packets on the ring were given up: do not kick them out */
	bool zerocopy;
	uint64_t mtu_next_ns; /* CLOCK_MONOTONIC_COARSE: when to read the MTU again */
};

static int make_socket_once(struct tx *tx, struct xdp_state *s, const struct tx_cfg *cfg, bool zc)
{
	struct xsk_umem_config ucfg = {
		.fill_size = FILL_DESCS,
		.comp_size = COMP_DESCS,
		.frame_size = FRAME_BYTES,
		.frame_headroom = 0,
		.flags = s->unaligned ? XDP_UMEM_UNALIGNED_CHUNK_FLAG : 0,
	};
	struct xsk_socket_config xcfg = {
		.rx_size = 0,
		.tx_size = TX_DESCS,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.xdp_flags = 0,
		.bind_flags = XDP_USE_NEED_WAKEUP | (zc ? XDP_ZEROCOPY : XDP_COPY),
	};
	int rc;

	rc = xsk_umem__create(&s->umem, s->ubase, s->ubytes, &s->fill, &s->comp, &ucfg);
	if (rc) {
		struct rlimit rl;

		s->umem = NULL;
		s->umem_refused = true;
		rc = rc < 0 ? rc : -rc;
		/* The kernel charges UMEM to the user's locked memory: ENOBUFS when over the limit. */
		if (rc == -ENOBUFS && getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
			return tx_err(tx, rc,
				      "%s: cannot register AF_XDP memory: its %u MiB would pass the locked-memory limit (RLIMIT_MEMLOCK %llu KiB, counted with the user's other locked memory): raise it (ulimit -l) or grant cap_ipc_lock",
				      tx->dev, TX_XDP_UMEM_BYTES >> 20, (unsigned long long)(rl.rlim_cur >> 10));
		return tx_err(tx, rc, "%s: cannot register AF_XDP memory: %s", tx->dev, strerror(-rc));
	}
	rc = xsk_socket__create(&s->xsk, cfg->ifname, cfg->xdp_queue, s->umem, NULL, &s->tx, &xcfg);
	if (rc) {
		rc = rc < 0 ? rc : -rc;
		s->xsk = NULL;
		xsk_umem__delete(s->umem);
		s->umem = NULL;
		if (rc == -EPERM || rc == -EACCES)
			return tx_err(tx, -EPERM, "%s: cannot open an AF_XDP socket: permission denied (needs root or CAP_NET_RAW)",
				      tx->dev);
		if (rc == -EBUSY)
			return tx_err(tx, rc,
				      "%s: cannot bind an AF_XDP socket to queue %u in %s mode: another AF_XDP socket holds it (still after %u ms)",
				      tx->dev, cfg->xdp_queue, zc ? "zero-copy" : "copy", BIND_BUSY_MS);
		/* The kernel says only EINVAL for a queue the device does not have: say which it has. */
		if (rc == -EINVAL) {
			int nq = netdev_tx_queues(tx->dev);

			if (nq == 1 && cfg->xdp_queue)
				return tx_err(tx, -EINVAL,
					      "%s: no TX queue %u for AF_XDP to bind: it has one (--xdp-queue 0)",
					      tx->dev, cfg->xdp_queue);
			if (nq > 1 && cfg->xdp_queue >= (unsigned)nq)
				return tx_err(tx, -EINVAL,
					      "%s: no TX queue %u for AF_XDP to bind: it has %d (--xdp-queue 0 to %d)",
					      tx->dev, cfg->xdp_queue, nq, nq - 1);
		}
		return tx_err(tx, rc == -ENOTSUP ? -EPROTONOSUPPORT : rc,
			      "%s: cannot bind an AF_XDP socket to queue %u in %s mode: %s", tx->dev,
			      cfg->xdp_queue, zc ? "zero-copy" : "copy", strerror(-rc));
	}
	s->zerocopy = zc;
	return 0;
}

/*
 * make_socket_once(), again while the queue is taken (EBUSY).  Often it is
 * taken by the socket a run just before this one closed: the kernel lets go
 * of a queue from deferred work, some milliseconds after the close, so a
 * replay started right after another one found the queue busy (and auto
 * passed AF_XDP over).  After BIND_BUSY_MS it is someone else's: refused.
 */
static int make_socket(struct tx *tx, struct xdp_state *s, const struct tx_cfg *cfg, bool zc)
{
	const struct timespec pause = { .tv_nsec = BIND_BUSY_STEP_MS * 1000000l };
	int rc;

	for (unsigned waited = 0;; waited += BIND_BUSY_STEP_MS) {
		rc = make_socket_once(tx, s, cfg, zc);
		if (rc != -EBUSY || waited >= BIND_BUSY_MS)
			return rc;
		nanosleep(&pause, NULL);
	}
}

/* The socket in the mode asked for: zero-copy, copy, or zero-copy where the driver has it. */
static int open_socket(struct tx *tx, struct xdp_state *s, const struct tx_cfg *cfg)
{
	int rc;

	if (cfg->xdp_mode == TX_XDP_COPY)
		return make_socket(tx, s, cfg, false);
	rc = make_socket(tx, s, cfg, true);
	/* Zero-copy needs driver support (veth has none): copy mode works everywhere. */
	if (rc < 0 && rc != -EPERM && cfg->xdp_mode == TX_XDP_AUTO && !s->umem_refused)
		rc = make_socket(tx, s, cfg, false);
	return rc;
}

static int xdp_open(struct tx *tx, const struct tx_cfg *cfg)
{
	struct xdp_state *s;
	struct netdev nd;
	int rc, fd;

	s = calloc(1, sizeof(*s));
	if (!s)
		return tx_err(tx, -ENOMEM, "out of memory");
	s->area = MAP_FAILED;
	tx->priv = s;
	if (!cfg->ifname)
		return tx_err(tx, -EINVAL, "no interface given");
	snprintf(tx->dev, sizeof(tx->dev), "%s", cfg->ifname);
	/* Permission first, as for packet sockets: AF_XDP needs CAP_NET_RAW too. */
	fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno == EPERM || errno == EACCES
			       ? tx_err(tx, -EPERM, "%s: cannot open an AF_XDP socket: permission denied (needs root or CAP_NET_RAW)",
					cfg->ifname)
			       : tx_err(tx, -EAFNOSUPPORT, "%s: AF_XDP is not available: %s",
					cfg->ifname, strerror(errno));
	close(fd);
	rc = netdev_open_check(tx, cfg->ifname, &nd);
	if (rc < 0)
		return rc;
	tx->mtu = nd.mtu;
	s->free = calloc(NFRAMES, sizeof(*s->free));
	tx->batch = tx_batch(cfg);
	s->scap = tx->batch;
	if (!s->free)
		return tx_err(tx, -ENOMEM, "out of memory");
	/*
	 * In place where the driver is zero-copy, or in copy mode when asked
	 * (xdp_inplace).  In copy mode the kernel copies each frame anyway,
	 * reading it through the UMEM's 4 KiB kernel mapping: a page walk per
	 * 4 KiB of a large preload, which on some machines costs several times
	 * what staging it from the preload's huge pages does (BENCHMARKS.md,
	 * "Frames in place from the preload").
	 */
	if (cfg->inplace.base && (cfg->xdp_inplace || cfg->xdp_mode != TX_XDP_COPY)) {
		s->ubase = cfg->inplace.base;
		s->stage0 = cfg->inplace.stage_off;
		s->ubytes = s->stage0 + (uint64_t)NFRAMES * FRAME_BYTES;
		s->ip_lo = (uintptr_t)cfg->inplace.base;
		s->ip_hi = s->ip_lo + cfg->inplace.bytes;
		s->unaligned = true;
		rc = cfg->xdp_inplace ? open_socket(tx, s, cfg) : make_socket(tx, s, cfg, true);
		if (rc == 0 || rc == -EPERM)
			goto opened;
		/* Asked for, or zero-copy or nothing: failed unless the memory was what the kernel refused. */
		if (!s->umem_refused && (cfg->xdp_inplace || cfg->xdp_mode == TX_XDP_ZEROCOPY))
			goto opened;
		/* Refused (the whole trace over the locked-memory limit, say), or copy mode: our own frames. */
		s->ip_lo = s->ip_hi = 0;
		s->unaligned = s->umem_refused = false;
	}
	s->area = mmap(NULL, (size_t)NFRAMES * FRAME_BYTES, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (s->area == MAP_FAILED)
		return tx_err(tx, -ENOMEM, "out of memory");
	s->ubase = s->area;
	s->ubytes = (uint64_t)NFRAMES * FRAME_BYTES;
	s->stage0 = 0;
	rc = open_socket(tx, s, cfg);
opened:
	if (rc < 0)
		return rc;
	for (unsigned i = 0; i < NFRAMES; i++)
		s->free[s->nfree++] = s->stage0 + (uint64_t)i * FRAME_BYTES;
	s->seen_cons = __atomic_load_n(s->tx.consumer, __ATOMIC_ACQUIRE);
	s->submitted = s->completed = s->seen_cons;
	snprintf(tx->mode, sizeof(tx->mode), "%s mode, queue %u%s", s->zerocopy ? "zero-copy" : "copy",
		 cfg->xdp_queue, s->ip_lo != s->ip_hi ? ", frames sent in place from the preload" : "");
	return 0;
}

/* A staging frame's address (not a frame sent in place)? */
static inline bool is_stage(const struct xdp_state *s, uint64_t addr)
{
	return addr - s->stage0 < (uint64_t)NFRAMES * FRAME_BYTES;
}

/*
 * Can @v go in place: its bytes in the preload, within one chunk (the
 * kernel's limit on a descriptor), and, for a zero-copy driver, within one
 * page (the kernel checks that a frame crossing one lies in pages whose DMA
 * addresses follow on).
 */
static inline bool in_place(const struct xdp_state *s, const struct pkt *v)
{
	uintptr_t p = (uintptr_t)v->data;

	return p >= s->ip_lo && p + v->caplen <= s->ip_hi && v->caplen <= FRAME_BYTES &&
	       (!s->zerocopy || ((p - (uintptr_t)s->ubase) & 4095) + v->caplen <= 4096);
}

/* Take back the frames the kernel is done with. */
static void reap(struct xdp_state *s)
{
	uint32_t idx, n = xsk_ring_cons__peek(&s->comp, COMP_DESCS, &idx);
	uint64_t *const freel = s->free;
	unsigned nfree = s->nfree;

	/* With nothing sent in place every frame back is a staging frame: no test. */
	if (s->ip_lo == s->ip_hi) {
		for (uint32_t i = 0; i < n; i++)
			freel[nfree++] = *xsk_ring_cons__comp_addr(&s->comp, idx + i);
	} else {
		for (uint32_t i = 0; i < n; i++) {
			uint64_t a = *xsk_ring_cons__comp_addr(&s->comp, idx + i);

			if (is_stage(s, a))
				freel[nfree++] = a;
		}
	}
	s->nfree = nfree;
	if (n) {
		xsk_ring_cons__release(&s->comp, n);
		s->completed += n;
	}
}

/*
 * Nothing on the AF_XDP path checks a frame against the MTU (the copy-mode
 * skb goes straight to the driver; veth checks only its peer's), so an MTU
 * lowered mid-run would not stop frames the interface no longer takes --
 * a NIC drops them, counted as sent.  So the MTU is read again every
 * MTU_CHECK_NS (a coarse clock read per kick, not per frame: it cost ~10
 * instructions a packet at 64 B; the ioctl ten times a second), and a lower
 * one makes the frames staged after that kick fail, as every socket
 * method's do.
 */
static void mtu_check(struct tx *tx, struct xdp_state *s)
{
	struct timespec ts;
	uint64_t now;
	uint32_t mtu;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	now = (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
	if (likely(now < s->mtu_next_ns))
		return;
	s->mtu_next_ns = now + MTU_CHECK_NS;
	mtu = netdev_mtu_now(tx);
	if (mtu && mtu < tx->mtu)
		tx->mtu = mtu; /* only ever lowered, as netdev_send_err() does */
}

_Static_assert(offsetof(struct xdp_desc, options) == offsetof(struct xdp_desc, len) + 4 &&
		       sizeof(((struct xdp_desc *)0)->len) == 4 && sizeof(((struct xdp_desc *)0)->options) == 4 &&
		       __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "xdp_send() stores a descriptor's len and options as one little-endian word");

static int xdp_send(struct tx *tx, const struct pkt *v, unsigned n)
{
	struct xdp_state *s = tx->priv;
	const uint32_t max = MIN(tx->mtu + ETH_HDR_BYTES, (uint32_t)FRAME_BYTES);
	unsigned k = MIN(n, s->scap - s->sn), i;
	uint32_t idx = 0;
	int rc = -EAGAIN;

	/* Locals: a store into a frame or descriptor could be one into *s, as far as the compiler knows. */
	const bool inplace = s->ip_lo != s->ip_hi;
	uint64_t *const freel = s->free;
	uint8_t *const ubase = s->ubase;
	unsigned nfree = s->nfree;

	/* The run's TX ring slots reserved at once; full only of descriptors given up on a dead interface. */
	k = MIN(k, xsk_prod_nb_free(&s->tx, k));
	if (!k || xsk_ring_prod__reserve(&s->tx, k, &idx) != k)
		return -EAGAIN;
	for (i = 0; i < k; i++) {
		const struct pkt *p = &v[i];
		uint32_t len = p->caplen;
		struct xdp_desc *d;
		uint64_t addr, lo;

		if (unlikely(len < ETH_HDR_BYTES || len > max)) {
			rc = netdev_frame_check(tx, p);
			if (rc == 0 && len > FRAME_BYTES)
				rc = tx_err(tx, -EMSGSIZE, "frame of %u bytes does not fit an AF_XDP frame (%u bytes)",
					    len, FRAME_BYTES);
			if (rc < 0)
				break;
		}
		if (unlikely(inplace) && in_place(s, p)) {
			addr = (uint64_t)((uintptr_t)p->data - (uintptr_t)s->ubase);
			/* Copy mode: the kernel copies it at the kick; fetched now, through our 2 MiB pages. */
			for (uint32_t o = 0; !s->zerocopy && o < len; o += 64)
				__builtin_prefetch(p->data + o);
		} else {
			if (unlikely(!nfree)) {
				s->nfree = nfree;
				reap(s);
				nfree = s->nfree;
			}
			if (unlikely(!nfree)) {
				rc = -EAGAIN; /* every frame is with the kernel */
				break;
			}
			addr = freel[--nfree];
			stage_copy(ubase + addr, p->data, len);
		}
		d = xsk_ring_prod__tx_desc(&s->tx, idx + i);
		d->addr = addr;
		/* The length and no options: one store. */
		lo = len;
		memcpy(&d->len, &lo, sizeof(lo));
	}
	/* The slots reserved and not filled go back (not published: only our cached index moved). */
	s->tx.cached_prod -= k - i;
	s->nfree = nfree;
	s->sn += i;
	return i ? (int)i : rc;
}

/* Publish the staged descriptors: from here on they are the kernel's. */
static void submit(struct xdp_state *s)
{
	if (s->sn) {
		xsk_ring_prod__submit(&s->tx, s->sn);
		s->submitted += s->sn;
		s->sn = 0;
	}
}

/* The kick: in copy mode the kernel sends in this syscall; in zero-copy it wakes the driver. */
static int kick(struct xdp_state *s)
{
	if (!s->zerocopy || xsk_ring_prod__needs_wakeup(&s->tx))
		if (sendto(xsk_socket__fd(s->xsk), NULL, 0, MSG_DONTWAIT, NULL, 0) < 0)
			return errno;
	return 0;
}

static int xdp_flush(struct tx *tx)
{
	struct xdp_state *s = tx->priv;
	uint32_t cons, taken;
	int err, rc;

	if (s->drop_pending) {
		s->drop_pending = false;
		return tx_err(tx, -EIO, "dropped by %s after the kernel took it (its queue was full)",
			      tx->dev);
	}
	if (!s->sn && s->submitted == s->seen_cons)
		return 0;
	mtu_check(tx, s);
	submit(s);
	err = kick(s);
	reap(s);
	cons = __atomic_load_n(s->tx.consumer, __ATOMIC_ACQUIRE);
	taken = cons - s->seen_cons;
	s->seen_cons = cons;
	if (err == EBUSY) {
		/*
		 * The last descriptor the kernel consumed was dropped.  If it
		 * published nothing else in this kick, the consumer index does
		 * not include it yet: it is the oldest we know of.
		 */
		if (!taken) {
			s->seen_cons++;
			return tx_err(tx, -EIO, "dropped by %s after the kernel took it (its queue was full)",
				      tx->dev);
		}
		if (taken == 1)
			return tx_err(tx, -EIO, "dropped by %s after the kernel took it (its queue was full)",
				      tx->dev);
		s->drop_pending = true;
		return (int)taken - 1;
	}
	if (taken)
		return (int)taken;
	if (!err || err == EAGAIN) {
		rc = netdev_still_up(tx);
		return rc < 0 ? rc : -EAGAIN;
	}
	return netdev_send_err(tx, err, 0);
}

static void xdp_discard(struct xdp_state *s)
{
	/* Staged descriptors were never published: their slots are taken back, their frames freed. */
	uint32_t first = s->tx.cached_prod - s->sn;

	for (uint32_t i = 0; i < s->sn; i++) {
		uint64_t a = xsk_ring_prod__tx_desc(&s->tx, first + i)->addr;

		if (is_stage(s, a))
			s->free[s->nfree++] = a;
	}
	s->tx.cached_prod = first;
	s->sn = 0;
	/* What is on the ring cannot be taken back; in copy mode it stays there unless kicked. */
	if (s->submitted != s->seen_cons)
		s->discarded = true;
	s->drop_pending = false;
}

static void xdp_discard_op(struct tx *tx)
{
	xdp_discard(tx->priv);
}

static int xdp_wait(struct tx *tx, int err)
{
	struct xdp_state *s = tx->priv;

	(void)err;
	reap(s);
	netdev_sleep_ns(BACKOFF_NS);
	return 0;
}

static int xdp_drain(struct tx *tx)
{
	struct xdp_state *s = tx->priv;

	/* Every descriptor back from the kernel: sent and completed (or dropped and reported). */
	for (int waited = 0; waited < TX_DRAIN_TIMEOUT_MS * 10; waited++) {
		reap(s);
		if (s->nfree + s->sn == NFRAMES && s->completed == s->submitted)
			return 0;
		if (s->discarded)
			return 0; /* frames given up on a dead interface: nothing more will come back */
		if (s->submitted != s->seen_cons || s->zerocopy)
			(void)kick(s);
		s->seen_cons = __atomic_load_n(s->tx.consumer, __ATOMIC_ACQUIRE);
		netdev_sleep_ns(100000);
	}
	return tx_err(tx, -ETIMEDOUT, "%s: AF_XDP frames still in flight after %d ms", tx->dev,
		      TX_DRAIN_TIMEOUT_MS);
}

static void xdp_close(struct tx *tx)
{
	struct xdp_state *s = tx->priv;

	if (!s)
		return;
	if (s->xsk)
		xsk_socket__delete(s->xsk);
	if (s->umem)
		xsk_umem__delete(s->umem);
	if (s->area != MAP_FAILED)
		munmap(s->area, (size_t)NFRAMES * FRAME_BYTES);
	free(s->free);
	free(s);
	tx->priv = NULL;
}

const struct tx_ops tx_xdp_ops = {
	.name = "xdp",
	.open = xdp_open,
	.send = xdp_send,
	.flush = xdp_flush,
	.discard = xdp_discard_op,
	.wait = xdp_wait,
	.drain = xdp_drain,
	.close = xdp_close,
};
