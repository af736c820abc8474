package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/zap-go/zap/internal/envfile"
	"github.com/zap-go/zap/internal/scripttest"
	"github.com/zap-go/zap/pkg/canon"
	"github.com/zap-go/zap/pkg/cliout"
	"github.com/zap-go/zap/pkg/events"
)

func TestMain(m *testing.M) { scripttest.Main(m) }

// TestScripts runs the scripts in testdata/script, the end-to-end walks
// among them. Besides scripttest's commands they can use:
//
//	planhash VAR
//	    sets $VAR to the plan_hash in the last command's stdout (a text
//	    report's plan_hash: line, or a plan document's "plan_hash").
//	planhash -eq VAR
//	    asserts the last stdout's plan_hash equals $VAR.
//	events [-exit N]
//	    asserts every line of the last stdout decodes as an event
//	    (events.Read), the first is run_started and the last is done,
//	    with exit N (default 0).
//	jsondoc plan|detect|status|deploy [-exit N] [-error] [-hash VAR]
//	    asserts the last stdout is one --json document of that command
//	    (deploy: a dry zap deploy's), read strictly (pkg/cliout: unknown
//	    fields refused, the embedded plan, observations or deploy plan read
//	    by their own readers), in canonical form and ended by a newline,
//	    with exit N (default 0); with -error, a failed run's document (an
//	    error, no result), else a result; -hash sets $VAR to a plan or
//	    deploy document's plan_hash.
//	ttyrun [-code N] [-typeahead TEXT] [-as ACCOUNT | -runas] [-sudo PASSWORD] [-answer hash8|HASH8|TEXT] [-stdout] CMD [ARGS...]
//	    runs CMD with its stdin and stderr on a new terminal: TEXT typed
//	    ahead at once, the answer typed when the question appears (hash8:
//	    the first eight characters of the plan_hash the terminal showed;
//	    HASH8: the same in upper case), PASSWORD typed when sudo's
//	    password prompt appears; as ACCOUNT ($WORK handed to it) when
//	    given, and with -runas as runas runs it (the unprivileged account
//	    when the tests run as root, else the test's own user). stdout is
//	    the command's; stderr is what the terminal showed.
//	    With -stdout, the command's stdout is the terminal too.
//	screen
//	    writes to stdout what a terminal shows once the last command's
//	    stderr (a ttyrun's terminal) is played on it: a carriage return
//	    goes back to the line's start, ESC[K erases to its end, ESC[NA
//	    goes N lines up, ESC[J erases to the screen's end; a colour
//	    sequence ESC[Nm is written as <N>, $WORK as $WORK and a plan_hash
//	    as <plan_hash>.
//	$EXAMPLES and $ZAP_BIN
//	    the checkout's examples/ directory, and the directory holding the
//	    binaries the scripts run.
//	canary ENVFILE PATH...
//	    fails when any file at or under the PATHs holds a value of ENVFILE
//	    (read by internal/envfile) in any form masking covers: as is,
//	    trimmed, URL-encoded, JSON-escaped, shell-single-quoted, each long
//	    line of a multi-line value (\n decoded), a URL's password and an
//	    authorization token. With !, fails when none does.
//	canary -pieces K ENVFILE PATH...
//	    the same, and fails too on any K bytes in a row of a value: what is
//	    left of a secret an output's cut fell inside.
func TestScripts(t *testing.T) {
	p := scripttest.Params("testdata/script")
	p.Cmds["planhash"] = cmdPlanhash
	p.Cmds["events"] = cmdEvents
	p.Cmds["jsondoc"] = cmdJSONDoc
	p.Cmds["ttyrun"] = cmdTtyrun
	p.Cmds["screen"] = cmdScreen
	p.Cmds["canary"] = cmdCanary
	p.Cmds["combinedhash"] = cmdCombinedhash
	p.Cmds["hostsjson"] = cmdHostsjson
	p.Setup = withExamples(t, p.Setup)
	testscript.Run(t, p)
}

