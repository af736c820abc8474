package render

import (
	"bytes"
	"testing"
)

// Colour goes to whole lines by how they begin, only when on; a line is
// held back until its newline, and Flush writes a partial one plain.
func TestColour(t *testing.T) {
	var b bytes.Buffer
	c := NewColour(&b)
	in := "[+] a  file\n[~] b  file\n    mode: 644\n  ok       a  file\n  failed   b  script: x\n" +
		"REFUSED — no preview yet: a wetrun executes only the plan you reviewed\nerror: bad\nplan_hash: 00\n"
	c.Write([]byte(in))
	if b.String() != in {
		t.Errorf("off, got %q", b.String())
	}
	b.Reset()
	c.SetOn(true)
	// Written in pieces that split lines, as a masking writer may.
	for _, piece := range []string{in[:2], in[2:30], in[30:]} {
		c.Write([]byte(piece))
	}
	want := "\x1b[32m[+] a  file\x1b[0m\n\x1b[33m[~] b  file\x1b[0m\n    mode: 644\n\x1b[32m  ok       a  file\x1b[0m\n" +
		"\x1b[31m  failed   b  script: x\x1b[0m\n\x1b[1mREFUSED — no preview yet: a wetrun executes only the plan you reviewed\x1b[0m\n" +
		"\x1b[1;31merror: bad\x1b[0m\nplan_hash: 00\n"
	if b.String() != want {
		t.Errorf("on, got %q\nwant %q", b.String(), want)
	}
	b.Reset()
	c.Write([]byte("type the first eight characters: "))
	if b.Len() != 0 {
		t.Errorf("a partial line passed before its newline: %q", b.String())
	}
	c.Flush()
	if b.String() != "type the first eight characters: " {
		t.Errorf("Flush wrote %q", b.String())
	}
}

// A content diff under a change: its headers bold, a hunk's line cyan, a
// line taken out red, one put in green, its context and summary lines
// plain.
func TestColourContentDiff(t *testing.T) {
	var b bytes.Buffer
	c := NewColour(&b)
	c.SetOn(true)
	ContentDiff(c, "--- /etc/motd (target)\n+++ inline (config)\n@@ -1,2 +1,2 @@\n same\n-old\n+new\n", "    ")
	ContentDiff(c, "binary or large: 4 bytes → 9 bytes, sha512 a… → b…\n", "    ")
	want := "\x1b[1m    --- /etc/motd (target)\x1b[0m\n\x1b[1m    +++ inline (config)\x1b[0m\n\x1b[36m    @@ -1,2 +1,2 @@\x1b[0m\n" +
		"     same\n\x1b[31m    -old\x1b[0m\n\x1b[32m    +new\x1b[0m\n    diff: binary or large: 4 bytes → 9 bytes, sha512 a… → b…\n"
	if b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
}

// A content diff's lines are escaped: a control character the target's
// file holds is spelled out, never written raw to the terminal.
func TestContentDiffEscapes(t *testing.T) {
	var b bytes.Buffer
	ContentDiff(&b, "--- /x (target)\n+++ inline (config)\n@@ -1 +1 @@\n-a\x1b[2Jb\n+c\n", "  ")
	want := "  --- /x (target)\n  +++ inline (config)\n  @@ -1 +1 @@\n  -a<U+001B>[2Jb\n  +c\n"
	if b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
}
