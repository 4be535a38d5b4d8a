// SPDX-License-Identifier: BSD-2-Clause
/*
 * --filter: a libpcap expression compiled to classic BPF.  For a live
 * capture it is compiled on a handle opened on the interface itself, as
 * tcpdump does, because the kernel filter sees frames as the kernel holds
 * them: an outer VLAN tag has been moved to metadata, and libpcap then
 * tests tags through BPF's ancillary loads ("vlan 10" works, "udp" matches
 * tagged UDP).  For a file the tags are in the frames and the expression is
 * compiled for that.  Either way an accepted frame is cut to the snap length.
 */
#include <errno.h>
#include <linux/filter.h>
#include <pcap/pcap.h>
#include <stdlib.h>
#include <string.h>

#include "rx.h"

_Static_assert(sizeof(struct bpf_insn) == sizeof(struct sock_filter),
	       "libpcap's BPF instructions are the kernel's");

static int compile_on(pcap_t *p, struct rx_filter *f, const char *expr, char *err, size_t errlen)
{
	struct bpf_program *prog = calloc(1, sizeof(*prog));

	if (!prog) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (pcap_compile(p, prog, expr, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		snprintf(err, errlen, "--filter '%s': %s", expr, pcap_geterr(p));
		free(prog);
		return -EINVAL;
	}
	f->prog = prog;
	return 0;
}

int rx_filter_compile(struct rx_filter *f, const char *expr, const char *ifname, uint32_t snaplen,
		      char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p;
	int rc;

	*f = (struct rx_filter){ .live = ifname != NULL };
	if (!expr)
		return 0;
	if (ifname) {
		/* Activated, so libpcap knows how this kernel hands over VLAN tags; then closed again. */
		p = pcap_create(ifname, ebuf);
		if (p && (pcap_set_snaplen(p, (int)snaplen) < 0 || pcap_set_buffer_size(p, 1 << 16) < 0 ||
			  pcap_activate(p) < 0)) {
			snprintf(err, errlen, "%s: cannot prepare the filter: %s", ifname, pcap_geterr(p));
			pcap_close(p);
			return -ENODEV;
		}
	} else {
		p = pcap_open_dead(DLT_EN10MB, (int)snaplen);
	}
	if (!p) {
		snprintf(err, errlen, "%s: cannot prepare the filter: %s", ifname ? ifname : "file",
			 *ebuf ? ebuf : "out of memory");
		return -ENOMEM;
	}
	rc = compile_on(p, f, expr, err, errlen);
	pcap_close(p);
	return rc;
}

bool rx_filter_fits(const struct rx_filter *f)
{
	return !f->prog || ((const struct bpf_program *)f->prog)->bf_len <= BPF_MAXINSNS;
}

void rx_filter_kernel(const struct rx_filter *f, uint32_t snaplen, struct sock_fprog *out,
		      void *scratch)
{
	struct sock_filter *accept = scratch;

	if (f->prog) {
		const struct bpf_program *prog = f->prog;

		/* libpcap's struct bpf_insn and the kernel's struct sock_filter are the same layout. */
		out->len = (unsigned short)prog->bf_len;
		out->filter = (struct sock_filter *)prog->bf_insns;
		return;
	}
	*accept = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, snaplen);
	out->len = 1;
	out->filter = accept;
}

bool rx_filter_match(const struct rx_filter *f, const uint8_t *data, uint32_t caplen, uint32_t len)
{
	struct pcap_pkthdr h = { .caplen = caplen, .len = len };

	return !f->prog || pcap_offline_filter(f->prog, &h, data) != 0;
}

void rx_filter_free(struct rx_filter *f)
{
	if (f->prog) {
		pcap_freecode(f->prog);
		free(f->prog);
	}
	f->prog = NULL;
}
