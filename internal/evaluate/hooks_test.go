package evaluate

import (
	"sort"
	"strings"
	"testing"

	"github.com/zap-go/zap/internal/schema/tsgen"
	"github.com/zap-go/zap/pkg/declaration"
)

// hookForms are, for each hook, a declaration taking the hooked field's
// value X, each form ts/types.ts's type of the field allows (accepted) and
// forms it does not (refused). tsgen's TestHookTypes pins those types' text.
var hookForms = map[string]struct {
	decl              string
	accepted, refused []string
}{
	// Sudo = SudoMode | { mode: SudoMode; commands: string[] } | false
	"sudo": {
		decl:     `zap.user({id: 'u', username: 'u', sudo: X})`,
		accepted: append(quoted(declaration.SudoModes), `false`, `{mode: 'nopasswd', commands: ['/bin/ls']}`, `{mode: 'password', commands: ['/bin/ls', '/bin/cat']}`),
		// commands: [] is refused though string[] allows it: the grant of
		// every command is the mode alone.
		refused: []string{`true`, `'sometimes'`, `{mode: 'nopasswd'}`, `{commands: ['/bin/ls']}`, `{mode: 'sometimes', commands: []}`, `{mode: 'nopasswd', commands: ['/bin/ls'], x: 1}`, `1`, `['nopasswd']`},
	},
	// AllowRule[], AllowRule = string | { port: number; proto?: Protocol }
	"allow": {
		decl:     `zap.firewall({id: 'f', backend: 'ufw', allow: [X]})`,
		accepted: append(protoRules(), `'OpenSSH'`, `{port: 22}`, `{port: 65535}`),
		refused:  []string{`{proto: 'tcp'}`, `{port: 0}`, `{port: 65536}`, `{port: 22, proto: 'sctp'}`, `{port: '22'}`, `{port: 22, x: 1}`, `1`, `true`},
	},
	// check?: string, a path or a command
	"check": {
		decl:     `zap.pkg({id: 'p', from: {apt: 'x'}, check: X})`,
		accepted: []string{`'/usr/bin/x'`, `'~/bin/x'`, `'$HOME/bin/x'`, `'test -x /usr/bin/x'`},
		refused:  []string{`1`, `true`, `['/usr/bin/x']`, `{path: '/usr/bin/x'}`},
	},
	// vars?: Record<string, JsonValue>
	"vars": {
		decl:     `zap.file({id: 'f', path: '/f', content: {type: 'template', template: '{{a}}', vars: X}})`,
		accepted: []string{`{a: 'x'}`, `{a: 1}`, `{a: true}`, `{a: null}`, `{a: [1, 'x']}`, `{a: {b: [null]}}`},
		refused:  []string{`'x'`, `1`, `['x']`},
	},
}

func quoted(values []string) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = "'" + v + "'"
	}
	return out
}

func protoRules() []string {
	var out []string
	for _, p := range quoted(declaration.Protocols) {
		out = append(out, `{port: 53, proto: `+p+`}`)
	}
	return out
}

// TestHookForms decodes each form of each hooked field's TypeScript type
// and refuses the forms outside it, by the evaluator's hook or the
// declaration's check (Validate), as a config is read; a hook without its
// forms here fails.
func TestHookForms(t *testing.T) {
	var names []string
	for name := range hooks {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		c, ok := hookForms[name]
		if !ok {
			t.Errorf("hook %q: no forms in hookForms: list what its TypeScript type allows and what it refuses", name)
			continue
		}
		run := func(x string) error { return evalForm(t, c.decl, x) }
		for _, x := range c.accepted {
			if err := run(x); err != nil {
				t.Errorf("%s: %s refused: %v", name, x, err)
			}
		}
		for _, x := range c.refused {
			if err := run(x); err == nil {
				t.Errorf("%s: %s accepted", name, x)
			}
		}
	}
	for name := range hookForms {
		if hooks[name] == nil {
			t.Errorf("hookForms lists %q, which is no hook", name)
		}
	}
}

func replaceX(decl, x string) string {
	for i := 0; i+1 < len(decl); i++ {
		if decl[i] == 'X' && (decl[i+1] == '}' || decl[i+1] == ']' || decl[i+1] == ')') {
			return decl[:i] + x + decl[i+1:]
		}
	}
	panic("no X in " + decl)
}

// unionForms are, for the unions types.ts writes by hand (tsgen's
// TestHandWrittenUnions holds their members to the structs), a declaration
// taking the value X, each form the union allows and forms it does not.
var unionForms = map[string]struct {
	decl              string
	accepted, refused []string
}{
	// SshKeys = { copy_from: string } | { keys: string[] }
	"SshKeys": {
		decl:     `zap.user({id: 'u', username: 'u', ssh_keys: X})`,
		accepted: []string{`{copy_from: 'root'}`, `{keys: ['ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl a@b']}`},
		refused:  []string{`{}`, `{copy_from: 'root', keys: []}`, `'root'`, `{keys: 'x'}`, `{copy_from: 'root', x: 1}`},
	},
	// Target = LocalTarget | RemoteTarget
	"Target": {
		decl:     `zap.target(X)`,
		accepted: []string{`{local: true}`, `{local: true, package_manager: 'apt', service_manager: 'systemd'}`, `{host: 'h'}`, `{local: false, host: 'h', user: 'u', port: 22, identity: '/k', home: '/home/u', bootstrap_user: 'root'}`},
		refused:  []string{`{}`, `{local: true, host: 'h'}`, `{local: false}`, `{host: 'h', port: 0}`, `{host: 'h', x: 1}`, `'h'`},
	},
	// Extract = { type: 'none' } | { type: 'tar.xz' | 'tar.gz'; strip_components?: number }
	"Extract": {
		decl:     `zap.file({id: 'f', path: '/f', content: {type: 'remote', url: 'https://example.com/a', blake3: '` + strings.Repeat("0", 64) + `', extract: X}})`,
		accepted: []string{`{type: 'none'}`, `{type: 'tar.xz'}`, `{type: 'tar.gz', strip_components: 1}`, `{type: 'tar.xz', strip_components: 0}`},
		refused:  []string{`{}`, `{type: 'zip'}`, `{type: 'tar.gz', strip_components: -1}`, `{type: 'tar.gz', strip_components: '1'}`, `'none'`},
	},
}

// TestHandWrittenUnionForms decodes each form of each hand-written union
// and refuses the forms outside it. Each of tsgen.HandWritten must be listed
// (and tsgen's TestHandWrittenChecked holds its members to its struct).
func TestHandWrittenUnionForms(t *testing.T) {
	for _, name := range tsgen.HandWritten() {
		if _, ok := unionForms[name]; !ok {
			t.Errorf("%s is written by hand in types.ts: list its forms in unionForms", name)
		}
	}
	for name, c := range unionForms {
		for _, x := range c.accepted {
			if err := evalForm(t, c.decl, x); err != nil {
				t.Errorf("%s: %s refused: %v", name, x, err)
			}
		}
		for _, x := range c.refused {
			if err := evalForm(t, c.decl, x); err == nil {
				t.Errorf("%s: %s accepted", name, x)
			}
		}
	}
}

// evalForm evaluates decl with X replaced by x, after a local target
// unless decl declares the target, and validates it.
func evalForm(t *testing.T, decl, x string) error {
	target := "zap.target({local: true}); "
	if strings.HasPrefix(decl, "zap.target(") {
		target = ""
	}
	d, err := eval(t, `function (zap) { `+target+replaceX(decl, x)+`; }`, Options{})
	if err != nil {
		return err
	}
	return d.Validate()
}
