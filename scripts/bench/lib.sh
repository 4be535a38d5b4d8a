# shellcheck shell=bash
# SPDX-License-Identifier: BSD-2-Clause
# Sourced by the benchmarks in this directory.

# links_up NS IF [NS IF ...]: wait until every interface IF in namespace NS
# (- for this one) is "state UP" (at most 10 s; then the benchmark stops with an error).  Up but
# not yet UP, a device still has the noop qdisc, which drops every frame: the
# kernel attaches its real qdisc and sets the operational state from its
# link-watch work, which runs about once a second (scripts/rfc2544.sh says
# what waiting for less cost).  A fixed sleep is either too long or, on a
# busy machine, too short.
links_up() {
	local args=("$@") k
	for _ in $(seq 200); do
		for ((k = 0; k + 1 < ${#args[@]}; k += 2)); do
			if [ "${args[k]}" = - ]; then
				ip link show "${args[k + 1]}"
			else
				ip -n "${args[k]}" link show "${args[k + 1]}"
			fi 2>/dev/null | grep -q "state UP" || break
		done
		[ $((k + 1)) -ge ${#args[@]} ] && return 0
		sleep 0.05
	done
	echo "${0##*/}: ${args[k + 1]} in namespace ${args[k]} is not up after 10 s" >&2
	exit 1
}

# veth_pair NA IA NB IB [QUEUES [MTU]]: namespaces NA and NB (created here)
# joined by a veth pair IA--IB of QUEUES queues a side (default 1), both UP.
# Only the benchmark's frames cross: no IPv6 (DAD, router and listener
# solicitations), no multicast.  MTU, when given, is set on both ends.
veth_pair() {
	local na=$1 ia=$2 nb=$3 ib=$4 q=${5:-1} mtu=${6:-} s n i
	ip netns add "$na"
	ip netns add "$nb"
	ip link add "$ia" netns "$na" numtxqueues "$q" numrxqueues "$q" type veth \
		peer name "$ib" netns "$nb" numtxqueues "$q" numrxqueues "$q"
	for s in "$na $ia" "$nb $ib"; do
		read -r n i <<<"$s"
		ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1
		ip -n "$n" link set "$i" multicast off ${mtu:+mtu "$mtu"} up
	done
	links_up "$na" "$ia" "$nb" "$ib"
}

# far_counter NS IF: count every frame and byte that reaches IF's ingress hook
# in NS -- the far side's own count (an nftables netdev counter; this kernel
# has no tc classifiers).  far_read NS: "packets bytes" counted so far.
far_counter() {
	ip netns exec "$1" nft add table netdev bench
	ip netns exec "$1" nft "add chain netdev bench in { type filter hook ingress device $2 priority 0; }"
	ip netns exec "$1" nft add rule netdev bench in counter
}
far_read() {
	ip netns exec "$1" nft list chain netdev bench in | awk '/counter packets/ {print $3, $5; exit}'
}
