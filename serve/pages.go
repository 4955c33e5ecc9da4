package serve

import (
	"html/template"
	"strings"
)

const css = `
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1b1b1b;margin:0 auto;max-width:1500px;padding:12px 24px 40px}
nav{display:flex;gap:16px;padding:6px 0 10px;border-bottom:1px solid #d4d4d4;margin-bottom:8px}
nav a{font-weight:600}
a{color:#0060a0}
h1{font-size:1.5em;margin:.3em 0}
h2{font-size:1.2em;margin:1.4em 0 .4em;border-bottom:1px solid #d4d4d4;padding-bottom:3px}
table{border-collapse:collapse;margin:.5em 0 1em;font-size:.92em}
th,td{border:1px solid #d4d4d4;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f6f6f4}
td.num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
.note{color:#555;max-width:80em}
.chip{display:inline-block;border:1px solid #999;border-radius:10px;padding:0 8px;margin:1px 2px;font-size:.9em}
.v-rep{background:#d7efe5;border-color:#009E73}.v-con{background:#f8dccc;border-color:#D55E00}
.v-inc{background:#fcf0c6;border-color:#E69F00}.v-nt{background:#e9e9e9;border-color:#777}
tr.worse td{background:#f8dccc}tr.better td{background:#d7efe5}
tr.change td{border-top:3px solid #000}
section{margin:0}
.gate{padding:8px 12px;border-left:6px solid;margin:8px 0}
.gate.ok{border-color:#009E73;background:#eef8f3}.gate.fail{border-color:#D55E00;background:#fbece3}
.err{padding:8px 12px;border-left:6px solid #D55E00;background:#fbece3}
form{display:flex;flex-wrap:wrap;gap:10px;align-items:end;margin:8px 0}
label{display:flex;flex-direction:column;font-size:.9em}
input,select{font:inherit;padding:3px 6px}
input[name=bench]{min-width:36em}
figure{margin:0;border:1px solid #d4d4d4;border-radius:6px;padding:4px;max-width:980px}
svg.chart{width:100%;height:auto;display:block;font:12px system-ui,sans-serif}
svg.chart .grid{stroke:#e6e6e6}svg.chart .frame{fill:none;stroke:#999}
svg.chart .tick{fill:#444;font-size:11px}svg.chart .alabel{fill:#333}
svg.chart .ctitle{font-weight:600;font-size:13px}
svg.chart .mlabel{font-size:11px;paint-order:stroke;stroke:#fff;stroke-width:3px}
`

const head = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>{{.Title}}</title><style>` + css + `</style></head><body>
<nav><a href="/">runs</a><a href="/compare">compare</a><a href="/history">history</a></nav>`

func page(name, body string) *template.Template {
	return template.Must(template.New(name).Funcs(template.FuncMap{"join": strings.Join}).Parse(head + body + `</body></html>`))
}

var runsTmpl = page("runs", `
<h1>Runs</h1>
{{.List}}`)

var compareTmpl = page("compare", `
<h1>Compare runs</h1>
<form method="get" action="/compare">
<label>old<select name="old">{{range .Runs}}<option value="{{.ID}}"{{if eq .ID $.Old}} selected{{end}}>run {{.ID}} · {{.Experiment}} · {{.StartedAt.Local.Format "01-02 15:04"}}</option>{{end}}</select></label>
<label>new<select name="new">{{range .Runs}}<option value="{{.ID}}"{{if eq .ID $.New}} selected{{end}}>run {{.ID}} · {{.Experiment}} · {{.StartedAt.Local.Format "01-02 15:04"}}</option>{{end}}</select></label>
<label>fail on (optional)<input name="fail_on" value="{{.FailOn}}" placeholder="sec/op>+5%"></label>
<button type="submit">compare</button>
</form>
{{if .ThresholdErr}}<p class="err">{{.ThresholdErr}}</p>{{end}}
{{range .RefErrs}}<p class="err">{{.}}</p>{{end}}
{{if and .OldRun .NewRun}}
<p>Old: <a href="/run/{{.OldRun.ID}}">run {{.OldRun.ID}}</a> ({{.OldRun.Experiment}}, {{.OldRun.Mode}}); new: <a href="/run/{{.NewRun.ID}}">run {{.NewRun.ID}}</a> ({{.NewRun.Experiment}}, {{.NewRun.Mode}}).</p>
{{.Result}}
{{else if not .RefErrs}}<p>Pick two runs.</p>{{end}}
`)

var historyTmpl = page("history", `
<h1>History</h1>
{{if .Names}}<form method="get" action="/history" id="picker">
<label>pick a benchmark<select name="bench">{{range .Names}}<option value="{{.}}"{{if eq . $.Bench}} selected{{end}}>{{.}}</option>{{end}}</select></label>
<input type="hidden" name="unit" value="{{.Unit}}">
<button type="submit">show</button>
</form>{{end}}
<form method="get" action="/history">
<label>benchmark<input name="bench" list="names" value="{{.Bench}}" placeholder="BenchmarkPool/mode=serial/size=64/variant=plain/reuse=25"></label>
<label>unit<input name="unit" value="{{.Unit}}"></label>
<label>config<input name="config" value="{{.Config}}" placeholder="(the only one, or default)"></label>
<button type="submit">show</button>
</form>
<datalist id="names">{{range .Names}}<option value="{{.}}">{{end}}</datalist>
{{with .Err}}<p class="err">{{.}}</p>{{end}}
{{.Result}}
`)

var errorTmpl = template.Must(template.New("error").Parse(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>perflab: error {{.Code}}</title><style>` + css + `</style></head><body>
<nav><a href="/">runs</a><a href="/compare">compare</a><a href="/history">history</a></nav>
<h1>Error {{.Code}}</h1><p class="err">{{.Msg}}</p></body></html>`))
