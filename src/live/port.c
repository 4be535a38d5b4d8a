// SPDX-License-Identifier: BSD-2-Clause
/*
 * A capture port: what arrives on one interface, read in batches straight
 * from the ring in the caller's thread -- the bridge's two ports (replay
 * bridge), polled together.  The handle itself, opened the same way for the
 * live source (src/live/live.c), is live_capture_open().
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/if_packet.h>
#include <linux/sockios.h>

#include "replay/port.h"
#include "replay/compiler.h"
#include "replay/log.h"
#include "batch.h"
#include "live_int.h"

struct live_port {
	pcap_t *pc;
	char ifname[64];
	unsigned mtu;
	uint32_t snaplen;
	int64_t real_minus_mono; /* CLOCK_REALTIME - CLOCK_MONOTONIC at open, ns */
	live_port_fn fn;	 /* the current live_port_read()'s */
	void *arg;
	char err[PCAP_ERRBUF_SIZE + 128];
};

unsigned live_if_mtu(const char *ifname)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	unsigned mtu = 0;

	if (fd < 0)
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFMTU, &ifr) == 0 && ifr.ifr_mtu > 0)
		mtu = (unsigned)ifr.ifr_mtu;
	close(fd);
	return mtu;
}

/* Is the ethtool feature @cmd (ETHTOOL_GGRO, ETHTOOL_GFLAGS: @bit) on at @ifname?  Unknown: no. */
static bool if_feature(int fd, const char *ifname, uint32_t cmd, uint32_t bit)
{
	struct ethtool_value v = {.cmd = cmd};
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (char *)&v;
	return ioctl(fd, SIOCETHTOOL, &ifr) == 0 && (v.data & bit);
}

const char *live_if_merges(const char *ifname)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	bool gro, lro;

	if (fd < 0)
		return NULL;
	gro = if_feature(fd, ifname, ETHTOOL_GGRO, 1);
	lro = if_feature(fd, ifname, ETHTOOL_GFLAGS, ETH_FLAG_LRO);
	close(fd);
	return gro && lro ? "GRO and LRO are" : gro ? "GRO is" : lro ? "LRO is" : NULL;
}

/*
 * Immediate mode makes libpcap use TPACKET_V2: TPACKET_V3 would hold each
 * frame until its block fills or times out, adding up to the block timeout
 * to every frame's delay.  The snapshot length and the ring's size are
 * explained above live_open() (src/live/live.c).  What a forwarder sends out
 * of a port is never captured again: PACKET_IGNORE_OUTGOING (Linux 4.20)
 * keeps the kernel from copying it into the ring at all -- libpcap 1.10's
 * PCAP_D_IN only skips such frames in the ring, where they cost a copy on
 * the sending CPU and a slot, and count in ps_drop when the ring is full --
 * and PCAP_D_IN still skips them where the kernel lacks the option.
 */
