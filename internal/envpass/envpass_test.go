package envpass

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/envfile"
)

func TestBig(t *testing.T) {
	v := strings.Repeat("x", Threshold-len("BIG="))
	if Big("BIG", v) {
		t.Errorf("a NAME=VALUE of exactly %d bytes goes on the descriptor", Threshold)
	}
	if !Big("BIG", v+"x") {
		t.Errorf("a NAME=VALUE of %d bytes stays in the environment", Threshold+1)
	}
}

// TestSplit: the environment takes env-file variables in the file's order
// until they would pass Budget together; every later one, and every Big
// one, goes on the descriptor, so 200 values of 20 KiB (4 MB, past any
// whole-environment limit) still leave a child that starts.
func TestSplit(t *testing.T) {
	var vars []envfile.Var
	for i := range 200 {
		vars = append(vars, envfile.Var{Name: fmt.Sprintf("V%03d", i), Value: strings.Repeat("v", 20<<10)})
	}
	vars = append(vars, envfile.Var{Name: "HUGE", Value: strings.Repeat("h", Threshold)}, envfile.Var{Name: "TINY", Value: "t"})
	env, desc := Split(vars)
	total := 0
	for _, kv := range env {
		total += len(kv) + 1
	}
	if total > Budget {
		t.Errorf("the environment takes %d bytes of env-file variables, more than Budget (%d)", total, Budget)
	}
	if len(env)+len(desc) != len(vars) {
		t.Fatalf("%d in the environment and %d on the descriptor, of %d variables", len(env), len(desc), len(vars))
	}
	if len(env) != 4 || env[0] != "V000="+vars[0].Value || env[2] != "V002="+vars[2].Value {
		t.Errorf("the environment took %d variables, want the first 3 in the file's order and TINY", len(env))
	}
	if _, ok := desc["HUGE"]; !ok {
		t.Errorf("a variable over Threshold went into the environment")
	}
	if env[len(env)-1] != "TINY=t" {
		t.Errorf("a small variable after the budget was spent didn't fit the environment's room: last is %.10q", env[len(env)-1])
	}
	cmd := exec.Command("/bin/sh", "-c", "exit 0")
	cmd.Env = env
	if err := cmd.Run(); err != nil {
		t.Errorf("a child with the environment's share doesn't start: %v", err)
	}
}

func TestEncodeDecode(t *testing.T) {
	vars := map[string]string{"B": "two=2", "A": "", "C_3": strings.Repeat("é", 100<<10)}
	data, err := Encode(vars)
	if err != nil {
		t.Fatal(err)
	}
	want := "zap.env/1\x00A=\x00B=two=2\x00C_3=" + vars["C_3"] + "\x00"
	if string(data) != want {
		t.Fatalf("Encode = %.40q…, want %.40q…", data, want)
	}
	got, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(vars) {
		t.Errorf("Decode = %v, want %v", got, vars)
	}
}

func TestEncodeRefuses(t *testing.T) {
	for _, vars := range []map[string]string{
		{"1A": "x"}, {"A-B": "x"}, {"": "x"}, {"A=B": "x"}, {"A": "x\x00y"},
		{"A": strings.Repeat("x", MaxSize)},
	} {
		if _, err := Encode(vars); err == nil {
			t.Errorf("Encode(%.30q) took it", fmt.Sprint(vars))
		}
	}
	many := map[string]string{}
	for i := range MaxVars + 1 {
		many["V"+strconv.Itoa(i)] = ""
	}
	if _, err := Encode(many); err == nil || !strings.Contains(err.Error(), strconv.Itoa(MaxVars)) {
		t.Errorf("Encode of %d variables: %v, want an error naming %d", MaxVars+1, err, MaxVars)
	}
}

func TestDecodeRefuses(t *testing.T) {
	for _, data := range []string{
		"",
		"zap.env/2\x00",
		"zap.env/1",
		"zap.env/1\x00A=x",
		"zap.env/1\x00A\x00",
		"zap.env/1\x00=x\x00",
		"zap.env/1\x009=x\x00",
		"zap.env/1\x00B=x\x00A=y\x00",
		"zap.env/1\x00A=x\x00A=y\x00",
	} {
		if v, err := Decode([]byte(data)); err == nil {
			t.Errorf("Decode(%q) = %v, want an error", data, v)
		}
	}
	var b bytes.Buffer
	b.WriteString("zap.env/1\x00")
	for i := range MaxVars + 1 {
		fmt.Fprintf(&b, "V%05d=\x00", i)
	}
	if _, err := Decode(b.Bytes()); err == nil || !strings.Contains(err.Error(), strconv.Itoa(MaxVars)) {
		t.Errorf("Decode of %d variables: %v, want an error naming %d", MaxVars+1, err, MaxVars)
	}
	big := append([]byte("zap.env/1\x00A="), make([]byte, MaxSize)...)
	if _, err := Decode(big); err == nil || !strings.Contains(err.Error(), strconv.Itoa(MaxSize)) {
		t.Errorf("Decode of %d bytes: %v, want an error naming %d", len(big), err, MaxSize)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte("zap.env/1\x00A=\x00B=two=2\x00"))
	f.Add([]byte("zap.env/1\x00"))
	f.Add([]byte("zap.env/1\x00B=x\x00A=y\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		vars, err := Decode(data)
		if err != nil {
			return
		}
		// What reads is exactly what Encode writes.
		again, err := Encode(vars)
		if err != nil {
			t.Fatalf("Decode took %q, and Encode refuses what it made: %v", data, err)
		}
		if !bytes.Equal(again, data) {
			t.Fatalf("Decode(%q) encodes as %q", data, again)
		}
	})
}

