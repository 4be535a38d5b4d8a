// SPDX-License-Identifier: BSD-2-Clause
#include "replay/pkt.h"

const char *linktype_name(unsigned linktype)
{
	switch (linktype) {
	case LINKTYPE_NULL:
		return "NULL";
	case LINKTYPE_ETHERNET:
		return "EN10MB";
	case LINKTYPE_RAW:
		return "RAW";
	case LINKTYPE_LOOP:
		return "LOOP";
	case LINKTYPE_C_HDLC:
		return "C_HDLC";
	case LINKTYPE_LINUX_SLL:
		return "LINUX_SLL";
	case LINKTYPE_IPV4:
		return "IPV4";
	case LINKTYPE_IPV6:
		return "IPV6";
	case LINKTYPE_LINUX_SLL2:
		return "LINUX_SLL2";
	case LINKTYPE_IEEE802_11:
		return "IEEE802_11";
	case LINKTYPE_IEEE802_11_RADIOTAP:
		return "IEEE802_11_RADIOTAP";
	case LINKTYPE_ERF:
		return "ERF";
	default:
		return NULL;
	}
}
