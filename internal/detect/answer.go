package detect

import "fmt"

// Status is how a read went.
type Status string

// The statuses an answer can carry (see the package comment).
const (
	StatusOK         Status = "ok"
	StatusMissing    Status = "missing"
	StatusDenied     Status = "denied"
	StatusNotRegular Status = "not_regular"
	StatusHardLinked Status = "hard_linked"
	StatusTimedOut   Status = "timed_out"
	StatusFailed     Status = "failed"
	// StatusSudoFailed is a read that needed root where sudo wouldn't
	// authenticate without a prompt; its resource holds with the fixed
	// reason SudoFailed.
	StatusSudoFailed Status = "sudo_failed"
)

// SudoFailed is the fixed reason of a resource with a read sudo wouldn't
// run.
const SudoFailed = "sudo authentication failed"

// FileType is what is at a path.
type FileType string

// The file types a path read reports.
const (
	TypeRegular   FileType = "regular"
	TypeDirectory FileType = "directory"
	TypeSymlink   FileType = "symlink"
	TypeFIFO      FileType = "fifo"
	TypeSocket    FileType = "socket"
	TypeCharDev   FileType = "char_device"
	TypeBlockDev  FileType = "block_device"
	TypeOther     FileType = "other"
)

// Describe is t for a sentence: "a regular file", "a symbolic link".
func (t FileType) Describe() string {
	switch t {
	case TypeRegular:
		return "a regular file"
	case TypeDirectory:
		return "a directory"
	case TypeSymlink:
		return "a symbolic link"
	case TypeFIFO:
		return "a fifo"
	case TypeSocket:
		return "a socket"
	case TypeCharDev:
		return "a character device"
	case TypeBlockDev:
		return "a block device"
	}
	return "something of an unknown type"
}

// Name is t as an observed value: "regular file", "symbolic link".
func (t FileType) Name() string {
	d := t.Describe()
	if len(d) > 2 && d[:2] == "a " {
		return d[2:]
	}
	return d
}

// Answer is what a host read for one query. Which fields are set depends on
// the query's op and the status:
//
//	type      Type (ok)
//	stat      Type, Mode, Owner, Group (ok)
//	readlink  Target (ok)
//	sha512    SHA512 (ok); Type (not_regular); Links (hard_linked)
//	command   Exit (ok: the command exited with a status)
//	probe     Exit and Output (ok: the probe exited with a status)
//	content   Content and Over (ok); Type (not_regular); Links (hard_linked)
//	text      Content, or Over and Size (ok); Type (not_regular); Links
//	          (hard_linked); failed past the batch's TextBudget
//
// Detail says what went wrong for failed, in words of the host's own (never
// bytes the target printed).
type Answer struct {
	Status Status   `json:"status"`
	Type   FileType `json:"type,omitempty"`
	// Mode is the permission bits, set-id and sticky bits included (07777).
	Mode   uint32 `json:"mode,omitempty"`
	Owner  string `json:"owner,omitempty"`
	Group  string `json:"group,omitempty"`
	Target string `json:"target,omitempty"`
	SHA512 string `json:"sha512,omitempty"`
	Links  uint64 `json:"links,omitempty"`
	Exit   int    `json:"exit,omitempty"`
	// Output is what a probe printed on its stdout (at most
	// ProbeOutputLimit bytes).
	Output string `json:"output,omitempty"`
	// Content is what a content read read: the file's first Limit bytes,
	// with Over set when the file holds more.
	Content string `json:"content,omitempty"`
	Over    bool   `json:"over,omitempty"`
	// Size is a text read's file size, set when it is Over and its
	// content wasn't read.
	Size   int64  `json:"size,omitempty"`
	Detail string `json:"detail,omitempty"`
}

// problem is the part of a reason that says why a read of what (a noun
// phrase such as "/etc/motd") gave no usable answer, for the statuses every
// op shares.
func problem(a Answer, what string, timeout int) string {
	switch a.Status {
	case StatusDenied:
		return "permission denied reading " + what
	case StatusSudoFailed:
		return SudoFailed
	case StatusTimedOut:
		if timeout > 0 {
			return fmt.Sprintf("reading %s timed out after %ds", what, timeout)
		}
		return "reading " + what + " timed out"
	case StatusFailed:
		if a.Detail != "" {
			return "reading " + what + " failed: " + a.Detail
		}
		return "reading " + what + " failed"
	case "":
		return "no answer for the read of " + what
	}
	return fmt.Sprintf("reading %s gave an answer that doesn't fit the read (%s)", what, a.Status)
}
