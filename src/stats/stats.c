// SPDX-License-Identifier: BSD-2-Clause
/* Run counters and their summaries: human (tcpreplay's shape) and JSON. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay/compiler.h"
#include "replay/json.h"
#include "replay/stats.h"

void stats_init(struct stats *s)
{
	memset(s, 0, sizeof(*s));
	hist_init(&s->send_err);
}

void stats_free(struct stats *s)
{
	free(s->passes);
	s->passes = NULL;
	s->npasses = s->passes_cap = 0;
}

static void hist_merge(struct hist *into, const struct hist *h)
{
	if (!h->count)
		return;
	if (!into->count || h->min < into->min)
		into->min = h->min;
	if (h->max > into->max)
		into->max = h->max;
	into->count += h->count;
	into->sum += h->sum;
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		into->bucket[i] += h->bucket[i];
}

static void lane_add(struct stats_lane *into, const struct stats_lane *from)
{
	into->read += from->read;
	into->sent += from->sent;
	into->failed += from->failed;
	into->retried += from->retried;
	into->filtered += from->filtered;
	into->bytes_sent += from->bytes_sent;
	into->impair_dropped += from->impair_dropped;
	into->impair_copies += from->impair_copies;
	into->segmented += from->segmented;
	into->segments += from->segments;
	into->gso_frames += from->gso_frames;
	into->gso_segments += from->gso_segments;
	into->not_ip += from->not_ip;
}

void stats_add(struct stats *into, const struct stats *s)
{
	into->read += s->read;
	into->sent += s->sent;
	into->failed += s->failed;
	into->retried += s->retried;
	into->filtered += s->filtered;
	into->bytes_sent += s->bytes_sent;
	into->early += s->early;
	into->impair_dropped += s->impair_dropped;
	into->impair_qdropped += s->impair_qdropped;
	into->impair_copies += s->impair_copies;
	into->segmented += s->segmented;
	into->segments += s->segments;
	into->gso_frames += s->gso_frames;
	into->gso_segments += s->gso_segments;
	into->not_ip += s->not_ip;
	for (unsigned l = 0; l < into->nlanes && l < s->nlanes; l++)
		lane_add(&into->lane[l], &s->lane[l]);
	if (s->end_ns > into->end_ns)
		into->end_ns = s->end_ns;
	hist_merge(&into->send_err, &s->send_err);
	flow_counts_add(&into->flows, &s->flows);
	if (s->start.sent && (!into->start.sent || s->start.first_send_ns < into->start.first_send_ns)) {
		into->start.sent = true;
		into->start.first_send_ns = s->start.first_send_ns;
		into->start.error_ns = s->start.error_ns;
	}
}

void stats_pass_begin(struct stats *s, uint64_t now_ns, const struct stats_counts *c)
{
	if (!s->passes_on)
		return;
	s->pass_no++;
	s->pass_open = true;
	/* Past the cap the last record takes in this pass too: its mark and histogram go on. */
	if (s->npasses >= STATS_PASSES_MAX)
		return;
	s->pass_mark = *c;
	s->pass_flows = s->flows;
	s->pass_start_ns = now_ns;
	if (s->pass_err.count)
		hist_init(&s->pass_err);
}

/* @b minus @a, field by field (counters only grow). */
#define DIFF(f) (b->f - a->f)

static void flows_diff(struct flow_counts *d, const struct flow_counts *a, const struct flow_counts *b)
{
	*d = (struct flow_counts){ .enabled = b->enabled, .expiry_s = b->expiry_s,
				   .flows = DIFF(flows), .unique = DIFF(unique), .expired = DIFF(expired),
				   .flow_packets = DIFF(flow_packets), .non_flow = DIFF(non_flow),
				   .invalid = DIFF(invalid), .untracked = DIFF(untracked) };
}

static void counts_diff(struct stats_counts *d, const struct stats_counts *a, const struct stats_counts *b)
{
	*d = (struct stats_counts){ .read = DIFF(read), .sent = DIFF(sent), .failed = DIFF(failed),
				    .retried = DIFF(retried), .filtered = DIFF(filtered),
				    .bytes_sent = DIFF(bytes_sent), .impair_dropped = DIFF(impair_dropped),
				    .impair_copies = DIFF(impair_copies), .segmented = DIFF(segmented),
				    .segments = DIFF(segments) };
}

#undef DIFF

