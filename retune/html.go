package retune

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"strconv"

	"github.com/hedgesim/hedgesim/fit"
	"github.com/hedgesim/hedgesim/htmlreport"
)

// WriteHTML writes the report as one self-contained HTML page (package
// htmlreport's look, nothing loaded from anywhere): each model's drift, and
// when a model shifted, the current policy predicted → now, each class's
// keep or change, the export diff when there is one, and then the new
// optimisation on the live models as `hedgesim optimize --out` shows it
// (its figures too unless noFigures). commands are shown under
// "Commands". Every name and message is escaped by html/template.
func (r *Report) WriteHTML(w io.Writer, commands []htmlreport.Command, noFigures bool) error {
	lead, err := r.htmlSections()
	if err != nil {
		return err
	}
	title := "hedgesim retune: " + r.Scenario
	if r.Recheck == nil {
		return htmlreport.WriteSections(w, title, htmlreport.Options{Lead: lead, Commands: commands})
	}
	// The optimisation's own page follows, under a heading of its own.
	lead = append(lead, htmlreport.Section{ID: "optimisation", Title: "The optimisation on the live models",
		HTML: "<p>Every class optimized on the live models, as <code>hedgesim optimize</code> reports it: the picks, each class's candidates and, below, the commands.</p>"})
	return htmlreport.Write(w, r.Recheck.New, htmlreport.Options{Title: title, Lead: lead, Commands: commands, NoFigures: noFigures})
}

type htmlShift struct{ Scenario, Live, Interval, Moved string }

type htmlModel struct {
	Model, Verdict, N, ChiSquare, DF, P, Describe, Why, Series, Fit string
	// Against is what the histogram was judged against when simulated
	// (queued, or answered calls cancels censor), NotApplied why a shifted
	// model's live fit is not applied; "" otherwise.
	Against, NotApplied string
	Warnings            []string
	Percentiles         []htmlShift
	Shares              []string
}

type htmlClass struct {
	Class, Policy, P95, P99, Answered, AddedCost, Flag string
	Decision, New, NewP95, NewAnswered, NewCost, Why   string
	OverCap, PickNote                                  string
	// Held says the row keeps the scenario's model for the class's held
	// models (ClassAdvice.Held); "" when none.
	Held string
	// TooFew is the check's note when its p95 is not compared with the
	// prediction's (too few requests on either side); "" otherwise.
	TooFew string
	Change bool
}

type htmlAdaptive struct {
	Requests    int
	Shift, Note string
	Rows        []adaptiveRow
	Verdicts    []string
	Skipped     []string
}

type htmlView struct {
	Scenario, Source, At, Alpha, Level string
	Action                             bool
	Models                             []htmlModel
	// Held is the notes on shifted models not refitted (Report.heldNotes).
	Held                       []string
	Recheck                    bool
	CheckRequests, NewRequests int
	Classes                    []htmlClass
	Export                     *ExportDiff
	Adaptive                   *htmlAdaptive
	// Moved says whether a percentile's mark * is shown, and so its note.
	Moved bool
}

