// SPDX-License-Identifier: BSD-2-Clause
/*
 * --start-at: the instant a run starts, read from the command line and
 * waited for on a wall clock (CLOCK_REALTIME or CLOCK_TAI), then handed to
 * the absolute schedule on the run clock (CLOCK_MONOTONIC).
 *
 * Times are counted as POSIX counts them: every day is 86400 s, leap
 * seconds do not exist (a reading of CLOCK_REALTIME, and of CLOCK_TAI,
 * which differs from it by the kernel's TAI offset only).  The calendar
 * arithmetic is the proleptic Gregorian day count of Hinnant,
 * "chrono-Compatible Low-Level Date Algorithms" (2013), in integers, so
 * it is exact for every date the parser accepts (years 1970 to 9999).
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "replay/compiler.h"
#include "replay/sched.h"

const struct opt_enum sched_clock_choices[] = {
	{ "realtime", SCHED_CLOCK_REALTIME },
	{ "tai", SCHED_CLOCK_TAI },
	{ NULL, 0 },
};

/* Days from 1970-01-01 to @y-@m-@d (proleptic Gregorian; Hinnant 2013, days_from_civil). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	int64_t era;
	unsigned yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* The inverse: the date of day @z since 1970-01-01 (Hinnant 2013, civil_from_days). */
