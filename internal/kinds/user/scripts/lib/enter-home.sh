# The entry into an account's home user-home and user-keys share, put in
# place where each says `#@include enter-home` (so each still travels
# whole; its text is what plan_hash covers). The including script is in
# /home (cd -P), has refused a symbolic link or anything but a directory at
# $n, and sets n (the account), home (/home/$n) and uid ($n's uid) and
# includes fail first. It enters $n (cd -P), which must then be the
# directory at /home/$n, owned by the account or by root; anything else
# exits 94. It sets the positional parameters.
up=$(stat -c '%d:%i' .)
cd -P -- "./$n"
st=$(stat -c '%d:%i %u' . .. "../$n" 2>/dev/null) || st=
set -- $st
if [ $# != 6 ] || [ "$3" != "$up" ] || [ "$5" != "$1" ]; then
	zap_fail 94 "$home changed while it was entered: it is not the directory at its name"
fi
[ "$2" = 0 ] || [ "$2" = "$uid" ] || zap_fail 94 "$home is owned by uid $2 ($n's uid is $uid): chown it to $n, or to root"
