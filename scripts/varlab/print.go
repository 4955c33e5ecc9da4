package main

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/perflab/perflab/analysis"
)

// pct writes a log-scale SD as a percentage.
func pct(x float64) string {
	if math.IsNaN(x) {
		return "—"
	}
	return fmt.Sprintf("%.1f%%", 100*x)
}

func (e estimate) pct() string {
	return fmt.Sprintf("%s [%s, %s]", pct(e.V), pct(e.Lo), pct(e.Hi))
}

// change writes a ratio as a signed percentage with its interval.
func change(r analysis.Ratio) string {
	if math.IsNaN(r.Ratio) {
		return "—"
	}
	s := fmt.Sprintf("%+.1f%%", 100*(r.Ratio-1))
	if r.HasInterval() {
		return s + fmt.Sprintf(" [%+.1f%%, %+.1f%%]", 100*(r.Lo-1), 100*(r.Hi-1))
	}
	return s + " (no interval)"
}

// duration writes seconds per op.
func duration(s float64) string {
	switch {
	case s >= 1:
		return fmt.Sprintf("%.3gs", s)
	case s >= 1e-3:
		return fmt.Sprintf("%.3gms", s*1e3)
	case s >= 1e-6:
		return fmt.Sprintf("%.3gµs", s*1e6)
	}
	return fmt.Sprintf("%.3gns", s*1e9)
}

func printLayouts(w io.Writer, d *dataset) {
	if d.Settings != "" {
		fmt.Fprintf(w, "%s\n\n", d.Settings)
	}
	fmt.Fprintf(w, "SDs of log time, as %%, on the rounds every layout of a build ran: two-way analysis of variance (layout × round).\n"+
		"layout SD: between layouts, noise taken out, %.0f%% interval F/χ²-based (modified large-sample); process SD: one\n"+
		"process about its layout and round, %.0f%% interval by jackknife over rounds; round SD: drift all binaries of a round share.\n", 100*level, 100*level)
	bench := ""
	for _, e := range estimateLayouts(d.Layouts) {
		if e.Bench != bench {
			bench = e.Bench
			fmt.Fprintf(w, "\n%s\n  %-9s %-5s %8s %7s %9s  %-24s %-24s %s\n", bench, "funcalign", "side", "layouts", "rounds", "time/op", "layout SD", "process SD", "round SD")
		}
		fmt.Fprintf(w, "  %-9d %-5s %8d %7d %9s  %-24s %-24s %s\n", e.Align, e.Side, e.Layouts, e.Rounds, duration(e.Median), e.Layout.pct(), e.Process.pct(), pct(e.Round))
	}
	planted := estimatePlanted(d.Layouts)
	if len(planted) == 0 {
		return
	}
	fmt.Fprintf(w, "\nPlanted change new/old: the median over layouts of each layout's median log-ratio (its rounds paired),\n"+
		"%.0f%% sign-test interval over layouts; instructions/op under Cachegrind (each side's first layout).\n", 100*level)
	bench = ""
	var same []plantedEst
	flush := func() {
		for _, p := range same[1:] {
			q := same[0]
			verdict := "each within the other's interval"
			switch {
			case !p.Time.HasInterval() || !q.Time.HasInterval():
				verdict = "too few layouts for intervals to compare"
			case !within(p.Time, q.Time):
				verdict = "not each within the other's interval"
			}
			fmt.Fprintf(w, "  funcalign %d against %d: %+.1f%% and %+.1f%%, %s\n", p.Align, q.Align, 100*(p.Time.Ratio-1), 100*(q.Time.Ratio-1), verdict)
		}
		same = same[:0]
	}
	for _, p := range planted {
		if p.Bench != bench {
			if len(same) > 0 {
				flush()
			}
			bench = p.Bench
			fmt.Fprintf(w, "\n%s\n  %-9s %8s  %-28s %-30s %s\n", bench, "funcalign", "layouts", "time new/old", "instructions/op old → new", "new/old")
		}
		ins := "—"
		ratio := "—"
		if !math.IsNaN(p.InstrOld) && !math.IsNaN(p.InstrNew) {
			ins = fmt.Sprintf("%.0f → %.0f", p.InstrOld, p.InstrNew)
			ratio = fmt.Sprintf("%+.2f%%", 100*(p.InstrNew/p.InstrOld-1))
		}
		fmt.Fprintf(w, "  %-9d %8d  %-28s %-30s %s\n", p.Align, p.Time.N, change(p.Time), ins, ratio)
		same = append(same, p)
	}
	flush()
}

