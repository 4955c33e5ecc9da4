// Package report is the only writer of results as text. For a run's
// findings ([findings.Run]): a Markdown report and the same report as one
// self-contained HTML page with SVG charts and forest plots ([HTML]), both
// from one typed section model; compact claims, ratio and results tables
// for terminals; and benchfmt text for benchstat. The words of claim's
// verdicts (predicates, measurements, reasons: [CheckPredicate],
// [ClaimReason], …) are written here, for every output and for the
// verdicts stored with a run. For the other views of package findings:
// comparisons of two runs or files ([CompareText], [CompareHTML],
// [CompareJSON]) and a gate's lines ([GateText]), perflab ab's paired
// table and pull-request summary ([PairedText], [PairedMarkdown]), a
// benchmark's history ([HistoryText], [HistoryHTML]) and analyses
// ([AnalyzeText]); and the lists perflab prints: stored runs
// ([RunsText], [RunsHTML]), built-in experiments ([ExperimentsText]) and
// a load step ([LoadText]). Every JSON output goes through [JSON], which
// writes non-finite numbers as null, and every Markdown cell through one
// escaper. It computes no statistics: every figure comes from package
// findings, claim or the driver that measured it.
package report
