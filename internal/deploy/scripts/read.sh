# zap deploy's plan-time read of the target: PATH arrives on stdin ahead of
# this script (ops.Input). Prints "user NAME", then "current none",
# "current other", or "current link SEGMENT present|missing".
set -eu
path=$1
printf 'user %s\n' "$(id -un)"
if [ -L "$path/current" ]; then
	t=$(readlink "$path/current")
	while [ "${t%/}" != "$t" ]; do t=${t%/}; done
	s=${t##*/}
	if [ -n "$s" ] && [ -d "$path/releases/$s" ]; then
		printf 'current link %s present\n' "$s"
	else
		printf 'current link %s missing\n' "$s"
	fi
elif [ -e "$path/current" ]; then
	echo "current other"
else
	echo "current none"
fi
