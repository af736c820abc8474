// Package state is what Zap keeps on the operator's machine, under $ZAP_HOME
// or ~/.zap: the last-run report of each config on each host, which also
// holds the preview a wetrun binds to.
//
// Layout:
//
//	<state>/                 mode 700, owned by the user Zap runs as
//	<state>/reports/         mode 700
//	<state>/reports/<key>-<host>.json
//	<state>/cache/eval_pins/<dev>-<ino>.json   the evaluator pin cache
//
// where <key> is the first 16 hex digits of the blake3 of the config's
// absolute path. Every file is written whole and atomically (a temporary file
// in the same directory, fsync, rename), mode 600. A directory or report that
// isn't the user's own, or that another account can write, is refused
// (ErrUntrusted): a file Zap can't trust is an error, not a guess.
//
// A report whose format isn't "zap.report/3" reads as no last run, so a
// newer or older Zap's report is replaced rather than misread (version 2
// added the user the pass connected as, version 3 the target's hash and the
// orphans carried forward). State stores what it is given:
// the resource hashes and the masked host and user of a report are made by
// internal/resolve (NewReport's Hasher).
package state

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/zap-go/zap/internal/atomicfile"
	"github.com/zap-go/zap/internal/ownfile"
	"github.com/zap-go/zap/internal/strict"

	"github.com/zeebo/blake3"

	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/observation"
)

// Format is the report's format name and version.
const Format = "zap.report/3"

// Command is the command whose pass wrote a report.
type Command string

// The commands that write a report.
const (
	CmdPlan     Command = "plan"           // zap plan: a preview
	CmdApply    Command = "apply"          // a dry zap apply: a preview
	CmdWetrun   Command = "apply --wetrun" // a wetrun, recorded before it executes
	CmdObserve  Command = "observe"        // the wetrun's reading again: its last word
	CmdDetect   Command = "detect"         // zap detect
	CmdRefused  Command = "refused"        // a wetrun that refused: a preview
	CmdDeclined Command = "declined"       // a wetrun declined at the question: a preview
)

// Report is the last-run report of one config on one host. Nothing the
// target returned is in it, and no secret's value.
type Report struct {
	Format  string  `json:"format"`
	Time    string  `json:"time"` // RFC 3339, UTC
	Command Command `json:"command"`
	Host    string  `json:"host"`
	// User is the account the pass read as: the connecting user over
	// SSH (after a --bootstrap wetrun, its reading again connects as the
	// target's declared user), the operator's locally; left out when ssh
	// chose it.
	User string `json:"user,omitempty"`
	// Preview is true for a pass a wetrun may bind to: a plan, a dry
	// apply, a wetrun that refused or was declined.
	Preview bool `json:"preview"`
	// PlanHash is the plan_hash of a pass that planned.
	PlanHash string `json:"plan_hash,omitempty"`
	// TargetHash is resolve's TargetHash of the declaration's target as the
	// pass read it, and TargetSecret says the target references a secret.
	TargetHash   string `json:"target_hash"`
	TargetSecret bool   `json:"target_secret,omitempty"`
	// Orphans are ids an earlier run read that no pass since declared,
	// carried forward by every pass until a wetrun executes (which names
	// them too): Zap never removes them.
	Orphans []string `json:"orphans,omitempty"`
	// Unresolved names the referenced variables that were unset or empty.
	Unresolved []string            `json:"unresolved,omitempty"`
	Batches    []observation.Batch `json:"batches"`
	Resources  []Resource          `json:"resources"`
}

// Resource is one resource's verdict in the pass.
type Resource struct {
	ID      string              `json:"id"`
	Verdict observation.Verdict `json:"verdict"`
	// Hash is resolve.ResourceHash of the resource as the pass read it.
	Hash string `json:"hash"`
	// Secret is true when the resource references a secret.
	Secret bool `json:"secret,omitempty"`
}

// ErrUntrusted marks a state directory or file that isn't the user's own.
var ErrUntrusted = errors.New("not Zap's own")

// ErrEnv marks a HOME or ZAP_HOME that is unset or not absolute.
var ErrEnv = errors.New("no usable state directory")

// ErrClaimLost is returned by Claim when another run took the preview first.
var ErrClaimLost = errors.New("another wetrun claimed this preview first")

// Store is the state directory.
type Store struct {
	dir string
	uid int
}

