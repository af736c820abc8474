package batch

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/vocab"
)

// textScript answers a group of text reads (the bytes a diff shows, zap
// plan --diff) with two processes for the whole group: one stat and one
// cat. Its arguments are the limit L, the group's budget B and the paths.
// It prints
//
//   - a line of one letter per path: l (a symbolic link, never followed), m
//     (nothing there), t (something that isn't a regular file, never
//     opened), f (a regular file);
//   - one line "<size> <links>" per f path, in order (one stat, which
//     doesn't follow links);
//   - the bytes of each f path of one link and at most L bytes, in order,
//     while their sum stays within B (one cat), with nothing between them.
//
// The operator splits the bytes by the sizes, and a reader of them checks
// them against the SHA-512 detection read of the file at the path, so bytes
// that aren't the file's own (a link or another file swapped in after the
// tests) are never shown; a file that changed size between the stat and
// the cat makes the whole group fail. Exit 3 is a stat or cat that failed.
const textScript = `L=$1 B=$2
shift 2
set -f
exec 2>/dev/null
x= a= i=0
for p; do
i=$((i+1))
if [ -h "$p" ]; then x="${x}l"
elif ! [ -e "$p" ]; then x="${x}m"
elif ! [ -f "$p" ]; then x="${x}t"
else x="${x}f" a="$a $i"
fi
done
echo "$x"
[ -n "$a" ] || exit 0
r=
for i in $a; do r="$r \"\${$i}\""; done
s=$(eval "stat -c '%s %h' -- $r") || exit 3
echo "$s"
pick() {
c= t=0
for i in $a; do
[ "$#" -ge 2 ] || exit 3
if [ "$2" = 1 ] && [ "$1" -le "$L" ] && [ $((t+$1)) -le "$B" ]; then c="$c \"\${$i}\"" t=$((t+$1)); fi
shift 2
done
}
pick $s
[ -n "$c" ] || exit 0
eval "cat -- $c" || exit 3
exit 0`

// textProbe is the command that answers the text group un.
func (b *Batch) textProbe(un unit) (string, error) {
	limit := 0
	var s strings.Builder
	for _, i := range un.reads {
		q := b.Queries[i]
		if q.Limit <= 0 || q.Limit > detect.ContentLimit {
			return "", fmt.Errorf("a text read's limit is 1 to %d bytes", detect.ContentLimit)
		}
		if limit != 0 && q.Limit != limit {
			return "", fmt.Errorf("a group's text reads have one limit")
		}
		limit = q.Limit
		s.WriteString(" " + vocab.Quote(q.Path))
	}
	return "LC_ALL=C setsid timeout -k 1 " + strconv.Itoa(PathTimeout) + " sh -c " + vocab.Quote(textScript) +
		" sh " + strconv.Itoa(limit) + " " + strconv.FormatInt(un.budget, 10) + s.String(), nil
}

// textGroupAnswers reads textScript's exit status and output into the
// answers of un's reads: one failed answer for all when it doesn't parse.
func textGroupAnswers(b *Batch, answers []detect.Answer, un unit, code int, data []byte) {
	got, err := parseText(b, un, code, data)
	for k, i := range un.reads {
		if err != nil {
			answers[i] = failed(err.Error())
			if timedOut(code) {
				answers[i] = detect.Answer{Status: detect.StatusTimedOut}
			}
			continue
		}
		answers[i] = got[k]
	}
}

// parseText is textScript's output as one answer per path of un.
func parseText(b *Batch, un unit, code int, data []byte) ([]detect.Answer, error) {
	if code != 0 {
		return nil, fmt.Errorf("the text reads exited %d", code)
	}
	bad := fmt.Errorf("the text reads' output doesn't parse")
	letters, rest, ok := bytes.Cut(data, []byte("\n"))
	if !ok || len(letters) != len(un.reads) {
		return nil, bad
	}
	out := make([]detect.Answer, len(un.reads))
	var files []int
	for k, c := range letters {
		switch c {
		case 'l':
			out[k] = detect.Answer{Status: detect.StatusNotRegular, Type: detect.TypeSymlink}
		case 'm':
			out[k] = detect.Answer{Status: detect.StatusMissing}
		case 't':
			out[k] = detect.Answer{Status: detect.StatusNotRegular, Type: detect.TypeOther}
		case 'f':
			files = append(files, k)
		default:
			return nil, bad
		}
	}
	if len(files) == 0 {
		if len(rest) != 0 {
			return nil, bad
		}
		return out, nil
	}
	limit := int64(b.Queries[un.reads[0]].Limit)
	var picked []int
	var sizes []int64
	spent := int64(0)
	for _, k := range files {
		line, more, ok := bytes.Cut(rest, []byte("\n"))
		if !ok {
			return nil, bad
		}
		rest = more
		f := strings.Split(string(line), " ")
		if len(f) != 2 {
			return nil, bad
		}
		size, err1 := strconv.ParseInt(f[0], 10, 64)
		links, err2 := strconv.ParseUint(f[1], 10, 64)
		if err1 != nil || err2 != nil || size < 0 {
			return nil, bad
		}
		switch {
		case links != 1:
			out[k] = detect.Answer{Status: detect.StatusHardLinked, Links: links}
		case size > limit:
			out[k] = detect.Answer{Status: detect.StatusOK, Over: true, Size: size}
		case spent+size > un.budget:
			out[k] = failed("the pass has read as much text for diffs as it reads")
		default:
			spent += size
			picked, sizes = append(picked, k), append(sizes, size)
		}
	}
	if int64(len(rest)) != spent {
		return nil, fmt.Errorf("a file changed while its text was read")
	}
	for n, k := range picked {
		out[k] = detect.Answer{Status: detect.StatusOK, Content: string(rest[:sizes[n]])}
		rest = rest[sizes[n]:]
	}
	return out, nil
}
