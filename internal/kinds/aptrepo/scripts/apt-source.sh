# zap apt-source LINE
# Prints an apt_repo's source line LINE (signed-by already in it) as the
# apt-list operation will write it: read by a shell with /etc/os-release
# sourced (lib/apt-line.sh). It changes nothing; detection runs it as the
# connecting user and compares the list file with what it prints.
# Exit 0: the line is on stdout. 93: /etc/os-release can't be read, or the
# line didn't read.
set -u
zap=apt-source
#@include fail
#@include apt-line
[ $# -eq 1 ] || zap_fail 2 "want 1 argument (LINE), not $#"
zap_apt_line "$1"
