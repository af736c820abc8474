package sshhost

import (
	"strings"
	"sync"
)

// cleanedLimit bounds the list of cleaned directories a write is handed:
// the most recent ones (lib/stage.sh reads no list longer than 64 of them).
const cleanedLimit = 64

// cleanedTag opens the line a put or link script prints on stdout when it
// cleaned its directory of killed writers' leftovers (lib/stage.sh).
const cleanedTag = "zap-cleaned "

// laneRoot is the lane of the cleaned set a put or link over SSH is in:
// each runs under sudo. The set is kept per lane (the account a write runs
// as), since root and the login user clean different leftovers.
const laneRoot = "root"

// cleaned is, per lane, the directories (DEV:INO) this run's writes have
// cleaned of killed writers' leftovers, the most recent last: a later put
// or link in one of them is handed the list on stdin (ops.Input, never on
// argv) and doesn't read the directory again. See lib/stage.sh for why
// that is safe: a leftover of this run's appears only when a step was
// killed, which stops the run, and the list can only make a write skip its
// clean, never remove more.
type cleaned struct {
	mu   sync.Mutex
	dirs map[string][]string
}

// list is the lane's list as the scripts take it: DEV:INO words, one
// space between, at most cleanedLimit of them.
func (c *cleaned) list(lane string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.dirs[lane], " ")
}

// add records the directory a write of the lane reported cleaning on its
// stdout (its last line "zap-cleaned DEV:INO"), if it did.
func (c *cleaned) add(lane, stdout string) {
	id, ok := cleanedDir(stdout)
	if !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dirs == nil {
		c.dirs = make(map[string][]string)
	}
	l := c.dirs[lane]
	for i, d := range l {
		if d == id {
			l = append(l[:i], l[i+1:]...)
			break
		}
	}
	l = append(l, id)
	if len(l) > cleanedLimit {
		l = l[len(l)-cleanedLimit:]
	}
	c.dirs[lane] = l
}

// cleanedDir is the DEV:INO of the line "zap-cleaned DEV:INO" that ends
// stdout, each a decimal number of at most 20 digits.
func cleanedDir(stdout string) (string, bool) {
	s := strings.TrimSuffix(stdout, "\n")
	s = s[strings.LastIndexByte(s, '\n')+1:]
	id, ok := strings.CutPrefix(s, cleanedTag)
	if !ok {
		return "", false
	}
	dev, ino, ok := strings.Cut(id, ":")
	if !ok || !decimal(dev) || !decimal(ino) {
		return "", false
	}
	return id, true
}

// decimal reports whether s is 1 to 20 decimal digits.
func decimal(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
