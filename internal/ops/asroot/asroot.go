// Package asroot does Zap's own file operations (put, dir, link, and a put
// with a validate check) as their constant scripts of internal/ops, run as
// root through a Root: sudo on the local machine where the native
// operation was denied (internal/localops), sudo over SSH
// (internal/sshhost). It also says what a failed operation script's exit
// and last line mean (Failure).
//
// It stands above internal/execute, whose prepared steps it carries out,
// and internal/ops, whose scripts it runs; internal/ops imports neither.
package asroot

import (
	"bytes"
	"context"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/pkg/events"
	"github.com/zap-go/zap/pkg/plan"
)

// SnapshotLimit is the largest file a validated put can put back.
const SnapshotLimit = 16 << 20

// SnapshotTimeout bounds a validated put's first script: the read of the old
// file can be held by a fifo swapped in at its name between the script's
// check and its open (security.md).
const SnapshotTimeout = 5 * time.Minute

// What the put script does besides installing, named by its last argument.
const (
	// PutSnapshot prints the file the put replaces before the write.
	PutSnapshot = "snapshot"
	// PutRemove removes what the path holds and installs nothing.
	PutRemove = "remove"
)

// snapshotTag opens the line the put script prints for a snapshot.
const snapshotTag = "zap-snapshot "

// PutArgs returns the put script's arguments for p, what is "", PutSnapshot
// or PutRemove: argv, the ones its argv carries (PATH MODE OWNER GROUP), and
// stdin, the rest (SHA512 LENGTH [what]), which travel on stdin
// (ops.Input), so no account on the host reads the digest of the content in
// ps.
func PutArgs(p *execute.Put, what string) (argv, stdin []string) {
	argv = []string{p.Path, p.Mode, p.Owner, p.Group}
	stdin = []string{p.SHA512, strconv.FormatInt(p.Len(), 10)}
	if what != "" {
		stdin = append(stdin, what)
	}
	return argv, stdin
}

// putOnce runs the put script once through root for p. A Body is never
// held whole, on either side: it runs the put-stream script
// (plan.OpPutStream: the put's own functions) through a CommandRoot, as
// `sh -c`, its other arguments and then the raw bytes on stdin
// (ops.StreamInput), so no shell on the target holds a here-document.
func putOnce(ctx context.Context, root Root, script string, p *execute.Put, what string) ([]byte, error) {
	argv, stdin := PutArgs(p, what)
	if p.Body == nil {
		return root.RunOp(ctx, plan.OpPut, ops.PutScriptInput(script, p.Content, stdin...), argv...)
	}
	cr, ok := root.(CommandRoot)
	if !ok {
		return nil, execute.Errorf(events.Permanent, "this host can't stream a file's content to the put script")
	}
	stream, ok := ops.Script(plan.OpPutStream)
	if !ok {
		return nil, errors.New("this zap has no put-stream script")
	}
	return cr.RunOpCommand(ctx, plan.OpPut, stream.Text, ops.StreamInput(stdin, p.Body.Reader()), argv...)
}

// Snapshot is the file a validated put replaces, as the put script read it
// through one descriptor before the write.
type Snapshot struct {
	Exists   bool
	Data     []byte
	Mode     uint32 // with any set-id and sticky bits
	UID, GID int
}

// ParseSnapshot reads what the put script printed with PutSnapshot: the
// line "zap-snapshot none", or "zap-snapshot MODE UID GID" and the bytes.
func ParseSnapshot(out []byte) (*Snapshot, error) {
	line, data, ok := bytes.Cut(out, []byte("\n"))
	rest, tagged := strings.CutPrefix(string(line), snapshotTag)
	if !ok || !tagged {
		return nil, errors.New("the put script printed no snapshot of the file")
	}
	if rest == "none" && len(data) == 0 {
		return &Snapshot{}, nil
	}
	f := strings.Fields(rest)
	if len(f) != 3 {
		return nil, fmt.Errorf("the put script's snapshot line %q is not MODE UID GID", line)
	}
	// Ids as stat prints them, decimal and unsigned: a signed one ("-1")
	// is none stat prints, and the restore would hand it to chown.
	mode, err1 := strconv.ParseUint(f[0], 8, 32)
	uid, err2 := strconv.ParseUint(f[1], 10, 32)
	gid, err3 := strconv.ParseUint(f[2], 10, 32)
	if err := errors.Join(err1, err2, err3); err != nil || mode > 0o7777 {
		return nil, fmt.Errorf("the put script's snapshot line %q is not MODE UID GID", line)
	}
	if len(data) > SnapshotLimit {
		return nil, execute.Errorf(events.Permanent, "the file grew over 16 MiB while it was read, which a validated write can't put back")
	}
	return &Snapshot{Exists: true, Data: data, Mode: uint32(mode), UID: int(uid), GID: int(gid)}, nil
}