// TestLoad reads a memfd NewFile made, as a stage does, and leaves neither
// the descriptor nor the variable behind.
func TestLoad(t *testing.T) {
	vars := map[string]string{"BIG": strings.Repeat("x", 200<<10), "PATH": "from the descriptor"}
	f, err := NewFile(vars)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write([]byte("more")); err == nil {
		t.Error("the memfd takes a write after it was sealed")
	}
	fd, err := dupFD(f)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(FDVar, strconv.Itoa(fd))
	env, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := os.LookupEnv(FDVar); ok {
		t.Errorf("%s is still set after Load", FDVar)
	}
	if v, _ := env.Lookup("BIG"); v != vars["BIG"] {
		t.Errorf("Lookup(BIG) is %d bytes, want %d", len(v), len(vars["BIG"]))
	}
	if v, _ := env.Lookup("PATH"); v != vars["PATH"] {
		t.Errorf("Lookup(PATH) = %q, want the descriptor's value over the environment's", v)
	}
	if _, ok := env.Lookup("HOME"); !ok {
		t.Error("Lookup(HOME) misses the environment")
	}
	if err := closeFD(fd); err == nil {
		t.Errorf("descriptor %d is still open after Load", fd)
	}
}

func TestLoadRefuses(t *testing.T) {
	for _, v := range []string{"x", "-1", "2", "999999"} {
		t.Setenv(FDVar, v)
		if _, err := Load(); err == nil || !strings.Contains(err.Error(), FDVar) {
			t.Errorf("%s=%s: %v, want an error naming %s", FDVar, v, err, FDVar)
		}
	}
	t.Setenv(FDVar, "unset below")
	os.Unsetenv(FDVar)
	env, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := env.Lookup("HOME"); !ok {
		t.Error("with no descriptor, Lookup misses the environment")
	}
}

// TestAttach starts a child with the descriptor, twice from the same file:
// each reads all of it, whatever the other read.
func TestAttach(t *testing.T) {
	vars := map[string]string{"BIG": strings.Repeat("y", 150<<10)}
	want, _ := Encode(vars)
	f, err := NewFile(vars)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for range 2 {
		cmd := exec.Command("sh", "-c", `cat <&"$`+FDVar+`"`)
		cmd.Env = []string{FDVar + "=stale", "PATH=" + os.Getenv("PATH")}
		release, err := Attach(cmd, f)
		if err != nil {
			t.Fatal(err)
		}
		out, err := cmd.Output()
		release()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out, want) {
			t.Errorf("the child read %d bytes, want %d", len(out), len(want))
		}
		if n := strings.Count(strings.Join(cmd.Env, "\n"), FDVar+"="); n != 1 {
			t.Errorf("the child's environment sets %s %d times", FDVar, n)
		}
		if _, err := f.Seek(0, 0); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAttachKeepsExecFD runs a binary as /proc/self/fd/N where the
// descriptor would land on N: N still runs the binary.
func TestAttachKeepsExecFD(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip(err)
	}
	bin, err := os.Open(sh)
	if err != nil {
		t.Fatal(err)
	}
	defer bin.Close()
	f, err := NewFile(map[string]string{"A": "a"})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := int(bin.Fd())
	cmd := exec.Command(fmt.Sprintf("/proc/self/fd/%d", n), "-c", `cat <&"$`+FDVar+`"`)
	cmd.ExtraFiles = make([]*os.File, n-3)
	for i := range cmd.ExtraFiles {
		cmd.ExtraFiles[i] = os.Stdin
	}
	release, err := Attach(cmd, f)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("run /proc/self/fd/%d with the descriptor attached: %v", n, err)
	}
	if string(out) != "zap.env/1\x00A=a\x00" {
		t.Errorf("the child read %q", out)
	}
}
