package pages

import "effectivelyonce/experiments"

// QuestionSpec ties one "predict before you read" question to the experiment and the result value
// that answers it. The question's wording is prose (content/predictions.md); this is the wiring.
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

// Measures extracts from a result the values that answer prediction questions. The browser keeps
// them, so the home page can compare a reader's guesses with the runs they made.
func Measures(experiment string, result any) map[string]int64 {
	out := map[string]int64{}
	switch r := result.(type) {
	case experiments.AssemblyResult:
		for _, row := range r.Rows {
			switch row.Design {
			case "at-most-once":
				out["q1"] = row.Lost
			case "at-least-once":
				out["q2"] = row.Duplicated
			case "dedup-non-transactional":
				out["q3"] = max(r.Crashed-row.Duplicated, 0)
			}
		}
	case experiments.WindowResult:
		for _, p := range r.Points {
			if p.Window == 1000 && r.MaxDelay == 2000 {
				out["q4"] = p.Escaped
			}
		}
	case experiments.LeaseResult:
		for _, p := range r.Points {
			if p.TimeoutS == 5 {
				out["q5"] = p.NoRenewal
			}
		}
	}
	return out
}
