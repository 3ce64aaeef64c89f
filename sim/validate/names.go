package validate

import (
	"fmt"
	"strings"

	"github.com/drasim/drasim/sim/snapshot"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Limits of the API server (k8s.io/kubernetes pkg/apis/resource, v1.37)
// that k8s.io/api does not export.
const (
	driverNameMaxLength = 63
	poolNameMaxLength   = 253
	// deviceMaxIDLength bounds the identifier part of attribute and
	// capacity names.
	deviceMaxIDLength = resourceapi.DeviceMaxIDLength
	// capacityRequestPolicyDiscreteMaxOptions bounds validValues.
	capacityRequestPolicyDiscreteMaxOptions = 10
)

// nameFormat is a name rule: valid accepts a valid name quickly (every
// object and device of a dump has names to check), check returns the
// reasons a value breaks the rule.
type nameFormat struct {
	what  string
	valid func(string) bool
	check func(string) []string
}

var (
	dnsSubdomain = nameFormat{"DNS subdomain (RFC 1123: lowercase alphanumerics, '-' and '.', at most 253 characters)", isDNSSubdomain, content.IsDNS1123Subdomain}
	dnsLabel     = nameFormat{"DNS label (RFC 1123: lowercase alphanumerics and '-', at most 63 characters)", isDNSLabel, content.IsDNS1123Label}
)

// isDNSLabel and isDNSSubdomain accept exactly what the RFC 1123 regular
// expressions of k8s.io/apimachinery accept (TestDNSNamesAgree), without a
// regular expression.
func isDNSLabel(s string) bool { return len(s) <= 63 && isDNSLabelPart(s) }

func isDNSSubdomain(s string) bool {
	if len(s) > 253 {
		return false
	}
	for part := range strings.SplitSeq(s, ".") {
		if !isDNSLabelPart(part) {
			return false
		}
	}
	return true
}

// isDNSLabelPart: lowercase alphanumerics and '-', not empty, starting and
// ending with an alphanumeric; no length limit.
func isDNSLabelPart(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			continue
		}
		if c != '-' || i == 0 || i == len(s)-1 {
			return false
		}
	}
	return true
}

// isCIdentifier accepts what content.IsCIdentifier accepts: a letter or '_',
// then letters, digits and '_'.
func isCIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return false
	}
	return true
}

// checkName reports an empty value as Required and a malformed one as
// InvalidName; it returns whether the value is valid.
func (v *validator) checkName(t target, field, value string, f nameFormat) bool {
	if f.valid(value) {
		return true
	}
	if value == "" {
		v.errorf(t, field, CodeRequired, "required field is missing")
		return false
	}
	if errs := f.check(value); len(errs) > 0 {
		v.errorf(t, field, CodeInvalidName, "%q is not a valid %s: %s", value, f.what, strings.Join(errs, "; "))
		return false
	}
	return true
}

// checkDriverName applies the rules of a DRA driver name (the same as a CSI
// driver name): a DNS subdomain of at most 63 characters, case-insensitive.
func (v *validator) checkDriverName(t target, field, value string) bool {
	if value == "" {
		v.errorf(t, field, CodeRequired, "required field is missing")
		return false
	}
	ok := true
	if len(value) > driverNameMaxLength {
		v.errorf(t, field, CodeTooLong, "driver name %q is %d characters long, the limit is %d", value, len(value), driverNameMaxLength)
		ok = false
	}
	if errs := content.IsDNS1123Subdomain(strings.ToLower(value)); len(errs) > 0 {
		v.errorf(t, field, CodeInvalidName, "%q is not a valid driver name (a DNS subdomain such as gpu.example.com): %s", value, strings.Join(errs, "; "))
		ok = false
	}
	return ok
}

