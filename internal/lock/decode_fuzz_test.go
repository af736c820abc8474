package lock

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// FuzzLockDecodeRoundTrip decodes any bytes as a lock: a refusal is one of
// the lock's errors (ErrInvalid, ErrNewer), and a lock Decode accepts
// encodes to bytes Decode accepts again, the same lock (at this zap's
// format, entries by id), which encode to exactly the same bytes.
func FuzzLockDecodeRoundTrip(f *testing.F) {
	pin := strings.Repeat("a", 64)
	full := &Lock{Format: Format, Toolchain: &Toolchain{Blake3: pin}, Entries: []Entry{
		{ID: "zig", Kind: "remote_file", Blake3: pin, ConfigHash: strings.Repeat("b", 64)},
		{ID: "key", Kind: "apt_key", Blake3: strings.Repeat("c", 64), ConfigHash: pin},
	}}
	b, err := full.Encode()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"format":"zap.lock/1","entries":[]}`))
	f.Add([]byte(`{"format":"zap.lock/3","entries":[]}`))
	f.Add([]byte(`{"format":"zap.lock/2","entries":[],"toolchain":{"blake3":"` + pin + `"}}`))
	f.Add([]byte(`{"format":"zap.lock/2","entries":[{"id":"a","kind":"build","blake3":"` + pin + `","config_hash":"` + pin + `"},{"id":"a","kind":"build","blake3":"` + pin + `","config_hash":"` + pin + `"}]}`))
	f.Add([]byte(`{"entries":[],"format":"zap.lock/2"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := Decode(data)
		if err != nil {
			if !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrNewer) {
				t.Fatalf("Decode refused %q with %v, neither ErrInvalid nor ErrNewer", data, err)
			}
			return
		}
		once, err := l.Encode()
		if err != nil {
			t.Fatalf("a lock Decode accepted doesn't encode: %v", err)
		}
		again, err := Decode(once)
		if err != nil {
			t.Fatalf("Decode refuses what Encode wrote: %v\n%s", err, once)
		}
		want := *l
		want.Format = Format
		want.Entries = append([]Entry{}, l.Entries...)
		if len(want.Entries) == 0 {
			want.Entries = []Entry{}
		}
		slices.SortFunc(want.Entries, func(a, b Entry) int { return strings.Compare(a.ID, b.ID) })
		if !reflect.DeepEqual(&want, again) {
			t.Fatalf("the lock came back as %+v, want %+v", again, &want)
		}
		twice, err := again.Encode()
		if err != nil || !bytes.Equal(once, twice) {
			t.Fatalf("Encode is not stable (%v):\n%s\n%s", err, once, twice)
		}
	})
}
