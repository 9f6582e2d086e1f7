package present

// QuestionSpec is how one "predict before you read" question is shown: its page and its unit. The
// question's wording is prose (content/predictions.md); the experiment that answers it, and how
// a run measures it, are that experiment's definition's (experiments.Answering). A question is
// always answered by its experiment at the document's values, the parameters its wording states:
// a reader's run at other values answers a different question.
type QuestionSpec struct {
	ID   string
	Page string
	Unit string
}

// QuestionSpecs are the five questions in the order content/predictions.md asks them.
var QuestionSpecs = []QuestionSpec{
	{ID: "q1", Page: "/blocks/1", Unit: "jobs lost"},
	{ID: "q2", Page: "/blocks/2", Unit: "jobs duplicated"},
	{ID: "q3", Page: "/assembly", Unit: "duplicates caught"},
	{ID: "q4", Page: "/blocks/4", Unit: "duplicates escaped"},
	{ID: "q5", Page: "/blocks/6", Unit: "jobs run twice"},
}
