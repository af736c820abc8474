package declaration

import "strings"

// KeyShown is an authorized_keys entry as a plan line shows it: its words
// as written, but a long one (a key's base64) as "…" and its last eight
// characters, so the key type, options and comment stay readable and the
// key can still be told apart. plan_hash covers the whole key.
func KeyShown(key string) string {
	words := strings.Fields(key)
	for i, w := range words {
		if len(w) > 32 && strings.Trim(w, base64Chars) == "" {
			words[i] = "…" + w[len(w)-8:]
		}
	}
	return strings.Join(words, " ")
}

const base64Chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="

// UserKeysArgs reports whether args are a user-keys operation's arguments
// for a keys list (NAME keys KEY...), for the words a step is shown in.
func UserKeysArgs(args []string) bool {
	return len(args) >= 3 && args[1] == "keys"
}
