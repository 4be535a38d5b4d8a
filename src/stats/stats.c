// SPDX-License-Identifier: BSD-2-Clause
/* Run counters and their summaries: human (tcpreplay's shape) and JSON. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay/compiler.h"
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
				    .impair_copies = DIFF(impair_copies) };
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

void stats_print(const struct stats *s, FILE *f)
{
	uint64_t ns = stats_elapsed_ns(s);

	fprintf(f, "Actual: %llu packets (%llu bytes) sent in %.6f seconds\n",
		(unsigned long long)s->sent, (unsigned long long)s->bytes_sent, (double)ns / 1e9);
	fprintf(f, "Rated: %.1f Bps, %.3f Mbps, %.2f pps\n",
		ns ? (double)s->bytes_sent * 1e9 / (double)ns : 0.0, stats_mbps(s), stats_pps(s));
	print_flows(&s->flows, ns, f);
	if (s->nlanes > 1)
		; /* each side's method is on its line below */
	else if (s->method_mode && s->method_mode[0])
		fprintf(f, "Method: %s (%s) on %s\n", s->method ? s->method : "none", s->method_mode,
			s->dev ? s->dev : "-");
	else
		fprintf(f, "Method: %s on %s\n", s->method ? s->method : "none",
			s->dev ? s->dev : "-");
	/* --threads auto: how many it chose, and why. */
	if (s->threads_auto)
		fprintf(f, "Threads: --threads auto: %s\n", s->threads_auto);
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
	for (unsigned i = 0; i < s->nextra; i++)
		if (s->extra[i].print)
			s->extra[i].print(s->extra[i].arg, f);
	if (s->send_err.count) {
		static const struct {
			const char *name;
			double q;
		} pct[] = { { "p50", 0.5 }, { "p90", 0.9 }, { "p99", 0.99 }, { "p99.9", 0.999 } };
		char v[32];

		fprintf(f, "Send error (actual - scheduled):");
		for (size_t i = 0; i < ARRAY_SIZE(pct); i++) {
			fmt_ns(v, sizeof(v), hist_pct(&s->send_err, pct[i].q));
			fprintf(f, " %s %s,", pct[i].name, v);
		}
		fmt_ns(v, sizeof(v), s->send_err.max);
		fprintf(f, " max %s\n", v);
	}
	if (s->start.set) {
		char e[32];
		int64_t err = s->start.error_ns;

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
	if (s->sched.timer) {
		char m[32], th[32], sh[32];

		fmt_ns(m, sizeof(m), s->sched.spin_margin_ns);
		fmt_ns(th, sizeof(th), s->sched.late_threshold_ns);
		fmt_ns(sh, sizeof(sh), s->sched.late_shifted_ns);
		fprintf(f, "Timing: %s timer", s->sched.timer);
		if (s->sched.spin_margin_ns)
			fprintf(f, ", spin margin %s", m);
		fprintf(f, "; stalls (later than %s): %llu, %llu packets late", th,
			(unsigned long long)s->sched.late_stalls, (unsigned long long)s->sched.late_packets);
		if (s->sched.late_shifted_ns)
			fprintf(f, ", schedule shifted by %s", sh);
		if (s->sched.late_packets)
			fprintf(f, " (timer %llu, planned sleep %llu, spin pause %llu, trace read %llu, "
				   "back-pressure %llu, loop %llu)",
				(unsigned long long)s->sched.late_timer, (unsigned long long)s->sched.late_plan,
				(unsigned long long)s->sched.late_spin, (unsigned long long)s->sched.late_read,
				(unsigned long long)s->sched.late_backpressure, (unsigned long long)s->sched.late_loop);
		if (s->sched.guard_sleeps)
			fprintf(f, "; %llu planned sleeps for real-time throttling (%llu with no gap to go in)",
				(unsigned long long)s->sched.guard_sleeps,
				(unsigned long long)s->sched.plan_chunks);
		if (s->sched.plan_demotions)
			fprintf(f, "; %llu spells at normal priority for real-time throttling (%.1f ms, %llu on a contested CPU)",
				(unsigned long long)s->sched.plan_demotions, (double)s->sched.plan_demoted_ns / 1e6,
				(unsigned long long)s->sched.plan_costly);
		if (s->sched.plan_contested)
			fprintf(f, "; %llu debts slept off instead, the CPUs being contested",
				(unsigned long long)s->sched.plan_contested);
		if (s->sched.wake_stalls)
			fprintf(f, "; %llu wake-up stalls (a sleep woke > 300 us late with the CPU free): "
				   "spun through the gaps for %.1f s after them",
				(unsigned long long)s->sched.wake_stalls, (double)s->sched.wake_hold_ns / 1e9);
		if (s->sched.plan[0])
			fprintf(f, "; plan: %s", s->sched.plan);
		fputc('\n', f);
	}
	if (s->nlanes > 1)
		for (unsigned i = 0; i < s->nlanes; i++) {
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
		/* Two interfaces: its account on each, indented under it. */
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

void stats_json_str(FILE *f, const char *str)
{
	fputc('"', f);
	for (const unsigned char *c = (const unsigned char *)(str ? str : ""); *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(f, "\\%c", *c);
		else if (*c < 0x20)
			fprintf(f, "\\u%04x", *c);
		else
			fputc(*c, f);
	}
	fputc('"', f);
}

/* One interface's account: its six counters, each after a comma. */
static void json_lane_counts(FILE *f, const struct stats_lane *l)
{
	fprintf(f,
		",\"packets_read\":%llu,\"packets_sent\":%llu,\"packets_failed\":%llu,"
		"\"packets_retried\":%llu,\"packets_filtered\":%llu,\"bytes_sent\":%llu",
		(unsigned long long)l->read, (unsigned long long)l->sent, (unsigned long long)l->failed,
		(unsigned long long)l->retried, (unsigned long long)l->filtered,
		(unsigned long long)l->bytes_sent);
}

/* The interface's own counters of lane @l, when they could be read. */
static void json_if(FILE *f, const struct stats_lane *l)
{
	if (l->if_valid)
		fprintf(f, ",\"interface_tx_packets\":%llu,\"interface_tx_dropped\":%llu,"
			"\"interface_tx_deficit\":%llu",
			(unsigned long long)l->if_tx_packets, (unsigned long long)l->if_tx_dropped,
			(unsigned long long)l->if_tx_deficit);
}

/* "passes": one object per loop pass (struct stats_pass). */
static void json_passes(const struct stats *s, FILE *f)
{
	fprintf(f, ",\"passes\":[");
	for (size_t i = 0; i < s->npasses; i++) {
		const struct stats_pass *p = &s->passes[i];
		uint64_t ns = p->end_ns - p->start_ns;

		fprintf(f,
			"%s{\"pass\":%llu,\"passes\":%llu,\"packets_read\":%llu,\"packets_sent\":%llu,"
			"\"packets_failed\":%llu,\"packets_retried\":%llu,\"packets_filtered\":%llu,"
			"\"bytes_sent\":%llu,\"in_flight_before\":%llu,\"in_flight_after\":%llu,\"start_ns\":%llu,\"elapsed_ns\":%llu,\"pps\":%.3f,\"mbps\":%.6f,"
			"\"send_error_ns\":{\"count\":%llu,\"p50\":%llu,\"p90\":%llu,\"p99\":%llu,"
			"\"p999\":%llu,\"max\":%llu,\"mean\":%.1f}",
			i ? "," : "", (unsigned long long)p->pass, (unsigned long long)p->npasses,
			(unsigned long long)p->c.read, (unsigned long long)p->c.sent,
			(unsigned long long)p->c.failed, (unsigned long long)p->c.retried,
			(unsigned long long)p->c.filtered, (unsigned long long)p->c.bytes_sent,
			(unsigned long long)p->in_flight_before, (unsigned long long)p->in_flight_after,
			(unsigned long long)(p->start_ns - s->start_ns), (unsigned long long)ns,
			ns ? (double)p->c.sent * 1e9 / (double)ns : 0.0,
			ns ? (double)p->c.bytes_sent * 8.0 * 1e3 / (double)ns : 0.0,
			(unsigned long long)p->err_count, (unsigned long long)p->err_p50,
			(unsigned long long)p->err_p90, (unsigned long long)p->err_p99,
			(unsigned long long)p->err_p999, (unsigned long long)p->err_max, p->err_mean);
		if (p->flows.enabled)
			fprintf(f,
				",\"flows\":{\"flows\":%llu,\"unique\":%llu,\"expired\":%llu,"
				"\"flow_packets\":%llu,\"non_flow_packets\":%llu,\"invalid_packets\":%llu,"
				"\"untracked_packets\":%llu}",
				(unsigned long long)p->flows.flows, (unsigned long long)p->flows.unique,
				(unsigned long long)p->flows.expired, (unsigned long long)p->flows.flow_packets,
				(unsigned long long)p->flows.non_flow, (unsigned long long)p->flows.invalid,
				(unsigned long long)p->flows.untracked);
		if (s->impaired)
			fprintf(f,
				",\"packets_impair_dropped\":%llu,\"impair_copies\":%llu",
				(unsigned long long)p->c.impair_dropped, (unsigned long long)p->c.impair_copies);
		fputc('}', f);
	}
	fputc(']', f);
}

int stats_write_json(const struct stats *s, FILE *f)
{
	const struct hist *h = &s->send_err;

	fprintf(f, "{\"schema_version\":%d,\"method\":", STATS_JSON_SCHEMA);
	stats_json_str(f, s->method);
	fprintf(f, ",\"interface\":");
	stats_json_str(f, s->dev);
	fprintf(f,
		",\"packets_read\":%llu,\"packets_sent\":%llu,\"packets_failed\":%llu,"
		"\"packets_retried\":%llu,\"packets_filtered\":%llu,\"bytes_sent\":%llu,"
		"\"elapsed_ns\":%llu,\"pps\":%.3f,\"mbps\":%.6f",
		(unsigned long long)s->read, (unsigned long long)s->sent,
		(unsigned long long)s->failed, (unsigned long long)s->retried,
		(unsigned long long)s->filtered, (unsigned long long)s->bytes_sent,
		(unsigned long long)stats_elapsed_ns(s), stats_pps(s), stats_mbps(s));
	fprintf(f, ",\"timer\":");
	stats_json_str(f, s->sched.timer ? s->sched.timer : "none");
	fprintf(f, ",\"spin_margin_ns\":%llu,\"guard_sleeps\":%llu", (unsigned long long)s->sched.spin_margin_ns,
		(unsigned long long)s->sched.guard_sleeps);
	fprintf(f, ",\"plan_demotions\":%llu,\"plan_demoted_ns\":%llu,\"plan_costly_spells\":%llu,\"plan_contested\":%llu",
		(unsigned long long)s->sched.plan_demotions, (unsigned long long)s->sched.plan_demoted_ns,
		(unsigned long long)s->sched.plan_costly, (unsigned long long)s->sched.plan_contested);
	fprintf(f, ",\"plan_chunks\":%llu,\"sleep_overshoots\":%llu,\"spin_pauses\":%llu",
		(unsigned long long)s->sched.plan_chunks, (unsigned long long)s->sched.sleep_overshoots,
		(unsigned long long)s->sched.spin_pauses);
	fprintf(f, ",\"wake_stalls\":%llu,\"wake_hold_ns\":%llu,\"plan\":", (unsigned long long)s->sched.wake_stalls,
		(unsigned long long)s->sched.wake_hold_ns);
	stats_json_str(f, s->sched.plan);
	fprintf(f,
		",\"send_error_ns\":{\"count\":%llu,\"p50\":%llu,\"p90\":%llu,\"p99\":%llu,"
		"\"p999\":%llu,\"max\":%llu,\"mean\":%.1f,\"late_stalls\":%llu,"
		"\"late_packets\":%llu,\"late_threshold\":%llu,\"late_shifted\":%llu,"
		"\"late_causes\":{\"timer\":%llu,\"plan\":%llu,\"spin\":%llu,\"read\":%llu,"
		"\"backpressure\":%llu,\"loop\":%llu}}",
		(unsigned long long)h->count, (unsigned long long)hist_pct(h, 0.5),
		(unsigned long long)hist_pct(h, 0.9), (unsigned long long)hist_pct(h, 0.99),
		(unsigned long long)hist_pct(h, 0.999), (unsigned long long)h->max, hist_mean(h),
		(unsigned long long)s->sched.late_stalls, (unsigned long long)s->sched.late_packets,
		(unsigned long long)s->sched.late_threshold_ns, (unsigned long long)s->sched.late_shifted_ns,
		(unsigned long long)s->sched.late_timer, (unsigned long long)s->sched.late_plan,
		(unsigned long long)s->sched.late_spin, (unsigned long long)s->sched.late_read,
		(unsigned long long)s->sched.late_backpressure, (unsigned long long)s->sched.late_loop);
	if (s->start.set) {
		fprintf(f, ",\"start_at\":{\"clock\":");
		stats_json_str(f, s->start.clock);
		fprintf(f, ",\"requested_ns\":%llu,\"woke_ns\":%llu,\"error_ns\":", (unsigned long long)s->start.at_ns,
			(unsigned long long)s->start.woke_ns);
		if (s->start.sent)
			fprintf(f, "%lld}", (long long)s->start.error_ns);
		else
			fprintf(f, "null}");
	}
	if (s->flows.enabled) {
		const struct flow_counts *c = &s->flows;
		uint64_t fps = flow_fps_x100(c->flows, stats_elapsed_ns(s));

		fprintf(f,
			",\"flows\":{\"flows\":%llu,\"unique\":%llu,\"expired\":%llu,\"expiry_s\":%llu,"
			"\"fps\":%llu.%02u,\"flow_packets\":%llu,\"non_flow_packets\":%llu,"
			"\"invalid_packets\":%llu,\"untracked_packets\":%llu}",
			(unsigned long long)c->flows, (unsigned long long)c->unique,
			(unsigned long long)c->expired, (unsigned long long)c->expiry_s,
			(unsigned long long)(fps / 100), (unsigned)(fps % 100),
			(unsigned long long)c->flow_packets, (unsigned long long)c->non_flow,
			(unsigned long long)c->invalid, (unsigned long long)c->untracked);
	}
	if (s->nlanes == 1)
		json_if(f, &s->lane[0]);
	for (unsigned i = 0; s->nlanes > 1 && i < s->nlanes; i++) {
		const struct stats_lane *l = &s->lane[i];

		fprintf(f, ",");
		stats_json_str(f, l->name);
		fprintf(f, ":{\"method\":");
		stats_json_str(f, l->method);
		fprintf(f, ",\"interface\":");
		stats_json_str(f, l->dev);
		json_lane_counts(f, l);
		json_if(f, l);
		fprintf(f, "}");
	}
	if (s->nthreads) {
		/* The threads were asked for (--threads N) or chosen unasked, and then why. */
		fprintf(f, ",\"thread_count\":%u,\"threads_auto\":%s", s->nthreads, s->threads_auto ? "true" : "false");
		if (s->threads_auto) {
			fprintf(f, ",\"threads_auto_reason\":");
			stats_json_str(f, s->threads_auto);
		}
		fprintf(f, ",\"threads\":[");
		for (unsigned i = 0; i < s->nthreads; i++) {
			const struct stats_thread *t = &s->thread[i];

			fprintf(f, "%s{\"thread\":%u,\"cpu\":%d,\"method_mode\":", i ? "," : "", i, t->cpu);
			stats_json_str(f, t->method_mode);
			fprintf(f,
				",\"packets_read\":%llu,\"packets_sent\":%llu,\"packets_failed\":%llu,"
				"\"packets_retried\":%llu,\"packets_filtered\":%llu,\"bytes_sent\":%llu,"
				"\"late_packets\":%llu",
				(unsigned long long)t->read, (unsigned long long)t->sent,
				(unsigned long long)t->failed, (unsigned long long)t->retried,
				(unsigned long long)t->filtered, (unsigned long long)t->bytes_sent,
				(unsigned long long)t->late_packets);
			/* Two interfaces: "intf1" and "intf2", its account on each. */
			for (unsigned k = 0; t->nlanes > 1 && k < t->nlanes; k++) {
				const struct stats_lane *l = &t->lane[k];

				fprintf(f, ",");
				stats_json_str(f, l->name);
				fprintf(f, ":{\"interface\":");
				stats_json_str(f, l->dev);
				fprintf(f, ",\"method_mode\":");
				stats_json_str(f, l->method_mode);
				json_lane_counts(f, l);
				fprintf(f, "}");
			}
			fprintf(f, "}");
		}
		fprintf(f, "]");
	}
	if (s->impaired)
		fprintf(f, ",\"packets_impair_dropped\":%llu,\"packets_impair_queue_dropped\":%llu,"
			"\"impair_copies\":%llu",
			(unsigned long long)s->impair_dropped, (unsigned long long)s->impair_qdropped,
			(unsigned long long)s->impair_copies);
	if (s->passes_on)
		json_passes(s, f);
	for (unsigned i = 0; i < s->nextra; i++) {
		int rc;

		fprintf(f, ",");
		stats_json_str(f, s->extra[i].key);
		fprintf(f, ":");
		if ((rc = s->extra[i].json(s->extra[i].arg, f)) < 0)
			return rc;
	}
	fprintf(f, "}\n");
	if (fflush(f) != 0 || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}
