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
# Each step's command in bold, only on a terminal (TERM set, not dumb) and
# never with NO_COLOR, as zap itself colours: piped, the output is plain.
bold='' plain=''
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ] && [ -n "${TERM:-}" ] && [ "$TERM" != dumb ]; then
	bold=$(printf '\033[1m') plain=$(printf '\033[0m')
fi
step() { printf '\n%s$ zap %s%s\n' "$bold" "$*" "$plain"; }

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
printf 'To run zap on a config of your own (README: Your first config), install it and put it on your PATH:\n'
printf '  make install\n  export PATH="$HOME/.zap/bin:$PATH"\n'
exit $rc
