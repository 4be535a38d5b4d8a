// SPDX-License-Identifier: BSD-2-Clause
/*
 * Would AF_XDP lose anything on this interface?  --method auto asks before it
 * tries xdp unasked (tx_open_auto()).  AF_XDP in copy mode hands each frame
 * straight to the driver: no qdisc, and no packet tap sees it.  Where the
 * interface's qdiscs are all the kernel's defaults (noqueue on veth,
 * pfifo_fast or mq with the net.core.default_qdisc children on a NIC) and no
 * tap listens, there is nothing to bypass or hide, and xdp is the fastest
 * method.  A user's shaping (tbf, htb, ...), a clsact egress hook, a running
 * capture, an MTU past an AF_XDP frame or a missing TX queue (one per sender
 * thread, or the --xdp-queue asked for) keep auto on mmsg.  The qdiscs and
 * the queue count come from rtnetlink (RTM_GETQDISC, RTM_GETLINK), the taps
 * from /proc/net/packet: both the caller's network namespace's.
 */
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tx_int.h"

/* An AF_XDP frame (xdp.c: XSK_UMEM__DEFAULT_FRAME_SIZE) must hold MTU + Ethernet header + one tag. */
#define XDP_FRAME_BYTES 4096u

bool tx_qdisc_is_default(const char *kind, const char *default_qdisc)
{
	static const char *const plain[] = { "noqueue", "pfifo_fast", "mq", "ingress" };

	for (size_t i = 0; i < ARRAY_SIZE(plain); i++)
		if (!strcmp(kind, plain[i]))
			return true;
	return default_qdisc && default_qdisc[0] && !strcmp(kind, default_qdisc);
}

int tx_packet_taps(const char *proc_net_packet, int ifindex)
{
	const char *line = strchr(proc_net_packet, '\n'); /* past the header */
	int n = 0;

	while (line && *++line) {
		unsigned long long sk;
		unsigned refcnt, type, proto, running;
		int iface;

		if (sscanf(line, "%llx %u %u %x %d %u", &sk, &refcnt, &type, &proto, &iface, &running) == 6 &&
		    proto == 0x0003 /* ETH_P_ALL: sees what is sent */ && running &&
		    (iface == ifindex || iface == 0))
			n++;
		line = strchr(line, '\n');
	}
	return n;
}

static int read_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return (int)n;
}

/* One rtnetlink dump or get; @cb sees every message.  0, or -errno. */
static int nl_request(int fd, struct nlmsghdr *req, void (*cb)(const struct nlmsghdr *, void *),
		      void *arg)
{
	static uint8_t buf[32768] __attribute__((aligned(8)));

	if (send(fd, req, req->nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		const struct nlmsghdr *h;

		if (n < 0)
			return -errno;
		for (h = (const struct nlmsghdr *)buf; NLMSG_OK(h, (unsigned)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != req->nlmsg_seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				return h->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) ? e->error : -EIO;
			}
			cb(h, arg);
			if (!(req->nlmsg_flags & NLM_F_DUMP))
				return 0;
		}
	}
}

struct qdisc_scan {
	int ifindex;
	const char *dflt;
	char odd[32]; /* the first qdisc that is not a default, "" = none */
};

static void qdisc_cb(const struct nlmsghdr *h, void *arg)
{
	struct qdisc_scan *s = arg;
	const struct tcmsg *tc = NLMSG_DATA(h);
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*tc));
	const struct rtattr *a;

	if (h->nlmsg_type != RTM_NEWQDISC || len < 0 || tc->tcm_ifindex != s->ifindex || s->odd[0])
		return;
	for (a = (const struct rtattr *)((const char *)tc + NLMSG_ALIGN(sizeof(*tc))); RTA_OK(a, len);
	     a = RTA_NEXT(a, len)) {
		char kind[32];
		size_t n = RTA_PAYLOAD(a);

		if (a->rta_type != TCA_KIND)
			continue;
		n = MIN(n, sizeof(kind) - 1);
		memcpy(kind, RTA_DATA(a), n);
		kind[n] = '\0';
		if (!tx_qdisc_is_default(kind, s->dflt))
			snprintf(s->odd, sizeof(s->odd), "%s", kind[0] ? kind : "?");
	}
}

