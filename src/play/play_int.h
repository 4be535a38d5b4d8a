/* SPDX-License-Identifier: BSD-2-Clause */
/* Inside src/play/: the clock, the timer heap and the functions the engines share. */
#ifndef PLAY_INT_H
#define PLAY_INT_H

#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>

#include "replay/play.h"

/* A slot's timer: stale once the slot's generation has moved on (lazy deletion). */
struct ev_timer {
	uint64_t at_ns;
	uint32_t idx, gen;
};

struct ev_heap {
	struct ev_timer *v;
	size_t n, cap;
};

uint64_t play_now_ns(void);
int heap_push(struct ev_heap *h, uint64_t at_ns, uint32_t idx, uint32_t gen);
/* heap_pop_due() - the earliest timer if it is due at @now_ns: 1 and *@out, else 0. */
int heap_pop_due(struct ev_heap *h, uint64_t now_ns, struct ev_timer *out);
/* heap_next() - the earliest timer's time, UINT64_MAX if none. */
uint64_t heap_next(const struct ev_heap *h);
void heap_free(struct ev_heap *h);

/* play_sockaddr() - @a as a sockaddr in @ss; its length. */
socklen_t play_sockaddr(const struct conv_addr *a, struct sockaddr_storage *ss);

/* play_verdict_of() - the verdict a socket error means (@established: after the handshake). */
enum play_verdict play_verdict_of(int err, bool established);

/* play_think_ns() - the recorded gap @gap_ns as played: divided by --speed, none at top speed. */
uint64_t play_think_ns(const struct play_cfg *cfg, uint64_t gap_ns);

/*
 * play_finish_compare() - the comparison of @live (@len bytes) with @c's
 * recorded server stream into @r (verdict PLAY_MISMATCH and where, snippets
 * if @listed); -ENOMEM.
 */
int play_finish_compare(const struct play_cfg *cfg, const struct conv_mask *mask, const struct conv *c,
			const uint8_t *live, size_t len, struct play_result *r);

/* play_epoll_wait_ms() - the epoll timeout to wake at @at_ns (UINT64_MAX: -1, forever). */
int play_epoll_wait_ms(uint64_t now_ns, uint64_t at_ns);

#endif
