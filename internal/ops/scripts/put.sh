# zap put PATH MODE OWNER GROUP SHA512 LENGTH
# Installs a file whole. The content follows this script on stdin, LENGTH
# bytes of it. It is staged beside PATH under a new name (mode 600), checked
# against SHA512, given OWNER, GROUP and MODE (each may be empty: kept), and
# renamed into place. A link at PATH is replaced, never followed.
set -eu
path=$1 mode=$2 owner=$3 group=$4 want=$5 length=$6
dir=${path%/*}
[ -n "$dir" ] || dir=/
umask 077
tmp=$(mktemp "$dir/.zap.XXXXXX")
trap 'rm -f -- "$tmp"' EXIT
head -c "$length" > "$tmp"
got=$(sha512sum < "$tmp")
got=${got%% *}
if [ "$got" != "$want" ]; then
	echo "zap put: the content that arrived is not the content sent" >&2
	exit 93
fi
if [ -n "$owner$group" ]; then chown -h -- "$owner${group:+:$group}" "$tmp"; fi
if [ -n "$mode" ]; then chmod -- "$mode" "$tmp"; fi
if [ -d "$path" ] && [ ! -L "$path" ]; then
	echo "zap put: $path is a directory" >&2
	exit 94
fi
mv -f -T -- "$tmp" "$path"
trap - EXIT
