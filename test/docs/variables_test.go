// Package docs holds the documents to the code: the variable tables (the
// binary's in README.md, the Makefile's and the scripts' in CONTRIBUTING.md)
// list every environment variable read, every command of the README's "Try
// it" and "Use it with your integration" sections runs against a started
// feria, and docs/sandbox.md lists the default rate limits.
package docs

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/feria/feria/app"
)

const root = "../.."

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// section is a document's text under a heading ("## Try it", "### Binary
// variables"), up to the next heading of the same or a higher level.
func section(t *testing.T, doc, heading string) string {
	t.Helper()
	level := strings.Index(heading, " ")
	i := strings.Index(doc, "\n"+heading+"\n")
	if i < 0 {
		t.Fatalf("no heading %q in:\n%.200s", heading, doc)
	}
	rest := doc[i+len(heading)+2:]
	fenced, off := false, 0
	for _, line := range strings.SplitAfter(rest, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if n := len(line) - len(strings.TrimLeft(line, "#")); !fenced && n > 0 && n <= level && strings.HasPrefix(line[n:], " ") {
			return rest[:off]
		}
		off += len(line)
	}
	return rest
}

// tableRows are the lines of the markdown tables in text whose first cell
// is a `NAME`, keyed by that name.
func tableRows(t *testing.T, text string) (names []string, rows map[string]string) {
	t.Helper()
	rows = map[string]string{}
	re := regexp.MustCompile("^\\| `([A-Z_][A-Z0-9_]*)` \\|")
	for _, line := range strings.Split(text, "\n") {
		m := re.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if _, dup := rows[m[1]]; dup {
			t.Errorf("a variable table lists %s twice", m[1])
		}
		names = append(names, m[1])
		rows[m[1]] = line
	}
	if len(names) == 0 {
		t.Fatalf("no variable table in:\n%s", text)
	}
	return names, rows
}

// row is how the README's table shows a variable of the binary.
func row(v app.Variable) string {
	def := "unset: " + v.Unset
	if v.Default != "" {
		def = "`" + v.Default + "`"
	}
	return fmt.Sprintf("| `%s` | %s | %s |", v.Name, def, v.Meaning)
}

// The binary's table is app.Variables, row for row, in order; `feria --help`
// prints the same list.
func TestReadmeListsTheBinarysVariables(t *testing.T) {
	readme := readFile(t, "README.md")
	names, rows := tableRows(t, section(t, readme, "### Binary variables"))
	var want []string
	for _, v := range app.Variables {
		want = append(want, v.Name)
		if rows[v.Name] != row(v) {
			t.Errorf("README row of %s:\n  %s\nwant (from app.Variables):\n  %s", v.Name, rows[v.Name], row(v))
		}
	}
	if !slices.Equal(names, want) {
		t.Errorf("README's binary variables %v, want app.Variables in order %v", names, want)
	}

	help, err := exec.Command(binary(t), "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("feria --help: %v\n%s", err, help)
	}
	if string(help) != app.Help() {
		t.Errorf("feria --help printed:\n%s\nwant app.Help():\n%s", help, app.Help())
	}
}

