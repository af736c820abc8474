#!/usr/bin/env bash
# make demo: the whole loop on this machine. Pin the evaluator (zap lock),
# preview, act on the reviewed plan, then read the machine again to show it
# converged.
set -u
cd "$(dirname "$0")"
zap=$(cd ../../bin && pwd)/zap

# zap-eval never evaluates a config as root: run as root, it evaluates as
# the project's owner, and refuses a project root owns. So as root the demo
# runs from a private copy of the project given to the unprivileged account
# nobody; zap itself still acts as root, on root's home.
if [ "$(id -u)" = 0 ] && [ "$(stat -c %u .)" = 0 ]; then
	copy=$(mktemp -d /tmp/zap-demo.XXXXXX)
	trap 'rm -rf "$copy"' EXIT
	cp package.json zap.ts "$copy/"
	chmod 755 "$copy"
	chown -R nobody "$copy"
	cd "$copy"
	echo "(running as root: the demo project is evaluated from $copy, owned by nobody)"
fi
step() { printf '\n\033[1m$ zap %s\033[0m\n' "$*"; }

step lock
"$zap" lock zap.ts || exit $?

step plan
"$zap" plan zap.ts; rc=$?
[ $rc -le 1 ] || exit $rc

step apply --wetrun
"$zap" apply --wetrun zap.ts || exit $?

step apply
"$zap" apply zap.ts; rc=$?

step status
"$zap" status zap.ts

printf '\nThe demo manages ~/zap-demo. Edit ~/zap-demo/hello.txt and run make demo again to see drift repaired.\n'
exit $rc