pcap_t *live_capture_open(const char *opt, const char *ifname, unsigned buffer_kib,
			  uint32_t *snaplen, uint64_t *buffer_bytes, char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	pcap_t *pc = pcap_create(ifname, ebuf);
	unsigned mtu = live_if_mtu(ifname);
	const char *merges;
	int rc, dlt;

	if (!pc) {
		snprintf(err, errlen, "%s %s: %s", opt, ifname, ebuf);
		return NULL;
	}
	*snaplen =
	    mtu && mtu < LIVE_SNAPLEN_MAX - LIVE_L2_BYTES ? mtu + LIVE_L2_BYTES : LIVE_SNAPLEN_MAX;
	*buffer_bytes = (uint64_t)(buffer_kib ? buffer_kib : LIVE_BUFFER_KIB_DEFAULT) * 1024;
	if (*buffer_bytes > INT32_MAX)
		*buffer_bytes = INT32_MAX; /* pcap_set_buffer_size() takes an int; the option's
					      maximum is below */
	pcap_set_snaplen(pc, (int)*snaplen);
	pcap_set_promisc(pc, 1);
	pcap_set_immediate_mode(pc, 1);
	pcap_set_buffer_size(pc, (int)*buffer_bytes);
	pcap_set_tstamp_precision(pc, PCAP_TSTAMP_PRECISION_NANO);
	rc = pcap_activate(pc);
	if (rc < 0) {
		snprintf(err, errlen, "%s %s: cannot capture: %s", opt, ifname,
			 rc == PCAP_ERROR ? pcap_geterr(pc) : pcap_statustostr(rc));
		goto fail;
	}
	if (pcap_setdirection(pc, PCAP_D_IN) < 0 || pcap_setnonblock(pc, 1, ebuf) < 0) {
		snprintf(err, errlen, "%s %s: %s", opt, ifname, pcap_geterr(pc));
		goto fail;
	}
#ifdef PACKET_IGNORE_OUTGOING
	{
		int one = 1;

		if (setsockopt(pcap_fileno(pc), SOL_PACKET, PACKET_IGNORE_OUTGOING, &one,
			       sizeof(one)) < 0 &&
		    errno != ENOPROTOOPT) {
			snprintf(err, errlen, "%s %s: cannot ignore outgoing frames: %s", opt,
				 ifname, strerror(errno));
			goto fail;
		}
	}
#endif
	/* A frame the kernel merged is longer than the snapshot: cut, it is never forwarded. */
	merges = live_if_merges(ifname);
	if (merges)
		log_warn("%s %s: receive offload (%s on): TCP segments merged beyond the MTU are "
			 "captured cut and not forwarded; turn it off: ethtool -K %s gro off lro off",
			 opt, ifname, merges, ifname);
	dlt = pcap_datalink(pc);
	if (dlt != DLT_EN10MB) {
		snprintf(
		    err, errlen,
		    "%s %s: link type %s, not Ethernet: only Ethernet interfaces are forwarded",
		    opt, ifname,
		    pcap_datalink_val_to_name(dlt) ? pcap_datalink_val_to_name(dlt) : "unknown");
		goto fail;
	}
	return pc;
fail:
	pcap_close(pc);
	return NULL;
}

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int live_port_open(struct live_port **pp, const char *ifname, unsigned buffer_kib, char *err,
		   size_t errlen)
{
	struct live_port *p = calloc(1, sizeof(*p));
	uint64_t bytes;

	*pp = NULL;
	if (!p) {
		snprintf(err, errlen, "%s: out of memory", ifname);
		return -ENOMEM;
	}
	snprintf(p->ifname, sizeof(p->ifname), "%s", ifname);
	p->pc = live_capture_open("port", ifname, buffer_kib, &p->snaplen, &bytes, err, errlen);
	if (!p->pc) {
		free(p);
		return -ENODEV;
	}
	p->mtu = live_if_mtu(ifname);
	p->real_minus_mono = (int64_t)(now_ns(CLOCK_REALTIME) - now_ns(CLOCK_MONOTONIC));
	*pp = p;
	return 0;
}

int live_port_fd(const struct live_port *p)
{
	return pcap_get_selectable_fd(p->pc);
}

unsigned live_port_mtu(const struct live_port *p)
{
	return p->mtu;
}

const char *live_port_name(const struct live_port *p)
{
	return p->ifname;
}

static void on_frame(u_char *arg, const struct pcap_pkthdr *h, const u_char *data)
{
	struct live_port *p = (struct live_port *)arg;
	uint64_t real =
	    (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec; /* ns precision */

	p->fn(p->arg, live_mono_ns(real, p->real_minus_mono), data, h->caplen, h->len);
}

int live_port_read(struct live_port *p, unsigned max, live_port_fn fn, void *arg)
{
	int n;

	p->fn = fn;
	p->arg = arg;
	n = pcap_dispatch(p->pc, (int)max, on_frame, (u_char *)p);
	if (n == PCAP_ERROR) {
		snprintf(p->err, sizeof(p->err), "%s: %s", p->ifname, pcap_geterr(p->pc));
		return -EIO;
	}
	return n < 0 ? 0 : n;
}

void live_port_drops(struct live_port *p, uint64_t *captured, uint64_t *kernel, uint64_t *iface)
{
	struct pcap_stat ps = {0};

	*captured = *kernel = *iface = 0;
	if (pcap_stats(p->pc, &ps) == 0) {
		*captured = ps.ps_recv;
		*kernel = ps.ps_drop;
		*iface = ps.ps_ifdrop;
	}
}

const char *live_port_strerror(const struct live_port *p)
{
	return p->err;
}

void live_port_close(struct live_port *p)
{
	if (!p)
		return;
	if (p->pc)
		pcap_close(p->pc);
	free(p);
}
