// Package report turns drasim's results into what people and CI read:
// tables, JSON/YAML, markdown. Every renderer is a pure function of its input
// that writes to an io.Writer, so each has a golden test.
package report
