package writetest

import (
	"bytes"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/zap-go/zap/internal/execute"
	"github.com/zap-go/zap/pkg/events"
)

// bodyPut is a put of content as a Body, as a remote file's cached bytes
// are sent: over SSH the put script runs as sudo -n sh -c and copies the
// raw bytes as they arrive (put-stream.sh).
func bodyPut(path string, content []byte, mode string) *execute.Put {
	s := sha512.Sum512(content)
	return &execute.Put{Path: path, Body: &execute.Body{From: bytes.NewReader(content), Size: int64(len(content))}, SHA512: hex.EncodeToString(s[:]), Mode: mode}
}

// TestStreamedWritesAttacked: a streamed put keeps the put script's rules:
// a link or a fifo at the path is replaced, never followed or opened; 40
// writes of 512 KiB each, raced by the attacker swapping links to root's
// files in at the path and at every staged .zap. name, install whole or
// fail, and never write through a link; a digest that isn't the bytes'
// installs nothing.
func TestStreamedWritesAttacked(t *testing.T) {
	forEachTarget(t, func(t *testing.T, w *world, tg *target) {
		f, g := filepath.Join(w.att, "f"), filepath.Join(w.att, "g")
		w.as("ln", "-s", w.secret, f)
		w.as("mkfifo", g)
		big := bytes.Repeat([]byte("streamed\n"), 512<<10/9)
		for _, path := range []string{f, g} {
			err := within(t, 30*time.Second, "a streamed write over "+path, func() error { return tg.Put(ctx, bodyPut(path, big, "")) })
			must(t, err)
			wantFile(t, path, big, tg.writers(), 0, 0)
		}
		w.intact()
		bad := bodyPut(f, []byte("other\n"), "0644")
		bad.SHA512 = bodyPut(f, big, "").SHA512
		if err := tg.Put(ctx, bad); err == nil {
			t.Fatal("a streamed write whose bytes aren't its digest's succeeded")
		} else if code, _, _ := execute.Classify(err); code != events.Permanent {
			t.Fatalf("a streamed write whose bytes aren't its digest's: %v, want permanent", err)
		}
		wantFile(t, f, big, tg.writers(), 0, 0)

		stop := startSwapper(t, w, f)
		defer stop()
		ok, failed := 0, map[events.Code]int{}
		for i := range 40 {
			content := append([]byte(fmt.Sprintf("write %d\n", i)), big...)
			p := bodyPut(f, content, "0644")
			if i%2 == 1 {
				p.Owner, p.Group, p.Mode = "root", "root", "0640"
			}
			if err := tg.Put(ctx, p); err != nil {
				code, _, _ := execute.Classify(err)
				failed[code]++
				continue
			}
			ok++
		}
		stop()
		t.Logf("40 streamed writes raced: %d installed, failed %v", ok, failed)
		w.intact()
	})
}
