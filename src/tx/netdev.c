// SPDX-License-Identifier: BSD-2-Clause
/* Interface checks shared by the wire backends (AF_PACKET, rings, AF_XDP). */
#include <errno.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tx_int.h"

#define ETH_P_8021Q_BE 0x8100
#define VLAN_TAG_BYTES 4u

int netdev_open_check(struct tx *tx, const char *ifname, struct netdev *nd)
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
	if (nd->type != ARPHRD_ETHER && nd->type != ARPHRD_LOOPBACK) {
		rc = tx_err(tx, -ENOTSUP, "%s: not an Ethernet interface (ARPHRD type %u)", ifname,
			    nd->type);
		goto out;
	}
out:
	close(fd);
	return rc;
}

int netdev_frame_check(struct tx *tx, const struct pkt *p)
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