// htmlSections returns the report's own sections of the page.
func (r *Report) htmlSections() ([]htmlreport.Section, error) {
	v := htmlView{Scenario: r.Scenario, Source: r.Source, At: r.At, Alpha: strconv.FormatFloat(r.Alpha, 'g', -1, 64),
		Level: strconv.FormatFloat(100*(1-r.Alpha), 'g', -1, 64) + "%", Action: r.Action, Export: r.Export}
	for _, m := range r.Models {
		d := &m.Drift
		hm := htmlModel{Model: m.Model, Verdict: d.Verdict, N: fit.FormatCount(d.N), Warnings: d.Warnings,
			ChiSquare: fmt.Sprintf("%.1f", d.ChiSquare), DF: strconv.Itoa(d.DF), P: pText(d.PValue),
			Describe: d.Describe(), Why: d.Why, Series: m.Query + " in " + m.Source,
			Fit: m.Key + ": " + m.Fit.Describe(), NotApplied: m.NotApplied}
		if m.simulated() {
			hm.Against = m.Against
		}
		for _, s := range d.Percentiles {
			hs := htmlShift{Scenario: num(s.Scenario), Live: num(s.Live), Interval: "[" + num(s.Lo) + ", " + num(s.Hi) + "]"}
			if s.Moved {
				hs.Moved, v.Moved = "*", true
			}
			hm.Percentiles = append(hm.Percentiles, hs)
		}
		for _, s := range d.Shares {
			hm.Shares = append(hm.Shares, fmt.Sprintf("path at median %s s: share %.3g in the scenario, %.3g live (SE %.2g)", num(s.Median), s.Scenario, s.Live, s.SE))
		}
		v.Models = append(v.Models, hm)
	}
	v.Held = r.heldNotes()
	if rc := r.Recheck; rc != nil {
		v.Recheck, v.CheckRequests, v.NewRequests = true, rc.Check.Requests, rc.New.RequestsPerCandidate
		for _, c := range rc.Classes {
			n := &c.Now
			hc := htmlClass{Class: c.Class, Policy: c.CurrentLabel,
				P95: sec(n.Predicted.P95) + " → " + sec(n.Checked.P95), P99: sec(n.Predicted.P99) + " → " + sec(n.Checked.P99),
				Answered:  fmt.Sprintf("%.1f%% → %.1f%%", 100*n.PredictedAnswered, 100*n.AnsweredShare),
				AddedCost: pctText(n.PredictedAddedCostPct) + " → " + pctOf(n.AddedCostPct), Flag: n.Flag,
				Decision: c.Decision, New: c.New, Why: c.Why, Change: c.Decision == Change}
			hc.NewP95, hc.NewAnswered, hc.NewCost = c.newCells()
			if n.TooFew || n.PredictedTooFew {
				hc.TooFew = n.Note
			}
			if c.OverCostCap {
				hc.OverCap = c.OverCostCapWhy
			}
			if c.New == "none" && !c.SamePolicy {
				hc.PickNote = c.NewPickNote
			}
			if len(c.Held) > 0 {
				hc.Held = c.heldText()
			}
			v.Classes = append(v.Classes, hc)
		}
	}
	if r.Recheck != nil && r.Recheck.Adaptive != nil {
		ac := r.Recheck.Adaptive
		ha := &htmlAdaptive{Requests: ac.Requests, Shift: ac.Shift, Note: ac.ShiftNote, Skipped: ac.Skipped}
		ha.Rows = ac.rows()
		for i := range ac.Classes {
			c := &ac.Classes[i]
			v := fmt.Sprintf("%s: %s: %s. %s", c.Class, c.Verdict, verdictText(c), c.Why)
			if c.CostNote != "" {
				v += ". " + c.CostNote
			}
			ha.Verdicts = append(ha.Verdicts, v)
		}
		v.Adaptive = ha
	}
	var out []htmlreport.Section
	for _, s := range []struct{ id, title, tmpl string }{
		{"drift", "Drift per model", "drift"},
		{"current-policy", "The current policy, predicted → now", "current"},
		{"decisions", "Keep or change", "decisions"},
		{"adaptive", "Adaptive delay against the static policy", "adaptive"},
		{"export-diff", "Export diff", "export"},
	} {
		var b bytes.Buffer
		if err := htmlSectionTemplates.ExecuteTemplate(&b, s.tmpl, v); err != nil {
			return nil, err
		}
		if b.Len() == 0 {
			continue
		}
		out = append(out, htmlreport.Section{ID: s.id, Title: s.title, HTML: template.HTML(b.String())}) // escaped by html/template
	}
	return out, nil
}

