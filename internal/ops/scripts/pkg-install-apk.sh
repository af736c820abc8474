# zap pkg-install-apk NAME...
# Installs one batch of packages in one apk add, each NAME added to the
# world as declared. Runs as root, with no terminal: apk reads nothing from
# the script's stdin (</dev/null).
#
# Each NAME is one word of apk's syntax (name, name=version, name~version,
# name@tag, so:lib, cmd:tool; a letter or digit, then letters, digits and
# + . _ - = ~ : / @, not ending in -), checked when the config was read and
# again here.
# A wrong argument exits 93; apk's own failure is its exit status.
set -eu
zap=pkg-install-apk
#@include fail
#@include pkg-names
exec apk add -- "$@" </dev/null
