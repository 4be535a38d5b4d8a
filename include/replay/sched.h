/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The scheduler: when each packet is due (src/sched/sched.c), waiting for it
 * (the waiter, replay/sched_waiter.h, src/sched/wait.c), --start-at
 * (start.c) and the real-time set-up that makes the waiting accurate (rt.c).
 * Every deadline is absolute -- a segment's origin plus exact integer
 * arithmetic on the packet's trace time, its index or the bytes before it --
 * so lateness never accumulates into drift and the billionth deadline is as
 * exact as the first.  A run is cut into segments: each pass over each file
 * starts one, whose origin is the previous deadline (plus any gap asked
 * for).  A packet found late meets the late policy (sched_late()).  The run
 * owns one struct sched per sender thread, and calls sched_deadline() and
 * sched_wait() once per packet.
 */
#ifndef REPLAY_SCHED_H
#define REPLAY_SCHED_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clock.h"
#include "optparse.h"
#include "pkt.h"
#include "sched_report.h"
#include "sched_waiter.h"

enum sched_mode {
	SCHED_MODE_TRACE,    /* the trace's own timing, scaled by cfg.speed */
	SCHED_MODE_TOPSPEED, /* as fast as the method takes them */
	SCHED_MODE_PPS,      /* cfg.rate packets per second */
	SCHED_MODE_MBPS,     /* cfg.rate megabits (10^6 bits) per second */
	SCHED_MODE_MAX
};

/* What to do when a packet is found late by more than the threshold (a stall). */
enum sched_late {
	SCHED_LATE_CATCHUP, /* keep the absolute schedule: send what is late at once (default) */
	SCHED_LATE_SHIFT,   /* move the rest of the schedule back by the stall: gaps kept */
	SCHED_LATE_MAX
};

/* struct sched_ratio - num / den, exactly; a speed multiplier or a rate.  Both > 0 when set. */
struct sched_ratio {
	uint64_t num;
	uint64_t den;
};

/*
 * sched_ratio_parse() - read a positive decimal ("2", "0.5", "1000.25", at
 * most 9 digits after the point) or, as tcpreplay's strtod(), hexadecimal
 * ("0x10", "0x1.8", "0x1p-3") number into @r, reduced.  0, or -EINVAL for
 * anything else (signs, decimal exponents, zero, too many digits, overflow).
 */
int sched_ratio_parse(const char *s, struct sched_ratio *r);

/*
 * sched_parse_ratio() - option parser (OPT_FUNC in src/cli/opts.c): a struct
 * sched_ratio from @arg by sched_ratio_parse(); 0, or -EINVAL with the
 * reason in @err.
 */
int sched_parse_ratio(void *field, const char *arg, char *err, size_t errlen);

/*
 * The names of the enumerated settings, for the options (--timer, --late),
 * the summary and the JSON: tcpreplay's timer names nano and select mean
 * sleep, gtod spin.
 */
extern const struct opt_enum sched_timer_choices[];
extern const struct opt_enum sched_late_choices[];

/* Bytes a frame occupies on an Ethernet wire beyond its bytes in the trace. */
/*
 * The furthest deadline a run may have, ns on the run clock: CLOCK_MONOTONIC
 * is an int64_t of ns (about 292 years).  A packet due later ends the run
 * as an error (src/run/loop.c) rather than wrapping to an earlier time.
 */
#define SCHED_NS_MAX ((uint64_t)INT64_MAX)

#define SCHED_ETH_MIN_FRAME_BYTES 60u /* shorter frames are padded to this (before the FCS) */
#define SCHED_ETH_OVERHEAD_BYTES  24u /* FCS 4 + preamble and SFD 8 + inter-frame gap 12 */

/* The wall clock --start-at is read on (--clock). */
enum sched_clock {
	SCHED_CLOCK_REALTIME, /* CLOCK_REALTIME: UTC as the system keeps it (NTP, chrony, phc2sys) */
	SCHED_CLOCK_TAI,      /* CLOCK_TAI: CLOCK_REALTIME plus the kernel's TAI offset (no leap steps) */
	SCHED_CLOCK_MAX
};

/* An instant on a wall clock, ns since its epoch (--start-at); set = given. */
struct sched_instant {
	bool set;
	uint64_t ns;
};

