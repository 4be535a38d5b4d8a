/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sender threads unasked (src/run/threads_auto.c): with no --threads given, a
 * run at top speed on an interface with several TX queues, on a process
 * that may use several CPUs, sends with one thread per queue and CPU (the
 * fewer of the two), each with its shard of the flows as --threads N.
 * Per-flow order is kept either way; at top speed nothing fixes the
 * interleaving across flows, so nothing else changes.  Wherever anything
 * would be lost or could fail (an option several threads cannot do, memory
 * each thread would take again), the run keeps one thread.
 */
#ifndef REPLAY_THREADS_AUTO_H
#define REPLAY_THREADS_AUTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/opts.h"

/* What threads_auto() looks at besides the options (threads_auto_probe() reads it). */
struct threads_auto_env {
	unsigned queues;        /* real TX queues of -i (with -I the fewer of the two); 0 = unknown */
	unsigned cpus;          /* CPUs the run may use: --cpu's count, or the affinity mask's */
	bool inputs_regular;    /* every input a regular file: each thread opens and reads it itself */
	uint64_t input_bytes;   /* the inputs' sizes summed: with --preload each thread holds a copy */
	uint64_t mem_avail;     /* MemAvailable, bytes */
	uint64_t memlock;       /* bytes AF_XDP UMEMs may lock; UINT64_MAX = no limit (or cap_ipc_lock) */
};

/*
 * threads_auto() - the sender threads for @o on @env: 1, or
 * min(queues, cpus, OPTS_THREADS_MAX) when every condition holds
 * (man/replay.1, --threads).  A pure function.  @why says why, either way,
 * in a phrase for the summary ("2 sender threads on 2 TX queues ..." or
 * "not at top speed ...").
 */
unsigned threads_auto(const struct opts *o, const struct threads_auto_env *env, char *why, size_t len);

/* threads_auto_probe() - fill @env for @o from sysfs, the affinity mask, /proc/meminfo and the limits. */
void threads_auto_probe(const struct opts *o, struct threads_auto_env *env);

/*
 * threads_auto_apply() - with no --threads given: probe, decide, and set
 * o->threads (and o->threads_auto, o->threads_why when more than one).
 * Says at -v why it stays at one.
 */
void threads_auto_apply(struct opts *o);

#endif
