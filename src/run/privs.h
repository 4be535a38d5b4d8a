/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Which capabilities a replay run needs, from its options (replay/caps.h has
 * the mechanism).  replay_main() calls privs_acquire() before it opens
 * anything and privs_release() once, just before the first packet.
 *
 *   -i IF (any method)          cap_net_raw   socket(AF_PACKET) or socket(AF_XDP)
 *   --method xdp                cap_ipc_lock, unless RLIMIT_MEMLOCK holds every
 *                               socket's UMEM (TX_XDP_UMEM_BYTES each); no program
 *                               is loaded, so no cap_net_admin or cap_bpf
 *   --method auto               cap_ipc_lock if granted and the limit is short:
 *                               lets auto take xdp
 *   --rt-priority N             cap_sys_nice (SCHED_FIFO), cap_ipc_lock (mlockall);
 *                               or RLIMIT_RTPRIO / RLIMIT_MEMLOCK high enough
 *   --cpu N, -w FILE, --info    none
 */
#ifndef REPLAY_PRIVS_H
#define REPLAY_PRIVS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/opts.h"

/* privs_needed() - capabilities the run cannot do without (*@need) and can use (*@want). */
void privs_needed(const struct opts *o, uint64_t *need, uint64_t *want);

/*
 * privs_acquire() - refuse the run if a needed capability is missing (the
 * reason and the setcap command in @err, -EPERM); otherwise make what the
 * run needs or can use effective (a file granted "=p").
 */
int privs_acquire(const struct opts *o, char *err, size_t len);

/*
 * privs_release() - set-up is over and sending on an open socket needs no
 * capability: drop them all, except, with @outputs (files to be put in place
 * at the end of the run), cap_dac_override and cap_fowner, which root may need
 * for that; with @fifo_switch (--rt-priority's waiter switches between
 * SCHED_FIFO and normal priority), cap_sys_nice, to switch back.  Only
 * capabilities already held are kept.  0 or -errno.  (AF_XDP needs none
 * either: replay's socket loads no XDP program, so closing it detaches
 * nothing.)
 */
int privs_release(bool outputs, bool fifo_switch);

#endif
