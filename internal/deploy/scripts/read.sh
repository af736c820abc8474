# zap deploy's plan-time read of the target: PATH arrives on stdin ahead of
# this script (ops.Input). Prints "user NAME", then "current none",
# "current other", or "current link SEGMENT present|missing", then, when
# there is one, "info " and deploy_info.json on one line (its first 4 KiB).
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
if [ -f "$path/deploy_info.json" ]; then
	printf 'info '
	head -c 4096 -- "$path/deploy_info.json" | tr -d '\n'
	echo
fi
