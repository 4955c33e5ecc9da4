package builtin

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/benchname"
	"github.com/perflab/perflab/claim"
	"github.com/perflab/perflab/plan"
	"github.com/perflab/perflab/report"
	"github.com/perflab/perflab/spec"
)

// modes are the modes every spec defines.
var modes = []string{"quick", "full"}

// planCells lays out the cells of s in mode, as the engine does: the axis
// product over the configs that run in mode.
func planCells(t *testing.T, s *spec.Spec, mode string) []plan.Cell {
	t.Helper()
	values, err := s.AxisValues(mode)
	if err != nil {
		t.Fatal(err)
	}
	axes := make([]plan.Axis, len(s.Axes))
	for i, a := range s.Axes {
		axes[i] = plan.Axis{Key: a.Key, Values: values[i]}
	}
	var configs []string
	for _, c := range s.ForMode(mode).Configs {
		configs = append(configs, c.Name)
	}
	return plan.New(s.Benchmarks, axes, configs, 1, 1).Cells
}

// side is one side of a check laid out on a plan: the plan cells it reads,
// and the pairs it selects that its cells produce inside (sub-benchmark
// levels below the cell's, such as httpserve's measure=knee) or that
// -test.cpu gives (procs).
type side struct {
	cells  []plan.Cell
	inside [][2]string
	procs  string
}

// layOut finds the cells each side of ch reads in a plan. Selector keys
// that name a cell level (axis keys, bench, config) pick cells; the others
// are levels the cells produce inside.
func layOut(s *spec.Spec, ch spec.Check, cells []plan.Cell) ([]side, error) {
	sides, ok := claim.Sides(ch)
	if !ok {
		return nil, fmt.Errorf("the check's selectors do not parse")
	}
	cellKeys := map[string]bool{"bench": true, "config": true}
	for _, a := range s.Axes {
		cellKeys[a.Key] = true
	}
	var out []side
	for _, sel := range sides {
		var sd side
		var pick [][2]string
		for _, p := range sel {
			switch {
			case p[0] == "procs":
				sd.procs = p[1]
			case cellKeys[p[0]]:
				pick = append(pick, p)
			default:
				sd.inside = append(sd.inside, p)
			}
		}
		for _, c := range cells {
			smp := analysis.Sample{Config: c.Config, Name: benchname.Parse(c.Name())}
			if smp.Matches(pick) {
				sd.cells = append(sd.cells, c)
			}
		}
		out = append(out, sd)
	}
	return out, nil
}

// sideProblem says what is wrong with a side of a check on a plan: no
// cells, cells of several benchmark functions or configs, several cells
// where the check reads one, or a series that is more than one along the
// axis.
func sideProblem(ch spec.Check, sd side) string {
	if len(sd.cells) == 0 {
		return "selects no cell of the plan"
	}
	benches, configs := map[string]bool{}, map[string]bool{}
	for _, c := range sd.cells {
		benches[c.Bench], configs[c.Config] = true, true
	}
	if len(benches) > 1 || len(configs) > 1 {
		return fmt.Sprintf("selects cells of %d benchmark functions and %d configs; pin bench= and config=", len(benches), len(configs))
	}
	if ch.Kind != "knee" && ch.Kind != "crossover" {
		if len(sd.cells) > 1 {
			return fmt.Sprintf("selects %d cells (%s, %s, …), where it reads one", len(sd.cells), sd.cells[0], sd.cells[1])
		}
		return ""
	}
	seen := map[string]bool{}
	for _, c := range sd.cells {
		x := ""
		for _, l := range c.Levels {
			if k, v, _ := strings.Cut(l, "="); k == ch.Axis {
				x = v
			}
		}
		if seen[x] {
			return fmt.Sprintf("selects more than one series along %s (two cells at %s=%s)", ch.Axis, ch.Axis, x)
		}
		seen[x] = true
	}
	if len(seen) < 2 {
		return fmt.Sprintf("selects %d point along %s", len(seen), ch.Axis)
	}
	return ""
}

