package compare

import (
	"fmt"
	"strings"
)

// Fates across reports. Two optimize reports of one class may pick
// different policies; each report says of every candidate why it was not
// picked (its status and reasons). When the picks differ, the comparison
// says what each report made of the other's pick: "A's pick in B:
// rejected: overloads the rate limit of model b … [overloads_rate_limit]".

// candidate is one candidate of an optimize report, as a comparison reads
// it: its policy (Policy's wording), status and reasons.
type candidate struct {
	policy  string
	status  string
	reasons []reason
}

// reason is one reason of a candidate's: its code and text.
type reason struct {
	Code string `json:"code"`
	Text string `json:"text"`
}

// Fate is what one report made of a policy another report picked.
type Fate struct {
	// Policy is the other report's pick, Found whether this report tried
	// it, and Status and Reasons its fate here ("rejected", "eligible";
	// the reasons in words with their codes).
	Policy  string
	Found   bool
	Status  string
	Reasons []string
}

// String says it in words.
func (f Fate) String() string {
	if !f.Found {
		return fmt.Sprintf("%s: not among its candidates", f.Policy)
	}
	if len(f.Reasons) == 0 {
		return fmt.Sprintf("%s: %s", f.Policy, f.Status)
	}
	return fmt.Sprintf("%s: %s: %s", f.Policy, f.Status, strings.Join(f.Reasons, "; "))
}

// fateOf returns what class c (of an optimize report) made of policy.
func fateOf(c *Class, policy string) Fate {
	f := Fate{Policy: policy}
	for _, k := range c.candidates {
		if k.policy == policy {
			f.Found, f.Status = true, k.status
			for _, r := range k.reasons {
				f.Reasons = append(f.Reasons, fmt.Sprintf("%s [%s]", r.Text, r.Code))
			}
			break
		}
	}
	return f
}

// crossFates fills the row's fates when both sides are optimize reports
// that pick different policies for the class.
func crossFates(r *Row, a, b *Class) {
	if a.pickPolicy == "" || b.pickPolicy == "" || a.pickPolicy == b.pickPolicy || a.candidates == nil || b.candidates == nil {
		return
	}
	fa, fb := fateOf(b, a.pickPolicy), fateOf(a, b.pickPolicy)
	r.APickInB, r.BPickInA = &fa, &fb
}

// policyOf names a candidate's policy: "no hedging", "800ms ×1 → b", or
// for a pipeline's (steps), "per step: " and its label.
func policyOf(hedging bool, delayS float64, copies int, target, label string, steps bool) string {
	switch {
	case !hedging:
		return "no hedging"
	case steps:
		return "per step: " + label
	}
	return fmt.Sprintf("%s ×%d → %s", formatSeconds(delayS), copies, target)
}

// bought returns the deltas of what two optimize picks bought, request
// by request: the share that met the class's target (a two-proportion
// test), and the shares rescued and harmed against no hedging (no test:
// each is paired with its own baseline); none when either report lacks
// them.
func bought(a, b *Class) []Delta {
	if a.met == nil || b.met == nil {
		return nil
	}
	out := []Delta{proportion("met", *a.met, *b.met, a.Requests, b.Requests)}
	if a.rescued != nil && b.rescued != nil {
		out = append(out,
			Delta{Metric: "rescued", A: *a.rescued, B: *b.rescued, Change: 100 * (*b.rescued - *a.rescued), Mark: NoTest},
			Delta{Metric: "harmed", A: *a.harmed, B: *b.harmed, Change: 100 * (*b.harmed - *a.harmed), Mark: NoTest})
	}
	return out
}
