// SPDX-License-Identifier: BSD-2-Clause
/*
 * The report: a table for people, one flat JSON object for scripts (every
 * key unique, so `jq .lost` and a grep both work; keys are listed in
 * replay-rx(1)).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "replay/compiler.h"
#include "replay/stats.h"
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

/* A JSON string, or null for NULL. */
static void json_str(FILE *f, const char *s)
{
	if (s)
		stats_json_str(f, s);
	else
		fputs("null", f);
}

static void json_dist(FILE *f, const char *p, const struct rx_dist *d)
{
	fprintf(f,
		",\"%s_count\":%" PRIu64 ",\"%s_min_ns\":%" PRId64 ",\"%s_p50_ns\":%" PRId64
		",\"%s_p90_ns\":%" PRId64 ",\"%s_p99_ns\":%" PRId64 ",\"%s_p999_ns\":%" PRId64
		",\"%s_max_ns\":%" PRId64 ",\"%s_mean_ns\":%.1f,\"%s_stddev_ns\":%.1f"
		",\"%s_variance_ns2\":%.1f",
		p, d->count, p, d->min, p, d->p50, p, d->p90, p, d->p99, p, d->p999, p, d->max, p,
		d->mean, p, d->stddev, p, d->variance);
}

static void json_list(FILE *f, const char *key, const struct rx_result *r, int which)
{
	size_t n = MIN(r->nlist[which], (size_t)RX_LIST_MAX);

	fprintf(f, ",\"%s\":[", key);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%" PRIu64, i ? "," : "", r->list[which][i]);
	fprintf(f, "]");
}

/* An address of @k in JSON: "10.0.0.1", "2001:db8::1", "02:00:00:00:00:01". */
static void json_addr(FILE *f, const struct rx_flow_key *k, const uint8_t *a)
{
	char buf[INET6_ADDRSTRLEN];

	if (k->kind == RX_FLOW_ETH)
		snprintf(buf, sizeof(buf), "%02x:%02x:%02x:%02x:%02x:%02x", a[0], a[1], a[2], a[3],
			 a[4], a[5]);
	else
		inet_ntop(k->kind == RX_FLOW_IP6 ? AF_INET6 : AF_INET, a, buf, sizeof(buf));
	fprintf(f, "\"%s\"", buf);
}

static void json_flows(FILE *f, const struct rx_result *r)
{
	static const char *const kind[] = { [RX_FLOW_ETH] = "ethernet", [RX_FLOW_IP4] = "ipv4",
					    [RX_FLOW_IP6] = "ipv6" };
	char key[160];

	fprintf(f, ",\"flow_count\":%zu,\"flows\":[", r->nflows);
	for (size_t i = 0; i < r->nflows; i++) {
		const struct rx_flow_result *x = &r->flows[i];
		const struct rx_flow_key *k = &r->flow_keys[x->flow];

		fprintf(f, "%s{\"flow\":", i ? "," : "");
		stats_json_str(f, rx_flow_str(k, key, sizeof(key)));
		fprintf(f, ",\"kind\":\"%s\",\"src\":", kind[k->kind]);
		json_addr(f, k, k->src);
		fprintf(f, ",\"dst\":");
		json_addr(f, k, k->dst);
		fprintf(f, ",\"ethertype\":%u", k->ethertype);
		if (k->kind == RX_FLOW_ETH)
			fprintf(f, ",\"proto\":null");
		else
			fprintf(f, ",\"proto\":%u", k->proto);
		if (k->ports)
			fprintf(f, ",\"sport\":%u,\"dport\":%u", k->sport, k->dport);
		else
			fprintf(f, ",\"sport\":null,\"dport\":null");
		if (k->vlan)
			fprintf(f, ",\"vlan\":%u", k->vlan - 1);
		else
			fprintf(f, ",\"vlan\":null");
		fprintf(f,
			",\"packets\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"received\":%" PRIu64
			",\"lost\":%" PRIu64 ",\"bytes_lost\":%" PRIu64 ",\"loss_ratio\":%.9f"
			",\"reordered\":%" PRIu64 ",\"duplicated\":%" PRIu64,
			x->packets, x->bytes, x->received, x->lost, x->bytes_lost,
			x->packets ? (double)x->lost / (double)x->packets : 0.0, x->reordered, x->dup);
		json_dist(f, "error", &x->err);
		json_dist(f, "error_abs", &x->abs_err);
		if (r->have_log)
			json_dist(f, "latency", &x->latency);
		fprintf(f, "}");
	}
	fprintf(f, "]");
}