// TestChecksNameCells: every check of every built-in spec names cells of
// its plans. Each side of a check selects cells of one benchmark function
// and one config: one cell (a series along the axis for a knee or a
// crossover). It does so in the full plan, and in the quick plan too
// unless its note says it needs full mode; a procs pair names a value of
// the mode's cpu list.
func TestChecksNameCells(t *testing.T) {
	for _, name := range Names() {
		s, err := Spec(name)
		if err != nil {
			t.Fatalf("built-in %s: %v", name, err)
		}
		plans := map[string][]plan.Cell{}
		for _, m := range modes {
			plans[m] = planCells(t, s, m)
		}
		for _, c := range s.Claims {
			for i, ch := range c.Checks {
				where := fmt.Sprintf("%s: %s.%d (%s:%d)", name, c.ID, i+1, s.File, ch.Line)
				for _, m := range modes {
					sides, err := layOut(s, ch, plans[m])
					if err != nil {
						t.Errorf("%s: %v", where, err)
						continue
					}
					for j, sd := range sides {
						problem := sideProblem(ch, sd)
						if problem == "" && sd.procs != "" && !slices.Contains(cpuList(s, m), sd.procs) {
							problem = fmt.Sprintf("selects procs=%s, not in the %s mode's cpu list %v", sd.procs, m, cpuList(s, m))
						}
						switch {
						case problem == "":
						case m == "quick" && len(sd.cells) == 0 && strings.Contains(ch.Note, "full mode"):
							// a check of full-mode cells, and it says so
						default:
							t.Errorf("%s: side %d in %s mode %s", where, j+1, m, problem)
						}
					}
				}
			}
		}
	}
}

func cpuList(s *spec.Spec, mode string) []string {
	var out []string
	for _, n := range s.Modes[mode].CPU {
		out = append(out, strconv.Itoa(n))
	}
	return out
}

// TestCountedChecksCanFail: every counted check of every built-in spec,
// evaluated on synthetic rounds of exactly the cells it reads, comes out
// reproduced when they lie on the claimed side of its threshold (inside
// its window, in its direction) and contradicted when they lie on the
// other, so no counted check holds or fails by construction of its
// encoding. It does so on the cells of each mode's plan that holds them
// (a knee or crossover sees that mode's axis values).
func TestCountedChecksCanFail(t *testing.T) {
	for _, name := range Names() {
		s, err := Spec(name)
		if err != nil {
			t.Fatalf("built-in %s: %v", name, err)
		}
		for _, mode := range modes {
			testCountedChecks(t, s, mode)
		}
	}
}

func testCountedChecks(t *testing.T, s *spec.Spec, mode string) {
	cells := planCells(t, s, mode)
	for _, c := range s.Claims {
		for i, ch := range c.Checks {
			if !claim.Counted(ch) {
				continue
			}
			id := fmt.Sprintf("%s.%d", c.ID, i+1)
			sides, err := layOut(s, ch, cells)
			if err != nil {
				t.Errorf("%s %s: %v", s.Name, id, err)
				continue
			}
			if mode == "quick" && slices.ContainsFunc(sides, func(sd side) bool { return len(sd.cells) == 0 }) {
				continue // a check of full-mode cells (TestChecksNameCells)
			}
			t.Run(s.Name+"/"+mode+"/"+id, func(t *testing.T) {
				for j, sd := range sides {
					if p := sideProblem(ch, sd); p != "" {
						t.Fatalf("side %d %s", j+1, p)
					}
				}
				for _, want := range []claim.Verdict{claim.Reproduced, claim.Contradicted} {
					samples, err := synthesize(ch, sides, want == claim.Reproduced)
					if err != nil {
						t.Fatal(err)
					}
					one := spec.Claim{ID: id, Text: c.Text, Checks: []spec.Check{ch}}
					got := claim.Evaluate([]spec.Claim{one}, samples, analysis.DefaultOptions())[0]
					if len(got.Checks) != 1 || got.Checks[0].Verdict != want {
						t.Errorf("on rounds made to come out %s: %s (%s — %s)", want, got.Verdict, report.ClaimMeasured(got), report.ClaimReason(got))
					}
					if ch.Precondition != "" {
						testPrecondition(t, s, cells, c, i, samples, want == claim.Reproduced)
					}
				}
			})
		}
	}
}