struct sched_cfg {
	enum sched_mode mode;
	struct sched_ratio speed;      /* TRACE: gaps are divided by this; {0, 0} = 1 */
	struct sched_ratio rate;       /* PPS: packets/s; MBPS: Mbit/s */
	uint64_t pps_multi;            /* PPS: packets sent together each interval (--pps-multi); 0 = 1 */
	bool wire_overhead;            /* MBPS: count padding, FCS, preamble and gap per frame */
	enum sched_timer timer;
	bool spin_fixed;               /* spin_ns is the user's: no calibration, no adapting */
	uint64_t spin_ns;              /* the hybrid margin if spin_fixed (--spin-us), ns */
	enum sched_late late;
	uint64_t late_threshold_ns;    /* lateness beyond this is a stall, ns; 0 = any */
	/*
	 * TRACE: no packet is due more than this after the one before it in
	 * its segment (tcpreplay's --maxsleep): a longer recorded gap is cut
	 * to it and the rest of the schedule moves forward by the cut; 0 = no
	 * limit.
	 */
	uint64_t max_gap_ns;
	const volatile sig_atomic_t *stop; /* spinning ends early when set (may be NULL) */
	/*
	 * Hybrid timer: the largest share of time, in thousandths, the waiter
	 * may keep the CPU busy; the rest is idle time it plans into the
	 * schedule's gaps.  Set under real-time throttling (see rt_setup());
	 * 0 = no limit.
	 */
	uint32_t busy_max_permille;
	struct sched_instant start_at; /* --start-at: wait for this instant before the first packet */
	enum sched_clock start_clock;  /* --clock: the clock start_at is a reading of */
	/*
	 * With busy_max_permille: switch the calling thread between SCHED_FIFO
	 * (@fifo true) and SCHED_OTHER; 0 or -errno.  When set, idle owed to
	 * the throttle that no gap can pay is paid by running at normal
	 * priority (which the throttle does not count) instead of by sleeping
	 * (see wait.c).  NULL = sleep it off in chunks.
	 */
	int (*set_fifo)(void *ctx, bool fifo);
	void *set_fifo_ctx;
};

struct sched {
	enum sched_mode mode;
	enum sched_late late;
	struct clock *clk;
	struct waiter waiter;          /* how deadlines are waited for */
	struct sched_ratio speed;      /* TRACE: num/den, reduced; 1/1 by default */
	struct sched_ratio rate;       /* PPS, MBPS */
	uint64_t pps_multi;            /* PPS: group size (--pps-multi); 0 or 1 = one at a time */
	bool wire_overhead;
	uint64_t late_threshold_ns;
	uint64_t max_gap_ns;           /* TRACE: longest gap between packets in a segment; 0 = any */
	uint64_t cut_ns;               /* TRACE: total cut from gaps by max_gap_ns, ns */
	uint64_t origin_ns;            /* run-clock time the segment's progress counts from, ns */
	uint64_t ts0_ns;               /* TRACE: trace time of the segment's first packet, ns */
	uint64_t count;                /* PPS: packets scheduled since the run started */
	uint64_t bytes;                /* MBPS: bytes scheduled since the run started (as counted) */
	uint64_t last_ns;              /* deadline of the previous packet, ns */
	uint64_t gap_ns;               /* delay before the next segment's first packet, ns */
	bool new_segment;              /* the next packet starts a segment */
	bool in_stall;                 /* the previous packet was late beyond the threshold */
	/* Lateness within the threshold is made up gradually (sched_paced()): */
	uint64_t wait_dl_ns;           /* the deadline of the last wait, ns */
	uint64_t behind_ns;            /* when the last wait ended, if after its deadline by at most
					* the threshold and not catching up after a stall; else 0 */
	bool after_stall;              /* catching up after a stall: at once, the late policy's */
	/* counters, for the summary */
	uint64_t late_stalls;          /* runs of packets found late beyond the threshold */
	uint64_t late_packets;         /* packets found late beyond the threshold */
	uint64_t shifted_ns;           /* SHIFT: total the schedule moved back by, ns */
	uint64_t suspends;             /* times the run was suspended (SIGUSR1) */
	uint64_t suspended_ns;         /* their total length, by which the schedule moved back, ns */
	uint64_t late_cause[WAIT_CAUSE_MAX]; /* late_packets by the cause the waiter saw */
	enum wait_cause stall_cause;   /* the cause of the current run of late packets */
	/* TOPSPEED: p->sched_ns is one clock reading shared by this many packets (sched_top_clock_every()) */
	unsigned top_every;            /* packets per clock reading; 0 or 1 = a reading per packet */
	unsigned top_left;             /* packets still to stamp with top_now_ns (the burst path steps it too) */
	uint64_t top_now_ns;           /* the last reading, ns */
};

/* sched_init() - configure @s from @cfg to use @clk; nothing is due until sched_start(). */
void sched_init(struct sched *s, const struct sched_cfg *cfg, struct clock *clk);

