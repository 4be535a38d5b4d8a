// SPDX-License-Identifier: BSD-2-Clause
/*
 * Interface checks shared by the wire methods (AF_PACKET, rings, AF_XDP):
 * Ethernet interfaces for all of them, layer-3 ones (tun, IP tunnels, PPP)
 * for the methods with TX_F_L3.
 */
#include <errno.h>
#include <poll.h>
#include <linux/ethtool.h>
#include <linux/if_packet.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tx_int.h"

/* How long a send that met a down interface looks for it to be gone: 20 x 5 ms. */
#define GONE_POLLS 20
#define GONE_POLL_NS 5000000L

#define ETH_P_8021Q_BE 0x8100
#define VLAN_TAG_BYTES 4u

/* Link types of layer-3 interfaces that older C libraries' headers lack (linux/if_arp.h). */
#ifndef ARPHRD_IP6GRE
#define ARPHRD_IP6GRE 823
#endif
#ifndef ARPHRD_RAWIP
#define ARPHRD_RAWIP 519
#endif

int netdev_query(struct tx *tx, const char *ifname, struct netdev *nd)
{
	struct ifreq ifr;
	int fd, rc = 0;

	memset(nd, 0, sizeof(*nd));
	if (strlen(ifname) >= IFNAMSIZ)
		return tx_err(tx, -ENODEV, "%s: interface name longer than %d characters", ifname,
			      IFNAMSIZ - 1);
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return tx_err(tx, -errno, "%s: cannot query interface: %s", ifname, strerror(errno));
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFINDEX, &ifr) < 0) {
		rc = errno == ENODEV ? tx_err(tx, -ENODEV, "%s: no such interface", ifname)
				     : tx_err(tx, -errno, "%s: %s", ifname, strerror(errno));
		goto out;
	}
	nd->ifindex = ifr.ifr_ifindex;
	if (ioctl(fd, SIOCGIFMTU, &ifr) < 0) {
		rc = tx_err(tx, -errno, "%s: cannot read MTU: %s", ifname, strerror(errno));
		goto out;
	}
	nd->mtu = (uint32_t)ifr.ifr_mtu;
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
		rc = tx_err(tx, -errno, "%s: cannot read hardware type: %s", ifname, strerror(errno));
		goto out;
	}
	nd->type = ifr.ifr_hwaddr.sa_family;
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) {
		rc = tx_err(tx, -errno, "%s: cannot read flags: %s", ifname, strerror(errno));
		goto out;
	}
	nd->flags = (unsigned)(unsigned short)ifr.ifr_flags;
	if (!(nd->flags & IFF_UP)) {
		rc = tx_err(tx, -ENETDOWN, "%s: interface is down (ip link set %s up)", ifname,
			    ifname);
		goto out;
	}
	/* Up without carrier (a veth whose peer is down): frames would vanish, counted as sent. */
	if (!(nd->flags & IFF_RUNNING)) {
		rc = tx_err(tx, -ENETDOWN, "%s: interface is up but has no carrier (link down)",
			    ifname);
		goto out;
	}
out:
	close(fd);
	return rc;
}

/* The name of @ifname's driver (ETHTOOL_GDRVINFO: "tun", else the link kind, "wireguard", "ipip"), or "". */
static void driver_name(const char *ifname, char *name, size_t len)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	name[0] = '\0';
	if (fd < 0)
		return;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%.*s", IFNAMSIZ - 1, ifname);
	ifr.ifr_data = (char *)&info;
	if (ioctl(fd, SIOCETHTOOL, &ifr) == 0)
		snprintf(name, len, "%.*s", (int)strnlen(info.driver, sizeof(info.driver)), info.driver);
	close(fd);
}

bool netdev_l3_kind(const char *ifname, unsigned short type, char *kind, size_t len)
{
	const char *name;

	switch (type) {
	case ARPHRD_NONE:
		name = "none"; /* tun and WireGuard both: the driver tells them apart */
		break;
	case ARPHRD_TUNNEL:
		name = "ipip";
		break;
	case ARPHRD_TUNNEL6:
		name = "ip6tnl";
		break;
	case ARPHRD_SIT:
		name = "sit";
		break;
	case ARPHRD_IPGRE:
		name = "gre";
		break;
	case ARPHRD_IP6GRE:
		name = "ip6gre";
		break;
	case ARPHRD_PPP:
		name = "ppp";
		break;
	case ARPHRD_RAWIP:
		name = "rawip";
		break;
	default:
		return false;
	}
	/* Asked through the socket, not sysfs: /sys may show another network namespace's devices. */
	driver_name(ifname, kind, len);
	if (!kind[0])
		snprintf(kind, len, "%s", name);
	return true;
}

