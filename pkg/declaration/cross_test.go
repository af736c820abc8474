package declaration

import (
	"reflect"
	"testing"
)

// TestCrossKind: what other stages read of a resource across kinds comes
// from its body, and is nothing for a kind that has none of it.
func TestCrossKind(t *testing.T) {
	auth := Lit("token")
	file := &Resource{Common: Common{ID: "f", Type: KindFile}, Body: &File{Path: Lit("/a"), Triggers: []string{"s"},
		Content: Content{Type: ContentRemote, URL: ptr(Lit("https://x/a")), Auth: &auth}}}
	svc := &Resource{Common: Common{ID: "s", Type: KindService}, Body: &Service{Service: "nginx", RestartOn: []string{"f"}, ReloadOn: []string{"g"}}}
	pkg := &Resource{Common: Common{ID: "p", Type: KindPackage}, Body: &Package{From: map[string]string{"apt": "curl"}}}
	if got, want := file.TriggerEdges(), []TriggerEdge{{"f", "s", FieldTriggers}}; !reflect.DeepEqual(got, want) {
		t.Errorf("file edges %v, want %v", got, want)
	}
	if got, want := svc.TriggerEdges(), []TriggerEdge{{"f", "s", FieldRestartOn}, {"g", "s", FieldReloadOn}}; !reflect.DeepEqual(got, want) {
		t.Errorf("service edges %v, want %v", got, want)
	}
	if name, ok := svc.ServiceName(); name != "nginx" || !ok {
		t.Errorf("service name %q %v", name, ok)
	}
	if from, ok := pkg.PackageNames(); from["apt"] != "curl" || !ok {
		t.Errorf("package names %v %v", from, ok)
	}
	for _, r := range []*Resource{pkg, svc} {
		if _, ok := r.ServiceName(); ok != (r == svc) {
			t.Errorf("%s: ServiceName says %v", r.ID, ok)
		}
		if (r == pkg) != (r.TriggerEdges() == nil) || r.Template() != nil || r.Assertions() != nil || r.WithoutCredential() != r {
			t.Errorf("%s: reads as what it isn't", r.ID)
		}
		if _, _, ok := r.BuildCommand(); ok {
			t.Errorf("%s: reads as a build", r.ID)
		}
	}
	if f, ok := file.Fetched(); !ok || f.Dest.String() != "/a" {
		t.Errorf("fetched %+v", f)
	}
	bare := file.WithoutCredential()
	if bare == file || BodyOf[*File](bare).Content.Auth != nil || BodyOf[*File](file).Content.Auth == nil {
		t.Error("WithoutCredential cleared nothing, or the original's")
	}
}
