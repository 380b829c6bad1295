package htmlreport

import "html/template"

// pageTemplate is the whole page; its styles are inline, and it has no
// scripts.
var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 1280px; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; margin-bottom: .2em; }
h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; padding-bottom: .2em; }
h3 { font-size: 1.05em; margin-top: 1.5em; }
.meta { color: #555; }
table { border-collapse: collapse; margin: .5em 0 1em; font-size: 13px; }
th, td { padding: .3em .4em; border-bottom: 1px solid #e4e4e4; text-align: right; white-space: nowrap; }
th { background: #f6f6f6; font-weight: 600; }
td:first-child, th:first-child { text-align: left; }
.hedge { color: #0a6b2d; font-weight: 600; }
.nohedge { color: #8a4b00; font-weight: 600; }
.flag { color: #a40000; }
.warnings li { color: #8a4b00; }
.figures { display: flex; flex-wrap: wrap; gap: 1em; }
.figure svg { width: 100%; max-width: 600px; height: auto; border: 1px solid #eee; }
.figure { flex: 1 1 560px; max-width: 600px; }
.scroll { overflow-x: auto; }
pre { background: #f6f6f6; padding: .6em; overflow-x: auto; }
.map { max-width: 600px; border: 1px solid #eee; }
.map .picked { fill: #c00000; }
.map .eligible { fill: #1f5fa8; }
.map .rejected { fill: #f2b8b8; stroke: #b04040; }
.map text { font-size: 11px; fill: #444; }
#classes th { white-space: normal; }
td.reasons { text-align: left; white-space: normal; min-width: 24em; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
{{range .Lead}}<h2 id="{{.ID}}">{{.Title}}</h2>
{{.HTML}}
{{end}}{{if not .NoReport}}<p class="meta">scenario <b>{{.Scenario}}</b>, seed {{.Seed}}, {{.Requests}} requests per candidate, every candidate on the same random draws; {{.Level}} intervals. Latency is the time to a usable answer (a request without one by its deadline is a miss).</p>
{{if .Overrides}}<p class="meta">what-if overrides: {{range $i, $o := .Overrides}}{{if $i}}, {{end}}<code>{{$o}}</code>{{end}}</p>{{end}}
{{if .Joint}}<p class="meta">optimized jointly: {{range $i, $j := .Joint}}{{if $i}}; {{end}}{{$j}}{{end}}</p>{{end}}
{{range .RuleLines}}<p class="meta">{{.}}</p>
{{end}}
<h2 id="summary">Per class</h2>
<div class="scroll"><table id="classes">
<thead><tr><th>class</th><th>verdict</th><th>pick</th><th>p95</th><th></th><th>p99</th><th></th><th>answered</th><th></th>{{if .WithinHead}}<th>{{.WithinHead}}</th><th></th>{{end}}<th>hedged</th><th>attempts/req</th><th>added cost</th></tr></thead>
<tbody>
{{range .Classes}}<tr class="class-row"><td><a href="#{{.ID}}">{{.Class}}</a></td><td class="{{if .Hedge}}hedge{{else}}nohedge{{end}}">{{.Verdict}}</td><td>{{if and .Hedge .Pipeline}}{{.Delay}}{{else if .Hedge}}{{.Delay}} ×{{.Copies}} → {{.Target}}{{else if .Configured}}configured{{else}}-{{end}}</td><td>{{.P95Before}} → {{.P95After}}</td><td>{{.P95Change}}</td><td>{{.P99Before}} → {{.P99After}}</td><td>{{.P99Change}}</td><td>{{.AnsweredBefore}} → {{.AnsweredAfter}}</td><td>{{.AnsweredChange}}</td>{{if $.WithinHead}}<td>{{.Within}}</td><td>{{.WithinChange}}</td>{{end}}<td>{{.Hedged}}</td><td>{{.AttemptsPerRequest}}</td><td>{{.AddedCost}}</td></tr>
{{end}}</tbody>
</table></div>
<p class="meta">pick: the hedge delay ×copies → their target{{if .AnyPipeline}}, or for a pipeline, "per step:" each hedged step's delay (and ×copies){{end}}; p95, p99 and answered: without hedging → with the pick, and the change.</p>

{{range .Classes}}
<section class="class" id="{{.ID}}">
<h2>{{.Class}}: <span class="{{if .Hedge}}hedge{{else}}nohedge{{end}}">{{.Verdict}}</span></h2>
<p><b>Why:</b> {{.Reason}}</p>
<p><b>Pick:</b> {{.Note}} (objective {{.Objective}}; {{.Candidates}} candidates{{if .OptimizedWith}}; optimized with {{.OptimizedWith}}{{end}})</p>
{{if .Group}}<p><b>Group:</b> {{.Group}}</p>
{{end}}<p class="won">{{if not .Pipeline}}<b>Who answered:</b> {{end}}{{.Won}}{{if .Bought}}. <b>Request by request against no hedging:</b> {{.Bought}}{{end}}.</p>
{{if .Steps}}<table class="steps"><caption>Where {{.StepsOf}} hedging goes, step by step (each against the same pick without hedging that step)</caption>
<tr><th>step</th><th>policy</th><th>what it adds</th></tr>
{{range .Steps}}<tr><td>{{.Step}}</td><td>{{.Policy}}</td><td>{{.Why}}</td></tr>
{{end}}</table>{{end}}
{{if .Search}}<p class="search"><b>Search:</b> {{.Search}}</p>{{end}}
{{if .Warnings}}<ul class="warnings">{{range .Warnings}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Figures}}<div class="figures">{{range .Figures}}<div class="figure" data-figure="{{.Name}}">{{.SVG}}</div>{{end}}</div>{{end}}
{{with .Map}}<h3>Every candidate's fate</h3>
<p class="meta">Each candidate at its added cost and {{.YName}}: <span style="color:#c00000">the pick</span>, <span style="color:#1f5fa8">eligible</span> ({{.Elig}}: within every limit, not the best), <span style="color:#b04040">rejected</span> ({{.Rejected}}: over a limit, refused by the verdict rule, or too few requests for an interval); the line is the frontier{{if .HasMiss}}, the top row misses{{end}}. Hover over a point for its reasons.</p>
<svg class="map" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {{.W}} {{.H}}" width="{{.W}}" height="{{.H}}" role="img" aria-label="candidates by status">
<line x1="{{.Left}}" y1="{{.Bottom}}" x2="{{.Right}}" y2="{{.Bottom}}" stroke="#888"/><line x1="{{.Left}}" y1="{{.Top}}" x2="{{.Left}}" y2="{{.Bottom}}" stroke="#888"/>
<text x="{{.Left}}" y="{{.Bottom}}" dy="14">{{.XMin}}</text><text x="{{.Right}}" y="{{.Bottom}}" dy="14" text-anchor="end">{{.XMax}}</text><text x="324" y="{{.H}}" dy="-4" text-anchor="middle">{{.XLabel}}</text>
<text x="{{.Left}}" y="{{.Bottom}}" dx="-4" text-anchor="end">{{.YMin}}</text><text x="{{.Left}}" y="{{.Top}}" dx="-4" dy="8" text-anchor="end">{{.YMax}}</text><text x="12" y="148" transform="rotate(-90 12 148)" text-anchor="middle">{{.YLabel}}</text>
{{if .Frontier}}<polyline points="{{.Frontier}}" fill="none" stroke="#1f5fa8" stroke-width="1.2"/>{{end}}
{{range .Points}}<circle class="{{.Status}}" cx="{{printf "%.1f" .X}}" cy="{{printf "%.1f" .Y}}" r="{{.R}}"><title>{{.Title}}</title></circle>
{{end}}</svg>{{end}}
{{if .Rejected}}<h3>Rejected candidates</h3>
<div class="scroll"><table class="rejected">
<thead><tr><th>candidate</th><th>{{.RejectedFigure}}</th><th>added cost</th><th>hedged</th><th>why</th><th>codes</th></tr></thead>
<tbody>
{{range .Rejected}}<tr><td>{{.Label}}</td><td>{{.Figure}}</td><td>{{.AddedCost}}</td><td>{{.Hedged}}</td><td class="reasons">{{.Reasons}}</td><td>{{.Codes}}</td></tr>
{{end}}</tbody>
</table></div>{{end}}
</section>
{{end}}{{end}}

{{if .Rollout}}
<h2 id="rollout">Rollout check</h2>
<p>Every class's pick applied at once, the whole scenario simulated on {{.RolloutRequests}} requests: a class whose p95 leaves the sweep's interval is flagged. Spend is at the scenario's arrival rate.</p>
<div class="scroll"><table id="rollout-check">
<thead><tr><th>class</th><th>pick</th><th>p95 in the check</th><th>p95 predicted</th><th>p95 no hedging</th><th>answered</th><th>added cost</th><th>spend per day</th><th>per month (30 d)</th>{{if .HasThroughput}}<th>throughput (95% CI)</th><th>no hedging</th>{{end}}<th></th></tr></thead>
<tbody>
{{range .Rollout}}<tr><td>{{.Class}}</td><td>{{.Pick}}</td><td>{{.Checked}}</td><td>{{.Predicted}}</td><td>{{.NoHedging}}</td><td>{{.Answered}}</td><td>{{.AddedCost}}</td><td>{{.PerDay}}</td><td>{{.PerMonth}}</td>{{if $.HasThroughput}}<td class="throughput">{{.Throughput}}</td><td>{{.NoHedgingThroughput}}</td>{{end}}<td{{if .Flagged}} class="flag"{{end}}>{{if .Flagged}}{{.Flag}}{{else if .TooFew}}too few: {{.Note}}{{else}}ok{{end}}</td></tr>
{{end}}</tbody>
</table></div>
{{if .HasThroughput}}<p class="meta">Throughput: requests per second done by the closed-loop clients, with the pick and without hedging.</p>{{end}}
{{if .Breakers}}<h3>Circuit breakers</h3>
<ul id="breakers">{{range .Breakers}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{end}}

{{with .Routing}}
<h2 id="routing">Routing</h2>
<p>Every replica pool set to each of {{.Balancers}}, the sweep run again; per class no hedging and the pick under each (added cost against no hedging under the configured balancer).</p>
{{range .Classes}}<h3>{{.Class}} (configured: {{.Configured}})</h3>
<div class="scroll"><table class="routing" data-class="{{.Class}}">
<thead><tr><th>balancer</th><th>policy</th><th>{{.Percentile}}</th><th>interval</th><th>answered</th><th>attempts/req</th><th>added cost</th></tr></thead>
<tbody>
{{range .Options}}<tr><td>{{.Balancer}}{{if .Configured}} (configured){{end}}</td><td{{if .Hedged}} class="hedge"{{end}}>{{.Policy}}</td><td>{{.Latency}}</td><td>{{.Interval}}</td><td>{{.Answered}}</td><td>{{.Attempts}}</td><td>{{.AddedCost}}</td></tr>
{{end}}</tbody>
</table></div>
{{if .Verdict}}<p class="verdict">{{.Verdict}}</p>{{end}}
{{end}}{{end}}

{{with .Fleet}}
<h2 id="fleet">Fleet</h2>
<p>Every autoscaled pool's min_replicas set to each of {{.Floors}}, the sweep and its rollout check run again; dollars a month ({{.Days}} d) of the whole fleet at the scenario's rate, replicas (idle ones included) plus tokens.</p>
<div class="scroll"><table id="fleet-settings">
<thead><tr><th>min_replicas</th><th>picks</th><th>meets objective</th><th>replica-hours</th><th>replicas a month</th><th>tokens a month</th><th>total a month</th></tr></thead>
<tbody>
{{range .Settings}}<tr{{if .Cheapest}} class="cheapest"{{end}}><td>{{.MinReplicas}}</td><td>{{.Picks}}</td><td>{{.Meets}}</td><td>{{.ReplicaHours}}</td><td>{{.Replicas}}</td><td>{{.Tokens}}</td><td>{{.Total}}</td></tr>
{{end}}</tbody>
</table></div>
{{if .None}}<p>No setting meets the objective: each has a pick outside its caps or SLA, or an undecided verdict.</p>{{else}}<p>Cheapest meeting the objective: {{.Cheapest}}.</p>{{end}}
{{if .Verdict}}<p class="verdict">{{.Verdict}}</p>{{end}}
{{range .CheaperUndecided}}<p class="undecided">{{.}}</p>
{{end}}{{end}}

{{if .Warnings}}
<h2 id="warnings">Warnings</h2>
<ul class="warnings">{{range .Warnings}}<li>{{.}}</li>{{end}}</ul>
{{end}}

{{if .Commands}}
<h2 id="commands">Commands</h2>
{{range .Commands}}<p>{{.Label}}</p>
<pre>{{.Line}}</pre>
{{end}}
{{end}}

{{range .Extra}}
<h2 id="{{.ID}}">{{.Title}}</h2>
{{.HTML}}
{{end}}
{{if not .NoReport}}<p class="meta">quantiles: {{.Quantiles}}</p>{{end}}
</body>
</html>
`))
