package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDocumentLimitsMemory feeds every stage, and zap plan its lock, a
// document past the limits of a document (docs/protocol.md, Limits), and
// holds each binary, run as users get it, to the bound's refusal, exit 2,
// and to a ceiling on its own peak resident memory (measured through
// testdata/maxrss, so the test binary's own memory isn't counted).
// Before the limits, 50,000 nested lists (100 KB) ran each out of memory
// at 4.5 GB, and 100 MB of a declaration, observations or plan took 0.7 to
// 1.6 GB to read.
func TestDocumentLimitsMemory(t *testing.T) {
	maxrss := buildMaxRSS(t)
	const (
		// Measured through testdata/maxrss: 5 to 7 MB on 2026-12-02.
		deepCeiling = 16 << 20
		// A pipe is read to 64 MiB and a byte before it is refused.
		bigCeiling = 96 << 20
	)
	formats := map[string]string{
		"zap-detect": "zap.declaration/1",
		"zap-plan":   "zap.observations/1",
		"zap-exec":   "zap.plan/1",
	}
	for _, bin := range []string{"zap-detect", "zap-plan", "zap-exec"} {
		head := `{"format":"` + formats[bin] + `","target":{"local":true},"resources":[{"id":"big","type":"file","path":"~/big","content":{"type":"inline","content":`
		t.Run(bin+"/deep", func(t *testing.T) {
			doc := head + strings.Repeat("[", 50000) + strings.Repeat("]", 50000) + "}}]}"
			runLimited(t, maxrss, deepCeiling, "document depth limit: nests more than 128 deep", t.TempDir(), strings.NewReader(doc), bin)
		})
		t.Run(bin+"/100MB", func(t *testing.T) {
			doc := io.MultiReader(strings.NewReader(head+`"`), io.LimitReader(repeatByte('a'), 100_000_000), strings.NewReader(`"}}]}`))
			runLimited(t, maxrss, bigCeiling, "document size limit: larger than 64 MiB", t.TempDir(), doc, bin)
		})
	}
	t.Run("zap-plan-lock/deep", func(t *testing.T) {
		dir := t.TempDir()
		lock := `{"format":"zap.lock/1","entries":` + strings.Repeat("[", 50000) + strings.Repeat("]", 50000) + `}`
		for name, data := range map[string]string{
			"package.json": `{"name": "limits", "private": true, "type": "module"}`,
			"zap.ts":       "export default (zap) => {\n\tzap.target({local: true});\n\tzap.directory({id: 'd', path: '~/d'});\n};\n",
			"zap.lock":     lock,
		} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		runLimited(t, maxrss, deepCeiling, "zap.lock: not a lock this zap reads: document depth limit: nests more than 128 deep", dir, nil, "zap", "plan")
	})
}

// buildMaxRSS builds testdata/maxrss, through which runLimited measures a
// binary's peak resident memory, and returns its path.
func buildMaxRSS(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go tool to build testdata/maxrss with, so no way to measure a binary's own peak memory: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "maxrss")
	build := exec.Command(goTool, "build", "-o", bin, "./testdata/maxrss")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./testdata/maxrss: %v\n%s", err, out)
	}
	return bin
}

// runLimited runs the binary args[0] in dir with stdin, through maxrss,
// and asserts it exits 2 saying want, its peak resident memory under
// ceiling bytes.
func runLimited(t *testing.T, maxrss string, ceiling int64, want, dir string, stdin io.Reader, args ...string) {
	t.Helper()
	path, err := exec.LookPath(args[0])
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "maxrss.out")
	cmd := exec.Command(maxrss, append([]string{path}, args[1:]...)...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "TZ=UTC", "LC_ALL=C", "MAXRSS_OUT=" + out}
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	if cmd.ProcessState == nil {
		t.Fatalf("%s: %v", args[0], err)
	}
	if code := cmd.ProcessState.ExitCode(); code != 2 {
		t.Errorf("%s exited %d, want 2 (%v)", args[0], code, err)
	}
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("%s's stderr doesn't say %q:\n%.2000s", args[0], want, stderr.String())
	}
	kb, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("%s: maxrss wrote no figure: %v", args[0], err)
	}
	n, err := strconv.ParseInt(string(kb), 10, 64)
	if err != nil {
		t.Fatalf("%s: maxrss wrote %q: %v", args[0], kb, err)
	}
	peak := n << 10
	t.Logf("%s: peak resident memory %d kB", args[0], peak>>10)
	if peak > ceiling {
		t.Errorf("%s's peak resident memory was %d MB, more than %d MB", args[0], peak>>20, ceiling>>20)
	}
}

// repeatByte reads as b, endlessly.
type repeatByte byte

func (r repeatByte) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}
