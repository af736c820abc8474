package secret

import (
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	const pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n"
	for _, c := range []struct {
		name, value string
		opts        Options
		secret      bool
		reason      string // a prefix of the reason
	}{
		// 1. Where it is used wins over everything, unmask included.
		{"REGISTRY_HOST", "example.com", Options{Auth: true}, true, ReasonAuth},
		{"DEPLOY_TOKEN", "x", Options{Auth: true, Unmask: true}, true, ReasonAuth},
		// 2. What the config said.
		{"DB_PASS", "hunter2hunter2", Options{Unmask: true}, false, ReasonUnmask},
		{"DATABASE_URL", "postgres://app:pw@db/app", Options{Unmask: true}, false, ReasonUnmask},
		{"GREETING", "hello", Options{Mask: true}, true, ReasonMask},
		{"ENABLE_AUTH", "true", Options{Mask: true}, true, ReasonMask},
		{"X", "y", Options{Mask: true, Unmask: true}, false, ReasonUnmask},
		// 3. The name: env.md's examples.
		{"DB_PASS", "s3cret", Options{}, true, "its name ends in PASS"},
		{"GITHUB_PAT", "ghp_x", Options{}, true, "its name ends in PAT"},
		{"SENTRY_DSN", "https://k@o.ingest/1", Options{}, true, "its name ends in DSN"},
		{"SLACK_WEBHOOK_URL", "https://hooks.slack.com/T/B/x", Options{}, true, "its name ends in WEBHOOK_URL"},
		{"AUTH_HOST", "auth.example.com", Options{}, false, ReasonPlain},
		{"PRIVATE_IP", "10.0.0.1", Options{}, false, ReasonPlain},
		{"SESSION_TIMEOUT", "3600", Options{}, false, ReasonPlain},
		// The secret words.
		{"SMTP_PASSWORD", "v", Options{}, true, "its name ends in PASSWORD"},
		{"LDAP_PASSWD", "v", Options{}, true, "its name ends in PASSWD"},
		{"GPG_PASSPHRASE", "v", Options{}, true, "its name ends in PASSPHRASE"},
		{"DB_PWD", "v", Options{}, true, "its name ends in PWD"},
		{"APP_SECRET", "v", Options{}, true, "its name ends in SECRET"},
		{"NPM_TOKEN", "v", Options{}, true, "its name ends in TOKEN"},
		{"AWS_SECRET_ACCESS_KEY", "v", Options{}, true, "its name ends in KEY"},
		{"STRIPE_APIKEY", "v", Options{}, true, "its name ends in APIKEY"},
		{"GCP_CREDENTIAL", "v", Options{}, true, "its name ends in CREDENTIAL"},
		{"GOOGLE_APPLICATION_CREDENTIALS", "/etc/gcp.json", Options{}, true, "its name ends in CREDENTIAL"},
		{"BASIC_AUTH", "v", Options{}, true, "its name ends in AUTH"},
		{"SSH_PRIVATE", "v", Options{}, true, "its name ends in PRIVATE"},
		{"APP_SESSION", "v", Options{}, true, "its name ends in SESSION"},
		{"LOGIN_COOKIE", "v", Options{}, true, "its name ends in COOKIE"},
		{"DISCORD_WEBHOOK", "v", Options{}, true, "its name ends in WEBHOOK"},
		{"PASSWORD_SALT", "v", Options{}, true, "its name ends in SALT"},
		{"TOKEN", "v", Options{}, true, "its name ends in TOKEN"},
		{"smtp_pass", "v", Options{}, true, "its name ends in PASS"},
		{"Db_Password", "v", Options{}, true, "its name ends in PASSWORD"},
		{"SMTPPASS", "v", Options{}, true, "its name ends in SMTPPASS"},
		{"MYSQL_ROOTPASSWORD", "v", Options{}, true, "its name ends in ROOTPASSWORD"},
		// Trailing numbers, versions and qualifiers are passed over.
		{"SMTP_PASS_2", "v", Options{}, true, "its name ends in PASS"},
		{"DB_PASS2", "v", Options{}, true, "its name ends in PASS"},
		{"DB_PASS_V2", "v", Options{}, true, "its name ends in PASS"},
		{"DB_PASS_PROD", "v", Options{}, true, "its name ends in PASS"},
		{"API_KEY_PRODUCTION", "v", Options{}, true, "its name ends in KEY"},
		{"JWT_SECRET_OLD", "v", Options{}, true, "its name ends in SECRET"},
		{"JWT_SECRET_PREVIOUS_2", "v", Options{}, true, "its name ends in SECRET"},
		{"SIGNING_KEY_V3_STAGING", "v", Options{}, true, "its name ends in KEY"},
		{"TOKEN_QA", "v", Options{}, true, "its name ends in TOKEN"},
		{"KEY_SECONDARY", "v", Options{}, true, "its name ends in KEY"},
		{"AUTH0", "v", Options{}, false, ReasonPlain},
		{"MY_AUTH0", "v", Options{}, false, ReasonPlain},
		{"AUTH0_CLIENT_SECRET", "v", Options{}, true, "its name ends in SECRET"},
		{"PROD", "v", Options{}, false, ReasonPlain},
		{"DB_PROD", "v", Options{}, false, ReasonPlain},
		{"V2", "v", Options{}, false, ReasonPlain},
		{"PASS_PORT", "v", Options{}, false, ReasonPlain},
		// Plurals.
		{"DB_CREDS", "v", Options{}, true, "its name ends in CREDS"},
		{"HASH_SALTS", "v", Options{}, true, "its name ends in SALT"},
		{"API_KEYS", "v", Options{}, true, "its name ends in KEY"},
		{"OLD_TOKENS_2", "v", Options{}, true, "its name ends in TOKEN"},
		{"APP_SECRETS", "v", Options{}, true, "its name ends in SECRET"},
		{"MAX_SESSIONS", "12", Options{}, false, ReasonPlain},
		{"MAX_PASSES", "3", Options{}, false, ReasonPlain},
		{"BYPASSES", "3", Options{}, false, ReasonPlain},
		{"ALLOWED_AUTHS", "v", Options{}, false, ReasonPlain},
		{"COOKIES", "v", Options{}, false, ReasonPlain},
		{"WEBHOOKS", "v", Options{}, false, ReasonPlain},
		{"PRIVATES", "v", Options{}, false, ReasonPlain},
		// The choices env.md leaves open.
		{"PWD", "/home/me", Options{}, false, ReasonPlain},
		{"OLDPWD", "/home/me", Options{}, false, ReasonPlain},
		{"SSH_PUBLIC_KEY", "ssh-ed25519 AAAA", Options{}, false, ReasonPlain},
		{"GIT_HASH", "abc123", Options{}, false, ReasonPlain},
		{"CACHE_BYPASS", "nocache", Options{}, false, ReasonPlain},
		{"WEBHOOK_HOST", "hooks.example.com", Options{}, false, ReasonPlain},
		{"AUTH_URL", "https://auth.example.com", Options{}, false, ReasonPlain},
		// A switch makes a secret-named variable plain.
		{"ENABLE_AUTH", "true", Options{}, false, ReasonSwitch},
		{"USE_TOKEN", " FALSE ", Options{}, false, ReasonSwitch},
		{"SESSION", "Yes", Options{}, false, ReasonSwitch},
		{"COOKIE", "no", Options{}, false, ReasonSwitch},
		{"AUTH", "On\n", Options{}, false, ReasonSwitch},
		{"PRIVATE", "OFF", Options{}, false, ReasonSwitch},
		{"DB_PASS", "7", Options{}, false, ReasonSwitch},
		{"DB_PASS", "42", Options{}, true, "its name ends in PASS"},
		{"DB_PASS", "truee", Options{}, true, "its name ends in PASS"},
		// 4. The form of the value.
		{"DATABASE_URL", "postgres://app:hunter2@db/app", Options{}, true, "its value holds a URL with a password"},
		{"REDIS", "redis://:hunter2@cache:6379/0", Options{}, true, "its value holds a URL with a password"},
		{"DATABASE_URL", "postgres://app:p#ss@db/app", Options{}, true, "its value holds a URL with a password"},
		{"DATABASE_URL", "postgres://app:p?ss@db/app", Options{}, true, "its value holds a URL with a password"},
		{"DATABASE_URL", "postgres://db:5432?user=x@y", Options{}, false, ReasonPlain},
		{"DATABASE_URL", "postgres://db:5432#x@y", Options{}, false, ReasonPlain},
		{"DATABASE_URL", "postgres://app@db/app", Options{}, false, ReasonPlain},
		{"DATABASE_URL", "postgres://db/app?password=x", Options{}, false, ReasonPlain},
		{"REPO", "ssh://git@github.com/me/repo", Options{}, false, ReasonPlain},
		{"REPO", "https://ghp_abc@github.com/me/repo.git", Options{}, true, "its value holds an HTTP URL with a user"},
		{"REPO", "git+https://tok@git.example.com/x", Options{}, true, "its value holds an HTTP URL with a user"},
		{"MIRROR", "HTTP://me@mirror.example.com/", Options{}, true, "its value holds an HTTP URL with a user"},
		{"ENDPOINT", "https://example.com/a@b", Options{}, false, ReasonPlain},
		{"ENDPOINT", "https://example.com/?next=@me", Options{}, false, ReasonPlain},
		{"CMD", "curl https://u:p@example.com/x", Options{}, true, "its value holds a URL with a password"},
		{"HOOK", "https://hooks.slack.com/services/T0/B0/xyz", Options{}, false, ReasonPlain},
		{"DEPLOY", pem, Options{}, true, "its value holds a PEM private key"},
		{"DEPLOY", "-----BEGIN RSA PRIVATE KEY-----\\nMIIE", Options{}, true, "its value holds a PEM private key"},
		{"CERT", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----", Options{}, false, ReasonPlain},
		{"HDR", "Basic dXNlcjpwYXNz", Options{}, true, "its value holds an HTTP Basic credential"},
		{"HDR", "Authorization: Basic dXNlcjpwYXNz", Options{}, true, "its value holds an HTTP Basic credential"},
		{"HDR", "Basic aGVsbG8=", Options{}, false, ReasonPlain},
		{"HDR", "Bearer abcdefghijklmnop", Options{}, true, "its value holds an HTTP Bearer token"},
		{"HDR", "Bearer abcdefghijklmno", Options{}, false, ReasonPlain},
		{"HDR", "authorization:bearer abcdefghijklmnop", Options{}, true, "its value holds an HTTP Bearer token"},
		{"HDR", "Proxy-Authorization: Bearer abcdefghijklmnop", Options{}, true, "its value holds an HTTP Bearer token"},
		{"HDR", "Accept: x\nAuthorization: Bearer abcdefghijklmnop\n", Options{}, true, "its value holds an HTTP Bearer token"},
		{"HDR", "X-Authorization: Bearer abcdefghijklmnop", Options{}, false, ReasonPlain},
		{"MOTD", "the Bearer of bad news", Options{}, false, ReasonPlain},
		{"GREETING", "hello", Options{}, false, ReasonPlain},
		{"EMPTY", "", Options{}, false, ReasonPlain},
	} {
		secret, reason := Classify(c.name, c.value, c.opts)
		if secret != c.secret || !strings.HasPrefix(reason, c.reason) {
			t.Errorf("Classify(%q, %q, %+v) = %v, %q; want %v, %q", c.name, c.value, c.opts, secret, reason, c.secret, c.reason)
		}
	}
}

func FuzzClassify(f *testing.F) {
	for _, s := range []string{"DB_PASS", "postgres://a:b@c", "postgres://a:p#s@d", "Bearer x", "Basic ===", "-----BEGIN PRIVATE KEY-----", "_", "__V2_", "AUTH0", "://@", "a://:?#@"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, name, value string) {
		secret, reason := Classify(name, value, Options{})
		if reason == "" {
			t.Fatal("no reason")
		}
		if IsSwitch(value) && secret {
			if _, ok := Name(name); ok {
				t.Fatalf("%q=%q: a secret name holding a switch is a secret", name, value)
			}
		}
	})
}

func TestAuthRefs(t *testing.T) {
	doc := `{"resources":[
		{"id":"a","type":"file","content":{"type":"remote","url":{"$env":"URL"},"auth":{"$text":["Bearer ",{"$env":"TOK"}]}}},
		{"id":"b","type":"build","source":{"type":"remote","auth":{"$env":"SRC"}}},
		{"id":"c","type":"database","auth":{"hosts":[{"$env":"HOSTS"}]}}]}`
	got := AuthRefs([]byte(doc))
	if len(got) != 2 || !got["TOK"] || !got["SRC"] {
		t.Errorf("AuthRefs = %v, want TOK and SRC", got)
	}
	if AuthRefs([]byte("{")) != nil {
		t.Error("a document that doesn't decode names a credential")
	}
}
