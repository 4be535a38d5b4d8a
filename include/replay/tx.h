/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Transmit methods.  One const ops table per method in src/tx/<name>.c,
 * found by name; the send loop sees only this header.
 *
 * Sending is two steps, so that a frame is ready in the method's own memory
 * (a TX-ring slot, a UMEM frame, an sendmmsg arena) before its deadline and
 * only the kick stands between the deadline and the wire:
 *
 *   send()  stages: copies up to @n views into the method's memory, in order, and
 *           returns how many it took, starting with the first.  The views
 *           may be reused as soon as it returns.  Nothing leaves yet.
 *   flush() kicks: hands the staged packets to the kernel, oldest first, and
 *           returns how many of them it handed over (a prefix; the rest stay
 *           staged for the next flush()).
 *
 * Either returns a negative errno about ONE packet -- the first view offered
 * (send) or the oldest staged packet (flush) -- when it cannot make any
 * progress, with the explanation in tx_strerror():
 *   -EAGAIN, -ENOBUFS  back-pressure (no free slot, queue full): call wait()
 *                      and offer it again -- after flush() for a full stage;
 *   -EMSGSIZE, -EINVAL this packet can never be sent (too large, too short);
 *                      count it failed and go on;
 *   -ENETDOWN, -ENXIO, -ENODEV  the interface went away (and -EPIPE,
 *                      -ENOSPC, -EDQUOT, -EFBIG: an output file's
 *                      stream broke; see tx_fatal()): stop the run;
 *                      discard() everything staged (that packet included),
 *                      counting it all failed;
 *   anything else      count it failed and go on.  A failure of this kind
 *                      reported by flush() removes that packet from the stage.
 * Every staged packet is thus reported exactly once, as handed over or as
 * failed.  A method never drops a packet it handed over: drain() waits
 * until every one has left (rings emptied, completions reaped, files
 * flushed), so that the count of handed-over packets equals what the
 * interface's own TX counter says left it.
 */
#ifndef REPLAY_TX_H
#define REPLAY_TX_H

#include <stdbool.h>
#include <stdint.h>

#include <errno.h>

#include "optparse.h"
#include "pkt.h"

enum tx_xdp_mode {
	TX_XDP_AUTO,     /* zero-copy where the driver supports it, else copy */
	TX_XDP_COPY,     /* copy mode: works on every interface */
	TX_XDP_ZEROCOPY, /* zero-copy or fail */
	TX_XDP_MAX
};

/* The transmit methods, as --method names them. */
enum tx_method {
	TX_METHOD_AUTO,   /* the fastest that works here (tx_open_auto()) */
	TX_METHOD_PACKET,
	TX_METHOD_MMSG,
	TX_METHOD_RING,
	TX_METHOD_URING,
	TX_METHOD_XDP,
	TX_METHOD_RAW,
	TX_METHOD_FILE,
	TX_METHOD_MAX
};

/*
 * Names, for the options and --help: tx_method_choices lists "auto" and the
 * methods built into this program (a method whose library was missing at
 * build time is not there, so naming it is a usage error);
 * tx_xdp_mode_choices names enum tx_xdp_mode.
 */
extern const struct opt_enum tx_method_choices[];
extern const struct opt_enum tx_xdp_mode_choices[];

/* Default and ceiling of tx_cfg.batch: enough to amortise a syscall (~1-2 us) to tens of ns. */
#define TX_BATCH_DEFAULT 64u
#define TX_BATCH_MAX 1024u

/* The memory each AF_XDP socket registers as its UMEM (locked: RLIMIT_MEMLOCK or cap_ipc_lock). */
#define TX_XDP_UMEM_BYTES (4096u * 4096u)

