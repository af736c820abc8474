package installer

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/zap-go/zap/internal/ops"
)

// TestInstallerScript runs the installer operation's script under each
// shell this machine has, against an HTTPS server on 127.0.0.1 whose
// certificate curl is told to trust with CURL_CA_BUNDLE (curl's own
// setting; the script itself uses the system's trust). A script served
// whole runs once, piped into the shell line, which takes arguments; a 404,
// an empty body, a refused connection and a redirect to http run nothing
// and exit 93.
// The installer's script, as internal/kinds hands it to ops.
func init() { ops.Register(scripts) }

func TestInstallerScript(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl on this machine: the installer fetches with curl (or GNU wget)")
	}
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	mux := http.NewServeMux()
	mux.HandleFunc("/install.sh", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("echo \"ran with $# args: $*\" >> " + marker + "\n"))
	})
	mux.HandleFunc("/empty.sh", func(w http.ResponseWriter, r *http.Request) {})
	// A redirect to http leads to a server that would serve the script:
	// that it never runs shows the redirect was refused.
	plain := httptest.NewServer(mux)
	defer plain.Close()
	mux.HandleFunc("/to-http", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plain.URL+"/install.sh", http.StatusFound)
	})
	mux.HandleFunc("/to-https", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/install.sh", http.StatusFound)
	})
	srv := httptest.NewTLSServer(mux)
	defer srv.Close()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	closed := closedPort(t)
	script, ok := ops.Script(OpRun)
	if !ok {
		t.Fatal("no installer script")
	}
	cases := []struct {
		name, url, shell string
		exit             int
		ran              string // what the marker holds after
		stderr           string
	}{
		{"served whole", srv.URL + "/install.sh", "sh", 0, "ran with 0 args: \n", ""},
		{"shell line with arguments", srv.URL + "/install.sh", "sh -s -- --yes 'two words'", 0, "ran with 2 args: --yes two words\n", ""},
		{"redirect to https", srv.URL + "/to-https", "sh", 0, "ran with 0 args: \n", ""},
		{"404", srv.URL + "/missing.sh", "sh", 93, "", "fetching " + srv.URL + "/missing.sh failed (exit 22); nothing was run"},
		{"empty", srv.URL + "/empty.sh", "sh", 93, "", "served an empty script; nothing was run"},
		{"refused", "https://127.0.0.1:" + closed + "/install.sh", "sh", 93, "", "failed (exit 7); nothing was run"},
		{"redirect to http", srv.URL + "/to-http", "sh", 93, "", "failed (exit 1); nothing was run"},
		{"untrusted", srv.URL + "/install.sh", "sh", 93, "", "failed (exit 60); nothing was run"},
		{"http URL", "http://127.0.0.1:" + closed + "/install.sh", "sh", 2, "", "is not an https:// URL; nothing was run"},
		{"shell fails", srv.URL + "/install.sh", "false", 1, "", ""},
	}
	for _, sh := range []string{"dash", "bash", "busybox"} {
		if _, err := exec.LookPath(sh); err != nil {
			t.Logf("%s: not on this machine, not tried", sh)
			continue
		}
		for _, c := range cases {
			os.Remove(marker)
			tmp := t.TempDir()
			argv := []string{sh, "-s", "--", c.url, c.shell}
			if sh == "busybox" {
				argv = append([]string{"busybox"}, append([]string{"sh"}, argv[1:]...)...)
			}
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Stdin = strings.NewReader(script.Text)
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "TMPDIR=" + tmp, "HOME=" + dir}
			if c.name != "untrusted" {
				cmd.Env = append(cmd.Env, "CURL_CA_BUNDLE="+ca)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err := cmd.Run()
			exit := 0
			if ee, ok := err.(*exec.ExitError); ok {
				exit = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(marker)
			if exit != c.exit || string(got) != c.ran || !strings.Contains(stderr.String(), c.stderr) {
				t.Errorf("%s, %s: exit %d, ran %q, stderr %q; want %d, %q, %q", sh, c.name, exit, got, stderr.String(), c.exit, c.ran, c.stderr)
			}
			// The private temporary file is gone, whatever happened.
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("%s, %s: %d file(s) left in TMPDIR", sh, c.name, len(left))
			}
		}
	}
}

// closedPort is a port on 127.0.0.1 nothing listens on: bound without
// listening until the test ends, so no other process (another package's
// tests) can listen there meanwhile, as it could on a port that was merely
// free a moment before.
func closedPort(t *testing.T) string {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return strconv.Itoa(sa.(*syscall.SockaddrInet4).Port)
}

