package fetch

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// A build source that declares verify is checked by the minisign binary
// before its bytes take their name in the cache (resources.md,
// "Verification"; security.md). Zap has no crypto of its own for it: the
// binary's exit status is the verdict, so which binary runs is held to
// rules of its own.

// The bounds of a minisign check.
const (
	// SignatureLimit is the most a signature fetch reads: a .minisig file
	// is a few hundred bytes, its trusted comment included.
	SignatureLimit = 64 << 10
	// MinisignTimeout is the time limit of one minisign run.
	MinisignTimeout = 5 * time.Minute
	// minisignOutput is how much of what minisign printed a failure keeps.
	minisignOutput = 4 << 10
	// maxLinks is how many symbolic links the trust walk follows.
	maxLinks = 40
)

// ErrMinisign is a minisign binary Zap won't run, or a signature that
// doesn't verify. Its message names the binary's path.
var ErrMinisign = errors.New("minisign")

// Minisign is a minisign binary found once (FindMinisign) and run by its
// path.
type Minisign struct {
	Path string
}

// FindMinisign finds the minisign binary: the absolute path ZAP_MINISIGN
// names, else the first minisign in an absolute directory on PATH (a
// relative PATH entry is passed over). It refuses one inside a
// node_modules directory, and one where the binary, or any directory from
// where it was found up to /, or from where it resolves up to / (each
// symbolic link on the way followed and its own directories checked too),
// is writable by a group or others, or owned by an account other than root
// and the one Zap runs as. Every refusal names the path.
func FindMinisign(getenv func(string) string) (*Minisign, error) {
	path := getenv("ZAP_MINISIGN")
	if path != "" {
		if !filepath.IsAbs(path) {
			return nil, fmt.Errorf("%w: ZAP_MINISIGN is %q, not an absolute path", ErrMinisign, path)
		}
	} else {
		path = lookMinisign(getenv("PATH"))
		if path == "" {
			return nil, fmt.Errorf("%w: no minisign binary in an absolute directory on PATH (install minisign, or name it in ZAP_MINISIGN)", ErrMinisign)
		}
	}
	if err := trustMinisign(path); err != nil {
		return nil, err
	}
	return &Minisign{Path: path}, nil
}

// lookMinisign is the first minisign on PATH in an absolute directory that
// is an executable regular file (links followed), or "".
func lookMinisign(pathEnv string) string {
	for _, dir := range filepath.SplitList(pathEnv) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, "minisign")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// trustMinisign holds the binary at path to FindMinisign's rules.
func trustMinisign(path string) error {
	refuse := func(format string, args ...any) error {
		return fmt.Errorf("%w: refusing %s: %s", ErrMinisign, path, fmt.Sprintf(format, args...))
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return refuse("%v", unwrapPath(err))
	}
	for _, p := range []string{path, real} {
		if inNodeModules(p) {
			return refuse("it is inside a node_modules directory, which any installed package can fill")
		}
	}
	fi, err := os.Stat(real)
	switch {
	case err != nil:
		return refuse("%v", unwrapPath(err))
	case !fi.Mode().IsRegular():
		return refuse("it is not a regular file")
	}
	w := &trustWalk{uid: uint32(os.Geteuid()), seen: map[string]bool{}}
	if err := w.walk(path); err != nil {
		return refuse("%v", err)
	}
	return nil
}

// inNodeModules reports whether a component of p is node_modules.
func inNodeModules(p string) bool {
	return slices.Contains(strings.Split(filepath.ToSlash(p), "/"), "node_modules")
}

// trustWalk checks each component of a path from / down, and each link's
// target as a path of its own.
type trustWalk struct {
	uid   uint32
	links int
	seen  map[string]bool
}

// walk checks every prefix of the absolute path p, from / to p itself:
// each must be owned by root or w.uid and writable by neither its group
// nor others (a link's own mode aside). A link's target is walked too.
func (w *trustWalk) walk(p string) error {
	p = filepath.Clean(p)
	if w.seen[p] {
		return nil
	}
	w.seen[p] = true
	prefix := "/"
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	if p == "/" {
		parts = nil
	}
	if err := w.check(prefix); err != nil {
		return err
	}
	for _, part := range parts {
		prefix = filepath.Join(prefix, part)
		if err := w.check(prefix); err != nil {
			return err
		}
	}
	return nil
}

// check checks one path, reached through whatever links lead to its
// parent: its owner and mode, and when it is a link, the link's target.
func (w *trustWalk) check(p string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return unwrapPath(err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: its owner can't be read", p)
	}
	if st.Uid != 0 && st.Uid != w.uid {
		return fmt.Errorf("%s is owned by uid %d, neither root nor you", p, st.Uid)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		w.links++
		if w.links > maxLinks {
			return fmt.Errorf("%s: more than %d symbolic links on the way", p, maxLinks)
		}
		target, err := os.Readlink(p)
		if err != nil {
			return unwrapPath(err)
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(p), target)
		}
		return w.walk(target)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s is writable by its group or by others (mode %o)", p, fi.Mode().Perm())
	}
	return nil
}

