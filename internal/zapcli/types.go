package zapcli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/peterbourgon/ff/v3/ffcli"

	"github.com/zap-go/zap/internal/escape"
	"github.com/zap-go/zap/internal/exit"
	"github.com/zap-go/zap/internal/tspkg"
)

// typesDir is where zap types writes @zap-go/zap in a project, and where
// the tsconfig.json zap init writes points "paths" at.
var typesDir = filepath.Join(".zap", "types", filepath.FromSlash(tspkg.Name))

// typesCommand is zap types [DIR].
func (a *app) typesCommand(f *flagSets) *ffcli.Command {
	return &ffcli.Command{
		Name:       "types",
		ShortUsage: "zap types [DIR]",
		ShortHelp:  "write the @zap-go/zap types into DIR/.zap/types, for tsc and editors",
		LongHelp: `Writes the TypeScript package @zap-go/zap that zap-eval carries (the
builder's types, env_ref, shell quoting and the recipes) into
DIR/.zap/types/@zap-go/zap (DIR defaults to .), replacing what an earlier
zap types wrote there, so tsc --noEmit and editors check a config against
the package this zap evaluates it with, with no npm step. The tsconfig.json
zap init writes points "paths" there; run zap types again after upgrading
zap, and after a clone: .zap is left out of git (a .zap it makes gets a
.gitignore saying so). A folder there that isn't a copy of @zap-go/zap is
refused, and so is a .zap, .zap/types or .zap/types/@zap-go that is a
symbolic link or not a directory: nothing is written through a link.

Exit status: 0 written; 1 it couldn't be written; 2 a stray argument, a
folder that isn't Zap's, or a link on the way.`,
		FlagSet: f.plain("zap types"),
		Exec: func(ctx context.Context, args []string) error {
			dir, err := dirArg("types", args)
			if err != nil {
				return err
			}
			_, err = os.Lstat(filepath.Join(dir, ".zap"))
			madeZap := errors.Is(err, fs.ErrNotExist)
			n, err := writeTypes(dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "wrote %s (%s, %d files)\n", escape.Line(filepath.Join(dir, typesDir)), tspkg.Name, n)
			if madeZap {
				p := filepath.Join(dir, ".zap", ".gitignore")
				if err := os.WriteFile(p, []byte(zapGitignore), 0o644); err != nil {
					return exit.Failf(1, "zap types: %w", err)
				}
				fmt.Fprintf(a.stdout, "wrote %s (git leaves .zap out: zap types writes it again)\n", escape.Line(p))
			}
			return nil
		},
	}
}

// dirArg is the one DIR argument of zap init and zap types, or ".".
func dirArg(cmd string, args []string) (string, error) {
	return oneArg(args, "directory", ".", func() error {
		return exit.Fail(2, fmt.Sprintf("zap %s takes one directory at most, not %d arguments", cmd, len(args)))
	})
}

// writeTypes writes the embedded package into dir/typesDir, whole: into a
// new folder beside it, which then takes the old one's place, so a failure
// leaves what was there. A folder there whose package.json doesn't name
// the package is refused (exit 2). It returns how many files it wrote.
func writeTypes(dir string) (int, error) {
	dest := filepath.Join(dir, typesDir)
	if err := checkTypesWay(dir, "zap types"); err != nil {
		return 0, err
	}
	if err := checkOwnTypes(dest); err != nil {
		return 0, err
	}
	parent := filepath.Dir(dest)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return 0, exit.Failf(1, "zap types: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, ".zap-new-")
	if err != nil {
		return 0, exit.Failf(1, "zap types: %w", err)
	}
	defer os.RemoveAll(tmp)
	// MkdirTemp makes it 0700; the package is as readable as the project.
	if err := os.Chmod(tmp, 0o755); err != nil {
		return 0, exit.Failf(1, "zap types: %w", err)
	}
	if err := os.CopyFS(tmp, tspkg.FS()); err != nil {
		return 0, exit.Failf(1, "zap types: writing %s: %w", dest, err)
	}
	n := 0
	fs.WalkDir(tspkg.FS(), ".", func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			n++
		}
		return nil
	})
	old := ""
	if _, err := os.Lstat(dest); err == nil {
		old = tmp + ".old"
		if err := os.Rename(dest, old); err != nil {
			return 0, exit.Failf(1, "zap types: %w", err)
		}
		defer os.RemoveAll(old)
	}
	if err := os.Rename(tmp, dest); err != nil {
		if old != "" {
			os.Rename(old, dest)
		}
		return 0, exit.Failf(1, "zap types: %w", err)
	}
	return n, nil
}

// checkTypesWay refuses, for cmd (exit 2, naming it), a .zap, .zap/types or
// .zap/types/@zap-go in dir that is a symbolic link, which would send what
// zap writes somewhere else, or that is there and isn't a directory. What
// isn't there yet is made by zap as a directory of its own.
func checkTypesWay(dir, cmd string) error {
	way := filepath.Dir(typesDir)
	var parts []string
	for p := way; p != "."; p = filepath.Dir(p) {
		parts = append([]string{p}, parts...)
	}
	for _, part := range parts {
		p := filepath.Join(dir, part)
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil
		case err != nil:
			return exit.Failf(2, "%s: %w", cmd, err)
		case fi.Mode()&fs.ModeSymlink != 0:
			return exit.Fail(2, fmt.Sprintf("%s is a symbolic link: %s writes nothing through one, so nothing was written", escape.Line(p), cmd),
				fmt.Sprintf("make %s a directory of its own (remove the link), then run %s again", escape.Line(p), cmd))
		case !fi.IsDir():
			return exit.Fail(2, fmt.Sprintf("%s is there and is not a directory: %s writes the types under it, so nothing was written", escape.Line(p), cmd),
				fmt.Sprintf("move %s away, then run %s again", escape.Line(p), cmd))
		}
	}
	return nil
}

// checkOwnTypes refuses to replace dest unless it is missing or a folder
// holding a copy of the package (its package.json names it).
func checkOwnTypes(dest string) error {
	fi, err := os.Lstat(dest)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return exit.Failf(1, "zap types: %w", err)
	}
	notOurs := exit.Fail(2, fmt.Sprintf("%s is not a copy of %s that zap types wrote: refusing to replace it", escape.Line(dest), tspkg.Name),
		"move it away, then run zap types again")
	if !fi.IsDir() {
		return notOurs
	}
	// The package's own package.json is under a kilobyte: a larger one
	// isn't its, and isn't read past the bound.
	pj := filepath.Join(dest, "package.json")
	if pi, err := os.Lstat(pj); err != nil || !pi.Mode().IsRegular() || pi.Size() > 64<<10 {
		return notOurs
	}
	data, err := os.ReadFile(pj)
	if err != nil || len(data) > 64<<10 {
		return notOurs
	}
	var pkg struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(data, &pkg) != nil || pkg.Name != tspkg.Name {
		return notOurs
	}
	return nil
}
