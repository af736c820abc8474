package scripttest

import (
	"crypto/subtle"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdHTTPServe is `httpserve start DIR [TOKEN]`: a plain-http server on
// 127.0.0.1 (loopback http is what Zap's own fetches accept) serving the
// files under DIR for the script's life, and sets HTTP_URL
// (http://127.0.0.1:PORT). Three paths do more than serve a file:
//
//	/private/NAME      DIR/NAME, only with "Authorization: Bearer TOKEN"
//	                   (401 without it; TOKEN given at start)
//	/redirect-off/NAME a 302 to http://192.0.2.1/NAME, plain http off
//	                   loopback (TEST-NET-1: nothing answers there)
//	/redirect/NAME     a 302 to /NAME on this server
//
// Every request's method and path, and whether it carried an Authorization
// header (never its value), are appended to $WORK/httpserve.log.
func cmdHTTPServe(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 || args[0] != "start" {
		ts.Fatalf("usage: httpserve start DIR [TOKEN]")
	}
	dir, token := ts.MkAbs(args[1]), ""
	if len(args) == 3 {
		token = args[2]
	}
	logPath := filepath.Join(ts.Getenv("WORK"), "httpserve.log")
	var mu sync.Mutex
	files := http.FileServer(http.Dir(dir))
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := "no-auth"
		if r.Header.Get("Authorization") != "" {
			auth = "auth"
		}
		mu.Lock()
		if f, err := os.OpenFile(logPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			f.WriteString(r.Method + " " + r.URL.Path + " " + auth + "\n")
			f.Close()
		}
		mu.Unlock()
		switch p := r.URL.Path; {
		case strings.HasPrefix(p, "/private/"):
			want := "Bearer " + token
			if token == "" || subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), []byte(want)) != 1 {
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			r.URL.Path = strings.TrimPrefix(p, "/private")
		case strings.HasPrefix(p, "/redirect-off/"):
			http.Redirect(w, r, "http://192.0.2.1/"+strings.TrimPrefix(p, "/redirect-off/"), http.StatusFound)
			return
		case strings.HasPrefix(p, "/redirect/"):
			http.Redirect(w, r, "/"+strings.TrimPrefix(p, "/redirect/"), http.StatusFound)
			return
		}
		files.ServeHTTP(w, r)
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(l)
	ts.Defer(func() { srv.Close() })
	ts.Setenv("HTTP_URL", "http://"+l.Addr().String())
}