// withExamples is setup, and then $EXAMPLES set to the checkout's
// examples/ and $ZAP_BIN to the directory of the binaries the scripts run,
// so a script can evaluate the examples and run make demo's script.
func withExamples(t *testing.T, setup func(*testscript.Env) error) func(*testscript.Env) error {
	examples, err := filepath.Abs(filepath.Join("..", "..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	zap, err := exec.LookPath("zap")
	if err != nil {
		t.Fatal(err)
	}
	return func(env *testscript.Env) error {
		if err := setup(env); err != nil {
			return err
		}
		env.Setenv("EXAMPLES", examples)
		env.Setenv("ZAP_BIN", filepath.Dir(zap))
		return nil
	}
}

var hashPattern = regexp.MustCompile(`plan_hash"?:\s*"?([0-9a-f]{64})`)

func cmdPlanhash(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("planhash takes no !")
	}
	eq := false
	if len(args) == 2 && args[0] == "-eq" {
		eq, args = true, args[1:]
	}
	if len(args) != 1 {
		ts.Fatalf("usage: planhash [-eq] VAR")
	}
	m := hashPattern.FindAllStringSubmatch(ts.ReadFile("stdout"), -1)
	if len(m) != 1 {
		ts.Fatalf("planhash: want one plan_hash in stdout, found %d", len(m))
	}
	got := m[0][1]
	if !eq {
		ts.Setenv(args[0], got)
		return
	}
	if want := ts.Getenv(args[0]); got != want {
		ts.Fatalf("plan_hash %s, want $%s = %s", got, args[0], want)
	}
}

func cmdEvents(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("events takes no !")
	}
	wantExit := 0
	if len(args) == 2 && args[0] == "-exit" {
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		wantExit, args = n, nil
	}
	if len(args) != 0 {
		ts.Fatalf("usage: events [-exit N]")
	}
	out := ts.ReadFile("stdout")
	if !strings.HasSuffix(out, "\n") {
		ts.Fatalf("events: stdout doesn't end in a newline: %q", out)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var all []*events.Event
	for i, l := range lines {
		e, err := events.Read([]byte(l))
		if err != nil {
			ts.Fatalf("events: line %d doesn't decode: %v\n%s", i+1, err, l)
		}
		all = append(all, e)
	}
	if all[0].Event != events.RunStarted {
		ts.Fatalf("events: the first event is %s, not run_started", all[0].Event)
	}
	last := all[len(all)-1]
	if last.Event != events.Done || last.Exit == nil || *last.Exit != wantExit {
		ts.Fatalf("events: the last event is %s, not done with exit %d", lines[len(lines)-1], wantExit)
	}
}

func cmdJSONDoc(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: jsondoc plan|detect|status|deploy [-exit N] [-error] [-hash VAR]")
	}
	kind, args := args[0], args[1:]
	wantExit, wantError, hashVar := 0, false, ""
	for len(args) > 0 {
		switch {
		case args[0] == "-exit" && len(args) > 1:
			n, err := strconv.Atoi(args[1])
			ts.Check(err)
			wantExit, args = n, args[2:]
		case args[0] == "-error":
			wantError, args = true, args[1:]
		case args[0] == "-hash" && len(args) > 1:
			hashVar, args = args[1], args[2:]
		default:
			ts.Fatalf("jsondoc: unknown argument %s", args[0])
		}
	}
	out := ts.ReadFile("stdout")
	line, ok := strings.CutSuffix(out, "\n")
	if !ok || strings.Contains(line, "\n") {
		ts.Fatalf("jsondoc: stdout is not one line ended by a newline: %q", out)
	}
	if c, err := canon.Transform([]byte(line)); err != nil || string(c) != line {
		ts.Fatalf("jsondoc: not in canonical form (%v):\n%s", err, line)
	}
	var exit int
	var msg string
	var result bool
	switch kind {
	case "plan":
		d, p, err := cliout.ReadPlan([]byte(line))
		if err != nil {
			ts.Fatalf("jsondoc: %v\n%s", err, line)
		}
		exit, msg, result = d.Exit, d.Error, p != nil
		if hashVar != "" {
			if p == nil {
				ts.Fatalf("jsondoc: -hash on a document with no plan")
			}
			ts.Setenv(hashVar, d.PlanHash)
		}
	case "detect":
		d, o, err := cliout.ReadDetect([]byte(line))
		if err != nil {
			ts.Fatalf("jsondoc: %v\n%s", err, line)
		}
		exit, msg, result = d.Exit, d.Error, o != nil
	case "status":
		d, err := cliout.ReadStatus([]byte(line))
		if err != nil {
			ts.Fatalf("jsondoc: %v\n%s", err, line)
		}
		exit, msg, result = d.Exit, d.Error, d.Host != ""
	case "deploy":
		d, p, err := cliout.ReadDeploy([]byte(line))
		if err != nil {
			ts.Fatalf("jsondoc: %v\n%s", err, line)
		}
		exit, msg, result = d.Exit, d.Error, p != nil
		if hashVar != "" {
			if d.PlanHash == "" {
				ts.Fatalf("jsondoc: -hash on a document with no plan_hash")
			}
			ts.Setenv(hashVar, d.PlanHash)
		}
	default:
		ts.Fatalf("jsondoc: unknown kind %s", kind)
	}
	if exit != wantExit {
		ts.Fatalf("jsondoc: exit %d, want %d", exit, wantExit)
	}
	if wantError && (result || msg == "") || !wantError && !result {
		ts.Fatalf("jsondoc: error %q, result %v; want an error: %v", msg, result, wantError)
	}
}

