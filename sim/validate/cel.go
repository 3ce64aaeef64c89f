package validate

import (
	"fmt"
	"strings"

	"github.com/drasim/drasim/sim/feature"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apiserver/pkg/cel/environment"
	dracel "k8s.io/dynamic-resource-allocation/cel"
)

// celCompiler compiles each distinct expression once per run, in the
// environment the API server uses for new objects (NewExpressions), with cost
// estimation so that over-expensive selectors are caught as the API server
// would catch them.
type celCompiler struct {
	compiler interface {
		CompileCELExpression(expression string, options dracel.Options) dracel.CompilationResult
	}
	results map[string]dracel.CompilationResult
}

func newCELCompiler(opts Options) *celCompiler {
	gates := opts.Gates
	if gates == nil {
		gates = feature.Defaults()
	}
	return &celCompiler{
		compiler: dracel.GetCompiler(gates.CELFeatures()),
		results:  map[string]dracel.CompilationResult{},
	}
}

func (c *celCompiler) compile(expression string) dracel.CompilationResult {
	if r, ok := c.results[expression]; ok {
		return r
	}
	envType := environment.NewExpressions
	r := c.compiler.CompileCELExpression(expression, dracel.Options{EnvType: &envType})
	c.results[expression] = r
	return r
}

// checkSelectors checks a list of device selectors (of a class or a request)
// and returns whether all of them compiled, i.e. whether they can be
// evaluated.
func (v *validator) checkSelectors(t target, path string, selectors []resourceapi.DeviceSelector) bool {
	if len(selectors) > resourceapi.DeviceSelectorsMaxSize {
		v.errorf(t, path, CodeTooMany, "%d selectors, the limit is %d", len(selectors), resourceapi.DeviceSelectorsMaxSize)
		return false
	}
	ok := true
	for i, sel := range selectors {
		p := idx(path, i)
		if sel.CEL == nil {
			v.errorf(t, p+".cel", CodeSelectorMissingCEL,
				"required field is missing: a selector holds its CEL expression under `cel:`, as in `- cel: {expression: 'device.driver == \"gpu.example.com\"'}`; "+
					"an `expression` written next to `cel` (a common indentation mistake) or directly in the selector is ignored by the API server")
			ok = false
			continue
		}
		if !v.checkCEL(t, p+".cel.expression", sel.CEL.Expression) {
			ok = false
		}
	}
	return ok
}

// checkCEL compiles one selector expression and reports what the API server
// would: too long, does not compile, or too expensive.
func (v *validator) checkCEL(t target, field, expression string) bool {
	if expression == "" {
		v.errorf(t, field, CodeRequired, "required field is missing: the CEL expression is empty")
		return false
	}
	if len(expression) > resourceapi.CELSelectorExpressionMaxLength {
		v.errorf(t, field, CodeTooLong, "the CEL expression is %d bytes long, the limit is %d", len(expression), resourceapi.CELSelectorExpressionMaxLength)
		return false
	}
	r := v.cel.compile(expression)
	if r.Error != nil {
		v.errorf(t, field, CodeCELCompile, "CEL expression %q does not compile: %s", expression, oneLine(r.Error.Detail))
		return false
	}
	if r.MaxCost > resourceapi.CELSelectorExpressionMaxCost {
		v.errorf(t, field, CodeCELCost, "CEL expression %q is too complex: its estimated worst-case cost %s exceeds the limit %d",
			expression, costString(r.MaxCost), resourceapi.CELSelectorExpressionMaxCost)
		return false
	}
	return true
}

// oneLine keeps the ERROR lines of a CEL compiler message (they carry the
// column) and drops the lines that draw the expression and a caret, so that
// a diagnostic stays on one line.
func oneLine(msg string) string {
	var keep []string
	for _, l := range strings.Split(msg, "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "|") {
			keep = append(keep, t)
		}
	}
	return strings.Join(keep, "; ")
}

func costString(c uint64) string {
	if c == ^uint64(0) {
		return "is unbounded and"
	}
	return fmt.Sprint(c)
}
