// SPDX-License-Identifier: BSD-2-Clause
/*
 * The report: a table for people, one flat JSON object for scripts (every
 * key unique, so `jq .lost` and a grep both work; keys are listed in
 * replay-rx(1)).
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "replay/compiler.h"
#include "replay/json.h"
#include "rx.h"

/* A duration in ns with a unit a person reads at a glance; @sign prints "+" for positive values. */
static const char *fmt_ns(char *buf, size_t len, double ns, bool sign)
{
	double a = fabs(ns);
	const char *s = sign && ns > 0 ? "+" : "";

	if (a < 1000)
		snprintf(buf, len, "%s%.0f ns", s, ns);
	else if (a < 1e6)
		snprintf(buf, len, "%s%.2f us", s, ns / 1e3);
	else if (a < 1e9)
		snprintf(buf, len, "%s%.3f ms", s, ns / 1e6);
	else
		snprintf(buf, len, "%s%.3f s", s, ns / 1e9);
	return buf;
}

static double elapsed_ns(const struct rx_result *r)
{
	return r->last_ns > r->first_ns ? (double)(r->last_ns - r->first_ns) : 0.0;
}

/*
 * Rates over first to last frame, count / time, as the pktgen receiver of
 * Turull, "Open Source Traffic Analyzer", 2010, reports them.
 */
static double pps(const struct rx_result *r)
{
	double ns = elapsed_ns(r);

	return ns > 0 ? (double)r->received * 1e9 / ns : 0.0;
}

static double mbps(const struct rx_result *r)
{
	double ns = elapsed_ns(r);

	return ns > 0 ? (double)r->bytes * 8e3 / ns : 0.0;
}

static const char *ts_source(const struct rx_result *r, const struct rx_source *src)
{
	if (src->file)
		return "file";
	if (!r->hw_ts)
		return "software";
	return r->hw_ts == r->received ? "hardware" : "mixed";
}

static void dist_row(FILE *f, const char *name, const struct rx_dist *d, bool sign)
{
	char v[7][24];

	if (!d->count) {
		fprintf(f, "  %-18s (none)\n", name);
		return;
	}
	fprintf(f, "  %-18s %11s %11s %11s %11s %11s %11s %11s\n", name,
		fmt_ns(v[0], 24, (double)d->p50, sign), fmt_ns(v[1], 24, (double)d->p90, sign),
		fmt_ns(v[2], 24, (double)d->p99, sign), fmt_ns(v[3], 24, (double)d->p999, sign),
		fmt_ns(v[4], 24, (double)d->max, sign), fmt_ns(v[5], 24, d->mean, sign),
		fmt_ns(v[6], 24, d->stddev, false));
}

static void list_line(FILE *f, const char *what, const struct rx_result *r, int which)
{
	size_t n = r->nlist[which], shown = MIN(n, (size_t)10);

	if (!n)
		return;
	fprintf(f, "    %s:", what);
	for (size_t i = 0; i < shown; i++)
		fprintf(f, " %" PRIu64, r->list[which][i]);
	if (n > shown)
		fprintf(f, " (and %zu more)", n - shown);
	fprintf(f, "\n");
}

/* --per-flow: the worst flows, one line each. */
static void flows_table(FILE *f, const struct rx_result *r, const struct rx_source *src)
{
	size_t shown = MIN(r->nflows, src->worst);
	char a[24], b[24], c[24], key[160];

	fprintf(f, "Flows: %zu; the %zu worst (most lost, then largest |error| p99):\n", r->nflows,
		shown);
	if (!shown)
		return;
	fprintf(f, "  %8s %8s %6s %6s %6s %11s %11s", "packets", "received", "lost", "reord", "dup",
		"|err| p50", "|err| p99");
	if (r->have_log)
		fprintf(f, " %11s", "latency p99");
	fprintf(f, "  flow\n");
	for (size_t i = 0; i < shown; i++) {
		const struct rx_flow_result *x = &r->flows[i];

		fprintf(f, "  %8" PRIu64 " %8" PRIu64 " %6" PRIu64 " %6" PRIu64 " %6" PRIu64 " %11s %11s",
			x->packets, x->received, x->lost, x->reordered, x->dup,
			x->abs_err.count ? fmt_ns(a, sizeof(a), (double)x->abs_err.p50, false) : "-",
			x->abs_err.count ? fmt_ns(b, sizeof(b), (double)x->abs_err.p99, false) : "-");
		if (r->have_log)
			fprintf(f, " %11s",
				x->latency.count ? fmt_ns(c, sizeof(c), (double)x->latency.p99, false)
						 : "-");
		fprintf(f, "  %s\n", rx_flow_str(&r->flow_keys[x->flow], key, sizeof(key)));
	}
	if (r->nflows > shown)
		fprintf(f, "  (and %zu more flows; all are in --json)\n", r->nflows - shown);
}

