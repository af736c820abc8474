// Package writetest holds adversarial tests of Zap's writes on a host: each
// runs another local account, zaptest, against the write (a link at the
// path, links swapped in at the path and the staged name in a tight loop, a
// hard link, a fifo, a planted file, a directory it made under /tmp, a file
// with an access list) and asserts nothing was written where that account
// pointed. The write is also killed outright at random moments, and a failed
// validate must put the file back as it was.
//
// Every case runs twice: on the local target (internal/localops, natively)
// and over a private loopback sshd (internal/sshhost: the constant scripts
// of internal/ops under sudo -n, the login zaptest with NOPASSWD sudo there),
// where the kill hits the write's processes on the target. A local write
// denied natively is also run through its sudo fallback (localops.Sudo).
//
// TestConnectionCutAt20RandomMoments drives the zap binaries themselves
// ($ZAP_TEST_BIN): a 500-file apply over the loopback sshd whose connection
// is dropped at 20 random moments, each cut checked file by file and event
// by event, the moments drawn from a seed it logs (docs/testing.md).
//
// The tests need root (to act as zaptest, and as the root Zap runs as under
// sudo); run as another account they skip, saying why, and so do the SSH
// cases where no private sshd can run.
package writetest
