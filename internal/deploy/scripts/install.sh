# zap deploy's upload, a streamed operation: run as `sh -c SCRIPT sh`
# (ops.StreamInvocation), it reads PATH NAME SHA512 framed on stdin
# (ops.StreamInput, zap_stdin below), then the archive's raw bytes to the
# end of stdin. The archive is staged beside NAME in PATH as the connecting
# user, mode 600, checked against SHA512, then renamed in: a transfer cut
# short installs nothing.
set -eu
umask 077
zap_fail() { echo "stop: the archive that arrived is not the archive sent ($2)" >&2; exit 1; }
#@include stdin
zap_install() {
	path=$1 name=$2 want=$3
	cd -- "$path" || { echo "stop: can't enter $path" >&2; exit 1; }
	part=$(mktemp "./$name.part-XXXXXX")
	trap 'rm -f -- "$part"' EXIT
	cat >"$part" || { echo "stop: the archive that arrived is not the archive sent" >&2; exit 1; }
	set -- $(sha512sum <"$part")
	[ "$1" = "$want" ] || { echo "stop: the archive that arrived is not the archive sent" >&2; exit 1; }
	chmod 600 "$part"
	mv -f -- "$part" "./$name"
}
zap_stdin zap_install
