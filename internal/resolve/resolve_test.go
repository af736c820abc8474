package resolve

import (
	"testing"

	"github.com/zap-go/zap/pkg/declaration"
)

func TestSecretAsksTheRule(t *testing.T) {
	d := &declaration.Declaration{Mask: []string{"GREETING"}, Unmask: []string{"DB_PASS"}}
	for _, c := range []struct {
		name, value string
		want        bool
	}{
		{"GREETING", "hello", true},
		{"DB_PASS", "hunter2", false},
		{"SMTP_PASS", "hunter2", true},
		{"ENABLE_AUTH", "true", false},
		{"DATABASE_URL", "postgres://app:pw@db/app", true},
		{"APP_DIR", "/srv/app", false},
	} {
		if got := Secret(d, c.name, c.value); got != c.want {
			t.Errorf("Secret(%s=%q) = %v, want %v", c.name, c.value, got, c.want)
		}
	}
}
