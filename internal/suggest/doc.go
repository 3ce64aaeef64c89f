// Package suggest finds, for a misspelt name, the name that was most
// likely meant: "did you mean --seed?" for flags, fields and columns.
package suggest