// RestoreMode is the mode a rejected write puts back: the old file's, less
// any set-id or sticky bit the declared mode ("" for none) doesn't carry.
func RestoreMode(old uint32, declared string) uint32 {
	d, _ := strconv.ParseUint(declared, 8, 32)
	return old&^0o7000 | old&0o7000&uint32(d)
}

// Root runs Zap's operation scripts as root.
type Root interface {
	// RunOp runs the operation's script with args on its argv, the shell
	// reading stdin (the arguments no argv shows and the script, ops.Input,
	// and for a put its content), and returns what the script printed on
	// stdout. A failure is the script's, classified (see Failure).
	RunOp(ctx context.Context, name plan.OpName, stdin []byte, args ...string) ([]byte, error)
}

// Put installs a file through root (see ValidatedPut for one with a
// validate check).
func Put(ctx context.Context, root Root, p *execute.Put) error {
	script, ok := ops.Script(plan.OpPut)
	if !ok {
		return errors.New("this zap has no put script")
	}
	_, err := putOnce(ctx, root, script.Text, p, "")
	return err
}

// Dir makes a directory through root.
func Dir(ctx context.Context, root Root, d *execute.Dir) error {
	script, ok := ops.Script(plan.OpDir)
	if !ok {
		return errors.New("this zap has no dir script")
	}
	_, err := root.RunOp(ctx, plan.OpDir, []byte(script.Text), d.Path, d.Mode, d.Owner, d.Group)
	return err
}

// Link makes or replaces a symbolic link through root: the path on the
// argv, the target on stdin.
func Link(ctx context.Context, root Root, l *execute.Link) error {
	script, ok := ops.Script(plan.OpLink)
	if !ok {
		return errors.New("this zap has no link script")
	}
	_, err := root.RunOp(ctx, plan.OpLink, []byte(ops.Input(script.Text, l.Target)), l.Path)
	return err
}

// ValidatedPut installs a file with a validate check (resources.md,
// "Validated writes"): one put script, as root, reads the file it replaces
// through one descriptor and prints it before it writes (refusing a link,
// anything but a regular file, or a file over 16 MiB, with nothing
// written); check then runs the validate command (as an operator's command
// runs); when it fails, a second put puts the old bytes back with the owner
// and group they had and their mode less any set-id or sticky bit the
// declared mode doesn't carry, or removes the file when there was none, and
// the put fails with the check's failure.
func ValidatedPut(ctx context.Context, root Root, check func(context.Context, *execute.Command) error, p *execute.Put) error {
	script, ok := ops.Script(plan.OpPut)
	if !ok {
		return errors.New("this zap has no put script")
	}
	sctx, cancel := context.WithTimeout(ctx, SnapshotTimeout)
	out, err := putOnce(sctx, root, script.Text, p, PutSnapshot)
	timedOut := sctx.Err() != nil && ctx.Err() == nil
	cancel()
	switch {
	case timedOut:
		return execute.Errorf(events.Transient, "reading %s before the write passed its limit of %s; nothing was restored", p.Path, SnapshotTimeout)
	case err != nil:
		return err
	}
	old, err := ParseSnapshot(out)
	if err != nil {
		return fmt.Errorf("%s was written, but what it held can't be put back: %w", p.Path, err)
	}
	verr := check(ctx, p.Validate)
	if verr == nil {
		return nil
	}
	if !old.Exists {
		gone := &execute.Put{Path: p.Path, SHA512: hexSHA512(nil)}
		if _, err := putOnce(ctx, root, script.Text, gone, PutRemove); err != nil {
			return fmt.Errorf("the check %w, and removing the new file failed: %v", verr, err)
		}
		return fmt.Errorf("the check %w; the new file is removed", verr)
	}
	back := &execute.Put{
		Path:    p.Path,
		Content: old.Data,
		SHA512:  hexSHA512(old.Data),
		Mode:    strconv.FormatUint(uint64(RestoreMode(old.Mode, p.Mode)), 8),
		Owner:   strconv.Itoa(old.UID),
		Group:   strconv.Itoa(old.GID),
	}
	if _, err := putOnce(ctx, root, script.Text, back, ""); err != nil {
		return fmt.Errorf("the check %w, and putting the old file back failed: %v", verr, err)
	}
	return fmt.Errorf("the check %w; the old file is back", verr)
}

