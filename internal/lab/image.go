package lab

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

//go:embed scripts/image.sh
var imageScript []byte

//go:embed scripts/openrc-boot.sh
var openrcBoot []byte

// DefaultMirror is the mirror used when the machine's apt sources name no
// Debian one.
const DefaultMirror = "http://deb.debian.org/debian"

// Sources are the Debian mirrors the machine's apt uses, which the images
// are built from and a host's apt reads through the cacher.
type Sources struct {
	// Mirror is the archive holding Suite.
	Mirror string
	// Updates is whether the machine reads Suite-updates from Mirror.
	Updates bool
	// Security is the archive holding Suite-security ("" for none).
	Security string
}

// MachineSources reads the machine's apt sources (/etc/apt/sources.list and
// sources.list.d/*.list, *.sources).
func MachineSources() Sources {
	var files []string
	files = append(files, "/etc/apt/sources.list")
	for _, pat := range []string{"*.list", "*.sources"} {
		m, _ := filepath.Glob(filepath.Join("/etc/apt/sources.list.d", pat))
		files = append(files, m...)
	}
	var entries []SourceEntry
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		entries = append(entries, ParseSources(data)...)
	}
	return PickSources(entries, Suite)
}

// SourceEntry is one deb archive of an apt sources file: its URI and the
// suites read from it.
type SourceEntry struct {
	URI    string
	Suites []string
}

// ParseSources reads apt sources in either format: one-line ("deb [opts]
// URI suite comp...") or deb822 stanzas (Types, URIs, Suites). Only deb
// (not deb-src) entries are kept; what it can't read it skips.
func ParseSources(data []byte) []SourceEntry {
	var out []SourceEntry
	var stanza map[string]string
	flush := func() {
		if stanza == nil {
			return
		}
		if hasField(stanza["types"], "deb") {
			for _, uri := range strings.Fields(stanza["uris"]) {
				out = append(out, SourceEntry{URI: uri, Suites: strings.Fields(stanza["suites"])})
			}
		}
		stanza = nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue // a comment line; only a blank one ends a stanza
		}
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			flush()
			continue
		}
		f := strings.Fields(trimmed)
		if f[0] == "deb" {
			flush()
			f = f[1:]
			// Options: "[a=b c=d]", possibly spread over several fields.
			if len(f) > 0 && strings.HasPrefix(f[0], "[") {
				for len(f) > 0 && !strings.HasSuffix(f[0], "]") {
					f = f[1:]
				}
				if len(f) > 0 {
					f = f[1:]
				}
			}
			if len(f) >= 2 {
				out = append(out, SourceEntry{URI: f[0], Suites: []string{f[1]}})
			}
			continue
		}
		if f[0] == "deb-src" {
			flush()
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			continue // a continuation line of a deb822 field
		}
		key, value, ok := strings.Cut(trimmed, ":")
		if !ok {
			continue
		}
		if stanza == nil {
			stanza = map[string]string{}
		}
		stanza[strings.ToLower(strings.TrimSpace(key))] = strings.TrimSpace(value)
	}
	flush()
	return out
}

func hasField(list, want string) bool {
	for _, f := range strings.Fields(list) {
		if f == want {
			return true
		}
	}
	return false
}

// PickSources chooses, among entries, the plain-HTTP archive holding suite
// (an https one when there is none), whether it serves suite-updates, and
// the archive holding suite-security.
func PickSources(entries []SourceEntry, suite string) Sources {
	var s Sources
	pick := func(want string) string {
		var https string
		for _, e := range entries {
			for _, su := range e.Suites {
				if su != want {
					continue
				}
				if strings.HasPrefix(e.URI, "http://") {
					return strings.TrimSuffix(e.URI, "/")
				}
				if https == "" && strings.HasPrefix(e.URI, "https://") {
					https = strings.TrimSuffix(e.URI, "/")
				}
			}
		}
		return https
	}
	s.Mirror = pick(suite)
	if s.Mirror == "" {
		s.Mirror = DefaultMirror
	}
	for _, e := range entries {
		if strings.TrimSuffix(e.URI, "/") == s.Mirror {
			for _, su := range e.Suites {
				if su == suite+"-updates" {
					s.Updates = true
				}
			}
		}
	}
	s.Security = pick(suite + "-security")
	return s
}

