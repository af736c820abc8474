package ops_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestPutContentArrivesWhole puts contents that test the way they travel
// under dash, bash and BusyBox: text (no NUL) quoted on the line ahead of
// the script and written by printf, the shell's own, and content with a NUL
// as base64 in the here-document; every byte arrives, none added, and a
// zap_text in the shell's environment is never taken for the content.
func TestPutContentArrivesWhole(t *testing.T) {
	var every []byte
	for b := 1; b < 256; b++ {
		every = append(every, byte(b))
	}
	contents := map[string]string{
		"empty":          "",
		"no newline":     "last line",
		"newlines":       "a\n\n\n",
		"shell syntax":   "it's \"quoted\" $HOME `id` $(id) \\n %s %d %%\n'\n''\n",
		"terminator":     "__zap_content_end__\n__zap_content_end__",
		"every byte":     string(every),
		"a NUL":          "a\x00b\n",
		"NULs and bytes": string(every) + "\x00" + string(every),
	}
	shells := opShells(t, "put", os.Getenv("PATH"), userBusyboxTools)
	if len(shells) == 0 {
		t.Skip("no dash, bash or busybox here")
	}
	for _, sh := range shells {
		for name, content := range contents {
			t.Run(sh.name+"/"+name, func(t *testing.T) {
				at := filepath.Join(t.TempDir(), "f")
				cmd := putCmd(sh, os.Getenv("PATH"), at, content)
				cmd.Env = append(cmd.Env, "zap_text=from the environment")
				runToEnd(t, "the put", cmd)
				got, err := os.ReadFile(at)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, []byte(content)) {
					t.Fatalf("the file holds %q, want %q", got, content)
				}
			})
		}
	}
}