// Open finds the state directory from getenv: $ZAP_HOME, else $HOME/.zap.
// It reads nothing on disk; the directories are checked as they are used.
func Open(getenv func(string) string) (*Store, error) {
	dir := ""
	if z := getenv("ZAP_HOME"); z != "" {
		if !filepath.IsAbs(z) {
			return nil, fmt.Errorf("%w: ZAP_HOME is %q, not an absolute path", ErrEnv, z)
		}
		dir = filepath.Clean(z)
	} else {
		home := getenv("HOME")
		switch {
		case home == "":
			return nil, fmt.Errorf("%w: HOME is unset (and so is ZAP_HOME)", ErrEnv)
		case !filepath.IsAbs(home):
			return nil, fmt.Errorf("%w: HOME is %q, not an absolute path", ErrEnv, home)
		}
		dir = filepath.Join(home, ".zap")
	}
	return &Store{dir: dir, uid: os.Geteuid()}, nil
}

// Dir is the state directory.
func (s *Store) Dir() string { return s.dir }

func (s *Store) reports() string { return filepath.Join(s.dir, "reports") }

// Check refuses a state directory, or its reports directory, that isn't the
// user's own. One that doesn't exist yet is fine: Save makes it.
func (s *Store) Check() error {
	for _, d := range []string{s.dir, s.reports()} {
		ok, err := s.checkDir(d)
		if err != nil || !ok {
			return err
		}
	}
	return nil
}

// Key names a config in the state directory: the first 16 hex digits of the
// blake3 of its absolute path.
func Key(configAbs string) string {
	sum := blake3.Sum256([]byte(configAbs))
	return hex.EncodeToString(sum[:8])
}

// ReportPath is where the report of the config at configAbs on host lives.
func (s *Store) ReportPath(configAbs, host string) string {
	return filepath.Join(s.reports(), Key(configAbs)+"-"+hostName(host)+".json")
}

// hostName makes a host safe as part of a file name.
func hostName(host string) string {
	var b strings.Builder
	for _, r := range host {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "%%%02x", r)
		}
	}
	if b.Len() == 0 {
		return "%"
	}
	return b.String()
}

// Loaded is a report as read, with the bytes it was read from (what Claim
// compares).
type Loaded struct {
	Report *Report
	raw    []byte
}

