package archtest

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// repoRoot is the repository, seen from this package.
const repoRoot = "../.."

func readRepoFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func existsInRepo(rel string) bool {
	_, err := os.Stat(filepath.Join(repoRoot, filepath.FromSlash(rel)))
	return err == nil
}

var (
	codeSpanRe = regexp.MustCompile("`([^`\n]+)`")
	// repoPathRe matches a path into the repository: a package, a folder or
	// a file under one of the top-level folders that hold code.
	repoPathRe = regexp.MustCompile(`^(sim|internal|report|cmd|scenarios|bench|docs|tools)(/[A-Za-z0-9_.\-]+)*/?(/\.\.\.)?$`)
	// pathInTextRe finds such paths in the drawing (a fenced block).
	pathInTextRe = regexp.MustCompile(`\b(?:sim|internal|cmd)/[A-Za-z0-9_./\-]*[A-Za-z0-9_]`)
	identRe      = regexp.MustCompile(`^([A-Z][A-Za-z0-9_]*)(\(.*\))?$`)
	qualifiedRe  = regexp.MustCompile(`^([a-z][a-z0-9]*)\.([A-Z][A-Za-z0-9_]*)(\(.*\))?$`)
	goFileRe     = regexp.MustCompile(`^[a-z0-9_]+\.go$`)
)

// placeholderRe matches a path element that stands for many, as NAME in
// oracle/steps/NAME.json.
var placeholderRe = regexp.MustCompile(`[A-Z]{3,}`)

// checkRepoPath reports whether a path named by the docs exists; "/..."
// means a folder, and a path with a placeholder needs only its folder.
func checkRepoPath(p string) bool {
	p = strings.TrimSuffix(strings.TrimSuffix(p, "/..."), "/")
	for placeholderRe.MatchString(path.Base(p)) && strings.Contains(p, "/") {
		p = path.Dir(p)
	}
	return existsInRepo(p)
}

// TestArchitecturePathsExist: every package, folder and file path that
// docs/architecture.md names, in its text and in its drawing, exists.
func TestArchitecturePathsExist(t *testing.T) {
	doc := readRepoFile(t, "docs/architecture.md")
	seen := map[string]bool{}
	check := func(p string) {
		if seen[p] {
			return
		}
		seen[p] = true
		if !checkRepoPath(p) {
			t.Errorf("docs/architecture.md names %s, which does not exist: fix the doc (or the path)", p)
		}
	}
	for _, m := range codeSpanRe.FindAllStringSubmatch(doc, -1) {
		if repoPathRe.MatchString(m[1]) {
			check(m[1])
		}
	}
	for _, block := range fencedBlocks(doc) {
		for _, p := range pathInTextRe.FindAllString(block, -1) {
			check(p)
		}
	}
	if len(seen) < 20 {
		t.Fatalf("found only %d paths in docs/architecture.md: the check no longer reads the doc", len(seen))
	}
}

// fencedBlocks returns the contents of the ``` blocks of a markdown text.
func fencedBlocks(md string) []string {
	var blocks []string
	var cur []string
	in := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			if in {
				blocks = append(blocks, strings.Join(cur, "\n"))
				cur = nil
			}
			in = !in
			continue
		}
		if in {
			cur = append(cur, line)
		}
	}
	return blocks
}

// packageTable returns the rows of docs/architecture.md's package table:
// the package (the first cell's code span) and the rest of the row.
func packageTable(t *testing.T) map[string]string {
	t.Helper()
	doc := readRepoFile(t, "docs/architecture.md")
	rows := map[string]string{}
	for _, line := range strings.Split(doc, "\n") {
		cells := strings.SplitN(line, "|", 4)
		if len(cells) < 4 || cells[0] != "" {
			continue
		}
		m := codeSpanRe.FindStringSubmatch(cells[1])
		if m == nil || !repoPathRe.MatchString(m[1]) {
			continue
		}
		rows[m[1]] = cells[2]
	}
	if len(rows) < 20 {
		t.Fatalf("docs/architecture.md: found %d rows in the package table, want one per package: the check no longer reads the table", len(rows))
	}
	return rows
}