struct tx_cfg {
	const char *ifname;        /* interface, for wire methods */
	const char *path;          /* output file ("-" = stdout), for the file method */
	unsigned linktype;         /* file: the LINKTYPE_* of its header; 0 = LINKTYPE_ETHERNET */
	int64_t clock_to_real_ns;  /* add to a run-clock time to get CLOCK_REALTIME, ns */
	unsigned batch;            /* most packets staged at once; 0 = TX_BATCH_DEFAULT */
	bool qdisc_bypass;         /* AF_PACKET methods: PACKET_QDISC_BYPASS (no qdisc, no shaping) */
	bool auto_xdp;             /* tx_open_auto(): try xdp first, unasked (tx_bypass_harmless() said 1) */
	unsigned xdp_queue;        /* xdp: the device TX queue to bind */
	enum tx_xdp_mode xdp_mode; /* xdp: copy or zero-copy */
	bool uring_sqpoll;         /* uring: a kernel thread polls the submission queue */
	bool xdp_inplace;          /* xdp: send from inplace in copy mode too, not only zero-copy */
	/*
	 * --gso: a TCP frame longer than the MTU goes whole, for the kernel to
	 * cut (PACKET_VNET_HDR: segment_vnet()); every frame is then staged
	 * behind a struct virtio_net_hdr.  Methods with TX_F_GSO only.
	 */
	bool gso;
	/*
	 * xdp: memory that holds the frames to be sent (a --preload copy of the
	 * trace), with TX_XDP_UMEM_BYTES of spare, page-aligned memory at
	 * stage_off.  Where the socket is zero-copy (or xdp_inplace), the
	 * method registers [base, base + stage_off + TX_XDP_UMEM_BYTES) as its
	 * UMEM, stages copies in the spare, and sends a frame whose bytes lie in
	 * [base, base + bytes) in place, without copying it; in copy mode, or if
	 * the kernel will not take that memory, it stages every frame in its
	 * own.  The bytes must not change while the method is open.  base NULL:
	 * none.
	 */
	struct {
		uint8_t *base;
		size_t bytes;
		size_t stage_off;
	} inplace;
};

enum {
	/* The method writes rather than sends: the run need not wait for deadlines. */
	TX_F_VIRTUAL_TIME = 1u << 0,
	/* The method takes tx_cfg.gso: an AF_PACKET socket whose frames may carry a vnet header. */
	TX_F_GSO = 1u << 1,
	/*
	 * The method sends on an interface without a link-layer header (tun,
	 * WireGuard, ipip, gre, sit, PPP): each frame's IP packet, its link
	 * header dropped (tx->l3).  The others refuse such an interface with
	 * -EPROTONOSUPPORT, so that --method auto goes on to one that can.
	 */
	TX_F_L3 = 1u << 2,
};

struct tx;

struct tx_ops {
	const char *name;
	unsigned flags; /* TX_F_* */
	/* open() - 0, or -errno with tx->err set. */
	int (*open)(struct tx *tx, const struct tx_cfg *cfg);
	/* send() - stage up to @n views; see the contract above. */
	int (*send)(struct tx *tx, const struct pkt *v, unsigned n);
	/* flush() - hand staged packets to the kernel; see the contract above. */
	int (*flush)(struct tx *tx);
	/* discard() - forget every staged packet (the caller counts them failed); none is sent. */
	void (*discard)(struct tx *tx);
	/* wait() - block until a send() or flush() refused with @err (-EAGAIN, -ENOBUFS) may succeed; 0 or -errno (-EINTR). */
	int (*wait)(struct tx *tx, int err);
	/* drain() - end of run: every handed-over packet leaves (files flushed); 0 or -errno.  Nothing is staged. */
	int (*drain)(struct tx *tx);
	/* commit() - after a drain() of a run that succeeded: outputs take their names; NULL = nothing to do. */
	int (*commit)(struct tx *tx);
	/* close() - release; an output not drained is discarded.  Called once, also after a failed open(). */
	void (*close)(struct tx *tx);
};

struct tx {
	const struct tx_ops *ops;
	void *priv;          /* method state */
	char dev[128];       /* interface or file name, for messages and the summary */
	uint32_t mtu;        /* interface MTU, bytes; 0 = no limit (files) */
	unsigned batch;      /* most packets send() can stage before a flush(); set by open() */
	char mode[96];       /* how the method runs, for the summary ("copy mode, queue 0"); may be empty */
	/*
	 * The interface has no link-layer header: its kind ("tun", "wireguard",
	 * "ipip", "gre", "sit", "ppp", "none"...), and every frame goes out as
	 * the IP packet pkt_l3_find() finds in it, at the IP length; a frame
	 * with none fails (-EINVAL, counted in not_ip).  tx->mtu is then the
	 * interface's layer-3 MTU, which that IP packet must fit.  "" on Ethernet.
	 */
	char l3[16];
	uint64_t not_ip;     /* layer 3: frames failed for carrying no IP packet (ARP, LLDP...) */
	char err[320];       /* last error text, without the program name */
};

