/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Running without root: the Linux capabilities a run needs, checked before
 * anything is opened, and dropped -- every one -- once the sockets, rings and
 * real-time settings are in place, before the first packet (capabilities(7)).
 *
 * A capability is asked of the kernel only when an operation is set up
 * (socket(AF_PACKET), bpf(), sched_setscheduler(), mlockall()); sending on a
 * socket that exists needs none.  So the send loop runs with an empty
 * effective and permitted set, whoever started the program.
 *
 * A user grants them once to the installed binary, as wireshark's dumpcap is
 * granted its own:  setcap cap_net_raw,cap_sys_nice,cap_ipc_lock=ep PROG
 */
#ifndef REPLAY_CAPS_H
#define REPLAY_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Capability numbers from <linux/capability.h>, as bits of a mask. */
#define CAPS_BIT(n) (UINT64_C(1) << (n))
#define CAPS_DAC_OVERRIDE CAPS_BIT(1)
#define CAPS_FOWNER CAPS_BIT(3)
/* What root uses to put its output files in place in a directory it does not own (see privs.h). */
#define CAPS_FILES (CAPS_DAC_OVERRIDE | CAPS_FOWNER)
#define CAPS_NET_ADMIN CAPS_BIT(12)
#define CAPS_NET_RAW CAPS_BIT(13)
#define CAPS_IPC_LOCK CAPS_BIT(14)
#define CAPS_SYS_NICE CAPS_BIT(23)
#define CAPS_BPF CAPS_BIT(39)

/* Every capability either program can use: what -Dsetcap=true and the package grant. */
#define CAPS_ALL (CAPS_NET_RAW | CAPS_NET_ADMIN | CAPS_SYS_NICE | CAPS_IPC_LOCK | CAPS_BPF)

/* caps_name() - "cap_net_raw" for CAPS_NET_RAW (one bit), as setcap(8) spells it. */
const char *caps_name(uint64_t bit);

/* caps_get() - the calling thread's effective (@eff) and permitted (@perm) sets; 0 or -errno. */
int caps_get(uint64_t *eff, uint64_t *perm);

/*
 * caps_require() - check that every capability in @need is permitted to the
 * process, and make it effective (a binary granted "=p" only).  @why says
 * what needs them ("sending on eth0").  Returns 0, or -EPERM with a one-line
 * reason in @err naming the missing capabilities and the setcap(8) command
 * that grants them to @prog (found through /proc/self/exe).
 */
int caps_require(uint64_t need, const char *prog, const char *why, char *err, size_t len);

/*
 * caps_hint() - for an optional feature that failed with EPERM: "cap_sys_nice
 * is missing: run as root, or grant it once (as root): setcap ...=ep PATH"
 * into @buf; empty if @bit is permitted (then something else refused).
 */
const char *caps_hint(uint64_t bit, char *buf, size_t len);

/*
 * caps_drop() - keep only @keep (usually 0) in the effective, permitted and
 * inheritable sets, which also empties the ambient set.  After it the
 * process cannot regain what it dropped, short of exec'ing a privileged
 * binary.  Returns 0 or -errno.
 */
int caps_drop(uint64_t keep);

#endif
