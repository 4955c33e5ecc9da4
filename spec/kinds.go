package spec

import (
	"strconv"
)

// Check kinds beyond "ratio" and "crossover": "value" compares one cell's
// median with a threshold, "knee" says where one series bends.

// kindField is a check field and whether the check sets it.
type kindField struct {
	key string
	set bool
}

// notFor reports every field in fields that is set at p: it belongs to
// another kind of check.
func (v *validator) notFor(p, what, kind string, fields []kindField) {
	for _, f := range fields {
		if f.set || v.idx.has(p+"."+f.key) {
			v.at(p+"."+f.key, "%s: %s is not a field of %s checks; remove it", what, f.key, kind)
		}
	}
}

// valueCheck validates a check of kind "value": num selects one cell, op is
// "<", "<=", ">" or ">=", and value (any number, 0 included) is the
// threshold the cell's median in unit is compared with.
func (v *validator) valueCheck(p, what string, ck *Check, where [][2]string) {
	v.notFor(p, what, `"value"`, []kindField{{"den", ck.Den != ""}, {"a", ck.A != ""}, {"b", ck.B != ""},
		{"axis", ck.Axis != ""}, {"min", ck.Min != 0}, {"max", ck.Max != 0}})
	if ck.Num == "" {
		v.at(p, "%s: a value check needs num, a selector of one cell such as \"variant=pool,size=64\"", what)
	} else {
		v.overlap(p+".num", what, "num", where, v.selector(p+".num", what+" num", ck.Num))
	}
	switch ck.Op {
	case "<", "<=", ">", ">=":
	case "":
		v.at(p, "%s: a value check needs op = \"<\", \"<=\", \">\" or \">=\" (the claim holds when the median of num op value)", what)
	default:
		v.at(p+".op", "%s: op %q must be \"<\", \"<=\", \">\" or \">=\"", what, ck.Op)
	}
	if !v.idx.has(p + ".value") {
		v.at(p, "%s: a value check needs value, the threshold for the median of num in %s", what, ck.Unit)
	}
}

// kneeCheck validates a check of kind "knee": a selects one series along
// axis, a numeric axis of the spec, and [min, max] is where its knee is
// claimed to be.
func (v *validator) kneeCheck(p, what string, ck *Check, where [][2]string) {
	v.notFor(p, what, `"knee"`, []kindField{{"num", ck.Num != ""}, {"den", ck.Den != ""}, {"b", ck.B != ""},
		{"op", ck.Op != ""}, {"value", ck.Value != 0}})
	if ck.A == "" {
		v.at(p, "%s: a knee check needs a, a selector of one series such as \"variant=pool\"", what)
	} else {
		pairs := v.selector(p+".a", what+" a", ck.A)
		v.overlap(p+".a", what, "a", where, pairs)
		v.notAxis(p+".a", what, "a", ck.Axis, pairs)
	}
	v.notAxis(p+".where", what, "where", ck.Axis, where)
	if ck.Axis == "" {
		v.at(p, "%s: a knee check needs axis, the numeric axis key the series bends along; axes: %s", what, v.axisKeys())
	} else if a, ok := v.axis(ck.Axis); !ok {
		v.at(p+".axis", "%s: axis %q is not an axis of this spec; axes: %s", what, ck.Axis, v.axisKeys())
	} else {
		for _, val := range append(append([]string(nil), a.Quick...), a.Full...) {
			if _, err := strconv.ParseFloat(val, 64); err != nil {
				v.at(p+".axis", "%s: axis %q must be numeric for a knee, but it has the value %q", what, ck.Axis, val)
				break
			}
		}
	}
	if !v.idx.has(p+".min") || !v.idx.has(p+".max") {
		v.at(p, "%s: a knee check needs min and max, the range of axis values where the knee is claimed", what)
	} else if !(ck.Min <= ck.Max) {
		v.at(p+".min", "%s: min %v is greater than max %v", what, ck.Min, ck.Max)
	}
	switch ck.Bend {
	case "", "up", "down":
	default:
		v.at(p+".bend", "%s: bend %q must be \"up\" (steeper after the knee) or \"down\" (flatter after it)", what, ck.Bend)
	}
}

// notAxis reports a selector at path that picks one value of axis.
func (v *validator) notAxis(path, what, side, axis string, pairs [][2]string) {
	for _, kv := range pairs {
		if axis != "" && kv[0] == axis {
			v.at(path, "%s: %s selects %s=%s, but %q is the axis the knee is found along; remove it", what, side, kv[0], kv[1], axis)
		}
	}
}