int stats_pass_end(struct stats *s, uint64_t now_ns, const struct stats_counts *c)
{
	const struct hist *h = &s->pass_err;
	struct stats_pass *p;

	if (!s->passes_on || !s->pass_open)
		return 0;
	s->pass_open = false;
	if (s->npasses < STATS_PASSES_MAX) {
		if (s->npasses == s->passes_cap) {
			size_t cap = s->passes_cap ? s->passes_cap * 2 : 16;
			struct stats_pass *n;

			if (cap > STATS_PASSES_MAX)
				cap = STATS_PASSES_MAX;
			n = realloc(s->passes, cap * sizeof(*n));
			if (!n) {
				s->passes_on = false;
				return -ENOMEM;
			}
			s->passes = n;
			s->passes_cap = cap;
		}
		p = &s->passes[s->npasses++];
		p->pass = s->pass_no;
	} else {
		/* The merged tail: rewritten from its own mark at each pass's end. */
		p = &s->passes[s->npasses - 1];
	}
	p->npasses = s->pass_no - p->pass + 1;
	counts_diff(&p->c, &s->pass_mark, c);
	p->in_flight_before = s->pass_mark.in_flight;
	p->in_flight_after = c->in_flight;
	p->start_ns = s->pass_start_ns;
	p->end_ns = now_ns > s->pass_start_ns ? now_ns : s->pass_start_ns;
	p->err_count = h->count;
	p->err_p50 = hist_pct(h, 0.5);
	p->err_p90 = hist_pct(h, 0.9);
	p->err_p99 = hist_pct(h, 0.99);
	p->err_p999 = hist_pct(h, 0.999);
	p->err_max = h->max;
	p->err_mean = hist_mean(h);
	flows_diff(&p->flows, &s->pass_flows, &s->flows);
	return 0;
}

double stats_pps(const struct stats *s)
{
	uint64_t ns = stats_elapsed_ns(s);

	return ns ? (double)s->sent * 1e9 / (double)ns : 0.0;
}

double stats_mbps(const struct stats *s)
{
	uint64_t ns = stats_elapsed_ns(s);

	return ns ? (double)s->bytes_sent * 8.0 * 1e3 / (double)ns : 0.0;
}

/* A duration in ns, printed with a unit a person reads at a glance. */
static void fmt_ns(char *buf, size_t len, uint64_t ns)
{
	if (ns < 10000)
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	else if (ns < 10000000)
		snprintf(buf, len, "%.1f us", (double)ns / 1e3);
	else
		snprintf(buf, len, "%.2f ms", (double)ns / 1e6);
}

/*
 * tcpreplay 4.6's "Flows:" line, in its words and its integer arithmetic;
 * like it, nothing when no flow was counted.  Ours adds a line when the
 * table was full.
 */
static void print_flows(const struct flow_counts *c, uint64_t ns, FILE *f)
{
	uint64_t fps = flow_fps_x100(c->flows, ns);

	if (!c->enabled || !c->flows)
		return;
	fprintf(f, "Flows: %llu flows, ", (unsigned long long)c->flows);
	if (c->expiry_s)
		fprintf(f, "%llu unique, %llu expired, ", (unsigned long long)c->unique,
			(unsigned long long)c->expired);
	fprintf(f, "%llu.%02u fps, %llu unique flow packets, %llu unique non-flow packets\n",
		(unsigned long long)(fps / 100), (unsigned)(fps % 100), (unsigned long long)c->flow_packets,
		(unsigned long long)c->non_flow);
	if (c->untracked)
		fprintf(f, "Flows: the flow table was full: %llu flow packets of flows not counted\n",
			(unsigned long long)c->untracked);
}

/* The method line, with one lane; with two, each side's method is on its own line (print_lanes()). */
static void print_method(const struct stats *s, FILE *f)
{
	if (s->nlanes > 1)
		return;
	if (s->method_mode && s->method_mode[0])
		fprintf(f, "Method: %s (%s) on %s\n", s->method ? s->method : "none", s->method_mode,
			s->dev ? s->dev : "-");
	else
		fprintf(f, "Method: %s on %s\n", s->method ? s->method : "none",
			s->dev ? s->dev : "-");
}

