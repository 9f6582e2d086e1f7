package present

import "effectivelyonce/experiments"

// QuestionSpec is one "predict before you read" question as a page shows it: its id, the page
// whose block answers it and its unit. The question's wording is prose (content/predictions.md);
// everything else about it, how a run measures it among them, is given once, in the definition
// of the experiment that answers it (experiments.Question).
type QuestionSpec = experiments.Question

// QuestionSpecs are the questions in the order content/predictions.md asks them, as the
// experiments' definitions give them (experiments.Questions), for the handlers that list them.
var QuestionSpecs = experiments.Questions()
