// Package deploy checks, without a container engine, what can be checked of
// the container image and the compose file (deploy/): that the compose file
// parses as the compose specification reads it and names only variables
// the binary reads, that deploy/env.example lists every variable, and that
// the Dockerfile builds the binary with `make build`'s command line, static,
// on a minimal base, as a non-root user, with a health check.
//
// The compose file is read with compose-spec/compose-go, the loader of
// `docker compose` itself (schema validation, interpolation, merge keys,
// env_file), rather than with `docker compose config`: that needs the compose
// plugin, which a machine with the docker client alone (this one) or
// without docker at all (CI) lacks.
package deploy

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/cli"
	"github.com/compose-spec/compose-go/v2/types"

	"github.com/feria/feria/app"
)

// known is every variable the binary reads.
func known() map[string]bool {
	m := map[string]bool{}
	for _, v := range app.Variables {
		m[v.Name] = true
	}
	return m
}

// composeProject loads deploy/compose.yaml from a copy of deploy/ in which
// feria.env is env.example, as an operator starts it (cp env.example
// feria.env), with env as the shell's environment.
func composeProject(t *testing.T, env ...string) (*types.Project, error) {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"compose.yaml", "Dockerfile", "env.example"} {
		b, err := os.ReadFile(filepath.Join("../../deploy", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, "env.example"))
	if err := os.WriteFile(filepath.Join(dir, "feria.env"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	opts, err := cli.NewProjectOptions([]string{filepath.Join(dir, "compose.yaml")}, cli.WithEnv(env), cli.WithWorkingDirectory(dir))
	if err != nil {
		t.Fatal(err)
	}
	return opts.LoadProject(context.Background())
}

var secrets = []string{"POSTGRES_PASSWORD=pg-secret", "MINIO_ROOT_PASSWORD=minio-secret"}

// The compose file parses; it runs PostgreSQL, Redis and MinIO, the
// migrations once before any API or worker, two API and two worker
// processes; feria's containers get only variables feria reads.
func TestCompose(t *testing.T) {
	p, err := composeProject(t, secrets...)
	if err != nil {
		t.Fatalf("deploy/compose.yaml does not load: %v", err)
	}
	names := p.ServiceNames()
	slices.Sort(names)
	if want := []string{"api", "migrate", "minio", "postgres", "redis", "worker"}; !slices.Equal(names, want) {
		t.Fatalf("services %v, want %v", names, want)
	}
	vars := known()
	feria := map[string]string{"migrate": "migrate", "api": "serve", "worker": "worker"}
	for name, command := range feria {
		s := p.Services[name]
		if s.Build == nil || s.Build.Dockerfile != "deploy/Dockerfile" || filepath.Clean(s.Build.Context) != filepath.Dir(p.WorkingDir) {
			t.Errorf("%s: build %+v, want deploy/Dockerfile from the repository's root", name, s.Build)
		}
		if !slices.Equal([]string(s.Command), []string{command}) {
			t.Errorf("%s: command %v, want [%s]", name, s.Command, command)
		}
		for k := range s.Environment {
			if !vars[k] {
				t.Errorf("%s: variable %s is not one feria reads (app.Variables)", name, k)
			}
		}
		// The backends are the compose file's own, whatever feria.env says.
		for k, want := range map[string]string{"REDIS_URL": "redis://redis:6379/0", "S3_ENDPOINT": "minio:9000",
			"DATABASE_URL": "postgres://feria:pg-secret@postgres:5432/feria?sslmode=disable", "S3_SECRET_KEY": "minio-secret"} {
			if got := s.Environment[k]; got == nil || *got != want {
				t.Errorf("%s: %s = %v, want %s", name, k, got, want)
			}
		}
		if name != "migrate" {
			if d := s.DependsOn["migrate"]; d.Condition != types.ServiceConditionCompletedSuccessfully {
				t.Errorf("%s: depends on migrate %+v, want completed successfully", name, d)
			}
		}
	}
	for _, name := range []string{"api", "worker"} {
		if s := p.Services[name]; s.GetScale() != 2 {
			t.Errorf("%s: %d replicas, want 2", name, s.GetScale())
		}
	}
	if m := p.Services["migrate"]; m.Restart != "no" || m.DependsOn["postgres"].Condition != types.ServiceConditionHealthy {
		t.Errorf("migrate: restart %q, depends on %+v; want once, after PostgreSQL is healthy", m.Restart, m.DependsOn)
	}
	for _, name := range []string{"worker", "migrate"} {
		if h := p.Services[name].HealthCheck; h == nil || !h.Disable {
			t.Errorf("%s has no HTTP listener: its health check must be off, got %+v", name, h)
		}
	}
	if h := p.Services["api"].HealthCheck; h != nil && h.Disable {
		t.Error("api: the image's health check is turned off")
	}
	for _, name := range []string{"postgres", "redis", "minio"} {
		if h := p.Services[name].HealthCheck; h == nil || h.Disable || len(h.Test) == 0 {
			t.Errorf("%s: no health check for the others to wait on", name)
		}
	}
}

// The passwords of the services are not defaulted: compose refuses to
// start without them, naming the file they go in.
func TestComposeNeedsPasswords(t *testing.T) {
	_, err := composeProject(t)
	if err == nil || !strings.Contains(err.Error(), "set POSTGRES_PASSWORD in deploy/.env") {
		t.Fatalf("without POSTGRES_PASSWORD: %v", err)
	}
}

// deploy/env.example lists every variable of the binary, in app.Variables'
// order, each after its meaning; nothing else.
func TestEnvExample(t *testing.T) {
	f, err := os.Open("../../deploy/env.example")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	assignment := regexp.MustCompile(`^#?([A-Za-z_][A-Za-z0-9_]*)=(.*)$`)
	var names, comments []string
	var comment strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if m := assignment.FindStringSubmatch(line); m != nil {
			names = append(names, m[1])
			comments = append(comments, comment.String())
			comment.Reset()
			continue
		}
		comment.WriteString(strings.TrimPrefix(line, "# ") + "\n")
	}
	var want []string
	for _, v := range app.Variables {
		want = append(want, v.Name)
	}
	if !slices.Equal(names, want) {
		t.Fatalf("env.example lists %v\nwant %v", names, want)
	}
	for i, v := range app.Variables {
		if meaning := strings.ReplaceAll(v.Meaning, "`", ""); !strings.Contains(comments[i], meaning) {
			t.Errorf("%s: not preceded by its meaning %q", v.Name, meaning)
		}
	}
}

// instruction is one Dockerfile instruction, its continuation lines joined.
type instruction struct{ cmd, args string }

func dockerfile(t *testing.T) (stages [][]instruction) {
	t.Helper()
	b, err := os.ReadFile("../../deploy/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	var cur strings.Builder
	for _, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "#") || (trimmed == "" && cur.Len() == 0) {
			continue
		}
		if strings.HasSuffix(trimmed, "\\") {
			cur.WriteString(strings.TrimSuffix(trimmed, "\\") + " ")
			continue
		}
		cur.WriteString(trimmed)
		cmd, args, _ := strings.Cut(cur.String(), " ")
		cur.Reset()
		if cmd = strings.ToUpper(cmd); cmd == "FROM" {
			stages = append(stages, nil)
		}
		if len(stages) > 0 {
			stages[len(stages)-1] = append(stages[len(stages)-1], instruction{cmd, strings.TrimSpace(args)})
		}
	}
	return stages
}

