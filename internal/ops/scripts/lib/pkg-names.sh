# The check of its arguments every pkg-install script makes on the target
# again, put in place where each says `#@include pkg-names` (so each still
# travels whole; its text is what plan_hash covers): one or more NAMEs, each
# one word of the package managers' syntax (a letter or digit, then
# letters, digits and + . _ - = ~ : / @, not ending in -). A wrong argument
# exits 93. The including script includes fail first.
[ $# -gt 0 ] || zap_fail 93 "want one or more package names, not 0"
# The letters spelled out: a range's meaning depends on the locale.
alnum=abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789
for name in "$@"; do
	case $name in
	'' | [!$alnum]* | *[!$alnum+._=~:/@-]* | *-) zap_fail 93 "not a package name: $name" ;;
	esac
done
