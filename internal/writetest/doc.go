// Package writetest holds adversarial tests of Zap's writes on a local host
// (internal/localops): each runs another local account, zaptest, against
// the write (a link at the path, links swapped in at the path and the staged
// name in a tight loop, a hard link, a fifo, a planted file, a directory it
// made under /tmp, a file with an access list) and asserts nothing was
// written where that account pointed. The write is also killed outright at
// random moments, and a failed validate must put the file back as it was.
//
// The tests need root (to act as zaptest, and as the root Zap runs as under
// sudo); run as another account they skip, saying why.
package writetest
