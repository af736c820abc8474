// Package detect is how Zap reads the current state of a resource: each kind
// declares the reads its verdict needs as typed queries, a Host answers them
// in batches, and a pure function of the answers gives the verdict.
//
// A Detector is one resource's reads and verdict. Queries lists what it must
// read, each read naming its privilege lane; Verdict turns the answers, one
// per query and in the same order, into converged, drifted, absent or
// undetermined. Verdict sees nothing but those answers and the desired state
// the detector was built from, so a detector can't read anything it didn't
// declare, and every verdict is a table of answers in, verdict out.
//
// The queries (Op):
//
//	type      what a path resolves to, following links (test -d semantics)
//	stat      a path's own type, mode, owner and group (lstat)
//	readlink  a symbolic link's target
//	sha512    the SHA-512 of a regular file of its own (never through a link,
//	          never a fifo or device, one hard link only)
//	content   the first Limit bytes of a regular file of its own, opened
//	          as sha512 opens it, and whether it holds more
//	command   an operator's command: /bin/sh reads it from stdin, under a
//	          timeout, in a session of its own
//	probe     one of Zap's own commands (a package or service manager's
//	          query, an account lookup), run like a command but under
//	          LC_ALL=C, its stdout read back with its exit status
//
// The answers (Status):
//
//	ok           the read succeeded; the fields of its op are set
//	missing      nothing there, or the path can't be reached (stat and
//	             readlink exiting 1); for readlink also "not a symlink"
//	denied       something is there but the read was refused
//	not_regular  a content read found something that isn't a regular file
//	             (Type says what); it was not opened, or not read
//	hard_linked  a content read found a regular file with more than one link
//	timed_out    no answer within the read's limit
//	failed       the read failed another way (Detail says how)
//
// Queries and answers are plain data with JSON tags, so the same batch can
// be answered natively on the local machine (internal/localhost) or as one
// framed shell script per lane over SSH. Pass runs one batch per lane and
// records each batch's lane and query count for the observations.
//
// The detectors themselves are their kinds', each in its folder
// (internal/kinds/<kind>: file.NewFile, service's, ...); this package holds
// what they share: the queries and answers, the verdicts (Converged,
// Drifted, Holding, ...), how a field resolves (ResolvePath, ResolveValue,
// ResolveTarget), the attributes a file and a directory compare (Attrs,
// Restat), a pin's lookup, the ledger's reads, and Pass. Building a
// detector resolves the resource's references and ~: a path or value that
// resolves to something Zap won't use makes a detector with no queries
// that holds the resource, naming the variable and never its value.
package detect
