package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestWriteJSONIsMarshalIndent holds WriteJSON to json.MarshalIndent with
// two spaces and a newline, on values with every kind of JSON text in them:
// empty and nested objects and arrays, strings with quotes, backslashes,
// brackets, commas, colons, escapes and HTML characters, numbers, booleans
// and nulls.
func TestWriteJSONIsMarshalIndent(t *testing.T) {
	type inner struct {
		A string         `json:"a"`
		B []int          `json:"b"`
		C map[string]any `json:"c,omitempty"`
		D *inner         `json:"d,omitempty"`
	}
	values := []any{
		nil, 1, -2.5e-7, "x", true, []any{}, map[string]any{}, []any{[]any{}, map[string]any{}},
		map[string]any{"": "", "k": []any{nil, false, 3, "a\"b\\c"}},
		inner{A: `{"not":[json],}`, B: []int{}, C: map[string]any{"x:y": "a,b", "<&>": "\u2028\t\n\\\"", "e": map[string]any{}}},
		inner{A: "é\x01", D: &inner{B: []int{1, 2}, D: &inner{}}},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		values = append(values, randomJSON(rng, 4))
	}
	for _, v := range values {
		want, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, '\n')
		var got bytes.Buffer
		if err := WriteJSON(&got, v); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("WriteJSON(%#v):\n%s\nwant (MarshalIndent):\n%s", v, got.Bytes(), want)
		}
	}
}

// TestIndentWriterInPieces writes compact JSON to the indenter a few bytes
// at a time, so that strings, escapes and empty brackets are cut between
// writes.
func TestIndentWriterInPieces(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100 {
		v := randomJSON(rng, 5)
		compact, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		iw := &indentWriter{w: bufio.NewWriter(&got)}
		for p := compact; len(p) > 0; {
			n := min(len(p), 1+rng.IntN(4))
			if _, err := iw.Write(p[:n]); err != nil {
				t.Fatal(err)
			}
			p = p[n:]
		}
		if err := iw.w.Flush(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("in pieces:\n%s\nwant:\n%s", got.Bytes(), want)
		}
	}
}

// randomJSON returns a random JSON value nested up to depth.
func randomJSON(rng *rand.Rand, depth int) any {
	strs := []string{"", "a", `"`, `\`, `\"`, "{", "}", "[", "]", ",", ":", "<a&b>", "\n\t", "\u00e9\u2029", `{"k":[1,2]}`}
	switch k := rng.IntN(8); {
	case depth == 0 || k < 4:
		switch rng.IntN(5) {
		case 0:
			return nil
		case 1:
			return rng.IntN(2) == 0
		case 2:
			return rng.NormFloat64() * 1e6
		default:
			return strs[rng.IntN(len(strs))] + strs[rng.IntN(len(strs))]
		}
	case k < 6:
		a := make([]any, rng.IntN(4))
		for i := range a {
			a[i] = randomJSON(rng, depth-1)
		}
		return a
	default:
		m := map[string]any{}
		for range rng.IntN(4) {
			m[strs[rng.IntN(len(strs))]+strs[rng.IntN(len(strs))]] = randomJSON(rng, depth-1)
		}
		return m
	}
}
