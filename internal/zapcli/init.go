package zapcli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/exit"
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
resolve @zap-go/zap from the copy zap types writes into .zap/types, with a
.zap/.gitignore that leaves .zap out of git (zap types writes it again
after a clone). Then it runs zap lock, which pins the zap-eval the config
is evaluated with. zap plan is the next step.

In an existing Node app it keeps the package.json, which must name the
project ("name"), and a tsconfig.json, printing the "paths" entry to add
to it. It overwrites nothing else: when zap.ts, zap.lock or .zap/types is
already there it names it, writes nothing and exits 2, as for a .zap that
is a symbolic link or not a directory. When zap lock fails, what init
wrote is removed again.

Exit status: 0 the project is ready; 1 zap lock failed in the world, or a
file couldn't be written; 2 a file is in the way, a package.json without a
name, or an input error.`,
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
// A package.json or tsconfig.json already there is kept (keptFiles).
var initFiles = []string{"package.json", "tsconfig.json", "zap.ts", "zap.lock"}

// keptFiles are the files of initFiles that zap init keeps when they are
// there already: an existing Node app's package.json (with a name) and
// tsconfig.json.
var keptFiles = map[string]bool{"package.json": true, "tsconfig.json": true}

// cmdInit is zap init: check that nothing is in the way, write the files
// and the types, run zap lock; undo the writes when lock fails.
func (a *app) cmdInit(ctx context.Context, dir string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return exit.Failf(2, "zap init: %w", err)
	}
	kept, err := initPreCheck(dir)
	if err != nil {
		return err
	}
	u := &undo{}
	if err := u.mkdirAll(abs); err != nil {
		return exit.Failf(1, "zap init: %w", err)
	}
	files := map[string]string{
		"package.json":  packageJSON(abs),
		"tsconfig.json": tsconfigJSON,
		"zap.ts":        zapTS,
	}
	for _, name := range initFiles[:3] {
		p := filepath.Join(dir, name)
		if note, ok := kept[name]; ok {
			fmt.Fprintf(a.stdout, "kept %s%s\n", escape.Line(p), note)
			continue
		}
		if err := u.create(p, files[name]); err != nil {
			u.run()
			return exit.Failf(1, "zap init: %w", err)
		}
		fmt.Fprintf(a.stdout, "wrote %s\n", escape.Line(p))
	}
	if err := a.initTypes(u, dir, abs); err != nil {
		return err
	}
	if err := a.cmdLock(ctx, filepath.Join(dir, "zap.ts")); err != nil {
		u.run()
		const undone = "zap init removed what it wrote: fix the above and run it again"
		return exit.WithHints(err, undone)
	}
	next := "zap plan"
	if dir != "." {
		next = fmt.Sprintf("cd %s && zap plan", escape.Line(dir))
	}
	fmt.Fprintf(a.stdout, "next: %s\n", next)
	return nil
}

// initTypes writes the types (zap types) and .zap/.gitignore for zap init,
// recording what it made in u, and undoing all of u when it fails.
func (a *app) initTypes(u *undo, dir, abs string) error {
	zapDir := filepath.Join(abs, ".zap")
	_, err := os.Lstat(zapDir)
	madeZap := errors.Is(err, fs.ErrNotExist)
	if err := u.mkdirAll(filepath.Join(abs, filepath.Dir(typesDir))); err != nil {
		u.run()
		return exit.Failf(1, "zap init: %w", err)
	}
	n, err := writeTypes(dir)
	if err != nil {
		u.run()
		return err
	}
	// zap.lock is missing (checked before), so one there after a failed
	// lock is the failed lock's own.
	u.paths = append(u.paths, filepath.Join(abs, typesDir), filepath.Join(abs, "zap.lock"))
	fmt.Fprintf(a.stdout, "wrote %s (%s, %d files)\n", escape.Line(filepath.Join(dir, typesDir)), tspkg.Name, n)
	if madeZap {
		if err := u.create(filepath.Join(zapDir, ".gitignore"), zapGitignore); err != nil {
			u.run()
			return exit.Failf(1, "zap init: %w", err)
		}
		fmt.Fprintf(a.stdout, "wrote %s (git leaves .zap out: zap types writes it again)\n", escape.Line(filepath.Join(dir, ".zap", ".gitignore")))
	}
	return nil
}

// zapGitignore is the .gitignore zap init and zap types write into a .zap
// they make: .zap holds only what zap types writes again from the zap
// installed, so git leaves all of it out, this file included.
const zapGitignore = "# Written by zap: .zap/types is what zap types writes from the zap\n# installed; run zap types after a clone or an upgrade. Commit zap.lock.\n*\n"

// initPreCheck looks at dir before zap init writes anything: a .zap on the
// way to the types that is a link or not a directory, and any file it
// writes that is there already, are refused, naming them (exit 2). A
// package.json there is kept when it names the project, and a tsconfig.json
// is kept as it is; kept maps each kept file to the note printed beside it.
func initPreCheck(dir string) (kept map[string]string, err error) {
	if err := checkTypesWay(dir, "zap init"); err != nil {
		return nil, err
	}
	kept = map[string]string{}
	var inWay []string
	for _, name := range append(slices.Clone(initFiles), typesDir) {
		p := filepath.Join(dir, name)
		_, err := os.Lstat(p)
		switch {
		case err == nil && keptFiles[name]:
			note, err := keptNote(p, name)
			if err != nil {
				return nil, err
			}
			kept[name] = note
		case err == nil:
			inWay = append(inWay, escape.Line(p))
		case !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return nil, exit.Failf(2, "zap init: %w", err)
		}
	}
	if len(inWay) > 0 {
		verb := "is"
		if len(inWay) > 1 {
			verb = "are"
		}
		return nil, exit.Fail(2, fmt.Sprintf("zap init overwrites nothing, and %s %s already there: nothing was written", strings.Join(inWay, ", "), verb),
			"start the project in a new directory (zap init DIR), or move those files away")
	}
	return kept, nil
}

// keptNote checks a package.json or tsconfig.json zap init keeps and says
// what it printed beside "kept": a package.json's name, or how to point a
// tsconfig.json at the types.
func keptNote(p, name string) (string, error) {
	if name == "package.json" {
		pkgName, err := existingPackageName(p)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf(" (its name %s names the project)", escape.Line(strconv.Quote(pkgName))), nil
	}
	data, err := readBounded(p, maxKeptFile)
	if err == nil && strings.Contains(string(data), tspkg.Name) {
		return " (it maps " + tspkg.Name + " already)", nil
	}
	return ": for tsc and editors to find " + tspkg.Name + ", add to its \"compilerOptions\"\n" + tsconfigPaths +
		"  and \".zap\" to its \"exclude\"", nil
}

// tsconfigPaths is the "paths" entry a tsconfig.json zap init kept needs,
// as zap init prints it.
const tsconfigPaths = `  "paths": {
    "@zap-go/zap": ["./.zap/types/@zap-go/zap/index.ts"],
    "@zap-go/zap/*": ["./.zap/types/@zap-go/zap/*"]
  }
