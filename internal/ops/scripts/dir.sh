# zap dir PATH MODE OWNER GROUP
# Makes a directory and any missing parents, then sets MODE, OWNER and GROUP
# (each may be empty: left as it is) on the directory itself. A link at PATH
# is refused.
set -eu
path=$1 mode=$2 owner=$3 group=$4
if [ -L "$path" ]; then
	echo "zap dir: $path is a symbolic link" >&2
	exit 94
fi
mkdir -p -- "$path"
if [ -n "$owner$group" ]; then chown -h -- "$owner${group:+:$group}" "$path"; fi
if [ -n "$mode" ]; then chmod -- "$mode" "$path"; fi
