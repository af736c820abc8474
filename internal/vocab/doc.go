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
// Every kind is a folder (internal/kinds/<kind>) and keeps its names there;
// what is here is what the planner or the executor shares with a kind: the
// package install batches' operations (packages.go; the planner batches
// every package's), the service managers and the pending-trigger ledger's
// operations (service.go; the trigger model marks what a service is owed,
// for every kind that triggers one), build's operation and arguments
// (build.go; the executor appends the source archive), apt_repo's key limit
// and verify's expect marker (the executor's too), and what every kind uses
// (shell.go, limits.go).
package vocab