int netdev_open_check(struct tx *tx, const char *ifname, struct netdev *nd)
{
	int rc = netdev_query(tx, ifname, nd);
	char kind[sizeof(tx->l3)];

	if (rc < 0 || nd->type == ARPHRD_ETHER || nd->type == ARPHRD_LOOPBACK)
		return rc;
	if (!netdev_l3_kind(ifname, nd->type, kind, sizeof(kind)))
		return tx_err(tx, -ENOTSUP,
			      "%s: not an Ethernet interface (ARPHRD type %u); --method raw sends IP packets on it",
			      ifname, nd->type);
	/* Not -ENOTSUP: --method auto goes on to a method that can. */
	if (!(tx->ops->flags & TX_F_L3))
		return tx_err(tx, -EPROTONOSUPPORT,
			      "%s: a layer-3 interface (%s), without a link-layer header: the %s method cannot send on it (packet, mmsg and uring can)",
			      ifname, kind, tx->ops->name);
	snprintf(tx->l3, sizeof(tx->l3), "%s", kind);
	return 0;
}

int netdev_frame_check_slow(struct tx *tx, const struct pkt *p)
{
	uint32_t max = tx->mtu + ETH_HDR_BYTES;
	uint16_t type;

	if (p->caplen < ETH_HDR_BYTES)
		return tx_err(tx, -EINVAL, "frame of %u bytes is shorter than an Ethernet header (%u)",
			      p->caplen, ETH_HDR_BYTES);
	/* packet_snd() allows one 802.1Q tag beyond the MTU, not an 802.1ad one. */
	if (!pkt_get_be16(p, 12, &type) && type == ETH_P_8021Q_BE)
		max += VLAN_TAG_BYTES;
	if (p->caplen > max)
		return tx_err(tx, -EMSGSIZE,
			      "frame of %u bytes exceeds %s's MTU %u (+%u bytes of header): raise the MTU or truncate with an edit",
			      p->caplen, tx->dev, tx->mtu, max - tx->mtu);
	return 0;
}

int netdev_sock_err(struct tx *tx, int err, const char *what)
{
	if (err == -EPERM || err == -EACCES)
		return tx_err(tx, -EPERM,
			      "%s: cannot open a packet socket: permission denied (needs root or CAP_NET_RAW)",
			      what);
	return tx_err(tx, err, "%s: cannot open a packet socket: %s", what, strerror(-err));
}

int netdev_packet_socket(struct tx *tx, const struct tx_cfg *cfg, struct netdev *nd)
{
	struct sockaddr_ll sll;
	int fd, rc, one = 1;

	if (!cfg->ifname)
		return tx_err(tx, -EINVAL, "no interface given");
	snprintf(tx->dev, sizeof(tx->dev), "%s", cfg->ifname);
	/* Permission first: without it the interface checks would mislead. */
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return netdev_sock_err(tx, -errno, cfg->ifname);
	rc = netdev_open_check(tx, cfg->ifname, nd);
	if (rc < 0)
		goto fail;
	tx->mtu = nd->mtu;
	if (tx->l3[0]) {
		if (cfg->gso) {
			rc = tx_err(tx, -ENOTSUP,
				    "--gso: %s is a layer-3 interface (%s): it takes IP packets, not frames for the kernel to cut (--segment cuts them here)",
				    cfg->ifname, tx->l3);
			goto fail;
		}
		/*
		 * No link header to write: SOCK_DGRAM, each packet's protocol
		 * given with it (sendto()'s sll_protocol), and the kernel takes
		 * the data as the network header (SOCK_RAW would skip
		 * hard_header_len bytes of it on a tunnel that has one).
		 */
		close(fd);
		fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return netdev_sock_err(tx, -errno, cfg->ifname);
	}
	if (cfg->qdisc_bypass && setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one)) < 0) {
		rc = tx_err(tx, -errno, "%s: cannot bypass the qdisc: %s", cfg->ifname, strerror(errno));
		goto fail;
	}
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = nd->ifindex;
	sll.sll_protocol = 0; /* send only: bind without joining any receive path */
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		rc = netdev_sock_err(tx, -errno, cfg->ifname);
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return rc;
}

