# zap apt-list PATH LINE
# PATH is on the shell's argv; LINE arrives on stdin, set ahead of this
# script (ops.Input). Runs as root.
# Writes an apt_repo's list file PATH whole: LINE (signed-by already in
# it) read by a shell with /etc/os-release sourced (lib/apt-line.sh, as
# detection's apt-source probe reads it), then a line break. The directories
# of PATH are entered one name at a time from / and a missing one is made,
# as a put makes them (lib/walk.sh); the file is staged beside PATH
# (lib/stage.sh), given root:root and mode 644 and renamed over PATH (mv -T:
# a link there is replaced, never followed). A directory at PATH fails (exit
# 94); so does a staged file that changes under it. A line that doesn't
# read exits 93 with nothing written; on any failure the staged file is
# removed and PATH is left as it was.
set -eu
zap=apt-list
#@include walk
#@include stage
#@include apt-line
[ $# -eq 2 ] || zap_fail 2 "want 2 arguments (PATH LINE), not $#"
path=$1
text=$(zap_apt_line "$2") || exit
zap_name "$path" "a file"
zap_into "${dir:-/}" make
if [ -d "./$name" ] && [ ! -L "./$name" ]; then
	zap_fail 94 "$path is a directory"
fi
zap_clean
trap 'zap_unstage' EXIT
trap 'exit 1' HUP INT TERM
zap_stage
printf '%s\n' "$text" >/proc/self/fd/3
chown 0:0 /proc/self/fd/3
chmod 644 /proc/self/fd/3
if [ -d "./$name" ] && [ ! -L "./$name" ]; then
	zap_fail 94 "$path is a directory"
fi
zap_commit "$name"
trap - EXIT
