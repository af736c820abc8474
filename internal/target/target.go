// Package target holds what Zap's two execution hosts do alike, the local
// one (internal/localops, whose Sudo acts as root) and the one over SSH
// (internal/sshhost): the file operations done whole as root through an
// asroot.Root (AsRoot), what an operation script prints kept up to a
// snapshot (OpOutput), and the input and limit of the read operation a
// source file is read with as root (ReadInput, ReadLimit).
package target

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"
	"time"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/internal/ops/asroot"
	"github.com/zap-go/zap/pkg/events"
	"github.com/zap-go/zap/pkg/plan"
)

// AsRoot does a host's file operations as root, each with its constant
// script through Root. A put with a validate check is asroot.ValidatedPut:
// the put script reads the old file as root before it writes, Check runs
// the command (as an operator's command runs on that host), and a failed
// check puts the old file back.
type AsRoot struct {
	Root asroot.Root
	// Check runs a validate command.
	Check func(context.Context, *execute.Command) error
}

// Put installs a file whole as root.
func (a AsRoot) Put(ctx context.Context, p *execute.Put) error {
	if p.Validate != nil {
		return asroot.ValidatedPut(ctx, a.Root, a.Check, p)
	}
	return asroot.Put(ctx, a.Root, p)
}

// Extract extracts an archive as root, streamed to the script; a Root that
// can't take a stream can't extract.
func (a AsRoot) Extract(ctx context.Context, x *execute.Extract, archive io.Reader, size int64, sha string) error {
	cr, ok := a.Root.(asroot.CommandRoot)
	if !ok {
		return execute.Errorf(events.Permanent, "this host can't stream an archive to the extract script")
	}
	return asroot.Extract(ctx, cr, x, archive, size, sha)
}

// Dir makes a directory as root.
func (a AsRoot) Dir(ctx context.Context, d *execute.Dir) error {
	return asroot.Dir(ctx, a.Root, d)
}

// Link makes or replaces a symbolic link as root.
func (a AsRoot) Link(ctx context.Context, l *execute.Link) error {
	return asroot.Link(ctx, a.Root, l)
}

// OpOutput keeps what an operation script prints on stdout, up to a
// snapshot and its line; past that it keeps no more and is over.
type OpOutput struct {
	buf  bytes.Buffer
	over bool
}

func (o *OpOutput) Write(p []byte) (int, error) {
	if o.buf.Len()+len(p) > asroot.SnapshotLimit+4096 {
		o.over = true
		return len(p), nil
	}
	return o.buf.Write(p)
}

// Bytes is what was kept.
func (o *OpOutput) Bytes() []byte { return o.buf.Bytes() }

// Over reports whether the script printed more than is kept.
func (o *OpOutput) Over() bool { return o.over }

// OverError is the failure of the operation name whose script printed
// more than is kept.
func OverError(name plan.OpName) error {
	return execute.Errorf(events.Permanent, "the %s script printed more than %d MiB", name, asroot.SnapshotLimit>>20)
}

// ReadLimit bounds a source read as root: a source that is a fifo swapped
// in after the read script's checks holds its open until then.
const ReadLimit = 5 * time.Minute

// ReadInput is what the read operation's script (internal/ops read.sh)
// takes on stdin: the limit, then the script (ops.Input). The path is its
// one argument.
func ReadInput() (string, error) {
	script, ok := ops.Script(plan.OpRead)
	if !ok {
		return "", errors.New("can't be read: this zap has no read script")
	}
	return ops.Input(script.Text, strconv.Itoa(execute.SourceLimit)), nil
}
