#!/usr/bin/env bash
# Starts or stops a single-node Slurm on this machine, for Gambit's own Slurm test and for trying
# `gambit slurm` without a cluster. Needs root and Debian's slurm-wlm and munge (scripts/install-deps.sh).
#
#   scripts/slurm/local-cluster.sh start STATE_DIR   # prints: export SLURM_CONF=STATE_DIR/slurm.conf
#   scripts/slurm/local-cluster.sh stop STATE_DIR    # stops the daemons it started, by their pid files
#
# Everything (configuration, munge key and socket, spool, logs, pid files) lives in STATE_DIR; the
# configuration is scripts/slurm/slurm.conf.in with this machine's name, cores and two free ports.
# SLURM_CONTROLLER_PORT and SLURM_NODE_PORT choose the ports (default: 16817 and 16818), SLURM_NODE_CPUS
# the CPUs the node offers (default: this machine's; more lets more tasks run at once than it has cores).
set -euo pipefail

usage() { echo "usage: $0 start|stop STATE_DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage
action=$1
state=$(realpath -m "$2")
here=$(cd "$(dirname "$0")" && pwd)
daemons=(slurmd slurmctld munged)

pid_file() { echo "$state/$1.pid"; }

# True while a process runs: it exists and is not a zombie (whose parent, here often init, may never reap it).
alive() { [ -r "/proc/$1/stat" ] && [ "$(sed -E 's/.*\) ([A-Za-z]).*/\1/' "/proc/$1/stat" 2>/dev/null)" != Z ]; }

stop() {
    local name pid
    for name in "${daemons[@]}"; do
        [ -f "$(pid_file "$name")" ] || continue
        pid=$(cat "$(pid_file "$name")")
        if alive "$pid"; then kill "$pid" 2>/dev/null || true; fi
        for _ in $(seq 100); do alive "$pid" || break; sleep 0.1; done
        if alive "$pid"; then kill -9 "$pid" 2>/dev/null || true; fi
        rm -f "$(pid_file "$name")"
    done
}

# Runs a daemon with none of this script's descriptors: no terminal, no output of ours, and nothing else
# inherited (a caller that waits for our output to end, or for a descriptor it gave us to close, as
# Foundation's Process does, would otherwise wait for the daemon). It writes to daemons.out and its log.
detached() {
    (
        for fd in /proc/self/fd/*; do
            fd=${fd##*/}
            if [ "$fd" -gt 2 ]; then eval "exec $fd>&-" 2>/dev/null || true; fi
        done
        exec "$@"
    ) </dev/null >>"$state/daemons.out" 2>&1
}

start() {
    [ "$(id -u)" -eq 0 ] || { echo "error: a local Slurm runs its daemons as root" >&2; exit 2; }
    for tool in munged slurmctld slurmd sbatch scontrol; do
        command -v "$tool" >/dev/null || { echo "error: $tool not found (scripts/install-deps.sh installs it)" >&2; exit 2; }
    done
    mkdir -p "$state/munge" "$state/controller" "$state/node"
    chmod 700 "$state/munge"
    # A key of our own, so a munged already on this machine is neither used nor disturbed.
    [ -f "$state/munge/key" ] || { head -c 1024 /dev/urandom > "$state/munge/key"; chmod 400 "$state/munge/key"; }
    local host cpus
    host=$(hostname -s)
    cpus=${SLURM_NODE_CPUS:-$(nproc)}
    sed -e "s|@HOST@|$host|g" -e "s|@CPUS@|$cpus|g" -e "s|@STATE@|$state|g" \
        -e "s|@CONTROLLER_PORT@|${SLURM_CONTROLLER_PORT:-16817}|g" -e "s|@NODE_PORT@|${SLURM_NODE_PORT:-16818}|g" \
        "$here/slurm.conf.in" > "$state/slurm.conf"
    export SLURM_CONF=$state/slurm.conf
    # --force: munged refuses a key or folders whose owner or mode it dislikes; here they are root's own.
    detached munged --force --socket="$state/munge/socket" --key-file="$state/munge/key" \
        --pid-file="$(pid_file munged)" --seed-file="$state/munge/seed" --log-file="$state/munge/log"
    detached slurmctld -f "$SLURM_CONF"
    detached slurmd -f "$SLURM_CONF"
    # Ready when the node takes jobs.
    for _ in $(seq 300); do
        if scontrol show node "$host" 2>/dev/null | grep -Eq "State=IDLE"; then
            echo "export SLURM_CONF=$SLURM_CONF"
            return 0
        fi
        sleep 0.1
    done
    echo "error: the local Slurm did not come up in 30 s; its logs are in $state" >&2
    tail -n 20 "$state/slurmctld.log" "$state/slurmd.log" >&2 || true
    stop
    exit 1
}

case $action in
    start) start ;;
    stop) stop ;;
    *) usage ;;
esac