void rx_report_print(const struct rx_result *r, const struct rx_source *src, FILE *f)
{
	char a[32], b[32], c[32];

	fprintf(f, "Received: %" PRIu64 " frames (%" PRIu64 " bytes) %s %s in %.6f s\n", r->received,
		r->bytes, src->file ? "from" : "on", src->file ? src->file : src->intf,
		elapsed_ns(r) / 1e9);
	fprintf(f, "Rated: %.2f pps, %.3f Mbps (first to last frame)\n", pps(r), mbps(r));
	fprintf(f, "Capture: snap length %u, identity %u bytes, %s timestamps, filter %s%s%s\n",
		src->snaplen, src->id_bytes, ts_source(r, src), src->filter ? "'" : "",
		src->filter ? src->filter : "none", src->filter ? "'" : "");
	if (src->filter_ref)
		fprintf(f, "         (made from %s%s; --no-ref-filter captures everything)\n",
			src->filter_ref_why, src->filter_user ? ", and --filter" : "");
	else if (src->filter_ref_why)
		fprintf(f, "         (none made from the reference: %s)\n", src->filter_ref_why);
	if (r->vlan)
		fprintf(f, "         %" PRIu64 " frames had their VLAN tag re-inserted\n", r->vlan);
	if (src->kstats_valid) {
		fprintf(f, "Kernel: %" PRIu64 " dropped by the capture ring, %" PRIu64 " ring-full events",
			src->k.drops, src->k.freeze_q);
		if (src->softnet_drops >= 0)
			fprintf(f, "; %" PRId64 " dropped by the host's backlogs", src->softnet_drops);
		fprintf(f, "%s\n", src->k.drops ? "  (the measurement does not count)" : "");
		for (uint32_t i = 0; i < src->rings; i++)
			fprintf(f, "  ring %u (fanout): %" PRIu64 " frames, kernel %" PRIu64
				" passed, %" PRIu64 " dropped, %" PRIu64 " ring-full events\n",
				i, src->ring_frames[i], src->ring_k[i].packets, src->ring_k[i].drops,
				src->ring_k[i].freeze_q);
	}
	if (r->have_ref) {
		fprintf(f, "Reference: %s, %zu packets (%" PRIu64 " bytes)\n", src->reference,
			r->ref_packets, r->bytes_expected);
		fprintf(f, "  matched %" PRIu64 " (%.3f %%), lost %" PRIu64 ", duplicated %" PRIu64
			   ", reordered %" PRIu64 ", foreign %" PRIu64 "\n",
			r->matched, r->ref_packets ? 100.0 * (double)r->matched / (double)r->ref_packets : 100.0,
			r->lost, r->dup, r->reordered, r->foreign);
		if (r->lost)
			fprintf(f, "  loss: %.6f %% of the packets, %" PRIu64 " bytes (%.6f %% of the bytes)\n",
				100.0 * r->loss_ratio, r->bytes_lost, 100.0 * r->bytes_loss_ratio);
		list_line(f, "lost records", r, RX_K_MAX);
		list_line(f, "duplicated records", r, RX_K_DUP);
		list_line(f, "reordered records", r, RX_K_REORDERED);
		list_line(f, "foreign frames (arrival order)", r, RX_K_FOREIGN);
	}
	if (r->have_seq) {
		fprintf(f, "Sequence: numbers %" PRIu64 " to %" PRIu64 ", %" PRIu64 " expected\n",
			r->seq_first, r->seq_last, r->seq_expected);
		fprintf(f, "  matched %" PRIu64 " (%.3f %%), lost %" PRIu64 ", duplicated %" PRIu64
			   ", reordered %" PRIu64 ", without a sequence number %" PRIu64 "\n",
			r->matched, 100.0 * (1.0 - r->loss_ratio), r->lost, r->dup, r->reordered,
			r->foreign);
		list_line(f, "lost numbers", r, RX_K_MAX);
		list_line(f, "duplicated numbers", r, RX_K_DUP);
		list_line(f, "reordered numbers", r, RX_K_REORDERED);
		list_line(f, "frames without a number (arrival order)", r, RX_K_FOREIGN);
	}
	fprintf(f, "Timing:                    p50         p90         p99       p99.9         max        mean      stddev\n");
	dist_row(f, "inter-arrival", &r->gap, false);
	if (r->have_ref) {
		dist_row(f, "error (signed)", &r->gap_err, true);
		dist_row(f, "|error|", &r->gap_abs_err, false);
	}
	if (r->have_log)
		dist_row(f, "latency", &r->latency, false);
	if (r->jitter_rfc4689_basis)
		dist_row(f, "RFC 4689 jitter", &r->jitter_rfc4689, false);
	if (r->have_ref && r->gap_err.count) {
		fprintf(f, "  (error: received minus intended gap between consecutive in-order frames; > 0 late)\n");
		fprintf(f, "Jitter: RFC 3550 %s; RFC 4689 with delays from the %s\n",
			fmt_ns(a, sizeof(a), r->jitter_rfc3550_ns, false),
			!strcmp(r->jitter_rfc4689_basis, "send-log") ? "send log" : "reference's schedule");
		fprintf(f, "Duration: %s received, %s intended: %s (%+.4f %%)\n",
			fmt_ns(a, sizeof(a), (double)r->duration_ns, false),
			fmt_ns(b, sizeof(b), (double)r->duration_intended_ns, false),
			fmt_ns(c, sizeof(c), (double)(r->duration_ns - r->duration_intended_ns), true),
			r->duration_intended_ns
				? 100.0 * (double)(r->duration_ns - r->duration_intended_ns) /
					  (double)r->duration_intended_ns
				: 0.0);
	}
	if (r->have_log)
		fprintf(f, "Send log: %s, %" PRIu64 " of the frames found in it\n", src->send_log,
			r->log_matched);
	if (r->flows)
		flows_table(f, r, src);
	if (r->have_ref || r->have_seq || src->kstats_valid)
		fprintf(f, "Verdict: %s\n",
			rx_exact(r, src->kstats_valid ? &src->k : NULL)
				? (r->have_ref || r->have_seq ? "exact: every packet arrived once, in order; no kernel drops"
					       : "no kernel drops")
				: "NOT exact (see above)");
}

