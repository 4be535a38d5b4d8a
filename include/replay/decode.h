/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * -v/--verbose: each packet as it is sent, decoded by tcpdump (tcpreplay's,
 * tcprewrite's and tcpedit's -v).  One child, "tcpdump [ARGS] -n -l -r -"
 * (ARGS from -A/--decode split at blanks, in front, as tcpreplay 4.6 puts
 * them), reads a pcap stream on a pipe; its output is replay's stdout.
 * It runs in a process group of its own: a terminal's Ctrl-C reaches
 * replay, which ends the stream; tcpdump then prints the rest and exits.
 *
 * The stream: a pcap header (nanosecond magic 0xa1b23c4d, version 2.4,
 * snap length PKT_FRAME_MAX_BYTES, LINKTYPE_ETHERNET: every frame handed to
 * a method is Ethernet), then one record per packet handed to the method,
 * its bytes after the edits, stamped with its record time (the trace's
 * timestamp, as tcpreplay's and tcprewrite's -v stamp it; tcpdump prints
 * microseconds unless ARGS asks --time-stamp-precision=nano).
 *
 * Each record is written whole before decode_pkt() returns (one write() in
 * the common case), so the decoded line follows its packet closely; a slow
 * tcpdump slows the run down, as it does tcpreplay's.  If tcpdump goes away
 * (EPIPE) or the pipe fails, one warning says so and decoding stops;
 * sending goes on.  Not thread-safe: one sender thread (-v refuses
 * --threads N > 1).
 */
#ifndef REPLAY_DECODE_H
#define REPLAY_DECODE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "pkt.h"

#define DECODE_PROG "tcpdump"
#define DECODE_MAGIC_NSEC 0xa1b23c4du
#define DECODE_HDR_BYTES 24u
#define DECODE_REC_BYTES 16u

struct decode;

/*
 * decode_start() - start "tcpdump [ARGS] -n -l -r -" (found on PATH) and
 * write the pcap header to it.  ARGS may be NULL.  0 and *dp set, or -errno
 * with @err saying why in one line (tcpdump not found: ENOENT).
 */
int decode_start(struct decode **dp, const char *args, char *err, size_t errlen);

/*
 * decode_open_fd() - the writer over an open file descriptor @fd (taken;
 * closed by decode_finish()) with no child (tests); writes the header.
 * 0, or -errno.
 */
int decode_open_fd(struct decode **dp, int fd, char *err, size_t errlen);

/* decode_pkt() - one record: @p's bytes and record time.  Errors stop the decoding (see above). */
void decode_pkt(struct decode *d, const struct pkt *p);

/* decode_stopped() - true once a write failed and decoding stopped. */
int decode_stopped(const struct decode *d);

/*
 * decode_finish() - close the pipe, wait for tcpdump to end (SIGTERM to it
 * if a signal cuts the wait short) and free @d (NULL: nothing).  0, or -1
 * with @err saying how tcpdump ended (non-zero exit status, a signal).
 */
int decode_finish(struct decode *d, char *err, size_t errlen);

/*
 * decode_split_args() - ARGS split at blanks into @argv (at most @max - 1
 * words, NULL-terminated) in the copy @buf; the number of words, or -1 if
 * there are more than that.
 */
int decode_split_args(char *buf, char **argv, int max);

#endif
