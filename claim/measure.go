package claim

import "github.com/perflab/perflab/profshare"

// Measure is what a check measured, beside the Estimate and the interval
// [Lo, Hi] of its CheckResult: How says how, and the fields it names hold
// the figures.
type Measure struct {
	How How
	// N is what the estimate rests on: rounds paired (PairedRounds,
	// PairedTooFew, Coefficients, CoefficientsTooFew, and the rounds of a
	// crossover's points), per-round ratios (PerRoundRatios), samples
	// (CellMedian, CellMedianOnly; the numerator's in MediansOnly, Of the
	// denominator's), or the points of a knee's series.
	N, Of int
	// Conf is the confidence of the interval; IntervalName names a
	// paired interval (analysis.Options.PairedIntervalName), P is a
	// paired ratio's p-value.
	Conf         float64
	IntervalName string
	P            float64
	// Value is the ratio of the two medians (MediansOnly).
	Value float64
	// Num and Den are the two cells' medians with their intervals
	// (ZeroDenominator).
	Num, Den Median
	// Share is a profile check's share of its cell Num's samples, DenShare
	// that of its cell Den (ProfileDifference).
	Share, DenShare profshare.Share
	// Note is a knee fit's verdict in words (analysis.Knee.Note).
	Note string
	// From and To are the first and last axis values of a knee's series
	// or a crossover's points.
	From, To float64
	// Crossings are a crossover's crossings (Crossings); Significant of
	// Points are the points whose difference is significant, and Higher
	// says series A is the higher one on both sides of the claimed range
	// (NoCrossingEither).
	Crossings           []Crossing
	Significant, Points int
	Higher              bool
	// Paired says a crossover compared its points paired by round (over
	// N rounds); Correction is the correction across the points.
	Paired     bool
	Correction string
}

// How says how a check measured its estimate.
type How int

const (
	// Nothing: the check measured nothing.
	Nothing How = iota
	// PairedRounds: a ratio or contrast paired by round over N rounds:
	// the median of the per-round log-ratios with its interval at Conf
	// (IntervalName), and, for a ratio, the p-value P.
	PairedRounds
	// PairedTooFew: a ratio or contrast paired over N rounds, too few for
	// an interval.
	PairedTooFew
	// PerRoundRatios: a ratio whose numerator holds a zero (no log): the
	// median of its N per-round ratios.
	PerRoundRatios
	// UnpairedQuotient: a ratio of cells without rounds: the quotient of
	// the two medians' intervals.
	UnpairedQuotient
	// MediansOnly: a ratio of cells without rounds and with fewer than 6
	// samples (N and Of): the ratio of the medians, Value, without an
	// interval.
	MediansOnly
	// ZeroDenominator: a ratio whose denominator's interval reaches zero:
	// the medians Num and Den with their intervals, compared.
	ZeroDenominator
	// CellMedian: a value check's median with its interval, over N
	// samples.
	CellMedian
	// CellMedianOnly: a value check's median over N samples, too few for
	// an interval.
	CellMedianOnly
	// Coefficients: a correlation's median over N rounds, with its
	// interval on Fisher's z scale.
	Coefficients
	// CoefficientsTooFew: a correlation's median over N rounds, too few
	// for an interval.
	CoefficientsTooFew
	// ProfileShare: a profile check's Share at confidence Conf.
	ProfileShare
	// ProfileDifference: the difference of two shares (Share, DenShare)
	// at confidence Conf.
	ProfileDifference
	// KneeFit: a knee's fit (Note) over a series from From to To of N
	// points.
	KneeFit
	// Crossings: a crossover's Crossings.
	Crossings
	// NoCrossing: a crossover comparison without a crossing from From to
	// To, significant at Significant of Points.
	NoCrossing
	// NoCrossingEither: no crossing from From to To, series A Higher (or
	// lower) at Significant of Points, on both sides of the claimed
	// range.
	NoCrossingEither
)

// Median is a cell's median with its interval.
type Median struct{ Center, Lo, Hi float64 }

// Crossing is one crossing of two series along an axis.
type Crossing struct {
	// X is the crossing, between the sampled axis values Lo and Hi, and
	// [XLo, XHi] its interval.
	X, Lo, Hi, XLo, XHi float64
	// Below and Above are the ratios A/B at the significant points on
	// either side of the crossing.
	Below, Above Point
	// Better is the series better above the crossing (its selector).
	Better string
}

// Point is the ratio A/B at axis value X of a crossover's comparison,
// with its interval when Interval; Found is false when the comparison
// has no point at X.
type Point struct {
	X, Ratio, Lo, Hi float64
	Interval, Found  bool
}

