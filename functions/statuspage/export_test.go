package statuspage

// GoldenScorecard is goldenScorecard for the browser test (package
// statuspage_test).
var GoldenScorecard = goldenScorecard
