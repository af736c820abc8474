package ops

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// tarball is a tar of files (name to body; a name ending in / is a
// directory), gzipped unless raw; modes sets a name's mode (default 644, a
// directory's 755).
func tarball(t *testing.T, files [][2]string, raw bool, modes map[string]int64) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, f := range files {
		h := &tar.Header{Name: f[0], Mode: 0o644, Size: int64(len(f[1])), Typeflag: tar.TypeReg}
		if strings.HasSuffix(f[0], "/") {
			h = &tar.Header{Name: f[0], Mode: 0o755, Typeflag: tar.TypeDir}
		}
		if m, ok := modes[f[0]]; ok {
			h.Mode = m
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			tw.Write([]byte(f[1]))
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if raw {
		return b.Bytes()
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(b.Bytes())
	zw.Close()
	return z.Bytes()
}

func sha512Hex(b []byte) string {
	s := sha512.Sum512(b)
	return hex.EncodeToString(s[:])
}

// TestBuildScript runs the build operation's script under each shell this
// machine has: a tar.gz (and a tar.xz, with xz) unpacked with its top
// directory stripped and built in its source directory or a cwd below it,
// its env exported; an unextracted source under its name; and the
// failures: bytes whose SHA-512 or length isn't the one sent run nothing
// (93), a cwd that isn't there (94), a run that fails exits with its
// status, one that leaves nothing at the output is 94. The private temporary directory is
// gone whatever happened.
func TestBuildScript(t *testing.T) {
	script, ok := Script("build")
	if !ok {
		t.Fatal("no build script")
	}
	buildSh := "mkdir -p \"$(dirname \"$OUT\")\"\nprintf '%s\\n%s\\n%s\\n' \"$(cat VERSION)\" \"$V\" \"$PWD\" > \"$OUT\"\n"
	tgz := tarball(t, [][2]string{{"pkg-1/", ""}, {"pkg-1/VERSION", "1"}, {"pkg-1/build.sh", buildSh}, {"pkg-1/sub/", ""}, {"pkg-1/sub/VERSION", "sub"}}, false, nil)
	// Set-id bits and group or world write, which no tar may keep (BusyBox's
	// keeps them for root).
	modes := tarball(t, [][2]string{{"m/", ""}, {"m/suid", "x"}, {"m/wide", "x"}, {"m/sgid/", ""}}, false,
		map[string]int64{"m/suid": 0o4755, "m/wide": 0o666, "m/sgid/": 0o2777})
	var txz []byte
	if _, err := exec.LookPath("xz"); err == nil {
		cmd := exec.Command("xz", "-c")
		cmd.Stdin = bytes.NewReader(tarball(t, [][2]string{{"a/b/VERSION", "xz"}, {"a/b/build.sh", buildSh}}, true, nil))
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		txz = out
	}
	// The run in its frame: env exported (a quote and a line break in a
	// value), the text in a group reading /dev/null.
	frame := func(text string) string {
		return "export V='it'\\''s\nhere'\n{\n" + text + "\n} </dev/null\n"
	}
	type result struct {
		exit   int
		out    string // what the output holds, "" for nothing there
		stderr string
	}
	cases := []struct {
		name             string
		archive          []byte
		extract, strip   string
		cwd, srcName     string
		sha, run         string
		want             result
		wantPWDSuffix    string
		skipWithoutBytes bool
		lengthOff        int // added to the length sent
	}{
		{name: "tar.gz, strip 1", archive: tgz, extract: "tar.gz", strip: "1", cwd: ".", run: frame("sh build.sh"),
			want: result{out: "1\nit's\nhere\n"}, wantPWDSuffix: "/src"},
		{name: "tar.gz, cwd below", archive: tgz, extract: "tar.gz", strip: "1", cwd: "sub", run: frame("sh ../build.sh"),
			want: result{out: "sub\nit's\nhere\n"}, wantPWDSuffix: "/src/sub"},
		{name: "tar.gz, no strip", archive: tgz, extract: "tar.gz", strip: "0", cwd: "pkg-1", run: frame("sh build.sh"),
			want: result{out: "1\nit's\nhere\n"}, wantPWDSuffix: "/src/pkg-1"},
		{name: "tar.xz, strip 2", archive: txz, extract: "tar.xz", strip: "2", cwd: ".", run: frame("sh build.sh"),
			want: result{out: "xz\nit's\nhere\n"}, wantPWDSuffix: "/src", skipWithoutBytes: true},
		{name: "none", archive: []byte("raw source\n"), extract: "none", strip: "0", cwd: ".", srcName: "hello.c", run: frame("mkdir -p \"$(dirname \"$OUT\")\" && cp hello.c \"$OUT\""),
			want: result{out: "raw source\n"}},
		{name: "modes", archive: modes, extract: "tar.gz", strip: "1", cwd: ".", run: frame("mkdir -p \"$(dirname \"$OUT\")\" && stat -c %a suid wide sgid > \"$OUT\""),
			want: result{out: "755\n644\n755\n"}},
		{name: "another SHA-512", archive: tgz, extract: "tar.gz", strip: "1", cwd: ".", sha: strings.Repeat("0", 128), run: frame("sh build.sh"),
			want: result{exit: 93, stderr: "zap build: the source that arrived is not the source sent; nothing was built"}},
		{name: "another length", archive: tgz, extract: "tar.gz", strip: "1", cwd: ".", lengthOff: 1, run: frame("sh build.sh"),
			want: result{exit: 93, stderr: "zap build: the source that arrived is not the source sent; nothing was built"}},
		{name: "not a tarball", archive: []byte("not a tarball"), extract: "tar.gz", strip: "1", cwd: ".", run: frame("sh build.sh"),
			want: result{exit: 93, stderr: "zap build: the tar.gz source can't be unpacked; nothing was built"}},
		{name: "no cwd", archive: tgz, extract: "tar.gz", strip: "1", cwd: "nowhere", run: frame("sh build.sh"),
			want: result{exit: 94, stderr: "zap build: can't enter the build's cwd nowhere; nothing was run"}},
		{name: "run fails", archive: tgz, extract: "tar.gz", strip: "1", cwd: ".", run: frame("exit 7"),
			want: result{exit: 7, stderr: "zap build: the run exited 7; no provenance is recorded"}},
		{name: "no output", archive: tgz, extract: "tar.gz", strip: "1", cwd: ".", run: frame("true"),
			want: result{exit: 94, stderr: "left nothing at the output"}},
	}
	for _, sh := range shells(t) {
		for _, c := range cases {
			if c.archive == nil && c.skipWithoutBytes {
				t.Logf("%s, %s: no xz on this machine, not tried", sh, c.name)
				continue
			}
			dir, tmp := t.TempDir(), t.TempDir()
			out := filepath.Join(dir, "prefix", "bin", "hello")
			sha := c.sha
			if sha == "" {
				sha = sha512Hex(c.archive)
			}
			name := c.srcName
			if name == "" {
				name = "source"
			}
			stdin := StreamInput([]string{"pin", c.extract, c.strip, c.cwd, name, sha, strconv.Itoa(len(c.archive) + c.lengthOff), c.run}, bytes.NewReader(c.archive))
			env := []string{"PATH=" + os.Getenv("PATH"), "TMPDIR=" + tmp, "HOME=" + dir, "OUT=" + out}
			exit, stderr := runStream(t, sh, script.Text, stdin, env, out)
			got, _ := os.ReadFile(out)
			body, pwd := string(got), ""
			if c.wantPWDSuffix != "" {
				if i := strings.LastIndex(strings.TrimSuffix(body, "\n"), "\n"); i >= 0 {
					body, pwd = body[:i+1], strings.TrimSpace(body[i+1:])
				}
			}
			if exit != c.want.exit || body != c.want.out || !strings.Contains(stderr, c.want.stderr) {
				t.Errorf("%s, %s: exit %d, output %q, stderr %q; want %d, %q, %q", sh, c.name, exit, body, stderr, c.want.exit, c.want.out, c.want.stderr)
			}
			if c.wantPWDSuffix != "" && (!strings.HasPrefix(pwd, tmp+"/zap-build.") || !strings.HasSuffix(pwd, c.wantPWDSuffix)) {
				t.Errorf("%s, %s: built in %s, want a private directory in %s ending in %s", sh, c.name, pwd, tmp, c.wantPWDSuffix)
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("%s, %s: %d file(s) left in TMPDIR", sh, c.name, len(left))
			}
		}
	}
}