func cmdTtyrun(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("use -code N rather than !")
	}
	code, typeahead, answer, as, password := 0, "", "", "", ""
	allOut, unprivileged := false, false
	for len(args) > 1 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-stdout":
			allOut, args = true, args[1:]
			continue
		case "-runas":
			unprivileged, args = true, args[1:]
			continue
		}
		switch args[0] {
		case "-code":
			n, err := strconv.Atoi(args[1])
			ts.Check(err)
			code = n
		case "-typeahead":
			typeahead = args[1]
		case "-answer":
			answer = args[1]
		case "-as":
			as = args[1]
		case "-sudo":
			password = args[1]
		default:
			ts.Fatalf("ttyrun: unknown flag %s", args[0])
		}
		args = args[2:]
	}
	if len(args) == 0 {
		ts.Fatalf("usage: ttyrun [-code N] [-typeahead TEXT] [-as ACCOUNT] [-sudo PASSWORD] [-answer hash8|combined8|TEXT] [-stdout] CMD [ARGS...]")
	}
	path, err := exec.LookPath(args[0])
	ts.Check(err)

	ctrl, tty, err := openPTY()
	ts.Check(err)
	defer ctrl.Close()

	cmd := exec.Command(path, args[1:]...)
	cmd.Args[0] = args[0]
	cmd.Env = scriptEnv(ts)
	cmd.Dir = ts.MkAbs(".")
	var stdout bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, &stdout, tty
	if allOut {
		cmd.Stdout = tty
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if as != "" {
		cred, err := scripttest.HandOverTo(ts, as)
		ts.Check(err)
		cmd.SysProcAttr.Credential = cred
	}
	if unprivileged {
		cmd.SysProcAttr.Credential = scripttest.Unprivileged(ts)
	}
	ts.Check(cmd.Start())
	tty.Close()
	if typeahead != "" {
		_, err := ctrl.Write([]byte(typeahead + "\n"))
		ts.Check(err)
	}

	// Read what the terminal shows; answer when the question appears.
	var mu sync.Mutex
	var screen bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		answered, typed := answer == "", password == ""
		for {
			n, err := ctrl.Read(buf)
			mu.Lock()
			screen.Write(buf[:n])
			shown := screen.String()
			mu.Unlock()
			if !typed && strings.Contains(shown, "[sudo] password for ") {
				typed = true
				ctrl.Write([]byte(password + "\n"))
			}
			if !answered && (strings.Contains(shown, "characters of its plan_hash: ") || strings.Contains(shown, "characters of their combined plan_hash: ")) {
				answered = true
				text := answer
				if answer == "combined8" {
					// A wetrun over several hosts asks for the combined hash.
					text = "no-combined-hash-shown"
					if m := combinedOnScreen.FindStringSubmatch(shown); m != nil {
						text = m[1][:8]
					}
				}
				if answer == "hash8" || answer == "HASH8" {
					m := hashPattern.FindStringSubmatch(shown)
					switch {
					case m == nil:
						text = "no-hash-shown"
					case answer == "HASH8":
						text = strings.ToUpper(m[1][:8])
					default:
						text = m[1][:8]
					}
				}
				ctrl.Write([]byte(text + "\n"))
			}
			if err != nil {
				return
			}
		}
	}()
	waitErr := make(chan error, 1)
	go func() { waitErr <- cmd.Wait() }()
	var werr error
	select {
	case werr = <-waitErr:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		werr = <-waitErr
	}
	// The terminal reads EIO once the last holder of the tty is gone.
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		ctrl.Close()
		<-done
	}
	mu.Lock()
	shown := strings.ReplaceAll(screen.String(), "\r\n", "\n")
	mu.Unlock()
	ts.Stdout().Write(stdout.Bytes())
	io.WriteString(ts.Stderr(), shown)
	got := 0
	if werr != nil {
		var ee *exec.ExitError
		if !errors.As(werr, &ee) {
			ts.Fatalf("ttyrun: %v", werr)
		}
		got = ee.ExitCode()
	}
	if got != code {
		ts.Logf("terminal:\n%s\nstdout:\n%s", shown, stdout.String())
		ts.Fatalf("%s exited %d, want %d", args[0], got, code)
	}
}

