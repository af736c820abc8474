#!/usr/bin/env bash
# make demo: the whole loop on this machine. Pin the evaluator (zap lock),
# preview, act on the reviewed plan, then read the machine again to show it
# converged.
set -u
cd "$(dirname "$0")"
zap=../../bin/zap
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