/*
 * sched_calibrate() - waiter_calibrate() of the scheduler's waiter.  Call
 * after the real-time set-up and before sched_start().  0 or -EINTR.
 */
int sched_calibrate(struct sched *s);

/*
 * sched_wake_margin() - the hybrid waiter's margin on @clk, measured as
 * sched_calibrate() measures it (about 60 ms): how long before a deadline
 * a sleep must end so that the spin catches the deadline, in *@margin_ns,
 * and the shortest sleep worth taking, in *@sleep_min_ns.  For a loop that
 * waits on its own (the bridge's ppoll()).  0 or -EINTR.
 */
int sched_wake_margin(struct clock *clk, uint64_t *margin_ns, uint64_t *sleep_min_ns);

/* sched_start() - the first packet of the run is due now; returns now, ns. */
uint64_t sched_start(struct sched *s);

/*
 * sched_start_from() - as sched_start(), but the first packet is due at
 * @origin_ns on the run clock, which may be before @now_ns (the run clock's
 * time now): the schedule is anchored to an instant that already passed.
 */
void sched_start_from(struct sched *s, uint64_t origin_ns, uint64_t now_ns);

/*
 * --start-at (src/sched/start.c).  Times are readings of a wall clock, ns
 * since 1970-01-01T00:00:00 of that clock, leap seconds left out as POSIX
 * leaves them out.
 *
 * sched_time_parse() - RFC 3339 "2026-11-25T23:10:00.123456789Z" (1 to 9
 * digits of fraction, or none; Z or an offset +HH:MM / -HH:MM; T, t or a
 * space between date and time) or "@SECONDS[.FRACTION]" since the epoch,
 * into *@ns.  0, or -EINVAL with the reason in *@why.
 */
int sched_time_parse(const char *s, uint64_t *ns, const char **why);

/* sched_time_format() - @t_ns as "YYYY-MM-DDTHH:MM:SS.NNNNNNNNNZ" in @buf; returns @buf. */
char *sched_time_format(uint64_t t_ns, char *buf, size_t len);

/* sched_parse_instant() - option parser (OPT_FUNC): a struct sched_instant by sched_time_parse(). */
int sched_parse_instant(void *field, const char *arg, char *err, size_t errlen);

/* The names of the clocks, for --clock and the summary. */
extern const struct opt_enum sched_clock_choices[];

/* clock_wall() - CLOCK_REALTIME or CLOCK_TAI as a struct clock (sleeps absolute, spins); shared. */
struct clock *clock_wall(enum sched_clock which);

/*
 * sched_start_at() - wait on @wall until it reads @at_ns: sleep (absolute,
 * on @wall itself, so a step of that clock moves the wake-up with it) to
 * @spin_ns before, then spin the rest; then start the schedule with its
 * origin at the run clock's image of @at_ns (sched_start_from()).  Fills
 * @rep's at_ns, woke_ns, origin_ns.  0; -ETIME if @wall already reads
 * @at_ns or later when called (rep->late_by_ns says by how much; nothing
 * started); -EINTR when *@stop is set during the wait (nothing started).
 */
int sched_start_at(struct sched *s, struct clock *wall, uint64_t at_ns, uint64_t spin_ns,
		   const volatile sig_atomic_t *stop, struct sched_start_report *rep);

/*
 * sched_segment() - the next packet starts a new segment (next file, next
 * loop pass), due @gap_ns after the previous packet's deadline (TRACE), or
 * @gap_ns later than the rate alone would have it (PPS, MBPS: the rate
 * carries on across segments).
 */
void sched_segment(struct sched *s, uint64_t gap_ns);

/*
 * sched_deadline() - absolute run-clock time @p is due, ns; also stored in
 * p->sched_ns.  Call exactly once per packet, in send order: PPS and MBPS
 * count packets and bytes here.  Timestamps earlier than the segment's first
 * are due at its origin (sent at once, in file order).  0 in topspeed mode:
 * never wait; p->sched_ns is then the run clock's time (read once per
 * sched_top_clock_every() packets).
 */
static inline uint64_t sched_deadline(struct sched *s, struct pkt *p);
/* sched_deadline_timed() - sched_deadline()'s work for every mode but the top-speed one it inlines. */
uint64_t sched_deadline_timed(struct sched *s, struct pkt *p);

/*
 * sched_skip() - @p, a packet another sender sends (--threads), takes its
 * place in the schedule as sched_deadline() would place it -- PPS counts
 * it, MBPS its bytes, it may start a segment -- but its deadline is not
 * wanted: in PPS and MBPS modes it is not computed (a 128-bit division)
 * and p->sched_ns is not set.  Every deadline after it is the one it would
 * be had sched_deadline() been called on @p.
 */