// TestArchitectureNamesEveryPackage: the package table has a row for every
// package of the module (a row "dir/..." covers the packages below dir), so
// that a newcomer finds every package's job there.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	rows := packageTable(t)
	pkgs := modulePackages(t)
	names := make([]string, 0, len(pkgs))
	for p := range pkgs {
		names = append(names, p)
	}
	slices.Sort(names)
	for _, p := range names {
		if _, ok := rows[p]; ok {
			continue
		}
		covered := false
		for dir := p; strings.Contains(dir, "/"); {
			dir = path.Dir(dir)
			if _, ok := rows[dir+"/..."]; ok {
				covered = true
				break
			}
		}
		if !covered {
			t.Errorf("docs/architecture.md's package table has no row for %s: add one that says its job", p)
		}
	}
}

// declared returns the top-level names (functions, methods, types,
// constants, variables, and the fields and methods of its types) of the
// package in dir, test files excluded.
func declared(t *testing.T, dir string) map[string]bool {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(filepath.Join(repoRoot, dir))
	if err != nil {
		t.Fatalf("%s: %v", dir, err)
	}
	names := map[string]bool{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(repoRoot, dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				names[d.Name.Name] = true
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						names[s.Name.Name] = true
						if st, ok := s.Type.(*ast.StructType); ok {
							for _, f := range st.Fields.List {
								for _, n := range f.Names {
									names[n.Name] = true
								}
							}
						}
						if it, ok := s.Type.(*ast.InterfaceType); ok {
							for _, m := range it.Methods.List {
								for _, n := range m.Names {
									names[n.Name] = true
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							names[n.Name] = true
						}
					}
				}
			}
		}
	}
	return names
}

// TestArchitectureNamesExist: every Go name docs/architecture.md gives in
// a code span is declared where the doc says: `pkg.Name` in the module's
// package pkg, a plain `Name` in the package of its table row, and a file
// `name.go` of a row in that row's package.
func TestArchitectureNamesExist(t *testing.T) {
	doc := readRepoFile(t, "docs/architecture.md")
	pkgs := modulePackages(t)
	byName := map[string][]string{} // package name (last element) → package dirs
	for p := range pkgs {
		byName[path.Base(p)] = append(byName[path.Base(p)], p)
	}
	decls := map[string]map[string]bool{}
	declaredIn := func(dir, name string) bool {
		if decls[dir] == nil {
			decls[dir] = declared(t, dir)
		}
		return decls[dir][name]
	}
	checked := 0
	for _, m := range codeSpanRe.FindAllStringSubmatch(doc, -1) {
		q := qualifiedRe.FindStringSubmatch(m[1])
		if q == nil || len(byName[q[1]]) == 0 {
			continue // not a name of one of the module's packages
		}
		found := false
		for _, dir := range byName[q[1]] {
			found = found || declaredIn(dir, q[2])
		}
		checked++
		if !found {
			t.Errorf("docs/architecture.md names `%s`, but package %s declares no %s", m[1], q[1], q[2])
		}
	}
	for pkg, row := range packageTable(t) {
		if strings.HasSuffix(pkg, "/...") || !existsInRepo(pkg) {
			continue // reported by TestArchitecturePathsExist
		}
		for _, m := range codeSpanRe.FindAllStringSubmatch(row, -1) {
			if id := identRe.FindStringSubmatch(m[1]); id != nil {
				checked++
				if !declaredIn(pkg, id[1]) {
					t.Errorf("docs/architecture.md's row for %s names `%s`, but %s declares no %s", pkg, m[1], pkg, id[1])
				}
			}
			if goFileRe.MatchString(m[1]) {
				checked++
				if !existsInRepo(pkg + "/" + m[1]) {
					t.Errorf("docs/architecture.md's row for %s names the file %s, which %s does not have", pkg, m[1], pkg)
				}
			}
		}
	}
	if checked < 20 {
		t.Fatalf("checked only %d names in docs/architecture.md: the check no longer reads the doc", checked)
	}
}

// TestInventoryDocNamesItsUsers: sim/inventory's doc.go names the packages
// that ask it about devices; each of them imports it.
func TestInventoryDocNamesItsUsers(t *testing.T) {
	doc := readRepoFile(t, "sim/inventory/doc.go")
	m := regexp.MustCompile(`\(users: ([a-z, ]+)\)`).FindStringSubmatch(doc)
	if m == nil {
		t.Fatalf("sim/inventory/doc.go: want its users listed as \"(users: a, b, ...)\", found none")
	}
	pkgs := modulePackages(t)
	for _, u := range strings.Split(m[1], ",") {
		// A user is named by its path below sim/; "sim" is the engine's
		// own package.
		p := "sim/" + strings.TrimSpace(u)
		if p == "sim/sim" {
			p = "sim"
		}
		if !slices.Contains(pkgs[p], "sim/inventory") {
			t.Errorf("sim/inventory/doc.go names %s as a user, but %s does not import sim/inventory", p, p)
		}
	}
	users := make([]string, 0, len(pkgs))
	for p := range pkgs {
		users = append(users, p)
	}
	slices.Sort(users)
	for _, p := range users {
		if slices.Contains(pkgs[p], "sim/inventory") && !slices.Contains(strings.Split(strings.ReplaceAll(m[1], " ", ""), ","), strings.TrimPrefix(p, "sim/")) {
			t.Errorf("%s imports sim/inventory, but sim/inventory/doc.go does not name it among its users", p)
		}
	}
}