/* Where every packet went; with impairment, the identity that accounts for each. */
static void print_packets(const struct stats *s, FILE *f)
{
	fprintf(f, "Packets: read %llu, sent %llu, filtered %llu, failed %llu, retried %llu\n",
		(unsigned long long)s->read, (unsigned long long)s->sent,
		(unsigned long long)s->filtered, (unsigned long long)s->failed,
		(unsigned long long)s->retried);
	if (s->impaired)
		fprintf(f, "Accounting: read %llu + copies %llu = sent %llu + filtered %llu + failed %llu + "
			"impaired-dropped %llu (%llu for want of queue room)\n",
			(unsigned long long)s->read, (unsigned long long)s->impair_copies,
			(unsigned long long)s->sent, (unsigned long long)s->filtered,
			(unsigned long long)s->failed, (unsigned long long)s->impair_dropped,
			(unsigned long long)s->impair_qdropped);
	if (s->fragrouting && s->segmented)
		fprintf(f, "Fragroute: %llu frames through the rules became %llu, each sent or failed on its own\n",
			(unsigned long long)s->segmented, (unsigned long long)s->segments);
	else if (s->segmenting && s->segmented)
		fprintf(f, "Segmented: %llu frames longer than the MTU cut into %llu, each sent or failed on its own\n",
			(unsigned long long)s->segmented, (unsigned long long)s->segments);
	if (s->segmenting && s->gso_frames)
		fprintf(f, "GSO: %llu frames longer than the MTU handed to the kernel whole (each one packet sent), cut by it into %llu\n",
			(unsigned long long)s->gso_frames, (unsigned long long)s->gso_segments);
	if (s->not_ip)
		fprintf(f, "Layer 3: %llu frames failed for carrying no IP packet (ARP, LLDP...): the interface takes only IPv4 and IPv6\n",
			(unsigned long long)s->not_ip);
}

static void print_send_err(const struct stats *s, FILE *f)
{
	static const struct {
		const char *name;
		double q;
	} pct[] = { { "p50", 0.5 }, { "p90", 0.9 }, { "p99", 0.99 }, { "p99.9", 0.999 } };
	char v[32];

	if (!s->send_err.count)
		return;
	fprintf(f, "Send error (actual - scheduled):");
	for (size_t i = 0; i < ARRAY_SIZE(pct); i++) {
		fmt_ns(v, sizeof(v), hist_pct(&s->send_err, pct[i].q));
		fprintf(f, " %s %s,", pct[i].name, v);
	}
	fmt_ns(v, sizeof(v), s->send_err.max);
	fprintf(f, " max %s\n", v);
}

/* --start-at: the instant asked for, and how far from it the first packet went. */
static void print_start(const struct stats *s, FILE *f)
{
	char e[32];
	int64_t err = s->start.error_ns;

	if (!s->start.set)
		return;
	fprintf(f, "Start: --start-at %llu.%09llu on the %s clock; ", (unsigned long long)(s->start.at_ns / 1000000000u),
		(unsigned long long)(s->start.at_ns % 1000000000u), s->start.clock ? s->start.clock : "?");
	if (s->start.sent) {
		fmt_ns(e, sizeof(e), err < 0 ? (uint64_t)-err : (uint64_t)err);
		fprintf(f, "first packet sent %s%s after it (start error %lld ns)\n", err < 0 ? "-" : "", e,
			(long long)err);
	} else {
		fprintf(f, "no packet sent\n");
	}
}

/* The late packets of a timed run, by cause. */
static void print_late(const struct sched_report *r, FILE *f)
{
	char th[32], sh[32];

	fmt_ns(th, sizeof(th), r->late_threshold_ns);
	fmt_ns(sh, sizeof(sh), r->late_shifted_ns);
	fprintf(f, "; stalls (later than %s): %llu, %llu packets late", th,
		(unsigned long long)r->late_stalls, (unsigned long long)r->late_packets);
	if (r->late_shifted_ns)
		fprintf(f, ", schedule shifted by %s", sh);
	if (r->late_packets)
		fprintf(f, " (timer %llu, planned sleep %llu, spin pause %llu, trace read %llu, "
			   "back-pressure %llu, loop %llu)",
			(unsigned long long)r->late_timer, (unsigned long long)r->late_plan,
			(unsigned long long)r->late_spin, (unsigned long long)r->late_read,
			(unsigned long long)r->late_backpressure, (unsigned long long)r->late_loop);
}

