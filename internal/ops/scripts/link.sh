# zap link PATH TARGET
# Makes PATH a symbolic link to TARGET. The link is made under a new name in a
# private directory beside PATH and renamed into place, replacing a regular
# file or another link at PATH (where mv can't rename over a link to a
# directory, as BusyBox's can't, that link is removed first). A directory at
# PATH fails (exit 94). Missing parents are made as mkdir -p makes them.
set -eu
path=$1 target=$2
case $path in
/*) ;;
*) echo "zap link: $path is not an absolute path" >&2; exit 2 ;;
esac
if [ -d "$path" ] && [ ! -L "$path" ]; then
	echo "zap link: $path is a directory" >&2
	exit 94
fi
dir=${path%/*}
[ -n "$dir" ] || dir=/
mkdir -p -- "$dir"
tmp=$(mktemp -d "$dir/.zap.XXXXXX")
trap 'rm -f -- "$tmp/link"; rmdir -- "$tmp"' EXIT
trap 'exit 1' HUP INT TERM
ln -s -- "$target" "$tmp/link"
if ! mv -f -T -- "$tmp/link" "$path" 2>/dev/null; then
	if [ -d "$path" ] && [ ! -L "$path" ]; then
		echo "zap link: $path is a directory" >&2
		exit 94
	fi
	if [ -L "$path" ]; then rm -f -- "$path"; fi
	mv -f -T -- "$tmp/link" "$path"
fi
