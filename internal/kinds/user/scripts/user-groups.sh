# zap user-groups NAME GROUP...
# Adds the account NAME to each GROUP it isn't in (usermod -a -G; BusyBox's
# addgroup where there is no usermod). Groups not listed are left as they
# are: the list is additive.
set -eu
zap=user-groups
#@include fail
[ $# -ge 2 ] || zap_fail 2 "takes NAME GROUP..."
n=$1
shift
#@include account
have=" $(id -nG "$n") " || zap_fail 93 "there is no account $n"
add=
for g; do
	case $have in
	*" $g "*) ;;
	*) add=${add:+$add,}$g ;;
	esac
done
[ -n "$add" ] || exit 0
if command -v usermod >/dev/null 2>&1; then
	usermod -a -G "$add" "$n"
elif command -v addgroup >/dev/null 2>&1; then
	for g; do
		case $have in
		*" $g "*) ;;
		*) addgroup "$n" "$g" ;;
		esac
	done
else
	zap_fail 93 "neither usermod nor addgroup is here"
fi