// List is the sources.list a host's apt reads: the same archives, which it
// reaches through the cacher.
func (s Sources) List(suite string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "deb %s %s main\n", s.Mirror, suite)
	if s.Updates {
		fmt.Fprintf(&b, "deb %s %s-updates main\n", s.Mirror, suite)
	}
	if s.Security != "" {
		fmt.Fprintf(&b, "deb %s %s-security main\n", s.Security, suite)
	}
	return b.String()
}

// recipeVersion changes whenever the way images are built changes in a way
// the scripts' text doesn't show.
const recipeVersion = "1"

func baseHash() string {
	h := sha256.New()
	fmt.Fprintf(h, "zap-lab base %s\nsuite %s\nvariant minbase\nmirror %s\n", recipeVersion, Suite, MachineSources().Mirror)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func kindHash(kind Kind) string {
	h := sha256.New()
	fmt.Fprintf(h, "zap-lab image %s\nbase %s\nkind %s\n", recipeVersion, baseHash(), kind)
	h.Write(imageScript)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func baseDir() string { return filepath.Join(CacheDir(), "images", "base-"+baseHash()) }

// imageDir is where kind's image is cached; its root is imageDir/root,
// there only once the image is complete.
func imageDir(kind Kind) string {
	return filepath.Join(CacheDir(), "images", string(kind)+"-"+kindHash(kind))
}

// ImageRoot is the root file system of kind's cached image (it may not be
// built yet: see Build).
func ImageRoot(kind Kind) string { return filepath.Join(imageDir(kind), "root") }

// lockFile takes an exclusive flock on name, waiting for it; the returned
// function releases it.
func lockFile(name string) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("flock %s: %w", name, err)
	}
	return func() { f.Close() }, nil
}

