package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestDocumentLimitsMemory feeds every stage, and zap plan its lock, a
// document past the limits of a document (docs/protocol.md, Limits), and
// holds each binary, run as users get it, to the bound's refusal, exit 2,
// and to a ceiling on its own peak resident memory (the child's rusage).
// Before the limits, 50,000 nested lists (100 KB) ran each out of memory
// at 4.5 GB, and 100 MB of a declaration, observations or plan took 0.7 to
// 1.6 GB to read.
func TestDocumentLimitsMemory(t *testing.T) {
	const (
		deepCeiling = 32 << 20
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
			runLimited(t, deepCeiling, "document depth limit: nests more than 128 deep", t.TempDir(), strings.NewReader(doc), bin)
		})
		t.Run(bin+"/100MB", func(t *testing.T) {
			doc := io.MultiReader(strings.NewReader(head+`"`), io.LimitReader(repeatByte('a'), 100_000_000), strings.NewReader(`"}}]}`))
			runLimited(t, bigCeiling, "document size limit: larger than 64 MiB", t.TempDir(), doc, bin)
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
		runLimited(t, deepCeiling, "zap.lock: not a lock this zap reads: document depth limit: nests more than 128 deep", dir, nil, "zap", "plan")
	})
}

// runLimited runs the binary args[0] in dir with stdin and asserts it
// exits 2 saying want, its peak resident memory under ceiling bytes.
func runLimited(t *testing.T, ceiling int64, want, dir string, stdin io.Reader, args ...string) {
	t.Helper()
	path, err := exec.LookPath(args[0])
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, args[1:]...)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "TZ=UTC", "LC_ALL=C"}
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
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10
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
