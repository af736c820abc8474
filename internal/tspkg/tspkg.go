// Package tspkg is the copy of @zap-go/zap that zap-eval carries: the
// TypeScript package in the repository's ts/ folder (the builder's types,
// env_ref and, later, the recipes), embedded by package ts, and the reading
// of its package.json "exports" that a bare import of it resolves through.
//
// The embedded files are ts/'s own, not a copy kept beside them, so the two
// can't differ; the tests hold the embedding to list every file of the
// folder but the Go one.
//
// Resolve follows Node's exports resolution for what a package.json of ours
// uses: a string, an object of subpaths (exact, or with one * that may match
// across /), condition objects taken in their written order, and arrays of
// targets tried in turn. A target must stay inside the package.
package tspkg

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/zap-go/zap/ts"
)

// Name is the package's name, what a config imports.
const Name = "@zap-go/zap"

// FS returns the package's files, named relative to its folder.
func FS() fs.FS { return ts.Files }

// ErrNotExported is a subpath the package's exports don't list.
var ErrNotExported = errors.New("not exported by the package")

// Resolve returns the file, a path in FS, that the package's exports name
// for subpath ("." for the package itself, "./env_ref.ts" for a module)
// under conditions ("default" always applies).
func Resolve(subpath string, conditions []string) (string, error) {
	data, err := fs.ReadFile(FS(), "package.json")
	if err != nil {
		return "", err
	}
	var pkg struct {
		Exports json.RawMessage `json:"exports"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		return "", fmt.Errorf("package.json: %w", err)
	}
	if pkg.Exports == nil {
		return "", errors.New(`package.json has no "exports"`)
	}
	file, err := resolveExports(pkg.Exports, subpath, conditions)
	if err != nil {
		return "", err
	}
	if fi, err := fs.Stat(FS(), file); err != nil || fi.IsDir() {
		return "", fmt.Errorf("%s: exported as %q, which is not a file of the package", subpath, "./"+file)
	}
	return file, nil
}

// member is one key of a JSON object, in the order written.
type member struct {
	key string
	val json.RawMessage
}

// members reads raw as an object, keeping its keys' order (which decides
// between conditions); ok is false when raw isn't an object.
func members(raw json.RawMessage) (list []member, ok bool, err error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, true, err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, true, err
		}
		key, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, true, err
		}
		list = append(list, member{key, val})
	}
	return list, true, nil
}

func resolveExports(exports json.RawMessage, subpath string, conditions []string) (string, error) {
	list, isObject, err := members(exports)
	if err != nil {
		return "", fmt.Errorf("exports: %w", err)
	}
	subpaths := isObject && len(list) > 0 && strings.HasPrefix(list[0].key, ".")
	for _, m := range list {
		if strings.HasPrefix(m.key, ".") != subpaths {
			return "", errors.New(`exports mixes subpaths (".", "./x") and conditions`)
		}
	}
	if !subpaths {
		// The whole value is the target of "." alone.
		if subpath != "." {
			return "", fmt.Errorf("%s: %w", subpath, ErrNotExported)
		}
		return target(exports, "", conditions, subpath)
	}
	for _, m := range list {
		if m.key == subpath && !strings.Contains(m.key, "*") {
			return target(m.val, "", conditions, subpath)
		}
	}
	// The pattern whose part before * is longest wins, as in Node.
	best, match := -1, ""
	for i, m := range list {
		prefix, suffix, ok := strings.Cut(m.key, "*")
		if !ok || strings.Contains(suffix, "*") {
			continue
		}
		if len(subpath) < len(prefix)+len(suffix) || !strings.HasPrefix(subpath, prefix) || !strings.HasSuffix(subpath, suffix) {
			continue
		}
		if best < 0 || len(prefix) > strings.Index(list[best].key, "*") {
			best, match = i, subpath[len(prefix):len(subpath)-len(suffix)]
		}
	}
	if best < 0 {
		return "", fmt.Errorf("%s: %w", subpath, ErrNotExported)
	}
	return target(list[best].val, match, conditions, subpath)
}

// target resolves one target of the exports: a string, a condition object
// or an array of targets.
func target(raw json.RawMessage, match string, conditions []string, subpath string) (string, error) {
	if string(bytes.TrimSpace(raw)) == "null" {
		// null excludes the subpath.
		return "", fmt.Errorf("%s: %w", subpath, ErrNotExported)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return file(s, match, subpath)
	}
	if list, ok, err := members(raw); ok {
		if err != nil {
			return "", fmt.Errorf("exports: %w", err)
		}
		for _, m := range list {
			if m.key != "default" && !slices.Contains(conditions, m.key) {
				continue
			}
			f, err := target(m.val, match, conditions, subpath)
			if errors.Is(err, ErrNotExported) {
				continue
			}
			return f, err
		}
		return "", fmt.Errorf("%s: %w under the conditions %s", subpath, ErrNotExported, strings.Join(append(append([]string{}, conditions...), "default"), ", "))
	}
	var arr []json.RawMessage
	if err := json.Unmarshal(raw, &arr); err == nil {
		var last error = fmt.Errorf("%s: %w", subpath, ErrNotExported)
		for _, t := range arr {
			f, err := target(t, match, conditions, subpath)
			if err == nil {
				return f, nil
			}
			last = err
		}
		return "", last
	}
	return "", fmt.Errorf("%s: exports target %s is not a string, an object or an array", subpath, raw)
}

// file checks a string target and substitutes the pattern's match.
func file(t, match, subpath string) (string, error) {
	rest, ok := strings.CutPrefix(t, "./")
	if !ok {
		return "", fmt.Errorf("%s: exports target %q doesn't begin ./", subpath, t)
	}
	for _, seg := range strings.Split(rest, "/") {
		if seg == "" || seg == "." || seg == ".." || seg == "node_modules" {
			return "", fmt.Errorf("%s: exports target %q is not a plain path in the package", subpath, t)
		}
	}
	f := strings.ReplaceAll(rest, "*", match)
	for _, seg := range strings.Split(f, "/") {
		if seg == "" || seg == "." || seg == ".." || seg == "node_modules" {
			return "", fmt.Errorf("%s: %w", subpath, ErrNotExported)
		}
	}
	return path.Clean(f), nil
}
