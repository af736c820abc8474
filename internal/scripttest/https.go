package scripttest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/zap-go/zap/internal/lab"
)

// cmdHTTPS is `https start DIR [lab]`: an HTTPS server serving the files
// under DIR (a missing one is a 404, an empty one an empty 200) for the
// script's life, on 127.0.0.1, or with lab on the lab bridge's address
// (where a lab host reaches the machine; start the lab host first), with
// /redirect/NAME a redirect to /NAME there and /redirect-off/NAME one to
// plain http off loopback (redirecting). Its
// certificate is a fresh self-signed one for that address, written to
// $WORK/https-ca.pem and named by HTTPS_CA, for a client told to trust it
// (curl's CURL_CA_BUNDLE, or a lab host's own trust store); nothing of the
// machine's own trust changes. It sets HTTPS_URL (https://ADDR:PORT) and
// HTTPS_REFUSED (an https URL on a port of 127.0.0.1 held, unlistened, to
// the script's end, so nothing listens there).
func cmdHTTPS(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 || len(args) > 3 || args[0] != "start" || (len(args) == 3 && args[2] != "lab") {
		ts.Fatalf("usage: https start DIR [lab]")
	}
	addr := "127.0.0.1"
	if len(args) == 3 {
		addr = lab.BridgeAddr
	}
	certPEM, cert, err := selfSigned(net.ParseIP(addr))
	ts.Check(err)
	l, err := net.Listen("tcp", net.JoinHostPort(addr, "0"))
	ts.Check(err)
	srv := &http.Server{Handler: redirecting(http.FileServer(http.Dir(ts.MkAbs(args[1])))), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(tls.NewListener(l, &tls.Config{Certificates: []tls.Certificate{cert}}))
	ts.Defer(func() { srv.Close() })
	ca := filepath.Join(ts.Getenv("WORK"), "https-ca.pem")
	ts.Check(os.WriteFile(ca, certPEM, 0o644))
	port, release, err := refusingPort()
	ts.Check(err)
	ts.Defer(release)
	refused := fmt.Sprintf("https://127.0.0.1:%d/", port)
	ts.Setenv("HTTPS_URL", "https://"+l.Addr().String())
	ts.Setenv("HTTPS_CA", ca)
	ts.Setenv("HTTPS_REFUSED", refused)
}

// redirecting serves /redirect/NAME as a 302 to /NAME on the same server
// (https, followed) and /redirect-off/NAME as a 302 to plain http off
// loopback (refused), and everything else from files.
func redirecting(files http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; {
		case strings.HasPrefix(p, "/redirect/"):
			http.Redirect(w, r, "/"+strings.TrimPrefix(p, "/redirect/"), http.StatusFound)
		case strings.HasPrefix(p, "/redirect-off/"):
			http.Redirect(w, r, "http://192.0.2.1/"+strings.TrimPrefix(p, "/redirect-off/"), http.StatusFound)
		default:
			files.ServeHTTP(w, r)
		}
	})
}

// selfSigned makes a CA certificate for ip and 127.0.0.1, valid for a day,
// and its key: the certificate as PEM and as a tls.Certificate.
func selfSigned(ip net.IP) ([]byte, tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "zap test server"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:           []net.IP{ip, net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// refusingPort binds a port of 127.0.0.1 without listening on it, and
// holds it until release: a connection there is refused, and no other
// process can listen there meanwhile, as it could on a port that was
// merely free a moment before.
func refusingPort() (port int, release func(), err error) {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, nil, err
	}
	sa, err := func() (syscall.Sockaddr, error) {
		if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
			return nil, err
		}
		return syscall.Getsockname(fd)
	}()
	if err != nil {
		syscall.Close(fd)
		return 0, nil, fmt.Errorf("bind a port of 127.0.0.1: %w", err)
	}
	return sa.(*syscall.SockaddrInet4).Port, func() { syscall.Close(fd) }, nil
}
