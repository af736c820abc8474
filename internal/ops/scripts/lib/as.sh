# zap_as USER CMD...: runs CMD as the account USER: sudo -n -u from root,
# else setpriv (util-linux) with USER's own groups. With neither on the
# target it says so on stderr and returns 93. user-keys includes it
# (`#@include as`), and detect's user probes read it through ops.Part, so
# what writes an account's keys and what reads them act as it the same way.
zap_as() {
	u=$1
	shift
	if command -v sudo >/dev/null 2>&1; then
		sudo -n -u "$u" -- "$@"
	elif command -v setpriv >/dev/null 2>&1; then
		setpriv --reuid="$u" --regid="$(id -g "$u")" --init-groups -- "$@"
	else
		echo "zap${zap:+ $zap}: neither sudo nor setpriv is here to act as $u" >&2
		return 93
	fi
}
