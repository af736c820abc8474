# The rules extract and build share for an archive they unpack: what kinds
# of entry it may hold, each directory of the tree made the account's to
# enter and remove, and the removal of such a tree. ops.Script puts this
# text where an operation script says `#@include archive`; the including
# script sets z (-z or -J) first.
# zap_kinds ARCHIVE LIST ERRS: lists ARCHIVE (into LIST, tar's errors into
# ERRS, both removed after) and sets kind to what it holds that is not a
# regular file (-), a hard link (h, GNU tar's listing), a directory (d) or
# a symbolic link (l): empty when nothing is. It returns 1 when ARCHIVE
# can't be listed, kind then tar's last word. A name holding a line break
# could only add a refusal: every entry's own line starts with its kind.
zap_kinds() {
	if ! tar -t -v $z -f "$1" >"$2" 2>"$3"; then
		kind=$(tail -n 1 "$3")
		rm -f -- "$2" "$3"
		return 1
	fi
	kind=$(awk '{ c = substr($0, 1, 1) } c != "-" && c != "h" && c != "d" && c != "l" { print c; exit }' "$2")
	rm -f -- "$2" "$3"
	case $kind in
	'') ;;
	b) kind="a block device" ;;
	c) kind="a character device" ;;
	p) kind="a fifo" ;;
	*) kind="an entry that is not a regular file, directory or symbolic link" ;;
	esac
}
# zap_opendirs TREE: every directory in TREE made u+rwx, as it is met and
# before it is entered, so the account can finish and remove the tree
# whatever modes the archive recorded (a directory at 0000 included).
zap_opendirs() {
	find "$1" -type d ! -perm -700 -exec chmod u+rwx {} \;
}
# zap_special TREE: succeeds when TREE holds something that is not a
# regular file, a directory or a symbolic link.
zap_special() {
	[ -n "$(find "$1" ! -type f ! -type d ! -type l | head -n 1)" ]
}
# zap_rmtree DIR: removes DIR, each directory in it first made u+rwx when
# the account may (a tree of the account's can always be removed).
zap_rmtree() {
	[ -e "$1" ] || [ -L "$1" ] || return 0
	zap_opendirs "$1" 2>/dev/null || :
	rm -rf -- "$1" 2>/dev/null
}
