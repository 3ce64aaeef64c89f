// Package suggest finds, for a misspelt name, the name that was most
// likely meant: "did you mean --seed?" for flags, fields and columns.
package suggest

// Closest returns the candidate nearest to name by edit distance, when it
// is within one edit per three letters of name (at least one, at most
// two), so that a short name is not "corrected" into an unrelated one
// (gpus is not cpu); "" when none is. Ties go to the earliest candidate,
// so callers pass candidates in a fixed order.
func Closest(name string, candidates []string) string {
	best, bestDist := "", min(2, max(1, len(name)/3))+1
	for _, c := range candidates {
		if d := Distance(name, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// Distance is the Levenshtein distance of two short strings, by bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
