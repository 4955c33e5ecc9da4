package report_test

import (
	"os"
	"testing"

	"github.com/perflab/perflab/internal/testrun"
	"github.com/perflab/perflab/report"
)

func TestZZDump(t *testing.T) {
	in, dir := loadSynthetic(t, testrun.Options{})
	report.Markdown(os.Stdout, in)
	report.ClaimsTable(os.Stdout, in)
	report.RatiosTable(os.Stdout, in)
	f, _ := os.Create("/tmp/model-report.html")
	report.HTML(f, in, report.HTMLOptions{Dir: dir})
	f.Close()
}
