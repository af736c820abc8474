package ops

import (
	"bufio"
	"encoding/base64"
	"io"
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

// PutInputReader is PutInput with the content read from r as the shell
// reads the stream, never held whole: the script, the content's base64 in
// lines of 76 characters, then the line ContentEnd. A read error from r
// ends the stream early, which the script finds as content that isn't
// what was sent. Close stops the stream and returns once nothing reads r
// any more (so r may be read again from its start).
func PutInputReader(script string, r io.Reader) io.ReadCloser {
	if !strings.HasSuffix(script, "\n") {
		script += "\n"
	}
	pr, pw := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		// The lines go out in chunks of streamChunk: a pipe hands each
		// write to the reader whole, and over SSH each read is a packet.
		bw := bufio.NewWriterSize(pw, streamChunk)
		lw := &lineWriter{w: bw}
		enc := base64.NewEncoder(base64.StdEncoding, lw)
		_, err := io.Copy(enc, r)
		if err == nil {
			err = enc.Close()
		}
		if err == nil && lw.n > 0 {
			_, err = bw.WriteString("\n")
		}
		if err == nil {
			_, err = bw.WriteString(ContentEnd + "\n")
		}
		if err == nil {
			err = bw.Flush()
		}
		pw.CloseWithError(err)
	}()
	return &stream{Reader: io.MultiReader(strings.NewReader(script), pr), pr: pr, done: done}
}

// streamChunk is how much of PutInputReader's stream is handed on at once.
const streamChunk = 32 << 10

// stream is PutInputReader's reader.
type stream struct {
	io.Reader
	pr   *io.PipeReader
	done chan struct{}
}

func (s *stream) Close() error {
	s.pr.Close()
	<-s.done
	return nil
}

// lineWriter breaks what it is written into lines of 76 characters.
type lineWriter struct {
	w io.Writer
	n int // characters on the current line
}

func (l *lineWriter) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 {
		if l.n == 76 {
			if _, err := l.w.Write([]byte("\n")); err != nil {
				return written, err
			}
			l.n = 0
		}
		k := min(76-l.n, len(p))
		if _, err := l.w.Write(p[:k]); err != nil {
			return written, err
		}
		l.n += k
		written += k
		p = p[k:]
	}
	return written, nil
}

// putHereDoc is the put script's last line, which opens the here-document
// its content arrives in.
const putHereDoc = `zap_put "$@" <<'` + ContentEnd + `'`

// putStreamTail is what StreamPut puts in place of putHereDoc: the line of
// the arguments no argv shows, read by the shell's read (which takes a
// byte at a time from a pipe, so none of the content is read ahead), then
// the content's raw bytes, which cat copies into the staged file as they
// arrive.
const putStreamTail = `# Streamed (ops.StreamPut): sh -c runs this text with PATH MODE OWNER GROUP
# on its argv; stdin is the line SHA512 LENGTH [snapshot|remove], then the
# content's raw bytes, copied as they arrive: no here-document holds them.
zap_args=
IFS= read -r zap_args || zap_fail 93 "the content that arrived is not the content sent"
set -f
set -- "$@" $zap_args
set +f
zap_content() { cat; }
zap_put "$@"
`

// StreamPut returns the put script's text (script, with its shared parts
// in place) as a put whose content is too large to hold runs it: `sh -c`
// with the text and PATH MODE OWNER GROUP on its argv, and on stdin only
// PutStreamInput. The here-document the last line opens is replaced by a
// tail that reads the arguments' line and then copies the raw content as
// it arrives: a shell holds a here-document's body whole in memory before
// the command reads it (dash, BusyBox ash), which for a file of a GiB is a
// GiB on the target. Every other line is the put script's own, so every
// rule of put.sh holds. It is false when script doesn't end in that line.
func StreamPut(script string) (string, bool) {
	body, ok := strings.CutSuffix(strings.TrimRight(script, "\n"), putHereDoc)
	if !ok {
		return "", false
	}
	return body + putStreamTail, true
}

// PutStreamInput is the stdin of StreamPut's script: args (the put's
// arguments no argv shows: digest, length, and what else it does) on one
// line, then r's bytes as they are, read as the shell reads the stream. No
// argument holds a blank or a newline.
func PutStreamInput(args []string, r io.Reader) io.Reader {
	return io.MultiReader(strings.NewReader(strings.Join(args, " ")+"\n"), r)
}