uint32_t netdev_mtu_now(const struct tx *tx)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	uint32_t mtu = 0;

	if (fd < 0)
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%.*s", IFNAMSIZ - 1, tx->dev);
	if (ioctl(fd, SIOCGIFMTU, &ifr) == 0 && ifr.ifr_mtu > 0)
		mtu = (uint32_t)ifr.ifr_mtu;
	close(fd);
	return mtu;
}

int netdev_send_err(struct tx *tx, int err, uint32_t len)
{
	uint32_t mtu;

	switch (err) {
	case EAGAIN:
	case ENOBUFS:
	case EINTR:
		return -err;
	case EMSGSIZE:
		/*
		 * The frames were checked against the MTU read at open: one the
		 * kernel refuses passed that check, so the MTU was lowered since.
		 * The new one is kept, so the frames after fail as they are
		 * staged, named, instead of each costing the kernel a refusal.
		 * Only ever lowered: the staging slots were sized for the first.
		 */
		mtu = netdev_mtu_now(tx);
		if (mtu && mtu < tx->mtu)
			tx->mtu = mtu;
		return tx_err(tx, -EMSGSIZE, "frame of %u bytes refused by %s as too large (MTU %u)", len,
			      tx->dev, tx->mtu);
	case ENETDOWN:
		/*
		 * A deleted interface goes down first, and goes a moment later:
		 * the run ends here either way, so look a few times to say which.
		 */
		for (int i = 0; i < GONE_POLLS; i++) {
			if (netdev_still_up(tx) == -ENXIO)
				return -ENXIO;
			netdev_sleep_ns(GONE_POLL_NS);
		}
		return tx_err(tx, -ENETDOWN, "%s: interface went down", tx->dev);
	case ENXIO:
	case ENODEV:
		return tx_err(tx, -ENXIO, "%s: interface disappeared", tx->dev);
	default:
		return tx_err(tx, -err, "%s: send failed: %s", tx->dev, strerror(err));
	}
}

int netdev_still_up(struct tx *tx)
{
	struct ifreq ifr;
	int fd, rc = 0;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0; /* cannot tell: let the caller go on waiting */
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%.*s", IFNAMSIZ - 1, tx->dev);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		rc = tx_err(tx, -ENXIO, "%s: interface disappeared", tx->dev);
	else if (!(ifr.ifr_flags & IFF_UP) || !(ifr.ifr_flags & IFF_RUNNING))
		rc = tx_err(tx, -ENETDOWN, "%s: interface went down", tx->dev);
	close(fd);
	return rc;
}

void netdev_sleep_ns(long ns)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = ns };

	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

int netdev_wait_room(const int *fds, unsigned nfds, int err)
{
	struct pollfd pfd[2];

	if (err != -EAGAIN || !nfds) {
		netdev_sleep_ns(TX_ENOBUFS_BACKOFF_NS);
		return 0;
	}
	/* The send buffer is full: the socket becomes writable as the kernel frees frames. */
	if (nfds > ARRAY_SIZE(pfd))
		nfds = ARRAY_SIZE(pfd);
	for (unsigned i = 0; i < nfds; i++)
		pfd[i] = (struct pollfd){ .fd = fds[i], .events = POLLOUT };
	return poll(pfd, nfds, 100) < 0 ? -errno : 0;
}

int netdev_wait_outq(struct tx *tx, int fd)
{
	/*
	 * send() returns once the frame is queued; SIOCOUTQ counts the bytes
	 * of our frames the kernel has not freed yet (still in a qdisc or a
	 * driver ring).  Wait for zero so "sent" means "left the host".
	 */
	for (int waited = 0; waited < TX_DRAIN_TIMEOUT_MS; waited++) {
		int outq = 0;

		if (ioctl(fd, SIOCOUTQ, &outq) < 0 || outq == 0)
			return 0;
		netdev_sleep_ns(1000000);
	}
	return tx_err(tx, -ETIMEDOUT, "%s: frames still queued after %d ms", tx->dev,
		      TX_DRAIN_TIMEOUT_MS);
}
