# zap deploy's record of a release's gate: PATH VERSION VERDICT arrive on
# stdin ahead of this script (ops.Input). Under the app's deploy lock
# (waited for, up to 30 seconds), and only while current names VERSION and
# deploy_info.json is that release's, sets deploy_info.json's gate to
# VERDICT (passed or failed): the plan of the next deploy reads it, and a
# release whose gate isn't passed is not live to it. Prints "skip: REASON"
# and exits 3 when current or deploy_info.json moved on.
set -eu
path=$1 version=$2 verdict=$3
skip() { printf 'skip: %s\n' "$1"; exit 3; }
cd -- "$path"
exec 9<.zap-deploy.lock
flock -w 30 9
[ -L current ] || skip "current names nothing"
t=$(readlink current)
while [ "${t%/}" != "$t" ]; do t=${t%/}; done
[ "${t##*/}" = "$version" ] || skip "current no longer names $version"
[ -f deploy_info.json ] || skip "there is no deploy_info.json"
info=$(head -c 4096 deploy_info.json)
case $info in
*'"version":"'"$version"'"'*'"gate":"'*) ;;
*) skip "deploy_info.json no longer names $version" ;;
esac
printf '%s\n' "$info" | sed 's/"gate":"[a-z]*"/"gate":"'"$verdict"'"/' >.deploy_info.json.zap
mv -f -- .deploy_info.json.zap deploy_info.json
