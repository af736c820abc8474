package evaluate

import (
	"context"
	"strconv"
	"testing"

	"github.com/dop251/goja"
)

// manyFiles declares n files the way a large converged config does: each
// zap.file call takes an id, a path, inline content, a mode and depends_on.
func manyFiles(n int) Script {
	return Script{Name: "many.js", Code: `var __zap_config = { default: function (zap) {
	zap.target({local: true});
	zap.directory({id: 'root', path: '~/many', mode: '755'});
	for (let i = 0; i < ` + strconv.Itoa(n) + `; i++) {
		zap.file({
			id: 'file-' + i,
			path: '~/many/file-' + i + '.conf',
			content: {type: 'inline', content: '# file ' + i + '\nname = "file-' + i + '"\nport = ' + (8000 + i) + '\n'},
			mode: '644',
			depends_on: ['root'],
		});
	}
} };
`}
}

// BenchmarkRunManyFiles evaluates a config declaring 2,000 files.
func BenchmarkRunManyFiles(b *testing.B) {
	s := manyFiles(2000)
	b.ReportAllocs()
	for b.Loop() {
		d, err := Run(context.Background(), s, Options{Export: "__zap_config"})
		if err != nil {
			b.Fatal(err)
		}
		if len(d.Resources) != 2001 {
			b.Fatalf("%d resources", len(d.Resources))
		}
	}
}

// BenchmarkConvertManyFiles converts the arguments of 2,000 zap.file calls,
// reading each property from goja's slots and, for comparison, through its
// descriptor.
func BenchmarkConvertManyFiles(b *testing.B) {
	for _, way := range []struct {
		name        string
		descriptors bool
	}{{"slots", false}, {"descriptors", true}} {
		b.Run(way.name, func(b *testing.B) {
			descriptorsOnly = way.descriptors
			defer func() { descriptorsOnly = false }()
			rt := goja.New()
			in, err := captureIntrinsics(rt)
			if err != nil {
				b.Fatal(err)
			}
			if (in.slots == nil) != way.descriptors {
				b.Fatalf("slots = %v", in.slots)
			}
			v, err := rt.RunString(`const args = [];
			for (let i = 0; i < 2000; i++) {
				args.push({
					id: 'file-' + i,
					path: '~/many/file-' + i + '.conf',
					content: {type: 'inline', content: '# file ' + i + '\nname = "file-' + i + '"\nport = ' + (8000 + i) + '\n'},
					mode: '644',
					depends_on: ['root'],
				});
			}
			args`)
			if err != nil {
				b.Fatal(err)
			}
			var args []goja.Value
			if err := rt.ExportTo(v, &args); err != nil {
				b.Fatal(err)
			}
			c := &converter{rt: rt, in: in}
			b.ReportAllocs()
			for b.Loop() {
				for _, a := range args {
					if _, err := c.convert(a, ""); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
