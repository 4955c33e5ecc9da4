package analysis

import "testing"

func TestFuncChanges(t *testing.T) {
	old := map[string]float64{"main.a": 1000, "main.b": 200, "runtime.x": 50}
	new := map[string]float64{"main.a": 1100, "main.b": 180, "runtime.x": 50.2, "main.c": 30}
	d := FuncChanges(old, new, 0, 1)
	if d.OldTotal != 1250 || d.NewTotal != 1360.2 {
		t.Fatalf("totals %v %v", d.OldTotal, d.NewTotal)
	}
	want := []string{"main.a", "main.c", "main.b"} // runtime.x's 0.2 is below minAbs
	if len(d.Changes) != len(want) {
		t.Fatalf("changes %+v, want %v", d.Changes, want)
	}
	for i, w := range want {
		if d.Changes[i].Func != w {
			t.Errorf("change %d = %s, want %s", i, d.Changes[i].Func, w)
		}
	}
	if s := d.Changes[0].Share; s < 0.90 || s > 0.91 { // 100 of 110.2
		t.Errorf("main.a share %.3f, want 100/110.2", s)
	}
	if s := d.Changes[2].Share; s > 0 {
		t.Errorf("main.b moved against the total; share %.3f should be negative", s)
	}
	if top := FuncChanges(old, new, 1, 0); len(top.Changes) != 1 || top.Changes[0].Func != "main.a" {
		t.Errorf("top 1 = %+v", top.Changes)
	}
}

func TestMedianFuncs(t *testing.T) {
	m := MedianFuncs([]map[string]float64{{"f": 1, "g": 5}, {"f": 3}, {"f": 2, "g": 5}})
	if m["f"] != 2 || m["g"] != 5 {
		t.Errorf("medians %v, want f=2 g=5 (a missing g counts as 0)", m)
	}
}