var (
	sgrPattern    = regexp.MustCompile(`^\x1b\[([0-9;]*)m`)
	hashPattern64 = regexp.MustCompile(`[0-9a-f]{64}`)
)

func cmdScreen(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: screen")
	}
	shown := strings.ReplaceAll(playScreen(ts.ReadFile("stderr")), ts.Getenv("WORK"), "$WORK")
	shown = hashPattern64.ReplaceAllString(shown, "<plan_hash>")
	io.WriteString(ts.Stdout(), shown)
}

// cursorUp is ESC[NA, the cursor N lines up.
var cursorUp = regexp.MustCompile(`^\x1b\[([0-9]*)A`)

// playScreen is what a terminal's output leaves on the screen: a newline
// starts the next line, a carriage return goes back to the line's start,
// ESC[K erases to its end, ESC[NA moves the cursor N lines up (the column
// kept), ESC[J erases to the end of the screen. A colour sequence takes
// one cell, so a line drawn over it is erased with it.
func playScreen(text string) string {
	rows := [][]string{nil}
	row, col := 0, 0
	put := func(c string) {
		cells := rows[row]
		for len(cells) < col {
			cells = append(cells, " ")
		}
		if col < len(cells) {
			cells[col] = c
		} else {
			cells = append(cells, c)
		}
		rows[row] = cells
		col++
	}
	for len(text) > 0 {
		switch {
		case text[0] == '\n':
			row, col, text = row+1, 0, text[1:]
			if row == len(rows) {
				rows = append(rows, nil)
			}
		case text[0] == '\r':
			col, text = 0, text[1:]
		case strings.HasPrefix(text, "\x1b[K"):
			rows[row], text = rows[row][:min(col, len(rows[row]))], text[3:]
		case strings.HasPrefix(text, "\x1b[J"):
			rows[row], text = rows[row][:min(col, len(rows[row]))], text[3:]
			rows = rows[:row+1]
		case cursorUp.MatchString(text):
			m := cursorUp.FindStringSubmatch(text)
			n, _ := strconv.Atoi(m[1])
			row, text = max(0, row-max(n, 1)), text[len(m[0]):]
		case sgrPattern.MatchString(text):
			m := sgrPattern.FindStringSubmatch(text)
			put("<" + m[1] + ">")
			text = text[len(m[0]):]
		default:
			r, n := utf8.DecodeRuneInString(text)
			put(string(r))
			text = text[n:]
		}
	}
	lines := make([]string, len(rows))
	for i, r := range rows {
		lines[i] = strings.Join(r, "")
	}
	return strings.Join(lines, "\n")
}

