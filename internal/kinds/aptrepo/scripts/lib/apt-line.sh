# The reading of an apt_repo's source line that apt-source (detection's
# probe) and apt-list (the write) share, put in place where each says
# `#@include apt-line`, so the line detection compares is the line the
# write puts in the list. Uses the script's zap_fail.
# zap_apt_line LINE: prints LINE as a shell reads it in a subshell that has
# sourced /etc/os-release: the body of a here-document whose delimiter
# isn't quoted, so $VERSION_CODENAME and the like expand, and quotes are
# kept as written. /etc/os-release that can't be read exits 93.
zap_apt_line() {
	[ -r /etc/os-release ] || zap_fail 93 "can't read /etc/os-release"
	(
		set +eu
		. /etc/os-release || exit 93
		eval "cat <<__zap_apt_source_end__
$1
__zap_apt_source_end__"
	) || zap_fail 93 "can't read the source line with /etc/os-release sourced"
}
