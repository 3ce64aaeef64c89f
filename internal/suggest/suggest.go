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

// Distance is the edit distance of two short strings, by bytes:
// insertions, deletions, substitutions and swaps of two neighbours (the
// commonest typo, "nmae") each count one (optimal string alignment).
func Distance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
