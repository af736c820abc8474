// Command delayproxy stands a network's round trip between make bench's
// SSH client and its loopback sshd (testdata/bench/ssh.sh's "far" write
// rows), where this machine has no netem: it listens on a free port of
// 127.0.0.1, prints the port on stdout, and forwards each connection to
// 127.0.0.1:PORT, holding every chunk it reads for half of RTT before it
// writes it on, in each direction, so a request and its answer take RTT
// more than they would. Bytes keep their order; nothing bounds the rate.
//
// Usage: delayproxy PORT RTT_MS
package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "delayproxy:", err)
		os.Exit(2)
	}
}

func run(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: delayproxy PORT RTT_MS")
	}
	port, err := strconv.Atoi(args[0])
	if err != nil || port < 1 || port > 65535 {
		return fmt.Errorf("the port %q is not a number from 1 to 65535", args[0])
	}
	rtt, err := strconv.Atoi(args[1])
	if err != nil || rtt < 0 || rtt > 10_000 {
		return fmt.Errorf("the round trip %q is not a number of milliseconds from 0 to 10000", args[1])
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Println(l.Addr().(*net.TCPAddr).Port)
	half := time.Duration(rtt) * time.Millisecond / 2
	to := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	for {
		c, err := l.Accept()
		if err != nil {
			return err
		}
		go forward(c, to, half)
	}
}

// forward joins c to a new connection to to, each direction held half.
func forward(c net.Conn, to string, half time.Duration) {
	u, err := net.Dial("tcp", to)
	if err != nil {
		c.Close()
		return
	}
	done := make(chan struct{}, 2)
	go pump(u, c, half, done)
	go pump(c, u, half, done)
	<-done
	<-done
	c.Close()
	u.Close()
}

type chunk struct {
	due  time.Time
	data []byte
}

// pump copies from src to dst, each chunk written half after it was read;
// at src's end it closes dst's writing half once the held chunks are out,
// and a write that fails closes both.
func pump(dst, src net.Conn, half time.Duration, done chan<- struct{}) {
	q := make(chan chunk, 4096)
	go func() {
		defer close(q)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				q <- chunk{time.Now().Add(half), buf[:n]}
			}
			if err != nil {
				return
			}
		}
	}()
	for ch := range q {
		time.Sleep(time.Until(ch.due))
		if _, err := dst.Write(ch.data); err != nil {
			// The other end is gone: so is this connection.
			src.Close()
			dst.Close()
			for range q {
			}
			break
		}
	}
	if t, ok := dst.(*net.TCPConn); ok {
		_ = t.CloseWrite()
	}
	done <- struct{}{}
}