void sched_skip(struct sched *s, struct pkt *p);

/*
 * sched_wait() - wait for @deadline_ns with the waiter, then apply the late
 * policy (sched_late()) to what it saw; 0 when reached, -EINTR on a signal.
 * Returns at once in topspeed mode.  Deadlines computed before a shift are
 * not moved: compute a packet's deadline just before waiting for it.
 */
int sched_wait(struct sched *s, uint64_t deadline_ns);

/*
 * sched_paced() - when to send a packet due at @deadline_ns: its deadline,
 * or later while the run is behind after a hiccup.  A packet that went late
 * by no more than the late threshold (a VM pause, an interrupt in the kick:
 * microseconds) is made up gradually where the gaps are short enough that
 * the waiter spins them (waiter_sleeps(): no sleep worth taking before its
 * margin, a wake-up-stall hold on, or --timer spin):
 * each following packet keeps at least (SCHED_CATCHUP_DIV - 1) /
 * SCHED_CATCHUP_DIV of its recorded gap to the one before as sent, until
 * the schedule is regained, instead of the packets behind going at once,
 * back to back.  The far side then sees one long gap and a few slightly
 * short ones, not a burst; the absolute schedule (the run's duration) is
 * kept.  Longer gaps are not paced: there the waiter sleeps, and a late
 * wake-up would carry over from one packet to the next.  Beyond the
 * threshold (a stall) the late policy acts as before.
 */
#define SCHED_CATCHUP_DIV 16
static inline uint64_t sched_paced(const struct sched *s, uint64_t deadline_ns)
{
	uint64_t gap, floor;

	if (likely(!s->behind_ns) || deadline_ns <= s->wait_dl_ns)
		return deadline_ns;
	gap = deadline_ns - s->wait_dl_ns;
	/* The paced wait is gap - gap / 16 long: paced only if the waiter spins it. */
	if (waiter_sleeps(&s->waiter, gap - gap / SCHED_CATCHUP_DIV, s->behind_ns))
		return deadline_ns;
	floor = s->behind_ns + gap - gap / SCHED_CATCHUP_DIV;
	return floor > deadline_ns ? floor : deadline_ns;
}

/*
 * sched_wait_paced() - sched_wait() for a packet due at @deadline_ns that is
 * sent at @target_ns (sched_paced()): waits for the target, judges lateness
 * against the deadline.
 */
int sched_wait_paced(struct sched *s, uint64_t deadline_ns, uint64_t target_ns);

/*
 * sched_hold() - sched_wait() in every mode, top speed too: a frame the
 * impairment holds is due at its impaired deadline on the run clock even
 * when the trace's own gaps are not kept.  At top speed no late policy
 * applies (there is no schedule to shift).  0 when reached, -EINTR on a
 * signal.
 */
int sched_hold(struct sched *s, uint64_t deadline_ns);

/*
 * sched_suspended() - the run was suspended for @paused_ns (SIGUSR1, and
 * SIGUSR1 again): every deadline not yet computed moves back by as much,
 * so the recorded gaps (or the rate) go on from where they were; a
 * deadline the caller already holds it moves itself.  Counted for the
 * report, whatever the late policy.
 */
void sched_suspended(struct sched *s, uint64_t paused_ns);

/*
 * sched_late() - the late policy, for a packet that went @late_ns after its
 * deadline (0 = on time).  Lateness beyond the threshold is a stall: the
 * packet is counted, and so is the stall once for a run of late packets;
 * under SCHED_LATE_SHIFT every later deadline moves back by the lateness
 * (the recorded gaps are kept), under SCHED_LATE_CATCHUP none moves (late
 * packets go at once until the schedule is caught up).  sched_wait() calls
 * it for every packet.
 */
void sched_late(struct sched *s, uint64_t late_ns);

/*
 * sched_note() - the caller was held up by @cause (WAIT_CAUSE_READ or
 * WAIT_CAUSE_BACKPRESSURE) since its last wait: if the next packet is found
 * late when its wait begins, that is the cause counted instead of the
 * loop's.  The note lasts until that wait.
 */
static inline void sched_note(struct sched *s, enum wait_cause cause)
{
	s->waiter.hint = cause;
}

/*
 * sched_report() - what the scheduler has to say about the run so far, into
 * @rep: the timer's name and margin, the late-policy counters, the guard's
 * sleeps.  For a run that waited for deadlines; a topspeed run has no report
 * (rep->timer stays NULL).
 */
void sched_report(const struct sched *s, struct sched_report *rep);