// scenarioRow is one row of scenarios/README.md's table.
type scenarioRow struct {
	file        string
	bound, pods int
}

// TestScenariosReadme: scenarios/README.md's table lists every scenario
// file there is, and only those, and its "bound / pods" column holds the
// counts of kube's recording (oracle/NAME.json: pods with a node, pods),
// or drasim's (the golden result: pods on a node at the end, pods not
// preempted) for a scenario that has no whole-run recording.
func TestScenariosReadme(t *testing.T) {
	readme := readRepoFile(t, "scenarios/README.md")
	rowRe := regexp.MustCompile(`^\| ([^ |]+\.yaml) \|.*\| (\d+) / (\d+) \|$`)
	var rows []scenarioRow
	for _, line := range strings.Split(readme, "\n") {
		if m := rowRe.FindStringSubmatch(line); m != nil {
			b, _ := strconv.Atoi(m[2])
			p, _ := strconv.Atoi(m[3])
			rows = append(rows, scenarioRow{m[1], b, p})
		}
	}
	files, err := filepath.Glob(filepath.Join(repoRoot, "scenarios", "[0-9][0-9]-*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var listed, present []string
	for _, r := range rows {
		listed = append(listed, r.file)
	}
	for _, f := range files {
		present = append(present, filepath.Base(f))
	}
	for _, f := range present {
		if !slices.Contains(listed, f) {
			t.Errorf("scenarios/README.md's table has no row for scenarios/%s: add one", f)
		}
	}
	for _, r := range rows {
		if !slices.Contains(present, r.file) {
			t.Errorf("scenarios/README.md's table lists %s, which is not in scenarios/", r.file)
			continue
		}
		bound, pods, src, err := scenarioCounts(strings.TrimSuffix(r.file, ".yaml"))
		if err != nil {
			t.Errorf("%s: %v", r.file, err)
			continue
		}
		if bound != r.bound || pods != r.pods {
			t.Errorf("scenarios/README.md: %s shows %d / %d, %s has %d / %d", r.file, r.bound, r.pods, src, bound, pods)
		}
	}
}

// scenarioCounts returns the "bound / pods" of a scenario and where they
// were read.
func scenarioCounts(name string) (bound, pods int, src string, err error) {
	src = "scenarios/oracle/" + name + ".json"
	if b, err := os.ReadFile(filepath.Join(repoRoot, src)); err == nil {
		var oracle map[string]struct {
			Node *string `json:"node"`
		}
		if err := jsonUnmarshal(b, &oracle); err != nil {
			return 0, 0, src, err
		}
		for _, p := range oracle {
			if p.Node != nil && *p.Node != "" {
				bound++
			}
		}
		return bound, len(oracle), src, nil
	}
	src = "scenarios/golden/" + name + ".json"
	b, err := os.ReadFile(filepath.Join(repoRoot, src))
	if err != nil {
		return 0, 0, src, err
	}
	var res struct {
		Pods []struct {
			Phase string `json:"phase"`
		} `json:"pods"`
	}
	if err := jsonUnmarshal(b, &res); err != nil {
		return 0, 0, src, err
	}
	for _, p := range res.Pods {
		switch p.Phase {
		case "Scheduled", "Bound":
			bound++
		}
		if p.Phase != "Preempted" {
			pods++
		}
	}
	return bound, pods, src, nil
}

// TestMarkdownLinks: every relative link in the repository's markdown
// points at a file that exists and, with a #fragment into markdown, at a
// heading it has.
func TestMarkdownLinks(t *testing.T) {
	var files []string
	err := filepath.WalkDir(repoRoot, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != repoRoot && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "tools") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, err := filepath.Rel(repoRoot, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(rel string) map[string]bool {
		if anchors[rel] == nil {
			anchors[rel] = headingAnchors(readRepoFile(t, rel))
		}
		return anchors[rel]
	}
	linkRe := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	urlRe := regexp.MustCompile(`^[a-z]+:`)
	links := 0
	for _, f := range files {
		text := withoutFencedBlocks(readRepoFile(t, f))
		for _, m := range linkRe.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if urlRe.MatchString(target) {
				continue // a URL
			}
			links++
			file, frag, _ := strings.Cut(target, "#")
			dest := f
			if file != "" {
				dest = path.Clean(path.Join(path.Dir(f), file))
			}
			if !existsInRepo(dest) {
				t.Errorf("%s links to %s: %s does not exist", f, target, dest)
				continue
			}
			if frag != "" && strings.HasSuffix(dest, ".md") && !anchorsOf(dest)[frag] {
				t.Errorf("%s links to %s: %s has no heading with the anchor #%s", f, target, dest, frag)
			}
		}
	}
	if links < 50 {
		t.Fatalf("found only %d relative links in %d markdown files: the check no longer reads them", links, len(files))
	}
}

func withoutFencedBlocks(md string) string {
	var out []string
	in := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			in = !in
			continue
		}
		if !in {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

// headingAnchors returns the anchors GitHub gives a markdown file's
// headings: lower case, punctuation dropped, spaces as dashes, "-1", "-2"
// for repeats.
func headingAnchors(md string) map[string]bool {
	anchors := map[string]bool{}
	count := map[string]int{}
	drop := regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
	for _, line := range strings.Split(withoutFencedBlocks(md), "\n") {
		h := strings.TrimLeft(line, "#")
		if h == line || !strings.HasPrefix(h, " ") {
			continue
		}
		a := strings.ReplaceAll(drop.ReplaceAllString(strings.ToLower(strings.TrimSpace(h)), ""), " ", "-")
		if n := count[a]; n > 0 {
			anchors[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			anchors[a] = true
		}
		count[a]++
	}
	return anchors
}

// TestNoLogsAtTheRoot: no log of a debugging run is committed at the
// repository's root (one was, once); .gitignore keeps them out.
func TestNoLogsAtTheRoot(t *testing.T) {
	entries, err := os.ReadDir(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	ignore := readRepoFile(t, ".gitignore")
	if !slices.Contains(strings.Split(ignore, "\n"), "/*.log") {
		t.Errorf(".gitignore: want a line /*.log, so that a debug log at the root is never committed")
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".log") {
			t.Errorf("%s at the repository's root: debug logs do not belong in the repository", e.Name())
		}
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// TestBenchmarkSectionsQuoted: where the docs or the code cite a section of
// BENCHMARKS.md or docs/benchmarks-archive.md by its title (`BENCHMARKS.md,
// "Title"`), the file has a heading that starts so. Sections move from the
// one to the other as figures age; a citation must follow.
func TestBenchmarkSectionsQuoted(t *testing.T) {
	headings := map[string][]string{}
	for name, rel := range map[string]string{"BENCHMARKS.md": "BENCHMARKS.md", "benchmarks-archive.md": "docs/benchmarks-archive.md"} {
		for _, line := range strings.Split(withoutFencedBlocks(readRepoFile(t, rel)), "\n") {
			if h := strings.TrimLeft(line, "#"); h != line {
				headings[name] = append(headings[name], strings.ReplaceAll(strings.TrimSpace(h), "`", ""))
			}
		}
	}
	citeRe := regexp.MustCompile(`(BENCHMARKS\.md|benchmarks-archive\.md)(?:\]\([^)]*\))?, "([^"]+)"`)
	joinRe := regexp.MustCompile(`\s*\n\s*(?://\s*)?`)
	cites := 0
	err := filepath.WalkDir(repoRoot, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != repoRoot && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "tools") {
			return filepath.SkipDir
		}
		if d.IsDir() || !(strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".go")) || strings.HasSuffix(p, "docs_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		text := joinRe.ReplaceAllString(string(b), " ")
		for _, m := range citeRe.FindAllStringSubmatch(text, -1) {
			cites++
			title := strings.ReplaceAll(m[2], "`", "")
			if !slices.ContainsFunc(headings[m[1]], func(h string) bool { return strings.HasPrefix(h, title) }) {
				rel, _ := filepath.Rel(repoRoot, p)
				t.Errorf("%s cites %s, %q: no heading there starts so (moved to the other file, or renamed?)", filepath.ToSlash(rel), m[1], m[2])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if cites < 5 {
		t.Fatalf("found only %d citations of benchmark sections: the check no longer reads them", cites)
	}
}