static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	int64_t era;
	unsigned doe, yoe, doy, mp;

	z += 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = (unsigned)(z - era * 146097);
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static bool leap_year(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static unsigned month_days(int64_t y, unsigned m)
{
	static const unsigned days[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	return m == 2 && leap_year(y) ? 29 : days[m - 1];
}

/* Exactly @n decimal digits at *@p into *@v; advances *@p.  false if fewer. */
static bool digits(const char **p, unsigned n, unsigned *v)
{
	*v = 0;
	for (unsigned i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return false;
		*v = *v * 10 + (unsigned)((*p)[i] - '0');
	}
	*p += n;
	return true;
}

/* ".F" with 1 to 9 digits at *@p (if any) into ns; advances *@p.  false with @why set on error. */
static bool fraction(const char **p, uint64_t *ns, const char **why)
{
	unsigned n = 0;

	*ns = 0;
	if (**p != '.')
		return true;
	(*p)++;
	while (isdigit((unsigned char)**p)) {
		if (++n > 9) {
			*why = "more than 9 digits after the point (nanoseconds are the finest)";
			return false;
		}
		*ns = *ns * 10 + (uint64_t)(**p - '0');
		(*p)++;
	}
	if (!n) {
		*why = "no digits after the point";
		return false;
	}
	for (; n < 9; n++)
		*ns *= 10;
	return true;
}

/* "@SECONDS[.FRACTION]" (the '@' already skipped). */
static int parse_epoch(const char *p, uint64_t *out, const char **why)
{
	uint64_t sec = 0, ns;

	if (!isdigit((unsigned char)*p)) {
		*why = "expected seconds since the epoch after '@' (digits, no sign)";
		return -EINVAL;
	}
	while (isdigit((unsigned char)*p)) {
		/* The latest instant a uint64_t of ns holds: 18446744073 s. */
		if (sec > (UINT64_MAX / NSEC_PER_SEC - 9) / 10) {
			*why = "seconds out of range";
			return -EINVAL;
		}
		sec = sec * 10 + (uint64_t)(*p++ - '0');
	}
	if (!fraction(&p, &ns, why))
		return -EINVAL;
	if (*p) {
		*why = "unexpected text after the seconds";
		return -EINVAL;
	}
	*out = sec * NSEC_PER_SEC + ns;
	return 0;
}

int sched_time_parse(const char *s, uint64_t *out, const char **why)
{
	const char *p = s;
	unsigned year, mon, day, hh, mm, ss, oh = 0, om = 0;
	uint64_t ns;
	int64_t days, sec, off = 0;

	*why = NULL;
	if (*p == '@')
		return parse_epoch(p + 1, out, why);
	if (!digits(&p, 4, &year) || *p++ != '-' || !digits(&p, 2, &mon) || *p++ != '-' ||
	    !digits(&p, 2, &day)) {
		*why = "expected YYYY-MM-DDTHH:MM:SS[.FRACTION](Z|+HH:MM|-HH:MM) or @SECONDS[.FRACTION]";
		return -EINVAL;
	}
	/* RFC 3339 section 5.6 allows a space (or lower-case t) for readability. */
	if (*p != 'T' && *p != 't' && *p != ' ') {
		*why = "expected 'T' between the date and the time";
		return -EINVAL;
	}
	p++;
	if (!digits(&p, 2, &hh) || *p++ != ':' || !digits(&p, 2, &mm) || *p++ != ':' || !digits(&p, 2, &ss)) {
		*why = "expected the time as HH:MM:SS";
		return -EINVAL;
	}
	if (!fraction(&p, &ns, why))
		return -EINVAL;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int sign = *p++ == '-' ? -1 : 1;

		if (!digits(&p, 2, &oh) || *p++ != ':' || !digits(&p, 2, &om)) {
			*why = "expected the offset as +HH:MM or -HH:MM";
			return -EINVAL;
		}
		if (oh > 23 || om > 59) {
			*why = "offset out of range (at most 23:59)";
			return -EINVAL;
		}
		off = sign * (int64_t)(oh * 3600 + om * 60);
	} else {
		*why = "expected a time zone: Z, +HH:MM or -HH:MM";
		return -EINVAL;
	}
	if (*p) {
		*why = "unexpected text after the time zone";
		return -EINVAL;
	}
	if (year < 1970) {
		*why = "before 1970 (the clocks count from 1970-01-01)";
		return -EINVAL;
	}
	if (mon < 1 || mon > 12 || day < 1 || day > month_days(year, mon)) {
		*why = "no such date";
		return -EINVAL;
	}
	if (ss == 60) {
		*why = "second 60 (a leap second) has no reading of CLOCK_REALTIME or CLOCK_TAI of its own";
		return -EINVAL;
	}
	if (hh > 23 || mm > 59 || ss > 59) {
		*why = "no such time of day";
		return -EINVAL;
	}
	days = days_from_civil(year, mon, day);
	/* The local time minus its offset is UTC. */
	sec = days * 86400 + (int64_t)(hh * 3600 + mm * 60 + ss) - off;
	if (sec < 0) {
		*why = "before 1970-01-01T00:00:00Z";
		return -EINVAL;
	}
	if ((uint64_t)sec >= UINT64_MAX / NSEC_PER_SEC) {
		*why = "after 2554-07-21 (beyond 64 bits of nanoseconds)";
		return -EINVAL;
	}
	*out = (uint64_t)sec * NSEC_PER_SEC + ns;
	return 0;
}

char *sched_time_format(uint64_t t_ns, char *buf, size_t len)
{
	uint64_t sec = t_ns / NSEC_PER_SEC;
	int64_t y;
	unsigned m, d, s = (unsigned)(sec % 86400);

	civil_from_days((int64_t)(sec / 86400), &y, &m, &d);
	snprintf(buf, len, "%04lld-%02u-%02uT%02u:%02u:%02u.%09lluZ", (long long)y, m, d, s / 3600,
		 s / 60 % 60, s % 60, (unsigned long long)(t_ns % NSEC_PER_SEC));
	return buf;
}

int sched_parse_instant(void *field, const char *arg, char *err, size_t errlen)
{
	struct sched_instant *in = field;
	const char *why;

	if (sched_time_parse(arg, &in->ns, &why) == 0) {
		in->set = true;
		return 0;
	}
	snprintf(err, errlen, "'%s' is not a time: %s", arg, why);
	return -EINVAL;
}

int sched_start_at(struct sched *s, struct clock *wall, uint64_t at_ns, uint64_t spin_ns,
		   const volatile sig_atomic_t *stop, struct sched_start_report *rep)
{
	uint64_t now = wall->now_ns(wall), m1, m2, w, mid, origin;
	int rc;

	rep->at_ns = at_ns;
	if (now >= at_ns) {
		rep->late_by_ns = now - at_ns;
		return -ETIME;
	}
	/*
	 * Sleep on the wall clock itself, to an absolute reading: a step of
	 * the clock during the wait (the first sync of ptp4l or chronyd) moves
	 * the wake-up with it, as an interval on CLOCK_MONOTONIC would not.
	 */
	for (;;) {
		now = wall->now_ns(wall);
		if (now + spin_ns >= at_ns)
			break;
		rc = wall->sleep_until_ns(wall, at_ns - spin_ns);
		if (rc == -EINTR && stop && *stop)
			return -EINTR;
	}
	if (wall->spin_until_ns) {
		rc = wall->spin_until_ns(wall, at_ns, stop);
	} else {
		do
			rc = wall->sleep_until_ns(wall, at_ns);
		while (rc == -EINTR && !(stop && *stop));
	}
	if (rc == -EINTR && stop && *stop)
		return -EINTR;
	/* The run clock's reading at the wall clock's: the middle of two reads around it. */
	m1 = sched_now(s);
	w = wall->now_ns(wall);
	m2 = sched_now(s);
	mid = m1 + (m2 - m1) / 2;
	/* The requested instant on the run clock: the schedule counts from there. */
	origin = w >= at_ns ? mid - (w - at_ns) : mid + (at_ns - w);
	rep->woke_ns = w;
	rep->origin_ns = origin;
	sched_start_from(s, origin, m2);
	return 0;
}

/* A wall clock: clock_gettime, clock_nanosleep(TIMER_ABSTIME) and a spin on one clock id. */
struct clock_wall {
	struct clock clk; /* first: passed as struct clock * */
	clockid_t id;
};

static uint64_t wall_now_ns(struct clock *c)
{
	struct timespec ts;

	clock_gettime(((struct clock_wall *)c)->id, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static int wall_sleep_until_ns(struct clock *c, uint64_t deadline_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline_ns / NSEC_PER_SEC),
		.tv_nsec = (long)(deadline_ns % NSEC_PER_SEC),
	};
	int rc = clock_nanosleep(((struct clock_wall *)c)->id, TIMER_ABSTIME, &ts, NULL);

	return rc ? -rc : 0;
}

static int wall_spin_until_ns(struct clock *c, uint64_t deadline_ns, const volatile sig_atomic_t *stop)
{
	uint64_t now;

	while ((now = wall_now_ns(c)) < deadline_ns)
		if (stop && *stop)
			return -EINTR;
	return now - deadline_ns > INT_MAX ? INT_MAX : (int)(now - deadline_ns);
}

static struct clock_wall walls[SCHED_CLOCK_MAX] = {
	[SCHED_CLOCK_REALTIME] = { { wall_now_ns, wall_sleep_until_ns, wall_spin_until_ns }, CLOCK_REALTIME },
	[SCHED_CLOCK_TAI] = { { wall_now_ns, wall_sleep_until_ns, wall_spin_until_ns }, CLOCK_TAI },
};

struct clock *clock_wall(enum sched_clock which)
{
	return &walls[which < SCHED_CLOCK_MAX ? which : SCHED_CLOCK_REALTIME].clk;
}