// unwrapPath is err without its operation, which repeats the path.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}

// Verify runs minisign on the file at path with the signature sig and the
// public key (the 56 base64 characters of a .pub file's key line): the
// signature is written to a private temporary file first, and the exit
// status is the verdict. A signature that doesn't verify, or a minisign
// that can't run or doesn't finish within MinisignTimeout, is an error
// naming the binary's path.
func (m *Minisign) Verify(ctx context.Context, path string, sig []byte, publicKey string) error {
	dir, err := os.MkdirTemp("", "zap-minisig-")
	if err != nil {
		return fmt.Errorf("a temporary directory for the signature: %w", err)
	}
	defer os.RemoveAll(dir)
	sigPath := filepath.Join(dir, "sig")
	if err := os.WriteFile(sigPath, sig, 0o600); err != nil {
		return fmt.Errorf("write the signature: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, MinisignTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, m.Path, "-V", "-q", "-P", publicKey, "-m", path, "-x", sigPath)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LC_ALL=C"}
	var out bytes.Buffer
	lim := &limitWriter{w: &out, n: minisignOutput}
	cmd.Stdout, cmd.Stderr = lim, lim
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	said := strings.TrimSpace(strings.ReplaceAll(out.String(), path, "the archive"))
	said = strings.ReplaceAll(said, sigPath, "the signature")
	var ee *exec.ExitError
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("%w: %s didn't finish within %v", ErrMinisign, m.Path, MinisignTimeout)
	case errors.As(err, &ee):
		if said != "" {
			said = ": " + oneLine(said)
		}
		return fmt.Errorf("%w: %s: the signature doesn't verify (exit %d)%s", ErrMinisign, m.Path, ee.ExitCode(), said)
	}
	return fmt.Errorf("%w: %s can't run: %v", ErrMinisign, m.Path, unwrapPath(err))
}

// oneLine is s with its line breaks as "; ".
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ; ")), " ")
}

// limitWriter keeps the first n bytes written to it and drops the rest.
type limitWriter struct {
	w io.Writer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if k := min(len(p), l.n); k > 0 {
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// SignatureURL is where a source's signature is when no signature_url is
// declared: its URL with .minisig appended to the path, before any query or
// fragment. It works on the text as written, so a declared spelling (with
// its references) gives the declared spelling of the signature's.
func SignatureURL(source string) string {
	end := len(source)
	if i := strings.IndexAny(source, "?#"); i >= 0 {
		end = i
	}
	return source[:end] + ".minisig" + source[end:]
}

// SignatureRequest is the request of a source's signature: at sigURL (its
// declared spelling sigDeclared), or when sigURL is "" at the source's URL
// with .minisig appended (SignatureURL). The source's bearer credential goes
// with it only when it has the source's origin (scheme, host and port).
func SignatureRequest(src Request, sigDeclared, sigURL string) Request {
	if sigURL == "" {
		sigDeclared, sigURL = SignatureURL(src.Declared), SignatureURL(src.URL)
	}
	r := Request{Declared: sigDeclared, URL: sigURL, Limit: SignatureLimit}
	if src.Bearer != "" && sameOrigin(src.URL, sigURL) {
		r.Bearer = src.Bearer
	}
	return r
}

// sameOrigin reports whether the URLs a and b have one origin.
func sameOrigin(a, b string) bool {
	ua, err := url.Parse(a)
	if err != nil {
		return false
	}
	ub, err := url.Parse(b)
	if err != nil {
		return false
	}
	return origin(ua) == origin(ub)
}

// Verified is r with a minisign check of the bytes it fetches
// (MinisignCheck) against publicKey, the signature at sigURL (declared as
// sigDeclared; both "" for the source's URL with .minisig appended), the
// binary found by find when the check first runs: on a cache miss only,
// so a cached source needs no minisign. find is FindMinisign, found once
// per run by the caller (sync.OnceValues).
func (f *Fetcher) Verified(ctx context.Context, r Request, publicKey, sigDeclared, sigURL string, find func() (*Minisign, error)) Request {
	sig := SignatureRequest(r, sigDeclared, sigURL)
	r.Check = func(path string) error {
		m, err := find()
		if err != nil {
			return err
		}
		return f.MinisignCheck(ctx, m, publicKey, sig)(path)
	}
	return r
}

// MinisignCheck is a Request.Check verifying the fetched bytes with m
// against publicKey and the signature sig fetches (SignatureRequest). The
// signature is fetched only when the check runs, on a cache miss; its
// failure, like a signature that doesn't verify, leaves nothing cached.
func (f *Fetcher) MinisignCheck(ctx context.Context, m *Minisign, publicKey string, sig Request) func(path string) error {
	return func(path string) error {
		data, _, err := f.Read(ctx, sig)
		if err != nil {
			return fmt.Errorf("the signature: %w", err)
		}
		return m.Verify(ctx, path, data, publicKey)
	}
}
