// A function of axe's run options: the light and the dark run differ only in the rules they ask
// for. Each violation comes back with its nodes and why they fail, cut short for the test log.
(opts => axe.run(document, opts).then(r => r.violations.map(v => ({
  id: v.id, impact: v.impact || "", help: v.help,
  targets: v.nodes.map(n => n.target.join(" ") + (n.failureSummary ? " — " + n.failureSummary.replace(/\s+/g, " ").slice(0, 160) : ""))}))))
