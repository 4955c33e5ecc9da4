package claim

import (
	"fmt"

	"github.com/perflab/perflab/analysis"
	"github.com/perflab/perflab/spec"
)

// RatioCells returns the numerator and denominator samples a ratio check
// compares, its unit and a label such as "b / a [n=16]", so a report can
// break the same comparison down by machine. The label is the one report
// writes for the check's cells; package findings reads it here.
func RatioCells(ch spec.Check, samples []*analysis.Sample) (num, den *analysis.Sample, unit, label string, err error) {
	unit = unitOf(ch)
	if num, err = selectOne(samples, unit, ch.Where, ch.Num); err != nil {
		return nil, nil, "", "", err
	}
	if den, err = selectOne(samples, unit, ch.Where, ch.Den); err != nil {
		return nil, nil, "", "", err
	}
	label = fmt.Sprintf("%s / %s", spec.ShortSelector(ch.Num), spec.ShortSelector(ch.Den))
	if ch.Where != "" {
		label += " [" + ch.Where + "]"
	}
	return num, den, unit, label, nil
}