// makeBuild is the command line of `make build`, with the default GO.
func makeBuild(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^build:.*\n\t(.+)$`).FindStringSubmatch(string(b))
	if m == nil {
		t.Fatal("the Makefile has no build target")
	}
	return strings.ReplaceAll(m[1], "$(GO)", "go")
}

// The image: the binary built with `make build`'s command line, static
// (CGO off), copied onto a minimal base and run as a non-root user, with a
// health check that the binary answers itself.
func TestDockerfile(t *testing.T) {
	stages := dockerfile(t)
	if len(stages) != 2 {
		t.Fatalf("%d stages, want 2 (build, run)", len(stages))
	}
	build, run := stages[0], stages[1]
	var built, static bool
	for _, in := range build {
		if in.cmd == "RUN" && strings.Contains(in.args, "go build") {
			if in.args != makeBuild(t) {
				t.Errorf("the image builds with %q, make build with %q", in.args, makeBuild(t))
			}
			built = true
		}
		if in.cmd == "ENV" && strings.Contains(in.args, "CGO_ENABLED=0") {
			static = true
		}
	}
	if !built || !static {
		t.Errorf("build stage: go build %v, CGO_ENABLED=0 %v", built, static)
	}
	vars := known()
	got := map[string]string{}
	for _, in := range run {
		switch in.cmd {
		case "FROM":
			if !strings.HasPrefix(in.args, "gcr.io/distroless/static") && in.args != "scratch" {
				t.Errorf("run stage on %s, want distroless/static or scratch", in.args)
			}
		case "ENV":
			for _, kv := range strings.Fields(in.args) {
				if k, _, _ := strings.Cut(kv, "="); !vars[k] {
					t.Errorf("ENV %s is not a variable feria reads", k)
				}
			}
		case "COPY":
			if strings.Contains(in.args, "bin/feria") && !strings.HasSuffix(in.args, "/src/bin/feria /usr/local/bin/feria") {
				t.Errorf("COPY %s: not the binary make build wrote", in.args)
			}
		}
		got[in.cmd] = in.args
	}
	if u := got["USER"]; u == "" || u == "root" || strings.HasPrefix(u, "0") {
		t.Errorf("USER %q, want a non-root user", u)
	}
	if h := got["HEALTHCHECK"]; !strings.Contains(h, `CMD ["/usr/local/bin/feria", "health"]`) {
		t.Errorf("HEALTHCHECK %q, want the binary's own `feria health`", h)
	}
	if e := got["ENTRYPOINT"]; e != `["/usr/local/bin/feria"]` || got["CMD"] != `["serve"]` {
		t.Errorf("ENTRYPOINT %s CMD %s", e, got["CMD"])
	}
	if !strings.Contains(app.Usage, "\n  health ") {
		t.Error("feria has no health command")
	}
}
