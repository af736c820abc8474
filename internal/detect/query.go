package detect

import (
	"strings"

	"github.com/zap-go/zap/internal/vocab"
	"github.com/zap-go/zap/pkg/observation"
)

// Op is what a query reads.
type Op string

// The queries a detector can declare.
const (
	OpType     Op = "type"     // what a path resolves to, following links
	OpStat     Op = "stat"     // a path's own type, mode, owner and group
	OpReadlink Op = "readlink" // a symbolic link's target
	OpDigest   Op = "sha512"   // the SHA-512 of a regular file of its own
	OpCommand  Op = "command"  // an operator's command
	OpProbe    Op = "probe"    // one of Zap's own commands, its output read
	OpContent  Op = "content"  // a bounded read of a small regular file of its own
	// OpText reads a regular file of its own for a diff (zap plan --diff):
	// at most Limit bytes, and only while the batch's TextBudget lasts.
	// Its answer feeds no verdict.
	OpText Op = "text"
)

// TextBudget is the most bytes a batch's text reads read in all: past it
// a text read answers failed, and its diff isn't shown.
const TextBudget = 8 << 20

// ContentLimit is the most a content read may ask for.
const ContentLimit = 1 << 20

// ProbeOutputLimit is the most a probe may print on its stdout; a probe
// that prints more fails, and its resource holds.
const ProbeOutputLimit = 1 << 20

// Query is one read a detector needs. Path is set for every op but command
// and probe; Command only for those two. A probe's Command is text Zap
// wrote (never an operator's): it runs under LC_ALL=C, and its answer
// carries what it printed on stdout as well as its exit status.
type Query struct {
	Op   Op               `json:"op"`
	Lane observation.Lane `json:"lane"`
	Path string           `json:"path,omitempty"`
	// Limit is how many bytes a content read reads at most (1 to
	// ContentLimit).
	Limit   int      `json:"limit,omitempty"`
	Command *Command `json:"command,omitempty"`
}

// NewProbe is the query that runs text, a script of Zap's own, in lane
// under vocab.ProbeTimeout.
func NewProbe(lane observation.Lane, text string) Query {
	return Query{Op: OpProbe, Lane: lane, Command: &Command{Text: text, Timeout: vocab.ProbeTimeout}}
}

// Command is an operator's command with its references resolved: the text
// runs in Cwd (when set) with Env exported, under a limit of Timeout
// seconds. Its values travel inside the script, never on an argv.
type Command struct {
	Text    string `json:"text"`
	Cwd     string `json:"cwd,omitempty"`
	Env     []Var  `json:"env,omitempty"`
	Timeout int    `json:"timeout"`
}

// Var is one exported variable of a command.
type Var struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Script is the shell script that runs c, for a POSIX shell reading it from
// stdin: it enters the working directory (exiting nonzero when it can't),
// exports each variable, its value single-quoted, and then runs the text on
// lines of its own. The text is a brace group with stdin from /dev/null, so
// the shell parses all of it before any of it runs and nothing it runs can
// read the rest of the script.
func (c *Command) Script() string {
	var b strings.Builder
	if c.Cwd != "" {
		b.WriteString("cd -- " + vocab.Quote(c.Cwd) + " || exit\n")
	}
	for _, v := range c.Env {
		b.WriteString("export " + v.Name + "=" + vocab.Quote(v.Value) + "\n")
	}
	b.WriteString("{\n")
	b.WriteString(c.Text)
	if !strings.HasSuffix(c.Text, "\n") {
		b.WriteString("\n")
	}
	b.WriteString("} </dev/null\n")
	return b.String()
}
