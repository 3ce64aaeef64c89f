package validate

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/validate/content"
)

// dnsNameCases are names at the edges of the RFC 1123 rules.
var dnsNameCases = []string{
	"", "a", "A", "0", "-", "a-", "-a", "a-b", "a--b", "a.b", "a..b", ".a", "a.", "a.-b", "a-.b",
	"node-1.example.com", "gpu_0", "gpu 0", "ümlaut", "a/b", strings.Repeat("a", 63), strings.Repeat("a", 64),
	strings.Repeat("a", 253), strings.Repeat("a", 254), strings.Repeat("a.", 126) + "a", strings.Repeat("a.", 127),
}

func TestDNSNamesAgree(t *testing.T) {
	for _, s := range dnsNameCases {
		if got, want := isDNSLabel(s), len(content.IsDNS1123Label(s)) == 0; got != want {
			t.Errorf("isDNSLabel(%q) = %v, content.IsDNS1123Label says %v", s, got, want)
		}
		if got, want := isDNSSubdomain(s), len(content.IsDNS1123Subdomain(s)) == 0; got != want {
			t.Errorf("isDNSSubdomain(%q) = %v, content.IsDNS1123Subdomain says %v", s, got, want)
		}
		if got, want := isCIdentifier(s), len(content.IsCIdentifier(s)) == 0; got != want {
			t.Errorf("isCIdentifier(%q) = %v, content.IsCIdentifier says %v", s, got, want)
		}
	}
}

func TestQualifiedNameFastPathAgrees(t *testing.T) {
	for _, s := range append(dnsNameCases, "model", "gpu.example.com/model", "GPU.Example.com/model", "gpu.example.com/",
		"/model", "a/b/c", "gpu.example.com/"+strings.Repeat("m", 33), strings.Repeat("d", 64)+"/m", "x/9lives", "x/_ok") {
		if isQualifiedName(s) && len(qualifiedNameReasons(s)) > 0 {
			t.Errorf("isQualifiedName(%q) accepts a name qualifiedNameErrors rejects: %v", s, qualifiedNameReasons(s))
		}
	}
}

func FuzzDNSNamesAgree(f *testing.F) {
	for _, s := range dnsNameCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := isDNSSubdomain(s), len(content.IsDNS1123Subdomain(s)) == 0; got != want {
			t.Errorf("isDNSSubdomain(%q) = %v, content.IsDNS1123Subdomain says %v", s, got, want)
		}
		if got, want := isDNSLabel(s), len(content.IsDNS1123Label(s)) == 0; got != want {
			t.Errorf("isDNSLabel(%q) = %v, content.IsDNS1123Label says %v", s, got, want)
		}
		if isQualifiedName(s) && len(qualifiedNameReasons(s)) > 0 {
			t.Errorf("isQualifiedName(%q) accepts a name qualifiedNameErrors rejects", s)
		}
	})
}
