package swap

import (
	"fmt"
	"strings"

	"github.com/zap-go/zap/internal/detect"
	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/declaration"
	"github.com/zap-go/zap/pkg/observation"
)

// SwapsFile and FstabFile are the tables a swap is read from.
const (
	SwapsFile = "/proc/swaps"
	FstabFile = "/etc/fstab"
)

// Swap detects a swap file by three reads, each as the login user (the
// privilege detection.md gives them): what is at its path (a stat that
// follows no link; a path the login user can't reach reads absent, and the
// steps, as root, fail loudly if that was wrong), the active swap areas
// (/proc/swaps), and /etc/fstab. Converged is a regular file at the path, active, and
// listed in /etc/fstab as swap; none of the three is absent; anything in
// between drifted, each missing part a difference. The size isn't read:
// it is used only when the file is made.
type Swap struct {
	Path string
}

// NewSwap builds the detector of the swap s (kind.Def.Read).
func NewSwap(s *declaration.Swap, _ detect.Env) detect.Detector {
	p := s.FilePath()
	if reason := swapPathReason(p); reason != "" {
		return detect.Held("path: " + reason)
	}
	return &Swap{Path: p}
}

// swapPathReason says why p isn't a path a swap file can have ("" when it
// can): the structural check took an absolute path with no whitespace; a
// path that names a directory, or that walks . or .., isn't a file's.
func swapPathReason(p string) string {
	if !strings.HasPrefix(p, "/") {
		return p + " is not an absolute path"
	}
	if strings.ContainsAny(p, " \t\n\v\f\r\x00") {
		return p + " holds whitespace, which an /etc/fstab field can't"
	}
	if strings.Contains(p+"/", "//") || strings.Contains(p+"/", "/./") || strings.Contains(p+"/", "/../") {
		return p + " is not a plain file path (it ends in /, or holds //, . or ..)"
	}
	return ""
}

// SwapsProbe prints the swap file's directory as it resolves (cd -P; an
// empty line when it can't be entered), then /proc/swaps: the kernel
// names an active file by the path it resolves to, so a path through a
// linked directory is matched either way.
func SwapsProbe(path string) string {
	dir := path[:strings.LastIndex(path, "/")]
	if dir == "" {
		dir = "/"
	}
	return "d=$(cd -P -- " + vocab.Quote(dir) + " 2>/dev/null && pwd -P) || d=\n" +
		"printf '%s\\n' \"$d\"\n" +
		"exec cat " + SwapsFile
}

// FstabProbe prints /etc/fstab, or exits 3 when nothing is at that name (a
// table that isn't there lists nothing). A table that can't be read fails
// the probe (cat's own exit), and the swap holds.
const FstabProbe = `if [ ! -e ` + FstabFile + ` ] && [ ! -L ` + FstabFile + ` ]; then exit 3; fi
exec cat ` + FstabFile

// Queries: the path's stat, the /proc/swaps probe and the /etc/fstab
// probe, all as the login user.
func (s *Swap) Queries() []detect.Query {
	return []detect.Query{
		{Op: detect.OpStat, Lane: observation.LaneLogin, Path: s.Path},
		detect.NewProbe(observation.LaneLogin, SwapsProbe(s.Path)),
		detect.NewProbe(observation.LaneLogin, FstabProbe),
	}
}

// Verdict: see Swap. A symbolic link at the path holds, since the steps
// refuse to format or enable through one; so does anything else there
// that isn't a regular file, a read that gave no answer, and output that
// doesn't parse.
func (s *Swap) Verdict(a []detect.Answer) detect.Result {
	if len(a) != 3 {
		return detect.Holding(fmt.Sprintf("%d answers for the swap's 3 reads", len(a)))
	}
	active, reason := s.active(a[1])
	if reason != "" {
		return detect.Holding(reason)
	}
	file, reason := s.file(a[0], active)
	if reason != "" {
		return detect.Holding(reason)
	}
	listed, reason := s.listed(a[2])
	if reason != "" {
		return detect.Holding(reason)
	}
	if active && !file {
		return detect.Holding(s.Path + " reads as an active swap in " + SwapsFile + " with nothing at its name: check it by hand (swapon --show)")
	}
	switch {
	case file && active && listed:
		return detect.Converged()
	case !file && !active && !listed:
		return detect.Absent()
	}
	var d []observation.Difference
	if !file {
		d = append(d, observation.Difference{Field: FieldFile, Observed: Missing, Desired: Present})
	}
	if !active {
		d = append(d, observation.Difference{Field: FieldActive, Observed: Inactive, Desired: Active})
	}
	if !listed {
		d = append(d, observation.Difference{Field: FieldFstab, Observed: NotListed, Desired: Listed})
	}
	return detect.Drifted(d)
}

