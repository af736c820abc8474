# zap put-stream PATH MODE OWNER GROUP, then on stdin SHA512 LENGTH
# [snapshot|remove] and the content
# The put script (put.sh, whose every rule holds here: the same walk,
# stage, checks and exits, from the same shared text) as a put whose
# content is too large to hold runs it: `sh -c` with this text and PATH
# MODE OWNER GROUP on its argv, so nothing on stdin is script for a shell to
# parse or read ahead of. Stdin holds the other arguments, framed
# (ops.StreamInput, read by lib/stdin.sh's zap_stdin a byte at a time), and
# then the content's raw bytes, which cat copies into the staged file as
# they arrive: no here-document holds them, where dash and BusyBox's ash
# read a here-document's whole body into memory before the command runs.
# A plan whose put fetches remote content carries this script's name, so
# plan_hash covers its text and how it is run.
set -eu
zap=put
#@include walk
#@include stage
#@include stdin
#@include put
# zap_content: writes the content on stdout as it arrives.
zap_content() { cat; }
zap_stdin zap_put "$@"
