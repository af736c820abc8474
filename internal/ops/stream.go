package ops

import (
	"encoding/base64"
	"strings"
)

// ContentEnd is the line that ends a put's content on its stdin.
const ContentEnd = "__zap_content_end__"

// PutInput returns what the shell running the put script reads on stdin: the
// script, then content as the body of the here-document the script's last
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
