package export

import (
	"strings"
	"testing"
)

// TestGRPCMethodPlaceholderNote: with no --method, a class's name stands
// in for the gRPC method; a name that is no proto identifier (a pipeline
// step's "turn/guard-question", "strict-sla") gets a note calling it a
// placeholder, as SERVICE is one; a valid name ("short") and a given
// method get none.
func TestGRPCMethodPlaceholderNote(t *testing.T) {
	d := ScenarioPolicies(loadShipped(t, "two-model-gateway.toml"))
	d.Classes[1].Class = "turn/guard-question"
	_, notes, err := Write(d, "grpc", Options{Approximate: true})
	if err != nil {
		t.Fatal(err)
	}
	placeholder := map[string]bool{}
	for _, n := range notes {
		if strings.Contains(n.Text, "a placeholder like SERVICE") {
			placeholder[n.Class] = true
		}
	}
	for _, c := range d.Classes {
		want := c.Class == "turn/guard-question" || c.Class == "strict-sla"
		if placeholder[c.Class] != want {
			t.Errorf("class %q: placeholder note %v; want %v", c.Class, placeholder[c.Class], want)
		}
	}
	one := ScenarioPolicies(loadShipped(t, "two-model-gateway.toml"))
	one.Classes = one.Classes[3:] // strict-sla alone, given its method
	_, notes, err = Write(one, "grpc", Options{Method: "Answer", Approximate: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range notes {
		if strings.Contains(n.Text, "placeholder like SERVICE") {
			t.Errorf("--method given, yet: %s", n.Text)
		}
	}
}
