// SPDX-License-Identifier: BSD-2-Clause
/*
 * Layer 3: the IP packet inside each frame goes out of an AF_INET or
 * AF_INET6 raw socket (IPPROTO_RAW, so the IP header is ours: IP_HDRINCL),
 * bound to the interface.  For tun and WireGuard interfaces and traces
 * without Ethernet headers.  The kernel, not the trace, decides the link
 * layer: it routes by destination address and resolves the next hop's MAC
 * address, so the interface needs a route (and, on Ethernet, a reachable
 * neighbour) for every destination in the trace.  What differs from the
 * trace on the wire: the Ethernet header; for IPv4 the kernel also rewrites
 * the header checksum (raw(7)) -- packets with a wrong one go out corrected.
 * The frame's Ethernet padding and VLAN tags are stripped: the IP packet is
 * sent at its own total length.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "replay/layers.h"
#include "tx_int.h"

#define ETH_P_IPV4 0x0800
#define ETH_P_IPV6 0x86dd
#define ETH_P_9100 0x9100 /* the old QinQ TPID: taken for the EtherType here */
#define IPV4_HDR_MIN 20u
#define IPV6_HDR_BYTES 40u

struct raw_state {
	int fd4, fd6;             /* -1 until needed: IPv6 may be off */
	struct stage st;          /* IP packets, without link layer */
	struct sockaddr_in6 *dst; /* destination per slot (sockaddr_in for IPv4) */
	uint8_t *family;          /* AF_INET or AF_INET6 per slot */
};

static int raw_socket(struct tx *tx, int family)
{
	int fd = socket(family, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);

	if (fd < 0) {
		if (errno == EPERM || errno == EACCES)
			return tx_err(tx, -EPERM,
				      "%s: cannot open a raw IP socket: permission denied (needs root or CAP_NET_RAW)",
				      tx->dev);
		return tx_err(tx, -errno, "%s: cannot open a raw IPv%c socket: %s", tx->dev,
			      family == AF_INET ? '4' : '6', strerror(errno));
	}
	if (setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, tx->dev, (socklen_t)strlen(tx->dev) + 1) < 0) {
		int err = errno;

		close(fd);
		return tx_err(tx, -err, "%s: cannot bind a raw socket to it: %s", tx->dev, strerror(err));
	}
	return fd;
}

static int raw_open(struct tx *tx, const struct tx_cfg *cfg)
{
	struct raw_state *s;
	struct netdev nd;
	int rc;

	s = calloc(1, sizeof(*s));
	if (!s)
		return tx_err(tx, -ENOMEM, "out of memory");
	s->fd4 = s->fd6 = -1;
	tx->priv = s;
	if (!cfg->ifname)
		return tx_err(tx, -EINVAL, "no interface given");
	snprintf(tx->dev, sizeof(tx->dev), "%s", cfg->ifname);
	/* The IPv4 socket decides permission; the IPv6 one is opened when the first IPv6 packet comes. */
	rc = raw_socket(tx, AF_INET);
	if (rc < 0)
		return rc;
	s->fd4 = rc;
	rc = netdev_query(tx, cfg->ifname, &nd);
	if (rc < 0)
		return rc;
	tx->mtu = nd.mtu;
	tx->batch = tx_batch(cfg);
	s->dst = calloc(tx->batch, sizeof(*s->dst));
	s->family = calloc(tx->batch, 1);
	if (!s->dst || !s->family || stage_init(&s->st, tx->batch, stage_slot_bytes(tx->mtu)) < 0)
		return tx_err(tx, -ENOMEM, "out of memory");
	snprintf(tx->mode, sizeof(tx->mode), "layer 3, IP_HDRINCL");
	return 0;
}

/*
 * The IP packet in the Ethernet frame @p (the reader gives every frame an
 * Ethernet header, raw-IP traces' included): *@off its first byte, *@len its
 * own length; 0, or -EINVAL with the reason.
 */