// htmlSectionTemplates render the sections; one that renders nothing is
// left out.
var htmlSectionTemplates = template.Must(template.New("").Parse(`
{{define "drift"}}<p class="meta">histograms from <b>{{.Source}}</b> read at {{.At}}; drift judged at level {{.Alpha}}: Pearson's chi-square on the buckets, percentile intervals at {{.Level}} (the buckets holding the order-statistic ranks). {{if .Action}}<span class="flag">Action: a model shifted, a class should change its policy, or a current policy is over its cost cap.</span>{{else}}Nothing to do.{{end}}</p>
<div class="scroll"><table id="drift">
<thead><tr><th>model</th><th>observations</th><th>verdict</th><th>X²</th><th>df</th><th>p</th><th>p50 scenario → live [interval]</th><th>p95</th><th>p99</th></tr></thead>
<tbody>
{{range .Models}}<tr class="model-row"><td>{{.Model}}</td><td>{{.N}}</td><td class="{{if eq .Verdict "shifted"}}flag{{end}}">{{.Verdict}}</td><td>{{.ChiSquare}}</td><td>{{.DF}}</td><td>{{.P}}</td>{{range .Percentiles}}<td>{{.Scenario}} → {{.Live}} {{.Interval}} {{.Moved}}</td>{{end}}</tr>
{{end}}</tbody>
</table></div>
{{if .Moved}}<p class="meta">* the scenario's percentile lies outside the live interval.</p>{{end}}
{{range .Models}}<h3>{{.Model}}: {{.Verdict}}</h3>
<p>{{.Describe}}</p>
<p>{{.Why}}</p>
{{if .Against}}<p>judged against {{.Against}}</p>
{{end}}{{if .NotApplied}}<p class="flag">{{.NotApplied}}</p>
{{end}}{{range .Warnings}}<p>warning: {{.}}</p>
{{end}}<p class="meta">series: {{.Series}}; live fit ({{.Fit}})</p>
{{if .Shares}}<ul>{{range .Shares}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{end}}{{range .Held}}<p class="flag">{{.}}</p>
{{end}}{{if and (not .Recheck) (not .Held)}}<p>No model shifted: the scenario's models and policies stand; nothing simulated.</p>{{end}}{{end}}
{{define "current"}}{{if .Recheck}}<p>Every class's current policy simulated on {{.CheckRequests}} requests on the scenario's models (what the scenario predicted) and on the live ones (the rollout check).</p>
<div class="scroll"><table id="current-policy-table">
<thead><tr><th>class</th><th>policy</th><th>p95</th><th>p99</th><th>answered</th><th>added cost</th><th></th></tr></thead>
<tbody>
{{range .Classes}}<tr><td>{{.Class}}</td><td>{{.Policy}}</td><td>{{.P95}}</td><td>{{.P99}}</td><td>{{.Answered}}</td><td>{{.AddedCost}}</td><td{{if .Flag}} class="flag"{{end}}>{{if .Flag}}{{.Flag}}{{else if .TooFew}}too few: {{.TooFew}}{{else}}ok{{end}}{{if .Held}}; {{.Held}}{{end}}</td></tr>
{{end}}</tbody>
</table></div>{{end}}{{end}}
{{define "decisions"}}{{if .Recheck}}<p>Every class optimized on the live models, {{.NewRequests}} requests per candidate (the sections below, as <code>hedgesim optimize</code> reports them).</p>
<div class="scroll"><table id="decisions-table">
<thead><tr><th>class</th><th>decision</th><th>new pick</th><th>p95</th><th>answered</th><th>added cost</th></tr></thead>
<tbody>
{{range .Classes}}<tr><td>{{.Class}}</td><td class="{{if .Change}}flag{{else}}hedge{{end}}">{{.Decision}}</td><td>{{.New}}</td><td>{{.NewP95}}</td><td>{{.NewAnswered}}</td><td>{{.NewCost}}</td></tr>
{{end}}</tbody>
</table></div>
<ul>{{range .Classes}}<li><b>{{.Class}}</b>: {{.Decision}}: {{.Why}}{{if .OverCap}} <span class="flag">{{.OverCap}}</span>{{end}}{{if .PickNote}} New pick none (no hedging): {{.PickNote}}{{end}}</li>
{{end}}</ul>{{end}}{{end}}
{{define "adaptive"}}{{with .Adaptive}}<p>Each class's static policy (the new pick where the decision is change, else the current policy) and an adaptive percentile delay, simulated on the same {{.Requests}} requests on the live models and through the shift between the scenario's models and the live ones: retune on a schedule, or let the client adapt?</p>
<p class="meta">{{if .Note}}No shift modelled: {{.Note}}{{else}}The shift: {{.Shift}}{{end}}</p>
{{if .Rows}}<div class="scroll"><table id="adaptive-table">
<thead><tr><th>class</th><th>policy</th><th>models</th><th>percentile</th><th>answered</th><th>hedged</th><th>added cost</th><th>mean delay</th></tr></thead>
<tbody>
{{range .Rows}}<tr><td>{{.Class}}</td><td>{{.Policy}}</td><td>{{.Models}}</td><td>{{.P}} {{.Q}}</td><td>{{.Answered}}</td><td>{{.Hedged}}</td><td>{{.AddedCost}}</td><td>{{.Delay}}</td></tr>
{{end}}</tbody>
</table></div>{{end}}
<ul>{{range .Verdicts}}<li>{{.}}</li>{{end}}{{range .Skipped}}<li>not compared: {{.}}</li>{{end}}</ul>{{end}}{{end}}
{{define "export"}}{{with .Export}}{{if .Error}}<p class="flag">The new picks cannot be written with <code>hedgesim export --format {{.Format}}</code>: {{.Error}}</p>{{else}}<p>The runtime configuration (<code>hedgesim export --format {{.Format}}</code>) of the current policies against the retuned scenario's{{if .Diff}}:{{else}}: the same, no diff.{{end}}</p>
{{if .Diff}}<pre id="export-diff-text">{{.Diff}}</pre>{{end}}
{{if .Notes}}<ul class="warnings">{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}{{end}}{{end}}{{end}}
`))
