package execute

import (
	"strings"

	"github.com/zap-go/zap/pkg/events"
)

// SourceBuffer keeps what the read operation prints on stdout, up to one
// byte past SourceLimit: a source that long is refused whole, however much
// more it holds.
type SourceBuffer struct {
	b    []byte
	over bool
}

// Write keeps p up to the limit and drops the rest; it never fails, so the
// reading side is never stalled.
func (s *SourceBuffer) Write(p []byte) (int, error) {
	room := SourceLimit + 1 - len(s.b)
	if len(p) > room {
		s.over = true
		s.b = append(s.b, p[:max(room, 0)]...)
	} else {
		s.b = append(s.b, p...)
	}
	return len(p), nil
}

// Bytes returns what was kept, and whether it went past SourceLimit.
func (s *SourceBuffer) Bytes() ([]byte, bool) { return s.b, s.over || len(s.b) > SourceLimit }

// Source is the source read whole, or the failure of one past SourceLimit.
func (s *SourceBuffer) Source() ([]byte, error) {
	data, over := s.Bytes()
	if over {
		return nil, Errorf(events.Permanent, "is larger than 16 MiB")
	}
	return data, nil
}

// ReadFailed is the error of the read operation's script (internal/ops
// read.sh) that exited with status, from the last line it printed on
// stderr: 94 a source that isn't a regular file of its own (conflict), 93
// one over SourceLimit (permanent), 95 one that isn't there (not found);
// any other failure is classified by its message.
func ReadFailed(status int, stderr string) error {
	msg := strings.TrimSpace(stderr)
	if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
		msg = msg[i+1:]
	}
	msg = strings.TrimPrefix(msg, "zap read: ")
	switch {
	case status == 94:
		return Errorf(events.Conflict, "%s", msg)
	case status == 93:
		return Errorf(events.Permanent, "%s", msg)
	case status == 95:
		return Errorf(events.NotFound, "%s", msg)
	case strings.HasPrefix(msg, "sudo: "):
		return Errorf(events.Permission, "can't be read: sudo refused: %s", strings.TrimPrefix(msg, "sudo: "))
	case msg == "":
		return Errorf(events.Permanent, "can't be read: the read script exited %d", status)
	}
	return Errorf(events.Permanent, "can't be read: %s", msg)
}
