// SPDX-License-Identifier: BSD-2-Clause
/*
 * -w: the frames received, as a nanosecond Ethernet pcap written by libpcap,
 * VLAN tags re-inserted, so a test can compare them byte for byte with what
 * was sent.  The file is written unnamed and appears only when it is closed
 * after a capture that succeeded (replay/outfile.h).  A frame longer than
 * the header's snap length (a tag re-inserted into a frame of the largest
 * size) is cut to it, as a capture is, with its length kept; a timestamp
 * beyond pcap's 32-bit seconds is refused, never wrapped.
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>

#include "replay/compiler.h"
#include "replay/outfile.h"
#include "replay/trace.h"
#include "rx.h"

/* libpcap's (and tcpdump's) largest snap length for Ethernet: no record may be longer. */
#define RX_PCAPOUT_SNAPLEN 262144u

struct rx_pcapout {
	pcap_t *dead;
	pcap_dumper_t *d;
	char *path;
	struct outfile out;
};

int rx_pcapout_open(struct rx_pcapout **op, const char *path, char *err, size_t errlen)
{
	struct rx_pcapout *o = calloc(1, sizeof(*o));
	FILE *f;

	*op = NULL;
	if (!o || !(o->path = strdup(path))) {
		free(o);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	o->out.fd = o->out.dirfd = -1;
	o->dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, RX_PCAPOUT_SNAPLEN,
						       PCAP_TSTAMP_PRECISION_NANO);
	if (!o->dead) {
		rx_pcapout_close(o, err, errlen);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	f = outfile_fopen(&o->out, path, err, errlen);
	if (!f) {
		int rc = -errno;

		if (rc != -EPERM) /* else @err names another user's symbolic link */
			snprintf(err, errlen, "%s: cannot write: %s", path, strerror(-rc));
		rx_pcapout_close(o, NULL, 0);
		return rc;
	}
	errno = 0;
	o->d = pcap_dump_fopen(o->dead, f);
	if (!o->d) {
		int rc = errno ? -errno : -EIO;

		snprintf(err, errlen, "%s: cannot write: %s", path,
			 errno ? strerror(errno) : pcap_geterr(o->dead));
		outfile_fclose(&o->out, f);
		rx_pcapout_close(o, NULL, 0);
		return rc;
	}
	*op = o;
	return 0;
}

int rx_pcapout_write(struct rx_pcapout *o, const uint8_t *data, uint32_t caplen, uint32_t len,
		     uint64_t ts_ns)
{
	/* With nanosecond precision libpcap writes tv_usec as it is: it holds nanoseconds. */
	struct pcap_pkthdr h = {
		.ts = { .tv_sec = (time_t)(ts_ns / NSEC_PER_SEC),
			.tv_usec = (suseconds_t)(ts_ns % NSEC_PER_SEC) },
		.caplen = caplen < RX_PCAPOUT_SNAPLEN ? caplen : RX_PCAPOUT_SNAPLEN,
		.len = len > caplen ? len : caplen,
	};

	if (ts_ns / NSEC_PER_SEC > UINT32_MAX)
		return -ERANGE; /* pcap holds 32-bit seconds: refused, not wrapped */
	pcap_dump((u_char *)o->d, &h, data);
	return 0;
}

int rx_pcapout_close(struct rx_pcapout *o, char *err, size_t errlen)
{
	int rc = 0;

	if (!o)
		return 0;
	if (o->d) {
		FILE *f = pcap_dump_file(o->d);

		/* pcap_dump() reports nothing: the stream's error flag says whether every write went. */
		if (pcap_dump_flush(o->d) < 0 || ferror(f))
			rc = errno ? -errno : -EIO;
		if (rc < 0 && err)
			snprintf(err, errlen, "%s: write failed: %s", o->path, strerror(-rc));
		/* Named only on the success path (@err given) and when every write went. */
		if (!rc && err)
			rc = outfile_commit(&o->out, err, errlen);
		if (f == stdout)
			pcap_dump_flush(o->d); /* pcap_dump_close() would fclose stdout */
		else
			pcap_dump_close(o->d);
		o->out.fd = -1; /* closed with the stream */
	}
	outfile_close(&o->out);
	if (o->dead)
		pcap_close(o->dead);
	free(o->path);
	free(o);
	return rc;
}
