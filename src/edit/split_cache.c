// SPDX-License-Identifier: BSD-2-Clause
/*
 * tcpprep's cache file, format version 04, as tcpprep 4.6 writes it (its
 * cache.c and cache.h).  The layout, all integers big-endian, no padding:
 *   0  magic        8 bytes "tcpprep\0"
 *   8  version      4 bytes "04\0\0" (tcpprep compares atoi() of it)
 *  12  num_packets  u64
 *  20  packets_per_byte u16 (always 4)
 *  22  comment_len  u16
 *  24  comment      comment_len bytes, not NUL-terminated
 *      data         ceil(num_packets / 4) bytes, or more (split_cache_load())
 * Packet n (from 1) owns bits 2k+1 (send) and 2k (primary interface) of data
 * byte (n-1)/4, where k = (n-1)%4.  Everything is checked against the file's
 * real size before anything is allocated from a header field.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay/optparse.h"
#include "replay/split.h"

#define CACHE_HDR_BYTES 24u
#define CACHE_PPB 4u
/* Larger files than this are not caches of any trace replay can stream in a day. */
#define CACHE_FILE_MAX (1ull << 34)

struct split_cache {
	uint64_t npkts;      /* packets described */
	uint8_t *data;       /* ceil(npkts / 4) bytes */
	uint64_t extra;      /* data bytes after those (tcpprep -a with -x/-X) */
	char *comment;       /* NUL-terminated */
};

void split_cache_free(struct split_cache *c)
{
	if (!c)
		return;
	free(c->data);
	free(c->comment);
	free(c);
}

/*
 * Longer data: tcpprep 4.6's auto modes (-a) read the trace twice, and its
 * include/exclude test (-x/-X P:, S:, D:, B:) runs before the mode is looked
 * at, so the first pass (which only learns hosts) already appends a "don't
 * send" entry for every packet it leaves out; the second pass then appends
 * all num_packets entries.  The data is thus ceil((E + num_packets) / 4)
 * bytes, E <= num_packets excluded packets, its first E entries zero.
 * tcpreplay 4.6 (read_cache) reads only the first ceil(num_packets / 4)
 * bytes and sends by those entries -- the first pass's zeros, then the start
 * of the second pass -- and so does replay (split_cache_extra() lets the
 * caller warn).  A longer file, or one whose leading entries are not the
 * zeros that E must have written, is refused.
 */
int split_cache_load(struct split_cache **cp, const uint8_t *b, size_t len, char *err,
		     size_t errlen)
{
	static const uint8_t magic[8] = "tcpprep";
	struct split_cache *c;
	uint64_t n, nbytes;
	unsigned ppb, clen;
	size_t have;

	*cp = NULL;
	if (len < 8 || memcmp(b, magic, 8))
		return opts_fail(err, errlen, "not a tcpprep cache file (no 'tcpprep' magic at offset 0)");
	if (len < CACHE_HDR_BYTES)
		return opts_fail(err, errlen, "tcpprep cache header truncated: %zu of %u bytes", len,
			    CACHE_HDR_BYTES);
	if (b[8] != '0' || b[9] != '4' || b[10] || b[11])
		return opts_fail(err, errlen,
			    "tcpprep cache version '%.4s' at offset 8: only version 04 (tcpprep 4.x) is read",
			    (const char *)b + 8);
	n = 0;
	for (int i = 0; i < 8; i++)
		n = n << 8 | b[12 + i];
	ppb = (unsigned)(b[20] << 8 | b[21]);
	clen = (unsigned)(b[22] << 8 | b[23]);
	if (ppb != CACHE_PPB)
		return opts_fail(err, errlen, "tcpprep cache: %u packets per byte at offset 20, expected %u",
			    ppb, CACHE_PPB);
	if (!n)
		return opts_fail(err, errlen, "tcpprep cache describes no packets (offset 12)");
	if (len - CACHE_HDR_BYTES < clen)
		return opts_fail(err, errlen, "tcpprep cache truncated in its %u-byte comment at offset %u",
			    clen, CACHE_HDR_BYTES);
	nbytes = n / CACHE_PPB + (n % CACHE_PPB != 0);
	have = len - CACHE_HDR_BYTES - clen;
	if (have < nbytes || have > n / 2 + (n % 2 != 0))
		return opts_fail(err, errlen,
			    "tcpprep cache says %llu packets (%llu data bytes at offset %u%s) but holds %zu data bytes",
			    (unsigned long long)n, (unsigned long long)nbytes, CACHE_HDR_BYTES + clen,
			    have < nbytes ? "" : "; tcpprep -a with -x/-X writes at most twice that many entries",
			    have);
	if (have > nbytes) {
		/*
		 * E excluded first-pass entries with ceil((E + n) / 4) = have: at
		 * least 4 * (have - 1) + 1 - n of them, all zero, lead the data.
		 */
		uint64_t lead = 4 * ((uint64_t)have - 1) + 1 - n;
		const uint8_t *d = b + CACHE_HDR_BYTES + clen;

		for (uint64_t i = 0; i < lead; i++)
			if (d[i / CACHE_PPB] & (3u << (i % CACHE_PPB * 2)))
				return opts_fail(err, errlen,
					    "tcpprep cache: %zu data bytes for %llu packets, but entry %llu (byte %llu) is not the \"don't send\" that tcpprep -a with -x/-X writes there",
					    have, (unsigned long long)n, (unsigned long long)i + 1,
					    (unsigned long long)(CACHE_HDR_BYTES + clen + i / CACHE_PPB));
	}
	c = calloc(1, sizeof(*c));
	if (!c || !(c->data = malloc(nbytes)) || !(c->comment = malloc(clen + 1u))) {
		split_cache_free(c);
		opts_fail(err, errlen, "out of memory for a tcpprep cache of %llu packets",
		     (unsigned long long)n);
		return -ENOMEM;
	}
	c->npkts = n;
	c->extra = have - nbytes;
	memcpy(c->comment, b + CACHE_HDR_BYTES, clen);
	c->comment[clen] = '\0';
	memcpy(c->data, b + CACHE_HDR_BYTES + clen, nbytes);
	*cp = c;
	return 0;
}

