// Package leaderboard renders runs side by side: HTML boards with SVG
// plots (score against speed, memory and energy), Markdown and JSON. Its
// numbers are rundir.SuiteAverage's, the ones `suite` and `gate` show; the
// paired comparisons and the release gate live in packages compare and
// gate.
package leaderboard
