# zap read PATH LIMIT
# PATH is on the shell's argv; LIMIT arrives on stdin, set ahead of this
# script (ops.Input).
# Writes the bytes of the source file PATH on stdout, for a put whose content
# is a source (the put itself then installs them). Only a regular file of its
# own is read: a symbolic link at PATH is never read through, and a
# directory, a device or a fifo is refused before it is opened (exit 94). What
# is opened must be a regular file, with one name (a hard link is refused:
# it is the same file under another name), still the file at PATH (exit 94),
# and of at most LIMIT bytes (exit 93: the bytes are held in memory). A name
# swapped between the checks and the open is opened as it then is and
# refused unread.
set -eu
zap_read() {
	path=$1 limit=$2
	case $path in
	/*) ;;
	*) echo "zap read: $path is not an absolute path" >&2; exit 2 ;;
	esac
	if [ -L "$path" ]; then
		echo "zap read: is a symbolic link, not a regular file of its own" >&2
		exit 94
	elif [ ! -e "$path" ]; then
		echo "zap read: doesn't exist" >&2
		exit 95
	elif [ ! -f "$path" ]; then
		case $(stat -c '%F' -- "$path") in
		directory) what='a directory' ;;
		fifo) what='a fifo' ;;
		socket) what='a socket' ;;
		'character special file') what='a character device' ;;
		'block special file') what='a block device' ;;
		*) what='something of an unknown type' ;;
		esac
		echo "zap read: is $what, not a regular file of its own" >&2
		exit 94
	fi
	exec 3<"$path"
	set -- $(stat -L -c '%d:%i %h %s' /proc/self/fd/3)
	if [ ! -f /proc/self/fd/3 ] || [ -L "$path" ] || [ "$(stat -c '%d:%i' -- "$path")" != "$1" ]; then
		echo "zap read: changed while it was opened" >&2
		exit 94
	fi
	if [ "$2" != 1 ]; then
		echo "zap read: has $2 hard links, so Zap doesn't read it: replace it with a copy of its own (a single link)" >&2
		exit 94
	fi
	if [ "$3" -gt "$limit" ]; then
		echo "zap read: is larger than 16 MiB" >&2
		exit 93
	fi
	cat <&3
}
zap_read "$@"
