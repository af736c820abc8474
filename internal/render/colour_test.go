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