/*
 * sched_report_add() - another sender's report @s (--threads: each thread
 * schedules alone) added into @into: its counters summed, but for the
 * suspensions, which every thread had (the longest thread's are kept); the
 * timer, its margin and plan stay @into's (every thread runs on one
 * machine's timer).
 */
void sched_report_add(struct sched_report *into, const struct sched_report *s);

/*
 * sched_top_clock_every() - in TOPSPEED mode, stamp @n packets in a row
 * with one reading of the clock (p->sched_ns), instead of reading it for
 * each: a reading is ~20 instructions (vDSO) a packet, and at top speed
 * sched_ns only places a packet for --duration, the progress lines and the
 * loop passes, where a few dozen packets' worth of time (tens of us) is
 * below what they resolve.  Not for a method that writes sched_ns out (the
 * file method's timestamps): it keeps the default, 1.
 */
static inline void sched_top_clock_every(struct sched *s, unsigned n)
{
	s->top_every = n;
	s->top_left = 0;
}

/* sched_now() - the run clock's time, ns. */
static inline uint64_t sched_now(struct sched *s)
{
	return s->clk->now_ns(s->clk);
}

static inline uint64_t sched_deadline(struct sched *s, struct pkt *p)
{
	/* Top speed inline: it is every packet's, and a call's frame was most of its cost. */
	if (s->mode == SCHED_MODE_TOPSPEED) {
		if (s->top_left) {
			s->top_left--;
		} else {
			s->top_now_ns = sched_now(s);
			s->top_left = s->top_every > 1 ? s->top_every - 1 : 0;
		}
		p->sched_ns = s->top_now_ns;
		return 0;
	}
	return sched_deadline_timed(s, p);
}

/* sched_timer_name() / sched_late_name() - "hybrid", "catchup", ...; "?" if out of range. */
const char *sched_timer_name(enum sched_timer t);
const char *sched_late_name(enum sched_late l);

/*
 * Real-time set-up (src/sched/rt.c): the OS-facing half of accurate waiting.
 * Nothing here prints; what could not be done is explained in rt->warn[].
 */
struct rt_cfg {
	int priority;           /* SCHED_FIFO priority 1..99; 0 = stay SCHED_OTHER */
	int cpu;                /* pin to this CPU; -1 = no pinning */
	bool timer_slack;       /* timer slack to 1 ns (done for every timed run) */
	bool dma_latency;       /* hold /dev/cpu_dma_latency at 0 (done for every timed run) */
	enum sched_timer timer; /* for the throttling advice */
};

#define RT_WARN_MAX 4

struct rt {
	bool fifo;              /* SCHED_FIFO is in force */
	int priority;           /* its priority */
	uint32_t busy_max_permille; /* for sched_cfg: the busy share that stays clear of throttling; 0 = any */
	bool pinned;            /* the CPU affinity was set */
	bool locked;            /* memory is locked */
	bool slack_set;         /* timer slack is 1 ns */
	bool throttled;         /* the kernel limits real-time tasks' CPU share */
	long rt_runtime_us;     /* kernel.sched_rt_runtime_us; -1 = unlimited */
	long rt_period_us;      /* kernel.sched_rt_period_us */
	int dma_latency_fd;     /* /dev/cpu_dma_latency held at 0 until rt_release(); -1 = not held */
	int dma_latency_err;    /* why it could not be opened (errno), 0 if it was or was not asked */
	int nwarn;
	int fifo_warn;          /* 1 + the index in warn[] of the SCHED_FIFO refusal; 0 = none */
	char warn[RT_WARN_MAX][768]; /* one line each, without the program name */
};

/*
 * rt_setup() - apply @cfg to the calling thread (and, for memory, the
 * process): CPU affinity, SCHED_FIFO and, once that is in force, mlockall
 * of what is mapped now; timer slack.  Never fails: whatever is refused (no privilege, no such CPU) is
 * left undone and explained in @rt->warn, as is real-time throttling when it
 * applies.  Call before opening traces: locking happens for the pages mapped
 * at the time, so a trace mapped later is not pinned in RAM.
 */
void rt_setup(struct rt *rt, const struct rt_cfg *cfg);

/*
 * rt_release() - give back what rt_setup() holds for the run: the
 * /dev/cpu_dma_latency request (the CPU may again idle as deeply as it
 * likes).  Safe on a zeroed or already released @rt.
 */
void rt_release(struct rt *rt);

/*
 * rt_set_fifo() - sched_cfg.set_fifo for a struct rt (@ctx) that is
 * SCHED_FIFO: put the calling thread back at rt->priority under SCHED_FIFO
 * (@fifo) or at normal priority under SCHED_OTHER.  0 or -errno.
 */
int rt_set_fifo(void *ctx, bool fifo);

#endif
