/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The scheduler: when each packet is due, waiting for it, and the real-time
 * set-up that makes the waiting accurate.  Two halves with two reasons to
 * change: the schedule (src/sched/sched.c) is exact arithmetic and policy,
 * the waiter (src/sched/wait.c) is measurement and the machine.
 *
 * The schedule.  Every deadline is absolute -- origin + f(progress) on the
 * run clock -- so per-packet lateness never accumulates into drift, however
 * long the run (tcpreplay 4.4's relative sleeps drift by up to 30 %: Lange,
 * "Analyse und Performancetests von Paket Replay Programmen", 2004).  f() is
 * exact integer arithmetic on the packet's trace time, its index or the
 * bytes sent before it, never a sum of rounded gaps, so the billionth
 * deadline is as exact as the first.  A run is cut into segments: each pass
 * over each file starts a new one, whose origin is the previous deadline
 * (plus any gap asked for) and whose ts0 is the first timestamp of the
 * segment.  What happens to a packet found late is the late policy
 * (sched_late()), applied to what the waiter measured.
 *
 * The waiter (Feng, Bezzaz, Feng and Walpole, "NetVCR: a high-performance
 * packet replay engine", 2002: sleep for efficiency, poll for accuracy):
 * sleep on an absolute deadline to within a margin of it, then spin on the
 * clock for the rest.  The margin is the timer's wake-up lateness, measured
 * at start-up by a short probe under the scheduling policy in use
 * (sched_calibrate()) and kept up to date from every sleep.  Under the
 * kernel's real-time throttle it plans the idle time the throttle needs
 * into the schedule's own long gaps (src/sched/wait.c says how).
 */
#ifndef REPLAY_SCHED_H
#define REPLAY_SCHED_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "optparse.h"
#include "pkt.h"
#include "sched_report.h"

/*
 * struct clock - the run clock, injectable so that unit tests drive the
 * scheduler with a fake and the file method runs in virtual time.
 */
struct clock {
	/* now_ns() - current time, ns, monotonic. */
	uint64_t (*now_ns)(struct clock *c);
	/*
	 * sleep_until_ns() - return at or after @deadline_ns; 0, or -EINTR if
	 * a signal arrived first (the caller decides whether to go on).
	 */
	int (*sleep_until_ns)(struct clock *c, uint64_t deadline_ns);
	/*
	 * spin_until_ns() - busy-wait, without giving up the CPU, until
	 * @deadline_ns; how far past it the last clock read of the spin was, ns
	 * (>= 0, at most INT_MAX: a pause of the CPU during the spin shows
	 * here), or -EINTR as soon as *@stop (may be NULL) is set.  May be
	 * NULL: the scheduler then sleeps instead.
	 */
	int (*spin_until_ns)(struct clock *c, uint64_t deadline_ns, const volatile sig_atomic_t *stop);
	/*
	 * run_delay_ns() - the calling thread's total time runnable but
	 * waiting for a CPU (the run queue), ns, or UINT64_MAX if unknown.
	 * Tells a late wake-up that a spin would have beaten (the timer or the
	 * hypervisor woke us late) from one that it would not (others had the
	 * CPU).  May be NULL: unknown.
	 */
	uint64_t (*run_delay_ns)(struct clock *c);
	/*
	 * cpu_pressure_ns() - the machine's total time with some task
	 * runnable but waiting for a CPU (PSI's cpu "some" total), ns, or
	 * UINT64_MAX if unknown.  Tells whether a thread leaving SCHED_FIFO
	 * would have to share its CPU.  May be NULL: unknown.
	 */
	uint64_t (*cpu_pressure_ns)(struct clock *c);
};

/* clock_monotonic() - CLOCK_MONOTONIC with clock_nanosleep(TIMER_ABSTIME); a shared instance. */
struct clock *clock_monotonic(void);

/*
 * struct clock_virtual - CLOCK_MONOTONIC plus the time skipped by sleeping:
 * sleep_until_ns() and spin_until_ns() return at once and move the clock
 * forward instead.  A dry run (-w) thus computes the exact schedule in no
 * time, and a --topspeed dry run still measures real elapsed time.
 */
struct clock_virtual {
	struct clock clk;    /* must be first: passed as struct clock * */
	uint64_t skipped_ns; /* total time jumped over, ns */
};

/* clock_virtual_init() - set up @v; use &v->clk as the clock. */
void clock_virtual_init(struct clock_virtual *v);

enum sched_mode {
	SCHED_MODE_TRACE,    /* the trace's own timing, scaled by cfg.speed */
	SCHED_MODE_TOPSPEED, /* as fast as the method takes them */
	SCHED_MODE_PPS,      /* cfg.rate packets per second */
	SCHED_MODE_MBPS,     /* cfg.rate megabits (10^6 bits) per second */
	SCHED_MODE_MAX
};

/* How a deadline is waited for. */
enum sched_timer {
	SCHED_TIMER_HYBRID, /* sleep to deadline - margin, spin the rest (default) */
	SCHED_TIMER_SLEEP,  /* clock_nanosleep to the deadline: least CPU, timer-late */
	SCHED_TIMER_SPIN,   /* spin on the clock all the way: most accurate, a whole core */
	SCHED_TIMER_MAX
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

/*
 * The waiter (src/sched/wait.c): waits for an absolute deadline with the
 * configured timer and measures how well it did.  It knows nothing of
 * packets or of the schedule; the scheduler owns one and hands it each
 * deadline (sched_wait()).
 */

/* Wake-up lateness samples between two updates of the adaptive margin. */
#define WAITER_WINDOW 128u
/* The lateness histogram: WAITER_LATE_BUCKETS buckets of WAITER_LATE_STEP_NS each. */
#define WAITER_LATE_BUCKETS 160u
#define WAITER_LATE_STEP_NS 2000u
/* The schedule's gaps, by powers of two: bucket b holds gaps in [2^b, 2^(b+1)) ns. */
#define WAITER_GAP_BUCKETS 40u

/* Why a wait ended after its deadline (the cause of a late packet). */
enum wait_cause {
	WAIT_CAUSE_NONE,  /* on time */
	WAIT_CAUSE_TIMER, /* a sleep woke later than the margin covered (timer lateness) */
	WAIT_CAUSE_PLAN,  /* a planned sleep: idle time the real-time throttle needs */
	WAIT_CAUSE_SPIN,  /* the CPU was taken away during the spin (VM or preemption pause) */
	WAIT_CAUSE_LOOP,  /* already late when asked: the loop (edits, sends, what the loop did not name) */
	WAIT_CAUSE_READ,  /* already late when asked, after a slow trace read (page fault, I/O, a pipe) */
	WAIT_CAUSE_BACKPRESSURE, /* already late when asked, after the method pushed back (queue full) */
	WAIT_CAUSE_MAX
};

struct waiter {
	enum sched_timer timer;
	struct clock *clk;
	const volatile sig_atomic_t *stop; /* ends a spin early when set (may be NULL) */
	bool adaptive;                 /* the margin follows measured wake-up lateness */
	uint64_t margin_ns;            /* hybrid: sleep to deadline minus this, spin the rest, ns */
	uint64_t sleep_min_ns;         /* hybrid: sleep only if that leaves a sleep this long, ns */
	/* the adaptive margin: the current window, and a decaying histogram of all */
	uint32_t win_n;                /* samples in the window */
	uint64_t win_max1, win_max2;   /* the window's largest and second largest, ns */
	uint32_t late_hist[WAITER_LATE_BUCKETS]; /* samples (x16, decaying) per 2 us of lateness */
	uint32_t late_samples;         /* samples since the histogram last decayed */
	/* counters, for the summary */
	uint64_t sleeps;               /* sleeps taken */
	uint64_t sleep_overshoots;     /* sleeps that woke after the deadline itself (margin too small) */
	uint64_t spin_pauses;          /* spins that ended later than SPIN_PAUSE_NS (wait.c) */
	uint64_t calib_lateness_ns;    /* waiter_calibrate(): the probe's p99 wake-up lateness, ns */
	enum wait_cause cause;         /* why the last wait ended late; NONE if on time */
	enum wait_cause hint;          /* sched_note(): what held the loop up since the last wait */
	/* the plan under real-time throttling (sched_cfg.busy_max_permille) */
	uint32_t busy_max_permille;
	int64_t owed_ns;               /* idle owed to the throttle, ns; < 0 = credit */
	uint64_t owed_at_ns;           /* run-clock time owed_ns was brought up to date, ns */
	uint64_t prev_deadline_ns;     /* the previous deadline: the schedule's gaps, ns */
	uint64_t gap_tick_ns;          /* deadline at which the gap statistics last moved on, ns */
	uint64_t gap_cnt[WAITER_GAP_BUCKETS]; /* gaps seen (x1024, decaying) per bucket */
	uint64_t gap_sum_ns[WAITER_GAP_BUCKETS]; /* their total length (decaying), ns */
	uint64_t plan_gap_ns;          /* owed idle is slept in gaps at least this long, ns; 0 = none */
	bool plan_whole;               /* those gaps pay the whole idle share */
	uint64_t guard_sleeps;         /* planned sleeps (naps in gaps and chunks) */
	uint64_t plan_chunks;          /* of them, chunks: sleeps with no gap to put them in */
	uint64_t plan_delays;          /* planned sleeps that woke after the deadline */
	int (*set_fifo)(void *ctx, bool fifo); /* sched_cfg.set_fifo; NULL = chunks */
	void *set_fifo_ctx;
	bool demoted;                  /* running at normal priority to pay the throttle */
	uint64_t demoted_at_ns;        /* since when, ns */
	uint64_t demotions;            /* switches to normal priority */
	uint64_t demoted_ns;           /* time spent at normal priority, ns (closed spells) */
	uint64_t demote_rq0_ns;        /* the run-queue wait when the spell began, ns (UINT64_MAX: unknown) */
	uint64_t demote_costly;        /* spells that waited in the run queue (the CPU was contested) */
	uint64_t demote_backoff_ns;    /* after a costly spell, no demotion for this long (doubles), ns */
	uint64_t demote_block_until_ns; /* until then, the debt is paid by naps and chunks, ns */
	uint64_t press_ns;             /* the CPU pressure when last read (UINT64_MAX: unknown), ns */
	uint64_t press_at_ns;          /* when, ns */
	bool contested;                /* it grew by more than 1/8 of the time since: others wait for CPUs */
	uint64_t contested_skips;      /* demotions not made because the CPUs were contested */
	/* wake-up stalls: sleeps that woke far later than any margin, with the CPU free (wait.c) */
	uint64_t wake_stalls;          /* such sleeps */
	uint64_t hold_until_ns;        /* until then no sleeps: spin through the gaps, ns */
	uint64_t hold_len_ns;          /* the current hold's length (doubles while stalls recur), ns */
	uint64_t hold_start_ns;        /* when the current (or last) hold began, ns */
	uint64_t hold_total_ns;        /* time held in holds before the current one, ns */
	uint64_t seen_ns;              /* the clock at the last waiter_until(), ns */
};

/*
 * waiter_init() - configure @w from the waiting half of @cfg (timer,
 * spin_fixed, spin_ns, stop, busy_max_permille) to wait on @clk.  Until
 * waiter_calibrate() measures, an adaptive hybrid margin is 0: a plain sleep.
 */
void waiter_init(struct waiter *w, const struct sched_cfg *cfg, struct clock *clk);

/*
 * waiter_sleeps() - would a wait of @wait_ns begun at @now_ns sleep (rather
 * than spin all the way)?  Hybrid: if it leaves a sleep of at least the
 * shortest worth taking before the margin, and no wake-up-stall hold is on;
 * --timer sleep: always; --timer spin: never.  waiter_until() decides by it.
 */
static inline bool waiter_sleeps(const struct waiter *w, uint64_t wait_ns, uint64_t now_ns)
{
	uint64_t margin = w->timer == SCHED_TIMER_HYBRID ? w->margin_ns : 0;

	return w->timer != SCHED_TIMER_SPIN && wait_ns > margin + w->sleep_min_ns &&
	       now_ns >= w->hold_until_ns;
}

/*
 * waiter_calibrate() - measure how late the clock's sleeps wake, with a
 * short probe (about 60 ms) under the calling thread's current scheduling
 * policy, and set the hybrid margin from it.  Does nothing unless the timer
 * is hybrid and the margin is not fixed.  Returns 0, or -EINTR if a signal
 * cut the probe short (the margin is then set from what was measured).
 */
int waiter_calibrate(struct waiter *w);

/* waiter_held_ns() - how long the waiter has held (spun through its gaps after wake-up stalls), ns. */
uint64_t waiter_held_ns(const struct waiter *w);

/* waiter_start() - the run starts at @now_ns: the real-time plan starts with nothing owed. */
void waiter_start(struct waiter *w, uint64_t now_ns);

/*
 * waiter_until() - wait for @deadline_ns with the configured timer.  Returns
 * how far past the deadline the waiter saw the clock when it returned, ns
 * (>= 0; a run clock stays below 2^63 ns), or -EINTR on a signal (a sleep
 * interrupted, or *stop set during a spin).  A spin reports its own last
 * clock read; a sleep to the deadline itself returns 0 (the clock is not
 * read again, which would cost every packet a clock read).  w->cause says
 * why a wait ended late.  Call once per packet, deadlines in send order:
 * the gaps between them are what the real-time plan is made from.
 */
int64_t waiter_until(struct waiter *w, uint64_t deadline_ns);

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
	uint64_t late_cause[WAIT_CAUSE_MAX]; /* late_packets by the cause the waiter saw */
	enum wait_cause stall_cause;   /* the cause of the current run of late packets */
	/* TOPSPEED: p->sched_ns is one clock reading shared by this many packets (sched_top_clock_every()) */
	unsigned top_every;            /* packets per clock reading; 0 or 1 = a reading per packet */
	unsigned top_left;             /* packets still to stamp with top_now_ns */
	uint64_t top_now_ns;           /* the last reading, ns */
};

/* sched_init() - configure @s from @cfg to use @clk; nothing is due until sched_start(). */
void sched_init(struct sched *s, const struct sched_cfg *cfg, struct clock *clk);

/*
 * sched_calibrate() - waiter_calibrate() of the scheduler's waiter.  Call
 * after the real-time set-up and before sched_start().  0 or -EINTR.
 */
int sched_calibrate(struct sched *s);

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
 * kept.  Measured at 10-70 us gaps over veth (BENCHMARKS.md, stop 30): the
 * far side's inter-arrival p99 fell 1.7-2.6x.  Longer gaps are not paced:
 * there the waiter sleeps, and a late wake-up would carry over from one
 * packet to the next (measured: a whole gap late at p99.9).  Beyond the
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
 * schedules alone) added into @into: its counters summed; the timer, its
 * margin and plan stay @into's (every thread runs on one machine's timer).
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