/* The waiting plan's account: what the real-time throttle and the machine cost. */
static void print_plan(const struct sched_report *r, FILE *f)
{
	if (r->guard_sleeps)
		fprintf(f, "; %llu planned sleeps for real-time throttling (%llu with no gap to go in)",
			(unsigned long long)r->guard_sleeps, (unsigned long long)r->plan_chunks);
	if (r->plan_demotions)
		fprintf(f, "; %llu spells at normal priority for real-time throttling (%.1f ms, %llu on a contested CPU)",
			(unsigned long long)r->plan_demotions, (double)r->plan_demoted_ns / 1e6,
			(unsigned long long)r->plan_costly);
	if (r->plan_contested)
		fprintf(f, "; %llu debts slept off instead, the CPUs being contested",
			(unsigned long long)r->plan_contested);
	if (r->wake_stalls)
		fprintf(f, "; %llu wake-up stalls (a sleep woke > 300 us late with the CPU free): "
			   "spun through the gaps for %.1f s after them",
			(unsigned long long)r->wake_stalls, (double)r->wake_hold_ns / 1e9);
	if (r->plan[0])
		fprintf(f, "; plan: %s", r->plan);
}

/* SIGUSR1: how often the run was suspended, and for how long (the elapsed time includes it). */
static void print_suspended(const struct sched_report *r, FILE *f)
{
	if (!r->suspends)
		return;
	fprintf(f, "Suspended: %llu time%s by SIGUSR1, %.3f seconds in all (the schedule moved on by as much)\n",
		(unsigned long long)r->suspends, r->suspends == 1 ? "" : "s", (double)r->suspended_ns / 1e9);
}

/* A timed run's "Timing:" line: the timer, its lateness and its plan. */
static void print_timing(const struct sched_report *r, FILE *f)
{
	char m[32];

	if (!r->timer)
		return;
	fmt_ns(m, sizeof(m), r->spin_margin_ns);
	fprintf(f, "Timing: %s timer", r->timer);
	if (r->spin_margin_ns)
		fprintf(f, ", spin margin %s", m);
	print_late(r, f);
	print_plan(r, f);
	fputc('\n', f);
}

/* Two lanes: each side's method and account, one line each. */
static void print_lanes(const struct stats *s, FILE *f)
{
	for (unsigned i = 0; s->nlanes > 1 && i < s->nlanes; i++) {
		const struct stats_lane *l = &s->lane[i];

		fprintf(f, "%s: %s", l->name, l->method ? l->method : "none");
		if (l->method_mode && l->method_mode[0])
			fprintf(f, " (%s)", l->method_mode);
		fprintf(f, " on %s; read %llu, sent %llu (%llu bytes), filtered %llu, failed %llu, retried %llu\n",
			l->dev ? l->dev : "-", (unsigned long long)l->read,
			(unsigned long long)l->sent, (unsigned long long)l->bytes_sent,
			(unsigned long long)l->filtered, (unsigned long long)l->failed,
			(unsigned long long)l->retried);
	}
}

/* --threads: each thread's account, and with two interfaces its account on each, indented. */
static void print_threads(const struct stats *s, FILE *f)
{
	for (unsigned i = 0; i < s->nthreads; i++) {
		const struct stats_thread *t = &s->thread[i];

		fprintf(f, "Thread %u", i);
		if (t->cpu >= 0)
			fprintf(f, " (CPU %d)", t->cpu);
		if (t->method_mode && t->method_mode[0])
			fprintf(f, " [%s]", t->method_mode);
		fprintf(f, ": read %llu, sent %llu (%llu bytes), filtered %llu, failed %llu, retried %llu",
			(unsigned long long)t->read, (unsigned long long)t->sent,
			(unsigned long long)t->bytes_sent, (unsigned long long)t->filtered,
			(unsigned long long)t->failed, (unsigned long long)t->retried);
		if (s->sched.timer)
			fprintf(f, ", %llu late", (unsigned long long)t->late_packets);
		fputc('\n', f);
		for (unsigned k = 0; t->nlanes > 1 && k < t->nlanes; k++) {
			const struct stats_lane *l = &t->lane[k];

			fprintf(f, "  %s", l->name ? l->name : "-");
			if (l->method_mode && l->method_mode[0])
				fprintf(f, " [%s]", l->method_mode);
			fprintf(f, " on %s: read %llu, sent %llu (%llu bytes), filtered %llu, failed %llu, retried %llu\n",
				l->dev ? l->dev : "-", (unsigned long long)l->read, (unsigned long long)l->sent,
				(unsigned long long)l->bytes_sent, (unsigned long long)l->filtered,
				(unsigned long long)l->failed, (unsigned long long)l->retried);
		}
	}
}

