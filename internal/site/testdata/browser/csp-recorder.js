// Installed before any page script (scripts injected over CDP are not subject to the page's CSP),
// so it hears every violation, including those of the page's first scripts. takeProblems reads
// and empties window.__csp.
window.__csp = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__csp.push(e.effectiveDirective + " blocked " + (e.blockedURI || "inline") + " at " + e.sourceFile + ":" + e.lineNumber);
}, true);
