// Command labctl builds the lab's images ahead of the tests (make lab runs
// it) and reports on them.
//
//	labctl build    build the systemd and OpenRC images unless cached,
//	                remove those of older recipes, and reset the boot
//	                count the tiers summary prints; on a
//	                machine that can't run lab hosts, say why and exit 0
//	labctl status   the cached images and the hosts booted since build
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/zap-go/zap/internal/lab"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: labctl build|status")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "build":
		var kinds []lab.Kind
		for _, k := range lab.Kinds {
			if err := lab.Available(k); err != nil {
				fmt.Printf("lab: not building the %s image: %v\n", k, err)
				continue
			}
			kinds = append(kinds, k)
		}
		if len(kinds) == 0 {
			return
		}
		start := time.Now()
		if err := lab.Build(os.Stdout, kinds...); err != nil {
			fmt.Fprintf(os.Stderr, "labctl: %v\n", err)
			os.Exit(1)
		}
		if err := lab.Prune(); err != nil {
			fmt.Fprintf(os.Stderr, "labctl: %v\n", err)
			os.Exit(1)
		}
		if err := lab.ResetBoots(); err != nil {
			fmt.Fprintf(os.Stderr, "labctl: %v\n", err)
			os.Exit(1)
		}
		for _, k := range kinds {
			fmt.Printf("lab: %s image ready: %s\n", k, lab.ImageRoot(k))
		}
		fmt.Printf("lab: images ready in %s\n", time.Since(start).Round(time.Second))
	case "status":
		st := lab.ReadStatus()
		fmt.Printf("images: %v\n", st.Images)
		for _, k := range lab.Kinds {
			fmt.Printf("%s hosts booted: %d\n", k, st.Boots[k])
		}
	default:
		fmt.Fprintln(os.Stderr, "usage: labctl build|status")
		os.Exit(2)
	}
}