/* What each interface itself counted, where it could be read. */
static void print_interfaces(const struct stats *s, FILE *f)
{
	for (unsigned i = 0; i < s->nlanes; i++) {
		const struct stats_lane *l = &s->lane[i];

		if (!l->if_valid)
			continue;
		fprintf(f, "Interface: %s counted %llu packets sent, %llu dropped",
			l->dev ? l->dev : "-", (unsigned long long)l->if_tx_packets,
			(unsigned long long)l->if_tx_dropped);
		if (l->if_tx_deficit)
			fprintf(f, "; DEFICIT: %llu packets reported sent never left it",
				(unsigned long long)l->if_tx_deficit);
		fputc('\n', f);
	}
}

void stats_print(const struct stats *s, FILE *f)
{
	uint64_t ns = stats_elapsed_ns(s);

	fprintf(f, "Actual: %llu packets (%llu bytes) sent in %.6f seconds\n",
		(unsigned long long)s->sent, (unsigned long long)s->bytes_sent, (double)ns / 1e9);
	fprintf(f, "Rated: %.1f Bps, %.3f Mbps, %.2f pps\n",
		ns ? (double)s->bytes_sent * 1e9 / (double)ns : 0.0, stats_mbps(s), stats_pps(s));
	print_flows(&s->flows, ns, f);
	print_method(s, f);
	/* --threads auto: how many it chose, and why. */
	if (s->threads_auto)
		fprintf(f, "Threads: --threads auto: %s\n", s->threads_auto);
	print_packets(s, f);
	for (unsigned i = 0; i < s->nextra; i++)
		if (s->extra[i].print)
			s->extra[i].print(s->extra[i].arg, f);
	print_send_err(s, f);
	print_start(s, f);
	print_suspended(&s->sched, f);
	print_timing(&s->sched, f);
	print_lanes(s, f);
	print_threads(s, f);
	print_interfaces(s, f);
}

/* The JSON has "" where the summary has nothing to name. */
static const char *str(const char *s)
{
	return s ? s : "";
}

/* Rates over @ns: "pps" to 3 decimals, "mbps" to 6. */
static void json_rates(struct json *w, uint64_t sent, uint64_t bytes, uint64_t ns)
{
	json_double(w, "pps", ns ? (double)sent * 1e9 / (double)ns : 0.0, 3);
	json_double(w, "mbps", ns ? (double)bytes * 8.0 * 1e3 / (double)ns : 0.0, 6);
}

/* An account's six counters. */
static void json_counts(struct json *w, uint64_t read, uint64_t sent, uint64_t failed,
			uint64_t retried, uint64_t filtered, uint64_t bytes_sent)
{
	json_uint(w, "packets_read", read);
	json_uint(w, "packets_sent", sent);
	json_uint(w, "packets_failed", failed);
	json_uint(w, "packets_retried", retried);
	json_uint(w, "packets_filtered", filtered);
	json_uint(w, "bytes_sent", bytes_sent);
}

static void json_lane_counts(struct json *w, const struct stats_lane *l)
{
	json_counts(w, l->read, l->sent, l->failed, l->retried, l->filtered, l->bytes_sent);
}

/* The interface's own counters of lane @l, when they could be read. */
static void json_if(struct json *w, const struct stats_lane *l)
{
	if (!l->if_valid)
		return;
	json_uint(w, "interface_tx_packets", l->if_tx_packets);
	json_uint(w, "interface_tx_dropped", l->if_tx_dropped);
	json_uint(w, "interface_tx_deficit", l->if_tx_deficit);
}

/* The first keys of a "send_error_ns" object: the histogram's summary. */
static void json_err_summary(struct json *w, uint64_t count, uint64_t p50, uint64_t p90, uint64_t p99,
			     uint64_t p999, uint64_t max, double mean)
{
	json_uint(w, "count", count);
	json_uint(w, "p50", p50);
	json_uint(w, "p90", p90);
	json_uint(w, "p99", p99);
	json_uint(w, "p999", p999);
	json_uint(w, "max", max);
	json_double(w, "mean", mean, 1);
}

