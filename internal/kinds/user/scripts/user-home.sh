# zap user-home NAME MODE
# Sets the mode of the account NAME's home, /home/NAME, to the octal MODE.
#
# The directory is entered from /home (cd -P, no link followed at NAME)
# and must be, once entered, the directory at /home/NAME, owned by the
# account or by root; the mode is set on the directory entered (.), never
# through a name. A symbolic link, anything but a directory, nothing there
# or another owner is refused (exit 94), and nothing is changed.
set -eu
unset CDPATH
zap=user-home
#@include fail
[ $# -eq 2 ] || zap_fail 2 "takes NAME MODE"
n=$1 mode=$2
#@include account
case $mode in
'' | *[!0-7]*) zap_fail 2 "$mode is not an octal mode" ;;
esac
home=/home/$n
uid=$(id -u "$n" 2>/dev/null) || zap_fail 93 "there is no account $n"
cd -P /home 2>/dev/null || zap_fail 94 "/home is missing"
if [ -L "./$n" ]; then
	zap_fail 94 "$home is a symbolic link: zap acts through no link it didn't make"
elif [ ! -e "./$n" ]; then
	zap_fail 94 "$home doesn't exist"
elif [ ! -d "./$n" ]; then
	zap_fail 94 "$home is in the way: it is not a directory"
fi
#@include enter-home
# Five digits: GNU chmod keeps a directory's set-id bits otherwise.
chmod -- "$(printf '%05o' $((0$mode)))" .
