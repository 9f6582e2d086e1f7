package pages

import "strconv"

// QuestionSpec ties one "predict before you read" question to the experiment and the result value
// that answers it. The question's wording is prose (content/predictions.md); this is the wiring.
// A question is always answered by its experiment at the document's values, the parameters its
// wording states: a reader's run at other values answers a different question.
type QuestionSpec struct {
	ID         string
	Page       string
	Experiment string
	Unit       string
}

// QuestionSpecs are the five questions in the order content/predictions.md asks them.
var QuestionSpecs = []QuestionSpec{
	{ID: "q1", Page: "/blocks/1", Experiment: "assembly", Unit: "jobs lost"},
	{ID: "q2", Page: "/blocks/2", Experiment: "assembly", Unit: "jobs duplicated"},
	{ID: "q3", Page: "/assembly", Experiment: "assembly", Unit: "duplicates caught"},
	{ID: "q4", Page: "/blocks/4", Experiment: "window", Unit: "duplicates escaped"},
	{ID: "q5", Page: "/blocks/6", Experiment: "lease", Unit: "jobs run twice"},
}

// MeasuredText is the question's measurement as the page prints numbers, with thousands
// separators; the data attribute keeps the plain digits for the script that compares a guess.
func (q Question) MeasuredText() string {
	v, err := strconv.ParseInt(q.Measured, 10, 64)
	if err != nil {
		return q.Measured
	}
	return count(v)
}
