package scripttest

import (
	"encoding/pem"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdHTTPS is `https start DIR`: an HTTPS server on 127.0.0.1 serving the
// files under DIR (a missing one is a 404, an empty one an empty 200), for
// the script's life. Its certificate (httptest's, for 127.0.0.1) is written
// to $WORK/https-ca.pem and named by HTTPS_CA, for a client told to trust
// it (curl's CURL_CA_BUNDLE); nothing of the machine's own trust changes.
// It sets HTTPS_URL (https://127.0.0.1:PORT) and HTTPS_REFUSED (an https
// URL on a port of 127.0.0.1 nothing listens on).
func cmdHTTPS(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 || args[0] != "start" {
		ts.Fatalf("usage: https start DIR")
	}
	srv := httptest.NewTLSServer(http.FileServer(http.Dir(ts.MkAbs(args[1]))))
	ts.Defer(srv.Close)
	ca := filepath.Join(ts.Getenv("WORK"), "https-ca.pem")
	ts.Check(os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o644))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	refused := "https://" + l.Addr().String() + "/"
	l.Close()
	ts.Setenv("HTTPS_URL", srv.URL)
	ts.Setenv("HTTPS_CA", ca)
	ts.Setenv("HTTPS_REFUSED", refused)
}
