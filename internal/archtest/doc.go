// Package archtest holds the tests that keep drasim's shape and its
// documentation honest: the import floors of docs/architecture.md
// (layering_test.go) and the paths, files and links the docs name
// (docs_test.go). It has no code of its own.
package archtest