// file reads the stat: whether a regular file is at the path; active is
// whether /proc/swaps lists it.
func (s *Swap) file(a detect.Answer, active bool) (bool, string) {
	switch a.Status {
	case detect.StatusMissing:
		return false, ""
	case detect.StatusDenied:
		// A path the login user can't reach reads absent (detection.md):
		// the steps run as root and fail loudly if that was wrong. One the
		// kernel has active by that name is there all the same.
		return active, ""
	case detect.StatusOK:
	default:
		return false, detect.Problem(a, s.Path, 0)
	}
	switch a.Type {
	case detect.TypeRegular:
		return true, ""
	case detect.TypeSymlink:
		return false, s.Path + " is a symbolic link: Zap won't make, format or enable a swap file through one (mkswap would format what it points at); remove it, or declare the path it leads to"
	case "":
		return false, "reading " + s.Path + " gave no file type"
	}
	return false, s.Path + " is " + a.Type.Describe() + ", not a regular file: Zap won't make a swap file in its place; remove it, or declare another path"
}

// swapExit returns a probe's exit status and output, or a reason it gave
// none.
func swapExit(a detect.Answer, what string) (int, string) {
	switch a.Status {
	case detect.StatusOK:
		return a.Exit, ""
	case detect.StatusFailed:
		if a.Detail != "" {
			return 0, "reading " + what + " gave no exit status: " + a.Detail
		}
		return 0, "reading " + what + " gave no exit status"
	}
	return 0, detect.Problem(a, what, vocab.ProbeTimeout)
}

// active reads the /proc/swaps probe: whether the path, as declared or as
// its directory resolves, is an active swap.
func (s *Swap) active(a detect.Answer) (bool, string) {
	code, reason := swapExit(a, SwapsFile)
	if reason != "" {
		return false, reason
	}
	if code != 0 {
		return false, fmt.Sprintf("reading %s exited %d: Zap can't tell whether %s is an active swap", SwapsFile, code, s.Path)
	}
	dir, table, _ := strings.Cut(a.Output, "\n")
	names, ok := SwapNames(table)
	if !ok {
		return false, SwapsFile + " doesn't read as a table of swap areas: Zap can't tell whether " + s.Path + " is an active swap"
	}
	resolved := ""
	if dir != "" {
		resolved = strings.TrimSuffix(dir, "/") + s.Path[strings.LastIndex(s.Path, "/"):]
	}
	for _, n := range names {
		if n == s.Path || n == resolved {
			return true, ""
		}
	}
	return false, ""
}

// listed reads the /etc/fstab probe: whether the table lists the path as
// swap.
func (s *Swap) listed(a detect.Answer) (bool, string) {
	code, reason := swapExit(a, FstabFile)
	if reason != "" {
		return false, reason
	}
	switch code {
	case 0:
		return FstabListsSwap(a.Output, s.Path), ""
	case 3:
		return false, ""
	}
	return false, fmt.Sprintf("reading %s exited %d: Zap can't tell whether it lists %s", FstabFile, code, s.Path)
}

// SwapNames parses /proc/swaps: its header line, then one line per active
// area whose first field is the area's name, with the octal escapes the
// kernel writes for a space, tab, line break and backslash (\040, \011,
// \012, \134) decoded. ok is false when the text has no such header.
func SwapNames(table string) (names []string, ok bool) {
	lines := strings.Split(table, "\n")
	if !strings.HasPrefix(lines[0], "Filename") {
		return nil, false
	}
	for _, line := range lines[1:] {
		f := blankFields(line)
		if len(f) == 0 {
			continue
		}
		names = append(names, Unoctal(f[0]))
	}
	return names, true
}

// FstabListsSwap reports whether the fstab text has an entry whose first
// field, its octal escapes decoded, is path and whose type (third field)
// is swap. Blank lines and comments (# first) are skipped.
func FstabListsSwap(table, path string) bool {
	for line := range strings.SplitSeq(table, "\n") {
		f := blankFields(line)
		if len(f) < 3 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if Unoctal(f[0]) == path && f[2] == "swap" {
			return true
		}
	}
	return false
}

// Unoctal decodes the \ooo escapes (three octal digits) the kernel and
// /etc/fstab write for a byte a field can't hold; any other backslash is
// kept as it is.
func Unoctal(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) && s[i+1] <= '3' {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// blankFields splits a table's line at its spaces and tabs, the only
// separators the kernel and fstab use (any other byte, a vertical tab or
// a non-breaking space, is part of a field).
func blankFields(line string) []string {
	return strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' })
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }
