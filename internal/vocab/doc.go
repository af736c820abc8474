// Package vocab holds the words detection, planning and execution share,
// so that none of them borrows another's: the names of Zap's own
// operations (each a script of internal/ops) and the arguments each takes,
// the fields and values of a kind's drift the planner reads to pick its
// steps, the defaults a declaration leaves to Zap, the limits of a probe
// and a check, and how an argument is spelled for the shell.
//
// It sits at the bottom of Zap's internal packages: it imports the
// standard library's pure packages and the document contracts
// (pkg/declaration, pkg/plan) and nothing else, so it does no I/O and pulls
// none in. internal/detect, internal/planner, internal/ops and
// internal/execute import it for names instead of each other; the planner's
// test holds its whole dependency graph to that (internal/planner,
// TestNoIO).
//
// The names are kept one file per resource kind (service.go, user.go,
// ...), those every kind uses in shell.go and limits.go. A kind kept whole
// in its own folder (internal/kinds/<kind>: swap, firewall, ...) keeps its
// names there, unless the planner or the executor shares them.
package vocab
