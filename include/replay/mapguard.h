/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A file's mapping that outlives the file being truncated under it.
 *
 * A mapping cannot report an I/O error or a file truncated under it except
 * by SIGBUS, which kills the process.  Files are truncated under a reader
 * more often than one would think (log rotation, a copy still being
 * written, a prep sidecar made again while a run reads it), so a watched
 * mapping's fault is caught: the handler maps zeros over the rest of the
 * mapping, from the faulting page on, so that the access that faulted
 * completes (reading zeros) and no later one faults, and marks the guard.
 * The reader looks at the mark after each read it hands on -- after a
 * compiler barrier, mapguard_faulted() -- and reports the file's error
 * instead of the zeros.
 *
 * The handler is installed by the first mapguard_watch(), and again by a
 * later one if something else took SIGBUS since.  A fault in no watched
 * mapping is re-raised, on return, under the disposition there was before.
 * The handler only reads the list of guards; watching and unwatching are
 * serialised among themselves.
 */
#ifndef REPLAY_MAPGUARD_H
#define REPLAY_MAPGUARD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

struct mapguard {
	const void *base;            /* the watched mapping */
	size_t bytes;                /* its length */
	volatile sig_atomic_t fault; /* a read of it faulted (the handler sets it; so may its owner) */
	size_t off;                  /* the lowest faulting page (the zeros start there), bytes from base */
	int *io_err;                 /* not NULL: the handler also sets *io_err to -EIO */
	struct mapguard *next;       /* the handler's list */
};

/*
 * mapguard_watch() - catch the faults of reads of [@base, @base + @bytes),
 * a mapping of a file, from now until mapguard_unwatch(); @io_err as in
 * struct mapguard.  @g must stay put while it is watched.  Installs the
 * SIGBUS handler if it is not in place.
 */
void mapguard_watch(struct mapguard *g, const void *base, size_t bytes, int *io_err);

/* mapguard_unwatch() - stop watching @g (before its mapping goes); accepts one never watched. */
void mapguard_unwatch(struct mapguard *g);

/*
 * mapguard_faulted() - has a read of @g's mapping faulted?  Call it after
 * the reads whose bytes are to be trusted: the barrier keeps the compiler
 * from reading the mark before them.
 */
static inline bool mapguard_faulted(const struct mapguard *g)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return g->fault != 0;
}

#endif