func hexSHA512(b []byte) string {
	s := sha512.Sum512(b)
	return hex.EncodeToString(s[:])
}

// Failure is the error of an operation script that exited status, having
// printed stderr: exit 94 (something in the way) is a conflict, 93 (the
// content didn't arrive whole, or can't be kept as it is) permanent, a
// refusal sudo printed a permission failure, and anything else classified
// by the last line printed (Classify).
func Failure(name plan.OpName, status int, stderr string) error {
	msg := strings.TrimPrefix(LastLine(stderr), "zap "+string(name)+": ")
	if msg == "" {
		msg = fmt.Sprintf("the %s script exited %d", name, status)
	}
	switch {
	case status == 94:
		return execute.Errorf(events.Conflict, "%s", msg)
	case status == 93:
		return execute.Errorf(events.Permanent, "%s", msg)
	case strings.HasPrefix(msg, "sudo: "):
		return execute.Errorf(events.Permission, "sudo refused: %s", strings.TrimPrefix(msg, "sudo: "))
	}
	return execute.Errorf(Classify(msg), "%s", msg)
}

// Classify is the triage code of what a failed tool printed.
func Classify(msg string) events.Code {
	m := strings.ToLower(msg)
	switch {
	case strings.Contains(m, "permission denied"), strings.Contains(m, "operation not permitted"):
		return events.Permission
	case strings.Contains(m, "invalid user"), strings.Contains(m, "invalid group"), strings.Contains(m, "no such file"),
		strings.Contains(m, "unknown user"), strings.Contains(m, "unknown group"):
		return events.NotFound
	case strings.Contains(m, "no space left"), strings.Contains(m, "quota exceeded"), strings.Contains(m, "file exists"),
		strings.Contains(m, "not a directory"), strings.Contains(m, "is a directory"), strings.Contains(m, "too many levels of symbolic links"):
		return events.Conflict
	}
	return events.Permanent
}

// LastLine is the last non-empty line of s, trimmed.
func LastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// CommandRoot is a Root that can also run a script as `sh -c SCRIPT sh
// ARGS...` under root (ops.StreamInvocation), stdin a stream that holds no
// script: a payload reaches what reads it as it arrives, held by no shell.
type CommandRoot interface {
	Root
	RunOpCommand(ctx context.Context, name plan.OpName, script string, stdin io.Reader, args ...string) ([]byte, error)
}

// Extract extracts an archive through root: the extract script of
// internal/ops run as `sh -c` with the path on its argv, and on stdin the
// rest of its arguments (ops.StreamInput) and then the archive's size raw
// bytes from archive, streamed; the script checks their SHA-512 (sha) and
// length before it extracts.
func Extract(ctx context.Context, root CommandRoot, x *execute.Extract, archive io.Reader, size int64, sha string) error {
	script, ok := ops.Script(plan.OpExtract)
	if !ok {
		return errors.New("this zap has no extract script")
	}
	args := []string{sha, strconv.FormatInt(size, 10), x.Form, x.Strip, x.Provenance, x.Mode, x.Owner, x.Group}
	_, err := root.RunOpCommand(ctx, plan.OpExtract, script.Text, ops.StreamInput(args, io.LimitReader(archive, size)), x.Path)
	return err
}
