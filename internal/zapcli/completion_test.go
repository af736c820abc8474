package zapcli

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/zap-go/zap/internal/refdoc"
)

// completionScript is what zap completion SHELL prints, in a file.
func completionScript(t *testing.T, shell string) string {
	t.Helper()
	var out, errb bytes.Buffer
	a := &app{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	if code := a.main(context.Background(), []string{"completion", shell}); code != 0 {
		t.Fatalf("zap completion %s exited %d: %s", shell, code, errb.String())
	}
	p := filepath.Join(t.TempDir(), "zap."+shell)
	if err := os.WriteFile(p, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// needShell skips, saying why, where the shell isn't installed.
func needShell(t *testing.T, shell string) string {
	t.Helper()
	p, err := exec.LookPath(shell)
	if err != nil {
		t.Skipf("%s is not installed here, so its completion script can't be run: %v", shell, err)
	}
	return p
}

// bashOffers loads the bash script into a real bash and returns the words
// _zap offers for the command line words, the last being completed.
func bashOffers(t *testing.T, bash, script string, words ...string) []string {
	t.Helper()
	var quoted []string
	for _, w := range words {
		quoted = append(quoted, shQuote(w))
	}
	prog := `source "$1" && COMP_WORDS=(` + strings.Join(quoted, " ") + `) && COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) && _zap; printf '%s\n' "${COMPREPLY[@]}"`
	out, err := exec.Command(bash, "--norc", "--noprofile", "-c", prog, "bash", script).CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v\n%s", err, out)
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l != "" {
			got = append(got, l)
		}
	}
	return got
}

// TestCompletionBash loads zap completion bash into a real bash: it
// registers _zap for zap (with file names as the fallback), completes a
// command, a subcommand, a flag and zap completion's shell (once), and
// offers nothing (file names) after a flag that takes a path.
func TestCompletionBash(t *testing.T) {
	bash := needShell(t, "bash")
	script := completionScript(t, "bash")
	out, err := exec.Command(bash, "--norc", "--noprofile", "-c", `source "$1" && complete -p zap`, "bash", script).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "complete -o default -F _zap zap" {
		t.Fatalf("complete -p zap: %v: %q", err, out)
	}
	for _, c := range []struct {
		words []string
		want  []string
	}{
		{[]string{"zap", "ap"}, []string{"apply"}},
		{[]string{"zap", "co"}, []string{"completion", "config"}},
		{[]string{"zap", "config", ""}, []string{"validate"}},
		{[]string{"zap", "apply", "--we"}, []string{"--wetrun"}},
		{[]string{"zap", "plan", "--env-file", "x", "--d"}, []string{"--diff"}},
		{[]string{"zap", "apply", "--evaluator", ""}, nil},
		{[]string{"zap", "plan", ""}, nil},
		{[]string{"zap", "completion", ""}, []string{"bash", "fish", "zsh"}},
		{[]string{"zap", "completion", "f"}, []string{"fish"}},
		{[]string{"zap", "completion", "bash", ""}, nil},
		{[]string{"zap", "completion", "--"}, []string{"--help", "--no-color"}},
	} {
		got := bashOffers(t, bash, script, c.words...)
		sort.Strings(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("%q<TAB>: offered %q, want %q", strings.Join(c.words, " "), got, c.want)
		}
	}
}

// TestCompletionFollowsTheTree: for every command of zap's tree, the bash
// script offers exactly its flags (and --help) after -, and exactly its
// subcommands, or the words its usage's a|b|c names (or completionArgs
// gives), after its name, so a
// flag or command added to zap is completed with no edit to the scripts.
func TestCompletionFollowsTheTree(t *testing.T) {
	bash := needShell(t, "bash")
	script := completionScript(t, "bash")
	scratch := &app{}
	var check func(c *ffcli.Command, words []string)
	check = func(c *ffcli.Command, words []string) {
		words = append(slices.Clone(words), c.Name)
		want := []string{"--help"}
		c.FlagSet.VisitAll(func(f *flag.Flag) { want = append(want, flagName(f.Name)) })
		sort.Strings(want)
		got := bashOffers(t, bash, script, append(words, "-")...)
		sort.Strings(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s -<TAB>: offered %q, want %q", strings.Join(words, " "), got, want)
		}
		subs := argWords(c.ShortUsage)
		if words := completionArgs[strings.Join(words[1:], " ")]; words != nil {
			subs = words()
		}
		for _, s := range c.Subcommands {
			subs = append(subs, s.Name)
			check(s, words)
		}
		sort.Strings(subs)
		got = bashOffers(t, bash, script, append(words, "")...)
		sort.Strings(got)
		if !slices.Equal(got, subs) {
			t.Errorf("%s <TAB>: offered %q, want %q", strings.Join(words, " "), got, subs)
		}
	}
	cmds := scratch.commands(&flagSets{a: scratch})
	var top []string
	for _, c := range cmds {
		top = append(top, c.Name)
		check(c, []string{"zap"})
	}
	got := bashOffers(t, bash, script, "zap", "")
	sort.Strings(top)
	sort.Strings(got)
	if !slices.Equal(got, top) {
		t.Errorf("zap <TAB>: offered %q, want %q", got, top)
	}
}

// TestCompletionZsh checks the zsh script's syntax with zsh -n, then runs
// its _zap in a real zsh with the completion system's _describe, _files
// and compdef standing in, to see what it would offer.
func TestCompletionZsh(t *testing.T) {
	zsh := needShell(t, "zsh")
	script := completionScript(t, "zsh")
	if out, err := exec.Command(zsh, "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("zsh -n: %v\n%s", err, out)
	}
	offers := func(words ...string) string {
		t.Helper()
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, shQuote(w))
		}
		prog := `compdef() { :; }
_describe() { local -a items; items=("${(@P)4}"); print -rl -- "$3" "${items[@]%%:*}"; }
_files() { print -r -- files; }
source "$1"
words=(` + strings.Join(quoted, " ") + `)
CURRENT=${#words}
PREFIX=${words[CURRENT]}
_zap`
		out, err := exec.Command(zsh, "-f", "-c", prog, "zsh", script).CombinedOutput()
		if err != nil {
			t.Fatalf("zsh: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	for _, c := range []struct {
		words []string
		want  string
	}{
		{[]string{"zap", "ap"}, "command\ninit\nlock\nupdate\nplan\napply\ndeploy\ndetect\nstatus\ngraph\nconfig\ntypes\ndoc\ncompletion\nversion"},
		{[]string{"zap", "config", ""}, "command\nvalidate"},
		{[]string{"zap", "doc", ""}, "argument\n" + strings.Join(refdoc.Names(), "\n")},
		{[]string{"zap", "graph", "--"}, "flag\n--env-file\n--evaluator\n--help\n--no-color\n--svg"},
		{[]string{"zap", "plan", "--evaluator", ""}, "files"},
		{[]string{"zap", "plan", ""}, "files"},
		{[]string{"zap", "completion", ""}, "argument\nbash\nzsh\nfish"},
		{[]string{"zap", "completion", "zsh", ""}, "files"},
	} {
		if got := offers(c.words...); got != c.want {
			t.Errorf("%q<TAB>: zsh offered\n%s\nwant\n%s", strings.Join(c.words, " "), got, c.want)
		}
	}
}

// TestCompletionFish checks the fish script's syntax with fish -n, then
// asks a real fish what it completes with the script loaded.
func TestCompletionFish(t *testing.T) {
	fish := needShell(t, "fish")
	script := completionScript(t, "fish")
	if out, err := exec.Command(fish, "--no-execute", script).CombinedOutput(); err != nil {
		t.Fatalf("fish -n: %v\n%s", err, out)
	}
	for _, c := range []struct {
		line string
		want string
	}{
		{"zap ap", "apply\tpreview the changes; with --wetrun, make them"},
		{"zap apply --we", "--wetrun\tchange the target: execute the plan you reviewed"},
		{"zap config v", "validate\tevaluate the config and run its gates, nothing else"},
		{"zap graph --s", "--svg\tlay the graph out as SVG with Graphviz's dot"},
		{"zap completion f", "fish"},
		{"zap completion fish ", ""},
	} {
		out, err := exec.Command(fish, "--no-config", "-c", `source $argv[1]; complete -C"$argv[2]"`, script, c.line).CombinedOutput()
		if err != nil {
			t.Fatalf("fish: %v\n%s", err, out)
		}
		if got := strings.TrimSpace(string(out)); got != c.want {
			t.Errorf("%q<TAB>: fish offered %q, want %q", c.line, got, c.want)
		}
	}
}

// TestCompletionRefusesOtherShells: no shell, or one zap has no script
// for, is an input error.
func TestCompletionRefusesOtherShells(t *testing.T) {
	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}, {"completion", "bash", "zsh"}} {
		var out, errb bytes.Buffer
		a := &app{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
		if code := a.main(context.Background(), args); code != 2 || out.Len() != 0 {
			t.Errorf("zap %s: exit %d, stdout %q; want 2 and nothing", strings.Join(args, " "), code, out.String())
		}
	}
}
