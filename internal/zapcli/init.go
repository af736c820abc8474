package zapcli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/pass"
	"github.com/zap-go/zap/internal/stages"
	"github.com/zap-go/zap/internal/tspkg"
)

// initCommand is zap init [DIR].
func (a *app) initCommand(f *flagSets) *ffcli.Command {
	return &ffcli.Command{
		Name:       "init",
		ShortUsage: "zap init [--evaluator PATH] [DIR]",
		ShortHelp:  "start a project (default: here) that zap plan takes as it is",
		LongHelp: `Starts a project in DIR (default ., made when missing): a package.json
naming it after the directory, a commented zap.ts for this machine that
manages a directory and a file in your home, so it plans and applies
without sudo, and a tsconfig.json under which tsc --noEmit and editors
resolve @zap-go/zap from the copy zap types writes into .zap/types. Then it
runs zap lock, which pins the zap-eval the config is evaluated with. zap
plan is the next step.

It overwrites nothing: when any of those files is already there it names
it, writes nothing and exits 2. When zap lock fails, what init wrote is
removed again.

Exit status: 0 the project is ready; 1 zap lock failed in the world, or a
file couldn't be written; 2 a file is in the way, or an input error.`,
		FlagSet: f.eval("zap init"),
		Exec: func(ctx context.Context, args []string) error {
			dir, err := dirArg("init", args)
			if err != nil {
				return err
			}
			return a.cmdInit(ctx, dir)
		},
	}
}

// initFiles are the files zap init writes, in the order it writes them,
// and zap.lock, which the zap lock it runs writes; typesDir is checked too.
var initFiles = []string{"package.json", "tsconfig.json", "zap.ts", "zap.lock"}

// cmdInit is zap init: check that nothing is in the way, write the files
// and the types, run zap lock; undo the writes when lock fails.
func (a *app) cmdInit(ctx context.Context, dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return failf(2, "zap init: %v", err)
	}
	var inWay []string
	for _, name := range append(slices.Clone(initFiles), typesDir) {
		p := filepath.Join(dir, name)
		if _, err := os.Lstat(p); err == nil {
			inWay = append(inWay, escape.Line(p))
		} else if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
			return failf(2, "zap init: %v", err)
		}
	}
	if len(inWay) > 0 {
		verb := "is"
		if len(inWay) > 1 {
			verb = "are"
		}
		return fail(2, fmt.Sprintf("zap init overwrites nothing, and %s %s already there: nothing was written", strings.Join(inWay, ", "), verb),
			"start the project in a new directory (zap init DIR), or move those files away")
	}
	u := &undo{}
	if err := u.mkdirAll(abs); err != nil {
		return failf(1, "zap init: %v", err)
	}
	files := map[string]string{
		"package.json":  packageJSON(abs),
		"tsconfig.json": tsconfigJSON,
		"zap.ts":        zapTS,
	}
	for _, name := range initFiles[:3] {
		p := filepath.Join(dir, name)
		if err := u.create(p, files[name]); err != nil {
			u.run()
			return failf(1, "zap init: %v", err)
		}
		fmt.Fprintf(a.stdout, "wrote %s\n", escape.Line(p))
	}
	if err := u.mkdirAll(filepath.Join(abs, filepath.Dir(typesDir))); err != nil {
		u.run()
		return failf(1, "zap init: %v", err)
	}
	n, err := writeTypes(dir)
	if err != nil {
		u.run()
		return err
	}
	// zap.lock is missing (checked above), so one there after a failed
	// lock is the failed lock's own.
	u.paths = append(u.paths, filepath.Join(abs, typesDir), filepath.Join(abs, "zap.lock"))
	fmt.Fprintf(a.stdout, "wrote %s (%s, %d files)\n", escape.Line(filepath.Join(dir, typesDir)), tspkg.Name, n)
	if err := a.cmdLock(ctx, filepath.Join(dir, "zap.ts")); err != nil {
		u.run()
		const undone = "zap init removed what it wrote: fix the above and run it again"
		var pe *pass.Error
		var se *stages.Error
		switch {
		case errors.As(err, &pe):
			pe.Hints = append(pe.Hints, undone)
		case errors.As(err, &se):
			se.Hints = append(se.Hints, undone)
		}
		return err
	}
	next := "zap plan"
	if dir != "." {
		next = fmt.Sprintf("cd %s && zap plan", escape.Line(dir))
	}
	fmt.Fprintf(a.stdout, "next: %s\n", next)
	return nil
}

