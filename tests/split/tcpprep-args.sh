# shellcheck shell=bash
# tcpprep_args MODE: the tcpprep 4.6 arguments for a --split MODE, in the array ARGS.
tcpprep_args() {
	case $1 in
	cidr:*) ARGS=(-c "${1#cidr:}") ;;
	mac:*) ARGS=(-e "${1#mac:}") ;;
	port) ARGS=(-p) ;;
	*) ARGS=(-a "$1") ;;
	esac
}