/*
 * tx_open() - open the method named @method ("packet", "mmsg", "ring", "uring", "xdp",
 * "raw", "file") with @cfg (-EPROTONOSUPPORT: cfg->gso, and the method has no TX_F_GSO).  *@txp is set even on failure (unless memory ran
 * out) so tx_strerror() can say why; the caller always calls tx_close().
 * Returns 0 or -errno (-ENOENT: no such method, or not built in).
 */
int tx_open(struct tx **txp, const char *method, const struct tx_cfg *cfg);

/*
 * tx_open_auto() - open the fastest wire method that works on @cfg->ifname
 * with this privilege, trying them in the order written in src/tx/tx.c.
 * For every one passed over, @note (if not NULL) is called once with its
 * name and the reason (tx_strerror() of the failed open).  As tx_open()
 * otherwise; on failure *@txp holds the last method's reason.
 */
int tx_open_auto(struct tx **txp, const struct tx_cfg *cfg,
		 void (*note)(const char *method, const char *why));

/*
 * tx_bypass_harmless() - would AF_XDP, which passes the qdisc and the packet
 * taps by, lose anything on @ifname, binding queues up to @queues - 1?  1 if
 * not (every qdisc on it is a kernel default, no ETH_P_ALL capture listens on
 * it or on all interfaces, its MTU fits an AF_XDP frame, it has @queues TX
 * queues); else 0.  Either way the reason, one phrase, is in @why.  Never
 * fails: what cannot be read counts against AF_XDP.  (src/tx/bypass.c)
 */
int tx_bypass_harmless(const char *ifname, unsigned queues, char *why, size_t len);

/* tx_qdisc_is_default() - is a qdisc of @kind one the kernel puts there itself? */
bool tx_qdisc_is_default(const char *kind, const char *default_qdisc);

/* tx_packet_taps() - ETH_P_ALL packet sockets listening on @ifindex or on all, in /proc/net/packet's text. */
int tx_packet_taps(const char *proc_net_packet, int ifindex);


/* tx_method_known() - true if @method names a method built into this program (or is "auto"). */
bool tx_method_known(const char *method);

/* tx_methods() - the names of the methods built in, space separated, for messages and --help. */
const char *tx_methods(void);

/* tx_open_ops() - as tx_open() with an explicit ops table: how tests plug in a mock. */
int tx_open_ops(struct tx **txp, const struct tx_ops *ops, const struct tx_cfg *cfg);

/* tx_send() - as ops->send(). */
static inline int tx_send(struct tx *tx, const struct pkt *v, unsigned n)
{
	return tx->ops->send(tx, v, n);
}

/* tx_flush() - as ops->flush(). */
static inline int tx_flush(struct tx *tx)
{
	return tx->ops->flush(tx);
}

/* tx_discard() - as ops->discard(). */
static inline void tx_discard(struct tx *tx)
{
	tx->ops->discard(tx);
}

/* tx_wait() - as ops->wait(). */
static inline int tx_wait(struct tx *tx, int err)
{
	return tx->ops->wait(tx, err);
}

/* tx_drain() - as ops->drain(). */
int tx_drain(struct tx *tx);

/* tx_commit() - as ops->commit(), if the method has one: only a successful run's output appears; 0 or -errno. */
int tx_commit(struct tx *tx);

/* tx_close() - release; accepts NULL. */
void tx_close(struct tx *tx);

/* tx_strerror() - the last error. */
const char *tx_strerror(const struct tx *tx);

/* tx_name() - the method's name. */
const char *tx_name(const struct tx *tx);

/* tx_mode() - tx->mode, or "" when the method said nothing. */
const char *tx_mode(const struct tx *tx);

/* tx_virtual_time() - true if the method needs no waiting for deadlines. */
static inline bool tx_virtual_time(const struct tx *tx)
{
	return tx->ops->flags & TX_F_VIRTUAL_TIME;
}

/*
 * tx_fatal() - true for a send error that ends the run: the interface went
 * away, or the output file's stream broke (EPIPE: the reader of -w - left,
 * or another write error; ENOSPC, EDQUOT, EFBIG: no room).
 */
static inline bool tx_fatal(int err)
{
	return err == -ENETDOWN || err == -ENXIO || err == -ENODEV || err == -EPIPE ||
	       err == -ENOSPC || err == -EDQUOT || err == -EFBIG;
}

#endif