// Build makes sure the images of kinds are built, building what is missing
// (the base first, then the kinds' images side by side) under the cache's
// flock. Progress lines go to w (nil for none).
func Build(w io.Writer, kinds ...Kind) error {
	if w == nil {
		w = io.Discard
	}
	for _, k := range kinds {
		if err := Available(k); err != nil {
			return err
		}
	}
	var missing []Kind
	for _, k := range kinds {
		if _, err := os.Stat(ImageRoot(k)); err != nil {
			missing = append(missing, k)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	unlock, err := lockFile(filepath.Join(CacheDir(), "lock"))
	if err != nil {
		return err
	}
	defer unlock()
	if err := buildBase(w); err != nil {
		return err
	}
	var wg sync.WaitGroup
	errs := make([]error, len(missing))
	for i, k := range missing {
		wg.Go(func() { errs[i] = buildImage(w, k) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	pruneImages()
	return nil
}

// pruneImages removes images of older recipes and what killed builds
// left, unless a host is running (its clone may sit on one). The caller
// holds the cache's lock; pruneImages takes the run lock as well, so no
// host leases an address while it looks and removes: a host that Boot
// leased before finds its image there or builds it, after.
func pruneImages() {
	unlock, err := lockFile(filepath.Join(RunDir(), "lock"))
	if err != nil {
		return
	}
	defer unlock()
	for _, l := range readLeases() {
		if l.Owner.Alive() {
			return
		}
	}
	keep := map[string]bool{filepath.Base(baseDir()): true}
	for _, k := range Kinds {
		keep[filepath.Base(imageDir(k))] = true
	}
	entries, _ := os.ReadDir(filepath.Join(CacheDir(), "images"))
	for _, e := range entries {
		// Builders hold the lock: a .tmp- directory is a killed build's.
		if !keep[e.Name()] {
			removeTree(filepath.Join(CacheDir(), "images", e.Name()))
		}
	}
}

// buildBase debootstraps the base image unless it is there.
func buildBase(w io.Writer) error {
	dir := baseDir()
	var start time.Time
	built, err := buildOnce(dir, func(tmp string) error {
		mirror := MachineSources().Mirror
		start = time.Now()
		fmt.Fprintf(w, "lab: building the base image (debootstrap --variant=minbase %s from %s)\n", Suite, mirror)
		log := filepath.Join(CacheDir(), "build-base.log")
		if err := runLogged(log, "debootstrap", "--variant=minbase", Suite, filepath.Join(tmp, "root"), mirror); err != nil {
			return fmt.Errorf("build the lab's base image: %w", err)
		}
		return nil
	})
	if built {
		fmt.Fprintf(w, "lab: base image built in %s: %s\n", time.Since(start).Round(time.Second), dir)
	}
	return err
}

// buildImage copies the base and runs image.sh in it, in a chroot with
// proc, sys and dev mounted in a mount namespace of its own (so nothing of
// them outlives the build).
func buildImage(w io.Writer, kind Kind) error {
	dir := imageDir(kind)
	var start time.Time
	built, err := buildOnce(dir, func(tmp string) error {
		start = time.Now()
		fmt.Fprintf(w, "lab: building the %s image\n", kind)
		root := filepath.Join(tmp, "root")
		if out, err := exec.Command("cp", "-a", "--reflink=auto", filepath.Join(baseDir(), "root"), root).CombinedOutput(); err != nil {
			return fmt.Errorf("copy the base image: %v: %s", err, out)
		}
		if err := os.WriteFile(filepath.Join(root, "zaplab-image.sh"), imageScript, 0o755); err != nil {
			return err
		}
		log := filepath.Join(CacheDir(), "build-"+string(kind)+".log")
		script := `set -e; r=$1; mount -t proc proc "$r/proc"; mount --bind /dev "$r/dev"; mount -t sysfs sysfs "$r/sys"; exec chroot "$r" /bin/sh /zaplab-image.sh "$2"`
		if err := runLogged(log, "unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", root, string(kind)); err != nil {
			return fmt.Errorf("build the lab's %s image: %w", kind, err)
		}
		return os.Remove(filepath.Join(root, "zaplab-image.sh"))
	})
	if built {
		fmt.Fprintf(w, "lab: %s image built in %s: %s\n", kind, time.Since(start).Round(time.Second), dir)
	}
	return err
}

// buildOnce builds the image dir unless its root is there: build fills a
// fresh dir.tmp-PID (one a killed build left is removed first), which is
// then renamed to dir, so dir is never half built. built says whether it
// was.
func buildOnce(dir string, build func(tmp string) error) (built bool, err error) {
	if _, err := os.Stat(filepath.Join(dir, "root")); err == nil {
		return false, nil
	}
	tmp := fmt.Sprintf("%s.tmp-%d", dir, os.Getpid())
	if err := removeTree(tmp); err != nil {
		return false, err
	}
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		return false, err
	}
	if err := build(tmp); err != nil {
		return false, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return false, err
	}
	return true, nil
}

// runLogged runs a command with its output in log, and on failure returns
// an error holding the log's last lines.
func runLogged(log string, name string, args ...string) error {
	f, err := os.Create(log)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive", "LC_ALL=C")
	if err := cmd.Run(); err != nil {
		data, _ := os.ReadFile(log)
		return fmt.Errorf("%s: %v (log %s): %s", name, err, log, tail(string(data), 15))
	}
	return nil
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// removeTree removes dir, refusing when anything is still mounted at or
// under it (an rm -rf would then reach into that file system).
func removeTree(dir string) error {
	if mounted, _ := mountsUnder(dir); len(mounted) > 0 {
		return fmt.Errorf("won't remove %s: still mounted there: %s", dir, strings.Join(mounted, ", "))
	}
	return os.RemoveAll(dir)
}

// mountsUnder lists the mount points at or under dir in this process's
// mount namespace.
func mountsUnder(dir string) ([]string, error) {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	dir = filepath.Clean(dir)
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		if len(f) < 5 {
			continue
		}
		mp := unescapeMount(f[4])
		if mp == dir || strings.HasPrefix(mp, dir+"/") {
			out = append(out, mp)
		}
	}
	return out, nil
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space...).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var v byte
			ok := true
			for _, c := range []byte(s[i+1 : i+4]) {
				if c < '0' || c > '7' {
					ok = false
					break
				}
				v = v*8 + (c - '0')
			}
			if ok {
				b.WriteByte(v)
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Prune removes cached images of older recipes and what killed builds
// left, unless a host is running.
func Prune() error {
	unlock, err := lockFile(filepath.Join(CacheDir(), "lock"))
	if err != nil {
		return err
	}
	defer unlock()
	pruneImages()
	return nil
}