// undo records what zap init made, so a failure removes it again, newest
// first: only what init itself created.
type undo struct {
	paths []string
}

// mkdirAll makes dir and its missing parents, recording each it made.
func (u *undo) mkdirAll(dir string) error {
	var made []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		made = append(made, d)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i := len(made) - 1; i >= 0; i-- {
		u.paths = append(u.paths, made[i])
	}
	return nil
}

// create writes a new file at p, refusing one that appeared meanwhile.
func (u *undo) create(p, content string) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	u.paths = append(u.paths, p)
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// run removes what was recorded, newest first.
func (u *undo) run() {
	for i := len(u.paths) - 1; i >= 0; i-- {
		os.RemoveAll(u.paths[i])
	}
	u.paths = nil
}

var notNameChars = regexp.MustCompile(`[^a-z0-9._~-]+`)

// projectName is the package.json name zap init gives a project in dir:
// the directory's name as npm takes a name (lower case, URL-safe, not
// starting with . or _), or zap-config when nothing of it is left.
func projectName(dir string) string {
	name := notNameChars.ReplaceAllString(strings.ToLower(filepath.Base(dir)), "-")
	name = strings.TrimRight(strings.TrimLeft(name, "._-~"), "-")
	if len(name) > 214 {
		name = strings.TrimRight(name[:214], "-")
	}
	if name == "" {
		return "zap-config"
	}
	return name
}

// packageJSON is the package.json of a project in dir. Its name is what
// makes the directory a project (internal/project).
func packageJSON(dir string) string {
	name, _ := json.Marshal(projectName(dir))
	return fmt.Sprintf("{\n  \"name\": %s,\n  \"private\": true,\n  \"type\": \"module\"\n}\n", name)
}

// tsconfigJSON is the tsconfig.json of a new project: the options ts/ is
// checked under, less noUncheckedIndexedAccess, with "paths" sending
// @zap-go/zap to the copy zap types writes. zap-eval reads no tsconfig.
const tsconfigJSON = `{
  "compilerOptions": {
    "target": "ES2022",
    "lib": ["ES2022"],
    "module": "ESNext",
    "moduleResolution": "bundler",
    "allowImportingTsExtensions": true,
    "verbatimModuleSyntax": true,
    "noEmit": true,
    "strict": true,
    "types": [],
    "paths": {
      "@zap-go/zap": ["./.zap/types/@zap-go/zap/index.ts"],
      "@zap-go/zap/*": ["./.zap/types/@zap-go/zap/*"]
    }
  },
  "include": ["**/*.ts"],
  "exclude": ["node_modules", ".zap"]
}
`

// zapTS is the config zap init writes: this machine, a directory and a
// file in the operator's home, so it plans and applies without sudo.
const zapTS = `// zap.ts: the machine you want, described. Nothing changes until you ask:
//
//   zap plan               reads this machine and prints what would change
//   zap apply              the same, as a preview a wetrun can bind to
//   zap apply --wetrun     makes exactly the changes the preview showed
//
// The import is type-only: zap-eval strips it and carries @zap-go/zap
// itself. tsc --noEmit and your editor find it through tsconfig.json, in
// the copy zap types wrote under .zap/types (run zap types again after
// upgrading zap).
import type { Builder } from '@zap-go/zap';

// Everything below lives in your home directory, so no step needs sudo.
const DIR = '~/zap-hello';

export default (zap: Builder) => {
	// The target: this machine. A server reached over SSH would be
	// zap.target({host: 'example.org', user: 'admin'}).
	zap.target({local: true});

	// A directory, made with this mode when it is missing.
	zap.directory({id: 'hello-dir', path: DIR, mode: '755'});

	// A file in it. Edit the content and zap plan shows the difference;
	// change the file by hand and zap plan shows the drift.
	zap.file({
		id: 'hello',
		path: ` + "`${DIR}/hello.txt`" + `,
		content: {type: 'inline', content: 'hello from zap\n'},
		mode: '644',
		depends_on: ['hello-dir'],
	});
};
`