// TestInstallerScriptWget runs the installer's script with no curl on PATH:
// GNU wget fetches (told to trust the test server through a wgetrc of its
// own, WGETRC) and follows no redirect, since it can't hold one to https; a
// BusyBox wget, which can't refuse one either, is refused with nothing run.
func TestInstallerScriptWget(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	mux := http.NewServeMux()
	mux.HandleFunc("/install.sh", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("echo ran >> " + marker + "\n"))
	})
	mux.HandleFunc("/empty.sh", func(w http.ResponseWriter, r *http.Request) {})
	// A redirect to http leads to a server that would serve the script:
	// that it never runs shows the redirect was refused.
	plain := httptest.NewServer(mux)
	defer plain.Close()
	mux.HandleFunc("/to-http", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plain.URL+"/install.sh", http.StatusFound)
	})
	mux.HandleFunc("/to-https", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/install.sh", http.StatusFound)
	})
	srv := httptest.NewTLSServer(mux)
	defer srv.Close()
	ca := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644); err != nil {
		t.Fatal(err)
	}
	wgetrc := filepath.Join(dir, "wgetrc")
	if err := os.WriteFile(wgetrc, []byte("ca_certificate = "+ca+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script, _ := ops.Script(OpRun)
	// bin holds what the script needs besides curl, with wget as named.
	bin := func(wget []string) string {
		b := t.TempDir()
		for _, tool := range []string{"sh", "mktemp", "rm", "grep"} {
			p, err := exec.LookPath(tool)
			if err != nil {
				t.Skipf("no %s on this machine", tool)
			}
			if err := os.Symlink(p, filepath.Join(b, tool)); err != nil {
				t.Fatal(err)
			}
		}
		w := "#!/bin/sh\nexec"
		for _, a := range wget {
			w += " " + a
		}
		if err := os.WriteFile(filepath.Join(b, "wget"), []byte(w+" \"$@\"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		return b
	}
	type result struct {
		exit   int
		ran    string
		stderr string
	}
	runIt := func(path, url string) result {
		os.Remove(marker)
		cmd := exec.Command("/bin/sh", "-s", "--", url, "sh")
		cmd.Stdin = strings.NewReader(script.Text)
		cmd.Env = []string{"PATH=" + path, "TMPDIR=" + t.TempDir(), "HOME=" + dir, "WGETRC=" + wgetrc}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		exit := 0
		if ee, ok := err.(*exec.ExitError); ok {
			exit = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(marker)
		return result{exit, string(got), stderr.String()}
	}
	if gnu, err := exec.LookPath("wget"); err != nil {
		t.Log("wget: not on this machine, not tried")
	} else if out, _ := exec.Command(gnu, "--version").Output(); !strings.Contains(string(out), "GNU Wget") {
		t.Log("wget: not GNU Wget here, not tried")
	} else {
		path := bin([]string{gnu})
		for _, c := range []struct {
			url    string
			want   result
			stderr string
		}{
			{srv.URL + "/install.sh", result{exit: 0, ran: "ran\n"}, ""},
			{srv.URL + "/missing.sh", result{exit: 93}, "failed (exit 8); nothing was run"},
			{srv.URL + "/empty.sh", result{exit: 93}, "served an empty script; nothing was run"},
			{srv.URL + "/to-http", result{exit: 93}, "a URL that redirects needs curl"},
			{srv.URL + "/to-https", result{exit: 93}, "a URL that redirects needs curl"},
		} {
			got := runIt(path, c.url)
			if got.exit != c.want.exit || got.ran != c.want.ran || !strings.Contains(got.stderr, c.stderr) {
				t.Errorf("GNU wget, %s: %+v; want exit %d, ran %q, stderr with %q", c.url, got, c.want.exit, c.want.ran, c.stderr)
			}
		}
	}
	if bb, err := exec.LookPath("busybox"); err != nil {
		t.Log("busybox: not on this machine, not tried")
	} else {
		got := runIt(bin([]string{bb, "wget"}), srv.URL+"/install.sh")
		if got.exit != 93 || got.ran != "" || !strings.Contains(got.stderr, "no curl, nor a GNU wget") {
			t.Errorf("BusyBox wget: %+v; want a refusal, exit 93, nothing run", got)
		}
	}
}
