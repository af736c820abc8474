# zap link PATH TARGET
# Makes PATH a symbolic link to TARGET. A link or regular file at PATH is
# replaced; a directory there fails.
set -eu
path=$1 target=$2
if [ -d "$path" ] && [ ! -L "$path" ]; then
	echo "zap link: $path is a directory" >&2
	exit 94
fi
dir=${path%/*}
[ -n "$dir" ] || dir=/
mkdir -p -- "$dir"
tmp="$dir/.zap.$$.link"
ln -s -- "$target" "$tmp"
mv -f -T -- "$tmp" "$path"
