#!/bin/sh
# Turns a copy of the base image into a lab image. Runs inside the copy's
# chroot (proc, sys and dev mounted by the caller) with the machine's
# network; $1 is the kind: systemd or openrc.
set -eu
export DEBIAN_FRONTEND=noninteractive LC_ALL=C
kind=$1

# The image's own policy-rc.d, so apt starts nothing while the image is
# built; removed at the end, so a host's apt starts services as usual.
printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
chmod 755 /usr/sbin/policy-rc.d

# The base's package lists, from debootstrap, serve unless the mirror has
# moved on since: then they are updated and the install tried again.
install() {
	apt-get install -y -qq --no-install-recommends "$@" >/dev/null ||
		{ apt-get update -qq && apt-get install -y -qq --no-install-recommends "$@" >/dev/null; }
}
case $kind in
systemd)
	install \
		systemd systemd-sysv dbus openssh-server sudo passwd iproute2 ca-certificates
	# Each boot makes its own machine id.
	: >/etc/machine-id
	rm -f /var/lib/dbus/machine-id
	;;
openrc)
	install \
		openrc busybox openssh-server sudo passwd iproute2 ca-certificates
	# Debian's openrc has no localmount and no net, which Alpine's scripts
	# `need`: a lab host's file systems are mounted and its network set up
	# before openrc-init starts, so each is a service in boot that only
	# provides the name.
	stub() { # stub NAME PROVIDES DESCRIPTION
		cat >"/etc/init.d/$1" <<RC
#!/sbin/openrc-run
# The lab's $2: done before openrc-init starts; this only provides the name.
description="$3"
depend() {
	provide $2
}
start() {
	ebegin "$3"
	eend 0
}
RC
		chmod 755 "/etc/init.d/$1"
		rc-update add "$1" boot >/dev/null
	}
	stub localmount localmount "Local file systems (mounted before boot on a lab host)"
	stub zaplab-net net "Network (set up before boot on a lab host)"
	# Debian's scripts that need sysvinit's mount services (absent here)
	# and would set the machine's clock and sysctls: not a guest's to do.
	rc-update del hwclock.sh sysinit >/dev/null 2>&1 || true
	rc-update del procps sysinit >/dev/null 2>&1 || true
	rm -f /etc/init.d/hwclock.sh /etc/init.d/procps
	# OpenRC's cgroups service mounts every v1 controller the kernel has,
	# which makes new hierarchies in the machine's kernel that live and die
	# with the host (a systemd host booting beside it then fails to mount
	# one that was listed a moment before), and sets a release agent the
	# kernel runs on the machine's own root. A lab host is booted in its own
	# cgroup namespace, where neither is allowed; it mounts no cgroups.
	rc-update del cgroups sysinit >/dev/null 2>&1 || true
	rm -f /etc/init.d/cgroups
	;;
*)
	echo "image.sh: unknown kind $kind" >&2
	exit 2
	;;
esac

# The test account: key login, NOPASSWD sudo. Its password field is * (no
# password, not locked), so sshd lets its key in.
useradd -m -s /bin/bash -p '*' zaptest
echo 'zaptest ALL=(ALL) NOPASSWD: ALL' >/etc/sudoers.d/zaptest
chmod 440 /etc/sudoers.d/zaptest

# Each host gets its own host key, written before it boots.
rm -f /etc/ssh/ssh_host_*
echo 'HostKey /etc/ssh/ssh_host_ed25519_key' >/etc/ssh/sshd_config.d/zaplab.conf

# No package lists: a host's apt updates through the cacher like a fresh
# machine's, and no list in a cached image goes stale.
apt-get clean
rm -rf /var/lib/apt/lists/*
rm -f /usr/sbin/policy-rc.d