/* The scheduler's account: its timer and plan, then the send error and the late packets. */
static void json_sched(struct json *w, const struct stats *s)
{
	const struct sched_report *r = &s->sched;
	const struct hist *h = &s->send_err;

	json_str(w, "timer", r->timer ? r->timer : "none");
	json_uint(w, "spin_margin_ns", r->spin_margin_ns);
	json_uint(w, "guard_sleeps", r->guard_sleeps);
	json_uint(w, "plan_demotions", r->plan_demotions);
	json_uint(w, "plan_demoted_ns", r->plan_demoted_ns);
	json_uint(w, "plan_costly_spells", r->plan_costly);
	json_uint(w, "plan_contested", r->plan_contested);
	json_uint(w, "plan_chunks", r->plan_chunks);
	json_uint(w, "sleep_overshoots", r->sleep_overshoots);
	json_uint(w, "spin_pauses", r->spin_pauses);
	json_uint(w, "wake_stalls", r->wake_stalls);
	json_uint(w, "wake_hold_ns", r->wake_hold_ns);
	json_str(w, "plan", r->plan);
	json_uint(w, "suspends", r->suspends);
	json_uint(w, "suspended_ns", r->suspended_ns);
	json_object(w, "send_error_ns");
	json_err_summary(w, h->count, hist_pct(h, 0.5), hist_pct(h, 0.9), hist_pct(h, 0.99),
			 hist_pct(h, 0.999), h->max, hist_mean(h));
	json_uint(w, "late_stalls", r->late_stalls);
	json_uint(w, "late_packets", r->late_packets);
	json_uint(w, "late_threshold", r->late_threshold_ns);
	json_uint(w, "late_shifted", r->late_shifted_ns);
	json_object(w, "late_causes");
	json_uint(w, "timer", r->late_timer);
	json_uint(w, "plan", r->late_plan);
	json_uint(w, "spin", r->late_spin);
	json_uint(w, "read", r->late_read);
	json_uint(w, "backpressure", r->late_backpressure);
	json_uint(w, "loop", r->late_loop);
	json_end(w);
	json_end(w);
}

static void json_start_at(struct json *w, const struct sched_start_report *st)
{
	if (!st->set)
		return;
	json_object(w, "start_at");
	json_str(w, "clock", str(st->clock));
	json_uint(w, "requested_ns", st->at_ns);
	json_uint(w, "woke_ns", st->woke_ns);
	if (st->sent)
		json_int(w, "error_ns", st->error_ns);
	else
		json_null(w, "error_ns");
	json_end(w);
}

/* Flow counts: the run's ("expiry_s" and "fps" with @ns != 0), or a pass's. */
static void json_flow_counts(struct json *w, const struct flow_counts *c, bool run, uint64_t ns)
{
	json_object(w, "flows");
	json_uint(w, "flows", c->flows);
	json_uint(w, "unique", c->unique);
	json_uint(w, "expired", c->expired);
	if (run) {
		json_uint(w, "expiry_s", c->expiry_s);
		json_fixed(w, "fps", flow_fps_x100(c->flows, ns), 2);
	}
	json_uint(w, "flow_packets", c->flow_packets);
	json_uint(w, "non_flow_packets", c->non_flow);
	json_uint(w, "invalid_packets", c->invalid);
	json_uint(w, "untracked_packets", c->untracked);
	json_end(w);
}

/* One lane: its interface's counters; two: "intf1" and "intf2", each side's account. */
static void json_lanes(struct json *w, const struct stats *s)
{
	if (s->nlanes == 1)
		json_if(w, &s->lane[0]);
	for (unsigned i = 0; s->nlanes > 1 && i < s->nlanes; i++) {
		const struct stats_lane *l = &s->lane[i];

		json_object(w, str(l->name));
		json_str(w, "method", str(l->method));
		json_str(w, "interface", str(l->dev));
		json_lane_counts(w, l);
		json_if(w, l);
		json_end(w);
	}
}

