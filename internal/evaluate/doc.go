// Package evaluate runs a bundled config in a goja interpreter and collects
// what it declares into a declaration.
//
// The config module's default export is a function of the builder, possibly
// async. Run calls it once. The builder is open while the function runs and,
// for an async function, until its promise settles; a call that arrives
// later (from a promise the config didn't await) fails the evaluation, even
// when the config catches the error it throws. Every builder error is
// recorded on the Go side for the same reason. A promise still pending once
// the interpreter's job queue is empty can never settle: that fails too.
//
// A builder call whose data is wrong (a field of the wrong type, an unknown
// or missing key, a value that isn't plain data) is recorded and returns as
// if it had declared nothing, rather than throwing, so the config runs on
// and one evaluation reports every such mistake: the first MaxErrors of
// them as an *Errors, each at the file:line:col of the key at fault
// (positions.go), and a count of the rest. An unknown key names the key the
// call reads that it most likely misspells (internal/suggest). Evaluate
// keeps where each resource was declared, so Check can place the problems
// the declaration's own checks find the same way.
//
// What a config declares is plain data: strings, finite numbers, booleans,
// arrays and plain objects. A null, a NaN, a function, a symbol, a Map, a
// Date, a class instance, a proxy, a getter, an undefined array item or a
// value that holds itself fails, naming the field's path; a field given
// undefined is left out. zap.env('NAME') returns the marker string
// U+FDD0 NAME U+FDD1; a string field holding markers becomes a
// declaration.Text with references, a damaged marker fails, and a marker in
// a field that takes no reference fails naming the field and what to write
// instead.
//
// The interpreter is closed to everything that would make two evaluations of
// the same files differ: Date.now(), new Date() with no argument,
// performance.now() and Math.random() throw a TypeError naming themselves
// and what to write instead; local time is UTC; eval, new Function and the
// constructors of generator and async functions throw; there is no process,
// no fetch, no crypto, no timers and no queueMicrotask. The one read is of
// the project's own files, through Options.Files: project_text,
// project_template and project_bytes (@zap-go/zap) call a hook
// (projfile.go) that reads the file they name, relative to the module that
// called them, and makes the content naming it; a content that names a
// project file must be what was read. WeakRef and
// FinalizationRegistry are inert: a weak reference never clears and a
// cleanup callback never runs. console writes to the Console writer. A timeout and a heap cap interrupt a runaway config.
package evaluate