int split_cache_read(struct split_cache **cp, const char *path, char *err, size_t errlen)
{
	struct stat st;
	uint8_t *buf = NULL;
	size_t got = 0;
	int fd, rc;

	*cp = NULL;
	/* Non-blocking: a FIFO with no writer would hold open() forever; it is refused below. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	if (fstat(fd, &st) < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		goto out;
	}
	if (!S_ISREG(st.st_mode) || (unsigned long long)st.st_size > CACHE_FILE_MAX) {
		rc = opts_fail(err, errlen, "%s: not a tcpprep cache file (%s)", path,
			  S_ISREG(st.st_mode) ? "too large" : "not a regular file");
		goto out;
	}
	if (fcntl(fd, F_SETFL, 0) < 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		goto out;
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		rc = -ENOMEM;
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = r < 0 ? -errno : -EIO;
			snprintf(err, errlen, "%s: read: %s", path,
				 r < 0 ? strerror(-rc) : "file shrank while reading");
			goto out;
		}
		got += (size_t)r;
	}
	rc = split_cache_load(cp, buf, got, err, errlen);
	if (rc < 0) {
		char why[256];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "%s: %s", path, why);
	}
out:
	free(buf);
	close(fd);
	return rc;
}

uint64_t split_cache_count(const struct split_cache *c)
{
	return c->npkts;
}

uint64_t split_cache_extra(const struct split_cache *c)
{
	return c->extra;
}

bool split_cache_warning(const struct split_cache *c, char *buf, size_t len)
{
	if (!c->extra)
		return false;
	snprintf(buf, len,
		 "the tcpprep cache holds %llu data bytes more than its %llu packets need: tcpprep 4.6 -a with -x/-X "
		 "put its first pass's excluded packets ahead of the sides; like tcpreplay 4.6, packet N takes entry N, "
		 "so the sides are shifted and the first packets are not sent (--split MODE classifies without it)",
		 (unsigned long long)c->extra, (unsigned long long)c->npkts);
	return true;
}

const char *split_cache_comment(const struct split_cache *c)
{
	return c->comment;
}

int split_cache_check(const struct split_cache *c, uint64_t npkts, char *err, size_t errlen)
{
	if (c->npkts == npkts)
		return 0;
	return opts_fail(err, errlen,
		    "the tcpprep cache describes %llu packets, the trace has %llu: it belongs to another trace%s",
		    (unsigned long long)c->npkts, (unsigned long long)npkts,
		    c->npkts < npkts ? " (or tcpprep read it through a filter, -x/-X F:, which counts only the packets that pass)" : "");
}

int split_cache_side(const struct split_cache *c, uint64_t recno)
{
	unsigned bit;
	uint8_t byte;

	if (recno < 1 || recno > c->npkts)
		return -ERANGE;
	byte = c->data[(recno - 1) / CACHE_PPB];
	bit = (unsigned)((recno - 1) % CACHE_PPB) * 2;
	if (!(byte & (1u << (bit + 1))))
		return SPLIT_NOSEND;
	return byte & (1u << bit) ? SPLIT_INTF1 : SPLIT_INTF2;
}
