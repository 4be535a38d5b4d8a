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
