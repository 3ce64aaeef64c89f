package dra

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/drasim/drasim/sim/generate"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// specVariants returns values of type t that each set one field, at any
// depth, to a value other than its zero (a pointer also to its element's
// zero, a list also to one zero element), and the path of that field. A
// field a later API version adds is found the same way, so the test below
// covers it without being told.
func specVariants(t reflect.Type, path string) (vals []reflect.Value, paths []string) {
	add := func(v reflect.Value, p string) {
		vals = append(vals, v)
		paths = append(paths, p)
	}
	switch t {
	case reflect.TypeFor[resource.Quantity]():
		add(reflect.ValueOf(resource.MustParse("3Gi")), path)
		return
	case reflect.TypeFor[runtime.RawExtension]():
		add(reflect.ValueOf(runtime.RawExtension{Raw: []byte(`{"a":1}`)}), path)
		return
	}
	switch t.Kind() {
	case reflect.String:
		v := reflect.New(t).Elem()
		v.SetString("x")
		add(v, path)
	case reflect.Int, reflect.Int32, reflect.Int64:
		v := reflect.New(t).Elem()
		v.SetInt(2)
		add(v, path)
	case reflect.Bool:
		v := reflect.New(t).Elem()
		v.SetBool(true)
		add(v, path)
	case reflect.Pointer:
		add(reflect.New(t.Elem()), path+"(zero)")
		evs, eps := specVariants(t.Elem(), path)
		for i, ev := range evs {
			p := reflect.New(t.Elem())
			p.Elem().Set(ev)
			add(p, eps[i])
		}
	case reflect.Slice:
		one := reflect.MakeSlice(t, 1, 1)
		add(one, path+"[zero]")
		evs, eps := specVariants(t.Elem(), path+"[0]")
		for i, ev := range evs {
			s := reflect.MakeSlice(t, 1, 1)
			s.Index(0).Set(ev)
			add(s, eps[i])
		}
		if t.Elem().Kind() == reflect.String {
			two := reflect.MakeSlice(t, 2, 2)
			two.Index(0).SetString("x")
			two.Index(1).SetString("y")
			add(two, path+"[x,y]")
		}
	case reflect.Map:
		evs, eps := specVariants(t.Elem(), path+"[k]")
		for i, ev := range evs {
			m := reflect.MakeMap(t)
			k := reflect.New(t.Key()).Elem()
			k.SetString("k")
			m.SetMapIndex(k, ev)
			add(m, eps[i])
		}
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			fvs, fps := specVariants(f.Type, path+"."+f.Name)
			for j, fv := range fvs {
				v := reflect.New(t).Elem()
				v.Field(i).Set(fv)
				add(v, fps[j])
			}
		}
	default:
		panic(fmt.Sprintf("%s: no variant for kind %s", path, t.Kind()))
	}
	return vals, paths
}

// TestClaimsHashSeesEveryField builds, from a request and a constraint
// that set nothing, one spec per field of the API (every field at every
// depth, the ones claimsHash reads itself and the ones it hashes as JSON),
// and holds claimsHash to the JSON encoding it replaced: two specs hash
// alike exactly when their JSON is the same. The generator's claims and
// the namespace are checked too.
func TestClaimsHashSeesEveryField(t *testing.T) {
	type variant struct {
		path  string
		claim *resourceapi.ResourceClaim
	}
	var variants []variant
	// Each variant of a request or a constraint goes into a spec that has
	// it as its only entry, so that lists of requests and constraints are
	// covered field by field; the spec's own variants cover the rest.
	reqs, reqPaths := specVariants(reflect.TypeFor[resourceapi.DeviceRequest](), "request")
	for i, r := range reqs {
		c := &resourceapi.ResourceClaim{}
		c.Spec.Devices.Requests = []resourceapi.DeviceRequest{r.Interface().(resourceapi.DeviceRequest)}
		variants = append(variants, variant{reqPaths[i], c})
	}
	cons, conPaths := specVariants(reflect.TypeFor[resourceapi.DeviceConstraint](), "constraint")
	for i, r := range cons {
		c := &resourceapi.ResourceClaim{}
		c.Spec.Devices.Constraints = []resourceapi.DeviceConstraint{r.Interface().(resourceapi.DeviceConstraint)}
		variants = append(variants, variant{conPaths[i], c})
	}
	specs, specPaths := specVariants(reflect.TypeFor[resourceapi.ResourceClaimSpec](), "spec")
	for i, s := range specs {
		variants = append(variants, variant{specPaths[i], &resourceapi.ResourceClaim{Spec: s.Interface().(resourceapi.ResourceClaimSpec)}})
	}
	variants = append(variants, variant{"empty", &resourceapi.ResourceClaim{}},
		variant{"namespace", &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "x"}}})
	snap, err := generate.Generate(generate.Options{Nodes: 4, Pods: 40})
	if err != nil {
		t.Fatalf("generate.Generate: %v", err)
	}
	for _, tmpl := range snap.ResourceClaimTemplates {
		variants = append(variants, variant{"template " + tmpl.Name, &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: tmpl.Namespace}, Spec: tmpl.Spec.Spec}})
	}
	if len(variants) < 100 {
		t.Fatalf("%d variants: the API walk found too few fields", len(variants))
	}
	jsonOf := func(c *resourceapi.ResourceClaim) string {
		data, err := json.Marshal(c.Spec)
		if err != nil {
			t.Fatalf("json.Marshal: %v", err)
		}
		return c.Namespace + "\x00" + string(data)
	}
	byHash := map[uint64]variant{}
	byJSON := map[string]variant{}
	for _, v := range variants {
		h, j := claimsHash([]*resourceapi.ResourceClaim{v.claim}), jsonOf(v.claim)
		if o, ok := byHash[h]; ok && jsonOf(o.claim) != j {
			t.Errorf("%s and %s hash alike, but their JSON differs:\n%s\n%s", o.path, v.path, jsonOf(o.claim), j)
		}
		if o, ok := byJSON[j]; ok && claimsHash([]*resourceapi.ResourceClaim{o.claim}) != h {
			t.Errorf("%s and %s have the same JSON but hash differently", o.path, v.path)
		}
		byHash[h], byJSON[j] = v, v
	}
	// An allocated claim is not hashed, as before.
	allocated := &resourceapi.ResourceClaim{Spec: variants[0].claim.Spec, Status: resourceapi.ResourceClaimStatus{Allocation: &resourceapi.AllocationResult{}}}
	if claimsHash([]*resourceapi.ResourceClaim{allocated}) != claimsHash(nil) {
		t.Errorf("an allocated claim changes the hash; want it left out")
	}
}
