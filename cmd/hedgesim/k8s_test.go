package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// k8sObject is what the test reads of a manifest's object.
type k8sObject struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name   string            `json:"name"`
		Labels map[string]string `json:"labels"`
	} `json:"metadata"`
	Spec struct {
		CompletionMode   string `json:"completionMode"`
		Completions      *int   `json:"completions"`
		Parallelism      *int   `json:"parallelism"`
		BackoffLimit     *int   `json:"backoffLimit"`
		PodFailurePolicy *struct {
			Rules []struct {
				Action      string `json:"action"`
				OnExitCodes *struct {
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
					Name            string   `json:"name"`
					Image           string   `json:"image"`
					ImagePullPolicy string   `json:"imagePullPolicy"`
					Command         []string `json:"command"`
					Args            []string `json:"args"`
					VolumeMounts    []struct {
						Name      string `json:"name"`
						MountPath string `json:"mountPath"`
					} `json:"volumeMounts"`
				} `json:"containers"`
				Volumes []struct {
					Name                  string `json:"name"`
					PersistentVolumeClaim *struct {
						ClaimName string `json:"claimName"`
					} `json:"persistentVolumeClaim"`
				} `json:"volumes"`
			} `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
}

// TestK8sIndexedJobManifest: docs/k8s-indexed-job.yaml parses; its shard
// Job is an Indexed Job of n completions whose pods run --shard
// $(JOB_COMPLETION_INDEX)/n into the shared volume, its merge Job merges
// exactly those n parts; and the commands work: run here with the index
// substituted as Kubernetes does, the volume in a temporary directory and
// fewer requests, they produce the report.
func TestK8sIndexedJobManifest(t *testing.T) {
	t.Parallel() // in-process CLI runs that set no test hook and keep the working directory
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "k8s-indexed-job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var shards, merge *k8sObject
	claims := map[string]bool{}
	for _, doc := range strings.Split(string(data), "\n---\n") {
		var o k8sObject
		if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
			t.Fatalf("a document of the manifest does not parse: %v\n%s", err, doc)
		}
		switch {
		case o.Kind == "PersistentVolumeClaim":
			claims[o.Metadata.Name] = true
		case o.Kind == "Job" && o.Spec.CompletionMode == "Indexed":
			shards = &o
		case o.Kind == "Job":
			merge = &o
		}
	}
	if shards == nil || merge == nil {
		t.Fatalf("want an Indexed Job and a merge Job; shards %v, merge %v", shards != nil, merge != nil)
	}
	if shards.Spec.Completions == nil || shards.Spec.Parallelism == nil {
		t.Fatal("the Indexed Job lacks completions or parallelism")
	}
	n := *shards.Spec.Completions
	for _, j := range []*k8sObject{shards, merge} {
		ps := j.Spec.Template.Spec
		if ps.RestartPolicy != "Never" && ps.RestartPolicy != "OnFailure" {
			t.Errorf("job %s: restartPolicy %q; a Job needs Never or OnFailure", j.Metadata.Name, ps.RestartPolicy)
		}
		if len(ps.Containers) != 1 || !slices.Equal(ps.Containers[0].Command, []string{"hedgesim"}) {
			t.Fatalf("job %s: want one container running hedgesim", j.Metadata.Name)
		}
		if len(ps.Volumes) != 1 || ps.Volumes[0].PersistentVolumeClaim == nil || !claims[ps.Volumes[0].PersistentVolumeClaim.ClaimName] {
			t.Errorf("job %s: want the shared volume of the manifest's PersistentVolumeClaim", j.Metadata.Name)
		}
		if m := ps.Containers[0].VolumeMounts; len(m) != 1 || m[0].MountPath != "/parts" {
			t.Errorf("job %s: want the volume at /parts", j.Metadata.Name)
		}
		// An image tagged :latest (or untagged) is pulled Always by
		// default: a locally built image would fail to pull.
		if c := ps.Containers[0]; c.ImagePullPolicy != "IfNotPresent" && c.ImagePullPolicy != "Never" {
			t.Errorf("job %s: image %s with imagePullPolicy %q; want IfNotPresent", j.Metadata.Name, c.Image, c.ImagePullPolicy)
		}
		// Exit status 2 is bad input: a Job that retries must fail at once
		// on it instead (podFailurePolicy, which needs restartPolicy Never).
		if j.Spec.BackoffLimit == nil || *j.Spec.BackoffLimit > 0 {
			failsOn2 := false
			if p := j.Spec.PodFailurePolicy; p != nil {
				for _, r := range p.Rules {
					e := r.OnExitCodes
					if r.Action == "FailJob" && e != nil && e.Operator == "In" && slices.Contains(e.Values, 2) &&
						(e.ContainerName == "" || e.ContainerName == ps.Containers[0].Name) {
						failsOn2 = true
					}
				}
			}
			if !failsOn2 || ps.RestartPolicy != "Never" {
				t.Errorf("job %s retries (backoffLimit > 0) but does not fail on exit status 2 (podFailurePolicy FailJob onExitCodes In [2], restartPolicy Never)", j.Metadata.Name)
			}
		}
	}
	shardArgs := shards.Spec.Template.Spec.Containers[0].Args
	if k := slices.Index(shardArgs, "--shard"); k < 0 || shardArgs[k+1] != fmt.Sprintf("$(JOB_COMPLETION_INDEX)/%d", n) {
		t.Fatalf("the shard Job's args %q lack --shard $(JOB_COMPLETION_INDEX)/%d", shardArgs, n)
	}

	// Run the manifest's commands.
	vol := t.TempDir()
	local := func(args []string, index int) []string {
		out := make([]string, len(args))
		for i, a := range args {
			a = strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", fmt.Sprint(index))
			out[i] = strings.Replace(a, "/parts", vol, 1)
			if i > 0 && args[i-1] == "--requests" {
				out[i] = "400"
			}
		}
		return append(out, "--check-requests", "800")
	}
	for i := range n {
		if code, _, errOut := hedgesim(t, local(shardArgs, i)...); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, errOut)
		}
	}
	mergeArgs := local(merge.Spec.Template.Spec.Containers[0].Args, -1)
	mergeArgs = mergeArgs[:len(mergeArgs)-2]
	code, out, errOut := hedgesim(t, mergeArgs...)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(vol, "report", "report.json")); err != nil {
		t.Fatalf("merge wrote no report: %v\n%s", err, out)
	}
}