static int find_ip(struct tx *tx, const struct pkt *p, uint32_t *off, uint32_t *len, int *family)
{
	struct pkt_layers l;
	uint16_t type, v16;
	uint32_t o = 12;
	const uint8_t *b;

	if (p->caplen < ETH_HDR_BYTES)
		return tx_err(tx, -EINVAL, "frame of %u bytes is shorter than an Ethernet header",
			      p->caplen);
	/* VLAN tags (802.1Q, 802.1ad) have no place at layer 3: step over them. */
	pkt_layers(p->data, p->caplen, &l);
	for (unsigned i = 0; i < l.outer && get_be16(p->data + o) != ETH_P_9100; i++)
		o += 4;
	type = get_be16(p->data + o);
	o += 2;
	if (type != ETH_P_IPV4 && type != ETH_P_IPV6)
		return tx_err(tx, -EINVAL, "EtherType 0x%04x is not IP: the raw method sends only IPv4 and IPv6",
			      type);
	b = pkt_bytes(p, o, 1);
	if (!b)
		return tx_err(tx, -EINVAL, "no IP header in a %u-byte frame", p->caplen);
	if ((b[0] >> 4) == 4 && pkt_get_be16(p, o + 2, &v16) == 0 && pkt_bytes(p, o, IPV4_HDR_MIN)) {
		*family = AF_INET;
		*len = v16;
		if (*len < IPV4_HDR_MIN)
			return tx_err(tx, -EINVAL, "IPv4 total length %u is shorter than its header", *len);
	} else if ((b[0] >> 4) == 6 && pkt_get_be16(p, o + 4, &v16) == 0 &&
		   pkt_bytes(p, o, IPV6_HDR_BYTES)) {
		*family = AF_INET6;
		*len = IPV6_HDR_BYTES + v16;
	} else {
		return tx_err(tx, -EINVAL, "not an IPv4 or IPv6 packet (version %u)", b[0] >> 4);
	}
	if (*len > p->caplen - o)
		return tx_err(tx, -EINVAL,
			      "IP packet of %u bytes was captured only in part (%u bytes): the raw method sends whole packets",
			      *len, p->caplen - o);
	if (*len > tx->mtu)
		return tx_err(tx, -EMSGSIZE, "IP packet of %u bytes exceeds %s's MTU %u", *len, tx->dev,
			      tx->mtu);
	*off = o;
	return 0;
}

static int raw_send(struct tx *tx, const struct pkt *v, unsigned n)
{
	struct raw_state *s = tx->priv;
	unsigned i;

	for (i = 0; i < n; i++) {
		uint32_t off = 0, len = 0, slot;
		int family = 0, rc = find_ip(tx, &v[i], &off, &len, &family);

		if (rc == 0 && family == AF_INET6 && s->fd6 < 0) {
			rc = raw_socket(tx, AF_INET6);
			if (rc >= 0) {
				s->fd6 = rc;
				rc = 0;
			} else if (rc != -EPERM) {
				rc = -EAFNOSUPPORT; /* this packet fails, with raw_socket()'s reason */
			}
		}
		slot = (s->st.head + s->st.n) % s->st.slots;
		if (rc == 0)
			rc = stage_push(&s->st, v[i].data + off, len);
		if (rc < 0)
			return i ? (int)i : rc;
		s->family[slot] = (uint8_t)family;
		memset(&s->dst[slot], 0, sizeof(s->dst[slot]));
		if (family == AF_INET) {
			struct sockaddr_in *sin = (struct sockaddr_in *)&s->dst[slot];

			sin->sin_family = AF_INET;
			memcpy(&sin->sin_addr, v[i].data + off + 16, 4);
		} else {
			s->dst[slot].sin6_family = AF_INET6;
			memcpy(&s->dst[slot].sin6_addr, v[i].data + off + 24, 16);
		}
	}
	return (int)n;
}

static int raw_flush(struct tx *tx)
{
	struct raw_state *s = tx->priv;
	unsigned done = 0;

	while (s->st.n) {
		unsigned slot = s->st.head;
		int family = s->family[slot];
		socklen_t alen = family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
		uint32_t len = s->st.len[slot];

		if (sendto(family == AF_INET ? s->fd4 : s->fd6, stage_at(&s->st, 0), len, MSG_DONTWAIT,
			   (struct sockaddr *)&s->dst[slot], alen) < 0) {
			int err = errno, rc;

			if (done)
				return (int)done;
			if (err == ENETUNREACH || err == EHOSTUNREACH)
				rc = tx_err(tx, -err,
					    "%s: no route for this destination (%s): the raw method sends through the routing table",
					    tx->dev, strerror(err));
			else
				rc = netdev_send_err(tx, err, len);
			return stage_settle(&s->st, rc);
		}
		stage_pop(&s->st, 1);
		done++;
	}
	return (int)done;
}

static void raw_discard(struct tx *tx)
{
	struct raw_state *s = tx->priv;

	stage_pop(&s->st, s->st.n);
}

static int raw_wait(struct tx *tx, int err)
{
	struct raw_state *s = tx->priv;
	int fds[2] = { s->fd4, s->fd6 };

	return netdev_wait_room(fds, s->fd6 >= 0 ? 2 : 1, err);
}

static int raw_drain(struct tx *tx)
{
	struct raw_state *s = tx->priv;
	int rc = netdev_wait_outq(tx, s->fd4);

	if (rc == 0 && s->fd6 >= 0)
		rc = netdev_wait_outq(tx, s->fd6);
	return rc;
}

static void raw_close(struct tx *tx)
{
	struct raw_state *s = tx->priv;

	if (!s)
		return;
	if (s->fd4 >= 0)
		close(s->fd4);
	if (s->fd6 >= 0)
		close(s->fd6);
	stage_free(&s->st);
	free(s->dst);
	free(s->family);
	free(s);
	tx->priv = NULL;
}

const struct tx_ops tx_raw_ops = {
	.name = "raw",
	.open = raw_open,
	.send = raw_send,
	.flush = raw_flush,
	.discard = raw_discard,
	.wait = raw_wait,
	.drain = raw_drain,
	.close = raw_close,
};