/* The threads were asked for (--threads N) or chosen unasked, and then why; each one's account. */
static void json_threads(struct json *w, const struct stats *s)
{
	if (!s->nthreads)
		return;
	json_uint(w, "thread_count", s->nthreads);
	json_bool(w, "threads_auto", s->threads_auto);
	if (s->threads_auto)
		json_str(w, "threads_auto_reason", s->threads_auto);
	json_array(w, "threads");
	for (unsigned i = 0; i < s->nthreads; i++) {
		const struct stats_thread *t = &s->thread[i];

		json_object(w, NULL);
		json_uint(w, "thread", i);
		json_int(w, "cpu", t->cpu);
		json_str(w, "method_mode", str(t->method_mode));
		json_counts(w, t->read, t->sent, t->failed, t->retried, t->filtered, t->bytes_sent);
		json_uint(w, "late_packets", t->late_packets);
		/* Two interfaces: "intf1" and "intf2", its account on each. */
		for (unsigned k = 0; t->nlanes > 1 && k < t->nlanes; k++) {
			const struct stats_lane *l = &t->lane[k];

			json_object(w, str(l->name));
			json_str(w, "interface", str(l->dev));
			json_str(w, "method_mode", str(l->method_mode));
			json_lane_counts(w, l);
			json_end(w);
		}
		json_end(w);
	}
	json_end(w);
}

/* "passes": one object per loop pass (struct stats_pass). */
static void json_passes(struct json *w, const struct stats *s)
{
	json_array(w, "passes");
	for (size_t i = 0; i < s->npasses; i++) {
		const struct stats_pass *p = &s->passes[i];
		uint64_t ns = p->end_ns - p->start_ns;

		json_object(w, NULL);
		json_uint(w, "pass", p->pass);
		json_uint(w, "passes", p->npasses);
		json_counts(w, p->c.read, p->c.sent, p->c.failed, p->c.retried, p->c.filtered,
			    p->c.bytes_sent);
		json_uint(w, "in_flight_before", p->in_flight_before);
		json_uint(w, "in_flight_after", p->in_flight_after);
		json_uint(w, "start_ns", p->start_ns - s->start_ns);
		json_uint(w, "elapsed_ns", ns);
		json_rates(w, p->c.sent, p->c.bytes_sent, ns);
		json_object(w, "send_error_ns");
		json_err_summary(w, p->err_count, p->err_p50, p->err_p90, p->err_p99, p->err_p999,
				 p->err_max, p->err_mean);
		json_end(w);
		if (p->flows.enabled)
			json_flow_counts(w, &p->flows, false, 0);
		if (s->impaired) {
			json_uint(w, "packets_impair_dropped", p->c.impair_dropped);
			json_uint(w, "impair_copies", p->c.impair_copies);
		}
		if (s->segmenting) {
			json_uint(w, "packets_segmented", p->c.segmented);
			json_uint(w, "segments", p->c.segments);
		}
		json_end(w);
	}
	json_end(w);
}

int stats_write_json(const struct stats *s, FILE *f)
{
	struct json w;

	json_init(&w, f);
	json_object(&w, NULL);
	json_int(&w, "schema_version", STATS_JSON_SCHEMA);
	json_str(&w, "method", str(s->method));
	json_str(&w, "method_mode", str(s->method_mode));
	json_str(&w, "interface", str(s->dev));
	json_counts(&w, s->read, s->sent, s->failed, s->retried, s->filtered, s->bytes_sent);
	json_uint(&w, "elapsed_ns", stats_elapsed_ns(s));
	json_rates(&w, s->sent, s->bytes_sent, stats_elapsed_ns(s));
	json_sched(&w, s);
	json_start_at(&w, &s->start);
	if (s->flows.enabled)
		json_flow_counts(&w, &s->flows, true, stats_elapsed_ns(s));
	json_lanes(&w, s);
	json_threads(&w, s);
	if (s->impaired) {
		json_uint(&w, "packets_impair_dropped", s->impair_dropped);
		json_uint(&w, "packets_impair_queue_dropped", s->impair_qdropped);
		json_uint(&w, "impair_copies", s->impair_copies);
	}
	if (s->segmenting) {
		json_uint(&w, "packets_segmented", s->segmented);
		json_uint(&w, "segments", s->segments);
		json_uint(&w, "packets_gso", s->gso_frames);
		json_uint(&w, "gso_segments", s->gso_segments);
	}
	if (s->layer3)
		json_uint(&w, "packets_not_ip", s->not_ip);
	if (s->passes_on)
		json_passes(&w, s);
	for (unsigned i = 0; i < s->nextra; i++) {
		json_key(&w, str(s->extra[i].key));
		s->extra[i].json(s->extra[i].arg, &w);
	}
	json_end(&w);
	fputc('\n', f);
	return json_finish(&w);
}
