package store

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRunRefs(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "perflab.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 3 { // runs 1, 2, 3, started in that order
		if _, err := db.CreateRun(context.Background(), &Run{Experiment: "x", Mode: "quick", StartedAt: t0.Add(time.Duration(i) * time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		ref      string
		want     int64
		notFound bool
		bad      bool
	}{
		{ref: "latest", want: 3},
		{ref: "latest~0", want: 3},
		{ref: "latest~1", want: 2},
		{ref: "latest~2", want: 1},
		{ref: "latest~3", notFound: true},
		{ref: "2", want: 2},
		{ref: "0", bad: true},
		{ref: "-1", bad: true},
		{ref: "+2", bad: true},
		{ref: "latest~", bad: true},
		{ref: "latest~-1", bad: true},
		{ref: "latest~x", bad: true},
		{ref: "newest", bad: true},
		{ref: "", bad: true},
	}
	for _, tt := range tests {
		got, err := db.ResolveRun(context.Background(), tt.ref)
		switch {
		case tt.bad:
			if err == nil || errors.Is(err, ErrNotFound) {
				t.Errorf("ResolveRun(%q) = %d, %v; want a form error", tt.ref, got, err)
			}
		case tt.notFound:
			if !errors.Is(err, ErrNotFound) {
				t.Errorf("ResolveRun(%q) = %d, %v; want ErrNotFound", tt.ref, got, err)
			}
		default:
			if err != nil || got != tt.want {
				t.Errorf("ResolveRun(%q) = %d, %v; want %d", tt.ref, got, err, tt.want)
			}
		}
	}
}

func FuzzParseRunRef(f *testing.F) {
	for _, s := range []string{"latest", "latest~3", "7", "-1", "latest~", "9999999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, back, err := ParseRunRef(s)
		if err != nil {
			return
		}
		if id > 0 && back != 0 || id == 0 && (back < 0 || !strings.HasPrefix(s, "latest")) || id < 0 {
			t.Errorf("ParseRunRef(%q) = %d, %d", s, id, back)
		}
	})
}
