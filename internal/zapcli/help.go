package zapcli

import (
	"fmt"
	"slices"
	"strings"
)

// envVar is a variable of zap's own environment that changes what a command
// does. cmds names the commands that read it, by their flag set's name;
// none is every command that evaluates the config.
type envVar struct {
	name, help string
	cmds       []string
}

// remote is the commands that connect to a remote target.
var remote = []string{"zap plan", "zap apply", "zap detect", "zap deploy"}

// environment is every variable zap reads, besides the ones a config
// references (docs/cli.md keeps the same list; TestEnvironmentDocumented
// holds both to the source).
var environment = []envVar{
	{name: "ZAP_HOME", help: "where zap keeps its state: the last run per target, previews, caches (default $HOME/.zap); an absolute path"},
	{name: "HOME", help: "what ~ means in a local target's paths, and where ZAP_HOME defaults to"},
	{name: "ZAP_EVAL", help: "the zap-eval to evaluate the config with when --evaluator isn't given (an absolute path; default: the one beside zap)"},
	{name: "ZAP_EVAL_CACHE", help: "skip: serve an unchanged config's evaluation from the cache under ZAP_HOME; off or unset: evaluate every time"},
	{name: "ZAP_MINISIGN", help: "the minisign binary that verifies a signed build source (an absolute path; default: minisign on PATH)",
		cmds: []string{"zap lock", "zap update", "zap plan", "zap apply", "zap detect", "zap deploy"}},
	{name: "SSH_AUTH_SOCK", help: "the ssh agent whose keys are offered to a remote target (with your ssh config's IdentityFile keys)", cmds: remote},
	{name: "SSL_CERT_FILE, SSL_CERT_DIR", help: "the CA roots remote content and tracked sources are fetched with over https",
		cmds: []string{"zap lock", "zap update", "zap plan", "zap apply", "zap detect"}},
	{name: "PATH", help: "where ssh (which reads your ssh config for a remote target, ssh -G), minisign and dot (zap graph --svg) are found"},
	{name: "SUDO_UID, SUDO_GID", help: "run as root through sudo, the config is evaluated as the user who ran sudo, when that user owns the project"},
	{name: "USER", help: "the account named as the deployer in a release's record, when the system has no name for it", cmds: []string{"zap deploy"}},
	{name: "GOGC", help: "when set, the Go collector setting of zap and its stages; unset, zap tunes it to the input's size"},
	{name: "NO_COLOR", help: "any value but empty: no colour, as --no-color"},
	{name: "PAGER, LESS", help: "the pager zap doc shows a page through on a terminal (run by sh; empty or cat: none; unset: less -R, with LESS=FRX when LESS is unset)", cmds: []string{"zap doc"}},
	{name: "TERM", help: "unset or dumb: a terminal gets no colour, and a wetrun's change under way as plain lines, not one line redrawn"},
}

