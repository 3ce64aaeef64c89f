package inventory

import (
	"context"
	"sync"

	"github.com/drasim/drasim/sim/feature"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/dynamic-resource-allocation/cel"
)

// cacheSize bounds the CEL compilation cache of one Matcher. Class
// selectors are compiled once and kept; the cache serves the requests'
// own selectors, which are asked for device after device.
const cacheSize = 64

// Matcher decides which devices DeviceClasses and requests select, as the
// allocator decides it: the allocator's CEL environment with the features
// the run's gates enable, one compilation cache, selectors evaluated in
// order and stopped at the first that is false. A selector that does not
// compile or fails on a device selects nothing; the first error of every
// selector is kept for Errors. A Matcher may be used from several
// goroutines.
type Matcher struct {
	ctx     context.Context
	cache   *cel.Cache
	classes []*resourceapi.DeviceClass
	index   map[string]int
	// compiled holds each class's selectors; broken its compile error.
	compiled []selectors
	broken   []*CELError

	mu   sync.Mutex
	errs []*CELError
	seen map[errorKey]bool
}

type errorKey struct {
	class, request string
	selector       int
	expression     string
	compile        bool
}

// NewMatcher compiles the classes' selectors with the CEL features of the
// gates (nil gates: the defaults). Compile errors are Errors in class order.
func NewMatcher(ctx context.Context, gates feature.Gates, classes []*resourceapi.DeviceClass) *Matcher {
	if gates == nil {
		gates = feature.Defaults()
	}
	m := &Matcher{
		ctx:      ctx,
		cache:    cel.NewCache(cacheSize, gates.CELFeatures()),
		index:    make(map[string]int, len(classes)),
		compiled: make([]selectors, 0, len(classes)),
		broken:   make([]*CELError, 0, len(classes)),
		seen:     map[errorKey]bool{},
	}
	for _, c := range classes {
		if c == nil {
			continue
		}
		if _, dup := m.index[c.Name]; dup {
			continue // the API server keeps one object per name; the first wins
		}
		m.index[c.Name] = len(m.classes)
		m.classes = append(m.classes, c)
		sels, err := m.compile(c.Spec.Selectors)
		if err != nil {
			err.Class = c.Name
			m.record(err)
		}
		m.compiled = append(m.compiled, sels)
		m.broken = append(m.broken, err)
	}
	return m
}

// Classes are the matcher's DeviceClasses in the order given.
func (m *Matcher) Classes() []*resourceapi.DeviceClass { return m.classes }

// Class returns the DeviceClass by name, nil when there is none.
func (m *Matcher) Class(name string) *resourceapi.DeviceClass {
	if i, ok := m.index[name]; ok {
		return m.classes[i]
	}
	return nil
}

// ClassError is the class's compile error, nil when its selectors compile
// (or there is no such class).
func (m *Matcher) ClassError(name string) *CELError {
	if i, ok := m.index[name]; ok {
		return m.broken[i]
	}
	return nil
}

// ClassSelects reports whether the class selects the device. An unknown
// class selects nothing; a selector that does not compile or fails
// selects nothing and is returned as a *CELError.
func (m *Matcher) ClassSelects(class string, d Device) (bool, error) {
	i, ok := m.index[class]
	if !ok {
		return false, nil
	}
	if err := m.broken[i]; err != nil {
		return false, err
	}
	ok, err := m.compiled[i].match(m.ctx, d)
	if err != nil {
		err.Class = class
		m.record(err)
		return false, err
	}
	return ok, nil
}

// ClassesOf lists the names of the classes that select the device, in
// class order.
func (m *Matcher) ClassesOf(d Device) []string {
	var out []string
	for _, c := range m.classes {
		if ok, _ := m.ClassSelects(c.Name, d); ok {
			out = append(out, c.Name)
		}
	}
	return out
}

// Selects reports whether a request selects the device: its class does
// and its own selectors do. request names the request in errors.
func (m *Matcher) Selects(class, request string, sels []resourceapi.DeviceSelector, d Device) bool {
	if ok, _ := m.ClassSelects(class, d); !ok {
		return false
	}
	return m.RequestSelects(request, sels, d)
}

// RequestSelects reports whether a request's own selectors select the
// device (its class is the caller's to check).
func (m *Matcher) RequestSelects(request string, sels []resourceapi.DeviceSelector, d Device) bool {
	if len(sels) == 0 {
		return true
	}
	compiled, err := m.compile(sels)
	if err == nil {
		var ok bool
		if ok, err = compiled.match(m.ctx, d); err == nil {
			return ok
		}
	}
	err.Request = request
	m.record(err)
	return false
}

// Errors are the first error of every failing selector, compile errors of
// the classes first (in class order), then the others in the order they
// were met.
func (m *Matcher) Errors() []*CELError {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]*CELError(nil), m.errs...)
}

func (m *Matcher) record(err *CELError) {
	k := errorKey{err.Class, err.Request, err.Selector, err.Expression, err.Compile()}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.seen[k] {
		m.seen[k] = true
		m.errs = append(m.errs, err)
	}
}

// Selectors are compiled CEL device selectors, for callers that need
// each device's error rather than the first error of each selector
// (validate counts the devices a selector fails on).
type Selectors struct{ s selectors }

// Compile compiles CEL selectors in the matcher's environment and cache;
// the first that does not compile is the error (without its subject).
func (m *Matcher) Compile(sels []resourceapi.DeviceSelector) (Selectors, *CELError) {
	s, err := m.compile(sels)
	return Selectors{s}, err
}

// Match evaluates the selectors on a device as the allocator does: in
// order, stopping at the first that is false or fails. A failure is the
// *CELError naming the selector and the device; nothing is recorded.
func (s Selectors) Match(ctx context.Context, d Device) (bool, *CELError) {
	return s.s.match(ctx, d)
}

// selectors are compiled CEL device selectors.
type selectors struct {
	exprs []cel.CompilationResult
	index []int // each expression's index among the selectors
}

// compile compiles the CEL selectors; the first that does not compile is
// the error (without its subject).
func (m *Matcher) compile(sels []resourceapi.DeviceSelector) (selectors, *CELError) {
	var out selectors
	for i, sel := range sels {
		if sel.CEL == nil {
			continue // no other selector type exists; validation rejects an empty one
		}
		r := m.cache.GetOrCompile(sel.CEL.Expression)
		if r.Error != nil {
			return selectors{}, &CELError{Selector: i, Expression: sel.CEL.Expression, Err: r.Error}
		}
		out.exprs = append(out.exprs, r)
		out.index = append(out.index, i)
	}
	return out, nil
}

// match evaluates the selectors on a device in order, stopping at the
// first that is false, as the allocator does.
func (s selectors) match(ctx context.Context, d Device) (bool, *CELError) {
	if len(s.exprs) == 0 {
		return true, nil
	}
	in := cel.Device{Driver: d.ID.Driver, AllowMultipleAllocations: d.Device.AllowMultipleAllocations, Attributes: d.Device.Attributes, Capacity: d.Device.Capacity}
	for i, e := range s.exprs {
		ok, _, err := e.DeviceMatches(ctx, in)
		if err != nil {
			return false, &CELError{Selector: s.index[i], Expression: e.Expression, Device: d.ID, Err: cel.EnhanceRuntimeError(err)}
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}
