// SPDX-License-Identifier: BSD-2-Clause
/*
 * AF_PACKET SOCK_RAW, one send() per frame: the baseline every faster method
 * is measured against.  The socket is opened with protocol 0 so the kernel
 * never queues received frames to it: it only sends.
 */
#include <errno.h>
#include <linux/if_packet.h>
#include <linux/sockios.h>
#include <net/ethernet.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tx_int.h"

/* How long to back off when the device queue is full (ENOBUFS): long enough to drain a few frames. */
#define ENOBUFS_BACKOFF_NS 20000
/* drain() gives the kernel this long to free every frame we queued. */
#define DRAIN_TIMEOUT_MS 5000

struct packet_state {
	int fd;
};

static int packet_open(struct tx *tx, const struct tx_cfg *cfg)
{
	struct packet_state *s;
	struct sockaddr_ll sll;
	struct netdev nd;
	int rc;

	s = calloc(1, sizeof(*s));
	if (!s)
		return tx_err(tx, -ENOMEM, "out of memory");
	s->fd = -1;
	tx->priv = s;
	if (!cfg->ifname)
		return tx_err(tx, -EINVAL, "no interface given");
	snprintf(tx->dev, sizeof(tx->dev), "%s", cfg->ifname);
	if (cfg->linktype != LINKTYPE_ETHERNET)
		return tx_err(tx, -ENOTSUP, "%s: cannot send link type %u frames on an Ethernet interface",
			      cfg->ifname, cfg->linktype);
	/* Permission first: without it the interface checks would mislead. */
	s->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		return netdev_sock_err(tx, -errno, cfg->ifname);
	rc = netdev_open_check(tx, cfg->ifname, &nd);
	if (rc < 0)
		return rc;
	tx->mtu = nd.mtu;
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = nd.ifindex;
	sll.sll_protocol = 0; /* send only: bind without joining any receive path */
	if (bind(s->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		return netdev_sock_err(tx, -errno, cfg->ifname);
	return 0;
}

static int packet_send(struct tx *tx, const struct pkt *v, unsigned n)
{
	struct packet_state *s = tx->priv;
	unsigned i;

	for (i = 0; i < n; i++) {
		int rc = netdev_frame_check(tx, &v[i]);

		if (rc < 0)
			return i ? (int)i : rc;
		if (send(s->fd, v[i].data, v[i].caplen, MSG_DONTWAIT) < 0) {
			int err = errno;

			if (i)
				return (int)i;
			switch (err) {
			case EAGAIN:
			case ENOBUFS:
			case EINTR:
				return -err;
			case EMSGSIZE:
				return tx_err(tx, -EMSGSIZE, "frame of %u bytes refused by %s as too large (MTU %u)",
					      v[i].caplen, tx->dev, tx->mtu);
			case ENETDOWN:
				return tx_err(tx, -ENETDOWN, "%s: interface went down", tx->dev);
			case ENXIO:
			case ENODEV:
				return tx_err(tx, -ENXIO, "%s: interface disappeared", tx->dev);
			default:
				return tx_err(tx, -err, "%s: send failed: %s", tx->dev, strerror(err));
			}
		}
	}
	return (int)n;
}

static int packet_wait(struct tx *tx, int err)
{
	struct packet_state *s = tx->priv;

	if (err == -EAGAIN) {
		/* The socket's send buffer is full: it becomes writable as frames are freed. */
		struct pollfd pfd = { .fd = s->fd, .events = POLLOUT };

		if (poll(&pfd, 1, 100) < 0)
			return -errno;
		return 0;
	}
	/* ENOBUFS: the device queue is full; the socket stays writable, so back off briefly. */
	struct timespec ts = { .tv_sec = 0, .tv_nsec = ENOBUFS_BACKOFF_NS };

	return clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL) ? -EINTR : 0;
}

static int packet_drain(struct tx *tx)
{
	struct packet_state *s = tx->priv;

	/*
	 * send() returns once the frame is queued; SIOCOUTQ counts the bytes
	 * of our frames the kernel has not freed yet (still in a qdisc or a
	 * driver ring).  Wait for zero so "sent" means "left the host".
	 */
	for (int waited = 0; waited < DRAIN_TIMEOUT_MS; waited++) {
		int outq = 0;

		if (ioctl(s->fd, SIOCOUTQ, &outq) < 0 || outq == 0)
			return 0;
		struct timespec ts = { .tv_sec = 0, .tv_nsec = 1000000 };
		nanosleep(&ts, NULL);
	}
	return tx_err(tx, -ETIMEDOUT, "%s: frames still queued after %d ms", tx->dev,
		      DRAIN_TIMEOUT_MS);
}

static void packet_close(struct tx *tx)
{
	struct packet_state *s = tx->priv;

	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	free(s);
	tx->priv = NULL;
}

const struct tx_ops tx_packet_ops = {
	.name = "packet",
	.open = packet_open,
	.send = packet_send,
	.wait = packet_wait,
	.drain = packet_drain,
	.close = packet_close,
};