// examples is each command's Examples section, by its flag set's name: a
// command line and what it does.
var examples = map[string][][2]string{
	"zap": {
		{"zap lock", "pin the zap-eval ./zap.ts is evaluated with (first, once)"},
		{"zap plan", "what would change on the target, and the plan's hash"},
		{"zap apply --wetrun", "make exactly the changes you reviewed"},
	},
	"zap plan": {
		{"zap plan", "plan ./zap.ts against its target"},
		{"zap plan --diff web.ts", "also show each drifted resource's current → desired values"},
		{"zap plan --env-file prod.env", "resolve the config's references from prod.env too"},
	},
	"zap apply": {
		{"zap apply", "preview: what a wetrun would do (recorded as the review)"},
		{"zap apply --wetrun", "execute the previewed plan, nothing else"},
		{"zap apply --wetrun --expect-plan 3f2a…", "execute only the plan with this plan_hash"},
		{"zap apply --wetrun --json < /dev/null", "one JSON event per line, for CI"},
	},
	"zap deploy": {
		{"zap deploy", "preview the release: the plan and its plan_hash"},
		{"zap deploy --wetrun", "ship the previewed release"},
		{"zap deploy --skip-build --wetrun --expect-plan 3f2a…", "ship artifacts built earlier, bound to a hash"},
	},
	"zap detect": {
		{"zap detect", "one line per resource: ok, drift, absent or ?"},
		{"zap detect --bootstrap", "read a new host as its bootstrap_user"},
	},
	"zap status": {
		{"zap status", "what the last run on the target saw, offline"},
		{"zap status --env-file prod.env", "the same, with the references the run resolved"},
	},
	"zap lock": {
		{"zap lock", "pin the zap-eval and every tracked source in zap.lock"},
		{"zap lock --check", "verify zap.lock offline, changing nothing"},
		{"zap lock --evaluator /opt/zap/bin/zap-eval", "pin that zap-eval instead"},
	},
	"zap update": {
		{"zap update", "fetch every tracked source again and advance its pin"},
		{"zap update node_tarball", "only the resource with that id"},
		{"zap update --config web.ts node_tarball", "the same, for another config"},
	},
	"zap config validate": {
		{"zap config validate", "evaluate ./zap.ts and run its gates: no target, no secrets"},
		{"zap config validate web.ts", "the same for web.ts"},
	},
	"zap init": {
		{"zap init", "start a project here: package.json, a commented zap.ts, tsconfig.json, then zap lock"},
		{"zap init web", "the same in ./web (made when missing)"},
	},
	"zap doc": {
		{"zap doc", "the kinds, the target and the deploy block, one line each"},
		{"zap doc file", "a file's fields, an example, what is read, what runs"},
		{"zap doc --json zap.pkg", "the same page as JSON, for tools"},
	},
	"zap types": {
		{"zap types", "write @zap-go/zap where the project's tsconfig.json points, for tsc and editors"},
	},
	"zap graph": {
		{"zap graph > graph.dot", "the resources, their edges and the last run's verdicts, as DOT"},
		{"zap graph --svg web.ts > graph.svg", "the same laid out by Graphviz's dot"},
	},
	"zap completion": {
		{"zap completion bash > ~/.local/share/bash-completion/completions/zap", "bash completion, loaded at the next shell"},
		{"source <(zap completion zsh)", "completion in this zsh"},
	},
	"zap version": {
		{"zap version", "print zap's version (zap --version too)"},
	},
}

// evaluates reports whether the command named name (its flag set's name)
// evaluates the config, and so reads what evaluating reads: every command
// but these, which read no config.
func evaluates(name string) bool {
	return !slices.Contains([]string{"zap", "zap config", "zap version", "zap types", "zap completion"}, name)
}

// helpSections is the Environment pointer and the Examples section of the
// command whose flag set is named name, each "" when it has none. The
// variables themselves are one page, zap help environment
// (environmentHelp), not repeated on every command's.
func helpSections(name string) string {
	var b strings.Builder
	if name == "zap" || evaluates(name) {
		b.WriteString("\nEnvironment: zap help environment lists the variables zap reads.\n")
	}
	if ex := examples[name]; len(ex) > 0 {
		b.WriteString("\nExamples:\n")
		for _, e := range ex {
			fmt.Fprintf(&b, "  %s\n%s", e[0], wrap(e[1], "      ", 76))
		}
	}
	return b.String()
}

// environmentHelp is zap help environment: every variable zap reads, with
// the commands that read it when not every command that evaluates does.
func environmentHelp() string {
	var b strings.Builder
	b.WriteString("usage: zap help environment\n\nEnvironment:\n")
	for _, v := range environment {
		help := v.help
		if v.cmds != nil {
			help += " (read by " + strings.Join(v.cmds, ", ") + ")"
		}
		fmt.Fprintf(&b, "  %s\n%s", v.name, wrap(help, "      ", 76))
	}
	b.WriteString("  and every variable the config references with zap.env (or --env-file gives)\n")
	b.WriteString("\nA variable with no commands named is read by every command that evaluates the\nconfig (all but zap types, zap completion and zap version). docs/cli.md has\nthe same list.\n")
	return b.String()
}

// wrap is text in lines of at most width columns (a longer word alone on
// its line), each starting with indent and ending with a newline.
func wrap(text, indent string, width int) string {
	var b strings.Builder
	line := indent
	for _, w := range strings.Fields(text) {
		if line != indent && len([]rune(line))+1+len([]rune(w)) > width {
			b.WriteString(line + "\n")
			line = indent
		}
		if line != indent {
			line += " "
		}
		line += w
	}
	b.WriteString(line + "\n")
	return b.String()
}