/* A distribution as flat keys "@p_count" ... "@p_variance_ns2" (the JSON is flat: every key unique). */
static void json_dist(struct json *w, const char *p, const struct rx_dist *d)
{
	static const char *const ranks[] = { "min", "p50", "p90", "p99", "p999", "max" };
	const int64_t v[] = { d->min, d->p50, d->p90, d->p99, d->p999, d->max };
	char key[64];

	snprintf(key, sizeof(key), "%s_count", p);
	json_uint(w, key, d->count);
	for (size_t i = 0; i < ARRAY_SIZE(ranks); i++) {
		snprintf(key, sizeof(key), "%s_%s_ns", p, ranks[i]);
		json_int(w, key, v[i]);
	}
	snprintf(key, sizeof(key), "%s_mean_ns", p);
	json_double(w, key, d->mean, 1);
	snprintf(key, sizeof(key), "%s_stddev_ns", p);
	json_double(w, key, d->stddev, 1);
	snprintf(key, sizeof(key), "%s_variance_ns2", p);
	json_double(w, key, d->variance, 1);
}

/* The first RX_LIST_MAX record numbers of one kind. */
static void json_list(struct json *w, const char *key, const struct rx_result *r, int which)
{
	size_t n = MIN(r->nlist[which], (size_t)RX_LIST_MAX);

	json_array(w, key);
	for (size_t i = 0; i < n; i++)
		json_uint(w, NULL, r->list[which][i]);
	json_end(w);
}

