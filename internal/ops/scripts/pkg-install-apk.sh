# zap pkg-install-apk NAME...
# Installs one batch of packages in one apk add, each NAME added to the
# world as declared. Runs as root, with no terminal: apk reads nothing from
# the script's stdin (</dev/null).
#
# Each NAME is one word of apk's syntax (name, name=version, name~version,
# name@tag, so:lib, cmd:tool; a letter or digit, then letters, digits and
# + . _ - = ~ : / @, not ending in -), checked when the config was read and
# again here.
# A wrong argument exits 93; apk's own failure is its exit status.
set -eu
zap=pkg-install-apk
zap_fail() {
	echo "zap $zap: $2" >&2
	exit "$1"
}
[ $# -gt 0 ] || zap_fail 93 "want one or more package names, not 0"
# The letters spelled out: a range's meaning depends on the locale.
alnum=abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789
for name in "$@"; do
	case $name in
	'' | [!$alnum]* | *[!$alnum+._=~:/@-]* | *-) zap_fail 93 "not a package name: $name" ;;
	esac
done
exec apk add -- "$@" </dev/null
