// Package ts embeds the files of @zap-go/zap, the TypeScript package beside
// this file, so zap-eval carries the package and a config can import it with
// nothing installed. go:embed reaches only this directory and below, which
// is why the embedding lives here, in the package's own folder; everything
// else about the package (its name, its exports) is internal/tspkg's.
package ts

import "embed"

// types.ts's resource interfaces are generated from the declaration's
// structs; a test fails when the file isn't current.
//
//go:generate go run ../internal/schema/tsgen/gen types.ts

// Files are the package's files, named relative to its folder. A file added
// to the folder is added here too; internal/tspkg's tests fail until it is.
//
//go:embed package.json tsconfig.json README.md *.ts recipes
var Files embed.FS
