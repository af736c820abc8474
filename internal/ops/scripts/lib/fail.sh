# zap_fail STATUS MESSAGE: says MESSAGE on stderr as the script $zap (which
# the including script sets first) and exits STATUS. ops.Script puts this
# text where a script says `#@include fail`; its text is what plan_hash
# covers.
zap_fail() {
	echo "zap $zap: $2" >&2
	exit "$1"
}
