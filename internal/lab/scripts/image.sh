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

apt-get update -qq
case $kind in
systemd)
	apt-get install -y -qq --no-install-recommends \
		systemd systemd-sysv dbus openssh-server sudo passwd iproute2 ca-certificates >/dev/null
	# Each boot makes its own machine id.
	: >/etc/machine-id
	rm -f /var/lib/dbus/machine-id
	;;
openrc)
	apt-get install -y -qq --no-install-recommends \
		openrc busybox openssh-server sudo passwd iproute2 ca-certificates >/dev/null
	# Debian's openrc has no localmount (Alpine's scripts `need` it): a
	# lab host's file systems are all mounted before openrc-init starts, so
	# it is a service that only marks them there.
	cat >/etc/init.d/localmount <<'RC'
#!/sbin/openrc-run
# The lab's localmount: a host's file systems are mounted before
# openrc-init starts; this only provides the name scripts need.
description="Local file systems (mounted before boot on a lab host)"
depend() {
	provide localmount
}
start() {
	ebegin "Local file systems already mounted"
	eend 0
}
RC
	chmod 755 /etc/init.d/localmount
	rc-update add localmount boot >/dev/null
	# Debian's sysinit scripts that need sysvinit's mount services (absent
	# here) and set the machine's clock and sysctls: not a guest's to do.
	rc-update del hwclock.sh sysinit >/dev/null 2>&1 || true
	rc-update del procps sysinit >/dev/null 2>&1 || true
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
