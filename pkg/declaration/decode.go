package declaration

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"sync"

	"github.com/zap-go/zap/internal/strict"
	"github.com/zap-go/zap/pkg/canon"
)

// DecodeField decodes a Text strictly, its errors naming path.
func (t *Text) DecodeField(path string, raw json.RawMessage) error {
	if err := t.UnmarshalJSON(raw); err != nil {
		return &canon.PathError{Path: path, Msg: err.Error()}
	}
	return nil
}

func (r *Resource) DecodeField(path string, raw json.RawMessage) error {
	return r.decode(path, raw, false)
}

func (r *Resource) DecodeWellFormed(path string, raw json.RawMessage) error {
	return r.decode(path, raw, true)
}

func (r *Resource) decode(path string, raw json.RawMessage, wellFormed bool) error {
	f := newFields(path, raw, wellFormed)
	f.Req("id", &r.ID)
	if f.Err() == nil && r.ID != "" && path != "" {
		// Name the resource by its id from here on.
		f.Rename(path + " (" + r.ID + ")")
	}
	f.Req("type", &r.Type)
	f.Opt("name", &r.Name)
	f.Opt("depends_on", &r.DependsOn)
	if err := f.Err(); err != nil {
		return err
	}
	if b := r.NewBody(); b != nil {
		strict.Tagged(f, b)
	} else {
		f.Fail("type", fmt.Errorf("unknown resource type %q", r.Type))
	}
	return f.Done()
}

func (t *Target) DecodeField(path string, raw json.RawMessage) error {
	f := strict.NewFields(path, raw)
	f.Opt("local", &t.Local)
	strict.OptNew(f, "host", &t.Host)
	strict.OptNew(f, "user", &t.User)
	f.Opt("port", &t.Port)
	if f.Err() == nil && f.Has("port") && t.Port == 0 {
		f.Fail("port", errors.New("a port is 1 to 65535"))
	}
	f.Opt("identity", &t.Identity)
	f.Opt("home", &t.Home)
	strict.OptNew(f, "bootstrap_user", &t.BootstrapUser)
	f.Opt("package_manager", &t.PackageManager)
	f.Opt("service_manager", &t.ServiceManager)
	return f.Done()
}

// UnmarshalJSON decodes a resource strictly.
func (r *Resource) UnmarshalJSON(data []byte) error { return r.DecodeField("", data) }

// UnmarshalJSON decodes a target strictly.
func (t *Target) UnmarshalJSON(data []byte) error { return t.DecodeField("", data) }

func (d *Declaration) DecodeField(path string, raw json.RawMessage) error {
	return d.decode(path, raw, false)
}

func (d *Declaration) DecodeWellFormed(path string, raw json.RawMessage) error {
	return d.decode(path, raw, true)
}

func (d *Declaration) decode(path string, raw json.RawMessage, wellFormed bool) error {
	f := newFields(path, raw, wellFormed)
	f.Req("format", &d.Format)
	f.Req("target", &d.Target)
	var list []json.RawMessage
	f.Req("resources", &list)
	if f.Err() == nil {
		d.Resources = make([]Resource, len(list))
		f.Record(decodeResources(d.Resources, list, f.Path("resources")))
	}
	f.Opt("mask", &d.Mask)
	f.Opt("unmask", &d.Unmask)
	strict.OptNew(f, "deploy", &d.Deploy)
	return f.Done()
}

// UnmarshalJSON decodes a declaration strictly.
func (d *Declaration) UnmarshalJSON(data []byte) error { return d.DecodeField("", data) }

// newFields is strict.NewFields, or strict.NewFieldsWellFormed when
// wellFormed is set.
func newFields(path string, raw json.RawMessage, wellFormed bool) *strict.Fields {
	if wellFormed {
		return strict.NewFieldsWellFormed(path, raw)
	}
	return strict.NewFields(path, raw)
}

// parallelResources is the number of resources from which a declaration's
// list is decoded by several goroutines.
const parallelResources = 256

// decodeResources decodes list into out, each element at its path
// (at[i]), and returns the error of the first element that doesn't decode,
// as one loop in order would. A long list is cut into one run of elements
// per processor, decoded at once: each run stops at its first error, and
// every run before the first that failed decoded whole, so that error is
// the list's first.
func decodeResources(out []Resource, list []json.RawMessage, at string) error {
	decode := func(lo, hi int) error {
		for i := lo; i < hi; i++ {
			// Each element is well-formed: Fields split the list.
			if err := out[i].decode(at+"["+strconv.Itoa(i)+"]", list[i], true); err != nil {
				return err
			}
		}
		return nil
	}
	n := min(runtime.GOMAXPROCS(0), len(list)/parallelResources)
	if n < 2 {
		return decode(0, len(list))
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for k := range n {
		lo, hi := k*len(list)/n, (k+1)*len(list)/n
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[k] = decode(lo, hi)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
