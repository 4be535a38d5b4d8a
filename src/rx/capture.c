// SPDX-License-Identifier: BSD-2-Clause
/*
 * Live capture with a TPACKET_V3 receive ring (packet(7), kernel
 * Documentation/networking/packet_mmap.rst).  The kernel fills blocks with
 * variable-length frames and hands a block over when it is full or after the
 * block timeout; we walk its frames and give it back.  The three settings
 * that took tcpdump's capture loss from 7.7 % to 0.004 % (Menski, "tcpdump
 * Analyse", 2016) are all here: a small snap length (the filter's return
 * value), a large ring (64 MiB by default), and a precise kernel filter.
 * Timestamps: the socket asks for software receive timestamps
 * (SOF_TIMESTAMPING_RX_SOFTWARE), which makes the kernel stamp every frame
 * once as the device hands it to the stack (net.core.netdev_tstamp_prequeue),
 * before any queueing; every tap (tcpdump's too) then reports that same
 * time.  With --hw-timestamps the NIC's stamp is used instead.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/net_tstamp.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "replay/compiler.h"
#include "rx.h"

#define VLAN_TAG_BYTES 4u
#define ETH_ADDRS_BYTES 12u /* destination and source: a tag goes after them */

struct rx_capture {
	int fd;
	char ifname[IF_NAMESIZE];
	uint8_t *ring;         /* blocks * block_bytes, mapped */
	size_t ring_bytes;
	uint32_t block_bytes;
	uint32_t blocks;
	uint32_t cur;          /* the next block to read */
	uint32_t block_ms;     /* retire timeout, ms */
	uint32_t snaplen;
	uint8_t *scratch;      /* snaplen + a tag: a frame with its VLAN tag re-inserted */
	struct rx_kstats k;
	uint64_t last_frame_ns; /* CLOCK_MONOTONIC of the last block with frames; read by other threads */
	uint64_t pub_frames, pub_bytes; /* the sink's counts after the last block; read by other threads */
	bool hw_restore;       /* put back saved_hw on close */
	int32_t fanout_id;     /* the PACKET_FANOUT group joined, or RX_FANOUT_NONE */
	struct hwtstamp_config saved_hw;
};

/* The largest power of two <= @v (@v > 0). */
static uint64_t pow2_floor(uint64_t v)
{
	return 1ull << (63 - __builtin_clzll(v));
}

void rx_ring_layout(uint64_t ring_bytes, uint32_t block_bytes, uint32_t blocks, uint32_t snaplen,
		    uint32_t page, uint32_t *block_out, uint32_t *blocks_out)
{
	uint64_t min, b, n;

	if (block_bytes || blocks) {
		*block_out = block_bytes ? block_bytes : RX_BLOCK_BYTES_DEFAULT;
		*blocks_out = blocks ? blocks : RX_BLOCKS_DEFAULT;
		return;
	}
	if (!ring_bytes)
		ring_bytes = (uint64_t)RX_BLOCKS_DEFAULT * RX_BLOCK_BYTES_DEFAULT;
	/* The smallest block: a page, and room for one frame with its headers. */
	min = (uint64_t)snaplen + 128u;
	min = min & (min - 1) ? pow2_floor(min) << 1 : min;
	if (min < page)
		min = page ? pow2_floor(page) : 4096u;
	b = ring_bytes / RX_RING_MIN_BLOCKS;
	b = b ? pow2_floor(b) : 1;
	b = MAX(MIN(b, (uint64_t)RX_BLOCK_BYTES_DEFAULT), min);
	n = ring_bytes / b;
	*block_out = (uint32_t)b;
	*blocks_out = (uint32_t)MIN(MAX(n, 1u), RX_BLOCKS_MAX);
}

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * NSEC_PER_SEC + (uint64_t)t.tv_nsec;
}

