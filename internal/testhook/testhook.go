// Package testhook says whether the running binary may honour the
// environment variables the test scripts use to reach paths a user's
// binary never takes (ZAPEVAL_TEST_CREDENTIALS, ZAPEVAL_TEST_TIMEOUT,
// ZAP_TEST_HEALTH_ADDR, ZAP_TEST_DEPLOY_KILL, a coverage directory the
// sandbox lets the evaluator write). None of them evaluates a config as
// root: the scripts run zap as a user does (internal/scripttest's runas).
//
// Two kinds of binary answer yes: a Go test binary, and the stage binaries
// the test scripts run, which are built as users get them (CGO_ENABLED=0,
// the same flags as make build) plus the build tag zaptest, which sets
// nothing but the constant below. A binary built by make build or go
// install answers no, whatever its environment holds.
package testhook

import "testing"

// On reports whether test hooks may be honoured.
func On() bool { return tagged || testing.Testing() }
