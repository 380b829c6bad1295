package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/hedgesim/hedgesim/scenarios"
)

// TestK8sRetuneCronJob: docs/k8s-retune-cronjob.yaml parses; its CronJob
// runs hedgesim retune once (no retries), failing the Job on exit status 2
// and 3; and its command line works: run here with the scenario a copy of
// guard-check, the output directory a temporary one and the Prometheus URL
// a server that answers 503, it gets as far as the query, retries it until
// --timeout and exits 2 naming the model and the query, with nothing
// written.
func TestK8sRetuneCronJob(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "k8s-retune-cronjob.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cron struct {
		Kind string `json:"kind"`
		Spec struct {
			Schedule    string `json:"schedule"`
			JobTemplate struct {
				Spec struct {
					BackoffLimit     *int `json:"backoffLimit"`
					PodFailurePolicy struct {
						Rules []struct {
							Action      string `json:"action"`
							OnExitCodes struct {
								ContainerName string `json:"containerName"`
								Operator      string `json:"operator"`
								Values        []int  `json:"values"`
							} `json:"onExitCodes"`
						} `json:"rules"`
					} `json:"podFailurePolicy"`
					Template struct {
						Spec struct {
							RestartPolicy string `json:"restartPolicy"`
							Containers    []struct {
								Name    string   `json:"name"`
								Command []string `json:"command"`
								Args    []string `json:"args"`
							} `json:"containers"`
						} `json:"spec"`
					} `json:"template"`
				} `json:"spec"`
			} `json:"jobTemplate"`
		} `json:"spec"`
	}
	found := false
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var kind struct {
			Kind string `json:"kind"`
		}
		if err := yaml.Unmarshal([]byte(doc), &kind); err != nil {
			t.Fatalf("a document of the manifest does not parse: %v", err)
		}
		if kind.Kind == "CronJob" {
			if err := yaml.Unmarshal([]byte(doc), &cron); err != nil {
				t.Fatal(err)
			}
			found = true
		}
	}
	if !found || cron.Spec.Schedule == "" {
		t.Fatal("no CronJob with a schedule in the manifest")
	}
	js := cron.Spec.JobTemplate.Spec
	if js.BackoffLimit == nil || *js.BackoffLimit != 0 {
		t.Error("want backoffLimit 0: a retune that finds drift is not retried")
	}
	if js.Template.Spec.RestartPolicy != "Never" {
		t.Errorf("restartPolicy %q; podFailurePolicy needs Never", js.Template.Spec.RestartPolicy)
	}
	cs := js.Template.Spec.Containers
	if len(cs) != 1 || !slices.Equal(cs[0].Command, []string{"hedgesim"}) || len(cs[0].Args) == 0 || cs[0].Args[0] != "retune" {
		t.Fatalf("want one container running hedgesim retune, got %+v", cs)
	}
	fails := map[int]bool{}
	for _, r := range js.PodFailurePolicy.Rules {
		if r.Action == "FailJob" && r.OnExitCodes.ContainerName == cs[0].Name && r.OnExitCodes.Operator == "In" {
			for _, v := range r.OnExitCodes.Values {
				fails[v] = true
			}
		}
	}
	if !fails[2] || !fails[3] {
		t.Errorf("the Job fails on exit statuses %v; want 2 and 3", fails)
	}

	dir := t.TempDir()
	busy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "starting", http.StatusServiceUnavailable)
	}))
	defer busy.Close()
	src, err := scenarios.FS.ReadFile("guard-check.toml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "scenario.toml"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, a := range cs[0].Args {
		a = strings.ReplaceAll(a, "/scenario/", dir+"/")
		a = strings.ReplaceAll(a, "/out/", dir+"/")
		a = strings.ReplaceAll(a, "http://prometheus:9090", busy.URL)
		args = append(args, a)
	}
	code, _, errOut := hedgesim(t, append(args, "--timeout", "500ms")...)
	if code != 2 || !strings.Contains(errOut, "model llama-guard") || !strings.Contains(errOut, `guard_request_duration_seconds_bucket{model="llama-guard"}[1d]`) {
		t.Errorf("exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "retuned.toml")); err == nil {
		t.Error("retuned.toml written after a failed query")
	}
}