static int sys_err(char *err, size_t errlen, const char *ifname, const char *what)
{
	int rc = -errno;

	if (rc == -EPERM)
		snprintf(err, errlen, "%s: %s: permission denied (needs root or CAP_NET_RAW)",
			 ifname, what);
	else
		snprintf(err, errlen, "%s: %s: %s", ifname, what, strerror(-rc));
	return rc;
}

/*
 * Hardware receive timestamps: the interface must say it has them
 * (ETHTOOL_GET_TS_INFO), be told to stamp every frame (SIOCSHWTSTAMP, a
 * device-wide setting we restore on close), and the socket must ask for the
 * raw hardware stamp.
 */
static int enable_hw_ts(struct rx_capture *c, bool socket_only, char *err, size_t errlen)
{
	struct ethtool_ts_info info = { .cmd = ETHTOOL_GET_TS_INFO };
	struct hwtstamp_config cfg;
	struct ifreq ifr;
	int req = SOF_TIMESTAMPING_RAW_HARDWARE;

	/* Another ring of the same --fanout group set the device up: only the socket's part. */
	if (socket_only)
		goto sock;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", c->ifname);
	ifr.ifr_data = (void *)&info;
	if (ioctl(c->fd, SIOCETHTOOL, &ifr) < 0)
		return sys_err(err, errlen, c->ifname, "cannot ask for its timestamping (ethtool -T)");
	if (!(info.so_timestamping & SOF_TIMESTAMPING_RAW_HARDWARE) ||
	    !(info.rx_filters & (1u << HWTSTAMP_FILTER_ALL))) {
		snprintf(err, errlen,
			 "%s: no hardware receive timestamps for every frame (see ethtool -T %s)",
			 c->ifname, c->ifname);
		return -ENOTSUP;
	}
	ifr.ifr_data = (void *)&c->saved_hw;
	if (ioctl(c->fd, SIOCGHWTSTAMP, &ifr) < 0)
		return sys_err(err, errlen, c->ifname, "cannot read its timestamping setting");
	cfg = c->saved_hw;
	cfg.rx_filter = HWTSTAMP_FILTER_ALL;
	ifr.ifr_data = (void *)&cfg;
	if (ioctl(c->fd, SIOCSHWTSTAMP, &ifr) < 0)
		return sys_err(err, errlen, c->ifname, "cannot turn on hardware receive timestamps");
	c->hw_restore = true;
sock:
	if (setsockopt(c->fd, SOL_PACKET, PACKET_TIMESTAMP, &req, sizeof(req)) < 0)
		return sys_err(err, errlen, c->ifname, "PACKET_TIMESTAMP");
	return 0;
}

static int setup_ring(struct rx_capture *c, char *err, size_t errlen)
{
	int v3 = TPACKET_V3;
	struct tpacket_req3 req = {
		.tp_block_size = c->block_bytes,
		.tp_block_nr = c->blocks,
		/* V3 packs frames of any size into a block; the frame size only has to be valid. */
		.tp_frame_size = TPACKET_ALIGNMENT << 7,
		.tp_retire_blk_tov = c->block_ms,
		.tp_sizeof_priv = 0,
		.tp_feature_req_word = 0,
	};

	req.tp_frame_nr = (c->block_bytes / req.tp_frame_size) * c->blocks;
	if (setsockopt(c->fd, SOL_PACKET, PACKET_VERSION, &v3, sizeof(v3)) < 0)
		return sys_err(err, errlen, c->ifname, "TPACKET_V3");
	if (setsockopt(c->fd, SOL_PACKET, PACKET_RX_RING, &req, sizeof(req)) < 0)
		return sys_err(err, errlen, c->ifname, "cannot set up the receive ring");
	c->ring_bytes = (size_t)c->block_bytes * c->blocks;
	c->ring = mmap(NULL, c->ring_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_LOCKED | MAP_POPULATE,
		       c->fd, 0);
	if (c->ring == MAP_FAILED) {
		/* MAP_LOCKED needs RLIMIT_MEMLOCK; the ring is the kernel's memory anyway. */
		c->ring = mmap(NULL, c->ring_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
			       c->fd, 0);
		if (c->ring == MAP_FAILED) {
			c->ring = NULL;
			return sys_err(err, errlen, c->ifname, "cannot map the receive ring");
		}
	}
	return 0;
}

