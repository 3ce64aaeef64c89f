package generate

import (
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/resource"
)

// quantityEqual compares quantities by value: a parsed "80Gi" and one built
// in code differ in their cached string form only.
var quantityEqual = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })
