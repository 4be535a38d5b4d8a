// SPDX-License-Identifier: BSD-2-Clause
/* Mappings that survive their file's truncation: the SIGBUS handler (see replay/mapguard.h). */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "replay/mapguard.h"

/*
 * The watched mappings, for on_sigbus(): a list the handler only reads.  A
 * SIGBUS from a mapping is synchronous -- it comes from an access by the
 * faulting thread, never from within the list's own updates on that thread
 * -- so the handler takes no lock; updates are published with release stores.
 */
static struct mapguard *guards;
static pthread_mutex_t guards_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction prev;  /* the disposition before ours, for faults not ours */
static uintptr_t page_bytes;   /* read once: sysconf() is not async-signal-safe */

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	uintptr_t a = (uintptr_t)si->si_addr;
	int saved = errno;

	(void)sig;
	(void)uc;
	for (struct mapguard *g = __atomic_load_n(&guards, __ATOMIC_ACQUIRE); g; g = g->next) {
		uintptr_t lo = (uintptr_t)g->base, hi = lo + g->bytes, pg = a & ~(page_bytes - 1);

		if (a < lo || a >= hi)
			continue;
		/* Zeros from the faulting page to the end: the access completes, and no other faults. */
		if (mmap((void *)pg, hi - pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
			 0) == MAP_FAILED)
			break;
		/* Reads may fault out of order: the zeros start at the lowest. */
		if (!g->fault || pg - lo < g->off)
			g->off = pg - lo;
		g->fault = 1;
		if (g->io_err)
			*g->io_err = -EIO;
		errno = saved;
		return;
	}
	/* Not a watched mapping's: the fault is re-raised on return, under the disposition before ours. */
	sigaction(SIGBUS, &prev, NULL);
	errno = saved;
}

void mapguard_watch(struct mapguard *g, const void *base, size_t bytes, int *io_err)
{
	struct sigaction cur;

	g->base = base;
	g->bytes = bytes;
	g->fault = 0;
	g->off = 0;
	g->io_err = io_err;
	pthread_mutex_lock(&guards_lock);
	if (sigaction(SIGBUS, NULL, &cur) == 0 &&
	    (!(cur.sa_flags & SA_SIGINFO) || cur.sa_sigaction != on_sigbus)) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = on_sigbus;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		page_bytes = (uintptr_t)sysconf(_SC_PAGESIZE);
		if (sigaction(SIGBUS, &sa, &prev) < 0) {
			pthread_mutex_unlock(&guards_lock);
			return;
		}
	}
	g->next = guards;
	__atomic_store_n(&guards, g, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&guards_lock);
}

void mapguard_unwatch(struct mapguard *g)
{
	pthread_mutex_lock(&guards_lock);
	for (struct mapguard **pp = &guards; *pp; pp = &(*pp)->next)
		if (*pp == g) {
			__atomic_store_n(pp, g->next, __ATOMIC_RELEASE);
			break;
		}
	pthread_mutex_unlock(&guards_lock);
}
