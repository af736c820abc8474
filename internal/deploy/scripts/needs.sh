# zap deploy's plan-time check of what the target needs: SUDO (yes when the
# deploy restarts a service), MANAGER (systemd or openrc) and SERVICE
# arrive on stdin ahead of this script (ops.Input). Prints "missing TOOL"
# for each tool the upload, release, rollback and gate scripts use that the
# target's PATH lacks; "nosudo" when SUDO is yes and the connecting user
# can't run true and sh through sudo without a password (the engine's
# sudo -n true check, then the restart's sudo -n sh);
# "nomanager" when the declared service manager isn't running the host;
# "nounit" when it knows no SERVICE. Changes nothing.
set -u
for t in flock tar gzip sha512sum cat stat mktemp readlink find sed head; do
	command -v "$t" >/dev/null 2>&1 || printf 'missing %s\n' "$t"
done
if [ "$1" = yes ]; then
	{ sudo -n true && sudo -n sh -c :; } </dev/null >/dev/null 2>&1 || echo nosudo
	case $2 in
	systemd)
		# /run/systemd/system is there when systemd booted the host.
		if [ ! -d /run/systemd/system ]; then
			echo nomanager
		elif ! systemctl cat -- "$3" </dev/null >/dev/null 2>&1; then
			echo nounit
		fi
		;;
	openrc)
		# /run/openrc is OpenRC's own state, there once it booted the host;
		# rc-service is under /sbin, often not on a login user's PATH.
		if [ ! -d /run/openrc ]; then
			echo nomanager
		elif [ ! -e "/etc/init.d/$3" ]; then
			echo nounit
		fi
		;;
	esac
fi
exit 0
