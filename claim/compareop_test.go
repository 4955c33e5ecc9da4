package claim

import "testing"

func TestCompareOp(t *testing.T) {
	tests := []struct {
		x    float64
		op   string
		v    float64
		want bool
	}{
		{1, "<", 2, true}, {2, "<", 2, false}, {2, "<=", 2, true}, {3, "<=", 2, false},
		{3, ">", 2, true}, {2, ">", 2, false}, {2, ">=", 2, true}, {1, ">=", 2, false},
		{1, "==", 1, false}, {1, "", 1, false},
	}
	for _, tt := range tests {
		if got := compareOp(tt.x, tt.op, tt.v); got != tt.want {
			t.Errorf("compareOp(%g, %q, %g) = %v, want %v", tt.x, tt.op, tt.v, got, tt.want)
		}
	}
}
