package lab_test

import (
	"os"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/zap-go/zap/internal/lab"
	"github.com/zap-go/zap/internal/scripttest"
)

func TestMain(m *testing.M) { testscript.Main(m, scripttest.Commands()) }

// TestScripts runs testdata/script: each lab host boots, takes zap's SSH
// client, answers its init system and installs through the cacher.
func TestScripts(t *testing.T) {
	testscript.Run(t, scripttest.Params("testdata/script"))
}

// TestStartExec boots each kind through the Go API: Exec runs as root in
// the host's own namespaces, and Stop leaves nothing behind.
func TestStartExec(t *testing.T) {
	for _, kind := range lab.Kinds {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			h := lab.Start(t, kind)
			out, err := h.Exec("cat", "/proc/1/comm")
			if err != nil {
				t.Fatal(err)
			}
			want := map[lab.Kind]string{lab.Systemd: "systemd", lab.OpenRC: "openrc-init"}[kind]
			if got := strings.TrimSpace(out); got != want {
				t.Errorf("PID 1 is %q, want %q", got, want)
			}
			if out, err := h.Exec("hostname"); err != nil || strings.TrimSpace(out) != h.Name {
				t.Errorf("hostname = %q (%v), want %q", out, err, h.Name)
			}
			if out, err := h.Exec("id", "-un"); err != nil || strings.TrimSpace(out) != "root" {
				t.Errorf("id -un = %q (%v), want root", out, err)
			}
			if kind == lab.Systemd && h.State != "running" {
				t.Errorf("systemd's state at boot = %q, want running", h.State)
			}
			if _, err := h.Exec("false"); err == nil {
				t.Error("a command exiting 1 gave no error")
			}
			root, netns := h.Root, h.Netns
			if err := h.Stop(); err != nil {
				t.Fatal(err)
			}
			if _, err := h.Exec("true"); err != lab.ErrStopped {
				t.Errorf("Exec after Stop: %v, want ErrStopped", err)
			}
			if _, err := os.Stat(root); !os.IsNotExist(err) {
				t.Errorf("the clone %s is still there (%v)", root, err)
			}
			if _, err := os.Stat("/run/netns/" + netns); !os.IsNotExist(err) {
				t.Errorf("the namespace %s is still there (%v)", netns, err)
			}
		})
	}
}