int rx_report_json(const struct rx_result *r, const struct rx_source *src, FILE *f)
{
	fprintf(f, "{\"interface\":");
	json_str(f, src->intf);
	fprintf(f, ",\"file\":");
	json_str(f, src->file);
	fprintf(f, ",\"filter\":");
	json_str(f, src->filter);
	fprintf(f, ",\"filter_user\":");
	json_str(f, src->filter_user);
	fprintf(f, ",\"filter_reference\":");
	json_str(f, src->filter_ref);
	fprintf(f, ",\"filter_reference_basis\":");
	json_str(f, src->filter_ref_why);
	fprintf(f, ",\"snaplen\":%u,\"id_bytes\":%u,\"timestamps\":\"%s\"", src->snaplen,
		src->id_bytes, ts_source(r, src));
	fprintf(f,
		",\"received\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"elapsed_ns\":%.0f,\"pps\":%.3f"
		",\"mbps\":%.6f,\"vlan_reinserted\":%" PRIu64 ",\"hw_timestamped\":%" PRIu64,
		r->received, r->bytes, elapsed_ns(r), pps(r), mbps(r), r->vlan, r->hw_ts);
	if (src->kstats_valid)
		fprintf(f,
			",\"kernel_packets\":%" PRIu64 ",\"kernel_drops\":%" PRIu64
			",\"kernel_freeze_q\":%" PRIu64,
			src->k.packets, src->k.drops, src->k.freeze_q);
	else
		fprintf(f, ",\"kernel_packets\":null,\"kernel_drops\":null,\"kernel_freeze_q\":null");
	if (src->rings) {
		fprintf(f, ",\"fanout\":%u,\"rings\":[", src->rings);
		for (uint32_t i = 0; i < src->rings; i++)
			fprintf(f, "%s{\"frames\":%" PRIu64 ",\"kernel_packets\":%" PRIu64
				",\"kernel_drops\":%" PRIu64 ",\"kernel_freeze_q\":%" PRIu64 "}",
				i ? "," : "", src->ring_frames[i], src->ring_k[i].packets,
				src->ring_k[i].drops, src->ring_k[i].freeze_q);
		fprintf(f, "]");
	} else {
		fprintf(f, ",\"fanout\":null,\"rings\":null");
	}
	if (src->softnet_drops >= 0)
		fprintf(f, ",\"softnet_drops\":%" PRId64, src->softnet_drops);
	else
		fprintf(f, ",\"softnet_drops\":null");
	json_dist(f, "interarrival", &r->gap);
	if (r->have_ref) {
		fprintf(f, ",\"reference\":");
		json_str(f, src->reference);
		fprintf(f,
			",\"reference_packets\":%zu,\"reference_bytes\":%" PRIu64 ",\"matched\":%" PRIu64
			",\"lost\":%" PRIu64 ",\"duplicated\":%" PRIu64 ",\"reordered\":%" PRIu64
			",\"foreign\":%" PRIu64 ",\"bytes_lost\":%" PRIu64 ",\"loss_ratio\":%.9f"
			",\"bytes_loss_ratio\":%.9f",
			r->ref_packets, r->bytes_expected, r->matched, r->lost, r->dup, r->reordered,
			r->foreign, r->bytes_lost, r->loss_ratio, r->bytes_loss_ratio);
		json_list(f, "lost_records", r, RX_K_MAX);
		json_list(f, "duplicated_records", r, RX_K_DUP);
		json_list(f, "reordered_records", r, RX_K_REORDERED);
		json_list(f, "foreign_frames", r, RX_K_FOREIGN);
		json_dist(f, "error", &r->gap_err);
		json_dist(f, "error_abs", &r->gap_abs_err);
		fprintf(f,
			",\"duration_received_ns\":%" PRId64 ",\"duration_intended_ns\":%" PRId64
			",\"duration_error_ns\":%" PRId64 ",\"duration_error_pct\":%.6f"
			",\"jitter_rfc3550_ns\":%.1f",
			r->duration_ns, r->duration_intended_ns,
			r->duration_ns - r->duration_intended_ns,
			r->duration_intended_ns
				? 100.0 * (double)(r->duration_ns - r->duration_intended_ns) /
					  (double)r->duration_intended_ns
				: 0.0,
			r->jitter_rfc3550_ns);
	}
	if (r->have_seq) {
		fprintf(f,
			",\"sequence_first\":%" PRIu64 ",\"sequence_last\":%" PRIu64
			",\"sequence_expected\":%" PRIu64 ",\"matched\":%" PRIu64 ",\"lost\":%" PRIu64
			",\"duplicated\":%" PRIu64 ",\"reordered\":%" PRIu64 ",\"foreign\":%" PRIu64
			",\"loss_ratio\":%.9f",
			r->seq_first, r->seq_last, r->seq_expected, r->matched, r->lost, r->dup,
			r->reordered, r->foreign, r->loss_ratio);
		json_list(f, "lost_sequence", r, RX_K_MAX);
		json_list(f, "duplicated_sequence", r, RX_K_DUP);
		json_list(f, "reordered_sequence", r, RX_K_REORDERED);
		json_list(f, "foreign_frames", r, RX_K_FOREIGN);
	}
	if (r->have_log) {
		fprintf(f, ",\"send_log\":");
		json_str(f, src->send_log);
		fprintf(f, ",\"send_log_matched\":%" PRIu64, r->log_matched);
		json_dist(f, "latency", &r->latency);
	}
	if (r->jitter_rfc4689_basis) {
		fprintf(f, ",\"jitter_rfc4689_basis\":\"%s\"", r->jitter_rfc4689_basis);
		json_dist(f, "jitter_rfc4689", &r->jitter_rfc4689);
	}
	if (r->flows)
		json_flows(f, r);
	fprintf(f, ",\"exact\":%s}\n",
		rx_exact(r, src->kstats_valid ? &src->k : NULL) ? "true" : "false");
	if (fflush(f) != 0 || ferror(f))
		return -(errno ? errno : EIO);
	return 0;
}
