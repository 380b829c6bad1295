package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/hedgesim/hedgesim/scenarios"
)

// ghWorkflow is the part of a GitHub Actions workflow the test reads.
type ghWorkflow struct {
	On struct {
		Schedule []struct {
			Cron string `json:"cron"`
		} `json:"schedule"`
	} `json:"on"`
	Permissions map[string]string `json:"permissions"`
	Jobs        map[string]struct {
		Steps []ghStep `json:"steps"`
	} `json:"jobs"`
}

// ghStep is one step of a workflow's job.
type ghStep struct {
	ID   string            `json:"id"`
	Name string            `json:"name"`
	If   string            `json:"if"`
	Uses string            `json:"uses"`
	Run  string            `json:"run"`
	With map[string]string `json:"with"`
}

// TestGitHubRetuneWorkflow: docs/github-retune-workflow.yaml parses; it
// runs on a schedule with the permissions a pull request needs; the
// retune step passes on exit status 0 and 3 and fails on any other,
// recording the status (run in bash with hedgesim stubbed to return each);
// the pull request is opened on 3 only, with the retuned scenario and the
// exported configuration; and its hedgesim commands are valid: run here in
// a directory laid out as the workflow expects, with the Prometheus URL a
// server answering 503, retune reaches the query, retries it until
// --timeout and exits 2 naming the model and the query, with nothing
// written, and export writes the configuration `export` prints.
func TestGitHubRetuneWorkflow(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "github-retune-workflow.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// YAML 1.1 reads the key on as true; GitHub reads it as "on".
	data = []byte(strings.Replace(string(data), "\non:\n", "\n\"on\":\n", 1))
	var wf ghWorkflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("the workflow does not parse: %v", err)
	}
	if len(wf.On.Schedule) == 0 || wf.On.Schedule[0].Cron == "" {
		t.Error("no schedule")
	}
	if wf.Permissions["contents"] != "write" || wf.Permissions["pull-requests"] != "write" {
		t.Errorf("permissions %v; a pull request needs contents and pull-requests: write", wf.Permissions)
	}
	job, ok := wf.Jobs["retune"]
	if !ok {
		t.Fatal("no job retune")
	}
	var retuneRun string
	var commands [][]string
	var pr *ghStep
	for i, st := range job.Steps {
		if st.ID == "retune" {
			retuneRun = st.Run
		}
		if strings.HasPrefix(st.Uses, "peter-evans/create-pull-request@") {
			pr = &job.Steps[i]
		}
		for l := range strings.Lines(st.Run) {
			l = strings.TrimSpace(l)
			if !strings.HasPrefix(l, "hedgesim ") {
				continue
			}
			words, err := shellWords(strings.TrimPrefix(l, "hedgesim "))
			if err != nil {
				t.Fatal(err)
			}
			commands = append(commands, words)
		}
	}
	if retuneRun == "" || pr == nil {
		t.Fatal("want a step with id retune and a create-pull-request step")
	}
	if pr.If != "steps.retune.outputs.code == '3'" {
		t.Errorf("the pull request is opened if %q; want on exit status 3 only", pr.If)
	}
	paths := strings.Fields(pr.With["add-paths"])
	if !slices.Contains(paths, "hedge/scenario.toml") || !slices.Contains(paths, "deploy/grpc-service-config.json") || pr.With["body-path"] != "retune-report/report.txt" {
		t.Errorf("the pull request adds %v with body %q; want the scenario, the exported configuration and the report", paths, pr.With["body-path"])
	}

	// The retune step's exit statuses, hedgesim stubbed.
	if bash, err := exec.LookPath("bash"); err == nil {
		for _, c := range []struct{ hedgesim, exit, code string }{{"0", "0", "0"}, {"3", "0", "3"}, {"2", "2", "2"}, {"1", "1", "1"}} {
			out := filepath.Join(t.TempDir(), "output")
			cmd := exec.Command(bash, "-e", "-c", "hedgesim() { return "+c.hedgesim+"; }\n"+retuneRun)
			cmd.Env = append(os.Environ(), "GITHUB_OUTPUT="+out, "PROMETHEUS_URL=http://prometheus:9090")
			err := cmd.Run()
			exit := "0"
			if ee, ok := err.(*exec.ExitError); ok {
				exit = strings.TrimSpace(strings.TrimPrefix(ee.Error(), "exit status "))
			} else if err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(out)
			if exit != c.exit || strings.TrimSpace(string(got)) != "code="+c.code {
				t.Errorf("hedgesim exits %s: the step exits %s and records %q; want %s and code=%s", c.hedgesim, exit, got, c.exit, c.code)
			}
		}
	} else {
		t.Log("no bash: the retune step's exit statuses are not checked")
	}

	// The hedgesim commands, in a directory laid out as the workflow
	// expects.
	dir := t.TempDir()
	t.Chdir(dir)
	src, err := scenarios.FS.ReadFile("guard-check.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"hedge", "deploy"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join("hedge", "scenario.toml"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	busy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "starting", http.StatusServiceUnavailable)
	}))
	defer busy.Close()
	var ran []string
	for _, words := range commands {
		for i, w := range words {
			words[i] = strings.ReplaceAll(w, "$PROMETHEUS_URL", busy.URL)
		}
		ran = append(ran, words[0])
		switch words[0] {
		case "retune":
			code, _, errOut := hedgesim(t, append(words, "--timeout", "500ms")...)
			if code != 2 || !strings.Contains(errOut, "model llama-guard") || !strings.Contains(errOut, `guard_request_duration_seconds_bucket{model="llama-guard"}[1d]`) {
				t.Errorf("retune: exit %d: %s", code, errOut)
			}
			for _, p := range []string{"retuned.toml", "retune-report"} {
				if _, err := os.Stat(p); err == nil {
					t.Errorf("%s written after a failed query", p)
				}
			}
		case "export":
			code, _, errOut := hedgesim(t, words...)
			_, want, _ := hedgesim(t, "export", "--format", "grpc", filepath.Join("hedge", "scenario.toml"))
			got, err := os.ReadFile(filepath.Join("deploy", "grpc-service-config.json"))
			if code != 0 || err != nil || string(got) != want {
				t.Errorf("export: exit %d, %v: %s; wrote %q, want %q", code, err, errOut, got, want)
			}
		default:
			t.Errorf("hedgesim %s: not a command the test knows", words[0])
		}
	}
	if !slices.Equal(ran, []string{"retune", "export"}) {
		t.Errorf("hedgesim commands %v; want retune, then export", ran)
	}
}