// envReads finds every read of the process environment in the module's
// non-test Go code: literal os.Getenv/os.LookupEnv names, and anything else
// (a computed name, os.Environ, os.Getenv passed as a value) as a problem,
// except main handing os.Getenv to app.Run, whose reads LoadConfig declares
// (app.TestLoadConfigReadsExactlyTheDeclaredVariables). In package app, a
// getenv call outside LoadConfig is a problem too: LoadConfig alone reads.
func envReads(t *testing.T) (names map[string][]string, problems []string) {
	t.Helper()
	names = map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "var" || n == "bin" || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		var stack []ast.Node
		ast.Inspect(f, func(n ast.Node) bool {
			if n == nil {
				stack = stack[:len(stack)-1]
				return true
			}
			stack = append(stack, n)
			pos := fmt.Sprintf("%s:%d", rel, fset.Position(n.Pos()).Line)
			if id, ok := n.(*ast.Ident); ok && id.Name == "getenv" && filepath.Dir(rel) == "app" {
				if call, ok := parent(stack).(*ast.CallExpr); ok && call.Fun == id && enclosingFunc(stack) != "LoadConfig" {
					problems = append(problems, pos+": getenv called outside LoadConfig")
				}
			}
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok || (pkg.Name != "os" && pkg.Name != "syscall") {
				return true
			}
			switch sel.Sel.Name {
			case "Getenv", "LookupEnv":
			case "Environ", "ExpandEnv", "Expand":
				problems = append(problems, pos+": "+pkg.Name+"."+sel.Sel.Name+" reads variables nobody can list")
				return true
			default:
				return true
			}
			call, isCall := parent(stack).(*ast.CallExpr)
			if isCall && call.Fun == sel {
				if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					name, _ := strconv.Unquote(lit.Value)
					names[name] = append(names[name], pos)
					return true
				}
				problems = append(problems, pos+": "+pkg.Name+"."+sel.Sel.Name+" of a computed name; use a literal")
				return true
			}
			if rel == filepath.Join("cmd", "feria", "main.go") && pkg.Name == "os" && sel.Sel.Name == "Getenv" {
				return true // handed to app.Run: LoadConfig declares what it reads
			}
			problems = append(problems, pos+": "+pkg.Name+"."+sel.Sel.Name+" used as a value")
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names, problems
}

func parent(stack []ast.Node) ast.Node {
	if len(stack) < 2 {
		return nil
	}
	return stack[len(stack)-2]
}

func enclosingFunc(stack []ast.Node) string {
	for i := len(stack) - 1; i >= 0; i-- {
		if fn, ok := stack[i].(*ast.FuncDecl); ok {
			return fn.Name.Name
		}
	}
	return ""
}

// scriptVars are the variables the Makefile declares (NAME ?= ...) and the
// scripts read with a default (${NAME:-...}).
func scriptVars(t *testing.T) map[string][]string {
	t.Helper()
	vars := map[string][]string{}
	makeVar := regexp.MustCompile(`(?m)^(?:export\s+)?([A-Z_][A-Z0-9_]*)\s*\?=`)
	for _, m := range makeVar.FindAllStringSubmatch(readFile(t, "Makefile"), -1) {
		vars[m[1]] = append(vars[m[1]], "Makefile")
	}
	scripts, _ := filepath.Glob(filepath.Join(root, "deploy", "scripts", "*.sh"))
	scripts = append(scripts, filepath.Join(root, ".ci", "run"))
	shellVar := regexp.MustCompile(`\$\{([A-Z_][A-Z0-9_]*):?[-=]`)
	for _, s := range scripts {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, s)
		for _, m := range shellVar.FindAllStringSubmatch(string(b), -1) {
			vars[m[1]] = append(vars[m[1]], rel)
		}
	}
	return vars
}

// Every variable the code, the Makefile or a script reads is in one of the
// two tables (the binary's in README.md, the Makefile's and the scripts' in
// CONTRIBUTING.md), and every row of those tables names a variable
// something reads.
func TestReadmeListsEveryVariableRead(t *testing.T) {
	binNames, _ := tableRows(t, section(t, readFile(t, "README.md"), "### Binary variables"))
	makeNames, _ := tableRows(t, section(t, readFile(t, "CONTRIBUTING.md"), "## Make and script variables"))
	scripts := scriptVars(t)
	declared := map[string]bool{}
	for _, v := range app.Variables {
		declared[v.Name] = true
	}
	listed := map[string]bool{}
	for _, n := range binNames {
		listed[n] = true
	}
	for _, n := range makeNames {
		// A variable of the binary is in the make table only where the
		// Makefile gives it a value of its own (make run's keys).
		if declared[n] && !slices.Contains(scripts[n], "Makefile") {
			t.Errorf("%s is the binary's and the Makefile does not set it: its row belongs in the binary table only", n)
		}
		listed[n] = true
	}

	goReads, problems := envReads(t)
	for _, p := range problems {
		t.Error(p)
	}
	for name, where := range goReads {
		if !listed[name] {
			t.Errorf("%s is read at %v and missing from the variable tables (README.md, CONTRIBUTING.md)", name, where)
		}
	}
	for name, where := range scripts {
		if !listed[name] {
			t.Errorf("%s is read by %v and missing from the variable tables (README.md, CONTRIBUTING.md)", name, where)
		}
	}
	for _, n := range makeNames {
		if _, ok := goReads[n]; !ok && scripts[n] == nil && !strings.Contains(readFile(t, "Makefile"), n) {
			t.Errorf("CONTRIBUTING.md lists %s, which nothing reads", n)
		}
	}
}