// Load reads the report of configAbs on host. It returns nil, nil when there
// is none, or when the file holds another format version.
func (s *Store) Load(configAbs, host string) (*Loaded, error) {
	for _, d := range []string{s.dir, s.reports()} {
		ok, err := s.checkDir(d)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, nil
		}
	}
	path := s.ReportPath(configAbs, host)
	raw, err := s.readOwn(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	r, err := decode(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if r == nil {
		return nil, nil
	}
	return &Loaded{Report: r, raw: raw}, nil
}

// decode reads a report; another format version is nil, nil.
func decode(raw []byte) (*Report, error) {
	// Held to the limits before anything reads it, whatever its version.
	if err := canon.Bounds(raw); err != nil {
		return nil, fmt.Errorf("not a report: %w", err)
	}
	var head struct {
		Format string `json:"format"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return nil, fmt.Errorf("not a report: %w", err)
	}
	if head.Format != Format {
		return nil, nil
	}
	if err := canon.Check(raw, nil); err != nil {
		return nil, fmt.Errorf("not a report: %w", err)
	}
	var r Report
	if r.decodeQuick(raw) {
		return &r, nil
	}
	r = Report{}
	if err := strict.Decode(raw, &r); err != nil {
		return nil, fmt.Errorf("not a report: %w", err)
	}
	return &r, nil
}

// decodeQuick decodes a report field by field (strict.Fields: one pass
// over each object, no reflection over its 2,000 resources) and reports
// whether it could. It takes exactly what the strict decoder takes, to the
// same value; anything it doesn't take goes the strict way, which decides
// it and words the error.
func (r *Report) decodeQuick(raw []byte) bool {
	f := strict.NewFields("", raw)
	var command string
	f.Opt("format", &r.Format)
	f.Opt("time", &r.Time)
	f.Opt("command", &command)
	f.Opt("host", &r.Host)
	f.Opt("user", &r.User)
	f.Opt("preview", &r.Preview)
	f.Opt("plan_hash", &r.PlanHash)
	f.Opt("target_hash", &r.TargetHash)
	f.Opt("target_secret", &r.TargetSecret)
	f.Opt("orphans", &r.Orphans)
	f.Opt("unresolved", &r.Unresolved)
	f.Opt("batches", &r.Batches)
	r.Command = Command(command)
	if f.Has("resources") {
		r.Resources = []Resource{}
	}
	f.List("resources", false, func(_ string, raw json.RawMessage) error {
		var x Resource
		var verdict string
		g := strict.NewFields("", raw)
		g.Opt("id", &x.ID)
		g.Opt("verdict", &verdict)
		g.Opt("hash", &x.Hash)
		g.Opt("secret", &x.Secret)
		x.Verdict = observation.Verdict(verdict)
		r.Resources = append(r.Resources, x)
		return g.Done()
	})
	return f.Done() == nil
}

// Save writes r as the report of configAbs on host, atomically.
func (s *Store) Save(configAbs, host string, r *Report) error {
	if r.Format == "" {
		r.Format = Format
	}
	if r.Batches == nil {
		r.Batches = []observation.Batch{}
	}
	if r.Resources == nil {
		r.Resources = []Resource{}
	}
	data, err := canon.Marshal(r)
	if err != nil {
		return err
	}
	for _, d := range []string{s.dir, s.reports()} {
		if err := s.ensureDir(d); err != nil {
			return err
		}
	}
	return WriteFile(s.ReportPath(configAbs, host), append(data, '\n'))
}

// Claim spends the preview l, read from the report of configAbs on host,
// for one wetrun. It renames the report to a name of its own, which only one
// of several runs can do, and then checks that what it took is still the
// preview it read. Of two wetruns started on one preview, one gets nil and
// the other ErrClaimLost.
func (s *Store) Claim(configAbs, host string, l *Loaded) error {
	path := s.ReportPath(configAbs, host)
	claim := path + ".claim-" + nonce()
	if err := os.Rename(path, claim); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return ErrClaimLost
		}
		return fmt.Errorf("claim the preview: %w", err)
	}
	got, err := os.ReadFile(claim)
	if err != nil {
		return fmt.Errorf("claim the preview: %w", err)
	}
	if !bytes.Equal(got, l.raw) {
		// Another run spent the preview and wrote its own report, which
		// this rename took: put it back unless a newer one is there.
		if err := os.Link(claim, path); err != nil && !errors.Is(err, fs.ErrExist) {
			os.Remove(claim)
			return fmt.Errorf("claim the preview: put back the report: %w", err)
		}
		os.Remove(claim)
		return ErrClaimLost
	}
	if err := os.Remove(claim); err != nil {
		return fmt.Errorf("claim the preview: %w", err)
	}
	return syncDir(filepath.Dir(path))
}

func nonce() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// checkDir reports whether d exists, refusing one that isn't a directory
// owned by the user and closed to other accounts' writes.
func (s *Store) checkDir(d string) (bool, error) {
	return CheckDir(d, s.uid, d == s.dir, false)
}

// CheckDir reports whether d exists, refusing one that isn't a directory
// uid owns and other accounts can't write (private: can't use at all). A
// link at d is followed only when followLink says so: the state directory
// itself may be a link the user made, and what it leads to is held to the
// same rule.
func CheckDir(d string, uid int, followLink, private bool) (bool, error) {
	fi, err := os.Lstat(d)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 && followLink {
		if fi, err = os.Stat(d); err != nil {
			return false, err
		}
	}
	if !fi.IsDir() {
		return false, fmt.Errorf("%s: %w: not a directory", d, ErrUntrusted)
	}
	if err := Trust(d, fi, uid, private); err != nil {
		return false, err
	}
	return true, nil
}

func (s *Store) ensureDir(d string) error {
	ok, err := s.checkDir(d)
	if err != nil || ok {
		return err
	}
	if err := os.MkdirAll(d, 0o700); err != nil {
		return err
	}
	if err := os.Chmod(d, 0o700); err != nil {
		return err
	}
	_, err = s.checkDir(d)
	return err
}

// Trust checks that fi, at path, belongs to uid and that other accounts
// can't write it (private: can't use it at all).
func Trust(path string, fi fs.FileInfo, uid int, private bool) error {
	return ownfile.Trust(path, fi, uid, private, ErrUntrusted)
}

// readOwn reads a regular file the user owns, never through a link.
func (s *Store) readOwn(path string) ([]byte, error) {
	return ownfile.Read(path, canon.MaxSize, s.own(false))
}

// own are the rules of a file of the user's own that other accounts can't
// write (private: can't use at all).
func (s *Store) own(private bool) ownfile.Rules {
	return ownfile.Rules{Refused: ErrUntrusted, Own: true, UID: s.uid, Private: private}
}

// WriteFile writes data to path atomically: a temporary file in the same
// directory, mode 600, synced, then renamed over path, and the directory
// synced.
func WriteFile(path string, data []byte) error {
	return atomicfile.Write(path, data, 0o600, nil)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// ContentCache is the directory of the content cache (internal/fetch):
// cache/files in the state directory.
func (s *Store) ContentCache() string { return filepath.Join(s.dir, "cache", "files") }