/* An address of @k: "10.0.0.1", "2001:db8::1", "02:00:00:00:00:01". */
static void json_addr(struct json *w, const char *key, const struct rx_flow_key *k, const uint8_t *a)
{
	char buf[INET6_ADDRSTRLEN];

	if (k->kind == RX_FLOW_ETH)
		snprintf(buf, sizeof(buf), "%02x:%02x:%02x:%02x:%02x:%02x", a[0], a[1], a[2], a[3],
			 a[4], a[5]);
	else
		inet_ntop(k->kind == RX_FLOW_IP6 ? AF_INET6 : AF_INET, a, buf, sizeof(buf));
	json_str(w, key, buf);
}

/* @v, or null when @known is false. */
static void json_uint_or_null(struct json *w, const char *key, bool known, uint64_t v)
{
	if (known)
		json_uint(w, key, v);
	else
		json_null(w, key);
}

/* A flow's key: its name, kind, addresses, protocol, ports and VLAN (null where it has none). */
static void json_flow_key(struct json *w, const struct rx_flow_key *k)
{
	static const char *const kind[] = { [RX_FLOW_ETH] = "ethernet", [RX_FLOW_IP4] = "ipv4",
					    [RX_FLOW_IP6] = "ipv6" };
	char name[160];

	json_str(w, "flow", rx_flow_str(k, name, sizeof(name)));
	json_str(w, "kind", kind[k->kind]);
	json_addr(w, "src", k, k->src);
	json_addr(w, "dst", k, k->dst);
	json_uint(w, "ethertype", k->ethertype);
	json_uint_or_null(w, "proto", k->kind != RX_FLOW_ETH, k->proto);
	json_uint_or_null(w, "sport", k->ports, k->sport);
	json_uint_or_null(w, "dport", k->ports, k->dport);
	json_uint_or_null(w, "vlan", k->vlan, k->vlan - 1u);
}

static void json_flows(struct json *w, const struct rx_result *r)
{
	json_uint(w, "flow_count", r->nflows);
	json_array(w, "flows");
	for (size_t i = 0; i < r->nflows; i++) {
		const struct rx_flow_result *x = &r->flows[i];

		json_object(w, NULL);
		json_flow_key(w, &r->flow_keys[x->flow]);
		json_uint(w, "packets", x->packets);
		json_uint(w, "bytes", x->bytes);
		json_uint(w, "received", x->received);
		json_uint(w, "lost", x->lost);
		json_uint(w, "bytes_lost", x->bytes_lost);
		json_double(w, "loss_ratio", x->packets ? (double)x->lost / (double)x->packets : 0.0, 9);
		json_uint(w, "reordered", x->reordered);
		json_uint(w, "duplicated", x->dup);
		json_dist(w, "error", &x->err);
		json_dist(w, "error_abs", &x->abs_err);
		if (r->have_log)
			json_dist(w, "latency", &x->latency);
		json_end(w);
	}
	json_end(w);
}

/* What was captured, how, and what the kernel counted (null where it counted nothing). */
static void json_capture(struct json *w, const struct rx_result *r, const struct rx_source *src)
{
	json_str(w, "interface", src->intf);
	json_str(w, "file", src->file);
	json_str(w, "filter", src->filter);
	json_str(w, "filter_user", src->filter_user);
	json_str(w, "filter_reference", src->filter_ref);
	json_str(w, "filter_reference_basis", src->filter_ref_why);
	json_uint(w, "snaplen", src->snaplen);
	json_uint(w, "id_bytes", src->id_bytes);
	json_str(w, "timestamps", ts_source(r, src));
	json_uint(w, "received", r->received);
	json_uint(w, "bytes", r->bytes);
	json_double(w, "elapsed_ns", elapsed_ns(r), 0);
	json_double(w, "pps", pps(r), 3);
	json_double(w, "mbps", mbps(r), 6);
	json_uint(w, "vlan_reinserted", r->vlan);
	json_uint(w, "hw_timestamped", r->hw_ts);
	json_uint_or_null(w, "kernel_packets", src->kstats_valid, src->k.packets);
	json_uint_or_null(w, "kernel_drops", src->kstats_valid, src->k.drops);
	json_uint_or_null(w, "kernel_freeze_q", src->kstats_valid, src->k.freeze_q);
	json_uint_or_null(w, "fanout", src->rings, src->rings);
	if (src->rings) {
		json_array(w, "rings");
		for (uint32_t i = 0; i < src->rings; i++) {
			json_object(w, NULL);
			json_uint(w, "frames", src->ring_frames[i]);
			json_uint(w, "kernel_packets", src->ring_k[i].packets);
			json_uint(w, "kernel_drops", src->ring_k[i].drops);
			json_uint(w, "kernel_freeze_q", src->ring_k[i].freeze_q);
			json_end(w);
		}
		json_end(w);
	} else {
		json_null(w, "rings");
	}
	if (src->softnet_drops >= 0)
		json_int(w, "softnet_drops", src->softnet_drops);
	else
		json_null(w, "softnet_drops");
}

