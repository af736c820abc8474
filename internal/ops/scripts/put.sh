# zap put PATH MODE OWNER GROUP SHA512 LENGTH [snapshot|remove|''] [CLEANED]
# PATH, MODE, OWNER and GROUP are on the shell's argv; SHA512, LENGTH and
# what follows arrive on stdin, set ahead of this script (ops.Input), so no
# account on the host reads the content's digest in ps. CLEANED is the
# list of directories this run cleaned already (DEV:INO ...): where PATH's
# directory is one of them the put doesn't read it again, and a clean that
# ran prints the line "zap-cleaned DEV:INO" on stdout (lib/stage.sh,
# zap_cleaned).
# Installs a file whole. The content comes on stdin with the script
# (ops.PutScriptInput writes the stream): content with no NUL byte on a
# line ahead of it, zap_text set to it quoted, which the shell writes with
# printf, its own (no process), and the here-document the last line opens
# empty; other content as that here-document's body, base64 lines, then the
# line __zap_content_end__, with zap_text unset ahead of the script. The
# shell reads both itself, so no byte is lost to its read-ahead and any
# byte travels.
# A put too large for a shell to hold as a here-document (a remote file's)
# runs put-stream.sh instead: the same functions (lib/put.sh), its content
# raw on stdin after its framed arguments.
#
# The script works inside the directories of PATH, entered one name at a
# time from / (cd -P, a link on the way followed as the kernel follows it);
# every name below is read in the directory it is in. A missing directory is
# made there (mkdir, no -p), entered, and must be the empty directory of the
# writer's just made, at its name in the directory it was made in (exit 94);
# it is given that directory's owner and group, unless it is below a shared
# directory: one with its sticky bit set or that every account may write,
# on the path as written, links read as what they lead to, or walking up by
# .. from where the path leads.
#
# The content is staged beside PATH in a new file (mktemp's, mode 600: the
# umask and a default access list only take bits away from it) held open (read
# only: no open here creates a file): .zap.lk.XXXXXX, locked (flock), in a
# directory of the writer's where there is flock, else
# .zap.pPID.UID.NS.BOOT.XXXXXX, naming the writing shell (lib/stage.sh).
# Before a byte is written it must be a regular file of the writer's,
# empty, with one name, and still the file at the staged name (exit 94).
# Once its own file is staged (and locked), the put removes what killed
# writers left beside PATH, its own file aside: each .zap.lk.XXXXXX it can
# lock without waiting, and each of its uid's .zap.p... whose shell is gone,
# only where no account but the directory's owner can write it
# (lib/stage.sh, zap_clean). The walk's read of the directories and the
# staged file's checks share one stat (lib/stage.sh, zap_stage). The bytes are written
# through /proc/self/fd, checked against SHA512 and LENGTH (exit 93 when
# they aren't what was sent), given OWNER, GROUP and MODE through the open
# file, and, the staged name checked to still be that file, renamed into
# place: a link at PATH is replaced, never followed; a directory there
# fails (exit 94). On any failure the staged file, if the name is still it,
# is removed and PATH is left as it was.
#
# Each of MODE, OWNER and GROUP may be empty: then it is kept from the
# regular file PATH holds (read without following a link; the mode without
# set-id or sticky bits), or for a new file it is 0666 less the umask and
# the directory's owner and group. A symbolic link, anything else that isn't
# a regular file, a file with a second name, and anything below a shared
# directory keep nothing: the new file is the writer's. A mode is never kept
# from a file with an access list (getfacl, else ls's +): that is refused
# (exit 93) until MODE is given. An OWNER or GROUP of digits only is a
# numeric id (a declared one is a name).
#
# With snapshot, before anything is written the file at PATH is read through
# one descriptor and printed on stdout: the line "zap-snapshot none" when
# there is none, else "zap-snapshot MODE UID GID" and its bytes. A link there,
# anything but a regular file (refused before it is opened: a fifo is never
# waited on), or a file that isn't the one at the name once opened is exit
# 94, a file over 16 MiB exit 93, and nothing is written. With remove, what
# PATH holds (not a directory) is removed and nothing is installed: a
# validated put's new file, when the check failed and there was none before.
set -eu
zap=put
#@include walk
#@include stage
#@include put
# zap_content: writes the content on stdout: the text set ahead, else
# decoded from the here-document.
zap_content() {
	if [ -n "${zap_text+set}" ]; then
		printf %s "$zap_text"
	else
		base64 -d
	fi
}
zap_put "$@" <<'__zap_content_end__'
