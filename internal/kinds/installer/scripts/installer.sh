# zap installer URL SHELL
# Fetches the install script at URL whole, into a private temporary file
# (mode 600, removed at the end), https only: with curl, which follows a
# redirect only to another https URL, else with GNU wget, which follows
# none (it can't hold one to https). Only when the fetch succeeded and the
# file isn't empty is it piped into SHELL, a command line read by sh -c as
# a script's run is read (empty: sh), so "bash -s -- --yes" passes
# arguments. A failed or empty fetch runs nothing and exits 93; otherwise
# the exit is the shell's.
set -u
[ "$#" -eq 2 ] || { echo "zap installer: want 2 arguments, got $#" >&2; exit 2; }
url=$1 shell=$2
case $url in
https://?*) ;;
*) echo "zap installer: $url is not an https:// URL; nothing was run" >&2; exit 2 ;;
esac
[ -n "$shell" ] || shell=sh
umask 077
tmp=$(mktemp "${TMPDIR:-/tmp}/zap-installer.XXXXXX" </dev/null) || {
	echo "zap installer: can't make a temporary file for the script; nothing was run" >&2
	exit 93
}
trap 'rm -f -- "$tmp"' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
if command -v curl >/dev/null 2>&1; then
	curl -fsSL --proto '=https' --proto-redir '=https' --connect-timeout 30 --max-time 600 -o "$tmp" "$url" </dev/null
	status=$?
elif command -v wget >/dev/null 2>&1 && wget --version </dev/null 2>/dev/null | grep -q 'GNU Wget'; then
	# wget can't hold a redirect to https (--https-only is for recursion),
	# so it follows none: a URL that redirects needs curl.
	wget -q --max-redirect=0 --timeout=30 -O "$tmp" -- "$url" </dev/null
	status=$?
	[ "$status" -eq 0 ] || echo "zap installer: wget follows no redirect (it can't hold one to https); a URL that redirects needs curl" >&2
else
	echo "zap installer: the target has no curl, nor a GNU wget (which can refuse a redirect to http); install curl first; nothing was run" >&2
	exit 93
fi
if [ "$status" -ne 0 ]; then
	echo "zap installer: fetching $url failed (exit $status); nothing was run" >&2
	exit 93
fi
if [ ! -s "$tmp" ]; then
	echo "zap installer: $url served an empty script; nothing was run" >&2
	exit 93
fi
sh -c "$shell" <"$tmp"
