// Package stage is what every stage binary (zap-eval, zap-detect, zap-plan,
// zap-exec, zap-deploy) does the same way around its own work: parse flags
// (and, for a stage that resolves references, take the env file's long
// variables from their descriptor: ParseEnv), read its one input document
// from a file argument or stdin, and turn an error into the exit code and
// the stderr lines the conventions give.
//
// The exit code is the one the error carries (internal/exit: BadInput exits
// 2, an input to fix; InWorld and any other error 1, a problem in the
// world). Finish prints it once in every binary's voice (exit.Write):
// "<name>: <message>", then each hint as "hint: <hint>".
package stage

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/peterbourgon/ff/v3"

	"github.com/zap-go/zap/internal/envpass"
	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/strict"
	"github.com/zap-go/zap/internal/version"
	"github.com/zap-go/zap/pkg/canon"
)

// Unreadable is BadInput for the stage's input document, what, that err
// says doesn't read: "what: err", with, when it is a document of another
// format, the hint to make it with maker (the stage before) of this zap.
func Unreadable(err error, what, maker string) error {
	var hints []string
	var other *strict.OtherFormatError
	if errors.As(err, &other) {
		hints = append(hints, "make the "+what+" with the "+maker+" of this zap")
	}
	return exit.BadInput(fmt.Errorf("%s: %w", what, err), hints...)
}

// ErrVersion is --version as an error, as flag.ErrHelp is --help: Finish
// prints the version on stdout and exits 0.
var ErrVersion = errors.New("--version asked for")

// Finish writes err the way every stage does and returns the exit code:
// flag.ErrHelp prints usage on stdout and exits 0, ErrVersion prints
// "<name> <version>" (the version zap version prints) and exits 0.
func Finish(name, usage string, err error, stdout, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, usage)
		return 0
	}
	if errors.Is(err, ErrVersion) {
		fmt.Fprintf(stdout, "%s %s\n", strings.Fields(name)[0], version.String())
		return 0
	}
	return exit.Print(stderr, name, err)
}

// NewFlagSet returns a flag set that reports errors rather than printing
// them or exiting. It has --version, which every stage answers.
func NewFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.Bool("version", false, "print the version and exit")
	return fs
}

// Parse parses args into fs. A usage error is BadInput with a hint to run
// --help (an unknown flag also names the flag it is likely a typo of,
// FlagError); --help itself comes back as flag.ErrHelp, --version as
// ErrVersion.
func Parse(fs *flag.FlagSet, args []string) error {
	if err := ff.Parse(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		// ff wraps the flag package's message in "error parsing
		// commandline arguments"; the message itself says enough.
		if inner := errors.Unwrap(err); inner != nil {
			err = inner
		}
		msg, hints := FlagError(err, fs, args)
		return exit.BadInput(errors.New(msg), append(hints, "run "+fs.Name()+" --help for its usage")...)
	}
	if v := fs.Lookup("version"); v != nil && v.Value.String() == "true" {
		return ErrVersion
	}
	return nil
}

// ParseEnv is Parse, then the env file's long variables the front end hands
// the stage on a descriptor (envpass.Load), a failure to read them an
// input to fix: how a stage that resolves references starts.
func ParseEnv(fs *flag.FlagSet, args []string) (*envpass.Env, error) {
	if err := Parse(fs, args); err != nil {
		return nil, err
	}
	env, err := envpass.Load()
	if err != nil {
		return nil, exit.BadInput(err)
	}
	return env, nil
}

// InputEnv is ParseEnv, then ReadInput of the one document, what.
func InputEnv(fs *flag.FlagSet, args []string, stdin io.Reader, what string) (*envpass.Env, []byte, error) {
	env, err := ParseEnv(fs, args)
	if err != nil {
		return nil, nil, err
	}
	data, err := ReadInput(fs, stdin, what)
	if err != nil {
		return nil, nil, err
	}
	return env, data, nil
}

// ReadInput reads the stage's one input document, what, from the file
// argument when there is one and from stdin otherwise (Read). A document
// larger than canon.MaxSize is an input to fix, "what: document size limit:
// larger than 64 MiB"; any other failure to read it is a problem in the
// world.
func ReadInput(fs *flag.FlagSet, stdin io.Reader, what string) ([]byte, error) {
	if fs.NArg() > 1 {
		return nil, exit.BadInput(fmt.Errorf("want at most one %s file, not %d arguments", what, fs.NArg()), "run "+fs.Name()+" --help for its usage")
	}
	data, err := Read(fs.Arg(0), stdin)
	var limit *canon.LimitError
	if errors.As(err, &limit) {
		return nil, exit.BadInput(fmt.Errorf("%s: %w", what, err))
	}
	if err != nil {
		return nil, exit.InWorld(fmt.Errorf("read %s: %w", what, err))
	}
	return data, nil
}

// Read reads one input document from the file name, or from stdin when
// name is "", holding it to canon.MaxSize: a larger one is a
// *canon.LimitError, refused before more than canon.MaxSize+1 bytes are
// read (a regular file, stdin included, by its size and unread), so what a
// stage holds of its input is bounded before it reads a byte of it.
func Read(name string, stdin io.Reader) ([]byte, error) {
	if name == "" {
		return canon.ReadAll(stdin, canon.MaxSize)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return canon.ReadAll(f, canon.MaxSize)
}

// CheckOutput refuses the stage's output document, what, when the stage
// next would refuse it as its input for being larger than canon.MaxSize:
// refused where it is made, as an input to fix, rather than where it is
// read.
func CheckOutput(doc []byte, what, next string, hints ...string) error {
	if len(doc) > canon.MaxSize {
		return exit.BadInput(fmt.Errorf("the %s would be larger than %d MiB, the most %s reads", what, canon.MaxSize>>20, next), hints...)
	}
	return nil
}
