#!/bin/sh
# Open MPI's launcher for "hosts" that are network namespaces on this
# machine, in ssh's place (mpirun --mca plm_rsh_agent netns_agent.sh).
# Open MPI calls it as it would call ssh:
#   netns_agent.sh HOST COMMAND...
# and COMMAND (the orted daemon's command line) is one shell string split
# into words, as ssh would hand it to the remote shell. HOST is the name of
# the namespace (two_hosts.sh gives each namespace its host's name).
#
# The daemon also gets a UTS namespace whose hostname is HOST. Open MPI
# groups ranks into nodes by the daemon that launched them, not by hostname
# (MPI_COMM_TYPE_SHARED is right either way), but it names its session
# directory (/tmp/ompi.HOSTNAME.UID) and the shared-memory segments of its
# vader transport (/dev/shm/vader_segment.HOSTNAME.*) after the hostname, and
# /tmp and /dev/shm are the machine's: with the machine's hostname on every
# "host", local rank 0 of each host maps the same segment and the ranks
# crash in mca_btl_vader_poll_handle_frag (seen with Open MPI 4.1.4).
set -eu
host=$1
shift
# shellcheck disable=SC2016 # $1 and $* belong to the inner shell
exec ip netns exec "$host" unshare --uts sh -c 'hostname "$1" && shift && exec sh -c "$*"' \
  netns_agent "$host" "$@"