// testPrecondition: precondition i of claim c, on rounds made to hold or
// fail, judged beside the claim's other counted checks on rounds made to
// contradict them. When it holds it is shown as context and the claim is
// contradicted by its counted checks; when it fails the claim is not
// testable, with the precondition's measurement as the reason, and never
// contradicted.
func testPrecondition(t *testing.T, s *spec.Spec, cells []plan.Cell, c spec.Claim, i int, pre []*analysis.Sample, holds bool) {
	t.Helper()
	samples := append([]*analysis.Sample(nil), pre...)
	seen := map[string]bool{}
	for _, smp := range samples {
		seen[smp.Config+"\x00"+smp.Name.Full+"\x00"+smp.Unit] = true
	}
	checks := []spec.Check{c.Checks[i]}
	for j, ch := range c.Checks {
		if j == i || !claim.Counted(ch) || ch.Precondition != "" {
			continue
		}
		sides, err := layOut(s, ch, cells)
		if err != nil || slices.ContainsFunc(sides, func(sd side) bool { return sideProblem(ch, sd) != "" }) {
			continue
		}
		more, err := synthesize(ch, sides, false)
		if err != nil {
			t.Fatal(err)
		}
		if slices.ContainsFunc(more, func(smp *analysis.Sample) bool { return seen[smp.Config+"\x00"+smp.Name.Full+"\x00"+smp.Unit] }) {
			continue // it reads the precondition's cells in the same unit
		}
		samples = append(samples, more...)
		checks = append(checks, ch)
	}
	got := claim.Evaluate([]spec.Claim{{ID: c.ID, Text: c.Text, Checks: checks}}, samples, analysis.DefaultOptions())[0]
	pc := got.Checks[0]
	if !pc.Context || pc.Precondition == "" {
		t.Errorf("precondition %s.%d: context %v, precondition %q; want it shown as a context precondition", c.ID, i+1, pc.Context, pc.Precondition)
	}
	switch {
	case holds && len(checks) > 1 && got.Verdict != claim.Contradicted:
		t.Errorf("precondition %s.%d holds and the counted checks are made to fail: claim %s, want contradicted (%s)", c.ID, i+1, got.Verdict, report.ClaimReason(got))
	case !holds && (got.Verdict != claim.NotTestable || !strings.Contains(report.ClaimReason(got), "precondition “"+pc.Precondition+"” did not hold")):
		t.Errorf("precondition %s.%d fails: claim %s (%s); want not testable with the precondition's measurement as the reason", c.ID, i+1, got.Verdict, report.ClaimReason(got))
	}
}