// openPTY opens a new pseudo-terminal: its controlling side and the
// terminal a command gets.
func openPTY() (ctrl, tty *os.File, err error) {
	ctrl, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ctrl.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		ctrl.Close()
		return nil, nil, fmt.Errorf("TIOCGPTN: %v", e)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ctrl.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		ctrl.Close()
		return nil, nil, fmt.Errorf("TIOCSPTLCK: %v", e)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		ctrl.Close()
		return nil, nil, err
	}
	return ctrl, tty, nil
}

// scriptEnv is the environment the script has set, as exec would pass it.
func scriptEnv(ts *testscript.TestScript) []string {
	ts.Check(ts.Exec("env", "-0"))
	var env []string
	for _, kv := range strings.Split(ts.ReadFile("stdout"), "\x00") {
		if kv != "" {
			env = append(env, kv)
		}
	}
	return env
}

func cmdCanary(ts *testscript.TestScript, neg bool, args []string) {
	pieces := 0
	if len(args) > 1 && args[0] == "-pieces" {
		n, err := strconv.Atoi(args[1])
		if err != nil || n < 1 {
			ts.Fatalf("canary: -pieces takes a count of bytes, not %q", args[1])
		}
		pieces, args = n, args[2:]
	}
	if len(args) < 2 {
		ts.Fatalf("usage: canary [-pieces K] ENVFILE PATH...")
	}
	vars, err := envfile.Parse(args[0], []byte(ts.ReadFile(args[0])))
	ts.Check(err)
	forms := map[string]string{} // form -> variable
	for _, v := range vars {
		for _, f := range canaryForms(v.Value) {
			if len(f) >= 8 {
				forms[f] = v.Name
			}
		}
		for i := 0; pieces > 0 && i+pieces <= len(v.Value); i++ {
			forms[v.Value[i:i+pieces]] = v.Name
		}
	}
	found := 0
	for _, root := range args[1:] {
		err := filepath.WalkDir(ts.MkAbs(root), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for f, name := range forms {
				if bytes.Contains(data, []byte(f)) {
					found++
					if !neg {
						ts.Logf("%s holds %s in the form %q", path, name, f)
					}
				}
			}
			return nil
		})
		ts.Check(err)
	}
	switch {
	case !neg && found > 0:
		ts.Fatalf("canary: %d form(s) of a secret found", found)
	case neg && found == 0:
		ts.Fatalf("canary: no form of any value found")
	}
}

// canaryForms is every form of v a reader could recognize it in.
func canaryForms(v string) []string {
	whole := []string{v, strings.TrimSpace(v)}
	if d := strings.ReplaceAll(v, `\n`, "\n"); d != v {
		whole = append(whole, d)
	}
	var out []string
	for _, w := range whole {
		j, _ := json.Marshal(w)
		out = append(out, w, url.QueryEscape(w), url.PathEscape(w), string(j[1:len(j)-1]),
			"'"+strings.ReplaceAll(w, "'", `'\''`)+"'")
		for _, l := range strings.Split(w, "\n") {
			l = strings.TrimSpace(l)
			if len(l) >= 24 && !strings.HasPrefix(l, "-----") {
				out = append(out, l)
			}
		}
	}
	if u, err := url.Parse(v); err == nil && u.User != nil {
		if p, ok := u.User.Password(); ok {
			out = append(out, p, url.QueryEscape(p))
		}
	}
	if tok, ok := strings.CutPrefix(v, "Bearer "); ok {
		out = append(out, tok)
	}
	return out
}
