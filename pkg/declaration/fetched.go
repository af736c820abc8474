package declaration

// Fetched is what a resource takes from a URL on the operator's machine: a
// remote file's content, a build's source archive, an apt_repo's signing
// key. Each is pinned by the blake3 of the fetched bytes, vendored in the
// config (Blake3) or tracked in zap.lock (Blake3 "").
type Fetched struct {
	// Kind is the lock entry's kind: LockRemoteFile, LockBuild or
	// LockAptKey.
	Kind string
	// URL is the fetch location as declared; Auth its bearer credential,
	// nil without one.
	URL  Text
	Auth *Text
	// Blake3 is the vendored pin, 64 lowercase hex; "" when the pin is
	// tracked in zap.lock.
	Blake3 string
	// Extract is how the bytes are unpacked (nil: not at all); Verify a
	// build source's signature check (nil: none).
	Extract *Extract
	Verify  *Verification
	// Dest is where the bytes go: a file's path, a build's output; empty
	// for an apt_repo's key, which goes where the apt_repo says.
	Dest Text
}

// The kinds of lock entry (lock.md, "What an entry holds").
const (
	LockRemoteFile = "remote_file"
	LockBuild      = "build"
	LockAptKey     = "apt_key"
)

// Tracked reports whether the pin lives in zap.lock rather than the config.
func (f *Fetched) Tracked() bool { return f.Blake3 == "" }

// fetchKind is a kind that fetches content.
type fetchKind interface {
	fetched() (Fetched, bool)
}

// Fetched returns what r fetches, and false for a resource that fetches
// nothing (a file with inline content, a package, ...).
func (r *Resource) Fetched() (Fetched, bool) {
	if k, ok := r.Body.(fetchKind); ok {
		return k.fetched()
	}
	return Fetched{}, false
}

func (x *File) fetched() (Fetched, bool) {
	c := x.Content
	if c.Type != ContentRemote || c.URL == nil {
		return Fetched{}, false
	}
	return Fetched{Kind: LockRemoteFile, URL: *c.URL, Auth: c.Auth, Blake3: c.Blake3, Extract: c.Extract, Dest: x.Path}, true
}

func (x *Build) fetched() (Fetched, bool) {
	s := x.Source
	return Fetched{Kind: LockBuild, URL: s.URL, Auth: s.Auth, Blake3: s.Blake3, Extract: s.Extract, Verify: s.Verify, Dest: x.Output}, true
}

func (x *AptRepo) fetched() (Fetched, bool) {
	return Fetched{Kind: LockAptKey, URL: x.KeyURL, Blake3: x.KeyBlake3}, true
}
