# zap extract PATH, then on stdin SHA512 LENGTH FORM STRIP PROVENANCE MODE
# OWNER GROUP and the archive
# Runs as `sh -c` with this text and PATH on its argv, so nothing on stdin
# is script for a shell to parse or read ahead of. Stdin holds the other
# arguments, framed (ops.StreamInput, read a byte at a time by
# lib/stdin.sh's zap_stdin), and then the archive's raw bytes, which cat
# copies into the staging directory as they arrive: no here-document holds
# them (dash and BusyBox's ash read one whole into memory before the
# command runs), and no copy of them sits anywhere the extracting account
# doesn't alone reach.
#
# Extracts a fetched archive (FORM tar.gz or tar.xz, STRIP leading names
# stripped) into a new tree that takes PATH's name. The directories of PATH
# are entered from / (lib/walk.sh, missing ones made). PATH may hold
# nothing, an empty directory, or a tree of Zap's own (its .zap_remote_hash
# a regular file): a link there, anything but a directory, or a directory
# holding anything else is exit 94, and so is one with an access list, a
# default list included: seen through getfacl, else through the + GNU ls -l
# prints after the mode; with neither (BusyBox ls prints no +) none can be
# seen, and the tree is replaced. The parent needs room for the archive
# and twice its size for the tree (exit 93, checked with df).
#
# The work happens in a staging directory beside PATH, .NAME.zap-XXXXXX
# (mktemp -d, mode 0700, the extracting account's, empty, not a link: exit
# 94 otherwise), held open as fd 6 (the parent as fd 5) and reached only
# through /proc/$$/fd from then on, so renaming it or putting a link at its
# name steers nothing. There the archive is written (a), checked against
# SHA512 and LENGTH (exit 93), and extracted as the extracting account into
# t, no owner restored. Only regular files, directories and symbolic links
# are extracted: the archive is listed first, and one holding anything else
# (a device, a fifo) is exit 93 with nothing extracted; what the tree holds
# is checked again after. Every directory gets at least u+rwx (as it is
# met, before it is entered), so the extracting account can always finish
# and later remove the tree, whatever modes the archive records; t keeps
# the mode mkdir gave it (the archive's ./ never sets it); then every
# set-id bit and every group or world write bit is taken off. A file with
# more names than the tree holds (linked from outside it) is exit 93, and
# so is a symbolic link that leads out of the tree: an absolute one, or
# one whose .. (leading ones only: a .. after a name is refused) climb
# above the tree. A hard link inside the tree is kept. Every failure that
# comes of the archive's contents is exit 93, never a permission failure
# (which a local run would take to sudo): what escalates is decided by
# the destination. t gets the sentinel (PROVENANCE on a line) and the
# owner, group and mode the old tree had (no set-id or sticky bit; nothing
# below a shared directory), then MODE, OWNER and GROUP where declared
# (for an account other than root, a mode without u+w is set with it and
# taken off once t has taken the name: a directory its mover can't write
# can't move into another; an old tree of its own without u+w gets it to
# move). The old tree is renamed into the staging directory, t into place,
# and the staging directory removed; a failure before t takes the name
# leaves PATH as it was, and one after says the new tree is in place.
set -eu
zap=extract
#@include walk
#@include stdin
#@include archive
zap_extract() {
	path=$1 want=$2 length=$3 form=$4 strip=$5 prov=$6 mode=$7 owner=$8 group=$9
	zap_name "$path" "a directory"
	case $form in
	tar.gz) z=-z ;;
	tar.xz) z=-J ;;
	*) zap_fail 2 "can't extract $form" ;;
	esac
	zap_into "${dir:-/}" make
	zap_dest
	avail=$(df -Pk . | awk 'NR == 2 { print $4 }')
	if [ -n "$avail" ] && [ $((avail * 1024)) -lt $((length * 3)) ]; then
		zap_fail 93 "no room beside $path: ${avail} KiB free, and the archive of $length bytes needs it three times over"
	fi
	exec 5<.
	st=$(mktemp -d "./.$name.zap-XXXXXX")
	exec 6<"$st"
	s=/proc/$$/fd/6 p=/proc/$$/fd/5
	keep=
	trap 'zap_rmtree "$s/t" || :; [ -n "$keep" ] || zap_rmtree "$s/old" || :; rm -f -- "$s/a" "$s/l" "$s/e"; [ "$(stat -c %d:%i -- "$st" 2>/dev/null)" = "$(stat -L -c %d:%i $s)" ] && rmdir -- "$st" 2>/dev/null || :' EXIT
	trap 'exit 1' HUP INT TERM
	set -- $(stat -L -c '%u %a %d:%i' $s) "$(stat -c '%d:%i %F' -- "$st")"
	if [ "$1" != "$me" ] || [ "$2" != 700 ] || [ "$4" != "$3 directory" ] || [ -n "$(ls -A -- $s)" ]; then
		zap_fail 94 "the staging directory beside $path is not a fresh private one of the extracting account's"
	fi
	umask 077
	if ! cat >"$s/a"; then
		zap_fail 93 "the archive that arrived is not the archive sent"
	fi
	set -- $(sha512sum <"$s/a") $(stat -c %s "$s/a")
	if [ "$1" != "$want" ] || [ "$3" != "$length" ]; then
		zap_fail 93 "the archive that arrived is not the archive sent"
	fi
	umask 022
	mkdir "$s/t"
	tmode=$(stat -c %a "$s/t")
	if ! zap_kinds "$s/a" "$s/l" "$s/e"; then
		zap_fail 93 "the archive doesn't extract: $kind"
	fi
	if [ -n "$kind" ]; then
		zap_fail 93 "the archive holds $kind: Zap extracts regular files, directories and symbolic links only"
	fi
	if [ "$strip" -gt 0 ]; then set -- --strip-components="$strip"; else set --; fi
	if ! out=$(tar -x $z -o -f "$s/a" -C "$s/t" "$@" 2>&1); then
		zap_fail 93 "the archive doesn't extract: $(printf '%s' "$out" | tail -n 1)"
	fi
	rm -f -- "$s/a"
	zap_tree
	rm -rf -- "$s/t/.zap_remote_hash"
	printf '%s\n' "$prov" >"$s/t/.zap_remote_hash"
	chmod 644 "$s/t/.zap_remote_hash"
	zap_attrs
	exec 7<"$s/t"
	omode=
	if [ -d "$p/$name" ]; then
		# A directory moves into another only when its mover may write
		# it: an old tree of the account's own without u+w gets it.
		if [ "$me" != 0 ] && [ ! -w "$p/$name" ] && [ "$(stat -c %u -- "$p/$name")" = "$me" ]; then
			omode=$(stat -c %a -- "$p/$name")
			chmod u+w -- "$p/$name"
		fi
		if ! mv -T -- "$p/$name" "$s/old"; then
			[ -z "$omode" ] || chmod -- "$omode" "$p/$name"
			exit 1
		fi
	fi
	if ! mv -T -- "$s/t" "$p/$name"; then
		if [ ! -d "$s/old" ]; then
			zap_fail 94 "$path changed while the tree was swapped in; nothing was placed"
		elif mv -T -- "$s/old" "$p/$name"; then
			[ -z "$omode" ] || chmod -- "$omode" "$p/$name" 2>/dev/null || :
			zap_fail 94 "$path changed while the tree was swapped in; it is as it was"
		fi
		keep=1
		zap_fail 94 "$path changed while the tree was swapped in; the old tree is left beside it in $st"
	fi
	if [ -n "$late" ] && ! chmod -- "$late" /proc/$$/fd/7; then
		zap_fail 93 "the new tree is in place at $path, but its mode can't be set to $late"
	fi
	if ! zap_rmtree "$s/old"; then
		keep=1
		zap_fail 93 "the new tree is in place at $path, but the old one can't be removed: it is left beside it in $st"
	fi
}
# zap_tree: the extracted tree t made the account's to finish (each
# directory u+rwx, t at the mode mkdir gave it), then checked (nothing
# but regular files, directories and links; no file linked from outside;
# no link leading out) and its set-id and group or world write bits taken
# off. Any failure here comes of the archive: exit 93.
zap_tree() {
	if ! zap_opendirs "$s/t" || ! chmod "$tmode" "$s/t"; then
		zap_fail 93 "the archive's directories can't be opened to the extracting account"
	fi
	if zap_special "$s/t"; then
		zap_fail 93 "the archive holds an entry that is not a regular file, directory or symbolic link: Zap extracts those only"
	fi
	links=$(find "$s/t" -type f -links +1 -exec stat -c '%i %h' {} + | sort | uniq -c | awk '$1 != $3')
	if [ -n "$links" ]; then
		zap_fail 93 "the archive links a file from outside the tree it extracts"
	fi
	if ! find "$s/t" -type l -exec sh -c "$zap_inside" sh "$s/t" {} +; then
		zap_fail 93 "the archive holds a symbolic link that leads out of the tree it extracts (an absolute one, or one whose .. climb above it)"
	fi
	if ! find "$s/t" ! -type l -exec chmod go-w,ug-s {} +; then
		zap_fail 93 "the set-id and group or world write bits can't be taken off what the archive holds"
	fi
}
# zap_inside is run as sh -c TEXT sh TREE LINK...: exit 1 at the first
# LINK whose target is absolute or empty, holds a .. after a name, or
# climbs by its leading .. above TREE (from LINK's own directory).
zap_inside='root=$1
shift
set -f
for l; do
	t=$(readlink -- "$l" && echo .) || exit 1
	t=${t%??}
	case $t in "" | /*) exit 1 ;; esac
	r=${l#"$root"/} d=0
	while :; do
		case $r in */*) r=${r#*/} d=$((d + 1)) ;; *) break ;; esac
	done
	up=0 named=
	IFS=/
	for c in $t; do
		case $c in
		"" | .) ;;
		..) [ -z "$named" ] || exit 1; up=$((up + 1)) ;;
		*) named=1 ;;
		esac
	done
	unset IFS
	[ "$up" -le "$d" ] || exit 1
