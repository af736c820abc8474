package asroot

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
)

// snapshotOut is what the put script prints for s (lib/put.sh's
// zap_snapshot): stat's %a %u %g, then the bytes.
func snapshotOut(s *Snapshot) []byte {
	if !s.Exists {
		return []byte("zap-snapshot none\n")
	}
	return append([]byte(fmt.Sprintf("zap-snapshot %o %d %d\n", s.Mode, s.UID, s.GID)), s.Data...)
}

// FuzzParseSnapshotRoundTrip parses any output of the put script's
// snapshot without a panic: what it takes has a mode of at most 07777,
// owner and group ids that are ones (not negative), and the old bytes no
// larger than the limit, and reads back the same from the line the script
// would print for it; a snapshot the script prints parses to itself.
func FuzzParseSnapshotRoundTrip(f *testing.F) {
	f.Add([]byte("zap-snapshot none\n"), uint16(0o644), uint32(0), uint32(0), []byte(nil))
	f.Add([]byte("zap-snapshot 644 1000 1000\nline one\nline two\n"), uint16(0o4755), uint32(1000), uint32(100), []byte("#!/bin/sh\n"))
	f.Add([]byte("zap-snapshot 600 0 0\n"), uint16(0o600), uint32(65534), uint32(4294967294), []byte("\x00\xff\n"))
	f.Add([]byte("zap-snapshot none\nstray"), uint16(0), uint32(0), uint32(0), []byte("zap-snapshot none\n"))
	f.Add([]byte("zap-snapshot 644 -1 -1\nx"), uint16(0o7777), uint32(1), uint32(2), []byte(""))
	f.Add([]byte("zap-snapshot 17777 0 0\n"), uint16(0o1777), uint32(0), uint32(0), []byte("\n\n"))
	f.Fuzz(func(t *testing.T, out []byte, mode uint16, uid, gid uint32, data []byte) {
		if s, err := ParseSnapshot(out); err == nil {
			if s.Mode > 0o7777 || s.UID < 0 || s.GID < 0 || len(s.Data) > SnapshotLimit || !s.Exists && (s.Data != nil || s.Mode != 0) {
				t.Fatalf("ParseSnapshot took %q as %+v", out, s)
			}
			again, err := ParseSnapshot(snapshotOut(s))
			if err != nil || !reflect.DeepEqual(again, s) {
				t.Fatalf("%+v came back as %+v (%v)", s, again, err)
			}
		}
		if data == nil {
			data = []byte{}
		}
		s := &Snapshot{Exists: true, Data: data, Mode: uint32(mode) & 0o7777, UID: int(uid), GID: int(gid)}
		got, err := ParseSnapshot(snapshotOut(s))
		if err != nil || !reflect.DeepEqual(got, s) {
			t.Fatalf("the script's %q parses as %+v (%v), want %+v", snapshotOut(s), got, err, s)
		}
		if !bytes.Equal(got.Data, data) {
			t.Fatalf("the bytes changed")
		}
	})
}
