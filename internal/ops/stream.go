package ops

import (
	"bytes"
	"encoding/base64"
	"io"
	"strconv"
	"strings"

	"github.com/zap-go/zap/internal/vocab"
)

// Input returns what the shell running an operation script reads on stdin
// when the script takes arguments no argv may show: a first line appending
// them, each single-quoted, to the ones its argv carried (set -- "$@" 'A'
// 'B'), then the script. The shell runs that line before it reads the
// next, so the script finds all of them in "$@", in order, as if each had
// followed the --, and ps shows only the argv's. security.md: a path, a
// mode, an owner and a group are arguments; anything else an operation is
// handed (a put's digest and length, a link's target, a package's or an
// account's name) travels on stdin. No argument holds a NUL
// (execute.Prepare refuses one).
func Input(script string, args ...string) string {
	if len(args) == 0 {
		return script
	}
	var b strings.Builder
	b.WriteString(`set -- "$@"`)
	for _, a := range args {
		b.WriteString(" ")
		b.WriteString(vocab.Quote(a))
	}
	b.WriteString("\n")
	b.WriteString(script)
	return b.String()
}

// ContentEnd is the line that ends a put's content on its stdin.
const ContentEnd = "__zap_content_end__"

// PutInput returns what the shell running the put script reads on stdin: the
// script (Input: the arguments no argv shows, then the script), then content as the body of the here-document the script's last
// line opens (base64 in lines of 76 characters), then the line ContentEnd.
// A shell reading a script from a pipe reads ahead of the command it runs, so
// bytes sent after the script for a command to read could be swallowed by
// the shell; a here-document is read by the shell itself.
func PutInput(script string, content []byte) []byte {
	enc := base64.StdEncoding.EncodeToString(content)
	var b strings.Builder
	b.Grow(len(script) + len(enc) + len(enc)/76 + len(ContentEnd) + 4)
	b.WriteString(script)
	if !strings.HasSuffix(script, "\n") {
		b.WriteString("\n")
	}
	for len(enc) > 76 {
		b.WriteString(enc[:76])
		b.WriteString("\n")
		enc = enc[76:]
	}
	if enc != "" {
		b.WriteString(enc)
		b.WriteString("\n")
	}
	b.WriteString(ContentEnd + "\n")
	return []byte(b.String())
}

// PutScriptInput returns what the shell running put.sh (script) reads on
// stdin: the arguments no argv shows (Input's line), then the line that
// says how the content comes, then the script. Content with no NUL byte
// comes on that line, zap_text set to it quoted, which put.sh writes with
// printf, the shell's own (no process), and the here-document the script's
// last line opens is empty; other content comes as PutInput sends it,
// base64 in the here-document, the line unsetting zap_text, and put.sh
// decodes it with base64 -d. Both ways the line is there, so put.sh never
// takes a zap_text from its environment.
func PutScriptInput(script string, content []byte, args ...string) []byte {
	if bytes.IndexByte(content, 0) >= 0 {
		return PutInput(Input("unset zap_text\n"+script, args...), content)
	}
	var b strings.Builder
	b.Grow(len(content) + len(script) + len(ContentEnd) + 64)
	b.WriteString(Input("zap_text="+vocab.Quote(string(content))+"\n"+script, args...))
	if !strings.HasSuffix(script, "\n") {
		b.WriteString("\n")
	}
	b.WriteString(ContentEnd + "\n")
	return []byte(b.String())
}

// StreamInput is the stdin of a streamed operation script (put-stream,
// extract, build: scripts that run as `sh -c SCRIPT sh ARGV...`, see
// StreamInvocation): args, the arguments no argv shows, framed so that the
// shell's read takes them a line at a time (their count on a line, then each
// as the count of its lines and those lines: lib/stdin.sh's zap_stdin), and
// then r's bytes as they are, read as the target reads the stream, never
// held whole. An argument may hold any byte but NUL (execute.Prepare
// refuses one), a line break included.
func StreamInput(args []string, r io.Reader) io.Reader {
	var b strings.Builder
	b.WriteString(strconv.Itoa(len(args)) + "\n")
	for _, a := range args {
		b.WriteString(strconv.Itoa(strings.Count(a, "\n")+1) + "\n")
		b.WriteString(a + "\n")
	}
	return io.MultiReader(strings.NewReader(b.String()), r)
}