// Reason is why a check was not reproduced: Why, with the figures its
// words need that its CheckResult does not hold (the interval, threshold,
// band and measurement are there).
type Reason struct {
	Why Why
	// Err is the message of the error that stopped the check.
	Err string
	// N and Of count rounds, points or samples, as Why says; Conf and
	// IntervalName are those of the interval the rounds were too few for.
	N, Of        int
	Conf         float64
	IntervalName string
	// Cell is a cell that carries no rounds (NoRounds); Better the series
	// better above the crossing found (CrossesOtherWay, OnlyOtherWay).
	Cell, Better string
	// Config is the config a NotFetched check reads; Fetch what its build
	// could not download ("toolchain go1.22.12"), and Err the go
	// command's reason.
	Config, Fetch string
}

// Why names why a check was not reproduced.
type Why int

const (
	// NoReason: the check was reproduced, or needs no reason.
	NoReason Why = iota
	// Failed: the check could not be run: its cells were not found, or
	// its spec says something this run cannot do (Err says what).
	Failed
	// UnknownKind: the check's kind is not one perflab knows.
	UnknownKind

	// NoSharedRound: the two cells of a ratio share no round.
	NoSharedRound
	// TooFewRounds: N rounds paired are too few for a Conf IntervalName.
	TooFewRounds
	// FewSamplesPerCell: cells without rounds with fewer than 6 samples
	// each: no interval.
	FewSamplesPerCell
	// FewRounds: fewer than 6 rounds: no interval.
	FewRounds
	// BandAtZero: the denominator reaches zero, so an equivalence band
	// cannot be tested.
	BandAtZero
	// AgainstAtZero: the denominator reaches zero and the two medians lie
	// the other way round from the threshold.
	AgainstAtZero
	// UnsureAtZero: the denominator reaches zero: the medians' order is
	// clear, but not which side of the threshold the ratio lies.
	UnsureAtZero
	// Overlap: the denominator reaches zero and the two medians'
	// intervals overlap.
	Overlap

	// OutsideBand: the interval lies wholly outside the band.
	OutsideBand
	// StraddlesBand: the interval is not wholly inside the band.
	StraddlesBand
	// OtherSide: the whole interval lies on the other side of the
	// threshold.
	OtherSide
	// Straddles: the interval straddles the threshold.
	Straddles

	// NoRounds: a contrast's Cell carries no rounds.
	NoRounds
	// NoCommonRound: a contrast's four cells share no round with positive
	// values.
	NoCommonRound

	// NoCoefficientCell: no cell reports the correlation (Err), which a
	// benchmark reports only when both series varied in a round.
	NoCoefficientCell
	// NoCoefficient: the cell has no coefficient in (−1, 1).
	NoCoefficient
	// TooFewCoefficients: N rounds with a coefficient, too few for an
	// interval.
	TooFewCoefficients

	// NoValues: the cell has no values.
	NoValues
	// FewSamples: fewer than 6 samples: no interval.
	FewSamples

	// NoProfiles: the run has no per-cell CPU profiles.
	NoProfiles
	// ProfileFailed: a cell's profile could not be used (Err).
	ProfileFailed

	// NotASeries: the cells of a knee do not form one series (Err).
	NotASeries
	// FewPoints: a knee's series has N points, fewer than 4.
	FewPoints
	// FewSamplesAtPoints: N of Of points of a knee's series have fewer
	// than 6 samples.
	FewSamplesAtPoints
	// NoInterior: no interior point of the sweep lies in the window, where
	// a knee could be seen.
	NoInterior
	// KneeElsewhere: the knee's interval lies outside the window.
	KneeElsewhere
	// KneeBeyond: the knee's interval reaches beyond the window.
	KneeBeyond
	// Smooth: the series grows smoothly, without a knee.
	Smooth
	// NoShape: the fits show neither a knee nor smooth growth.
	NoShape

	// NoSeries: a crossover's cells do not form two series with common
	// points.
	NoSeries
	// CrossesOtherWay: the series cross the other way in the range
	// (Better is better above the crossing).
	CrossesOtherWay
	// OnlyOtherWay: every crossing goes the other way (Better is better
	// above them).
	OnlyOtherWay
	// CrossingOutside: the crossing's interval lies outside the range.
	CrossingOutside
	// CrossingOverlaps: the crossing's interval overlaps the range but
	// does not lie inside it.
	CrossingOverlaps
	// FewSignificant: too few points differ significantly to rule a
	// crossover in the range out.
	FewSignificant
	// NoCrossover: no crossover, one series better on both sides of the
	// range.
	NoCrossover

	// NotFetched: the check reads Config, whose toolchain or modules
	// (Fetch) could not be downloaded where the run ran (Err says why),
	// so the run has no samples of it. Set by package findings, which
	// reads the stored config rows.
	NotFetched
)
