#!/bin/sh
# Boots an OpenRC lab host: run as the first process of new mount, uts,
# ipc, pid and cgroup namespaces (unshare -m -u -i -p -C -f) inside the
# host's network namespace. $1 is the host's root, $2 its host name. Mounts
# proc, sysfs, /run and a /dev of its own, then execs openrc-init as PID 1
# in the root.
set -eu
root=$1
mount -t proc proc "$root/proc"
mount -t sysfs -o ro sysfs "$root/sys" || true
mount -t tmpfs -o mode=755,nosuid,nodev tmpfs "$root/run"
mount -t tmpfs -o mode=755,nosuid tmpfs "$root/dev"
for d in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
	name=${d%%:*}
	mm=${d#*:}
	mknod -m 666 "$root/dev/$name" c "${mm%:*}" "${mm#*:}"
done
mkdir -p "$root/dev/pts" "$root/dev/shm"
mount -t devpts -o newinstance,ptmxmode=0666,mode=620,gid=5 devpts "$root/dev/pts"
ln -s pts/ptmx "$root/dev/ptmx"
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$root/dev/shm"
ln -s /proc/self/fd "$root/dev/fd"
ln -s /proc/self/fd/0 "$root/dev/stdin"
ln -s /proc/self/fd/1 "$root/dev/stdout"
ln -s /proc/self/fd/2 "$root/dev/stderr"
hostname "$2"
cd "$root"
exec chroot . /sbin/openrc-init
