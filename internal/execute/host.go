package execute

import (
	"context"
	"time"

	"github.com/zap-go/zap/pkg/plan"
)

// Host is the machine a run acts on: the local one (internal/localops) or,
// later, one over SSH. Every argument reaches it resolved: references
// substituted, ~ and $HOME expanded, paths absolute.
type Host interface {
	// Put installs a file whole; see Put.
	Put(ctx context.Context, p *Put) error
	// Dir makes a directory and sets its declared mode and owner.
	Dir(ctx context.Context, d *Dir) error
	// Link makes or replaces a symbolic link.
	Link(ctx context.Context, l *Link) error
	// Run runs an operator's command. A command that runs and exits
	// non-zero returns an *ExitError; one killed at its limit a
	// *TimeoutError.
	Run(ctx context.Context, c *Command) error
	// Op runs one of Zap's other operations (a package install, a
	// service's verb, an account's change): its constant script, handed
	// its arguments, as the account its privilege names. A script that
	// exits non-zero returns an *ExitError; one killed at its limit a
	// *TimeoutError.
	Op(ctx context.Context, o *ZapOp) error
}

// ZapOp is one of Zap's operations other than put, dir and link: the
// constant script Script (internal/ops), run by `sh -s -- [PATH]` reading
// it on stdin, as Privilege says: login as the account Zap runs as (the
// connecting user over SSH); root and elevated as root (under sudo, unless
// Zap runs as root). Only its path is on the argv; every other argument
// reaches the script on stdin ahead of it (ops.Input).
type ZapOp struct {
	Name   string
	Script string
	// Args are the script's arguments: its path first when HasPath, then
	// its literal arguments, then its text arguments, resolved.
	Args      []string
	HasPath   bool
	Privilege plan.Privilege
	// Timeout is the operation's limit; 0 is none.
	Timeout time.Duration
	// Payload, when not nil, is what the script reads on stdin after its
	// arguments, raw as it arrives: a build's source archive, which
	// zap-exec attaches once it has the pinned bytes. The script then
	// runs as `sh -c SCRIPT sh [PATH]` (ops.StreamInvocation), its other
	// arguments framed ahead of the payload (ops.StreamInput), so no shell
	// holds the payload.
	Payload *Body
}

// Split returns the arguments an argv carries (the path, when the operation
// has one) and the ones that travel on stdin (the rest).
func (o *ZapOp) Split() (argv, stdin []string) {
	if o.HasPath && len(o.Args) > 0 {
		return o.Args[:1], o.Args[1:]
	}
	return nil, o.Args
}

// SourceReader is a Host that reads the bytes of a put's source file: as
// root over SSH, and locally as the operator first, through sudo when
// denied. Only a regular file of its own is read (no link followed, no
// directory, device or fifo, one link, still at its name), of at most
// SourceLimit bytes; anything else is an error, and the put writes nothing.
type SourceReader interface {
	ReadSource(ctx context.Context, path string) ([]byte, error)
}

// SourceLimit is the largest source file a put copies: its bytes are held
// in memory while they are written.
const SourceLimit = 16 << 20

// Put is a put operation's arguments.
type Put struct {
	Path    string
	Content []byte
	// Source is the file whose bytes are the content, for a put whose
	// content is a source: Content and SHA512 are empty until the runner
	// reads it (SourceReader) when the step runs.
	Source string
	// Remote is where the content is fetched from, for a put whose content
	// is remote: Content and SHA512 are empty until the runner fetches it
	// (Runner.Fetch) when the step runs, and then Body.
	Remote *Remote
	// Body, when not nil, is the content as a stream (Len, Reader: a
	// remote file's bytes from the content cache); Content is then empty.
	Body *Body
	// SHA512 is the hex SHA-512 the plan recorded for Content; the staged
	// bytes must have it.
	SHA512 string
	// Mode, Owner and Group are as declared; an empty one is kept (see
	// internal/localops).
	Mode, Owner, Group string
	// Validate is the check the installed file must pass, or nil.
	Validate *Command
}

// Dir is a dir operation's arguments.
type Dir struct {
	Path               string
	Mode, Owner, Group string
}

// Link is a link operation's arguments.
type Link struct {
	Path, Target string
}

// Command is an operator's command ready for its shell.
type Command struct {
	// Cwd is the directory the command runs in; "" is the runner's own.
	Cwd string
	// Script is the text the shell reads on its stdin (see Script).
	Script string
	// Timeout is the command's limit; 0 is none.
	Timeout time.Duration
}
