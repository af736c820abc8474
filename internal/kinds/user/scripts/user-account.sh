# zap user-account NAME [SHELL]
# Makes the account NAME exist, with SHELL its login shell when given.
#
# An account that doesn't exist is created with useradd -m -d /home/NAME
# (-s SHELL), and then the home directory itself, not what it holds, is
# given to the account and its login group (chown -h -- 'NAME:'
# '/home/NAME'): useradd leaves a directory already there as it was. Only
# nothing, or a directory root owns, may be at /home/NAME then: a symbolic
# link, anything but a directory, or a directory another uid owns is in
# the way (exit 94), and nothing is created. An existing account's shell is
# set with usermod -s when it differs.
set -eu
zap=user-account
#@include fail
[ $# -eq 1 ] || [ $# -eq 2 ] || zap_fail 2 "takes NAME [SHELL]"
n=$1 shell=${2-}
#@include account
home=/home/$n
# zap_field N: field N of the account's passwd entry.
zap_field() {
	if command -v getent >/dev/null 2>&1; then
		getent passwd "$n" | head -n 1 | cut -d: -f"$1"
	else
		awk -F: -v n="$n" '$1 == n { print; exit }' /etc/passwd | cut -d: -f"$1"
	fi
}
if id -u "$n" >/dev/null 2>&1; then
	if [ -n "$shell" ] && [ "$(zap_field 7)" != "$shell" ]; then
		command -v usermod >/dev/null 2>&1 || zap_fail 93 "usermod is missing: install the shadow tools (passwd on Debian, shadow on Alpine)"
		usermod -s "$shell" "$n"
	fi
	exit 0
fi
if [ -L "$home" ]; then
	zap_fail 94 "$home is a symbolic link: zap acts through no link it didn't make"
elif [ -e "$home" ] && [ ! -d "$home" ]; then
	zap_fail 94 "$home is in the way: it is not a directory"
elif [ -d "$home" ]; then
	owner=$(stat -c %u -- "$home")
	[ "$owner" = 0 ] || zap_fail 94 "$home is owned by uid $owner, and $n has no account yet: chown it to root or remove it"
fi
command -v useradd >/dev/null 2>&1 || zap_fail 93 "useradd is missing: install the shadow tools (passwd on Debian, shadow on Alpine)"
if [ -n "$shell" ]; then
	useradd -m -d "$home" -s "$shell" "$n"
else
	useradd -m -d "$home" "$n"
fi
chown -h -- "$n:" "$home"
