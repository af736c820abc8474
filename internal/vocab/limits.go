package vocab

// ProbeTimeout is the limit, in seconds, on one of Zap's own probes (a
// package manager's query, a service manager's status, an account lookup),
// and on a verify's path check, at detection and again as a step.
const ProbeTimeout = 30

// CheckTimeout is the limit, in seconds, on an operator's check: a script's
// check that has not exited after it is stopped, its whole process group
// with SIGTERM and then SIGKILL a second later, and the script holds. A
// verify's command runs under it at detection and again as a step.
const CheckTimeout = 30

// LedgerOpTimeout is the limit, in seconds, on the pending-trigger
// ledger's operations (ledger-mark, ledger-clear).
const LedgerOpTimeout = 30
