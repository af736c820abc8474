package refdoc

import (
	"strings"
	"testing"
)

// TestUnionsSpelled: a field whose forms types.ts writes as a union by
// hand shows them on its page, read from types.ts, where the page showed
// the union's name alone; an enumeration inside a type is spelled too.
// A name standing for interfaces the page lists field by field, or for
// itself, stays a name.
func TestUnionsSpelled(t *testing.T) {
	want := map[string]map[string]string{
		"user": {
			"sudo":     "'nopasswd' | 'password' | { mode: 'nopasswd' | 'password'; commands: string[] } | false",
			"ssh_keys": "{ copy_from: string } | { keys: string[] }",
		},
		"firewall": {"allow": "(string | { port: number; proto?: 'tcp' | 'udp' | 'any' })[]"},
		"database": {"auth.method": "'scram-sha-256' | 'md5' | 'password' | 'gss' | 'ident' | 'pam' | 'reject'"},
		"file": {
			"content.extract": "{ type: 'none' } | { type: 'tar.xz' | 'tar.gz'; strip_components?: number }",
			"content":         "Content",
		},
		"build":   {"source.extract": "{ type: 'none' } | { type: 'tar.xz' | 'tar.gz'; strip_components?: number }"},
		"package": {"from": "Partial<Record<'apt' | 'apk' | 'pacman' | 'brew', string>>"},
		"verify":  {"assertions": "Assertion[]"},
	}
	for name, fields := range want {
		p, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		for field, typ := range fields {
			got := ""
			for _, f := range p.Fields {
				if f.Name == field {
					got = f.Type
				}
			}
			if got != typ {
				t.Errorf("%s.%s: type %q, want %q", name, field, got, typ)
			}
		}
	}
	// No page names a union types.ts spells whole.
	for _, p := range Pages() {
		for _, f := range p.Fields {
			for _, n := range typeName.FindAllString(f.Type, -1) {
				if _, ok := formOf(strings.TrimSuffix(n, "[]"), 0); ok {
					t.Errorf("%s.%s: type %s names %s, which spells out", p.Name, f.Name, f.Type, n)
				}
			}
		}
	}
}

// TestParseUnions reads a declaration whose form spans lines, holds
// comments and a ; inside braces.
func TestParseUnions(t *testing.T) {
	src := "/** x */\nexport type A =\n\t| { /** doc; */ a: string; b?: number }\n\t| false;\nexport type B = 'x' | 'y';\nexport interface C {}\n"
	got := parseUnions(src)
	if got["A"] != "{ a: string; b?: number } | false" || got["B"] != "'x' | 'y'" || len(got) != 2 {
		t.Errorf("parseUnions: %q", got)
	}
}
