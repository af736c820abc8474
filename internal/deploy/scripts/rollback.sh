# zap deploy's rollback swap: PATH FAILED PREVIOUS OPERATOR arrive on stdin
# ahead of this script (ops.Input). A compare-and-swap under the app's deploy
# lock, never waited for: current goes back to releases/PREVIOUS only while
# it still names FAILED and PREVIOUS is on the host. Prints "swapped", or
# "skip: REASON" and exits 3. deploy_info.json then names PREVIOUS, what
# current names, with the gate passed: a rollback returns only to a release
# that passed its own (a failure to write it is a warning).
set -eu
path=$1 failed=$2 previous=$3 operator=$4
skip() { printf 'skip: %s\n' "$1"; exit 3; }
cd -- "$path" || skip "can't enter $path"
exec 9<.zap-deploy.lock || skip "the deploy lock can't be opened"
flock -n 9 || skip "another deploy holds the app's lock"
if [ ! -L current ]; then skip "current names nothing"; fi
t=$(readlink current)
while [ "${t%/}" != "$t" ]; do t=${t%/}; done
[ "${t##*/}" = "$failed" ] || skip "current no longer names the failed release $failed"
[ -d "releases/$previous" ] || skip "the previous release $previous is gone"
rm -f -- .zap-current
ln -s -- "$path/releases/$previous" .zap-current
mv -T -- .zap-current current
echo swapped
{ printf '{"version":"%s","deployed_by":%s,"deployed_at":"%s","previous":"%s","gate":"passed"}\n' "$previous" "$operator" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$failed" >.deploy_info.json.zap && mv -f -- .deploy_info.json.zap deploy_info.json; } || printf 'warning: %s\n' "couldn't write deploy_info.json"
