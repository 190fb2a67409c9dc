package arch

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the repository's root, two levels above this package.
const root = "../.."

// pathLike is a path of the repository named in backticks in a document:
// it starts with a top folder of the repository and holds no placeholder.
var pathLike = regexp.MustCompile("`((?:core|ports|adapters|workers|app|test|docs|deploy|cmd)/[A-Za-z0-9_./-]*)`")

// Every path docs/architecture.md names exists, so that the guide cannot
// drift from the code it describes.
func TestArchitectureGuidePathsExist(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	found := pathLike.FindAllStringSubmatch(string(doc), -1)
	if len(found) < 20 {
		t.Fatalf("docs/architecture.md names only %d paths; the pattern is broken", len(found))
	}
	for _, m := range found {
		p := strings.TrimSuffix(m[1], "/")
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil {
			t.Errorf("docs/architecture.md names %s, which does not exist", m[1])
		}
	}
}

// mdLink is a Markdown link target.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// upPath is a relative path that climbs up a directory or more.
var upPath = regexp.MustCompile(`(?:\.\./)+[\w.-]+`)

// The README links CONTRIBUTING.md, which links the guide, and every
// relative link of those two and of docs/ stays inside the repository and
// exists.
func TestDocumentLinksStayInTheRepository(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join(root, "README.md"), filepath.Join(root, "CONTRIBUTING.md"))
	mustLink := map[string]string{"README.md": "](CONTRIBUTING.md)", "CONTRIBUTING.md": "](docs/architecture.md)"}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if link, ok := mustLink[filepath.Base(f)]; ok && !strings.Contains(string(b), link) {
			t.Errorf("%s does not link %s", filepath.Base(f), strings.Trim(link, "]()"))
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			target := strings.SplitN(m[1], "#", 2)[0]
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			abs, err := filepath.Abs(filepath.Join(filepath.Dir(f), filepath.FromSlash(target)))
			if err != nil {
				t.Fatal(err)
			}
			top, _ := filepath.Abs(root)
			if !strings.HasPrefix(abs, top+string(filepath.Separator)) {
				t.Errorf("%s links %s, outside the repository", filepath.Base(f), m[1])
				continue
			}
			if _, err := os.Stat(abs); err != nil {
				t.Errorf("%s links %s, which does not exist", filepath.Base(f), m[1])
			}
		}
		// Paths named in the prose (read from the repository's root, as
		// the docs name files), not only links: none climbs out of the
		// repository (nothing outside it is in a clone).
		prose := mdLink.ReplaceAllString(string(b), "]()")
		for _, p := range upPath.FindAllString(prose, -1) {
			abs, err := filepath.Abs(filepath.Join(root, filepath.FromSlash(p)))
			if err != nil {
				t.Fatal(err)
			}
			if top, _ := filepath.Abs(root); !strings.HasPrefix(abs, top+string(filepath.Separator)) {
				t.Errorf("%s names %s, outside the repository", filepath.Base(f), p)
			}
		}
	}
}