done'
# zap_dest: what PATH holds may be replaced (see the top).
zap_dest() {
	if [ -L "./$name" ]; then
		zap_fail 94 "$path is a symbolic link: nothing is extracted through it"
	fi
	[ -e "./$name" ] || return 0
	if [ ! -d "./$name" ]; then
		zap_fail 94 "$path is not a directory to extract into"
	fi
	if [ -L "./$name/.zap_remote_hash" ] || { [ ! -f "./$name/.zap_remote_hash" ] && [ -n "$(ls -A -- "./$name" | head -n 1)" ]; }; then
		zap_fail 94 "$path holds files Zap didn't extract (no .zap_remote_hash of its own), so Zap won't replace it"
	fi
	if command -v getfacl >/dev/null 2>&1; then
		acl=$(getfacl -c -s -p -- "./$name" 2>/dev/null)
	else
		case $(ls -ld -- "./$name") in
		??????????+*) acl=+ ;;
		*) acl= ;;
		esac
	fi
	if [ -n "$acl" ]; then
		zap_fail 94 "$path has an access list: remove it (setfacl -b) to let Zap replace the tree"
	fi
}
# zap_attrs: the new tree's owner, group and mode (see the top).
zap_attrs() {
	keep_uid= keep_gid= keep_mode=
	if [ -d "$p/$name" ] && [ ! -L "$p/$name" ] && [ "$below" = 0 ]; then
		set -- $(stat -c '%u %g %a' -- "$p/$name")
		keep_uid=$1 keep_gid=$2 keep_mode=$(printf '%o' $((0$3 & 0777)))
	fi
	set -- $(stat -c '%u %g' -- "$s/t")
	zap_chown "$s/t" "${owner:-$keep_uid}" "${group:-$keep_gid}" "$1" "$2"
	late= m=${mode:-$keep_mode}
	[ -n "$m" ] || return 0
	if [ "$me" != 0 ] && [ $((0$m & 0200)) = 0 ]; then
		# The account can't move a directory it can't write into another
		# one: this mode is set once t has taken the name, through the
		# descriptor held on it (fd 7).
		late=$m m=$(printf '%o' $((0$m | 0200)))
	fi
	chmod -- "$m" "$s/t"
}
zap_stdin zap_extract "$@"