// TestBuiltinPreconditions: the built-in suite marks as preconditions the
// checks whose failure means the run did not create the claim's
// situation.
func TestBuiltinPreconditions(t *testing.T) {
	want := map[string]bool{"gateway/D5": true, "poolreuse/C4": true, "poolreuse/C5": true, "allocscale/E6": true}
	got := map[string]bool{}
	for _, name := range Names() {
		s, err := Spec(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range s.Claims {
			for _, ch := range c.Checks {
				if ch.Precondition != "" {
					got[name+"/"+c.ID] = true
				}
			}
		}
	}
	for k := range want {
		if !got[k] {
			t.Errorf("%s has no precondition", k)
		}
	}
}

// rounds is how many rounds synthesize draws.
const rounds = 12

// synthesize draws rounds of the cells a check reads, placed on the
// claimed side of its threshold (holds) or on the other side: ratios and
// contrasts twice or half the threshold, values half the threshold away,
// correlations 0.4 apart on Fisher's z scale, a hinge in the knee's window
// or a straight line, a crossing in the window in the claimed direction or
// the other. Every value carries 1% noise and a round factor shared by the
// round's cells.
func synthesize(ch spec.Check, sides []side, holds bool) ([]*analysis.Sample, error) {
	rng := rand.New(rand.NewPCG(7, uint64(len(ch.Note))))
	noise := make([]float64, rounds)
	for r := range noise {
		noise[r] = math.Exp(0.01 * rng.NormFloat64())
	}
	cell := func(sd side, c plan.Cell, f func() float64) *analysis.Sample {
		name := c.Name()
		for _, p := range sd.inside {
			name += "/" + p[0] + "=" + p[1]
		}
		if sd.procs != "" && sd.procs != "1" {
			name += "-" + sd.procs
		}
		smp := &analysis.Sample{Config: c.Config, Name: benchname.Parse(name), Unit: ch.Unit}
		for r := 1; r <= rounds; r++ {
			smp.Values = append(smp.Values, f()*noise[r-1]*math.Exp(0.01*rng.NormFloat64()))
			smp.Rounds = append(smp.Rounds, r)
		}
		return smp
	}
	constant := func(v float64) func() float64 { return func() float64 { return v } }
	th, above, err := threshold(ch)
	if err != nil {
		return nil, err
	}
	switch ch.Kind {
	case "ratio", "contrast":
		// A ratio above (or below) its threshold by a factor of two; a band
		// check exactly 1 or twice the band's upper end.
		t := th * 2
		if !above {
			t = th / 2
		}
		if ch.Op == "~" {
			t = (1 + ch.Band) * (1 + ch.Band)
			if holds {
				t = 1
			}
		} else if !holds {
			t = th * th / t
		}
		var out []*analysis.Sample
		for j, sd := range sides {
			v := 1.0
			if j == 0 { // num (at a, for a contrast)
				v = t
			}
			out = append(out, cell(sd, sd.cells[0], constant(v)))
		}
		return out, nil
	case "value":
		d := math.Max(math.Abs(th)/2, 0.05)
		v := th + d
		if above != holds {
			v = th - d
		}
		return []*analysis.Sample{cell(sides[0], sides[0].cells[0], constant(v))}, nil
	case "correlation":
		z := math.Atanh(th) + 0.4
		if above != holds {
			z = math.Atanh(th) - 0.4
		}
		// Correlations carry their noise additively on the z scale.
		smp := cell(sides[0], sides[0].cells[0], constant(1))
		for i := range smp.Values {
			smp.Values[i] = math.Tanh(z + 0.01*rng.NormFloat64())
		}
		return []*analysis.Sample{smp}, nil
	case "knee":
		k := (ch.Min + ch.Max) / 2
		var out []*analysis.Sample
		for _, c := range sides[0].cells {
			x := axisValue(c, ch.Axis)
			y := 10 + x
			if holds && x > k {
				y = 10 + k + 8*(x-k)
			}
			out = append(out, cell(sides[0], c, constant(y)))
		}
		return out, nil
	case "crossover":
		// a/b moves by ±30% from one side of the window's middle to the
		// other, across about a quarter of the window; a falls below b
		// above the middle when a wins there (lower is better).
		mid, w := (ch.Min+ch.Max)/2, math.Max((ch.Max-ch.Min)/4, 1e-3)
		dir := -1.0
		if (ch.WinsAbove == "b") != ch.HigherIsBetter {
			dir = 1
		}
		if !holds {
			dir = -dir
		}
		var out []*analysis.Sample
		for _, c := range sides[0].cells {
			x := axisValue(c, ch.Axis)
			out = append(out, cell(sides[0], c, constant(math.Exp(0.3*dir*math.Tanh((x-mid)/w)))))
		}
		for _, c := range sides[1].cells {
			out = append(out, cell(sides[1], c, constant(1)))
		}
		return out, nil
	}
	return nil, fmt.Errorf("no synthetic rounds for a counted check of kind %q", ch.Kind)
}

// threshold returns the value a check of kind ratio, contrast, value or
// correlation compares its interval with, and whether the claim is that
// the measure lies above it; (0, false) for knees and crossovers.
func threshold(ch spec.Check) (float64, bool, error) {
	switch ch.Kind {
	case "ratio", "contrast":
		switch {
		case ch.Op == "~":
			return 1, false, nil
		case ch.Effect > 0 && ch.Value > 0:
			return ch.Value, ch.Effect > 1, nil
		case ch.Effect > 0:
			return math.Sqrt(ch.Effect), ch.Effect > 1, nil
		}
		return ch.Value, strings.HasPrefix(ch.Op, ">"), nil
	case "value":
		return ch.Value, strings.HasPrefix(ch.Op, ">"), nil
	case "correlation":
		if ch.Effect != 0 && (ch.Value == 0 || ch.Why == "") {
			return math.Tanh(math.Atanh(ch.Effect) / 2), ch.Effect > 0, nil
		}
		return ch.Value, strings.HasPrefix(ch.Op, ">"), nil
	case "knee", "crossover":
		return 0, false, nil
	}
	return 0, false, fmt.Errorf("unknown kind %q", ch.Kind)
}

func axisValue(c plan.Cell, axis string) float64 {
	for _, l := range c.Levels {
		if k, v, _ := strings.Cut(l, "="); k == axis {
			x, _ := strconv.ParseFloat(v, 64)
			return x
		}
	}
	return math.NaN()
}
