package deploy

import (
	"bytes"
	"crypto/sha512"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/ops"
	"github.com/zap-go/zap/pkg/deployplan"
)

// releaseEnv is an app path holding an uploaded archive of one file,
// bin/app, and the archive's digest.
func releaseEnv(t *testing.T, user, version string) (path, digest string) {
	t.Helper()
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("skipped: the release script needs flock, which this machine lacks")
	}
	path = t.TempDir()
	src := t.TempDir()
	if err := os.MkdirAll(filepath.Join(src, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "bin", "app"), []byte("v "+version+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(path, ".zap-deploy-"+user+"-"+version+".tar.gz")
	if out, err := exec.Command("tar", "-czf", archive, "-C", src, "bin").CombinedOutput(); err != nil {
		t.Fatalf("tar: %v: %s", err, out)
	}
	if err := os.Chmod(archive, 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha512.Sum512(b)
	return path, hex.EncodeToString(sum[:])
}

// runRelease runs the release script with sh, as the deploy's session does.
func runRelease(t *testing.T, script, digest string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command("sh")
	cmd.Stdin = strings.NewReader(ops.Input(script, digest))
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

func me(t *testing.T) string {
	out, err := exec.Command("id", "-un").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// TestReleaseScriptRecoversAndSwaps: a release moved aside by a deploy
// killed between place and swap is put back, the staging directory left
// behind removed, each a warning, and the new release swapped in; a prepare
// command's exit ends only that command.
func TestReleaseScriptRecoversAndSwaps(t *testing.T) {
	user := me(t)
	path, digest := releaseEnv(t, user, "bbbbbbbbbbbb")
	for _, d := range []string{"releases/.zap-stage/x", "releases/.zap-old-aaaaaaaaaaaa"} {
		if err := os.MkdirAll(filepath.Join(path, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(path, "releases", "aaaaaaaaaaaa"), filepath.Join(path, "current")); err != nil {
		t.Fatal(err)
	}
	script := ReleaseScript(path, user, "bbbbbbbbbbbb", deployplan.Live{State: deployplan.LiveRelease, Release: "aaaaaaaaaaaa"}, 2, nil,
		[]string{"exit 0", "echo prepared >&2; touch marker"}, "me@here")
	if again := ReleaseScript(path, user, "bbbbbbbbbbbb", deployplan.Live{State: deployplan.LiveRelease, Release: "aaaaaaaaaaaa"}, 2, nil,
		[]string{"exit 0", "echo prepared >&2; touch marker"}, "me@here"); again != script {
		t.Fatal("the same inputs gave two scripts")
	}
	out, errOut, code := runRelease(t, script, digest)
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	for _, want := range []string{
		"warning: removed releases/.zap-stage, which an unfinished deploy left\n",
		"warning: put releases/.zap-old-aaaaaaaaaaaa back as releases/aaaaaaaaaaaa",
		"swapped\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "prepared") {
		t.Errorf("the prepare commands' output isn't on stderr: %q", errOut)
	}
	link, _ := os.Readlink(filepath.Join(path, "current"))
	if link != filepath.Join(path, "releases", "bbbbbbbbbbbb") {
		t.Errorf("current = %q", link)
	}
	for _, f := range []string{"releases/aaaaaaaaaaaa", "releases/bbbbbbbbbbbb/marker", "releases/bbbbbbbbbbbb/bin/app", "deploy_info.json"} {
		if _, err := os.Stat(filepath.Join(path, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if _, err := os.Stat(filepath.Join(path, ".zap-deploy-"+user+"-bbbbbbbbbbbb.tar.gz")); !os.IsNotExist(err) {
		t.Errorf("the archive is still there: %v", err)
	}
}

// TestReleaseScriptRefuses: a wrong digest, an archive others can write, a
// failing prepare command and a shared name the release ships a directory
// at each stop the script before the swap, current left as it was.
func TestReleaseScriptRefuses(t *testing.T) {
	user := me(t)
	for name, tc := range map[string]struct {
		prepare []string
		shared  []string
		edit    func(path, archive string, digest *string)
		want    string
	}{
		"digest":   {edit: func(_, _ string, d *string) { *d = strings.Repeat("0", 128) }, want: "doesn't have the digest"},
		"writable": {edit: func(_, a string, _ *string) { os.Chmod(a, 0o622) }, want: "that no one else can write"},
		"prepare":  {prepare: []string{"true", "false", "touch ../../never"}, want: "a prepare command failed (exit 1)"},
		"shared":   {shared: []string{"bin"}, want: "ships a directory at the shared name bin"},
		"lock": {edit: func(path, _ string, _ *string) {
			os.WriteFile(filepath.Join(path, ".zap-deploy.lock"), nil, 0o640)
			holdLock(t, filepath.Join(path, ".zap-deploy.lock"))
		}, want: "another deploy is running for this app"},
	} {
		t.Run(name, func(t *testing.T) {
			path, digest := releaseEnv(t, user, "bbbbbbbbbbbb")
			if tc.edit != nil {
				tc.edit(path, filepath.Join(path, ".zap-deploy-"+user+"-bbbbbbbbbbbb.tar.gz"), &digest)
			}
			script := ReleaseScript(path, user, "bbbbbbbbbbbb", deployplan.Live{State: deployplan.LiveNone}, 2, tc.shared, tc.prepare, "me@here")
			out, errOut, code := runRelease(t, script, digest)
			if code != 1 || !strings.Contains(out, "stop: ") || !strings.Contains(out, tc.want) {
				t.Fatalf("exit %d, want 1 stopping with %q\nstdout %s\nstderr %s", code, tc.want, out, errOut)
			}
			if strings.Contains(out, "swapped") {
				t.Error("it swapped")
			}
			if _, err := os.Lstat(filepath.Join(path, "current")); !os.IsNotExist(err) {
				t.Errorf("current exists: %v", err)
			}
			if _, err := os.Lstat(filepath.Join(path, "releases", ".zap-stage")); !os.IsNotExist(err) {
				t.Errorf("the staging directory is left: %v", err)
			}
			if _, err := os.Stat(filepath.Join(path, "never")); err == nil {
				t.Error("a prepare command after the failed one ran")
			}
		})
	}
}

// TestReleaseScriptKilled: a release script killed (SIGKILL, the test-only
// KillVar) inside its place step, with the version's earlier release moved
// aside and the new one still staged, leaves current alone; the next run
// puts the aside release back and removes the staging directory, and is
// killed itself after placing, before the swap; the run after that removes
// the aside release the new one replaced and swaps.
func TestReleaseScriptKilled(t *testing.T) {
	user := me(t)
	const live, version = "aaaaaaaaaaaa", "bbbbbbbbbbbb"
	path, digest := releaseEnv(t, user, version)
	for _, d := range []string{"releases/" + live, "releases/" + version + "/old"} {
		if err := os.MkdirAll(filepath.Join(path, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(path, "releases", live), filepath.Join(path, "current")); err != nil {
		t.Fatal(err)
	}
	script := func() string {
		return ReleaseScript(path, user, version, deployplan.Live{State: deployplan.LiveRelease, Release: live}, 3, nil, nil, "me@here")
	}
	exists := func(rel string) bool {
		_, err := os.Lstat(filepath.Join(path, rel))
		return err == nil
	}
	current := func() string {
		link, _ := os.Readlink(filepath.Join(path, "current"))
		return filepath.Base(link)
	}

	t.Setenv(KillVar, "aside")
	s := script()
	if !strings.Contains(s, "kill -9 $$ # "+KillVar+"='aside'") {
		t.Fatalf("the script has no kill line:\n%s", s)
	}
	out, errOut, code := runRelease(t, s, digest)
	if code != -1 || strings.Contains(out, "swapped") {
		t.Fatalf("killed at aside: exit %d (want -1, a signal)\nstdout %s\nstderr %s", code, out, errOut)
	}
	if !exists("releases/.zap-stage/bin/app") || !exists("releases/.zap-old-"+version+"/old") || exists("releases/"+version) || current() != live {
		t.Fatalf("killed at aside: stage %v, aside %v, release %v, current %s", exists("releases/.zap-stage"), exists("releases/.zap-old-"+version), exists("releases/"+version), current())
	}

	t.Setenv(KillVar, "placed")
	out, errOut, code = runRelease(t, script(), digest)
	if code != -1 || strings.Contains(out, "swapped") {
		t.Fatalf("killed at placed: exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	for _, want := range []string{
		"warning: removed releases/.zap-stage, which an unfinished deploy left\n",
		"warning: put releases/.zap-old-" + version + " back as releases/" + version,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if exists("releases/.zap-stage") || !exists("releases/.zap-old-"+version+"/old") || !exists("releases/"+version+"/bin/app") || current() != live {
		t.Fatalf("killed at placed: stage %v, aside %v, release %v, current %s", exists("releases/.zap-stage"), exists("releases/.zap-old-"+version), exists("releases/"+version), current())
	}

	t.Setenv(KillVar, "")
	out, errOut, code = runRelease(t, script(), digest)
	if code != 0 || !strings.Contains(out, "swapped\n") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if want := "warning: removed releases/.zap-old-" + version + ", which an unfinished deploy moved aside (releases/" + version + " is filled)"; !strings.Contains(out, want) {
		t.Errorf("stdout lacks %q:\n%s", want, out)
	}
	if current() != version || exists("releases/.zap-old-"+version) || exists("releases/.zap-stage") || !exists("releases/"+live) || exists("releases/"+version+"/old") {
		t.Errorf("after: current %s, aside %v, stage %v", current(), exists("releases/.zap-old-"+version), exists("releases/.zap-stage"))
	}
}

// TestRollbackScript: the rollback's compare-and-swap re-points current at
// the previous release only while current names the failed one and the
// previous one is on the host, under the deploy lock taken without
// waiting; otherwise it changes nothing and says why (exit 3).
func TestRollbackScript(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("skipped: the rollback script needs flock, which this machine lacks")
	}
	const failed, previous = "bbbbbbbbbbbb", "aaaaaaaaaaaa"
	for name, tc := range map[string]struct {
		edit func(t *testing.T, path string)
		want string // "" for swapped
	}{
		"swapped":  {},
		"trailing": {edit: func(t *testing.T, path string) { relink(t, path, path+"/releases/"+failed+"//") }},
		"held":     {edit: func(t *testing.T, path string) { holdLock(t, filepath.Join(path, ".zap-deploy.lock")) }, want: "another deploy holds the app's lock"},
		"nothing":  {edit: func(t *testing.T, path string) { os.Remove(filepath.Join(path, "current")) }, want: "current names nothing"},
		"moved":    {edit: func(t *testing.T, path string) { relink(t, path, path+"/releases/cccccccccccc") }, want: "current no longer names the failed release " + failed},
		"gone":     {edit: func(t *testing.T, path string) { os.RemoveAll(filepath.Join(path, "releases", previous)) }, want: "the previous release " + previous + " is gone"},
	} {
		t.Run(name, func(t *testing.T) {
			path := t.TempDir()
			for _, v := range []string{failed, previous} {
				if err := os.MkdirAll(filepath.Join(path, "releases", v), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(path, ".zap-deploy.lock"), nil, 0o640); err != nil {
				t.Fatal(err)
			}
			relink(t, path, path+"/releases/"+failed)
			if tc.edit != nil {
				tc.edit(t, path)
			}
			before, _ := os.Readlink(filepath.Join(path, "current"))
			cmd := exec.Command("sh")
			cmd.Stdin = strings.NewReader(ops.Input(Rollback, path, failed, previous, `"me@here"`))
			out, err := cmd.Output()
			after, _ := os.Readlink(filepath.Join(path, "current"))
			if tc.want == "" {
				if err != nil || strings.TrimSpace(string(out)) != "swapped" || after != path+"/releases/"+previous {
					t.Fatalf("rollback: %v, %q; current %q", err, out, after)
				}
				info, _ := os.ReadFile(filepath.Join(path, "deploy_info.json"))
				if want := `{"version":"` + previous + `","deployed_by":"me@here",`; !strings.HasPrefix(string(info), want) ||
					!strings.HasSuffix(string(info), `,"previous":"`+failed+`","gate":"passed"}`+"\n") {
					t.Errorf("deploy_info.json after the rollback doesn't name what current names:\n%s", info)
				}
				return
			}
			ee, ok := err.(*exec.ExitError)
			if !ok || ee.ExitCode() != 3 || strings.TrimSpace(string(out)) != "skip: "+tc.want {
				t.Fatalf("rollback: %v, %q; want exit 3 and skip: %s", err, out, tc.want)
			}
			if after != before {
				t.Errorf("current moved from %q to %q", before, after)
			}
		})
	}
}

// relink points path/current at target.
func relink(t *testing.T, path, target string) {
	t.Helper()
	os.Remove(filepath.Join(path, "current"))
	if err := os.Symlink(target, filepath.Join(path, "current")); err != nil {
		t.Fatal(err)
	}
}

// holdLock has another process hold the flock on lock for 3 seconds, and
// returns once it does.
func holdLock(t *testing.T, lock string) {
	t.Helper()
	cmd := exec.Command("flock", lock, "sleep", "3")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Wait() })
	for i := 0; i < 100 && exec.Command("flock", "-n", lock, "true").Run() == nil; i++ {
		exec.Command("sleep", "0.05").Run()
	}
}

// TestGateScriptRecordsTheVerdictOfWhatCurrentNames: the gate's verdict
// goes into deploy_info.json only while current and deploy_info.json both
// name the release; otherwise nothing is written and it says why (exit 3).
func TestGateScriptRecordsTheVerdictOfWhatCurrentNames(t *testing.T) {
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("skipped: the gate script needs flock, which this machine lacks")
	}
	const version = "bbbbbbbbbbbb"
	info := `{"version":"` + version + `","deployed_by":"me@here","deployed_at":"2026-12-07T00:00:00Z","previous":"","gate":"pending"}` + "\n"
	for name, tc := range map[string]struct {
		current, verdict string
		want             string // "" for recorded
	}{
		"passed": {current: version, verdict: GatePassed},
		"failed": {current: version, verdict: GateFailed},
		"moved":  {current: "cccccccccccc", verdict: GatePassed, want: "skip: current no longer names " + version},
	} {
		t.Run(name, func(t *testing.T) {
			path := t.TempDir()
			if err := os.WriteFile(filepath.Join(path, ".zap-deploy.lock"), nil, 0o640); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(path, "deploy_info.json"), []byte(info), 0o644); err != nil {
				t.Fatal(err)
			}
			relink(t, path, path+"/releases/"+tc.current)
			cmd := exec.Command("sh")
			cmd.Stdin = strings.NewReader(ops.Input(Gate, path, version, tc.verdict))
			out, err := cmd.Output()
			got, _ := os.ReadFile(filepath.Join(path, "deploy_info.json"))
			if tc.want == "" {
				if err != nil || string(got) != strings.Replace(info, `"gate":"pending"`, `"gate":"`+tc.verdict+`"`, 1) {
					t.Fatalf("gate: %v, %q; deploy_info.json %s", err, out, got)
				}
				return
			}
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 || strings.TrimSpace(string(out)) != tc.want || string(got) != info {
				t.Fatalf("gate: %v, %q; deploy_info.json %s", err, out, got)
			}
		})
	}
}

// TestNeedsNamesWhatTheTargetLacks: the plan's check of the target names
// each tool Zap's deploy scripts use that the target's PATH lacks, and a
// user with no passwordless sudo when the deploy restarts a service; a
// target with everything passes.
func TestNeedsNamesWhatTheTargetLacks(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("skipped: no sh on this machine")
	}
	bin := t.TempDir()
	for _, tool := range []string{"tar", "gzip", "cat", "stat", "mktemp", "readlink", "find", "sed", "head"} {
		if p, err := exec.LookPath(tool); err == nil {
			if err := os.Symlink(p, filepath.Join(bin, tool)); err != nil {
				t.Fatal(err)
			}
		}
	}
	cmd := exec.Command(sh)
	cmd.Env = []string{"PATH=" + bin}
	cmd.Stdin = strings.NewReader(ops.Input(needsScript, "yes", "openrc", "app"))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("needs.sh: %v", err)
	}
	if !strings.Contains(string(out), "missing flock\n") || !strings.Contains(string(out), "missing sha512sum\n") || !strings.Contains(string(out), "nosudo\n") || !strings.Contains(string(out), "nomanager\n") {
		t.Fatalf("needs.sh with no flock, sha512sum or sudo says:\n%s", out)
	}
	err = needsError(string(out), "deployer", "openrc", "app")
	if err == nil || !strings.Contains(err.Error(), "the target lacks flock, sha512sum, which Zap's deploy scripts use (on deployer's PATH)") {
		t.Errorf("needsError: %v", err)
	}
	if err := needsError("nosudo\n", "deployer", "systemd", "app"); err == nil || !strings.Contains(err.Error(), "deployer can't run sudo without a password") {
		t.Errorf("needsError without sudo: %v", err)
	}
	if err := needsError("nomanager\n", "deployer", "systemd", "app"); err == nil || !strings.Contains(err.Error(), "through systemd, the target's declared service_manager, and systemd doesn't run that host") {
		t.Errorf("needsError without the manager: %v", err)
	}
	if err := needsError("nounit\n", "deployer", "systemd", "app"); err == nil || !strings.Contains(err.Error(), `deploy.service "app", and systemd on the target knows no such service`) {
		t.Errorf("needsError without the unit: %v", err)
	}
	if err := needsError("", "deployer", "", ""); err != nil {
		t.Errorf("needsError with everything: %v", err)
	}
}

// TestInstallStreamsTheArchive runs the upload's script as the engine runs
// a streamed operation (sh -c SCRIPT sh, the framed arguments and then the
// raw bytes on stdin): the archive is installed under its name, mode 600;
// bytes that don't have the digest sent install nothing and say so.
func TestInstallStreamsTheArchive(t *testing.T) {
	archive := []byte("not really gzip\n\x00\x01\xff and no final newline")
	sum := sha512.Sum512(archive)
	digest := hex.EncodeToString(sum[:])
	run := func(dir, want string) (string, error) {
		cmd := exec.Command("sh", "-c", Install, "sh")
		cmd.Stdin = ops.StreamInput([]string{dir, "a.tar.gz", want}, bytes.NewReader(archive))
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	dir := t.TempDir()
	if out, err := run(dir, digest); err != nil {
		t.Fatalf("install: %v\n%s", err, out)
	}
	got, err := os.ReadFile(filepath.Join(dir, "a.tar.gz"))
	if err != nil || !bytes.Equal(got, archive) {
		t.Fatalf("installed %q, %v; want the archive's bytes", got, err)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "a.tar.gz")); fi.Mode().Perm() != 0o600 {
		t.Errorf("installed with mode %v, want 600", fi.Mode().Perm())
	}
	other := t.TempDir()
	out, err := run(other, strings.Repeat("0", 128))
	if err == nil || !strings.Contains(out, "stop: the archive that arrived is not the archive sent") {
		t.Errorf("a wrong digest: %v\n%s", err, out)
	}
	if left, _ := os.ReadDir(other); len(left) != 0 {
		t.Errorf("a wrong digest left %v", left)
	}
}