/*
 * Join (or with RX_FANOUT_NEW, found) a PACKET_FANOUT group in hash mode
 * (packet(7)): the kernel hashes each frame's flow and queues it on one
 * member's ring, so one flow's frames stay in order on one ring.  A new
 * group takes PACKET_FANOUT_FLAG_UNIQUEID, so that we never join another
 * process's group by accident; its id is read back for the other rings.
 */
static int join_fanout(struct rx_capture *c, int32_t fanout, char *err, size_t errlen)
{
	int val, got = 0;
	socklen_t len = sizeof(got);

	if (fanout == RX_FANOUT_NEW)
		val = (PACKET_FANOUT_HASH | PACKET_FANOUT_FLAG_UNIQUEID) << 16;
	else
		val = (PACKET_FANOUT_HASH << 16) | (fanout & 0xffff);
	if (setsockopt(c->fd, SOL_PACKET, PACKET_FANOUT, &val, sizeof(val)) < 0)
		return sys_err(err, errlen, c->ifname, "cannot join a PACKET_FANOUT group");
	if (getsockopt(c->fd, SOL_PACKET, PACKET_FANOUT, &got, &len) < 0)
		return sys_err(err, errlen, c->ifname, "cannot read the PACKET_FANOUT group");
	c->fanout_id = got & 0xffff;
	return 0;
}

