# The arguments a streamed script (put-stream, extract, build) takes on
# stdin ahead of its payload, framed by ops.StreamInput. ops.Script puts
# this text where a script says `#@include stdin`, after the part that
# defines zap_fail; its text is what plan_hash covers.
# zap_stdin FUNC ARG...: runs FUNC with ARG... and then the arguments read
# off stdin: a line with their count, then each as a line with the count of
# its lines and those lines. The shell's read takes a pipe a byte at a
# time, so nothing past the last of them is read ahead: what FUNC reads on
# stdin is the payload's first byte on. A frame that isn't whole, or a
# count that isn't a number, is exit 93.
zap_stdin() {
	IFS= read -r zap_n || zap_fail 93 "the arguments on stdin didn't arrive whole"
	zap_number "$zap_n"
	while [ "$zap_n" -gt 0 ]; do
		IFS= read -r zap_k || zap_fail 93 "the arguments on stdin didn't arrive whole"
		zap_number "$zap_k"
		[ "$zap_k" -gt 0 ] || zap_fail 93 "the arguments on stdin are not framed as sent"
		IFS= read -r zap_v || zap_fail 93 "the arguments on stdin didn't arrive whole"
		while [ "$zap_k" -gt 1 ]; do
			IFS= read -r zap_l || zap_fail 93 "the arguments on stdin didn't arrive whole"
			zap_v="$zap_v
$zap_l"
			zap_k=$((zap_k - 1))
		done
		set -- "$@" "$zap_v"
		zap_n=$((zap_n - 1))
	done
	unset zap_n zap_k zap_v zap_l
	"$@"
}
# zap_number N: exit 93 unless N is a count, in decimal without a leading
# zero, of at most 6 digits.
zap_number() {
	case $1 in
	'' | 0?* | *[!0-9]* | ???????*) zap_fail 93 "the arguments on stdin are not framed as sent" ;;
	esac
}
