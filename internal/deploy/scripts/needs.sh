# zap deploy's plan-time check of what the target needs: SUDO (yes when the
# deploy restarts a service) arrives on stdin ahead of this script
# (ops.Input). Prints "missing TOOL" for each tool the upload, release,
# rollback and gate scripts use that the target's PATH lacks, and "nosudo"
# when SUDO is yes and the connecting user can't run sh through sudo
# without a password (the restart's sudo -n sh). Changes nothing.
set -u
for t in flock tar gzip sha512sum base64 stat mktemp readlink find sed head; do
	command -v "$t" >/dev/null 2>&1 || printf 'missing %s\n' "$t"
done
if [ "$1" = yes ]; then
	sudo -n sh -c : </dev/null >/dev/null 2>&1 || echo nosudo
fi
exit 0