// within reports whether a's estimate lies in b's interval and b's in a's.
func within(a, b analysis.Ratio) bool {
	in := func(x float64, r analysis.Ratio) bool { return r.Lo <= x && x <= r.Hi }
	return in(a.Ratio, b) && in(b.Ratio, a)
}

// sourceOf is what each condition removes or varies, and what that takes.
var sourceOf = map[string][2]string{
	"pin0":        {"CPU placement (which CPU a process runs on, migrations)", "pinning a process to one CPU"},
	"pin1":        {"CPU placement (which CPU a process runs on, migrations)", "pinning a process to one CPU"},
	"noaslr":      {"address-space randomisation (stack, mmap and vDSO addresses)", "turning it off (setarch -R)"},
	"envpad":      {"the environment's size (where the stack starts; Mytkowicz et al.)", "a fixed environment"},
	"gomaxprocs1": {"the runtime's parallel work (a second P: GC workers, idle Ps spinning)", "GOMAXPROCS=1"},
}

func printSources(w io.Writer, d *dataset) {
	if d.Settings != "" {
		fmt.Fprintf(w, "%s\n\n", d.Settings)
	}
	fmt.Fprintf(w, "SDs of log time, as %%; a process's value is the median of its repetitions. process SD: about its condition's\n"+
		"mean in its round (round effects out), %.0f%% interval by jackknife over rounds; within: between one process's\n"+
		"repetitions; var/base: process variance over base's, rounds left out together; time vs base: sign test over rounds.\n", 100*level)
	for _, b := range estimateSources(d.Sources) {
		fmt.Fprintf(w, "\n%s: %d rounds; round SD %s (drift a round's processes share: pairing by round takes it out)\n", b.Bench, b.Rounds, pct(b.Round))
		fmt.Fprintf(w, "  %-12s %6s  %-26s %-24s %-8s %s\n", "condition", "procs", "time vs base", "process SD", "within", "var/base")
		for _, e := range b.Conds {
			t, v := change(e.Time), fmt.Sprintf("%.2f [%.2f, %.2f]", e.VarRatio.V, e.VarRatio.Lo, e.VarRatio.Hi)
			if e.Cond == "base" {
				t, v = "—", "1"
			}
			fmt.Fprintf(w, "  %-12s %6d  %-26s %-24s %-8s %s\n", e.Cond, e.Procs, t, e.Process.pct(), pct(e.Within), v)
		}
		for _, line := range implications(b) {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
}

// implications says what each condition's interval shows, and what is
// left of base's process variance.
func implications(b sourceBench) []string {
	if len(b.Conds) == 0 || b.Conds[0].Cond != "base" {
		return []string{"no base condition: nothing to compare with"}
	}
	var out []string
	var best *sourceEst
	for i := range b.Conds[1:] {
		e := &b.Conds[i+1]
		src, cure := "what "+e.Cond+" changes", e.Cond
		if s, ok := sourceOf[e.Cond]; ok {
			src, cure = s[0], s[1]
		}
		r := e.VarRatio
		line := fmt.Sprintf("%s: process variance %.2f× base's [%.2f, %.2f]", e.Cond, r.V, r.Lo, r.Hi)
		switch {
		case r.Hi < 1:
			line += fmt.Sprintf(", lower: %s adds to base's process variance, and %s takes that share out", src, cure)
			if best == nil || r.V < best.VarRatio.V {
				best = e
			}
		case r.Lo > 1:
			line += fmt.Sprintf(", higher: varied or fixed this way, %s adds variance of its own", src)
		default:
			line += fmt.Sprintf(", not told apart from base's at these rounds: %s is no large source here, or these rounds cannot show it", src)
		}
		if e.Time.Excludes(1) {
			line += fmt.Sprintf("; it moves the time by %s", change(e.Time))
		}
		out = append(out, line)
	}
	base := b.Conds[0]
	left := fmt.Sprintf("left: base's process SD %s", base.Process.pct())
	if best != nil {
		left += fmt.Sprintf("; %s's, the lowest told apart from base's, %s", best.Cond, best.Process.pct())
	} else {
		left += " with no condition decidedly lower"
	}
	left += fmt.Sprintf("; repetitions within one process differ by %s; the round SD %s is paired away.", pct(base.Within), pct(b.Round))
	return append(out, strings.TrimSpace(left))
}