`

// maxKeptFile bounds what zap init reads of a package.json or tsconfig.json
// it keeps.
const maxKeptFile = 1 << 20

// existingPackageName is the "name" of the package.json at p, which zap
// init keeps: a regular file (a link followed) of at most maxKeptFile
// bytes, holding a JSON object whose "name" is a string that isn't blank.
// Anything else is refused (exit 2), naming the file.
func existingPackageName(p string) (string, error) {
	hint := "give it a \"name\" (such as {\"name\": \"my-app\", \"private\": true}), then run zap init again"
	data, err := readBounded(p, maxKeptFile)
	if err != nil {
		return "", exit.Fail(2, fmt.Sprintf("zap init keeps the package.json there, and %s", escape.Line(err.Error())), hint)
	}
	var pkg map[string]json.RawMessage
	if err := json.Unmarshal(data, &pkg); err != nil || pkg == nil {
		return "", exit.Fail(2, fmt.Sprintf("zap init keeps the package.json there, and %s is not a JSON object", escape.Line(p)), hint)
	}
	var name string
	if raw, ok := pkg["name"]; !ok || json.Unmarshal(raw, &name) != nil || strings.TrimSpace(name) == "" {
		return "", exit.Fail(2, fmt.Sprintf("zap init keeps the package.json there, and %s has no \"name\": the name is what makes the directory a project", escape.Line(p)), hint)
	}
	return name, nil
}

// readBounded reads the regular file at p (a link followed), refusing one
// larger than limit bytes, and anything but a regular file unopened.
func readBounded(p string, limit int64) ([]byte, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", p, limit)
	}
	return data, nil
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

	// Or keep the file in the project, beside zap.ts, and have zap-eval
	// read it when it evaluates the config (project_template reads a
	// template's body and project_bytes a binary file the same way): add
	// import { project_text } from '@zap-go/zap'; at the top, then
	// zap.file({id: 'motd', path: ` + "`${DIR}/motd.txt`" + `, content: project_text('./motd.txt')});
};
`
