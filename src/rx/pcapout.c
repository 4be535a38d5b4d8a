// SPDX-License-Identifier: BSD-2-Clause
/*
 * -w: the frames received, as a nanosecond Ethernet pcap written by libpcap,
 * VLAN tags re-inserted, so a test can compare them byte for byte with what
 * was sent.
 */
#include <errno.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>

#include "replay/compiler.h"
#include "replay/trace.h"
#include "rx.h"

struct rx_pcapout {
	pcap_t *dead;
	pcap_dumper_t *d;
	char *path;
};

int rx_pcapout_open(struct rx_pcapout **op, const char *path, char *err, size_t errlen)
{
	struct rx_pcapout *o = calloc(1, sizeof(*o));

	*op = NULL;
	if (!o || !(o->path = strdup(path))) {
		free(o);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	/* The header's snap length is the largest record any reader takes: tags make frames longer. */
	o->dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, TRACE_RECORD_MAX_BYTES,
						       PCAP_TSTAMP_PRECISION_NANO);
	if (!o->dead) {
		rx_pcapout_close(o, err, errlen);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	errno = 0;
	o->d = pcap_dump_open(o->dead, path);
	if (!o->d) {
		int rc = errno ? -errno : -EIO;

		/* libpcap's message repeats the path; errno says it plainer. */
		snprintf(err, errlen, "%s: cannot write: %s", path,
			 errno ? strerror(errno) : pcap_geterr(o->dead));
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
		.caplen = caplen,
		.len = len,
	};

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
		pcap_dump_close(o->d);
		if (rc < 0 && err)
			snprintf(err, errlen, "%s: write failed: %s", o->path, strerror(-rc));
	}
	if (o->dead)
		pcap_close(o->dead);
	free(o->path);
	free(o);
	return rc;
}
