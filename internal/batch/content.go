package batch

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/vocab"
)

// contentScript answers one content read: a bounded read of a small file
// (a sudoers drop-in, a sentinel). Its arguments are the path and the limit
// plus one. It prints a status line, then, for a regular file of its own,
// at most that many bytes of it:
//
//	l                  a symbolic link is at the path (never followed)
//	m                  nothing there, or the path can't be reached
//	t <mode>           something there that isn't a regular file (raw mode
//	                   in hex); it is never opened
//	d                  the open was refused
//	o <mode> <links> <dev:ino> <dev:ino>
//	                   what was opened (through the descriptor), and what
//	                   is at the name now (lstat): the content follows only
//	                   for a regular file with one link that is still the
//	                   file at the name
//
// The file is opened only after the shell's own tests found a regular file
// there that isn't a link, so a fifo or a device is never opened; one
// swapped in between is opened as it then is, under the read's timeout.
const contentScript = `p=$1 n=$2
exec 2>/dev/null
if [ -h "$p" ]; then echo l; exit 0; fi
if ! [ -e "$p" ]; then echo m; exit 0; fi
if ! [ -f "$p" ]; then t=$(stat -c %f -- "$p") || exit 3; echo "t $t"; exit 0; fi
command exec 3<"$p" || { echo d; exit 0; }
o=$(stat -L -c '%f %h %d:%i' "/proc/$$/fd/3") || exit 3
w=$(stat -c '%d:%i' -- "$p") || w=-
echo "o $o $w"
case "$o" in 8???" 1 "*) ;; *) exit 0;; esac
[ "${o##* }" = "$w" ] || exit 0
head -c "$n" <&3 || exit 3
exit 0`

// contentProbe is the command that answers the content read q.
func contentProbe(q detect.Query) (string, error) {
	if q.Limit <= 0 || q.Limit > detect.ContentLimit {
		return "", fmt.Errorf("a content read's limit is 1 to %d bytes", detect.ContentLimit)
	}
	return "LC_ALL=C setsid timeout -k 1 " + strconv.Itoa(PathTimeout) + " sh -c " + vocab.Quote(contentScript) +
		" sh " + vocab.Quote(q.Path) + " " + strconv.Itoa(q.Limit+1), nil
}

// contentAnswer turns contentScript's exit status and output into the
// content read's answer.
func contentAnswer(q detect.Query, code int, data []byte) detect.Answer {
	switch {
	case timedOut(code):
		return detect.Answer{Status: detect.StatusTimedOut}
	case code != 0:
		return failed(fmt.Sprintf("the content read exited %d", code))
	}
	head, body, _ := strings.Cut(string(data), "\n")
	f := strings.Split(head, " ")
	switch {
	case head == "l":
		return detect.Answer{Status: detect.StatusNotRegular, Type: detect.TypeSymlink}
	case head == "m":
		return detect.Answer{Status: detect.StatusMissing}
	case head == "d":
		return detect.Answer{Status: detect.StatusDenied}
	case f[0] == "t" && len(f) == 2:
		mode, ok := parseMode(f[1])
		if !ok {
			break
		}
		return detect.Answer{Status: detect.StatusNotRegular, Type: FileType(mode)}
	case f[0] == "o" && len(f) == 5:
		mode, ok := parseMode(f[1])
		links, err := strconv.ParseUint(f[2], 10, 64)
		if !ok || err != nil {
			break
		}
		switch {
		case FileType(mode) != detect.TypeRegular:
			return detect.Answer{Status: detect.StatusNotRegular, Type: FileType(mode)}
		case links > 1:
			return detect.Answer{Status: detect.StatusHardLinked, Links: links}
		case f[3] != f[4]:
			return failed("it changed while it was read")
		case len(body) > q.Limit:
			return detect.Answer{Status: detect.StatusOK, Content: body[:q.Limit], Over: true}
		}
		return detect.Answer{Status: detect.StatusOK, Content: body}
	}
	return failed("the content read's output doesn't parse")
}
