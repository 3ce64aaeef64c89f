package inventory

import "fmt"

// CELError is a device selector that does not compile, or that fails on a
// device. The allocator fails every claim whose class or request meets
// such a selector, so the device counts as not selected; the error is
// reported, never dropped.
type CELError struct {
	// Class is the DeviceClass whose selector failed; "" for a request's
	// own selectors.
	Class string
	// Request names the request whose own selector failed; "" for a
	// class's selector.
	Request string
	// Selector is the selector's index in spec.selectors (of the class or
	// the request).
	Selector   int
	Expression string
	// Device is the device the selector failed on; the zero DeviceID when
	// the selector does not compile.
	Device DeviceID
	Err    error
}

// Compile reports whether the selector does not compile (rather than
// failing on a device).
func (e *CELError) Compile() bool { return e.Device == DeviceID{} }

// Subject names what the selector belongs to: "DeviceClass NAME" or
// "request NAME".
func (e *CELError) Subject() string {
	if e.Class != "" {
		return "DeviceClass " + e.Class
	}
	return "request " + e.Request
}

// Detail is the error without its subject: the selector and what went
// wrong, for places that already name the class.
func (e *CELError) Detail() string {
	if e.Compile() {
		return fmt.Sprintf("selector #%d: CEL compile error: %v", e.Selector, e.Err)
	}
	return fmt.Sprintf("selector #%d on device %s: CEL runtime error: %v", e.Selector, e.Device, e.Err)
}

func (e *CELError) Error() string { return e.Subject() + ": " + e.Detail() }

func (e *CELError) Unwrap() error { return e.Err }
