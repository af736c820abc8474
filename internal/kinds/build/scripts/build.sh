# zap build OUTPUT, then on stdin PIN EXTRACT STRIP CWD NAME SHA512 LENGTH
# RUN and the source archive
# Runs as `sh -c` with this text and OUTPUT on its argv, so nothing on
# stdin is script for a shell to parse or read ahead of. Stdin holds the
# other arguments, framed (ops.StreamInput, read a byte at a time by
# lib/stdin.sh's zap_stdin), and then the archive's raw bytes, which cat
# copies into the private directory below as they arrive: no shell holds
# them as a here-document.
# Builds from that archive as the login user: in a new private temporary
# directory (mode 700, removed at the end, whatever happens) the archive
# is written and its SHA-512 and LENGTH checked against the ones sent
# before anything else; a tar.gz or tar.xz is unpacked into src with
# STRIP leading components stripped, owned by the user, with no set-id bit
# and nothing group- or world-writable. As for an extract (lib/archive.sh),
# it is listed first, and one holding anything but regular files,
# directories and links (a fifo, a device) is exit 93 with nothing
# unpacked; every directory gets u+rwx, whatever mode the archive
# records, so none (a 0000 one) keeps the temporary directory from being
# removed. An unextracted
# source is put there as NAME. RUN, the build's run in its shell frame
# (cd to nothing, its env exported, then its text), is then read by sh on
# a pipe from printf, a builtin, so no argv shows it, in src or CWD (an
# absolute path, or one relative to src). A RUN that exits 0 must leave
# something at OUTPUT. PIN is the source's blake3, for the report. Exits:
# 93 the archive didn't arrive whole or can't be unpacked, 94 CWD or the
# output isn't there, else RUN's own nonzero exit.
set -u
zap=build
#@include fail
#@include stdin
#@include archive
zap_build() {
	[ "$#" -eq 9 ] || zap_fail 2 "want 9 arguments, got $#"
	output=$1 extract=$3 strip=$4 cwd=$5 name=$6 want=$7 length=$8 run=$9
	case $strip in
	'' | *[!0-9]*) zap_fail 2 "strip_components $strip is not a number" ;;
	esac
	case $name in
	'' | . | .. | */*) zap_fail 2 "the source's name $name is not a file name" ;;
	esac
	umask 077
	work=$(mktemp -d "${TMPDIR:-/tmp}/zap-build.XXXXXX" </dev/null) ||
		zap_fail 93 "can't make a private temporary directory; nothing was built"
	# A build may leave directories it can't write (a module cache's), an
	# archive ones it can't even enter (mode 0000): zap_rmtree opens each.
	trap 'cd / && zap_rmtree "$work"' EXIT
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
	cat >"$work/source" ||
		zap_fail 93 "the source archive didn't arrive whole; nothing was built"
	set -- $(sha512sum <"$work/source") $(stat -c %s -- "$work/source")
	[ "${1-}" = "$want" ] && [ "${3-}" = "$length" ] ||
		zap_fail 93 "the source that arrived is not the source sent; nothing was built"
	umask 022
	mkdir "$work/src"
	case $extract in
	none) mv -- "$work/source" "$work/src/$name" ;;
	tar.gz | tar.xz)
		z=-z
		[ "$extract" = tar.xz ] && z=-J
		zap_kinds "$work/source" "$work/l" "$work/e" </dev/null ||
			zap_fail 93 "the $extract source can't be unpacked; nothing was built"
		[ -z "$kind" ] ||
			zap_fail 93 "the $extract source holds $kind: Zap unpacks regular files, directories and symbolic links only; nothing was built"
		tar -x "$z" -f "$work/source" -C "$work/src" --strip-components="$strip" --no-same-owner --no-same-permissions </dev/null ||
			zap_fail 93 "the $extract source can't be unpacked; nothing was built"
		rm -f -- "$work/source"
		# Every directory u+rwx, whatever mode the archive recorded, so the
		# build can work in it and the tree is always removed; checked
		# again: nothing but regular files, directories and links.
		zap_opendirs "$work/src" </dev/null ||
			zap_fail 93 "the $extract source's directories can't be opened to the building account; nothing was built"
		! zap_special "$work/src" </dev/null ||
			zap_fail 93 "the $extract source holds an entry that is not a regular file, directory or symbolic link: Zap unpacks those only; nothing was built"
		# No set-id bit and nothing group- or world-writable, whatever the
		# archive recorded: tar drops them for an account that isn't
		# root, and BusyBox's tar keeps them for root. find follows no
		# link, so only the tree's own files and directories change.
		find "$work/src" \( -type f -o -type d \) \( -perm -4000 -o -perm -2000 -o -perm -0020 -o -perm -0002 \) \
			-exec chmod ug-s,go-w {} \; </dev/null ||
			zap_fail 93 "can't take the set-id and group or world write bits off the unpacked source; nothing was built"
		;;
	*) zap_fail 2 "extract $extract is not an extract form" ;;
	esac
	case $cwd in
	/*) dir=$cwd ;;
	*) dir=$work/src/$cwd ;;
	esac
	cd -- "$dir" 2>/dev/null || zap_fail 94 "can't enter the build's cwd $cwd; nothing was run"
	status=0
	printf '%s\n' "$run" | sh -s || status=$?
	cd /
	if [ "$status" -ne 0 ]; then
		echo "zap build: the run exited $status; no provenance is recorded" >&2
		exit "$status"
	fi
	[ -e "$output" ] || [ -L "$output" ] ||
		zap_fail 94 "the run exited 0 and left nothing at the output $output; no provenance is recorded"
}
zap_stdin zap_build "$@"