// checkPoolName applies the rules of a pool name: at most 253 characters,
// one or more DNS subdomains separated by '/'.
func (v *validator) checkPoolName(t target, field, value string) bool {
	if value == "" {
		v.errorf(t, field, CodeRequired, "required field is missing")
		return false
	}
	ok := true
	if len(value) > poolNameMaxLength {
		v.errorf(t, field, CodeTooLong, "pool name is %d characters long, the limit is %d", len(value), poolNameMaxLength)
		ok = false
	}
	for _, part := range strings.Split(value, "/") {
		if errs := content.IsDNS1123Subdomain(part); len(errs) > 0 {
			v.errorf(t, field, CodeInvalidName, "%q is not a valid pool name (DNS subdomains separated by '/'): part %q: %s", value, part, strings.Join(errs, "; "))
			ok = false
			break
		}
	}
	return ok
}

// qualifiedNameErrors returns why name is not a valid attribute or capacity
// name: an optional driver-name domain, a '/', and a C identifier of at most
// 32 characters. Like the API server it accepts more than one '/'.
func qualifiedNameErrors(name string) []string {
	if isQualifiedName(name) {
		return nil
	}
	return qualifiedNameReasons(name)
}

// qualifiedNameReasons is qualifiedNameErrors without the fast path.
func qualifiedNameReasons(name string) []string {
	parts := strings.Split(name, "/")
	var errs []string
	cident := func(id string) {
		if len(id) > deviceMaxIDLength {
			errs = append(errs, fmt.Sprintf("the name part %q is longer than %d characters", id, deviceMaxIDLength))
		}
		for _, msg := range content.IsCIdentifier(id) {
			errs = append(errs, "the name part "+msg)
		}
	}
	switch len(parts) {
	case 1:
		cident(parts[0])
	case 2:
		if parts[0] == "" {
			errs = append(errs, "the domain must not be empty")
		} else {
			if len(parts[0]) > driverNameMaxLength {
				errs = append(errs, fmt.Sprintf("the domain is longer than %d characters", driverNameMaxLength))
			}
			for _, msg := range content.IsDNS1123Subdomain(strings.ToLower(parts[0])) {
				errs = append(errs, "the domain "+msg)
			}
		}
		if parts[1] == "" {
			errs = append(errs, "the name must not be empty")
		} else {
			cident(parts[1])
		}
	}
	return errs
}

// isQualifiedName accepts quickly the common valid names of
// qualifiedNameErrors: "id" and "domain/id".
func isQualifiedName(name string) bool {
	domain, id, found := strings.Cut(name, "/")
	if !found {
		domain, id = "", name
	} else if domain == "" || len(domain) > driverNameMaxLength || strings.Contains(id, "/") || !isDNSSubdomain(strings.ToLower(domain)) {
		return false
	}
	return len(id) <= deviceMaxIDLength && isCIdentifier(id)
}

// checkQualifiedName reports an invalid attribute or capacity name.
func (v *validator) checkQualifiedName(t target, field, name string) bool {
	if errs := qualifiedNameErrors(name); len(errs) > 0 {
		v.errorf(t, field, CodeInvalidName, "%q is not a valid qualified name (an optional domain, '/', and a C identifier such as gpu.example.com/model): %s", name, strings.Join(errs, "; "))
		return false
	}
	return true
}

// checkFullyQualifiedName is checkQualifiedName that also requires the domain,
// as matchAttribute and distinctAttribute do.
func (v *validator) checkFullyQualifiedName(t target, field, name string) {
	if name == "" {
		v.errorf(t, field, CodeRequired, "required field is missing")
		return
	}
	if !v.checkQualifiedName(t, field, name) {
		return
	}
	if !strings.Contains(name, "/") {
		v.errorf(t, field, CodeInvalidName, "%q is not fully qualified: it needs a domain and a name separated by a slash, e.g. %s", name, "gpu.example.com/"+name)
	}
}

// checkLabelKey and checkLabelValue apply the label rules that taints and
// tolerations reuse.
func (v *validator) checkLabelKey(t target, field, value string) {
	if errs := content.IsLabelKey(value); len(errs) > 0 {
		v.errorf(t, field, CodeInvalidName, "%q is not a valid key (a qualified name such as example.com/unhealthy): %s", value, strings.Join(errs, "; "))
	}
}