int rx_capture_open(struct rx_capture **cp, const struct rx_capture_cfg *cfg, char *err,
		    size_t errlen)
{
	struct rx_capture *c = calloc(1, sizeof(*c));
	struct sockaddr_ll sll;
	struct sock_filter accept_all, drop_all = BPF_STMT(BPF_RET | BPF_K, 0);
	struct sock_fprog prog, none = { .len = 1, .filter = &drop_all };
	bool fanout = cfg->fanout != RX_FANOUT_NONE;
	int one = 1, ts = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
	unsigned ifindex;
	int rc;

	*cp = NULL;
	if (!c || !(c->scratch = malloc(cfg->snaplen + VLAN_TAG_BYTES))) {
		free(c);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	c->fd = -1;
	c->fanout_id = RX_FANOUT_NONE;
	snprintf(c->ifname, sizeof(c->ifname), "%s", cfg->ifname);
	c->snaplen = cfg->snaplen;
	c->block_bytes = cfg->block_bytes ? cfg->block_bytes : RX_BLOCK_BYTES_DEFAULT;
	c->blocks = cfg->blocks ? cfg->blocks : RX_BLOCKS_DEFAULT;
	c->block_ms = cfg->block_ms ? cfg->block_ms : RX_BLOCK_MS_DEFAULT;

	/* Protocol 0: nothing is queued to the socket until bind() names one, after the filter is on. */
	c->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		rc = sys_err(err, errlen, cfg->ifname, "cannot open a packet socket");
		goto fail;
	}
	ifindex = if_nametoindex(cfg->ifname);
	if (!ifindex) {
		snprintf(err, errlen, "%s: no such interface", cfg->ifname);
		rc = -ENODEV;
		goto fail;
	}
	/*
	 * A fanout member must be bound before it joins the group, and would
	 * take every frame itself in between: it drops all until it has joined.
	 */
	rx_filter_kernel(cfg->filter, cfg->snaplen, &prog, &accept_all);
	if (setsockopt(c->fd, SOL_SOCKET, SO_ATTACH_FILTER, fanout ? &none : &prog,
		       sizeof(prog)) < 0) {
		rc = sys_err(err, errlen, cfg->ifname, "cannot attach the filter");
		goto fail;
	}
	/* Only what arrives: the far side of a replay sends nothing, but a host might. */
	if (setsockopt(c->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)) < 0 &&
	    errno != ENOPROTOOPT) {
		rc = sys_err(err, errlen, cfg->ifname, "PACKET_IGNORE_OUTGOING");
		goto fail;
	}
	if (setsockopt(c->fd, SOL_SOCKET, SO_TIMESTAMPING, &ts, sizeof(ts)) < 0) {
		rc = sys_err(err, errlen, cfg->ifname, "SO_TIMESTAMPING");
		goto fail;
	}
	if (cfg->hw_ts && (rc = enable_hw_ts(c, cfg->hw_ts_socket_only, err, errlen)) < 0)
		goto fail;
	if ((rc = setup_ring(c, err, errlen)) < 0)
		goto fail;
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = (int)ifindex;
	if (bind(c->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		rc = sys_err(err, errlen, cfg->ifname, "cannot bind to the interface");
		goto fail;
	}
	if (fanout) {
		if ((rc = join_fanout(c, cfg->fanout, err, errlen)) < 0)
			goto fail;
		if (setsockopt(c->fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0) {
			rc = sys_err(err, errlen, cfg->ifname, "cannot attach the filter");
			goto fail;
		}
	}
	*cp = c;
	return 0;
fail:
	rx_capture_close(c);
	return rc;
}

/* Ring ownership: a block is ours while TP_STATUS_USER is set, the kernel's once we clear it. */
static inline struct tpacket_block_desc *block_at(const struct rx_capture *c, uint32_t i)
{
	return (struct tpacket_block_desc *)(c->ring + (size_t)i * c->block_bytes);
}

static inline bool user_owns_block(const struct tpacket_block_desc *b)
{
	/* Acquire: the frames the kernel wrote are visible once we see the status it set last. */
	return __atomic_load_n(&b->hdr.bh1.block_status, __ATOMIC_ACQUIRE) & TP_STATUS_USER;
}

static inline void give_block_to_kernel(struct tpacket_block_desc *b)
{
	/* Release: we are done reading the frames before the kernel may overwrite them. */
	__atomic_store_n(&b->hdr.bh1.block_status, TP_STATUS_KERNEL, __ATOMIC_RELEASE);
}

/* One frame to the sink, its VLAN tag put back where the sender had it. */
static int take_frame(struct rx_capture *c, struct rx_sink *sink, const struct tpacket3_hdr *h)
{
	const struct sockaddr_ll *sll =
		(const void *)((const uint8_t *)h + TPACKET_ALIGN(sizeof(struct tpacket3_hdr)));
	const uint8_t *data = (const uint8_t *)h + h->tp_mac;
	uint32_t caplen = h->tp_snaplen, len = h->tp_len, flags = 0;
	uint64_t ts = (uint64_t)h->tp_sec * NSEC_PER_SEC + h->tp_nsec;

	if (sll->sll_pkttype == PACKET_OUTGOING)
		return 0; /* older kernels without PACKET_IGNORE_OUTGOING */
	if (h->tp_status & TP_STATUS_TS_RAW_HARDWARE)
		flags |= RX_REC_HW_TS;
	/*
	 * The kernel moved the outer 802.1Q/802.1ad tag into metadata (veth and
	 * NICs with VLAN offload do); the sender had it in the frame, and the
	 * identity covers it.  Without a valid TPID (old kernels) it was 802.1Q.
	 */
	if ((h->tp_status & TP_STATUS_VLAN_VALID) && caplen >= ETH_ADDRS_BYTES) {
		uint16_t tpid = (h->tp_status & TP_STATUS_VLAN_TPID_VALID) ? h->hv1.tp_vlan_tpid
									   : ETH_P_8021Q;
		uint16_t tci = h->hv1.tp_vlan_tci;
		uint8_t *s = c->scratch;

		if (caplen > c->snaplen)
			caplen = c->snaplen;
		memcpy(s, data, ETH_ADDRS_BYTES);
		s[12] = (uint8_t)(tpid >> 8);
		s[13] = (uint8_t)tpid;
		s[14] = (uint8_t)(tci >> 8);
		s[15] = (uint8_t)tci;
		memcpy(s + ETH_ADDRS_BYTES + VLAN_TAG_BYTES, data + ETH_ADDRS_BYTES,
		       caplen - ETH_ADDRS_BYTES);
		data = s;
		caplen += VLAN_TAG_BYTES;
		len += VLAN_TAG_BYTES;
		flags |= RX_REC_VLAN;
	}
	return rx_sink_take(sink, data, caplen, len, ts, flags);
}

/* Every frame of block @b; 1 if the sink said stop, <0 on its error. */
static int walk_block(struct rx_capture *c, struct rx_sink *sink, struct tpacket_block_desc *b)
{
	const struct tpacket3_hdr *h =
		(const void *)((uint8_t *)b + b->hdr.bh1.offset_to_first_pkt);
	uint32_t n = b->hdr.bh1.num_pkts;

	for (uint32_t i = 0; i < n; i++) {
		int rc = take_frame(c, sink, h);

		if (rc)
			return rc;
		h = (const void *)((const uint8_t *)h + h->tp_next_offset);
	}
	return 0;
}

/* Read every block the kernel has handed over; 1 = stop (count), <0 error, 0 go on. */
static int read_ready(struct rx_capture *c, struct rx_sink *sink, uint64_t *last_frame_ns)
{
	for (;;) {
		struct tpacket_block_desc *b = block_at(c, c->cur);
		int rc;

		if (!user_owns_block(b))
			return 0;
		if (b->hdr.bh1.num_pkts) {
			*last_frame_ns = mono_ns();
			__atomic_store_n(&c->last_frame_ns, *last_frame_ns, __ATOMIC_RELAXED);
		}
		rc = walk_block(c, sink, b);
		give_block_to_kernel(b);
		/* Once a block, not per frame: what a watching thread sees (rx_capture_counts()). */
		__atomic_store_n(&c->pub_frames, (uint64_t)sink->recs.n, __ATOMIC_RELAXED);
		__atomic_store_n(&c->pub_bytes, sink->bytes, __ATOMIC_RELAXED);
		c->cur = (c->cur + 1) % c->blocks;
		if (rc)
			return rc;
	}
}

static void read_kstats(struct rx_capture *c)
{
	struct tpacket_stats_v3 st;
	socklen_t len = sizeof(st);

	/* Reading resets the kernel's counters: add them up here. */
	if (getsockopt(c->fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) == 0) {
		c->k.packets += st.tp_packets;
		c->k.drops += st.tp_drops;
		c->k.freeze_q += st.tp_freeze_q_cnt;
	}
}

/*
 * How long poll() may sleep: until the next stop condition or progress call
 * (@next_progress, 0 none), at most 100 ms (to see a signal late at worst).
 */
static int poll_ms(const struct rx_stop *stop, uint64_t start, uint64_t last_frame,
		   uint64_t next_progress, uint64_t now)
{
	uint64_t wait = 100 * NSEC_PER_SEC / 1000;

	if (next_progress)
		wait = MIN(wait, next_progress > now ? next_progress - now : 0);
	if (stop->timeout_ns && start + stop->timeout_ns > now)
		wait = MIN(wait, start + stop->timeout_ns - now);
	if (stop->idle_ns && last_frame && last_frame + stop->idle_ns > now)
		wait = MIN(wait, last_frame + stop->idle_ns - now);
	return (int)((wait + 999999) / 1000000);
}

/*
 * After the last frame that counts: the kernel's current block may hold
 * frames not yet handed over; it retires a non-empty block within the block
 * timeout, so wait for that (a little longer, for timer slack).
 */
static int drain(struct rx_capture *c, struct rx_sink *sink)
{
	uint64_t until = mono_ns() + 2 * (uint64_t)c->block_ms * 1000000ull + 50000000ull, last = 0;
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN | POLLERR };
	int rc;

	for (;;) {
		struct tpacket_block_desc *b = block_at(c, c->cur);

		rc = read_ready(c, sink, &last);
		if (rc)
			return rc < 0 ? rc : 0;
		/* A peek at a block the kernel owns: it counts frames in as it fills it. */
		if (!__atomic_load_n(&b->hdr.bh1.num_pkts, __ATOMIC_RELAXED) || mono_ns() >= until)
			return 0;
		poll(&pfd, 1, (int)MIN(c->block_ms, 10u));
	}
}