// correlationCheck validates a check of kind "correlation": num selects one
// cell whose benchmark reports, in unit, one Pearson coefficient per round
// over the time series it sampled; effect is the claimed coefficient (the
// threshold is then tanh(atanh(effect)/2) and op follows its sign), or op
// and value state the threshold (value in (−1, 1); beside effect, with why).
func (v *validator) correlationCheck(p, what string, ck *Check, where [][2]string) {
	v.notFor(p, what, `"correlation"`, []kindField{{"den", ck.Den != ""}, {"a", ck.A != ""}, {"b", ck.B != ""},
		{"axis", ck.Axis != ""}, {"min", ck.Min != 0}, {"max", ck.Max != 0}, {"band", ck.Band != 0}})
	if !v.idx.has(p+".unit") || ck.Unit == defaultUnit {
		v.at(p, "%s: a correlation check needs unit, the metric in which the benchmark reports one coefficient per round, such as \"r-scav-lockwait\"", what)
	}
	if ck.Num == "" {
		v.at(p, "%s: a correlation check needs num, a selector of one cell such as \"variant=plain,gomaxprocs=2\"", what)
	} else {
		v.overlap(p+".num", what, "num", where, v.selector(p+".num", what+" num", ck.Num))
	}
	hasEffect, hasValue := v.idx.has(p+".effect"), v.idx.has(p+".value")
	if hasEffect && !(ck.Effect > -1 && ck.Effect < 1 && ck.Effect != 0) {
		v.at(p+".effect", "%s: effect %v must be the claimed coefficient, in (−1, 1) and not 0", what, ck.Effect)
	}
	if hasValue && !(ck.Value > -1 && ck.Value < 1) {
		v.at(p+".value", "%s: value %v must be a coefficient in (−1, 1)", what, ck.Value)
	}
	switch {
	case hasEffect && hasValue && ck.Why == "":
		v.at(p+".value", "%s: an explicit value beside effect needs why, the reason for not testing the Fisher-z midpoint", what)
	case hasEffect:
		want := ">"
		if ck.Effect < 0 {
			want = "<"
		}
		if ck.Op != "" && ck.Op != want {
			v.at(p+".op", "%s: effect %v claims r %s 0, but op is %q; remove op (it follows from effect)", what, ck.Effect, want, ck.Op)
		}
	case !hasValue || ck.Op == "":
		v.at(p, "%s: a correlation check needs effect = r (the claimed coefficient), or op and value", what)
	}
	switch ck.Op {
	case "", "<", "<=", ">", ">=":
	default:
		v.at(p+".op", "%s: op %q must be \"<\", \"<=\", \">\" or \">=\"", what, ck.Op)
	}
}

// noEffect reports effect and band on a check kind that states its
// threshold with op and value (its why, when given, is the threshold's
// reason).
func (v *validator) noEffect(p, what, kind string, ck *Check) {
	if v.idx.has(p+".effect") || ck.Effect != 0 {
		v.at(p+".effect", "%s: effect is for ratio and correlation checks; a %s check states op and value (give the reason in why)", what, kind)
	}
	if v.idx.has(p+".band") || ck.Band != 0 {
		v.at(p+".band", "%s: band is for ratio checks with op \"~\"; remove it", what)
	}
}

// kindList names the check kinds for error messages.
const kindList = `"ratio", "contrast", "crossover", "value", "knee", "profile" or "correlation"`

// contrastCheck validates a check of kind "contrast": the ratio num/den
// taken in series a and in series b, compared as (num/den at a) / (num/den
// at b); the threshold is stated as for a ratio check (effect, op and
// value, or op "~" with band).
func (v *validator) contrastCheck(p, what string, ck *Check, where [][2]string) {
	v.notFor(p, what, `"contrast"`, []kindField{{"axis", ck.Axis != ""}, {"min", ck.Min != 0}, {"max", ck.Max != 0}})
	var sides [][2]string
	for _, side := range []struct{ key, sel string }{{"num", ck.Num}, {"den", ck.Den}, {"a", ck.A}, {"b", ck.B}} {
		if side.sel == "" {
			v.at(p, "%s: a contrast check needs num, den (the ratio) and a, b (the two series it is taken in); %s is missing", what, side.key)
			continue
		}
		pairs := v.selector(p+"."+side.key, what+" "+side.key, side.sel)
		v.overlap(p+"."+side.key, what, side.key, where, pairs)
		sides = append(sides, pairs...)
	}
	seen := map[string]bool{}
	for _, kv := range sides {
		if seen[kv[0]+"="+kv[1]] {
			v.at(p, "%s: %s=%s appears in two of num, den, a and b; num/den and a/b must select on different keys", what, kv[0], kv[1])
		}
		seen[kv[0]+"="+kv[1]] = true
	}
	v.ratioThreshold(p, what, ck)
}