/* The matches against the reference: counts, the records of each kind, timing errors, duration. */
static void json_reference(struct json *w, const struct rx_result *r, const struct rx_source *src)
{
	int64_t derr = r->duration_ns - r->duration_intended_ns;

	json_str(w, "reference", src->reference);
	json_uint(w, "reference_packets", r->ref_packets);
	json_uint(w, "reference_bytes", r->bytes_expected);
	json_uint(w, "matched", r->matched);
	json_uint(w, "lost", r->lost);
	json_uint(w, "duplicated", r->dup);
	json_uint(w, "reordered", r->reordered);
	json_uint(w, "foreign", r->foreign);
	json_uint(w, "bytes_lost", r->bytes_lost);
	json_double(w, "loss_ratio", r->loss_ratio, 9);
	json_double(w, "bytes_loss_ratio", r->bytes_loss_ratio, 9);
	json_list(w, "lost_records", r, RX_K_MAX);
	json_list(w, "duplicated_records", r, RX_K_DUP);
	json_list(w, "reordered_records", r, RX_K_REORDERED);
	json_list(w, "foreign_frames", r, RX_K_FOREIGN);
	json_dist(w, "error", &r->gap_err);
	json_dist(w, "error_abs", &r->gap_abs_err);
	json_int(w, "duration_received_ns", r->duration_ns);
	json_int(w, "duration_intended_ns", r->duration_intended_ns);
	json_int(w, "duration_error_ns", derr);
	json_double(w, "duration_error_pct",
		    r->duration_intended_ns ? 100.0 * (double)derr / (double)r->duration_intended_ns : 0.0, 6);
	json_double(w, "jitter_rfc3550_ns", r->jitter_rfc3550_ns, 1);
}

/* --sequence: the numbers seen and expected, and the numbers of each kind. */
static void json_sequence(struct json *w, const struct rx_result *r)
{
	json_uint(w, "sequence_first", r->seq_first);
	json_uint(w, "sequence_last", r->seq_last);
	json_uint(w, "sequence_expected", r->seq_expected);
	json_uint(w, "matched", r->matched);
	json_uint(w, "lost", r->lost);
	json_uint(w, "duplicated", r->dup);
	json_uint(w, "reordered", r->reordered);
	json_uint(w, "foreign", r->foreign);
	json_double(w, "loss_ratio", r->loss_ratio, 9);
	json_list(w, "lost_sequence", r, RX_K_MAX);
	json_list(w, "duplicated_sequence", r, RX_K_DUP);
	json_list(w, "reordered_sequence", r, RX_K_REORDERED);
	json_list(w, "foreign_frames", r, RX_K_FOREIGN);
}

int rx_report_json(const struct rx_result *r, const struct rx_source *src, FILE *f)
{
	struct json w;

	json_init(&w, f);
	json_object(&w, NULL);
	json_capture(&w, r, src);
	json_dist(&w, "interarrival", &r->gap);
	if (r->have_ref)
		json_reference(&w, r, src);
	if (r->have_seq)
		json_sequence(&w, r);
	if (r->have_log) {
		json_str(&w, "send_log", src->send_log);
		json_uint(&w, "send_log_matched", r->log_matched);
		json_dist(&w, "latency", &r->latency);
	}
	if (r->jitter_rfc4689_basis) {
		json_str(&w, "jitter_rfc4689_basis", r->jitter_rfc4689_basis);
		json_dist(&w, "jitter_rfc4689", &r->jitter_rfc4689);
	}
	if (r->flows)
		json_flows(&w, r);
	json_bool(&w, "exact", rx_exact(r, src->kstats_valid ? &src->k : NULL));
	json_end(&w);
	fputc('\n', f);
	return json_finish(&w);
}
