package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDockerfile keeps the repository's Dockerfile buildable where no
// container engine runs the build: its Go image is the go.mod's Go
// release, it builds this package statically, and its entrypoint is the
// binary it copies. (The Job of drasim sweep job runs it as 65532 with a
// read-only root filesystem.)
func TestDockerfile(t *testing.T) {
	docker, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	goLine := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(mod)
	if goLine == nil {
		t.Fatal("go.mod has no go line")
	}
	text := string(docker)
	for _, want := range []string{
		"FROM golang:" + string(goLine[1]) + " AS build",
		"CGO_ENABLED=0 go build",
		"-o /out/drasim ./cmd/drasim",
		"COPY --from=build /out/drasim /usr/local/bin/drasim",
		"USER 65532:65532",
		`ENTRYPOINT ["/usr/local/bin/drasim"]`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("Dockerfile: want %q in it", want)
		}
	}
}
