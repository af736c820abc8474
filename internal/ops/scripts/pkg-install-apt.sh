# zap pkg-install-apt NAME...
# Installs one batch of packages in one apt-get install: noninteractive,
# without recommends, keeping a configuration file changed on the host where
# the package ships a new one (--force-confdef --force-confold), so no
# prompt can stop it. Runs as root, with no terminal: apt-get and dpkg read
# nothing from the script's stdin (</dev/null). It waits up to 120 s for
# dpkg's lock, as pkg-update-apt does.
#
# Each NAME is one word of apt's syntax (name, name:arch, name=version,
# name/suite; a letter or digit, then letters, digits and + . _ - = ~ : / @,
# not ending in -), checked when the config was read and again here.
# A wrong argument exits 93; apt-get's own failure is its exit status.
set -eu
zap=pkg-install-apt
#@include fail
#@include pkg-names
DEBIAN_FRONTEND=noninteractive
export DEBIAN_FRONTEND
exec apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=120 \
	-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
	-- "$@" </dev/null
