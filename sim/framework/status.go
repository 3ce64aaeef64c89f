package framework

import (
	"errors"
	"strings"
)

// Code is the outcome of one plugin call.
type Code int

// The codes follow kube-scheduler's: Unschedulable may be helped by
// preemption or cluster changes, UnschedulableAndUnresolvable cannot be helped
// on that node, Error means broken input or a bug, Skip tells the framework a
// plugin has nothing to do for this pod.
const (
	Success Code = iota
	Error
	Unschedulable
	UnschedulableAndUnresolvable
	Wait
	Skip
	Pending
)

var codeNames = []string{"Success", "Error", "Unschedulable", "UnschedulableAndUnresolvable", "Wait", "Skip", "Pending"}

func (c Code) String() string {
	if int(c) < len(codeNames) {
		return codeNames[c]
	}
	return "Unknown"
}

// Status is the result of a plugin call. A nil *Status means Success.
type Status struct {
	code    Code
	reasons []string
	err     error
	plugin  string
}

// NewStatus makes a status with the given code and reasons.
func NewStatus(code Code, reasons ...string) *Status {
	return &Status{code: code, reasons: reasons}
}

// AsStatus wraps an error as an Error status.
func AsStatus(err error) *Status {
	if err == nil {
		return nil
	}
	return &Status{code: Error, reasons: []string{err.Error()}, err: err}
}

// Code returns the code; a nil status is Success.
func (s *Status) Code() Code {
	if s == nil {
		return Success
	}
	return s.code
}

// Reasons returns the human-readable reasons.
func (s *Status) Reasons() []string {
	if s == nil {
		return nil
	}
	if s.err != nil && len(s.reasons) == 0 {
		return []string{s.err.Error()}
	}
	return s.reasons
}

// Message joins the reasons with ", ", as kube does.
func (s *Status) Message() string {
	return strings.Join(s.Reasons(), ", ")
}

// Err returns the error of an Error status.
func (s *Status) Err() error {
	if s == nil || s.code != Error {
		return nil
	}
	if s.err != nil {
		return s.err
	}
	return errors.New(s.Message())
}

// Plugin names the plugin that produced the status (set by the framework).
func (s *Status) Plugin() string {
	if s == nil {
		return ""
	}
	return s.plugin
}

// WithPlugin records which plugin produced the status and returns it.
//
// A status already naming the plugin is not written to: a plugin may hand
// one status to many nodes (DynamicResources does, for a cached answer),
// filtered concurrently.
func (s *Status) WithPlugin(name string) *Status {
	if s != nil && s.plugin != name {
		s.plugin = name
	}
	return s
}

// IsSuccess reports a nil or Success status.
func (s *Status) IsSuccess() bool { return s.Code() == Success }

// IsSkip reports a Skip status.
func (s *Status) IsSkip() bool { return s.Code() == Skip }

// IsRejected reports Unschedulable, UnschedulableAndUnresolvable or Pending.
func (s *Status) IsRejected() bool {
	c := s.Code()
	return c == Unschedulable || c == UnschedulableAndUnresolvable || c == Pending
}
