package plan

import "github.com/perflab/perflab/spec"

// ForSpec returns the plan of a spec in a mode: its benchmarks × the
// mode's axis values × the configs that run in that mode (spec.ForMode),
// in canonical order. The engine runs it and the analysis of a stored run
// rebuilds it, so both see the same cells.
func ForSpec(s *spec.Spec, mode string, rounds int, seed int64) (*Plan, error) {
	values, err := s.AxisValues(mode)
	if err != nil {
		return nil, err
	}
	axes := make([]Axis, len(s.Axes))
	for i, a := range s.Axes {
		axes[i] = Axis{Key: a.Key, Values: values[i]}
	}
	var configs []string
	for _, c := range s.ForMode(mode).Configs {
		configs = append(configs, c.Name)
	}
	return New(s.Benchmarks, axes, configs, rounds, seed), nil
}
