# zap deploy's upload: PATH NAME SHA512 arrive on stdin ahead of this script
# (ops.Input); the archive follows it as the body of the here-document the
# last line opens (ops.PutInput). The archive is staged beside NAME in PATH
# as the connecting user, mode 600, checked against SHA512, then renamed in.
set -eu
umask 077
zap_install() {
	path=$1 name=$2 want=$3
	cd -- "$path" || { echo "stop: can't enter $path" >&2; exit 1; }
	part=$(mktemp "./$name.part-XXXXXX")
	trap 'rm -f -- "$part"' EXIT
	base64 -d >"$part" || { echo "stop: the archive that arrived is not the archive sent" >&2; exit 1; }
	set -- $(sha512sum <"$part")
	[ "$1" = "$want" ] || { echo "stop: the archive that arrived is not the archive sent" >&2; exit 1; }
	chmod 600 "$part"
	mv -f -- "$part" "./$name"
}
zap_install "$@" <<'__zap_content_end__'
