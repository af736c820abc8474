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
zap. A folder there that isn't a copy of @zap-go/zap is refused.

Exit status: 0 written; 1 it couldn't be written; 2 a stray argument or a
folder that isn't Zap's.`,
		FlagSet: f.plain("zap types"),
		Exec: func(ctx context.Context, args []string) error {
			dir, err := dirArg("types", args)
			if err != nil {
				return err
			}
			n, err := writeTypes(dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "wrote %s (%s, %d files)\n", escape.Line(filepath.Join(dir, typesDir)), tspkg.Name, n)
			return nil
		},
	}
}

// dirArg is the one DIR argument of zap init and zap types, or ".".
func dirArg(cmd string, args []string) (string, error) {
	return oneArg(args, "directory", ".", func() error {
		return fail(2, fmt.Sprintf("zap %s takes one directory at most, not %d arguments", cmd, len(args)))
	})
}

// writeTypes writes the embedded package into dir/typesDir, whole: into a
// new folder beside it, which then takes the old one's place, so a failure
// leaves what was there. A folder there whose package.json doesn't name
// the package is refused (exit 2). It returns how many files it wrote.
func writeTypes(dir string) (int, error) {
	dest := filepath.Join(dir, typesDir)
	if err := checkOwnTypes(dest); err != nil {
		return 0, err
	}
	parent := filepath.Dir(dest)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return 0, failf(1, "zap types: %v", err)
	}
	tmp, err := os.MkdirTemp(parent, ".zap-new-")
	if err != nil {
		return 0, failf(1, "zap types: %v", err)
	}
	defer os.RemoveAll(tmp)
	// MkdirTemp makes it 0700; the package is as readable as the project.
	if err := os.Chmod(tmp, 0o755); err != nil {
		return 0, failf(1, "zap types: %v", err)
	}
	if err := os.CopyFS(tmp, tspkg.FS()); err != nil {
		return 0, failf(1, "zap types: writing %s: %v", dest, err)
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
			return 0, failf(1, "zap types: %v", err)
		}
		defer os.RemoveAll(old)
	}
	if err := os.Rename(tmp, dest); err != nil {
		if old != "" {
			os.Rename(old, dest)
		}
		return 0, failf(1, "zap types: %v", err)
	}
	return n, nil
}

// checkOwnTypes refuses to replace dest unless it is missing or a folder
// holding a copy of the package (its package.json names it).
func checkOwnTypes(dest string) error {
	fi, err := os.Lstat(dest)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return failf(1, "zap types: %v", err)
	}
	notOurs := fail(2, fmt.Sprintf("%s is not a copy of %s that zap types wrote: refusing to replace it", escape.Line(dest), tspkg.Name),
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