int rx_capture_run(struct rx_capture *c, struct rx_sink *sink, const struct rx_stop *stop,
		   volatile sig_atomic_t *sig, char *err, size_t errlen)
{
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN | POLLERR };
	uint64_t start = mono_ns(), last_frame = 0;
	uint64_t next_progress = stop->progress && stop->progress_ns ? start + stop->progress_ns : 0;
	int rc = 0;

	for (;;) {
		uint64_t now;

		rc = read_ready(c, sink, &last_frame);
		if (rc)
			break;
		now = mono_ns();
		if (next_progress && now >= next_progress) {
			stop->progress(stop->ctx, sink->recs.n, sink->bytes, now - start);
			/* A moment missed (a long block) is skipped, not made up. */
			next_progress += (now - next_progress) / stop->progress_ns * stop->progress_ns +
					 stop->progress_ns;
		}
		if (*sig || (stop->timeout_ns && now - start >= stop->timeout_ns) ||
		    (stop->idle_ns && last_frame && now - last_frame >= stop->idle_ns)) {
			rc = drain(c, sink);
			break;
		}
		if (poll(&pfd, 1, poll_ms(stop, start, last_frame, next_progress, now)) < 0 && errno != EINTR) {
			rc = sys_err(err, errlen, c->ifname, "poll");
			break;
		}
		if (pfd.revents & POLLERR) {
			int soerr = 0;
			socklen_t l = sizeof(soerr);

			/* The interface went away (ENETDOWN) or the socket broke. */
			getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &soerr, &l);
			if (soerr) {
				errno = soerr;
				rc = sys_err(err, errlen, c->ifname, "capture failed");
				break;
			}
		}
	}
	read_kstats(c);
	if (rc < 0 && sink->err == rc) {
		char why[256];

		snprintf(err, errlen, "%s: %s", c->ifname, rx_sink_strerror(sink, rc, why, sizeof(why)));
	}
	return rc < 0 ? rc : 0;
}

uint64_t rx_capture_last_frame(const struct rx_capture *c)
{
	return __atomic_load_n(&c->last_frame_ns, __ATOMIC_RELAXED);
}

void rx_capture_counts(const struct rx_capture *c, uint64_t *frames, uint64_t *bytes)
{
	*frames = __atomic_load_n(&c->pub_frames, __ATOMIC_RELAXED);
	*bytes = __atomic_load_n(&c->pub_bytes, __ATOMIC_RELAXED);
}

int32_t rx_capture_fanout_id(const struct rx_capture *c)
{
	return c->fanout_id;
}

struct rx_kstats rx_capture_stats(struct rx_capture *c)
{
	read_kstats(c);
	return c->k;
}

void rx_capture_close(struct rx_capture *c)
{
	if (!c)
		return;
	if (c->hw_restore) {
		struct ifreq ifr;

		memset(&ifr, 0, sizeof(ifr));
		snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", c->ifname);
		ifr.ifr_data = (void *)&c->saved_hw;
		ioctl(c->fd, SIOCSHWTSTAMP, &ifr);
	}
	if (c->ring)
		munmap(c->ring, c->ring_bytes);
	if (c->fd >= 0)
		close(c->fd);
	free(c->scratch);
	free(c);
}