func (v *validator) checkLabelValue(t target, field, value string) {
	if errs := content.IsLabelValue(value); len(errs) > 0 {
		v.errorf(t, field, CodeInvalidValue, "%q is not a valid value: %s", value, strings.Join(errs, "; "))
	}
}

// checkMetadata applies the name rules of each kind to metadata.name and
// checks that namespaced objects live in a valid namespace. Generated pods
// are skipped: their names come from their controller's.
func (v *validator) checkMetadata() {
	check := func(kind string, m *metav1.ObjectMeta, nameRule nameFormat) {
		ref := snapshot.Ref{Kind: kind, Namespace: m.Namespace, Name: m.Name}
		if v.s.Generated[ref] {
			return
		}
		t := v.targetFor(ref)
		v.checkName(t, "metadata.name", m.Name, nameRule)
		if m.Namespace != "" {
			v.checkName(t, "metadata.namespace", m.Namespace, dnsLabel)
		}
	}
	for _, o := range v.s.Namespaces {
		if o != nil {
			check("Namespace", &o.ObjectMeta, dnsLabel)
		}
	}
	for _, o := range v.s.Nodes {
		if o != nil {
			check("Node", &o.ObjectMeta, dnsSubdomain)
		}
	}
	for _, o := range v.s.Pods {
		if o != nil {
			check("Pod", &o.ObjectMeta, dnsSubdomain)
		}
	}
	for _, o := range v.s.PriorityClasses {
		if o != nil {
			check("PriorityClass", &o.ObjectMeta, dnsSubdomain)
		}
	}
	for _, o := range v.s.Deployments {
		if o != nil {
			check("Deployment", &o.ObjectMeta, dnsSubdomain)
		}
	}
	for _, o := range v.s.ReplicaSets {
		if o != nil {
			check("ReplicaSet", &o.ObjectMeta, dnsSubdomain)
		}
	}
	for _, o := range v.s.StatefulSets {
		if o != nil {
			check("StatefulSet", &o.ObjectMeta, dnsSubdomain)
		}
	}
	for _, o := range v.s.DaemonSets {
		if o != nil {
			check("DaemonSet", &o.ObjectMeta, dnsSubdomain)
		}
	}
	for _, o := range v.s.Jobs {
		if o != nil {
			check("Job", &o.ObjectMeta, dnsSubdomain)
		}
	}
	for _, o := range v.s.DeviceClasses {
		if o != nil {
			check("DeviceClass", &o.ObjectMeta, dnsSubdomain)
		}
	}
	for _, o := range v.s.ResourceSlices {
		if o != nil {
			check("ResourceSlice", &o.ObjectMeta, dnsSubdomain)
		}
	}
	for _, o := range v.s.ResourceClaims {
		if o != nil {
			check("ResourceClaim", &o.ObjectMeta, dnsSubdomain)
		}
	}
	for _, o := range v.s.ResourceClaimTemplates {
		if o != nil {
			check("ResourceClaimTemplate", &o.ObjectMeta, dnsSubdomain)
		}
	}
	for _, o := range v.s.DeviceTaintRules {
		if o != nil {
			check("DeviceTaintRule", &o.ObjectMeta, dnsSubdomain)
		}
	}
}

// isExtendedResourceName mirrors the API's rule for
// DeviceClass.spec.extendedResourceName: a domain-prefixed name outside
// kubernetes.io that is still a qualified name with "requests." in front.
func isExtendedResourceName(name string) bool {
	if !strings.Contains(name, "/") || strings.Contains(name, v1.ResourceDefaultNamespacePrefix) ||
		strings.HasPrefix(name, v1.DefaultResourceRequestsPrefix) {
		return false
	}
	return len(content.IsLabelKey(v1.DefaultResourceRequestsPrefix+name)) == 0
}