static void link_cb(const struct nlmsghdr *h, void *arg)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(h);
	int len = (int)h->nlmsg_len - (int)NLMSG_LENGTH(sizeof(*ifi));
	const struct rtattr *a;

	if (h->nlmsg_type != RTM_NEWLINK || len < 0)
		return;
	for (a = IFLA_RTA(ifi); RTA_OK(a, len); a = RTA_NEXT(a, len))
		if (a->rta_type == IFLA_NUM_TX_QUEUES && RTA_PAYLOAD(a) >= sizeof(uint32_t))
			memcpy(arg, RTA_DATA(a), sizeof(uint32_t));
}

int netdev_tx_queues(const char *ifname)
{
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = 0;

	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%.*s", IFNAMSIZ - 1, ifname);
	ifr.ifr_data = (void *)&ch;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		rc = -errno;
	close(fd);
	if (rc < 0)
		return rc;
	/* Separate TX channels (veth), or combined ones (most NICs): the queues in use either way. */
	return ch.tx_count + ch.combined_count ? (int)(ch.tx_count + ch.combined_count) : -ENODATA;
}

int tx_bypass_harmless(const char *ifname, unsigned queues, char *why, size_t len)
{
	static char text[1 << 16];
	char dflt[32] = "";
	struct qdisc_scan s = { 0 };
	struct {
		struct nlmsghdr h;
		union {
			struct tcmsg tc;
			struct ifinfomsg ifi;
		};
	} req;
	struct netdev nd;
	struct tx tx = { 0 };
	uint32_t txq = 0;
	int fd, rc, taps;

	if (netdev_query(&tx, ifname, &nd) < 0) {
		snprintf(why, len, "%s", tx.err);
		return 0;
	}
	if (nd.type != ARPHRD_ETHER) {
		snprintf(why, len, "%s is not an Ethernet interface", ifname);
		return 0;
	}
	if (nd.mtu + ETH_HDR_BYTES + 4 > XDP_FRAME_BYTES) {
		snprintf(why, len, "%s's MTU %u is more than an AF_XDP frame holds", ifname, nd.mtu);
		return 0;
	}
	rc = read_text("/proc/net/packet", text, sizeof(text));
	if (rc < 0) {
		snprintf(why, len, "cannot read /proc/net/packet: %s", strerror(-rc));
		return 0;
	}
	taps = tx_packet_taps(text, nd.ifindex);
	if (taps) {
		snprintf(why, len, "%d packet capture%s listen%s on %s (AF_XDP frames pass no tap)", taps,
			 taps > 1 ? "s" : "", taps > 1 ? "" : "s", ifname);
		return 0;
	}
	if (read_text("/proc/sys/net/core/default_qdisc", dflt, sizeof(dflt)) > 0)
		dflt[strcspn(dflt, "\n")] = '\0';
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0) {
		snprintf(why, len, "cannot ask the kernel for %s's qdiscs: %s", ifname, strerror(errno));
		return 0;
	}
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(req.tc));
	req.h.nlmsg_type = RTM_GETQDISC;
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.h.nlmsg_seq = 1;
	req.tc.tcm_family = AF_UNSPEC;
	req.tc.tcm_ifindex = nd.ifindex;
	s.ifindex = nd.ifindex;
	s.dflt = dflt;
	rc = nl_request(fd, &req.h, qdisc_cb, &s);
	if (rc == 0) {
		memset(&req, 0, sizeof(req));
		req.h.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifi));
		req.h.nlmsg_type = RTM_GETLINK;
		req.h.nlmsg_flags = NLM_F_REQUEST;
		req.h.nlmsg_seq = 2;
		req.ifi.ifi_family = AF_UNSPEC;
		req.ifi.ifi_index = nd.ifindex;
		rc = nl_request(fd, &req.h, link_cb, &txq);
	}
	close(fd);
	if (rc < 0) {
		snprintf(why, len, "cannot ask the kernel for %s's qdiscs: %s", ifname, strerror(-rc));
		return 0;
	}
	if (s.odd[0]) {
		snprintf(why, len, "%s has a %s qdisc, which AF_XDP would bypass", ifname, s.odd);
		return 0;
	}
	if (txq < MAX(queues, 1u)) {
		snprintf(why, len, "%s has %u TX queue%s; AF_XDP would bind queue %u", ifname, txq,
			 txq == 1 ? "" : "s", queues - 1);
		return 0;
	}
	snprintf(why, len, "%s's qdisc is the kernel's default and no capture listens on it: nothing to bypass",
		 ifname);
	return 1;
}
