# The release script's constant body. The lines before it (written by
# deploy.Script) set path, version, user, live_state, live, keep, shared,
# operator and when; prepare() runs the prepare commands. The archive's
# SHA-512 is $1, set on stdin ahead of the script. What it prints on stdout
# is marked lines: "warning: ...", "swapped", "stop: ..." (then exit 1).
set -eu
umask 022
zap_stop() { printf 'stop: %s\n' "$1"; exit 1; }
zap_warn() { printf 'warning: %s\n' "$1"; }
# zap_segment: the last segment of current's target, trailing slashes
# dropped; "-" for something at current that isn't a link, "" for nothing.
zap_segment() {
	if [ -L current ]; then
		t=$(readlink current)
		while [ "${t%/}" != "$t" ]; do t=${t%/}; done
		printf '%s\n' "${t##*/}"
	elif [ -e current ]; then
		printf -- '-\n'
	fi
}
zap_is_release() {
	v=${1%-dirty-*}
	case ${1#"$v"} in
	"" | -dirty-[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]) ;;
	*) return 1 ;;
	esac
	case $v in "" | *[!0-9a-f]*) return 1 ;; esac
	[ ${#v} -ge 4 ] && [ ${#v} -le 64 ]
}
want=$1
archive=.zap-deploy-$user-$version.tar.gz
cd -- "$path" || zap_stop "can't enter $path"
staging=
trap 'rm -f -- "$path/$archive"; [ -z "$staging" ] || rm -rf -- "$path/releases/.zap-stage"' EXIT
trap 'exit 1' HUP INT TERM
# The archive: opened once, then checked and extracted through the open file.
[ -f "./$archive" ] && [ ! -L "./$archive" ] || zap_stop "no archive $archive in $path (another deploy of this version may have removed it)"
exec 8<"./$archive"
a=/proc/$$/fd/8
set -- $(stat -L -c '%u %a %F' $a)
if [ "$1" != "$(id -u)" ] || [ "$3 ${4:-}" != "regular file" ] || [ $((0$2 & 022)) -ne 0 ]; then
	zap_stop "the archive $archive is not a regular file of $user's that no one else can write"
fi
set -- $(sha512sum <$a)
[ "$1" = "$want" ] || zap_stop "the archive $archive doesn't have the digest the deploy sent"
# lock: held until the script exits; never waited for.
if [ ! -e .zap-deploy.lock ]; then (umask 037 && : >>.zap-deploy.lock); fi
exec 9<.zap-deploy.lock
flock -n 9 || zap_stop "another deploy is running for this app"
# recover what an unfinished deploy left.
mkdir -p releases
if [ -e releases/.zap-stage ] || [ -L releases/.zap-stage ]; then
	rm -rf -- releases/.zap-stage
	zap_warn "removed releases/.zap-stage, which an unfinished deploy left"
fi
for old in releases/.zap-old-*; do
	[ -e "$old" ] || [ -L "$old" ] || continue
	v=${old#releases/.zap-old-}
	if [ -e "releases/$v" ] || [ -L "releases/$v" ]; then
		rm -rf -- "$old"
		zap_warn "removed $old, which an unfinished deploy moved aside (releases/$v is filled)"
	else
		mv -T -- "$old" "releases/$v"
		zap_warn "put $old back as releases/$v, where an unfinished deploy left it aside"
	fi
done
# check: current is what the plan read.
now=$(zap_segment)
case $live_state in
none) [ -z "$now" ] || zap_stop "current changed since this deploy was planned (it was absent)" ;;
unreadable) [ -z "$now" ] || zap_stop "current couldn't be read when this deploy was planned, and the host has one" ;;
*) [ "$now" = "$live" ] || zap_stop "current changed since this deploy was planned (it named $live)" ;;
esac
# extract, link shared, prepare.
mkdir releases/.zap-stage
staging=1
out=$(tar -x -z -o -f $a -C releases/.zap-stage 2>&1) || zap_stop "the archive doesn't extract: $(printf '%s' "$out" | tail -n 1)"
find releases/.zap-stage -type f -perm /6000 -exec chmod ug-s {} +
for s in $shared; do
	t=releases/.zap-stage/$s
	if [ -d "$t" ] && [ ! -L "$t" ]; then zap_stop "the release ships a directory at the shared name $s"; fi
	rm -f -- "$t"
	ln -s -- "$path/shared/$s" "$t"
done
(cd releases/.zap-stage && prepare) 9<&- >&2 || zap_stop "a prepare command failed (exit $?)"
# place and swap.
if [ -e "releases/$version" ] || [ -L "releases/$version" ]; then
	mv -T -- "releases/$version" "releases/.zap-old-$version"
fi
mv -T -- releases/.zap-stage "releases/$version"
staging=
rm -f -- .zap-current
ln -s -- "$path/releases/$version" .zap-current
mv -T -- .zap-current current
echo swapped
# housekeeping: a failure from here is a warning.
set +e
rm -rf -- "releases/.zap-old-$version" || zap_warn "couldn't remove releases/.zap-old-$version"
if [ "$live_state" = release ]; then previous=$live; else previous=; fi
# gate: pending until the run records its checks' verdict (gate.sh): a
# release is live only once it passed them.
{ printf '{"version":"%s","deployed_by":%s,"deployed_at":"%s","previous":"%s","gate":"pending"}\n' "$version" "$operator" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$previous" >.deploy_info.json.zap && mv -f -- .deploy_info.json.zap deploy_info.json; } || zap_warn "couldn't write deploy_info.json"
zap_prune() {
	if ! command -v sort >/dev/null 2>&1; then
		zap_warn "the target has no sort: no release was pruned"
		return 0
	fi
	cur=$(zap_segment)
	if [ "$cur" != "$version" ]; then
		zap_warn "current doesn't name the new release: no release was pruned"
		return 0
	fi
	n=1
	[ -z "$previous" ] || [ ! -d "releases/$previous" ] || n=2
	(cd releases && stat -c '%Y %n' -- * 2>/dev/null) | sort -rn | while read -r _ name; do
		zap_is_release "$name" || continue
		[ "$name" != "$version" ] && [ "$name" != "$previous" ] || continue
		[ -d "releases/$name" ] && [ ! -L "releases/$name" ] || continue
		if [ "$n" -lt "$keep" ]; then
			n=$((n + 1))
		else
			rm -rf -- "releases/$name" || zap_warn "couldn't prune releases/$name"
		fi
	done
}
zap_prune
exit 0
